/* metric_row.c - the checked readers of the metric rows (metric_row.h). */
#include "metric_row.h"
#include <math.h>
#include <stdlib.h>

const char *metric_pooling_name(enum metric_pooling p)
{
    static const char *const name[] = {
        [METRIC_MEAN] = "mean", [METRIC_CONFUSION] = "confusion", [METRIC_POOL] = "pooled",
    };
    return p >= 0 && p < (int)(sizeof name / sizeof *name) ? name[p] : "?";
}

void metric_pool_free(struct metric_pool *p)
{
    free(p->x);
    free(p->label);
    free(p->y);
}

int64_t metric_count(const struct record *rec, const char *key)
{
    int64_t v = record_int(rec, key);
    if (v < 0 || v > INT32_MAX)
        record_die(rec, "'%s' is %lld, expected 0..%d", key, (long long)v, INT32_MAX);
    return v;
}

int64_t metric_node_index(const struct record *rec, const char *key, int64_t n)
{
    int64_t v = record_int(rec, key);
    if (v < 0 || v >= n)
        record_die(rec, "'%s' is %lld, expected 0..%lld", key, (long long)v, (long long)(n - 1));
    return v;
}

double metric_finite(const struct record *rec, const char *key)
{
    double v = record_double(rec, key);
    if (!isfinite(v))
        record_die(rec, "'%s' is %g, expected a finite number", key, v);
    return v;
}

/* (A fixed flow's value may be negative: flow-fix keeps a prediction that
 * sends flow from t to s.  A max flow's may not.) */
double metric_maxflow(const struct record *rec)
{
    double v = metric_finite(rec, "maxflow");
    if (v < 0)
        record_die(rec, "'maxflow' is %g, expected a max flow value >= 0", v);
    return v;
}

void metric_check_finite_f32(const struct record *rec, const char *key, const float *a, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        if (!isfinite(a[i]))
            record_die(rec, "'%s' entry %lld is %g, expected a finite number", key, (long long)i, (double)a[i]);
}

void metric_check_finite_f64(const struct record *rec, const char *key, const double *a, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        if (!isfinite(a[i]))
            record_die(rec, "'%s' entry %lld is %g, expected a finite number", key, (long long)i, a[i]);
}

float *metric_f32_vector(const struct record *rec, const char *key, int64_t count)
{
    float *a = record_vector(rec, key, DT_F32, count);
    metric_check_finite_f32(rec, key, a, count);
    return a;
}

void *metric_node_vector(const struct record *rec, const char *key, enum dtype dt, int64_t n)
{
    void *a = record_vector(rec, key, dt, n);
    if (dt == DT_F32)
        metric_check_finite_f32(rec, key, a, n);
    if (dt == DT_F64)
        metric_check_finite_f64(rec, key, a, n);
    if (dt == DT_I32)
        for (int64_t v = 0; v < n; v++)
            if (((int32_t *)a)[v] < 0 || ((int32_t *)a)[v] >= n)
                record_die(rec, "'%s' entry %lld is %d, outside 0..%lld", key, (long long)v, ((int32_t *)a)[v],
                           (long long)n - 1);
    if (dt == DT_U8)
        for (int64_t v = 0; v < n; v++)
            if (((uint8_t *)a)[v] > 1)
                record_die(rec, "'%s' entry %lld is %d, expected 0 or 1", key, (long long)v, ((uint8_t *)a)[v]);
    return a;
}

uint8_t *metric_edge_mask(const struct record *rec, int64_t m, enum metric_edges edges)
{
    if (edges == EDGES_ALL || (edges == EDGES_AUTO && !record_has(rec, "split")))
        return NULL;
    if (!record_has(rec, "split"))
        record_die(rec, "missing key 'split' (needed by --edges)");
    uint8_t want = edges == EDGES_TRAIN ? 0 : edges == EDGES_VAL ? 1 : 2;
    uint8_t *split = record_vector(rec, "split", DT_U8, m);
    for (int64_t e = 0; e < m; e++) {
        if (split[e] > 2)
            record_die(rec, "'split' entry %lld is %u, expected 0 (train), 1 (val) or 2 (test)",
                       (long long)e, split[e]);
        split[e] = split[e] == want;
    }
    return split;
}
