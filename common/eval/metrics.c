/* metrics.c - the metric computations (metrics.h): plain functions on
 * arrays.  The `metrics` tool that reads them off records is
 * tools/metrics.c; formats/metric.md is the user's side of both. */
#include "metrics.h"
#include "die.h"
#include <float.h>
#include <math.h>
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
