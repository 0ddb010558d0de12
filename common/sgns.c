/* sgns.c - PyG 1.7.2's skip-gram loss on one walk, its gradient, and the
 * SparseAdam row update (sgns.h).
 *
 * A walk's rows are read in place from the table: 40 rows of 128 floats
 * stay in L1/L2 over the walk's 364 pairs, so no gather is needed. */
#include "sgns.h"
#include "die.h"
#include "rows.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

int64_t sgns_walk_pairs(int length, int context)
{
    return length < context ? 0 : (int64_t)(length - context + 1) * (context - 1);
}

float sgns_pair_loss(float s, bool positive, float *dloss_ds)
{
    /* A negative pair at s is a positive one at -s: 1 - sigmoid(s) = sigmoid(-s). */
    float x = positive ? s : -s;
    float e = expf(-fabsf(x));
    float up = 1.0f / (1.0f + e), down = e / (1.0f + e);     /* sigmoid(|x|), sigmoid(-|x|) */
    float sig = x >= 0 ? up : down, sig_neg = x >= 0 ? down : up;
    /* d/dx -log(sigmoid(x) + eps) = -sigmoid(x) sigmoid(-x) / (sigmoid(x) + eps) */
    float d = -sig * sig_neg / (sig + (float)SGNS_LOG_EPS);
    *dloss_ds = positive ? d : -d;
    return -logf(sig + (float)SGNS_LOG_EPS);
}

double sgns_walk_backward(float *grad, const float *const *rows, int length, int context, int dim,
                          bool positive, float scale, bool want_loss)
{
    memset(grad, 0, sizeof *grad * (size_t)length * (size_t)dim);
    int windows = length - context + 1;
    double loss = 0;
    for (int j = 0; j < windows; j++) {
        const float *a = rows[j];
        float *ga = grad + (size_t)j * dim;
        for (int k = 1; k < context; k++) {
            const float *b = rows[j + k];
            float s = row_dot(a, b, dim), d;
            float l = sgns_pair_loss(s, positive, &d);
            if (want_loss)
                loss += l;
            d *= scale;
            row_axpy(ga, d, b, dim);
            row_axpy(grad + (size_t)(j + k) * dim, d, a, dim);
        }
    }
    return loss;
}

double sgns_walk_backward_naive(float *grad, const float *const *rows, int length, int context, int dim,
                                bool positive, float scale)
{
    double *g = xcalloc((size_t)length * (size_t)dim, sizeof *g), loss = 0;
    for (int j = 0; j + context <= length; j++)
        for (int k = 1; k < context; k++) {
            double s = 0;
            for (int h = 0; h < dim; h++)
                s += (double)rows[j][h] * rows[j + k][h];
            double sig = 1 / (1 + exp(-s)), p = positive ? sig : 1 - sig;
            loss += -log(p + SGNS_LOG_EPS);
            /* d/ds -log(p + eps) = -(dp/ds) / (p + eps), dp/ds = ±sig (1 - sig) */
            double d = -(positive ? 1 : -1) * sig * (1 - sig) / (p + SGNS_LOG_EPS) * scale;
            for (int h = 0; h < dim; h++) {
                g[(size_t)j * dim + h] += d * rows[j + k][h];
                g[(size_t)(j + k) * dim + h] += d * rows[j][h];
            }
        }
    for (size_t i = 0; i < (size_t)length * (size_t)dim; i++)
        grad[i] = (float)g[i];
    free(g);
    return loss;
}

void sparse_adam_row(float *param, float *m, float *v, const float *g, int dim,
                     float step_size, float beta1, float beta2, float eps)
{
    for (int h = 0; h < dim; h++) {
        m[h] += (1 - beta1) * (g[h] - m[h]);
        v[h] += (1 - beta2) * (g[h] * g[h] - v[h]);
        param[h] -= step_size * (m[h] / (sqrtf(v[h]) + eps));
    }
}
