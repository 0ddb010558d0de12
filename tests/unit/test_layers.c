/* test_layers.c - the numeric kernels of layers.c and optim.c:
 * - every backward against central finite differences of a scalar
 *   L = Σ G ⊙ forward(...) with a random G, summed in double;
 * - every optimised kernel against its _naive twin;
 * - aggregation edge cases (empty receivers, ties), loss closed forms,
 *   init bounds and draw order, one SGD and two Adam steps against numbers
 *   worked out by hand (and checked against torch.optim 1.13);
 * - bit-identical sgemm-backed results with 1 and 2 OpenBLAS threads. */
#include "check.h"
#include "layers.h"
#include "optim.h"
#include "rng.h"
#include "die.h"
#include "gemm.h"
#include "workers.h"
#include <cblas.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static struct rng test_rng;

static float *random_array(int64_t count, float lo, float hi)
{
    float *a = xmalloc((size_t)(count ? count : 1) * sizeof(float));
    for (int64_t i = 0; i < count; i++)
        a[i] = lo + (hi - lo) * rng_uniform_f32(&test_rng);
    return a;
}

static float *zeros(int64_t count)
{
    return xcalloc((size_t)(count ? count : 1), sizeof(float));
}

static double dot(const float *a, const float *b, int64_t count)
{
    double s = 0.0;
    for (int64_t i = 0; i < count; i++)
        s += (double)a[i] * b[i];
    return s;
}

/* Largest |a − b| relative to the largest |b| (the reference). */
static double max_rel_diff(const float *a, const float *b, int64_t count)
{
    double diff = 0.0, scale = 0.0;
    for (int64_t i = 0; i < count; i++) {
        if (isnan(a[i]) || isnan(b[i])) return INFINITY;
        diff = fmax(diff, fabs((double)a[i] - b[i]));
        scale = fmax(scale, fabs((double)b[i]));
    }
    return scale > 0 ? diff / scale : diff;
}

/* Compare analytic[i] with (L(x+eps) − L(x−eps)) / 2eps for every entry of x;
 * returns the worst error relative to max(|analytic|). */
static double finite_difference(float *x, int64_t count, const float *analytic,
                                double (*loss)(void *), void *ctx, float eps)
{
    double worst = 0.0, scale = 1e-3;
    for (int64_t i = 0; i < count; i++)
        scale = fmax(scale, fabs(analytic[i]));
    for (int64_t i = 0; i < count; i++) {
        float saved = x[i];
        x[i] = saved + eps;
        double plus = loss(ctx);
        x[i] = saved - eps;
        double minus = loss(ctx);
        x[i] = saved;
        double numeric = (plus - minus) / ((double)(saved + eps) - (double)(saved - eps));
        worst = fmax(worst, fabs(numeric - analytic[i]) / scale);
    }
    return worst;
}

/* ---- linear ----------------------------------------------------------------- */

struct linear_ctx {
    float *out, *in, *weight, *bias, *G;
    int64_t N;
    int C, OC;
};

static double linear_loss(void *p)
{
    struct linear_ctx *c = p;
    linear_forward(c->out, c->in, c->weight, c->bias, c->N, c->C, c->OC);
    return dot(c->out, c->G, c->N * c->OC);
}

static void test_linear_gradients(int64_t N, int C, int OC, int with_bias)
{
    struct linear_ctx c = { zeros(N * OC), random_array(N * C, -1, 1),
                            random_array((int64_t)OC * C, -1, 1),
                            with_bias ? random_array(OC, -1, 1) : NULL,
                            random_array(N * OC, -1, 1), N, C, OC };
    float *din = zeros(N * C), *dweight = zeros((int64_t)OC * C), *dbias = zeros(OC);
    linear_forward(c.out, c.in, c.weight, c.bias, N, C, OC);
    linear_backward(din, dweight, with_bias ? dbias : NULL, c.G, c.in, c.weight, N, C, OC);
    const char *path = (double)N * C * OC >= LINEAR_BLAS_THRESHOLD ? "blas" : "loops";
    double e;
    e = finite_difference(c.in, N * C, din, linear_loss, &c, 1e-2f);
    CHECK(e < 1e-2, "linear %s %lldx%dx%d: din matches finite differences (err %.2g)", path,
          (long long)N, C, OC, e);
    e = finite_difference(c.weight, (int64_t)OC * C, dweight, linear_loss, &c, 1e-2f);
    CHECK(e < 1e-2, "linear %s %lldx%dx%d: dweight matches finite differences (err %.2g)", path,
          (long long)N, C, OC, e);
    if (with_bias) {
        e = finite_difference(c.bias, OC, dbias, linear_loss, &c, 1e-2f);
        CHECK(e < 1e-2, "linear %s %lldx%dx%d: dbias matches finite differences (err %.2g)",
              path, (long long)N, C, OC, e);
    }
    free(c.out); free(c.in); free(c.weight); free(c.bias); free(c.G);
    free(din); free(dweight); free(dbias);
}

static void test_linear_twins(int64_t N, int C, int OC)
{
    float *in = random_array(N * C, -1, 1), *weight = random_array((int64_t)OC * C, -1, 1);
    float *bias = random_array(OC, -1, 1), *dout = random_array(N * OC, -1, 1);
    float *start = random_array(N * OC, -1, 1);
    float *out = zeros(N * OC), *ref = zeros(N * OC);
    double e;

    linear_forward(out, in, weight, bias, N, C, OC);
    linear_forward_naive(ref, in, weight, bias, N, C, OC);
    e = max_rel_diff(out, ref, N * OC);
    CHECK(e < 1e-5, "linear_forward %lldx%dx%d equals its naive twin (rel %.2g)",
          (long long)N, C, OC, e);

    linear_forward(out, in, weight, NULL, N, C, OC);
    linear_forward_naive(ref, in, weight, NULL, N, C, OC);
    e = max_rel_diff(out, ref, N * OC);
    CHECK(e < 1e-5, "linear_forward %lldx%dx%d without bias equals its naive twin (rel %.2g)",
          (long long)N, C, OC, e);

    memcpy(out, start, (size_t)(N * OC) * sizeof(float));
    memcpy(ref, start, (size_t)(N * OC) * sizeof(float));
    linear_forward_accumulate(out, in, weight, bias, N, C, OC);
    linear_forward_accumulate_naive(ref, in, weight, bias, N, C, OC);
    e = max_rel_diff(out, ref, N * OC);
    CHECK(e < 1e-5, "linear_forward_accumulate %lldx%dx%d equals its naive twin (rel %.2g)",
          (long long)N, C, OC, e);

    // backward accumulates onto whatever the d-buffers hold
    float *din = random_array(N * C, -1, 1), *dweight = random_array((int64_t)OC * C, -1, 1);
    float *dbias = random_array(OC, -1, 1);
    float *din_ref = xmalloc((size_t)(N * C) * sizeof(float));
    float *dweight_ref = xmalloc((size_t)OC * C * sizeof(float));
    float *dbias_ref = xmalloc((size_t)OC * sizeof(float));
    memcpy(din_ref, din, (size_t)(N * C) * sizeof(float));
    memcpy(dweight_ref, dweight, (size_t)OC * C * sizeof(float));
    memcpy(dbias_ref, dbias, (size_t)OC * sizeof(float));
    linear_backward(din, dweight, dbias, dout, in, weight, N, C, OC);
    linear_backward_naive(din_ref, dweight_ref, dbias_ref, dout, in, weight, N, C, OC);
    e = fmax(max_rel_diff(din, din_ref, N * C),
             fmax(max_rel_diff(dweight, dweight_ref, (int64_t)OC * C),
                  max_rel_diff(dbias, dbias_ref, OC)));
    CHECK(e < 1e-5, "linear_backward %lldx%dx%d equals its naive twin (rel %.2g)",
          (long long)N, C, OC, e);

    // NULL d-buffers are skipped and leave the others as they would be
    memcpy(din_ref, din, (size_t)(N * C) * sizeof(float));
    linear_backward(NULL, dweight, NULL, dout, in, weight, N, C, OC);
    CHECK(memcmp(din, din_ref, (size_t)(N * C) * sizeof(float)) == 0,
          "linear_backward %lldx%dx%d with din NULL runs", (long long)N, C, OC);

    free(in); free(weight); free(bias); free(dout); free(start); free(out); free(ref);
    free(din); free(dweight); free(dbias); free(din_ref); free(dweight_ref); free(dbias_ref);
}

/* The dense layer's bits must not depend on OpenBLAS's thread count nor on
 * the worker pool's: N spans several chunks, the last one partial. */
static void test_linear_threads(void)
{
    int64_t N = 4 * LINEAR_CHUNK_ROWS + 37; int C = 130, OC = 65;
    float *in = random_array(N * C, -1, 1), *weight = random_array((int64_t)OC * C, -1, 1);
    float *bias = random_array(OC, -1, 1), *dout = random_array(N * OC, -1, 1);
    enum { RUNS = 4 };
    const int blas_threads[RUNS] = {1, 2, 1, 2}, pool_threads[RUNS] = {1, 1, 2, 3};
    float *out[RUNS], *din[RUNS], *dweight[RUNS], *dbias[RUNS];
    int saved = openblas_get_num_threads();
    for (int t = 0; t < RUNS; t++) {
        workers_start(pool_threads[t]);
        openblas_set_num_threads(blas_threads[t]);
        out[t] = zeros(N * OC); din[t] = zeros(N * C);
        dweight[t] = zeros((int64_t)OC * C); dbias[t] = zeros(OC);
        linear_forward(out[t], in, weight, bias, N, C, OC);
        linear_forward_accumulate(out[t], in, weight, NULL, N, C, OC);
        linear_backward(din[t], dweight[t], dbias[t], dout, in, weight, N, C, OC);
        linear_backward(din[t], dweight[t], NULL, dout, in, weight, N, C, OC);
    }
    workers_start(1);
    openblas_set_num_threads(saved);
    bool same_blas = true, same_pool = true;
    for (int t = 1; t < RUNS; t++) {
        bool same = memcmp(out[0], out[t], (size_t)(N * OC) * sizeof(float)) == 0 &&
                    memcmp(din[0], din[t], (size_t)(N * C) * sizeof(float)) == 0 &&
                    memcmp(dweight[0], dweight[t], (size_t)OC * C * sizeof(float)) == 0 &&
                    memcmp(dbias[0], dbias[t], (size_t)OC * sizeof(float)) == 0;
        if (pool_threads[t] == 1)
            same_blas = same_blas && same;
        else
            same_pool = same_pool && same;
    }
    CHECK(same_blas, "linear forward and backward are bit-identical with 1 and 2 BLAS threads");
    CHECK(same_pool, "linear forward and backward are bit-identical with 1, 2 and 3 worker threads");
    // the chunked product is still the product
    float *ref = zeros(N * OC), *dweight_ref = zeros((int64_t)OC * C);
    linear_forward_naive(ref, in, weight, bias, N, C, OC);
    linear_forward_accumulate_naive(ref, in, weight, NULL, N, C, OC);
    linear_backward_naive(NULL, dweight_ref, NULL, dout, in, weight, N, C, OC);
    linear_backward_naive(NULL, dweight_ref, NULL, dout, in, weight, N, C, OC);
    double e = fmax(max_rel_diff(out[2], ref, N * OC),
                    max_rel_diff(dweight[2], dweight_ref, (int64_t)OC * C));
    CHECK(e < 1e-4, "linear over %d chunks equals its naive twin (rel %.2g)",
          (int)((N + LINEAR_CHUNK_ROWS - 1) / LINEAR_CHUNK_ROWS), e);
    free(ref); free(dweight_ref);
    for (int t = 0; t < RUNS; t++) { free(out[t]); free(din[t]); free(dweight[t]); free(dbias[t]); }
    free(in); free(weight); free(bias); free(dout);
}

/* The fixed-order kernels: every instruction set gives the naive chain's
 * bits, on shapes with tails of every width, A read straight or transposed,
 * with and without bias and accumulation. */
static void test_gemm_chain(void)
{
    int mismatches = 0, cases = 0;
    int saved = gemm_limit_isa(2);
    for (int t = 0; t < 300; t++) {
        int64_t M = 1 + t % 11, K = (t * 7) % 150;
        int N = 1 + (t * 13) % 170;
        bool transposed_a = t % 2, accumulate = t % 3 == 0, with_bias = t % 5 < 2;
        float *A = random_array(M * K + 1, -1, 1), *B = random_array(K * N + 1, -1, 1);
        float *bias = random_array(N, -1, 1), *start = random_array(M * N, -1, 1);
        float *want = xmalloc(sizeof(float) * (size_t)(M * N)), *got = xmalloc(sizeof(float) * (size_t)(M * N));
        int64_t a_row = transposed_a ? 1 : K, a_col = transposed_a ? M : 1;
        memcpy(want, start, sizeof(float) * (size_t)(M * N));
        gemm_chain_naive(want, N, A, a_row, a_col, B, N, with_bias ? bias : NULL, M, N, K, accumulate);
        for (int level = 2; level >= 0; level--) {
            gemm_limit_isa(level);
            memcpy(got, start, sizeof(float) * (size_t)(M * N));
            gemm_chain(got, N, A, a_row, a_col, B, N, with_bias ? bias : NULL, M, N, K, accumulate);
            mismatches += memcmp(got, want, sizeof(float) * (size_t)(M * N)) != 0;
            cases++;
        }
        // the relu on the way out: the chain's values, negatives (and -0) as +0
        for (int64_t i = 0; i < M * N; i++)
            want[i] = want[i] > 0.0f ? want[i] : 0.0f;
        for (int level = 2; level >= 0; level--) {
            gemm_limit_isa(level);
            memcpy(got, start, sizeof(float) * (size_t)(M * N));
            gemm_chain_relu(got, N, A, a_row, a_col, B, N, with_bias ? bias : NULL, M, N, K, accumulate);
            mismatches += memcmp(got, want, sizeof(float) * (size_t)(M * N)) != 0;
            cases++;
        }
        free(A); free(B); free(bias); free(start); free(want); free(got);
    }
    gemm_limit_isa(saved);
    CHECK(mismatches == 0, "gemm_chain and gemm_chain_relu equal the naive fma chain bit for bit "
          "with AVX-512, AVX2 and none (%d of %d differ; this CPU: %s)", mismatches, cases, gemm_kernel_name());
}

/* ---- elementwise ------------------------------------------------------------ */

struct unary_ctx {
    void (*forward)(float *, const float *, int64_t);
    float *out, *in, *G;
    int64_t count;
};

static double unary_loss(void *p)
{
    struct unary_ctx *c = p;
    c->forward(c->out, c->in, c->count);
    return dot(c->out, c->G, c->count);
}

static void test_elementwise(void)
{
    int64_t count = 203;     // not a multiple of the vector width
    float *in = random_array(count, -2, 2), *G = random_array(count, -1, 1);
    // keep the relu kink out of the finite-difference window
    for (int64_t i = 0; i < count; i++)
        if (fabsf(in[i]) < 0.05f) in[i] = 0.5f;
    float *out = zeros(count), *din = zeros(count);
    struct unary_ctx c = { relu_forward, out, in, G, count };

    relu_forward(out, in, count);
    relu_backward(din, G, out, count);
    double e = finite_difference(in, count, din, unary_loss, &c, 1e-2f);
    CHECK(e < 1e-2, "relu backward matches finite differences (err %.2g)", e);
    relu_forward(out, in, count);   // the finite differences left a perturbed output
    int ok = 1;
    for (int64_t i = 0; i < count; i++)
        ok &= out[i] == (in[i] > 0 ? in[i] : 0.0f);
    CHECK(ok, "relu forward is max(x, 0)");
    float *inplace = xmalloc((size_t)count * sizeof(float));
    memcpy(inplace, in, (size_t)count * sizeof(float));
    relu_forward(inplace, inplace, count);
    CHECK(memcmp(inplace, out, (size_t)count * sizeof(float)) == 0, "relu runs in place");

    memset(din, 0, (size_t)count * sizeof(float));
    c.forward = tanh_forward;
    tanh_forward(out, in, count);
    tanh_backward(din, G, out, count);
    e = finite_difference(in, count, din, unary_loss, &c, 1e-2f);
    CHECK(e < 1e-2, "tanh backward matches finite differences (err %.2g)", e);

    free(in); free(G); free(out); free(din); free(inplace);
}

/* ---- aggregation and gathers ---------------------------------------------- */

/* A small graph: 7 nodes, node 5 and node 6 receive nothing, node 0 receives
 * three edges, plus self-loops on 0..4. */
static const int32_t graph_recv[] = { 0, 1, 2, 3, 4, 0, 0, 1, 3, 3, 2, 4, 1, 2 };
#define GRAPH_N 7
#define GRAPH_E ((int64_t)(sizeof graph_recv / sizeof graph_recv[0]))

enum aggregator { AGG_MAX, AGG_SUM, AGG_MEAN };
static const char *aggregator_name[] = { "max", "sum", "mean" };

struct agg_ctx {
    enum aggregator kind;
    float *out, *msg, *G;
    int32_t *argmax, *in_degree;
    int H;
};

static void agg_forward(struct agg_ctx *c)
{
    if (c->kind == AGG_MAX)
        aggregate_max_forward(c->out, c->argmax, c->msg, graph_recv, GRAPH_E, GRAPH_N, c->H);
    else if (c->kind == AGG_SUM)
        aggregate_sum_forward(c->out, c->msg, graph_recv, GRAPH_E, GRAPH_N, c->H);
    else
        aggregate_mean_forward(c->out, c->msg, graph_recv, c->in_degree, GRAPH_E, GRAPH_N, c->H);
}

static double agg_loss(void *p)
{
    struct agg_ctx *c = p;
    agg_forward(c);
    return dot(c->out, c->G, (int64_t)GRAPH_N * c->H);
}

static void test_aggregation(enum aggregator kind)
{
    const int H = 5;
    const int64_t NH = (int64_t)GRAPH_N * H, EH = GRAPH_E * H;
    const char *name = aggregator_name[kind];
    struct agg_ctx c = { kind, zeros(NH), zeros(EH), random_array(NH, -1, 1),
                         xmalloc((size_t)NH * sizeof(int32_t)),
                         xmalloc(GRAPH_N * sizeof(int32_t)), H };
    // distinct message values 0.05 apart in shuffled order: no ties within eps
    for (int64_t i = 0; i < EH; i++)
        c.msg[i] = 0.05f * (float)i - 1.0f;
    for (int64_t i = EH - 1; i > 0; i--) {
        int64_t j = (int64_t)rng_below(&test_rng, (uint64_t)i + 1);
        float t = c.msg[i]; c.msg[i] = c.msg[j]; c.msg[j] = t;
    }
    edge_in_degree(c.in_degree, graph_recv, GRAPH_E, GRAPH_N);

    float *ref = zeros(NH), *dmsg = random_array(EH, -1, 1), *dmsg_ref = zeros(EH);
    int32_t *argmax_ref = xmalloc((size_t)NH * sizeof(int32_t));
    memcpy(dmsg_ref, dmsg, (size_t)EH * sizeof(float));
    agg_forward(&c);
    if (kind == AGG_MAX) {
        aggregate_max_forward_naive(ref, argmax_ref, c.msg, graph_recv, GRAPH_E, GRAPH_N, H);
        aggregate_max_backward(dmsg, c.G, c.argmax, GRAPH_N, H);
        aggregate_max_backward_naive(dmsg_ref, c.G, argmax_ref, GRAPH_N, H);
        CHECK(memcmp(c.argmax, argmax_ref, (size_t)NH * sizeof(int32_t)) == 0,
              "aggregate max: argmax equals its naive twin");
    } else if (kind == AGG_SUM) {
        aggregate_sum_forward_naive(ref, c.msg, graph_recv, GRAPH_E, GRAPH_N, H);
        aggregate_sum_backward(dmsg, c.G, graph_recv, GRAPH_E, H);
        aggregate_sum_backward_naive(dmsg_ref, c.G, graph_recv, GRAPH_E, H);
    } else {
        aggregate_mean_forward_naive(ref, c.msg, graph_recv, c.in_degree, GRAPH_E, GRAPH_N, H);
        aggregate_mean_backward(dmsg, c.G, graph_recv, c.in_degree, GRAPH_E, H);
        aggregate_mean_backward_naive(dmsg_ref, c.G, graph_recv, c.in_degree, GRAPH_E, H);
    }
    double e = max_rel_diff(c.out, ref, NH);
    CHECK(e < 1e-5, "aggregate %s forward equals its naive twin (rel %.2g)", name, e);
    e = max_rel_diff(dmsg, dmsg_ref, EH);
    CHECK(e < 1e-5, "aggregate %s backward equals its naive twin (rel %.2g)", name, e);

    int empty_ok = 1;
    for (int v = 5; v < GRAPH_N; v++)
        for (int h = 0; h < H; h++)
            empty_ok &= c.out[v * H + h] == 0.0f &&
                        (kind != AGG_MAX || c.argmax[v * H + h] == -1);
    CHECK(empty_ok, "aggregate %s gives 0%s to nodes that receive nothing", name,
          kind == AGG_MAX ? " and argmax -1" : "");

    // gradient of L = Σ G·out w.r.t. msg, from scratch
    float *dmsg_fresh = zeros(EH);
    agg_forward(&c);
    if (kind == AGG_MAX) aggregate_max_backward(dmsg_fresh, c.G, c.argmax, GRAPH_N, H);
    else if (kind == AGG_SUM) aggregate_sum_backward(dmsg_fresh, c.G, graph_recv, GRAPH_E, H);
    else aggregate_mean_backward(dmsg_fresh, c.G, graph_recv, c.in_degree, GRAPH_E, H);
    e = finite_difference(c.msg, EH, dmsg_fresh, agg_loss, &c, 1e-2f);
    CHECK(e < 1e-2, "aggregate %s backward matches finite differences (err %.2g)", name, e);

    free(c.out); free(c.msg); free(c.G); free(c.argmax); free(c.in_degree);
    free(ref); free(dmsg); free(dmsg_ref); free(argmax_ref); free(dmsg_fresh);
}

static void test_aggregation_edge_cases(void)
{
    // ties: edges 1, 2 and 4 send the same value to node 0, edge 3 a smaller one
    const int32_t recv[] = { 1, 0, 0, 0, 0 };
    const float msg[] = { 9.0f, 2.0f, 2.0f, 1.0f, 2.0f };
    float out[3], ref[3];
    int32_t argmax[3], argmax_ref[3];
    aggregate_max_forward(out, argmax, msg, recv, 5, 3, 1);
    aggregate_max_forward_naive(ref, argmax_ref, msg, recv, 5, 3, 1);
    CHECK(out[0] == 2.0f && argmax[0] == 1 && out[1] == 9.0f && argmax[1] == 0 &&
          out[2] == 0.0f && argmax[2] == -1,
          "aggregate max: ties go to the lowest edge, empty receivers give 0 and -1");
    CHECK(memcmp(argmax, argmax_ref, sizeof argmax) == 0 && memcmp(out, ref, sizeof out) == 0,
          "aggregate max naive twin agrees on ties");

    // all-negative messages: the max is negative, not clamped at 0
    const float negative[] = { -3.0f, -2.0f, -5.0f, -1.5f, -7.0f };
    aggregate_max_forward(out, argmax, negative, recv, 5, 3, 1);
    CHECK(out[0] == -1.5f && argmax[0] == 3 && out[1] == -3.0f,
          "aggregate max of negative messages is their max");
    float no_argmax[3];
    aggregate_max_forward(no_argmax, NULL, negative, recv, 5, 3, 1);
    CHECK(memcmp(no_argmax, out, sizeof out) == 0, "aggregate max without argmax gives the same values");
    const float special[] = { NAN, -INFINITY, NAN, 4.0f, -INFINITY };
    aggregate_max_forward(out, argmax, special, recv, 5, 3, 1);
    aggregate_max_forward_naive(ref, argmax_ref, special, recv, 5, 3, 1);
    CHECK(out[0] == 4.0f && argmax[0] == 3 && out[1] == 0.0f && argmax[1] == -1 &&
          memcmp(argmax, argmax_ref, sizeof argmax) == 0 && memcmp(out, ref, sizeof out) == 0,
          "aggregate max: NaN and -inf never win, in both twins");

    // no edges at all
    float none[4] = { 1, 1, 1, 1 };
    int32_t none_argmax[4] = { 7, 7, 7, 7 }, degree[4];
    aggregate_max_forward(none, none_argmax, NULL, NULL, 0, 2, 2);
    CHECK(none[0] == 0 && none[3] == 0 && none_argmax[0] == -1 && none_argmax[3] == -1,
          "aggregate max over zero edges gives zeros and -1");
    edge_in_degree(degree, NULL, 0, 4);
    aggregate_mean_forward(none, NULL, NULL, degree, 0, 2, 2);
    CHECK(none[0] == 0 && none[3] == 0, "aggregate mean over zero edges gives zeros");

    int32_t in_degree[3];
    edge_in_degree(in_degree, recv, 5, 3);
    CHECK(in_degree[0] == 4 && in_degree[1] == 1 && in_degree[2] == 0,
          "edge_in_degree counts receivers");
}

struct gather_ctx {
    float *out, *in, *G;
    const int32_t *idx;
    int64_t E;
    int H;
};

static double gather_loss(void *p)
{
    struct gather_ctx *c = p;
    gather_rows_forward(c->out, c->in, c->idx, c->E, c->H);
    return dot(c->out, c->G, c->E * c->H);
}

static void test_gather(void)
{
    // rows 0..6 gathered with repeats, row 5 and 6 never
    const int32_t *idx = graph_recv;
    const int64_t E = GRAPH_E, N = GRAPH_N;
    const int H = 6;
    float *in = random_array(N * H, -1, 1), *start = random_array(E * H, -1, 1);
    float *out = zeros(E * H), *ref = zeros(E * H), *G = random_array(E * H, -1, 1);
    gather_rows_forward(out, in, idx, E, H);
    gather_rows_forward_naive(ref, in, idx, E, H);
    CHECK(memcmp(out, ref, (size_t)(E * H) * sizeof(float)) == 0,
          "gather_rows_forward equals its naive twin");
    memcpy(out, start, (size_t)(E * H) * sizeof(float));
    memcpy(ref, start, (size_t)(E * H) * sizeof(float));
    gather_rows_forward_accumulate(out, in, idx, E, H);
    gather_rows_forward_accumulate_naive(ref, in, idx, E, H);
    CHECK(memcmp(out, ref, (size_t)(E * H) * sizeof(float)) == 0,
          "gather_rows_forward_accumulate equals its naive twin");

    float *din = random_array(N * H, -1, 1), *din_ref = zeros(N * H);
    memcpy(din_ref, din, (size_t)(N * H) * sizeof(float));
    gather_rows_backward(din, G, idx, E, H);
    gather_rows_backward_naive(din_ref, G, idx, E, H);
    CHECK(memcmp(din, din_ref, (size_t)(N * H) * sizeof(float)) == 0,
          "gather_rows_backward equals its naive twin");

    memset(din, 0, (size_t)(N * H) * sizeof(float));
    gather_rows_backward(din, G, idx, E, H);
    struct gather_ctx c = { out, in, G, idx, E, H };
    double e = finite_difference(in, N * H, din, gather_loss, &c, 1e-2f);
    CHECK(e < 1e-2, "gather_rows backward matches finite differences (err %.2g)", e);
    free(in); free(start); free(out); free(ref); free(G); free(din); free(din_ref);
}

/* ---- losses ------------------------------------------------------------------ */

struct loss_ctx {
    int kind;                       /* 0 softmax CE, 1 BCE, 2 squared error */
    float *logits, *target_f, *weight;
    int32_t *target;
    float scale;
    int64_t count;
    int K;
};

static double loss_value(void *p)
{
    struct loss_ctx *c = p;
    if (c->kind == 0)
        return softmax_cross_entropy(NULL, c->logits, c->target, c->weight, c->scale, c->count, c->K);
    if (c->kind == 1)
        return bce_with_logits(NULL, c->logits, c->target_f, c->weight, c->scale, c->count);
    return squared_error(NULL, c->logits, c->target_f, c->weight, c->scale, c->count);
}

static void test_softmax_cross_entropy(void)
{
    const int64_t count = 12;
    const int K = 7;
    float *logits = random_array(count * K, -3, 3), *weight = zeros(count);
    int32_t target[12];
    float mask_sum = 0;
    for (int64_t i = 0; i < count; i++) {
        target[i] = (int32_t)rng_below(&test_rng, K);
        weight[i] = i % 4 == 3 ? 0.0f : 1.0f;     // a mask
        if (weight[i] == 0) target[i] = -1;      // masked items may hold anything
        mask_sum += weight[i];
    }
    float scale = 1.0f / mask_sum;
    float *grad = zeros(count * K), *grad_ref = zeros(count * K);
    double loss = softmax_cross_entropy(grad, logits, target, weight, scale, count, K);
    double loss_ref = softmax_cross_entropy_naive(grad_ref, logits, target, weight, scale, count, K);
    CHECK(check_close(loss, loss_ref, 1e-6, 1e-9),
          "softmax CE equals its naive twin (%.9f vs %.9f)", loss, loss_ref);
    double e = max_rel_diff(grad, grad_ref, count * K);
    CHECK(e < 1e-5, "softmax CE gradient equals its naive twin (rel %.2g)", e);
    struct loss_ctx c = { 0, logits, NULL, weight, target, scale, count, K };
    e = finite_difference(logits, count * K, grad, loss_value, &c, 1e-2f);
    CHECK(e < 1e-2, "softmax CE gradient matches finite differences (err %.2g)", e);
    int masked_zero = 1;
    for (int64_t i = 3; i < count; i += 4)
        for (int k = 0; k < K; k++)
            masked_zero &= grad[i * K + k] == 0.0f;
    CHECK(masked_zero, "softmax CE: masked items get no gradient");

    // closed forms: equal logits give log K; a dominant correct logit ~ 0
    float flat[4] = { 0.3f, 0.3f, 0.3f, 0.3f };
    int32_t t0 = 2;
    double flat_loss = softmax_cross_entropy(NULL, flat, &t0, NULL, 1.0f, 1, 4);
    CHECK(check_close(flat_loss, log(4.0), 1e-7, 0), "softmax CE of equal logits is log K");
    float huge[2] = { 1000.0f, -1000.0f };
    int32_t t1 = 1;
    double huge_loss = softmax_cross_entropy(NULL, huge, &t1, NULL, 1.0f, 1, 2);
    CHECK(check_close(huge_loss, 2000.0, 1e-7, 0), "softmax CE is stable on large logits (%.3f)",
          huge_loss);
    free(logits); free(weight); free(grad); free(grad_ref);
}

static void test_bce_and_squared_error(void)
{
    const int64_t count = 20;
    float *logits = random_array(count, -4, 4), *weight = random_array(count, 0, 2);
    float *target = zeros(count);
    for (int64_t i = 0; i < count; i++)
        target[i] = (float)(rng_below(&test_rng, 2));
    weight[5] = 0.0f;
    float *grad = zeros(count), *grad_ref = zeros(count);
    double loss = bce_with_logits(grad, logits, target, weight, 0.25f, count);
    double loss_ref = bce_with_logits_naive(grad_ref, logits, target, weight, 0.25f, count);
    CHECK(check_close(loss, loss_ref, 1e-6, 1e-9), "BCE equals its naive twin (%.9f vs %.9f)",
          loss, loss_ref);
    double e = max_rel_diff(grad, grad_ref, count);
    CHECK(e < 1e-5, "BCE gradient equals its naive twin (rel %.2g)", e);
    struct loss_ctx c = { 1, logits, target, weight, NULL, 0.25f, count, 0 };
    e = finite_difference(logits, count, grad, loss_value, &c, 1e-2f);
    CHECK(e < 1e-2, "BCE gradient matches finite differences (err %.2g)", e);
    float zero = 0.0f, one = 1.0f, big = 200.0f, g = 0.0f;
    CHECK(check_close(bce_with_logits(&g, &zero, &one, NULL, 1.0f, 1), log(2.0), 1e-7, 0) &&
          g == -0.5f, "BCE at logit 0 is log 2 with gradient -1/2");
    CHECK(check_close(bce_with_logits(NULL, &big, &zero, NULL, 1.0f, 1), 200.0, 1e-7, 0),
          "BCE is stable on large logits");

    float *pred = random_array(count, -1, 1), *sq_target = random_array(count, -1, 1);
    memset(grad, 0, (size_t)count * sizeof(float));
    double sq = squared_error(grad, pred, sq_target, weight, 0.5f, count);
    double sq_ref = 0.0;
    for (int64_t i = 0; i < count; i++)
        sq_ref += 0.5 * weight[i] * ((double)pred[i] - sq_target[i]) * ((double)pred[i] - sq_target[i]);
    CHECK(check_close(sq, sq_ref, 1e-9, 0), "squared error value");
    struct loss_ctx s = { 2, pred, sq_target, weight, NULL, 0.5f, count, 0 };
    e = finite_difference(pred, count, grad, loss_value, &s, 1e-2f);
    CHECK(e < 1e-2, "squared error gradient matches finite differences (err %.2g)", e);
    float p = 3.0f, t = 1.0f, gp = 1.0f;
    CHECK(squared_error(&gp, &p, &t, NULL, 1.0f, 1) == 4.0 && gp == 5.0f,
          "squared error (3-1)^2 = 4, gradient 4 accumulated onto 1");
    free(logits); free(weight); free(target); free(grad); free(grad_ref); free(pred);
    free(sq_target);
}

/* ---- init and optimisers ---------------------------------------------------- */

static void test_init(void)
{
    const int C = 25, OC = 40;
    float weight[40 * 25], bias[40], flat[40 * 25 + 40];
    struct rng a, b;
    rng_init(&a, 7, 1, 2);
    rng_init(&b, 7, 1, 2);
    linear_init(weight, bias, C, OC, &a);
    param_init_uniform(flat, OC * C + OC, C, &b);
    CHECK(memcmp(weight, flat, sizeof weight) == 0 && memcmp(bias, flat + OC * C, sizeof bias) == 0,
          "linear_init draws the weight in row-major order, then the bias");
    double bound = 1.0 / sqrt(C), sum = 0, max_abs = 0;
    for (int i = 0; i < OC * C; i++) {
        sum += weight[i];
        max_abs = fmax(max_abs, fabs(weight[i]));
    }
    CHECK(max_abs <= bound && max_abs > 0.95 * bound && fabs(sum / (OC * C)) < 0.02,
          "init is U(-1/sqrt(fan_in), 1/sqrt(fan_in)) (max %.4f, bound %.4f, mean %.4f)",
          max_abs, bound, sum / (OC * C));
    rng_init(&a, 7, 1, 2);
    float first;
    param_init_uniform(&first, 1, C, &a);
    rng_init(&b, 7, 1, 2);
    CHECK(first == (float)((2.0 * rng_uniform(&b) - 1.0) * bound),
          "init value is (2u - 1)/sqrt(fan_in) of one rng_uniform draw");
}

static void test_optimizers(void)
{
    // SGD: p − lr·(g + wd·p) = 1 − 0.1·(0.5 + 0.01·1) = 0.949; −2 − 0.1·(0.25 − 0.02) = −2.023
    float value[2] = { 1.0f, -2.0f }, grad[2] = { 0.5f, 0.25f };
    struct param params[1] = { { "p", value, grad, 2 } };
    struct sgd sgd = { 0.1f, 0.01f };
    sgd_step(&sgd, params, 1);
    CHECK(check_close(value[0], 0.949, 1e-6, 0) && check_close(value[1], -2.023, 1e-6, 0),
          "sgd step with weight decay (%.7f, %.7f)", value[0], value[1]);
    params_zero_grad(params, 1);
    CHECK(grad[0] == 0 && grad[1] == 0, "params_zero_grad zeroes the gradients");

    /* Adam, lr 0.1, two steps with gradients (0.5, 0.25) then (−0.25, 0.125).
     * Step 1: m̂ = g, v̂ = g², so p moves by lr·g/(|g| + eps): 1 → 0.9, −2 → −2.1.
     * Step 2 for the first entry: m = 0.9·0.05 − 0.1·0.25 = 0.02,
     *   v = 0.999·0.00025 + 0.001·0.0625 = 0.00031225, 1−β1² = 0.19, 1−β2² = 0.001999,
     *   p = 0.9 − (0.1/0.19)·0.02/(√0.00031225/√0.001999 + 1e−8) = 0.87336630.
     * torch.optim.Adam gives 0.87336636, −2.19321775; with weight_decay 0.1,
     * 0.85444140, −2.06981254 (hand: 0.85444137, −2.06981272). */
    const float expect[2][2][2] = { { { 0.9f, -2.1f }, { 0.8733663f, -2.1932180f } },
                                    { { 0.9f, -2.1f }, { 0.8544414f, -2.0698127f } } };
    for (int with_wd = 0; with_wd < 2; with_wd++) {
        value[0] = 1.0f; value[1] = -2.0f;
        struct adam adam;
        adam_init(&adam, params, 1, 0.1f, with_wd ? 0.1f : 0.0f);
        grad[0] = 0.5f; grad[1] = 0.25f;
        adam_step(&adam, params, 1);
        int ok1 = check_close(value[0], expect[with_wd][0][0], 1e-6, 0) &&
                  check_close(value[1], expect[with_wd][0][1], 1e-6, 0);
        grad[0] = -0.25f; grad[1] = 0.125f;
        adam_step(&adam, params, 1);
        int ok2 = check_close(value[0], expect[with_wd][1][0], 2e-6, 0) &&
                  check_close(value[1], expect[with_wd][1][1], 2e-6, 0);
        CHECK(ok1 && ok2, "adam two steps%s (%.7f, %.7f)", with_wd ? " with weight decay" : "",
              value[0], value[1]);
        adam_free(&adam);
    }

    // the moments follow the list order across tensors
    float v1[1] = { 1.0f }, g1[1] = { 0.5f }, v2[2] = { -2.0f, 1.0f }, g2[2] = { 0.25f, 0.5f };
    struct param two[2] = { { "a", v1, g1, 1 }, { "b", v2, g2, 2 } };
    struct adam adam;
    adam_init(&adam, two, 2, 0.1f, 0.0f);
    adam_step(&adam, two, 2);
    g1[0] = -0.25f; g2[0] = 0.125f; g2[1] = -0.25f;
    adam_step(&adam, two, 2);
    CHECK(params_count(two, 2) == 3 && check_close(v1[0], 0.8733663, 2e-6, 0) &&
          check_close(v2[0], -2.1932180, 2e-6, 0) && check_close(v2[1], 0.8733663, 2e-6, 0),
          "adam over a two-tensor list keeps per-entry moments");
    adam_free(&adam);
}

/* The cosine schedule against libm's cos (another code path, the same
 * function) at every iteration of two horizons, and its ends. */
static void test_lr_schedules(void)
{
    double worst = 0;
    const int64_t horizons[] = { 7, 10000 };
    for (int h = 0; h < 2; h++)
        for (int64_t k = 0; k <= horizons[h]; k++) {
            double want = 0.5 * (1.0 + cos(M_PI * (double)k / (double)horizons[h]));
            worst = fmax(worst, fabs(lr_schedule_factor(LR_COSINE, k, horizons[h]) - want));
        }
    CHECK(worst < 1e-15, "the cosine factor is libm's to %.1e", worst);
    CHECK(lr_schedule_factor(LR_COSINE, 0, 100) == 1.0 && lr_schedule_factor(LR_COSINE, 50, 100) == 0.5 &&
          lr_schedule_factor(LR_COSINE, 100, 100) == 0.0 && lr_schedule_factor(LR_COSINE, 250, 100) == 0.0,
          "cosine: 1 at the start, 1/2 half way, 0 at the horizon and after");
    CHECK(lr_schedule_factor(LR_CONSTANT, 0, 100) == 1.0 && lr_schedule_factor(LR_CONSTANT, 250, 100) == 1.0,
          "constant: 1 everywhere");
}

int main(void)
{
    check_file_name = "layers";
    rng_init(&test_rng, 20240611, 0, 0);

    test_linear_gradients(5, 4, 3, 1);          // loops
    test_linear_gradients(9, 31, 17, 1);        // sgemm
    test_linear_gradients(9, 31, 17, 0);
    test_linear_twins(3, 4, 5);
    test_lr_schedules();
    test_linear_twins(257, 130, 65);
    test_linear_twins(64, 1, 1);
    test_linear_twins(100, 195, 1);             // a 3H→1 decoder
    test_linear_threads();
    test_gemm_chain();
    test_elementwise();
    test_aggregation(AGG_MAX);
    test_aggregation(AGG_SUM);
    test_aggregation(AGG_MEAN);
    test_aggregation_edge_cases();
    test_gather();
    test_softmax_cross_entropy();
    test_bce_and_squared_error();
    test_init();
    test_optimizers();
    return check_done();
}
