/* metrics.c - the metric computations (metrics.h) and the graph-records ->
 * metric-records filter.  formats/metric.md is the user's side of this. */
#include "metrics.h"
#include "die.h"
#include "stream.h"
#include "tensor.h"
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

double metric_mean_value(const struct metric_mean *a)
{
    return a->count ? a->sum / (double)a->count : NAN;
}

/* ---- flow regression -------------------------------------------------- */

void metric_masked_abs_error(struct metric_mean *acc, const float *pred, const float *truth, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        if (truth[i] != 0) {
            acc->sum += fabs((double)pred[i] - (double)truth[i]);
            acc->count++;
        }
}

double metric_hint_flow_mae(const float *pred, const float *truth, const uint8_t *phase,
                            int64_t T, int64_t m, int64_t *steps)
{
    double total = 0;
    int64_t scored = 0;
    for (int64_t i = 0; i + 1 < T; i++) {
        if (phase[i] != 0)
            continue;
        struct metric_mean step = {0, 0};
        metric_masked_abs_error(&step, pred + (i + 1) * m, truth + (i + 1) * m, m);
        if (step.count) {
            total += metric_mean_value(&step);
            scored++;
        }
    }
    if (steps)
        *steps = scored;
    return scored ? total / (double)scored : NAN;
}

void metric_cut_correct(struct metric_mean *acc, const float *pred_cut, const uint8_t *cut, int64_t n)
{
    for (int64_t v = 0; v < n; v++)
        acc->sum += (pred_cut[v] > 0.5f) == (cut[v] != 0);
    acc->count += n;
}

double metric_flow_value(const float *flow, const int32_t *src, const int32_t *dst,
                         int64_t m, int s, int t)
{
    double out_s = 0, in_t = 0;
    for (int64_t e = 0; e < m; e++) {
        double f = flow[e];
        if (src[e] == s) out_s += f;
        if (dst[e] == s) out_s -= f;
        if (dst[e] == t) in_t += f;
        if (src[e] == t) in_t -= f;
    }
    return fmax(fabs(out_s), fabs(in_t));
}

void metric_conservation(struct metric_mean *acc, const double *c, int64_t n, int s, int t)
{
    for (int64_t v = 0; v < n; v++)
        if (v != s && v != t) {
            acc->sum += fabs(c[v]);
            acc->count++;
        }
}

/* ---- classification ----------------------------------------------------- */

void metric_confusion_add(int64_t *confusion, const uint8_t *label, const uint8_t *pred,
                          const uint8_t *keep, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        if (!keep || keep[i])
            confusion[(int)label[i] * METRIC_CLASSES + pred[i]]++;
}

double metric_accuracy(const int64_t *confusion)
{
    int64_t total = 0, correct = 0;
    for (int a = 0; a < METRIC_CLASSES; a++)
        for (int b = 0; b < METRIC_CLASSES; b++) {
            total += confusion[a * METRIC_CLASSES + b];
            if (a == b) correct += confusion[a * METRIC_CLASSES + b];
        }
    return total ? (double)correct / (double)total : NAN;
}

double metric_balanced_accuracy(const int64_t *confusion)
{
    double sum = 0;
    int classes = 0;
    for (int a = 0; a < METRIC_CLASSES; a++) {
        int64_t support = 0;
        for (int b = 0; b < METRIC_CLASSES; b++)
            support += confusion[a * METRIC_CLASSES + b];
        if (support) {
            sum += (double)confusion[a * METRIC_CLASSES + a] / (double)support;
            classes++;
        }
    }
    return classes ? sum / classes : NAN;
}

double metric_roc_hard(const int64_t *confusion, int *classes)
{
    int64_t total = 0, support[METRIC_CLASSES] = {0}, predicted[METRIC_CLASSES] = {0};
    for (int a = 0; a < METRIC_CLASSES; a++)
        for (int b = 0; b < METRIC_CLASSES; b++) {
            int64_t k = confusion[a * METRIC_CLASSES + b];
            support[a] += k;
            predicted[b] += k;
            total += k;
        }
    double sum = 0;
    int used = 0;
    for (int c = 0; c < METRIC_CLASSES; c++) {
        int64_t pos = support[c], neg = total - pos;
        if (!pos || !neg)
            continue;
        int64_t tp = confusion[c * METRIC_CLASSES + c];
        int64_t fp = predicted[c] - tp;
        double tpr = (double)tp / (double)pos, tnr = (double)(neg - fp) / (double)neg;
        sum += (tpr + tnr) / 2;
        used++;
    }
    if (classes)
        *classes = used;
    return used ? sum / used : NAN;
}

struct scored { double score; uint8_t positive; };

static int by_score(const void *a, const void *b)
{
    double x = ((const struct scored *)a)->score, y = ((const struct scored *)b)->score;
    return (x > y) - (x < y);
}

double metric_binary_auc(const double *score, const uint8_t *positive, int64_t N)
{
    struct scored *s = xmalloc(sizeof *s * (size_t)(N ? N : 1));
    int64_t pos = 0;
    for (int64_t i = 0; i < N; i++) {
        s[i].score = score[i];
        s[i].positive = positive[i] != 0;
        pos += s[i].positive;
    }
    int64_t neg = N - pos;
    if (!pos || !neg) {
        free(s);
        return NAN;
    }
    qsort(s, (size_t)N, sizeof *s, by_score);
    /* twice the number of (positive, negative) pairs ordered correctly, a tie
     * counting one: per tie group, pos_in * (2 * neg_below + neg_in) */
    int64_t twice = 0, neg_below = 0;
    for (int64_t i = 0; i < N;) {
        int64_t j = i, p = 0;
        while (j < N && s[j].score == s[i].score)
            p += s[j++].positive;
        int64_t q = (j - i) - p;
        twice += p * (2 * neg_below + q);
        neg_below += q;
        i = j;
    }
    free(s);
    return (double)twice / (2.0 * (double)pos * (double)neg);
}

double metric_roc_auc_ovr(const uint8_t *label, const double *proba, int64_t N, int K, int *classes)
{
    double *col = xmalloc(sizeof *col * (size_t)(N ? N : 1));
    uint8_t *is = xmalloc((size_t)(N ? N : 1));
    double sum = 0;
    int used = 0;
    for (int c = 0; c < K; c++) {
        for (int64_t i = 0; i < N; i++) {
            col[i] = proba[i * K + c];
            is[i] = label[i] == c;
        }
        double auc = metric_binary_auc(col, is, N);
        if (!isnan(auc)) {
            sum += auc;
            used++;
        }
    }
    free(col);
    free(is);
    if (classes)
        *classes = used;
    return used ? sum / used : NAN;
}

/* ---- least squares -------------------------------------------------------- */

/* One-sided Jacobi (Hestenes) on the c columns of A [r*c] row-major:
 * rotations V [c*c] accumulate until the columns are orthogonal, so A V = W
 * with columns w_j = sigma_j u_j.  Deterministic plain loops. */
static void jacobi_columns(double *A, int64_t r, int c, double *V)
{
    memset(V, 0, sizeof *V * (size_t)c * (size_t)c);
    for (int j = 0; j < c; j++)
        V[(size_t)j * c + j] = 1;
    for (int sweep = 0; sweep < 80; sweep++) {
        bool rotated = false;
        for (int p = 0; p < c; p++)
            for (int q = p + 1; q < c; q++) {
                double alpha = 0, beta = 0, gamma = 0;
                for (int64_t i = 0; i < r; i++) {
                    double ap = A[i * c + p], aq = A[i * c + q];
                    alpha += ap * ap;
                    beta += aq * aq;
                    gamma += ap * aq;
                }
                if (gamma == 0 || fabs(gamma) <= DBL_EPSILON * sqrt(alpha * beta))
                    continue;
                rotated = true;
                double zeta = (beta - alpha) / (2 * gamma);
                double tn = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1 + zeta * zeta));
                double cs = 1 / sqrt(1 + tn * tn), sn = cs * tn;
                for (int64_t i = 0; i < r; i++) {
                    double ap = A[i * c + p], aq = A[i * c + q];
                    A[i * c + p] = cs * ap - sn * aq;
                    A[i * c + q] = sn * ap + cs * aq;
                }
                for (int i = 0; i < c; i++) {
                    double vp = V[(size_t)i * c + p], vq = V[(size_t)i * c + q];
                    V[(size_t)i * c + p] = cs * vp - sn * vq;
                    V[(size_t)i * c + q] = sn * vp + cs * vq;
                }
            }
        if (!rotated)
            break;
    }
}

/* Squared column norms of W [r*c] and the cutoff below which a singular
 * value counts as zero: eps * max(rows, cols of the problem) * the largest
 * (numpy.linalg.lstsq's rcond; scipy's eps alone keeps singular values that
 * are rounding noise, such as the direction centring removes when N <= d). */
static double column_norms(const double *W, int64_t r, int c, int64_t N, int d, double *norm2)
{
    double top = 0;
    for (int j = 0; j < c; j++) {
        double s = 0;
        for (int64_t i = 0; i < r; i++)
            s += W[i * c + j] * W[i * c + j];
        norm2[j] = s;
        top = fmax(top, sqrt(s));
    }
    return DBL_EPSILON * (double)(N > d ? N : d) * top;
}

/* Minimum-norm solution x [d] of A x = b for A [r*d] (r >= d after QR). */
static int solve_tall(double *A, int64_t r, int d, const double *b, int64_t N, double *x)
{
    double *V = xmalloc(sizeof *V * (size_t)d * (size_t)d), *norm2 = xmalloc(sizeof *norm2 * (size_t)d);
    jacobi_columns(A, r, d, V);
    double cutoff = column_norms(A, r, d, N, d, norm2);
    int rank = 0;
    memset(x, 0, sizeof *x * (size_t)d);
    for (int j = 0; j < d; j++) {               /* x = sum_j v_j (w_j . b) / sigma_j^2 */
        if (!(sqrt(norm2[j]) > cutoff))
            continue;
        rank++;
        double wb = 0;
        for (int64_t i = 0; i < r; i++)
            wb += A[i * d + j] * b[i];
        double k = wb / norm2[j];
        for (int i = 0; i < d; i++)
            x[i] += V[(size_t)i * d + j] * k;
    }
    free(norm2);
    free(V);
    return rank;
}

/* The same for a wide A [N*d], N <= d: Jacobi on B = A^T [d*N] gives
 * B V = W, A = V S U^T with W's columns S u, so x = sum_j w_j (v_j . b) / s_j^2. */
static int solve_wide(const double *A, int64_t N, int d, const double *b, double *x)
{
    int c = (int)N;
    double *B = xmalloc(sizeof *B * (size_t)d * (size_t)c), *V = xmalloc(sizeof *V * (size_t)c * (size_t)c);
    double *norm2 = xmalloc(sizeof *norm2 * (size_t)c);
    for (int64_t i = 0; i < N; i++)
        for (int j = 0; j < d; j++)
            B[(int64_t)j * c + i] = A[i * d + j];
    jacobi_columns(B, d, c, V);
    double cutoff = column_norms(B, d, c, N, d, norm2);
    int rank = 0;
    memset(x, 0, sizeof *x * (size_t)d);
    for (int j = 0; j < c; j++) {
        if (!(sqrt(norm2[j]) > cutoff))
            continue;
        rank++;
        double vb = 0;
        for (int i = 0; i < c; i++)
            vb += V[(size_t)i * c + j] * b[i];
        double k = vb / norm2[j];
        for (int i = 0; i < d; i++)
            x[i] += B[(int64_t)i * c + j] * k;
    }
    free(norm2);
    free(V);
    free(B);
    return rank;
}

int metric_least_squares(const double *X, const double *y, int64_t N, int d,
                         double *coef, double *intercept)
{
    double *mean = xcalloc((size_t)d + 1, sizeof *mean), ymean = 0;
    for (int64_t i = 0; i < N; i++) {
        for (int j = 0; j < d; j++)
            mean[j] += X[i * d + j];
        ymean += y[i];
    }
    if (N) {
        for (int j = 0; j < d; j++)
            mean[j] /= (double)N;
        ymean /= (double)N;
    }
    double *A = xmalloc(sizeof *A * (size_t)(N * d + 1)), *b = xmalloc(sizeof *b * (size_t)(N + 1));
    for (int64_t i = 0; i < N; i++) {
        for (int j = 0; j < d; j++)
            A[i * d + j] = X[i * d + j] - mean[j];
        b[i] = y[i] - ymean;
    }
    int rank;
    if (N > d) {
        /* Householder QR: A = Q R; b <- Q^T b; keep R (d x d) and b[0..d) */
        double *v = xmalloc(sizeof *v * (size_t)N);
        for (int k = 0; k < d; k++) {
            double norm = 0;
            for (int64_t i = k; i < N; i++)
                norm += A[i * d + k] * A[i * d + k];
            norm = sqrt(norm);
            if (norm == 0)
                continue;
            double alpha = A[(int64_t)k * d + k] > 0 ? -norm : norm;
            double vnorm2 = 0;
            for (int64_t i = k; i < N; i++) {
                v[i] = A[i * d + k] - (i == k ? alpha : 0);
                vnorm2 += v[i] * v[i];
            }
            if (vnorm2 == 0)
                continue;
            for (int j = k; j < d; j++) {
                double dot = 0;
                for (int64_t i = k; i < N; i++)
                    dot += v[i] * A[i * d + j];
                double f = 2 * dot / vnorm2;
                for (int64_t i = k; i < N; i++)
                    A[i * d + j] -= f * v[i];
            }
            double dot = 0;
            for (int64_t i = k; i < N; i++)
                dot += v[i] * b[i];
            double f = 2 * dot / vnorm2;
            for (int64_t i = k; i < N; i++)
                b[i] -= f * v[i];
        }
        free(v);
        for (int i = 1; i < d; i++)          /* R is upper triangular: clear what lies below */
            for (int j = 0; j < i; j++)
                A[(int64_t)i * d + j] = 0;
        rank = solve_tall(A, d, d, b, N, coef);
    } else {
        rank = solve_wide(A, N, d, b, coef);
    }
    double ic = ymean;
    for (int j = 0; j < d; j++)
        ic -= mean[j] * coef[j];
    *intercept = ic;
    free(A);
    free(b);
    free(mean);
    return rank;
}

double metric_r2(const double *y, const double *pred, int64_t N)
{
    if (!N)
        return NAN;
    double mean = 0;
    for (int64_t i = 0; i < N; i++)
        mean += y[i];
    mean /= (double)N;
    double res = 0, tot = 0;
    for (int64_t i = 0; i < N; i++) {
        res += (y[i] - pred[i]) * (y[i] - pred[i]);
        tot += (y[i] - mean) * (y[i] - mean);
    }
    if (tot == 0)
        return res == 0 ? 1.0 : 0.0;
    return 1 - res / tot;
}

/* ---- the filter ------------------------------------------------------------ */

/* Inputs of each quantity: all of these keys must be in a record. */
static const struct {
    const char *name;
    const char *keys[9];
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

/* Where a record comes from, for messages: the fit stream is named. */
struct source {
    const char *name;
    bool named;
};

__attribute__((noreturn, format(printf, 3, 4)))
static void bad(const struct source *src, long index, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (src->named)
        die(EX_DATAERR, "%s: record %ld: %s", src->name, index, msg);
    die_record(index, "%s", msg);
}

static const char *missing_key(const struct record *rec, int q)
{
    for (int k = 0; k < key_count(q); k++)
        if (!record_has(rec, quantity[q].keys[k]))
            return quantity[q].keys[k];
    return NULL;
}

static void require_keys(const struct source *src, const struct record *rec, int q)
{
    const char *key = missing_key(rec, q);
    if (key)
        bad(src, rec->index, "missing key '%s' (needed by %s)", key, quantity[q].name);
}

static void check_finite_f32(const struct source *src, const struct record *rec, const char *key,
                             const float *a, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        if (!isfinite(a[i]))
            bad(src, rec->index, "'%s' entry %lld is %g, expected a finite number", key, (long long)i, (double)a[i]);
}

static void check_finite_f64(const struct source *src, const struct record *rec, const char *key,
                             const double *a, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        if (!isfinite(a[i]))
            bad(src, rec->index, "'%s' entry %lld is %g, expected a finite number", key, (long long)i, a[i]);
}

static double finite_double(const struct source *src, const struct record *rec, const char *key)
{
    double v = record_double(rec, key);
    if (!isfinite(v))
        bad(src, rec->index, "'%s' is %g, expected a finite number", key, v);
    return v;
}

/* A max flow's value: a negative one is no max flow and would score as an
 * error of the wrong size, not as bad input.  (A fixed flow's value may be
 * negative: flow-fix keeps a prediction that sends flow from t to s.) */
static double maxflow_of(const struct source *src, const struct record *rec)
{
    double v = finite_double(src, rec, "maxflow");
    if (v < 0)
        bad(src, rec->index, "'maxflow' is %g, expected a max flow value >= 0", v);
    return v;
}

static float *f32_vector(const struct source *src, const struct record *rec, const char *key, int64_t n)
{
    float *a = record_vector(rec, key, DT_F32, n);
    check_finite_f32(src, rec, key, a, n);
    return a;
}

/* n or m: a negative count would pass record_vector()'s shape check for a
 * tensor of any length (-1 is its wildcard) and size the loops below. */
static int64_t count_key(const struct source *src, const struct record *rec, const char *key)
{
    int64_t v = record_int(rec, key);
    if (v < 0 || v > INT32_MAX)
        bad(src, rec->index, "'%s' is %lld, expected 0..%d", key, (long long)v, INT32_MAX);
    return v;
}

static int64_t node_index(const struct source *src, const struct record *rec, const char *key, int64_t n)
{
    int64_t v = record_int(rec, key);
    if (v < 0 || v >= n)
        bad(src, rec->index, "'%s' is %lld, expected 0..%lld", key, (long long)v, (long long)(n - 1));
    return v;
}

struct accumulators {
    struct metric_mean mae_flow, hint_graphs, cut, maxflow_error, cons_before, cons_after, fixed_ratio;
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
        die_record(rec->index, "missing key 'split' (needed by --edges)");
    uint8_t want = edges == EDGES_TRAIN ? 0 : edges == EDGES_VAL ? 1 : 2;
    uint8_t *split = record_vector(rec, "split", DT_U8, m);
    for (int64_t e = 0; e < m; e++) {
        if (split[e] > 2)
            die_record(rec->index, "'split' entry %lld is %u, expected 0 (train), 1 (val) or 2 (test)",
                       (long long)e, split[e]);
        split[e] = split[e] == want;
    }
    return split;
}

static void add_embedding_row(struct accumulators *acc, const struct source *src, const struct record *rec)
{
    int64_t n = count_key(src, rec, "n");
    struct tensor t;
    record_tensor(rec, "embed", DT_F32, 2, (int64_t[]){n, -1}, &t);
    int64_t d = t.shape[1];
    if (acc->d < 0) {
        if (d < 1 || d > 1 << 20)
            bad(src, rec->index, "'embed' has %lld columns, expected 1..%d", (long long)d, 1 << 20);
        acc->d = (int)d;
    } else if (d != acc->d) {
        bad(src, rec->index, "'embed' has %lld columns, expected %d like %s", (long long)d, acc->d,
            acc->rows || src->named ? "the records before" : "the --fit records");
    }
    const float *e = t.data;
    check_finite_f32(src, rec, "embed", e, n * d);
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
    acc->y[acc->rows++] = maxflow_of(src, rec);
    tensor_free(&t);
}

static void accumulate(struct accumulators *acc, const bool *sel, const struct record *rec,
                       const struct metrics_options *o)
{
    const struct source src = {NULL, false};
    if (sel[Q_MAE_FLOW]) {
        int64_t m = count_key(&src, rec, "m");
        float *pred = f32_vector(&src, rec, "pred_flow", m), *flow = f32_vector(&src, rec, "flow", m);
        metric_masked_abs_error(&acc->mae_flow, pred, flow, m);
        free(pred);
        free(flow);
    }
    if (sel[Q_MAE_HINT_FLOW]) {
        int64_t m = count_key(&src, rec, "m"), T = record_int(rec, "steps");
        if (T < 1)
            die_record(rec->index, "'steps' is %lld, expected at least 1", (long long)T);
        struct tensor p, h;
        uint8_t *phase = record_vector(rec, "hint_phase", DT_U8, T);
        record_tensor(rec, "pred_hint_flow", DT_F32, 2, (int64_t[]){T, m}, &p);
        record_tensor(rec, "hint_flow", DT_F32, 2, (int64_t[]){T, m}, &h);
        check_finite_f32(&src, rec, "pred_hint_flow", p.data, T * m);
        check_finite_f32(&src, rec, "hint_flow", h.data, T * m);
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
        int64_t n = count_key(&src, rec, "n");
        float *pred = f32_vector(&src, rec, "pred_cut", n);
        uint8_t *cut = record_vector(rec, "cut", DT_U8, n);
        metric_cut_correct(&acc->cut, pred, cut, n);
        free(pred);
        free(cut);
    }
    if (sel[Q_MAXFLOW_ERROR]) {
        int64_t n = count_key(&src, rec, "n"), m = count_key(&src, rec, "m");
        int s = (int)node_index(&src, rec, "s", n), t = (int)node_index(&src, rec, "t", n);
        int32_t *a = record_vector(rec, "src", DT_I32, m), *b = record_vector(rec, "dst", DT_I32, m);
        float *pred = f32_vector(&src, rec, "pred_flow", m);
        double value = metric_flow_value(pred, a, b, m, s, t);
        acc->maxflow_error.sum += fabs(value - maxflow_of(&src, rec));
        acc->maxflow_error.count++;
        free(a);
        free(b);
        free(pred);
    }
    for (int q = Q_CONSERVATION_BEFORE; q <= Q_CONSERVATION_AFTER; q++)
        if (sel[q]) {
            int64_t n = count_key(&src, rec, "n");
            int s = (int)node_index(&src, rec, "s", n), t = (int)node_index(&src, rec, "t", n);
            const char *key = quantity[q].name;
            double *c = record_vector(rec, key, DT_F64, n);
            check_finite_f64(&src, rec, key, c, n);
            metric_conservation(q == Q_CONSERVATION_BEFORE ? &acc->cons_before : &acc->cons_after, c, n, s, t);
            free(c);
        }
    if (sel[Q_FIXED_VALUE_RATIO]) {
        double value = finite_double(&src, rec, "fixed_value"), best = maxflow_of(&src, rec);
        if (best > 0) {
            acc->fixed_ratio.sum += value / best;
            acc->fixed_ratio.count++;
        }
    }
    bool hard = sel[Q_ACCURACY] || sel[Q_BALANCED_ACCURACY] || sel[Q_ROC_HARD];
    if (hard || sel[Q_ROC_AUC]) {
        int64_t m = count_key(&src, rec, "m");
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
                die_record(rec->index, "'pred_proba' has %lld classes, expected 1..%d", (long long)K, METRIC_CLASSES);
            acc->K = (int)K;
            const float *p = t.data;
            check_finite_f32(&src, rec, "pred_proba", p, m * K);
            for (int64_t e = 0; e < m; e++) {
                if (keep && !keep[e])
                    continue;
                if (label[e] >= K)
                    die_record(rec->index, "'label' entry %lld is %u, but 'pred_proba' has %lld classes",
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
        add_embedding_row(acc, &src, rec);
}

static void check_kind(const struct source *src, const struct record *rec, const char *want)
{
    char kind[32];
    if (!record_has(rec, "kind"))
        bad(src, rec->index, "missing key 'kind'");
    record_str(rec, "kind", kind, sizeof kind);
    if (strcmp(kind, want) != 0)
        bad(src, rec->index, "a '%s' record, expected '%s'", kind, want);
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
    const struct source src = {o->fit_name, true};
    reader_init(&rd, o->fit, o->fit_name);
    while (reader_next(&rd, &rec)) {
        check_kind(&src, &rec, "graph");
        require_keys(&src, &rec, Q_R2);
        add_embedding_row(fit, &src, &rec);
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

void metrics_stream(FILE *in, const char *in_name, FILE *out, const struct metrics_options *o)
{
    struct reader rd;
    struct record rec;
    struct writer w;
    const struct source src = {in_name, false};
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
    long records = 0;
    while (reader_next(&rd, &rec)) {
        check_kind(&src, &rec, "graph");
        if (records == 0 && n_order == 0) {
            for (int q = 0; q < Q_COUNT; q++)
                if (!missing_key(&rec, q) && (q != Q_R2 || o->fit)) {
                    sel[q] = true;
                    order[n_order++] = q;
                }
            if (n_order == 0)
                die_record(rec.index, "has the inputs of no metric (see 'metrics --help' for what each needs)");
        }
        for (int i = 0; i < n_order; i++)
            require_keys(&src, &rec, order[i]);
        accumulate(&acc, sel, &rec, o);
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
        const struct metric_mean *mean = NULL;
        switch (q) {
        case Q_MAE_FLOW: mean = &acc.mae_flow; break;
        case Q_MAE_HINT_FLOW: mean = &acc.hint_graphs; break;
        case Q_CUT_ACCURACY: mean = &acc.cut; break;
        case Q_MAXFLOW_ERROR: mean = &acc.maxflow_error; break;
        case Q_CONSERVATION_BEFORE: mean = &acc.cons_before; break;
        case Q_CONSERVATION_AFTER: mean = &acc.cons_after; break;
        case Q_FIXED_VALUE_RATIO: mean = &acc.fixed_ratio; break;
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
