/* algo_maxflow_metrics.c - max-flow's metric rows (the paper's quantities,
 * formats/metric.md): the flow and its hints, the cut, the repaired flow,
 * the vessel graphs' edge classification and the embeddings' r2.  Their
 * order is the order `metrics` writes them in. */
#include "algo_maxflow.h"
#include "die.h"
#include <math.h>
#include <stdlib.h>

static void mae_flow(struct metric_mean *acc, const struct record *rec)
{
    int64_t m = metric_count(rec, "m");
    float *pred = metric_f32_vector(rec, "pred_flow", m), *flow = metric_f32_vector(rec, "flow", m);
    metric_masked_abs_error(acc, pred, flow, m);
    free(pred);
    free(flow);
}

/* A mean over the graphs of each graph's score, leaving out the graphs
 * with no step scored. */
static void mae_hint_flow(struct metric_mean *acc, const struct record *rec)
{
    int64_t m = metric_count(rec, "m"), T = record_int(rec, "steps");
    if (T < 1)
        record_die(rec, "'steps' is %lld, expected at least 1", (long long)T);
    struct tensor p, h;
    uint8_t *phase = record_vector(rec, "hint_phase", DT_U8, T);
    record_tensor(rec, "pred_hint_flow", DT_F32, 2, (int64_t[]){T, m}, &p);
    record_tensor(rec, "hint_flow", DT_F32, 2, (int64_t[]){T, m}, &h);
    metric_check_finite_f32(rec, "pred_hint_flow", p.data, T * m);
    metric_check_finite_f32(rec, "hint_flow", h.data, T * m);
    double score = metric_hint_flow_mae(p.data, h.data, phase, T, m, NULL);
    if (!isnan(score)) {
        acc->sum += score;
        acc->count++;
    }
    tensor_free(&p);
    tensor_free(&h);
    free(phase);
}

static void cut_accuracy(struct metric_mean *acc, const struct record *rec)
{
    int64_t n = metric_count(rec, "n");
    float *pred = metric_f32_vector(rec, "pred_cut", n);
    uint8_t *cut = record_vector(rec, "cut", DT_U8, n);
    metric_cut_correct(acc, pred, cut, n);
    free(pred);
    free(cut);
}

static void maxflow_error(struct metric_mean *acc, const struct record *rec)
{
    int64_t n = metric_count(rec, "n"), m = metric_count(rec, "m");
    int s = (int)metric_node_index(rec, "s", n), t = (int)metric_node_index(rec, "t", n);
    int32_t *a = record_vector(rec, "src", DT_I32, m), *b = record_vector(rec, "dst", DT_I32, m);
    float *pred = metric_f32_vector(rec, "pred_flow", m);
    double value = metric_flow_value(pred, a, b, m, s, t);
    acc->sum += fabs(value - metric_maxflow(rec));
    acc->count++;
    free(a);
    free(b);
    free(pred);
}

/* flow-fix's conservation errors, before or after the repair: key. */
static void conservation(struct metric_mean *acc, const struct record *rec, const char *key)
{
    int64_t n = metric_count(rec, "n");
    int s = (int)metric_node_index(rec, "s", n), t = (int)metric_node_index(rec, "t", n);
    double *c = record_vector(rec, key, DT_F64, n);
    metric_check_finite_f64(rec, key, c, n);
    metric_conservation(acc, c, n, s, t);
    free(c);
}

static void conservation_before(struct metric_mean *acc, const struct record *rec)
{
    conservation(acc, rec, "conservation_before");
}

static void conservation_after(struct metric_mean *acc, const struct record *rec)
{
    conservation(acc, rec, "conservation_after");
}

/* A graph whose max flow is 0 has no ratio. */
static void fixed_value_ratio(struct metric_mean *acc, const struct record *rec)
{
    double value = metric_finite(rec, "fixed_value"), best = metric_maxflow(rec);
    if (best > 0) {
        acc->sum += value / best;
        acc->count++;
    }
}

static double roc_hard(const int64_t *confusion)
{
    int used;
    return metric_roc_hard(confusion, &used);
}

/* roc_auc: the class and probability row of every scored edge. */
static void proba_rows(struct metric_pool *p, const struct record *rec, const struct metric_context *c)
{
    int64_t m = metric_count(rec, "m");
    uint8_t *label = record_vector(rec, "label", DT_U8, m);
    uint8_t *keep = metric_edge_mask(rec, m, c->edges);
    struct tensor t;
    record_tensor(rec, "pred_proba", DT_F32, 2, (int64_t[]){m, p->width > 0 ? p->width : -1}, &t);
    int64_t K = t.shape[1];
    if (K < 1 || K > METRIC_CLASSES)
        record_die(rec, "'pred_proba' has %lld classes, expected 1..%d", (long long)K, METRIC_CLASSES);
    p->width = (int)K;
    const float *proba = t.data;
    metric_check_finite_f32(rec, "pred_proba", proba, m * K);
    for (int64_t e = 0; e < m; e++) {
        if (keep && !keep[e])
            continue;
        if (label[e] >= K)
            record_die(rec, "'label' entry %lld is %u, but 'pred_proba' has %lld classes",
                       (long long)e, label[e], (long long)K);
        if (p->n == p->cap) {
            p->cap = p->cap ? 2 * p->cap : 1024;
            p->label = xrealloc(p->label, (size_t)p->cap);
            p->x = xrealloc(p->x, sizeof *p->x * (size_t)(p->cap * K));
        }
        p->label[p->n] = label[e];
        for (int64_t k = 0; k < K; k++)
            p->x[p->n * K + k] = proba[e * K + k];
        p->n++;
    }
    tensor_free(&t);
    free(keep);
    free(label);
}

static double roc_auc(const struct metric_pool *p, const struct metric_pool *fit)
{
    int used;
    return metric_roc_auc_ovr(p->label, p->x, p->n, p->width > 0 ? p->width : 0, &used);
}

/* r2: one row per graph, its node embeddings max-pooled, with its max flow
 * as the target. */
static void embedding_row(struct metric_pool *p, const struct record *rec, const struct metric_context *c)
{
    int64_t n = metric_count(rec, "n");
    struct tensor t;
    record_tensor(rec, "embed", DT_F32, 2, (int64_t[]){n, -1}, &t);
    int64_t d = t.shape[1];
    if (p->width < 0) {
        if (d < 1 || d > 1 << 20)
            record_die(rec, "'embed' has %lld columns, expected 1..%d", (long long)d, 1 << 20);
        p->width = (int)d;
    } else if (d != p->width) {
        record_die(rec, "'embed' has %lld columns, expected %d like %s", (long long)d, p->width,
                   p->n || c->from_fit ? "the records before" : "the --fit records");
    }
    const float *e = t.data;
    metric_check_finite_f32(rec, "embed", e, n * d);
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 64;
        p->x = xrealloc(p->x, sizeof *p->x * (size_t)(p->cap * d));
        p->y = xrealloc(p->y, sizeof *p->y * (size_t)p->cap);
    }
    double *g = p->x + p->n * d;
    for (int64_t j = 0; j < d; j++)
        g[j] = -INFINITY;
    for (int64_t v = 0; v < n; v++)
        for (int64_t j = 0; j < d; j++)
            g[j] = fmax(g[j], (double)e[v * d + j]);
    p->y[p->n++] = metric_maxflow(rec);
    tensor_free(&t);
}

/* The linear map fitted on fit's rows, scored on p's. */
static double r2(const struct metric_pool *p, const struct metric_pool *fit)
{
    int d = fit->width;
    double *coef = xmalloc(sizeof *coef * (size_t)d), intercept;
    metric_least_squares(fit->x, fit->y, fit->n, d, coef, &intercept);
    double *pred = xmalloc(sizeof *pred * (size_t)(p->n + 1));
    for (int64_t i = 0; i < p->n; i++) {
        double v = intercept;
        for (int j = 0; j < d; j++)
            v += p->x[i * d + j] * coef[j];
        pred[i] = v;
    }
    double score = metric_r2(p->y, pred, p->n);
    free(pred);
    free(coef);
    return score;
}

const struct metric_row maxflow_metrics[] = {
    {.name = "mae_flow", .keys = {"m", "pred_flow", "flow"}, .mean = mae_flow},
    {.name = "mae_hint_flow", .keys = {"m", "steps", "pred_hint_flow", "hint_flow", "hint_phase"},
     .mean = mae_hint_flow},
    {.name = "cut_accuracy", .keys = {"n", "pred_cut", "cut"}, .mean = cut_accuracy},
    {.name = "maxflow_error", .keys = {"n", "m", "s", "t", "src", "dst", "pred_flow", "maxflow"},
     .mean = maxflow_error},
    {.name = "conservation_before", .keys = {"n", "s", "t", "conservation_before"}, .mean = conservation_before},
    {.name = "conservation_after", .keys = {"n", "s", "t", "conservation_after"}, .mean = conservation_after},
    {.name = "fixed_value_ratio", .keys = {"fixed_value", "maxflow"}, .mean = fixed_value_ratio},
    {.name = "accuracy", .keys = {"m", "label", "pred_label"}, .pooling = METRIC_CONFUSION,
     .of_confusion = metric_accuracy},
    {.name = "balanced_accuracy", .keys = {"m", "label", "pred_label"}, .pooling = METRIC_CONFUSION,
     .of_confusion = metric_balanced_accuracy},
    {.name = "roc_auc", .keys = {"m", "label", "pred_proba"}, .pooling = METRIC_POOL,
     .pool = proba_rows, .pooled = roc_auc},
    {.name = "roc_hard", .keys = {"m", "label", "pred_label"}, .pooling = METRIC_CONFUSION, .of_confusion = roc_hard},
    {.name = "r2", .keys = {"n", "embed", "maxflow"}, .pooling = METRIC_POOL, .pool = embedding_row, .pooled = r2,
     .needs_fit = true},
    {0},
};
