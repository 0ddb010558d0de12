/* metrics.c - the `metrics` filter: graph records -> one metric record per
 * quantity (formats/metric.md), each computed over the whole stream with
 * common/eval/metrics.c's functions.  The table mode is metrics_table.c. */
#include "metrics.h"
#include "metrics_tool.h"
#include "die.h"
#include "stream.h"
#include "tensor.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Inputs of each quantity: all of these keys must be in a record. */
static const struct {
    const char *name;
    const char *keys[10];
} quantity[Q_COUNT] = {
    [Q_MAE_FLOW] = {"mae_flow", {"m", "pred_flow", "flow"}},
    [Q_MAE_HINT_FLOW] = {"mae_hint_flow", {"m", "steps", "pred_hint_flow", "hint_flow", "hint_phase"}},
    [Q_CUT_ACCURACY] = {"cut_accuracy", {"n", "pred_cut", "cut"}},
    [Q_MAXFLOW_ERROR] = {"maxflow_error", {"n", "m", "s", "t", "src", "dst", "pred_flow", "maxflow"}},
    [Q_CONSERVATION_BEFORE] = {"conservation_before", {"n", "s", "t", "conservation_before"}},
    [Q_CONSERVATION_AFTER] = {"conservation_after", {"n", "s", "t", "conservation_after"}},
    [Q_FIXED_VALUE_RATIO] = {"fixed_value_ratio", {"fixed_value", "maxflow"}},
    [Q_ACCURACY] = {"accuracy", {"m", "label", "pred_label"}},
    [Q_BALANCED_ACCURACY] = {"balanced_accuracy", {"m", "label", "pred_label"}},
    [Q_ROC_AUC] = {"roc_auc", {"m", "label", "pred_proba"}},
    [Q_ROC_HARD] = {"roc_hard", {"m", "label", "pred_label"}},
    [Q_R2] = {"r2", {"n", "embed", "maxflow"}},
    [Q_POINTER_ACCURACY] = {"pointer_accuracy", {"n", "pred_pi", "pi"}},
    [Q_MAE_D] = {"mae_d", {"n", "pred_d", "d", "reached"}},
    [Q_FEASIBLE_EDGES] = {"feasible_edges", {"n", "m", "src", "dst", "w", "pred_d", "reached"}},
    [Q_PATH_OPTIMAL] = {"path_optimal", {"n", "m", "s", "src", "dst", "w", "pred_pi", "d", "reached"}},
    [Q_PATH_GAP] = {"path_gap", {"n", "m", "s", "src", "dst", "w", "pred_pi", "d", "reached"}},
    [Q_MATCH_F1] = {"match_f1", {"m", "pred_match", "match"}},
    [Q_MATCH_RATIO] = {"match_ratio", {"fixed_match_size", "size"}},
    [Q_COVER_VALID_BEFORE] = {"cover_valid_before", {"cover_valid_before"}},
    [Q_COVER_RATIO] = {"cover_ratio", {"fixed_cover_size", "size"}},
    [Q_CERTIFIED] = {"certified", {"fixed_match_size", "fixed_cover_size"}},
    [Q_COVER_WEIGHT_RATIO] = {"cover_weight_ratio", {"n", "node_w", "cover", "fixed_cover_weight"}},
    [Q_COVER_OPT_RATIO] = {"cover_opt_ratio", {"fixed_cover_weight", "opt_weight", "opt_status"}},
    [Q_OPT_UNPROVEN] = {"opt_unproven", {"fixed_cover_weight", "opt_weight", "opt_status"}},
    [Q_PACKING_EXCESS] = {"packing_excess", {"n", "node_w", "packing_excess"}},
    [Q_CERTIFIED_GAP] = {"certified_gap", {"fixed_cover_weight", "packing_value"}},
    [Q_UNCERTIFIED] = {"uncertified", {"fixed_cover_weight", "packing_value"}},
};

const char *metric_quantity_name(enum metric_quantity q)
{
    return q < Q_COUNT ? quantity[q].name : "?";
}

int metric_quantity_parse(const char *name)
{
    for (int q = 0; q < Q_COUNT; q++)
        if (strcmp(name, quantity[q].name) == 0)
            return q;
    return -1;
}

static int key_count(int q)
{
    int k = 0;
    while (quantity[q].keys[k])
        k++;
    return k;
}

static const char *missing_key(const struct record *rec, int q)
{
    for (int k = 0; k < key_count(q); k++)
        if (!record_has(rec, quantity[q].keys[k]))
            return quantity[q].keys[k];
    return NULL;
}

static void require_keys(const struct record *rec, int q)
{
    const char *key = missing_key(rec, q);
    if (key)
        record_die(rec, "missing key '%s' (needed by %s)", key, quantity[q].name);
}

static void check_finite_f32(const struct record *rec, const char *key,
                             const float *a, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        if (!isfinite(a[i]))
            record_die(rec, "'%s' entry %lld is %g, expected a finite number", key, (long long)i, (double)a[i]);
}

static void check_finite_f64(const struct record *rec, const char *key,
                             const double *a, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        if (!isfinite(a[i]))
            record_die(rec, "'%s' entry %lld is %g, expected a finite number", key, (long long)i, a[i]);
}

static double finite_double(const struct record *rec, const char *key)
{
    double v = record_double(rec, key);
    if (!isfinite(v))
        record_die(rec, "'%s' is %g, expected a finite number", key, v);
    return v;
}

/* A max flow's value: a negative one is no max flow and would score as an
 * error of the wrong size, not as bad input.  (A fixed flow's value may be
 * negative: flow-fix keeps a prediction that sends flow from t to s.) */
static double maxflow_of(const struct record *rec)
{
    double v = finite_double(rec, "maxflow");
    if (v < 0)
        record_die(rec, "'maxflow' is %g, expected a max flow value >= 0", v);
    return v;
}

static float *f32_vector(const struct record *rec, const char *key, int64_t n)
{
    float *a = record_vector(rec, key, DT_F32, n);
    check_finite_f32(rec, key, a, n);
    return a;
}

/* n or m: a negative count would pass record_vector()'s shape check for a
 * tensor of any length (-1 is its wildcard) and size the loops below. */
static int64_t count_key(const struct record *rec, const char *key)
{
    int64_t v = record_int(rec, key);
    if (v < 0 || v > INT32_MAX)
        record_die(rec, "'%s' is %lld, expected 0..%d", key, (long long)v, INT32_MAX);
    return v;
}

static int64_t node_index(const struct record *rec, const char *key, int64_t n)
{
    int64_t v = record_int(rec, key);
    if (v < 0 || v >= n)
        record_die(rec, "'%s' is %lld, expected 0..%lld", key, (long long)v, (long long)(n - 1));
    return v;
}

struct accumulators {
    struct metric_mean mae_flow, hint_graphs, cut, maxflow_error, cons_before, cons_after, fixed_ratio;
    struct metric_mean pointer, mae_d, feasible, path_optimal, path_gap;
    struct metric_mean match_f1, match_ratio, cover_valid, cover_ratio, certified;
    struct metric_mean cover_weight_ratio, opt_ratio, unproven, packing_excess, gap, uncertified;
    int64_t *confusion;
    int64_t class_entries;
    /* roc_auc: the kept labels and probability rows of every record */
    uint8_t *labels;
    double *proba;
    int64_t n_proba, cap_proba;
    int K;
    /* r2: one row per graph */
    double *X, *y;
    int64_t rows, cap_rows;
    int d;
};

/* The edges of a classification record to score: NULL for all of them. */
static uint8_t *edge_mask(const struct record *rec, int64_t m, enum metric_edges edges)
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

static void add_embedding_row(struct accumulators *acc, bool from_fit, const struct record *rec)
{
    int64_t n = count_key(rec, "n");
    struct tensor t;
    record_tensor(rec, "embed", DT_F32, 2, (int64_t[]){n, -1}, &t);
    int64_t d = t.shape[1];
    if (acc->d < 0) {
        if (d < 1 || d > 1 << 20)
            record_die(rec, "'embed' has %lld columns, expected 1..%d", (long long)d, 1 << 20);
        acc->d = (int)d;
    } else if (d != acc->d) {
        record_die(rec, "'embed' has %lld columns, expected %d like %s", (long long)d, acc->d,
                   acc->rows || from_fit ? "the records before" : "the --fit records");
    }
    const float *e = t.data;
    check_finite_f32(rec, "embed", e, n * d);
    if (acc->rows == acc->cap_rows) {
        acc->cap_rows = acc->cap_rows ? 2 * acc->cap_rows : 64;
        acc->X = xrealloc(acc->X, sizeof *acc->X * (size_t)(acc->cap_rows * d));
        acc->y = xrealloc(acc->y, sizeof *acc->y * (size_t)acc->cap_rows);
    }
    double *g = acc->X + acc->rows * d;
    for (int64_t j = 0; j < d; j++)
        g[j] = -INFINITY;
    for (int64_t v = 0; v < n; v++)
        for (int64_t j = 0; j < d; j++)
            g[j] = fmax(g[j], (double)e[v * d + j]);
    acc->y[acc->rows++] = maxflow_of(rec);
    tensor_free(&t);
}

/* A node vector of a shortest-path record, checked. */
static void *node_vector(const struct record *rec, const char *key, enum dtype dt, int64_t n)
{
    void *a = record_vector(rec, key, dt, n);
    if (dt == DT_F32)
        check_finite_f32(rec, key, a, n);
    if (dt == DT_F64)
        check_finite_f64(rec, key, a, n);
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

/* The shortest-path quantities of one record. */
static void accumulate_paths(struct accumulators *acc, const bool *sel, const struct record *rec)
{
    bool edges = sel[Q_FEASIBLE_EDGES] || sel[Q_PATH_OPTIMAL] || sel[Q_PATH_GAP];
    bool tree = sel[Q_PATH_OPTIMAL] || sel[Q_PATH_GAP];
    if (!sel[Q_POINTER_ACCURACY] && !sel[Q_MAE_D] && !edges)
        return;
    int64_t n = count_key(rec, "n"), m = edges ? count_key(rec, "m") : 0;
    if (sel[Q_POINTER_ACCURACY]) {
        int32_t *pred = node_vector(rec, "pred_pi", DT_I32, n), *pi = node_vector(rec, "pi", DT_I32, n);
        metric_pointer_correct(&acc->pointer, pred, pi, n);
        free(pred);
        free(pi);
    }
    uint8_t *reached = sel[Q_MAE_D] || edges ? node_vector(rec, "reached", DT_U8, n) : NULL;
    if (sel[Q_MAE_D]) {
        float *pred = node_vector(rec, "pred_d", DT_F32, n);
        double *d = node_vector(rec, "d", DT_F64, n);
        metric_distance_abs_error(&acc->mae_d, pred, d, reached, n);
        free(pred);
        free(d);
    }
    if (edges) {
        int32_t *a = record_vector(rec, "src", DT_I32, m), *b = record_vector(rec, "dst", DT_I32, m);
        float *w = f32_vector(rec, "w", m);
        for (int64_t e = 0; e < m; e++)
            if (a[e] < 0 || a[e] >= n || b[e] < 0 || b[e] >= n)
                record_die(rec, "edge %lld joins nodes %d and %d, outside 0..%lld", (long long)e, a[e], b[e],
                           (long long)n - 1);
        if (sel[Q_FEASIBLE_EDGES]) {
            float *pred = node_vector(rec, "pred_d", DT_F32, n);
            metric_feasible_edges(&acc->feasible, pred, a, b, w, reached, m, METRIC_FEASIBLE_TOL);
            free(pred);
        }
        if (tree) {
            int s = (int)node_index(rec, "s", n);
            int32_t *pred = node_vector(rec, "pred_pi", DT_I32, n);
            double *d = node_vector(rec, "d", DT_F64, n);
            metric_tree_paths(&acc->path_gap, &acc->path_optimal, pred, d, reached, a, b, w, n, m, s);
            free(pred);
            free(d);
        }
        free(a);
        free(b);
        free(w);
    }
    free(reached);
}

/* A non-negative size of a matching record. */
static int64_t size_key(const struct record *rec, const char *key)
{
    int64_t v = record_int(rec, key);
    if (v < 0 || v > INT32_MAX)
        record_die(rec, "'%s' is %lld, expected 0..%d", key, (long long)v, INT32_MAX);
    return v;
}

/* The matching quantities of one record. */
static void accumulate_matching(struct accumulators *acc, const bool *sel, const struct record *rec)
{
    if (sel[Q_MATCH_F1]) {
        int64_t m = count_key(rec, "m");
        float *pred = f32_vector(rec, "pred_match", m);
        uint8_t *truth = record_vector(rec, "match", DT_U8, m);
        metric_match_f1(&acc->match_f1, pred, truth, m);
        free(pred);
        free(truth);
    }
    if (sel[Q_MATCH_RATIO])
        metric_size_ratio(&acc->match_ratio, size_key(rec, "fixed_match_size"), size_key(rec, "size"));
    if (sel[Q_COVER_VALID_BEFORE])
        metric_share(&acc->cover_valid, record_bool(rec, "cover_valid_before"));
    if (sel[Q_COVER_RATIO])
        metric_size_ratio(&acc->cover_ratio, size_key(rec, "fixed_cover_size"), size_key(rec, "size"));
    if (sel[Q_CERTIFIED])
        metric_share(&acc->certified, size_key(rec, "fixed_match_size") == size_key(rec, "fixed_cover_size"));
}

/* The vertex-cover quantities of one record (after cover-fix). */
static void accumulate_cover(struct accumulators *acc, const bool *sel, const struct record *rec)
{
    if (sel[Q_COVER_WEIGHT_RATIO] || sel[Q_PACKING_EXCESS]) {
        int64_t n = count_key(rec, "n");
        float *node_w = f32_vector(rec, "node_w", n);
        for (int64_t v = 0; v < n; v++)
            if (node_w[v] < 0)
                record_die(rec, "'node_w' entry %lld is %g, expected a weight >= 0", (long long)v, (double)node_w[v]);
        if (sel[Q_COVER_WEIGHT_RATIO]) {
            uint8_t *cover = node_vector(rec, "cover", DT_U8, n);
            metric_cover_weight_ratio(&acc->cover_weight_ratio, finite_double(rec, "fixed_cover_weight"), node_w, cover, n);
            free(cover);
        }
        if (sel[Q_PACKING_EXCESS])
            metric_packing_excess(&acc->packing_excess, finite_double(rec, "packing_excess"), node_w, n);
        free(node_w);
    }
    if (sel[Q_COVER_OPT_RATIO] || sel[Q_OPT_UNPROVEN]) {
        char status[32];
        record_str(rec, "opt_status", status, sizeof status);
        if (strcmp(status, "optimal") && strcmp(status, "feasible") && strcmp(status, "unsolved"))
            record_die(rec, "'opt_status' is '%s', expected optimal, feasible or unsolved", status);
        metric_cover_opt_ratio(&acc->opt_ratio, &acc->unproven, finite_double(rec, "fixed_cover_weight"),
                               finite_double(rec, "opt_weight"), status);
    }
    if (sel[Q_CERTIFIED_GAP] || sel[Q_UNCERTIFIED])
        metric_certified_gap(&acc->gap, &acc->uncertified, finite_double(rec, "fixed_cover_weight"),
                             finite_double(rec, "packing_value"));
}

static void accumulate(struct accumulators *acc, const bool *sel, const struct record *rec,
                       const struct metrics_options *o)
{
    if (sel[Q_MAE_FLOW]) {
        int64_t m = count_key(rec, "m");
        float *pred = f32_vector(rec, "pred_flow", m), *flow = f32_vector(rec, "flow", m);
        metric_masked_abs_error(&acc->mae_flow, pred, flow, m);
        free(pred);
        free(flow);
    }
    if (sel[Q_MAE_HINT_FLOW]) {
        int64_t m = count_key(rec, "m"), T = record_int(rec, "steps");
        if (T < 1)
            record_die(rec, "'steps' is %lld, expected at least 1", (long long)T);
        struct tensor p, h;
        uint8_t *phase = record_vector(rec, "hint_phase", DT_U8, T);
        record_tensor(rec, "pred_hint_flow", DT_F32, 2, (int64_t[]){T, m}, &p);
        record_tensor(rec, "hint_flow", DT_F32, 2, (int64_t[]){T, m}, &h);
        check_finite_f32(rec, "pred_hint_flow", p.data, T * m);
        check_finite_f32(rec, "hint_flow", h.data, T * m);
        double score = metric_hint_flow_mae(p.data, h.data, phase, T, m, NULL);
        if (!isnan(score)) {
            acc->hint_graphs.sum += score;
            acc->hint_graphs.count++;
        }
        tensor_free(&p);
        tensor_free(&h);
        free(phase);
    }
    if (sel[Q_CUT_ACCURACY]) {
        int64_t n = count_key(rec, "n");
        float *pred = f32_vector(rec, "pred_cut", n);
        uint8_t *cut = record_vector(rec, "cut", DT_U8, n);
        metric_cut_correct(&acc->cut, pred, cut, n);
        free(pred);
        free(cut);
    }
    if (sel[Q_MAXFLOW_ERROR]) {
        int64_t n = count_key(rec, "n"), m = count_key(rec, "m");
        int s = (int)node_index(rec, "s", n), t = (int)node_index(rec, "t", n);
        int32_t *a = record_vector(rec, "src", DT_I32, m), *b = record_vector(rec, "dst", DT_I32, m);
        float *pred = f32_vector(rec, "pred_flow", m);
        double value = metric_flow_value(pred, a, b, m, s, t);
        acc->maxflow_error.sum += fabs(value - maxflow_of(rec));
        acc->maxflow_error.count++;
        free(a);
        free(b);
        free(pred);
    }
    for (int q = Q_CONSERVATION_BEFORE; q <= Q_CONSERVATION_AFTER; q++)
        if (sel[q]) {
            int64_t n = count_key(rec, "n");
            int s = (int)node_index(rec, "s", n), t = (int)node_index(rec, "t", n);
            const char *key = quantity[q].name;
            double *c = record_vector(rec, key, DT_F64, n);
            check_finite_f64(rec, key, c, n);
            metric_conservation(q == Q_CONSERVATION_BEFORE ? &acc->cons_before : &acc->cons_after, c, n, s, t);
            free(c);
        }
    if (sel[Q_FIXED_VALUE_RATIO]) {
        double value = finite_double(rec, "fixed_value"), best = maxflow_of(rec);
        if (best > 0) {
            acc->fixed_ratio.sum += value / best;
            acc->fixed_ratio.count++;
        }
    }
    bool hard = sel[Q_ACCURACY] || sel[Q_BALANCED_ACCURACY] || sel[Q_ROC_HARD];
    if (hard || sel[Q_ROC_AUC]) {
        int64_t m = count_key(rec, "m");
        uint8_t *label = record_vector(rec, "label", DT_U8, m);
        uint8_t *keep = edge_mask(rec, m, o->edges);
        if (hard) {
            uint8_t *pred = record_vector(rec, "pred_label", DT_U8, m);
            metric_confusion_add(acc->confusion, label, pred, keep, m);
            free(pred);
        }
        if (sel[Q_ROC_AUC]) {
            struct tensor t;
            record_tensor(rec, "pred_proba", DT_F32, 2, (int64_t[]){m, acc->K > 0 ? acc->K : -1}, &t);
            int64_t K = t.shape[1];
            if (K < 1 || K > METRIC_CLASSES)
                record_die(rec, "'pred_proba' has %lld classes, expected 1..%d", (long long)K, METRIC_CLASSES);
            acc->K = (int)K;
            const float *p = t.data;
            check_finite_f32(rec, "pred_proba", p, m * K);
            for (int64_t e = 0; e < m; e++) {
                if (keep && !keep[e])
                    continue;
                if (label[e] >= K)
                    record_die(rec, "'label' entry %lld is %u, but 'pred_proba' has %lld classes",
                               (long long)e, label[e], (long long)K);
                if (acc->n_proba == acc->cap_proba) {
                    acc->cap_proba = acc->cap_proba ? 2 * acc->cap_proba : 1024;
                    acc->labels = xrealloc(acc->labels, (size_t)acc->cap_proba);
                    acc->proba = xrealloc(acc->proba, sizeof *acc->proba * (size_t)(acc->cap_proba * K));
                }
                acc->labels[acc->n_proba] = label[e];
                for (int64_t c = 0; c < K; c++)
                    acc->proba[acc->n_proba * K + c] = p[e * K + c];
                acc->n_proba++;
            }
            tensor_free(&t);
        }
        free(keep);
        free(label);
    }
    if (sel[Q_R2])
        add_embedding_row(acc, false, rec);
    accumulate_paths(acc, sel, rec);
    accumulate_matching(acc, sel, rec);
    accumulate_cover(acc, sel, rec);
}

static void check_kind(const struct record *rec, const char *want)
{
    char kind[32];
    if (!record_has(rec, "kind"))
        record_die(rec, "missing key 'kind'");
    record_str(rec, "kind", kind, sizeof kind);
    if (strcmp(kind, want) != 0)
        record_die(rec, "a '%s' record, expected '%s'", kind, want);
}

static void write_metric(struct writer *w, const struct metrics_options *o, const char *name,
                         double value, int64_t count)
{
    mp_map(w, 6);
    mp_key(w, "kind");   mp_str(w, "metric");
    mp_key(w, "name");   mp_str(w, name);
    mp_key(w, "value");  mp_double(w, value);
    mp_key(w, "count");  mp_int(w, count);
    mp_key(w, "split");  mp_str(w, o->split);
    mp_key(w, "labels");
    mp_map(w, (uint32_t)o->n_labels);
    for (int i = 0; i < o->n_labels; i++) {
        mp_key(w, o->label_keys[i]);
        mp_str(w, o->label_values[i]);
    }
}

/* r2: the rows of the --fit stream. */
static void read_fit(const struct metrics_options *o, struct accumulators *fit)
{
    struct reader rd;
    struct record rec;
    reader_init(&rd, o->fit, o->fit_name);
    while (reader_next(&rd, &rec)) {
        check_kind(&rec, "graph");
        require_keys(&rec, Q_R2);
        add_embedding_row(fit, true, &rec);
    }
    reader_free(&rd);
    if (!fit->rows)
        die(EX_DATAERR, "%s: no graph records to fit the linear map on", o->fit_name);
}

/* r2: the linear map fitted on fit's rows, scored on acc's rows. */
static double r2_score(const struct accumulators *fit, const struct accumulators *acc)
{
    int d = fit->d;
    double *coef = xmalloc(sizeof *coef * (size_t)d), intercept;
    metric_least_squares(fit->X, fit->y, fit->rows, d, coef, &intercept);
    double *pred = xmalloc(sizeof *pred * (size_t)(acc->rows + 1));
    for (int64_t i = 0; i < acc->rows; i++) {
        double p = intercept;
        for (int j = 0; j < d; j++)
            p += acc->X[i * d + j] * coef[j];
        pred[i] = p;
    }
    double r2 = metric_r2(acc->y, pred, acc->rows);
    free(pred);
    free(coef);
    return r2;
}

/* The running mean behind quantity q, or NULL for the quantities that are
 * not a mean over edges, nodes or graphs (the classification scores, r2). */
static const struct metric_mean *quantity_mean(const struct accumulators *acc, int q)
{
    switch (q) {
    case Q_MAE_FLOW: return &acc->mae_flow;
    case Q_MAE_HINT_FLOW: return &acc->hint_graphs;
    case Q_CUT_ACCURACY: return &acc->cut;
    case Q_MAXFLOW_ERROR: return &acc->maxflow_error;
    case Q_CONSERVATION_BEFORE: return &acc->cons_before;
    case Q_CONSERVATION_AFTER: return &acc->cons_after;
    case Q_FIXED_VALUE_RATIO: return &acc->fixed_ratio;
    case Q_POINTER_ACCURACY: return &acc->pointer;
    case Q_MAE_D: return &acc->mae_d;
    case Q_FEASIBLE_EDGES: return &acc->feasible;
    case Q_PATH_OPTIMAL: return &acc->path_optimal;
    case Q_PATH_GAP: return &acc->path_gap;
    case Q_MATCH_F1: return &acc->match_f1;
    case Q_MATCH_RATIO: return &acc->match_ratio;
    case Q_COVER_VALID_BEFORE: return &acc->cover_valid;
    case Q_COVER_RATIO: return &acc->cover_ratio;
    case Q_CERTIFIED: return &acc->certified;
    case Q_COVER_WEIGHT_RATIO: return &acc->cover_weight_ratio;
    case Q_COVER_OPT_RATIO: return &acc->opt_ratio;
    case Q_OPT_UNPROVEN: return &acc->unproven;
    case Q_PACKING_EXCESS: return &acc->packing_excess;
    case Q_CERTIFIED_GAP: return &acc->gap;
    case Q_UNCERTIFIED: return &acc->uncertified;
    default: return NULL;
    }
}

/* --per-graph: a record's own (sum, count) of every quantity that is a mean
 * over edges, nodes or graphs, so a bootstrap over the test graphs can pool
 * any resample of them (formats/metric.md).  The record is accumulated a
 * second time, into its own accumulators, so the pooled sums keep their
 * order and the metric records their bytes. */
static void write_per_graph(struct writer *w, const struct metrics_options *o, const int *order, int n_order,
                            const struct record *rec, long index)
{
    struct accumulators one = {.d = -1};
    bool sel[Q_COUNT] = {false};
    for (int i = 0; i < n_order; i++)
        sel[order[i]] = quantity_mean(&one, order[i]) != NULL;
    accumulate(&one, sel, rec, o);
    for (int i = 0; i < n_order; i++) {
        int q = order[i];
        if (!sel[q])
            continue;
        const struct metric_mean *mean = quantity_mean(&one, q);
        mp_map(w, 8);
        mp_key(w, "kind");   mp_str(w, "graph_metric");
        mp_key(w, "name");   mp_str(w, quantity[q].name);
        mp_key(w, "graph");  mp_int(w, index);
        mp_key(w, "sum");    mp_double(w, mean->sum);
        mp_key(w, "count");  mp_int(w, mean->count);
        mp_key(w, "value");  mp_double(w, metric_mean_value(mean));
        mp_key(w, "split");  mp_str(w, o->split);
        mp_key(w, "labels");
        mp_map(w, (uint32_t)o->n_labels);
        for (int k = 0; k < o->n_labels; k++) {
            mp_key(w, o->label_keys[k]);
            mp_str(w, o->label_values[k]);
        }
    }
}

/* The blocks a record's scored edges are cut into for --per-graph: enough
 * for a percentile interval, few enough that a resample is cheap whatever the
 * graph's size (a vessel graph has millions of edges, one record). */
enum { CONFUSION_BLOCKS = 100 };

/* --per-graph, classification: the balanced accuracy and the ROC of hard
 * predictions are no sums of edges' shares, but functions of the confusion
 * matrix, which is one.  So a record's scored edges, in edge order, are cut
 * into CONFUSION_BLOCKS contiguous blocks (fewer when there are fewer edges),
 * and each block's confusion matrix is written as one `confusion` record:
 * a resample of blocks pools to the matrix of those edges (formats/metric.md).
 * Contiguous, so that edges near each other in the record stay together. */
static void write_confusion_blocks(struct writer *w, const struct metrics_options *o,
                                   const struct record *rec, long index)
{
    int64_t m = count_key(rec, "m");
    uint8_t *label = record_vector(rec, "label", DT_U8, m);
    uint8_t *pred = record_vector(rec, "pred_label", DT_U8, m);
    uint8_t *keep = edge_mask(rec, m, o->edges);
    int64_t scored = 0;
    for (int64_t e = 0; e < m; e++)
        scored += !keep || keep[e];
    int64_t blocks = scored < CONFUSION_BLOCKS ? scored : CONFUSION_BLOCKS;
    int64_t *confusion = xcalloc((size_t)METRIC_CLASSES * METRIC_CLASSES, sizeof *confusion);
    int64_t e = 0, k = 0;
    for (int64_t b = 0; b < blocks; b++) {
        int64_t end = (b + 1) * scored / blocks, in_block = 0;
        for (; k < end; e++)
            if (!keep || keep[e]) {
                confusion[(int)label[e] * METRIC_CLASSES + pred[e]]++;
                in_block++;
                k++;
            }
        uint32_t cells = 0;
        for (int c = 0; c < METRIC_CLASSES * METRIC_CLASSES; c++)
            cells += confusion[c] != 0;
        mp_map(w, 8);
        mp_key(w, "kind");      mp_str(w, "graph_metric");
        mp_key(w, "name");      mp_str(w, "confusion");
        mp_key(w, "graph");     mp_int(w, index);
        mp_key(w, "block");     mp_int(w, b);
        mp_key(w, "count");     mp_int(w, in_block);
        mp_key(w, "confusion");
        mp_array(w, cells);
        for (int c = 0; c < METRIC_CLASSES * METRIC_CLASSES; c++)
            if (confusion[c]) {
                mp_array(w, 3);
                mp_int(w, c / METRIC_CLASSES);
                mp_int(w, c % METRIC_CLASSES);
                mp_int(w, confusion[c]);
                confusion[c] = 0;
            }
        mp_key(w, "split");     mp_str(w, o->split);
        mp_key(w, "labels");
        mp_map(w, (uint32_t)o->n_labels);
        for (int i = 0; i < o->n_labels; i++) {
            mp_key(w, o->label_keys[i]);
            mp_str(w, o->label_values[i]);
        }
    }
    free(confusion);
    free(keep);
    free(pred);
    free(label);
}

void metrics_run(FILE *in, const char *in_name, FILE *out, const struct metrics_options *o)
{
    struct reader rd;
    struct record rec;
    struct writer w, per_graph;
    struct accumulators acc = {.d = -1}, fit = {.d = -1};
    if (o->fit) {
        read_fit(o, &fit);
        acc.d = fit.d;
    }
    acc.confusion = xcalloc((size_t)METRIC_CLASSES * METRIC_CLASSES, sizeof *acc.confusion);
    bool sel[Q_COUNT] = {false};
    int order[Q_COUNT], n_order = 0;
    for (int i = 0; i < o->n_quantities; i++) {
        sel[o->quantities[i]] = true;
        order[n_order++] = o->quantities[i];
    }
    reader_init(&rd, in, in_name);
    writer_init(&w, out);
    if (o->per_graph)
        writer_init(&per_graph, o->per_graph);
    long records = 0;
    while (reader_next(&rd, &rec)) {
        check_kind(&rec, "graph");
        if (records == 0 && n_order == 0) {
            for (int q = 0; q < Q_COUNT; q++)
                if (!missing_key(&rec, q) && (q != Q_R2 || o->fit)) {
                    sel[q] = true;
                    order[n_order++] = q;
                }
            if (n_order == 0)
                record_die(&rec, "has the inputs of no metric (see 'metrics --help' for what each needs)");
        }
        for (int i = 0; i < n_order; i++)
            require_keys(&rec, order[i]);
        accumulate(&acc, sel, &rec, o);
        if (o->per_graph) {
            write_per_graph(&per_graph, o, order, n_order, &rec, records);
            if (sel[Q_ACCURACY] || sel[Q_BALANCED_ACCURACY] || sel[Q_ROC_HARD])
                write_confusion_blocks(&per_graph, o, &rec, records);
        }
        records++;
    }
    reader_free(&rd);
    if (records == 0)
        die(EX_DATAERR, "no graph records in the input");

    int used;
    for (int i = 0; i < n_order; i++) {
        int q = order[i];
        double value = NAN;
        int64_t count = 0;
        const struct metric_mean *mean = quantity_mean(&acc, q);
        switch (q) {
        case Q_ACCURACY:
            value = metric_accuracy(acc.confusion);
            break;
        case Q_BALANCED_ACCURACY:
            value = metric_balanced_accuracy(acc.confusion);
            break;
        case Q_ROC_HARD:
            value = metric_roc_hard(acc.confusion, &used);
            break;
        case Q_ROC_AUC:
            value = metric_roc_auc_ovr(acc.labels, acc.proba, acc.n_proba, acc.K, &used);
            count = acc.n_proba;
            break;
        case Q_R2:
            value = r2_score(&fit, &acc);
            count = acc.rows;
            break;
        }
        if (mean) {
            value = metric_mean_value(mean);
            count = mean->count;
        } else if (q == Q_ACCURACY || q == Q_BALANCED_ACCURACY || q == Q_ROC_HARD) {
            count = 0;
            for (int k = 0; k < METRIC_CLASSES * METRIC_CLASSES; k++)
                count += acc.confusion[k];
        }
        write_metric(&w, o, quantity[q].name, value, count);
    }
    free(acc.confusion);
    free(acc.labels);
    free(acc.proba);
    free(acc.X);
    free(acc.y);
    free(fit.X);
    free(fit.y);
}
