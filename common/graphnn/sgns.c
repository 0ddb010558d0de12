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

/* d loss / d s of a pair, and through *loss the loss when loss is not NULL. */
static inline float pair_derivative(float s, bool positive, float *loss)
{
    /* A negative pair at s is a positive one at -s: 1 - sigmoid(s) = sigmoid(-s). */
    float x = positive ? s : -s;
    float e = expf(-fabsf(x));
    float up = 1.0f / (1.0f + e), down = e * up;     /* sigmoid(|x|), sigmoid(-|x|) */
    float sig = x >= 0 ? up : down, sig_neg = x >= 0 ? down : up;
    if (loss)
        *loss = -logf(sig + (float)SGNS_LOG_EPS);
    /* d/dx -log(sigmoid(x) + eps) = -sigmoid(x) sigmoid(-x) / (sigmoid(x) + eps) */
    float d = -sig * sig_neg / (sig + (float)SGNS_LOG_EPS);
    return positive ? d : -d;
}

float sgns_pair_loss(float s, bool positive, float *dloss_ds)
{
    float loss;
    *dloss_ds = pair_derivative(s, positive, &loss);
    return loss;
}

/* By pointer: a 32-byte vector passed by value has a different ABI with and
 * without AVX, which GCC notes on every build of a generic x86-64 target. */
static inline float sum8(const vec8 *v)
{
    return (((*v)[0] + (*v)[1]) + ((*v)[2] + (*v)[3])) + (((*v)[4] + (*v)[5]) + ((*v)[6] + (*v)[7]));
}

/* out[k] = a . b[k] for k < 4: a is loaded once for four rows, and four
 * independent sums hide the adder's latency. */
__attribute__((always_inline)) static inline void dot4(float *out, const float *a, const float *const *b, int dim)
{
    vec8 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
    int h = 0;
    for (; h + 8 <= dim; h += 8) {
        vec8 x = load8(a + h);
        s0 += x * load8(b[0] + h);
        s1 += x * load8(b[1] + h);
        s2 += x * load8(b[2] + h);
        s3 += x * load8(b[3] + h);
    }
    out[0] = sum8(&s0);
    out[1] = sum8(&s1);
    out[2] = sum8(&s2);
    out[3] = sum8(&s3);
    for (; h < dim; h++)
        for (int k = 0; k < 4; k++)
            out[k] += a[h] * b[k][h];
}

/* ga += d0 b0 + d1 b1 + d2 b2 + d3 b3 and gb[k] += d[k] a, in one pass. */
__attribute__((always_inline)) static inline void axpy4(float *ga, float *const *gb, const float *d, const float *a, const float *const *b, int dim)
{
    vec8 d0 = (vec8){0} + d[0], d1 = (vec8){0} + d[1], d2 = (vec8){0} + d[2], d3 = (vec8){0} + d[3];
    int h = 0;
    for (; h + 8 <= dim; h += 8) {
        vec8 x = load8(a + h);
        store8(ga + h, load8(ga + h) + d0 * load8(b[0] + h) + d1 * load8(b[1] + h) + d2 * load8(b[2] + h) +
                       d3 * load8(b[3] + h));
        store8(gb[0] + h, load8(gb[0] + h) + d0 * x);
        store8(gb[1] + h, load8(gb[1] + h) + d1 * x);
        store8(gb[2] + h, load8(gb[2] + h) + d2 * x);
        store8(gb[3] + h, load8(gb[3] + h) + d3 * x);
    }
    for (; h < dim; h++) {
        ga[h] = ga[h] + d[0] * b[0][h] + d[1] * b[1][h] + d[2] * b[2][h] + d[3] * b[3][h];
        for (int k = 0; k < 4; k++)
            gb[k][h] += d[k] * a[h];
    }
}

/* Compiled twice, for AVX2 and for the baseline, picked at load time: the
 * 8-wide rows become one instruction instead of two.  Neither clone may
 * contract a*b+c into an FMA (AVX2 alone does not allow it), so both give
 * the same bits.  A window's pairs go four at a time (dot4, axpy4), the
 * last context-1 mod 4 one by one. */
__attribute__((target_clones("avx2", "default")))
double sgns_walk_backward(float *grad, const float *const *rows, int length, int context, int dim,
                          bool positive, float scale, bool want_loss)
{
    memset(grad, 0, sizeof *grad * (size_t)length * (size_t)dim);
    int windows = length - context + 1;
    double loss = 0;
    for (int j = 0; j < windows; j++) {
        const float *a = rows[j];
        float *ga = grad + (size_t)j * dim;
        int k = 1;
        for (; k + 4 <= context; k += 4) {
            float s[4], d[4], l;
            float *gb[4];
            dot4(s, a, rows + j + k, dim);
            for (int i = 0; i < 4; i++) {
                d[i] = scale * pair_derivative(s[i], positive, want_loss ? &l : NULL);
                if (want_loss)
                    loss += l;
                gb[i] = grad + (size_t)(j + k + i) * dim;
            }
            axpy4(ga, gb, d, a, rows + j + k, dim);
        }
        for (; k < context; k++) {
            const float *b = rows[j + k];
            float l, d = scale * pair_derivative(row_dot(a, b, dim), positive, want_loss ? &l : NULL);
            if (want_loss)
                loss += l;
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

/* The square root of each lane: SSE's sqrtps where there is SSE (IEEE
 * square roots are exact to the last bit, as sqrtf is), else sqrtf. */
static inline void sqrt8(vec8 *x)      /* by pointer: see load8 in rows.h */
{
#ifdef __SSE__
    typedef float vec4 __attribute__((vector_size(16)));
    vec4 half[2];
    memcpy(half, x, sizeof half);
    half[0] = __builtin_ia32_sqrtps(half[0]);
    half[1] = __builtin_ia32_sqrtps(half[1]);
    memcpy(x, half, sizeof half);
#else
    for (int i = 0; i < 8; i++)
        (*x)[i] = sqrtf((*x)[i]);
#endif
}

/* Eight elements at a time, each with the scalar tail's operations in its
 * order, so the bits do not depend on the path. */
__attribute__((target_clones("avx2", "default")))
void sparse_adam_row(float *param, float *m, float *v, const float *g, int dim,
                     float step_size, float beta1, float beta2, float eps)
{
    vec8 b1 = (vec8){0} + (1 - beta1), b2 = (vec8){0} + (1 - beta2), step = (vec8){0} + step_size,
         e = (vec8){0} + eps;
    int h = 0;
    for (; h + 8 <= dim; h += 8) {
        vec8 gh = load8(g + h), mh = load8(m + h), vh = load8(v + h);
        mh += b1 * (gh - mh);
        vh += b2 * (gh * gh - vh);
        store8(m + h, mh);
        store8(v + h, vh);
        vec8 root = vh;
        sqrt8(&root);
        store8(param + h, load8(param + h) - step * (mh / (root + e)));
    }
    for (; h < dim; h++) {
        m[h] += (1 - beta1) * (g[h] - m[h]);
        v[h] += (1 - beta2) * (g[h] * g[h] - v[h]);
        param[h] -= step_size * (m[h] / (sqrtf(v[h]) + eps));
    }
}
