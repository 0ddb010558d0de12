/* sparse.c - mean and GCN products on a symmetric CSR (sparse.h). */
#include "sparse.h"
#include "rows.h"
#include "parallel.h"
#include "die.h"
#include <stdlib.h>
#include <math.h>
#include <string.h>

/* Rows per thread below which a call stays on one thread. */
enum { GRAIN = 2048 };

struct product {
    float *out;
    const float *x, *scale, *bias;
    const struct line_graph *g;
    int H;
};

static void mean_forward_rows(void *ctx, int64_t lo, int64_t hi)
{
    const struct product *p = ctx;
    const int64_t *off = p->g->offsets;
    const int32_t *nb = p->g->neighbors;
    int H = p->H;
    for (int64_t i = lo; i < hi; i++) {
        float *o = p->out + i * H;
        int64_t deg = off[i + 1] - off[i];
        if (deg == 0) {
            memset(o, 0, sizeof *o * (size_t)H);
            continue;
        }
        row_set_plus_zero(o, p->x + (int64_t)nb[off[i]] * H, H);
        for (int64_t k = off[i] + 1; k < off[i + 1]; k++)
            row_add(o, p->x + (int64_t)nb[k] * H, H);
        if (deg > 1)
            row_divide(o, (float)deg, H);
    }
}

void sparse_mean_forward(float *out, const float *x, const struct line_graph *g, int H, int threads)
{
    struct product p = {out, x, NULL, NULL, g, H};
    parallel_rows(threads, g->n, GRAIN, mean_forward_rows, &p);
}

static void mean_backward_rows(void *ctx, int64_t lo, int64_t hi)
{
    const struct product *p = ctx;
    const int64_t *off = p->g->offsets;
    const int32_t *nb = p->g->neighbors;
    int H = p->H;
    for (int64_t i = lo; i < hi; i++) {
        float *o = p->out + i * H;
        for (int64_t k = off[i]; k < off[i + 1]; k++) {
            int64_t j = nb[k];
            row_add_divided(o, p->x + j * H, (float)(off[j + 1] - off[j]), H);
        }
    }
}

void sparse_mean_backward(float *dx, const float *dout, const struct line_graph *g, int H, int threads)
{
    struct product p = {dx, dout, NULL, NULL, g, H};
    parallel_rows(threads, g->n, GRAIN, mean_backward_rows, &p);
}

/* dout[j] /= deg_j, on the rows of nodes with neighbours: the quotient
 * mean_backward_rows forms once per adjacency entry, formed once per node. */
static void divide_by_degree_rows(void *ctx, int64_t lo, int64_t hi)
{
    const struct product *p = ctx;
    const int64_t *off = p->g->offsets;
    int H = p->H;
    for (int64_t j = lo; j < hi; j++) {
        int64_t deg = off[j + 1] - off[j];
        if (deg > 1)
            row_divide(p->out + j * H, (float)deg, H);
    }
}

static void sum_neighbors_rows(void *ctx, int64_t lo, int64_t hi)
{
    const struct product *p = ctx;
    const int64_t *off = p->g->offsets;
    const int32_t *nb = p->g->neighbors;
    int H = p->H;
    for (int64_t i = lo; i < hi; i++) {
        float *o = p->out + i * H;
        for (int64_t k = off[i]; k < off[i + 1]; k++)
            row_add(o, p->x + (int64_t)nb[k] * H, H);
    }
}

void sparse_mean_backward_in_place(float *dx, float *dout, const struct line_graph *g, int H, int threads)
{
    struct product divide = {dout, NULL, NULL, NULL, g, H};
    parallel_rows(threads, g->n, GRAIN, divide_by_degree_rows, &divide);
    struct product sum = {dx, dout, NULL, NULL, g, H};
    parallel_rows(threads, g->n, GRAIN, sum_neighbors_rows, &sum);
}

void gcn_scale(float *scale, const struct line_graph *g)
{
    for (int64_t i = 0; i < g->n; i++)
        scale[i] = (float)(1.0 / sqrt((double)(g->offsets[i + 1] - g->offsets[i] + 1)));
}

/* out[i] (=, or += when accumulate) scale_i (scale_i x[i] + sum_j scale_j x[j])
 * (+ bias, after the product, when given): the sum is formed in a row
 * buffer, the self-loop first, then the neighbours in list order. */
static void gcn_rows(const struct product *p, int64_t lo, int64_t hi, int accumulate)
{
    const int64_t *off = p->g->offsets;
    const int32_t *nb = p->g->neighbors;
    const float *s = p->scale;
    int H = p->H;
    float *v = xmalloc(sizeof *v * (size_t)H);
    for (int64_t i = lo; i < hi; i++) {
        float *o = p->out + i * H;
        const float *xi = p->x + i * H;
        float si = s[i];
        row_scale(v, si, xi, H);
        for (int64_t k = off[i]; k < off[i + 1]; k++) {
            int64_t j = nb[k];
            row_axpy(v, s[j], p->x + j * H, H);
        }
        if (accumulate)
            row_axpy(o, si, v, H);
        else if (p->bias)
            row_scale_add(o, si, v, p->bias, H);
        else
            row_scale(o, si, v, H);
    }
    free(v);
}

static void gcn_forward_rows(void *ctx, int64_t lo, int64_t hi) { gcn_rows(ctx, lo, hi, 0); }
static void gcn_backward_rows(void *ctx, int64_t lo, int64_t hi) { gcn_rows(ctx, lo, hi, 1); }

void sparse_gcn_forward(float *out, const float *x, const float *scale, const float *bias, const struct line_graph *g,
                        int H, int threads)
{
    struct product p = {out, x, scale, bias, g, H};
    parallel_rows(threads, g->n, GRAIN, gcn_forward_rows, &p);
}

void sparse_gcn_backward(float *dx, const float *dout, const float *scale, const struct line_graph *g, int H,
                         int threads)
{
    struct product p = {dx, dout, scale, NULL, g, H};
    parallel_rows(threads, g->n, GRAIN, gcn_backward_rows, &p);
}

/* ---- the specification ------------------------------------------------------ */

void sparse_mean_forward_naive(float *out, const float *x, const struct line_graph *g, int H)
{
    for (int64_t i = 0; i < g->n; i++) {
        int64_t deg = g->offsets[i + 1] - g->offsets[i];
        for (int c = 0; c < H; c++) {
            double sum = 0;
            for (int64_t k = g->offsets[i]; k < g->offsets[i + 1]; k++)
                sum += x[(int64_t)g->neighbors[k] * H + c];
            out[i * H + c] = deg ? (float)(sum / (double)deg) : 0.0f;
        }
    }
}

/* forward: out[i] gets x[j] / deg_i for j in N(i); so x[j] receives dout[i] / deg_i */
void sparse_mean_backward_naive(float *dx, const float *dout, const struct line_graph *g, int H)
{
    for (int64_t i = 0; i < g->n; i++) {
        int64_t deg = g->offsets[i + 1] - g->offsets[i];
        for (int64_t k = g->offsets[i]; k < g->offsets[i + 1]; k++)
            for (int c = 0; c < H; c++)
                dx[(int64_t)g->neighbors[k] * H + c] += dout[i * H + c] / (float)deg;
    }
}

void sparse_gcn_forward_naive(float *out, const float *x, const float *scale, const struct line_graph *g, int H)
{
    for (int64_t i = 0; i < g->n; i++)
        for (int c = 0; c < H; c++) {
            double v = (double)scale[i] * scale[i] * x[i * H + c];
            for (int64_t k = g->offsets[i]; k < g->offsets[i + 1]; k++) {
                int64_t j = g->neighbors[k];
                v += (double)scale[i] * scale[j] * x[j * H + c];
            }
            out[i * H + c] = (float)v;
        }
}

/* forward: out[i] gets scale_i scale_j x[j] for j in N(i) and j = i */
void sparse_gcn_backward_naive(float *dx, const float *dout, const float *scale, const struct line_graph *g, int H)
{
    for (int64_t i = 0; i < g->n; i++)
        for (int c = 0; c < H; c++) {
            dx[i * H + c] += scale[i] * scale[i] * dout[i * H + c];
            for (int64_t k = g->offsets[i]; k < g->offsets[i + 1]; k++) {
                int64_t j = g->neighbors[k];
                dx[j * H + c] += scale[i] * scale[j] * dout[i * H + c];
            }
        }
}
