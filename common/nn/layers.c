/* layers.c - forward and backward kernels of the models (see layers.h).
 *
 * The optimised kernels are the naive ones with the loops reordered for
 * memory order and run four features at a time; the dense layers run on
 * gemm.h's fixed-order kernels, or cblas_sgemm for large products and CPUs
 * without AVX2.  Dense layers of many rows are cut into fixed chunks run on
 * the worker pool (workers.h); no sum is ordered by the thread count, so a
 * run is reproducible bit for bit.  This file is not a general tensor
 * library: no strides, no broadcasting; only large products allocate. */
#include "layers.h"
#include "die.h"
#include "gemm.h"
#include "workers.h"
#include <cblas.h>
#include <stdlib.h>
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>


/* ---- row helpers ------------------------------------------------------------
 * The hot loops below are elementwise over a row of H features.  gcc -O2
 * (the build's default) does not vectorise a loop of unknown length, so
 * these helpers work on four floats at a time with GNU C vector types (one
 * SSE register on baseline x86-64, the widest every x86-64 has; NEON on
 * arm64), then finish the tail one by one.  Every output element still sees
 * its operations in the same order as in the scalar loop, so the results are
 * the scalar loop's, bit for bit.  (Eight-wide vectors are slower without
 * -mavx: gcc then passes them through memory.) */
typedef float vec4 __attribute__((vector_size(16)));
typedef int32_t ivec4 __attribute__((vector_size(16)));

static inline vec4 load4(const float *p) { vec4 v; memcpy(&v, p, sizeof v); return v; }
static inline void store4(float *p, vec4 v) { memcpy(p, &v, sizeof v); }
static inline ivec4 iload4(const int32_t *p) { ivec4 v; memcpy(&v, p, sizeof v); return v; }
static inline void istore4(int32_t *p, ivec4 v) { memcpy(p, &v, sizeof v); }

/* dst += src */
static inline void row_add(float *dst, const float *src, int64_t H)
{
    int64_t h = 0;
    for (; h + 4 <= H; h += 4)
        store4(dst + h, load4(dst + h) + load4(src + h));
    for (; h < H; h++)
        dst[h] += src[h];
}

/* dst += src / divisor */
static inline void row_add_divided(float *dst, const float *src, float divisor, int64_t H)
{
    int64_t h = 0;
    for (; h + 4 <= H; h += 4)
        store4(dst + h, load4(dst + h) + load4(src + h) / divisor);
    for (; h < H; h++)
        dst[h] += src[h] / divisor;
}

/* row /= divisor */
static inline void row_divide(float *row, float divisor, int64_t H)
{
    int64_t h = 0;
    for (; h + 4 <= H; h += 4)
        store4(row + h, load4(row + h) / divisor);
    for (; h < H; h++)
        row[h] /= divisor;
}

/* Where msg > best: best = msg. */
static inline void row_max_value(float *best, const float *msg, int64_t H)
{
    int64_t h = 0;
    for (; h + 4 <= H; h += 4) {
        vec4 m = load4(msg + h), b = load4(best + h);
        ivec4 greater = m > b;
        store4(best + h, (vec4)(((ivec4)m & greater) | ((ivec4)b & ~greater)));
    }
    for (; h < H; h++)
        if (msg[h] > best[h])
            best[h] = msg[h];
}

/* Where msg > best: best = msg, winner = edge. */
static inline void row_max(float *best, int32_t *winner, const float *msg, int32_t edge, int64_t H)
{
    int64_t h = 0;
    ivec4 edges = (ivec4){ 0 } + edge;
    for (; h + 4 <= H; h += 4) {
        vec4 m = load4(msg + h), b = load4(best + h);
        ivec4 greater = m > b;
        store4(best + h, (vec4)(((ivec4)m & greater) | ((ivec4)b & ~greater)));
        istore4(winner + h, (edges & greater) | (iload4(winner + h) & ~greater));
    }
    for (; h < H; h++)
        if (msg[h] > best[h]) {
            best[h] = msg[h];
            winner[h] = edge;
        }
}


/* ---- dense layer ------------------------------------------------------------ */

void linear_forward_naive(float *out, const float *in, const float *weight, const float *bias,
                          int64_t N, int C, int OC)
{
    // out is (N,OC), in is (N,C), weight is (OC,C), bias is (OC) or NULL
    for (int64_t n = 0; n < N; n++) {
        const float *in_row = in + n * C;
        for (int o = 0; o < OC; o++) {
            const float *w_row = weight + (int64_t)o * C;
            float sum = bias ? bias[o] : 0.0f;
            for (int i = 0; i < C; i++)
                sum += in_row[i] * w_row[i];
            out[n * OC + o] = sum;
        }
    }
}

void linear_forward_accumulate_naive(float *out, const float *in, const float *weight,
                                     const float *bias, int64_t N, int C, int OC)
{
    // out is (N,OC), in is (N,C), weight is (OC,C), bias is (OC) or NULL
    for (int64_t n = 0; n < N; n++) {
        const float *in_row = in + n * C;
        for (int o = 0; o < OC; o++) {
            const float *w_row = weight + (int64_t)o * C;
            float sum = bias ? bias[o] : 0.0f;
            for (int i = 0; i < C; i++)
                sum += in_row[i] * w_row[i];
            out[n * OC + o] += sum;
        }
    }
}

void linear_backward_naive(float *din, float *dweight, float *dbias, const float *dout,
                           const float *in, const float *weight, int64_t N, int C, int OC)
{
    // din is (N,C), dweight is (OC,C), dbias is (OC), each NULL if not wanted
    // dout is (N,OC), in is (N,C), weight is (OC,C)
    for (int64_t n = 0; n < N; n++) {
        const float *dout_row = dout + n * OC;
        for (int o = 0; o < OC; o++) {
            float d = dout_row[o];
            const float *w_row = weight + (int64_t)o * C;
            if (din)
                for (int i = 0; i < C; i++)
                    din[n * C + i] += d * w_row[i];
            if (dweight)
                for (int i = 0; i < C; i++)
                    dweight[(int64_t)o * C + i] += d * in[n * C + i];
            if (dbias)
                dbias[o] += d;
        }
    }
}

/* ---- dense layer through sgemm, cut in chunks of rows ----------------------
 * A product of N rows runs as ceil(N / LINEAR_CHUNK_ROWS) single-threaded
 * sgemm calls on fixed row ranges, spread over the worker pool.  out and din
 * are row-wise, so each chunk writes its own rows.  dW sums over the rows:
 * each chunk's doutᵀ·in goes into its own partial, and the partials are added
 * to dW in chunk order.  Neither the chunks nor that order depend on the
 * thread count, so neither do the bits.  A product of one chunk is a single
 * sgemm straight into the output, as before chunking. */

/* OpenBLAS threads its own sgemm when asked to (OPENBLAS_NUM_THREADS), and
 * how it splits the work changes the bits on some CPUs: it must run one
 * thread inside each of ours. */
static void blas_one_thread(void)
{
    if (openblas_get_num_threads() != 1)
        openblas_set_num_threads(1);
}

static int64_t chunk_count(int64_t N)
{
    return (N + LINEAR_CHUNK_ROWS - 1) / LINEAR_CHUNK_ROWS;
}

struct linear_job {
    float *out, *din, *dweight;
    const float *in, *weight, *bias, *dout;
    int64_t N, first_chunk;
    int C, OC;
    float beta;                 /* forward: 1 to add to out */
    bool relu;                  /* forward: relu on the way out */
    float *partials;            /* backward: [chunks of this round][OC·C] */
};

static void linear_forward_chunk(void *context, int64_t chunk, int worker)
{
    const struct linear_job *j = context;
    int64_t n0 = chunk * LINEAR_CHUNK_ROWS;
    int rows = (int)(j->N - n0 < LINEAR_CHUNK_ROWS ? j->N - n0 : LINEAR_CHUNK_ROWS);
    int C = j->C, OC = j->OC;
    float *out = j->out + n0 * OC;
    float beta = j->beta;
    // bias goes in first so that beta = 1 adds the product to it
    if (j->bias) {
        for (int n = 0; n < rows; n++) {
            if (beta != 0.0f)
                row_add(out + (int64_t)n * OC, j->bias, OC);
            else
                memcpy(out + (int64_t)n * OC, j->bias, (size_t)OC * sizeof(float));
        }
        beta = 1.0f;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, OC, C,
                1.0f, j->in + n0 * C, C, j->weight, C, beta, out, OC);
}

/* out (= or +=) in·Wᵀ + b */
static void linear_forward_blas(float *out, const float *in, const float *weight,
                                const float *bias, int64_t N, int C, int OC, int accumulate)
{
    blas_one_thread();
    struct linear_job j = {.out = out, .in = in, .weight = weight, .bias = bias, .N = N,
                           .C = C, .OC = OC, .beta = accumulate ? 1.0f : 0.0f};
    workers_run(chunk_count(N), linear_forward_chunk, &j);
}

static void linear_input_grad_chunk(void *context, int64_t chunk, int worker)
{
    const struct linear_job *j = context;
    int64_t n0 = chunk * LINEAR_CHUNK_ROWS;
    int rows = (int)(j->N - n0 < LINEAR_CHUNK_ROWS ? j->N - n0 : LINEAR_CHUNK_ROWS);
    // din += dout·W
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, j->C, j->OC,
                1.0f, j->dout + n0 * j->OC, j->OC, j->weight, j->C, 1.0f, j->din + n0 * j->C, j->C);
}

static void linear_weight_grad_chunk(void *context, int64_t slot, int worker)
{
    const struct linear_job *j = context;
    int64_t n0 = (j->first_chunk + slot) * LINEAR_CHUNK_ROWS;
    int rows = (int)(j->N - n0 < LINEAR_CHUNK_ROWS ? j->N - n0 : LINEAR_CHUNK_ROWS);
    // partial = doutᵀ·in over this chunk's rows
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, j->OC, j->C, rows,
                1.0f, j->dout + n0 * j->OC, j->OC, j->in + n0 * j->C, j->C, 0.0f,
                j->partials + slot * (int64_t)j->OC * j->C, j->C);
}

/* Elements of dW per task when the partials are added up. */
enum { SUM_SPAN = 4096 };

struct partial_sum_job {
    float *dweight;
    const float *partials;
    int64_t size, slots;
};

static void partial_sum_span(void *context, int64_t span, int worker)
{
    const struct partial_sum_job *j = context;
    int64_t i0 = span * SUM_SPAN, count = j->size - i0 < SUM_SPAN ? j->size - i0 : SUM_SPAN;
    for (int64_t s = 0; s < j->slots; s++)
        row_add(j->dweight + i0, j->partials + s * j->size + i0, count);
}

/* Memory for the partials of one round of dW chunks. */
#define LINEAR_PARTIAL_BYTES ((int64_t)32 << 20)

static void linear_weight_grad_blas(float *dweight, const float *dout, const float *in,
                                    int64_t N, int C, int OC)
{
    int64_t chunks = chunk_count(N);
    if (chunks == 1) {
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, OC, C, (int)N,
                    1.0f, dout, OC, in, C, 1.0f, dweight, C);
        return;
    }
    // rounds of `round` chunks: computed in parallel, then added in order
    int64_t size = (int64_t)OC * C;
    int64_t round = LINEAR_PARTIAL_BYTES / (size * (int64_t)sizeof(float));
    round = round < 1 ? 1 : round > chunks ? chunks : round;
    float *partials = xmalloc(sizeof(float) * (size_t)(round * size));
    struct linear_job j = {.dweight = dweight, .in = in, .dout = dout, .N = N, .C = C, .OC = OC,
                           .partials = partials};
    for (j.first_chunk = 0; j.first_chunk < chunks; j.first_chunk += round) {
        int64_t slots = chunks - j.first_chunk < round ? chunks - j.first_chunk : round;
        workers_run(slots, linear_weight_grad_chunk, &j);
        struct partial_sum_job sum = {dweight, partials, size, slots};
        workers_run((size + SUM_SPAN - 1) / SUM_SPAN, partial_sum_span, &sum);
    }
    free(partials);
}

/* ---- dense layer through the fixed-order kernels of gemm.h -----------------
 * Each output element is one chain of fused multiply-adds in a fixed order
 * (gemm.h), so neither tiling nor threads change a bit: forward and din are
 * cut into chunks of rows, dW into blocks of its rows, each a task. */

/* Rows of dW per task. */
enum { WEIGHT_ROWS_PER_TASK = 16 };

/* weight_t = Wᵀ (C×OC) */
static void transpose_weight(float *weight_t, const float *weight, int C, int OC)
{
    for (int o = 0; o < OC; o++)
        for (int c = 0; c < C; c++)
            weight_t[(int64_t)c * OC + o] = weight[(int64_t)o * C + c];
}

/* Weights up to this many entries are transposed on the stack. */
enum { STACK_WEIGHT = 16384 };

static void chain_forward_chunk(void *context, int64_t chunk, int worker)
{
    const struct linear_job *j = context;
    int64_t n0 = chunk * LINEAR_CHUNK_ROWS;
    int64_t rows = j->N - n0 < LINEAR_CHUNK_ROWS ? j->N - n0 : LINEAR_CHUNK_ROWS;
    // out rows (+)= in rows · Wᵀ (+ b), with j->weight holding Wᵀ (C×OC)
    (j->relu ? gemm_chain_relu : gemm_chain)(j->out + n0 * j->OC, j->OC, j->in + n0 * j->C, j->C,
                                             1, j->weight, j->OC, j->bias, rows, j->OC, j->C,
                                             j->beta != 0.0f);
}

static void chain_forward(float *out, const float *in, const float *weight, const float *bias,
                          int64_t N, int C, int OC, int accumulate)
{
    int64_t size = (int64_t)C * OC;
    float stack[size > 0 && size <= STACK_WEIGHT ? size : 1];
    float *weight_t = size <= STACK_WEIGHT ? stack : xmalloc(sizeof(float) * (size_t)size);
    transpose_weight(weight_t, weight, C, OC);
    struct linear_job j = {.out = out, .in = in, .weight = weight_t, .bias = bias, .N = N,
                           .C = C, .OC = OC, .beta = accumulate ? 1.0f : 0.0f};
    workers_run(chunk_count(N), chain_forward_chunk, &j);
    if (weight_t != stack)
        free(weight_t);
}

static void chain_input_grad_chunk(void *context, int64_t chunk, int worker)
{
    const struct linear_job *j = context;
    int64_t n0 = chunk * LINEAR_CHUNK_ROWS;
    int64_t rows = j->N - n0 < LINEAR_CHUNK_ROWS ? j->N - n0 : LINEAR_CHUNK_ROWS;
    // din rows += dout rows · W
    gemm_chain(j->din + n0 * j->C, j->C, j->dout + n0 * j->OC, j->OC, 1, j->weight, j->C, NULL,
               rows, j->C, j->OC, true);
}

static void chain_weight_grad_rows(void *context, int64_t task, int worker)
{
    const struct linear_job *j = context;
    int64_t o0 = task * WEIGHT_ROWS_PER_TASK;
    int64_t rows = j->OC - o0 < WEIGHT_ROWS_PER_TASK ? j->OC - o0 : WEIGHT_ROWS_PER_TASK;
    // dW rows o0.. += (dout columns o0..)ᵀ · in, one chain over all N rows
    gemm_chain(j->dweight + o0 * j->C, j->C, j->dout + o0, 1, j->OC, j->in, j->C, NULL,
               rows, j->C, j->N, true);
}

static void chain_backward(float *din, float *dweight, const float *dout, const float *in,
                           const float *weight, int64_t N, int C, int OC)
{
    struct linear_job j = {.din = din, .dweight = dweight, .dout = dout, .in = in,
                           .weight = weight, .N = N, .C = C, .OC = OC};
    if (din)
        workers_run(chunk_count(N), chain_input_grad_chunk, &j);
    if (dweight)
        workers_run((OC + WEIGHT_ROWS_PER_TASK - 1) / WEIGHT_ROWS_PER_TASK, chain_weight_grad_rows, &j);
}

enum linear_path { LINEAR_PLAIN, LINEAR_CHAIN, LINEAR_BLAS };

/* By shape and CPU only, so the same on every run of a machine. */
static enum linear_path linear_path(int64_t N, int C, int OC)
{
    double macs = (double)N * C * OC;
    if (gemm_available() && macs < LINEAR_CHAIN_MAX_MACS)
        return LINEAR_CHAIN;
    return macs < LINEAR_BLAS_THRESHOLD ? LINEAR_PLAIN : LINEAR_BLAS;
}

_Atomic uint64_t linear_flops, linear_nanoseconds;
bool linear_timing;

static uint64_t clock_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* Count a call's FLOPs and return its start time, when counting (shared
 * counters would cost every call a contended cache line otherwise). */
static uint64_t count_call(uint64_t flops)
{
    if (!linear_timing)
        return 0;
    atomic_fetch_add_explicit(&linear_flops, flops, memory_order_relaxed);
    return clock_ns();
}

static void count_time(uint64_t start)
{
    if (linear_timing)
        atomic_fetch_add_explicit(&linear_nanoseconds, clock_ns() - start, memory_order_relaxed);
}

void linear_forward(float *out, const float *in, const float *weight, const float *bias,
                    int64_t N, int C, int OC)
{
    // out is (N,OC), in is (N,C), weight is (OC,C), bias is (OC) or NULL
    uint64_t start = count_call(2 * (uint64_t)N * (uint64_t)C * (uint64_t)OC);
    switch (linear_path(N, C, OC)) {
    case LINEAR_CHAIN: chain_forward(out, in, weight, bias, N, C, OC, 0); break;
    case LINEAR_BLAS: linear_forward_blas(out, in, weight, bias, N, C, OC, 0); break;
    case LINEAR_PLAIN: linear_forward_naive(out, in, weight, bias, N, C, OC); break;
    }
    count_time(start);
}

void linear_forward_accumulate(float *out, const float *in, const float *weight,
                               const float *bias, int64_t N, int C, int OC)
{
    // out is (N,OC), in is (N,C), weight is (OC,C), bias is (OC) or NULL
    uint64_t start = count_call(2 * (uint64_t)N * (uint64_t)C * (uint64_t)OC);
    switch (linear_path(N, C, OC)) {
    case LINEAR_CHAIN: chain_forward(out, in, weight, bias, N, C, OC, 1); break;
    case LINEAR_BLAS: linear_forward_blas(out, in, weight, bias, N, C, OC, 1); break;
    case LINEAR_PLAIN: linear_forward_accumulate_naive(out, in, weight, bias, N, C, OC); break;
    }
    count_time(start);
}

/* out (= or +=) in·weight_t + b with weight_t (C×OC): the three paths of
 * linear_forward, reading W transposed. */
static void linear_forward_t_any(float *out, const float *in, const float *weight_t,
                                 const float *bias, int64_t N, int C, int OC, int accumulate,
                                 bool relu)
{
    uint64_t start = count_call(2 * (uint64_t)N * (uint64_t)C * (uint64_t)OC);
    switch (linear_path(N, C, OC)) {
    case LINEAR_CHAIN: {
        struct linear_job j = {.out = out, .in = in, .weight = weight_t, .bias = bias, .N = N,
                               .C = C, .OC = OC, .beta = accumulate ? 1.0f : 0.0f, .relu = relu};
        workers_run(chunk_count(N), chain_forward_chunk, &j);
        relu = false;
        break;
    }
    case LINEAR_BLAS:
        blas_one_thread();
        for (int64_t n0 = 0; n0 < N; n0 += LINEAR_CHUNK_ROWS) {
            int rows = (int)(N - n0 < LINEAR_CHUNK_ROWS ? N - n0 : LINEAR_CHUNK_ROWS);
            float *o = out + n0 * OC;
            float beta = accumulate ? 1.0f : 0.0f;
            if (bias) {
                for (int n = 0; n < rows; n++) {
                    if (accumulate)
                        row_add(o + (int64_t)n * OC, bias, OC);
                    else
                        memcpy(o + (int64_t)n * OC, bias, (size_t)OC * sizeof(float));
                }
                beta = 1.0f;
            }
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, OC, C, 1.0f,
                        in + n0 * C, C, weight_t, OC, beta, o, OC);
        }
        break;
    case LINEAR_PLAIN:
        // linear_forward_naive's order, W read transposed
        for (int64_t n = 0; n < N; n++)
            for (int o = 0; o < OC; o++) {
                float sum = bias ? bias[o] : 0.0f;
                for (int i = 0; i < C; i++)
                    sum += in[n * C + i] * weight_t[(int64_t)i * OC + o];
                out[n * OC + o] = accumulate ? out[n * OC + o] + sum : sum;
            }
        break;
    }
    if (relu)
        relu_forward(out, out, N * OC);
    count_time(start);
}

void linear_forward_transposed(float *out, const float *in, const float *weight_t,
                               const float *bias, int64_t N, int C, int OC)
{
    // out is (N,OC), in is (N,C), weight_t is (C,OC), bias is (OC) or NULL
    linear_forward_t_any(out, in, weight_t, bias, N, C, OC, 0, false);
}

void linear_relu_forward_transposed(float *out, const float *in, const float *weight_t,
                                    const float *bias, int64_t N, int C, int OC)
{
    // out is (N,OC), in is (N,C), weight_t is (C,OC), bias is (OC) or NULL
    linear_forward_t_any(out, in, weight_t, bias, N, C, OC, 0, true);
}

void linear_forward_transposed_accumulate(float *out, const float *in, const float *weight_t,
                                          const float *bias, int64_t N, int C, int OC)
{
    // out is (N,OC), in is (N,C), weight_t is (C,OC), bias is (OC) or NULL
    linear_forward_t_any(out, in, weight_t, bias, N, C, OC, 1, false);
}

void linear_backward(float *din, float *dweight, float *dbias, const float *dout,
                     const float *in, const float *weight, int64_t N, int C, int OC)
{
    // din is (N,C), dweight is (OC,C), dbias is (OC), each NULL if not wanted
    // dout is (N,OC), in is (N,C), weight is (OC,C)
    uint64_t start = count_call(2 * (uint64_t)N * (uint64_t)C * (uint64_t)OC * (uint64_t)((din != NULL) + (dweight != NULL)));
    switch (linear_path(N, C, OC)) {
    case LINEAR_PLAIN:
        linear_backward_naive(din, dweight, dbias, dout, in, weight, N, C, OC);
        count_time(start);
        return;
    case LINEAR_CHAIN:
        chain_backward(din, dweight, dout, in, weight, N, C, OC);
        break;
    case LINEAR_BLAS:
        blas_one_thread();
        if (din) {
            struct linear_job j = {.din = din, .dout = dout, .weight = weight, .N = N, .C = C, .OC = OC};
            workers_run(chunk_count(N), linear_input_grad_chunk, &j);
        }
        if (dweight)
            linear_weight_grad_blas(dweight, dout, in, N, C, OC);
        break;
    }
    // dbias is a column sum of dout, rows in order
    if (dbias)
        for (int64_t n = 0; n < N; n++)
            row_add(dbias, dout + n * OC, OC);
    count_time(start);
}

/* ---- elementwise ------------------------------------------------------------ */

void relu_forward(float *out, const float *in, int64_t count)
{
    // out and in are (count), possibly the same buffer
    int64_t i = 0;
    for (; i + 4 <= count; i += 4) {
        vec4 x = load4(in + i);
        store4(out + i, (vec4)((ivec4)x & (x > 0.0f)));
    }
    for (; i < count; i++)
        out[i] = in[i] > 0.0f ? in[i] : 0.0f;
}

void relu_backward(float *din, const float *dout, const float *out, int64_t count)
{
    // din, dout and out (the forward output) are (count)
    int64_t i = 0;
    for (; i + 4 <= count; i += 4) {
        vec4 d = (vec4)((ivec4)load4(dout + i) & (load4(out + i) > 0.0f));
        store4(din + i, load4(din + i) + d);
    }
    for (; i < count; i++)
        din[i] += out[i] > 0.0f ? dout[i] : 0.0f;
}

void tanh_forward(float *out, const float *in, int64_t count)
{
    // out and in are (count), possibly the same buffer
    for (int64_t i = 0; i < count; i++)
        out[i] = tanhf(in[i]);
}

void tanh_backward(float *din, const float *dout, const float *out, int64_t count)
{
    // din, dout and out (the forward output) are (count)
    for (int64_t i = 0; i < count; i++)
        din[i] += dout[i] * (1.0f - out[i] * out[i]);
}

/* ---- aggregation ------------------------------------------------------------ */

/* A receiver out of range would write outside out: catch it once per edge. */
static void check_receiver(int32_t v, int64_t e, int64_t N)
{
    if (v < 0 || v >= N)
        die(EX_SOFTWARE, "edge %lld: receiver %d outside [0, %lld)", (long long)e, (int)v,
            (long long)N);
}

void edge_in_degree(int32_t *in_degree, const int32_t *recv, int64_t E, int64_t N)
{
    // in_degree is (N), recv is (E)
    memset(in_degree, 0, (size_t)N * sizeof(int32_t));
    for (int64_t e = 0; e < E; e++) {
        check_receiver(recv[e], e, N);
        in_degree[recv[e]]++;
    }
}

void aggregate_max_forward_naive(float *out, int32_t *argmax, const float *msg,
                                 const int32_t *recv, int64_t E, int64_t N, int H)
{
    // out is (N,H), argmax is (N,H), msg is (E,H), recv is (E)
    for (int64_t v = 0; v < N; v++)
        for (int h = 0; h < H; h++) {
            float best = -INFINITY;
            int32_t winner = -1;
            for (int64_t e = 0; e < E; e++)
                if (recv[e] == v && msg[e * H + h] > best) {
                    best = msg[e * H + h];
                    winner = (int32_t)e;
                }
            out[v * H + h] = winner >= 0 ? best : 0.0f;
            argmax[v * H + h] = winner;
        }
}

void aggregate_max_forward(float *out, int32_t *argmax, const float *msg, const int32_t *recv,
                           int64_t E, int64_t N, int H)
{
    // out is (N,H), argmax is (N,H) or NULL (inference), msg is (E,H), recv is (E)
    if (E > INT32_MAX)
        die(EX_SOFTWARE, "%lld edges do not fit the int32 argmax", (long long)E);
    for (int64_t i = 0; i < N * H; i++)
        out[i] = -INFINITY;
    if (argmax)
        for (int64_t i = 0; i < N * H; i++)
            argmax[i] = -1;
    // edges in increasing order with a strict '>', so ties keep the lowest edge
    for (int64_t e = 0; e < E; e++) {
        check_receiver(recv[e], e, N);
        if (argmax)
            row_max(out + (int64_t)recv[e] * H, argmax + (int64_t)recv[e] * H, msg + e * H,
                    (int32_t)e, H);
        else
            row_max_value(out + (int64_t)recv[e] * H, msg + e * H, H);
    }
    // only a feature that nothing won is still −inf
    for (int64_t i = 0; i < N * H; i++)
        if (out[i] == -INFINITY)
            out[i] = 0.0f;
}

void aggregate_max_backward_naive(float *dmsg, const float *dout, const int32_t *argmax,
                                  int64_t N, int H)
{
    // dmsg is (E,H), dout is (N,H), argmax is (N,H) from the forward pass
    for (int64_t v = 0; v < N; v++)
        for (int h = 0; h < H; h++)
            if (argmax[v * H + h] >= 0)
                dmsg[(int64_t)argmax[v * H + h] * H + h] += dout[v * H + h];
}

void aggregate_max_backward(float *dmsg, const float *dout, const int32_t *argmax,
                            int64_t N, int H)
{
    // dmsg is (E,H), dout is (N,H), argmax is (N,H) from the forward pass
    // each message feature wins at most one receiver, so the order is irrelevant
    aggregate_max_backward_naive(dmsg, dout, argmax, N, H);
}

void aggregate_sum_forward_naive(float *out, const float *msg, const int32_t *recv,
                                 int64_t E, int64_t N, int H)
{
    // out is (N,H), msg is (E,H), recv is (E)
    for (int64_t v = 0; v < N; v++)
        for (int h = 0; h < H; h++) {
            float sum = 0.0f;
            for (int64_t e = 0; e < E; e++)
                if (recv[e] == v)
                    sum += msg[e * H + h];
            out[v * H + h] = sum;
        }
}

void aggregate_sum_forward(float *out, const float *msg, const int32_t *recv,
                           int64_t E, int64_t N, int H)
{
    // out is (N,H), msg is (E,H), recv is (E)
    memset(out, 0, (size_t)(N * H) * sizeof(float));
    // edges in increasing order: the sum into each node has one fixed order
    for (int64_t e = 0; e < E; e++) {
        check_receiver(recv[e], e, N);
        row_add(out + (int64_t)recv[e] * H, msg + e * H, H);
    }
}

void aggregate_sum_backward_naive(float *dmsg, const float *dout, const int32_t *recv,
                                  int64_t E, int H)
{
    // dmsg is (E,H), dout is (N,H), recv is (E)
    for (int64_t e = 0; e < E; e++)
        for (int h = 0; h < H; h++)
            dmsg[e * H + h] += dout[(int64_t)recv[e] * H + h];
}

void aggregate_sum_backward(float *dmsg, const float *dout, const int32_t *recv,
                            int64_t E, int H)
{
    // dmsg is (E,H), dout is (N,H), recv is (E)
    gather_rows_forward_accumulate(dmsg, dout, recv, E, H);
}

void aggregate_mean_forward_naive(float *out, const float *msg, const int32_t *recv,
                                  const int32_t *in_degree, int64_t E, int64_t N, int H)
{
    // out is (N,H), msg is (E,H), recv is (E), in_degree is (N)
    aggregate_sum_forward_naive(out, msg, recv, E, N, H);
    for (int64_t v = 0; v < N; v++)
        for (int h = 0; h < H; h++)
            out[v * H + h] = in_degree[v] ? out[v * H + h] / (float)in_degree[v] : 0.0f;
}

void aggregate_mean_forward(float *out, const float *msg, const int32_t *recv,
                            const int32_t *in_degree, int64_t E, int64_t N, int H)
{
    // out is (N,H), msg is (E,H), recv is (E), in_degree is (N)
    aggregate_sum_forward(out, msg, recv, E, N, H);
    for (int64_t v = 0; v < N; v++)
        if (in_degree[v])   // otherwise the sum is already 0
            row_divide(out + v * H, (float)in_degree[v], H);
}

void aggregate_mean_backward_naive(float *dmsg, const float *dout, const int32_t *recv,
                                   const int32_t *in_degree, int64_t E, int H)
{
    // dmsg is (E,H), dout is (N,H), recv is (E), in_degree is (N)
    for (int64_t e = 0; e < E; e++)
        for (int h = 0; h < H; h++)
            dmsg[e * H + h] += dout[(int64_t)recv[e] * H + h] / (float)in_degree[recv[e]];
}

void aggregate_mean_backward(float *dmsg, const float *dout, const int32_t *recv,
                             const int32_t *in_degree, int64_t E, int H)
{
    // dmsg is (E,H), dout is (N,H), recv is (E), in_degree is (N)
    for (int64_t e = 0; e < E; e++)
        row_add_divided(dmsg + e * H, dout + (int64_t)recv[e] * H, (float)in_degree[recv[e]], H);
}

/* ---- row gathers ------------------------------------------------------------ */

void gather_rows_forward_naive(float *out, const float *in, const int32_t *idx, int64_t E, int H)
{
    // out is (E,H), in is (N,H), idx is (E)
    for (int64_t e = 0; e < E; e++)
        for (int h = 0; h < H; h++)
            out[e * H + h] = in[(int64_t)idx[e] * H + h];
}

void gather_rows_forward(float *out, const float *in, const int32_t *idx, int64_t E, int H)
{
    // out is (E,H), in is (N,H), idx is (E)
    for (int64_t e = 0; e < E; e++)
        memcpy(out + e * H, in + (int64_t)idx[e] * H, (size_t)H * sizeof(float));
}

void gather_rows_forward_accumulate_naive(float *out, const float *in, const int32_t *idx,
                                          int64_t E, int H)
{
    // out is (E,H), in is (N,H), idx is (E)
    for (int64_t e = 0; e < E; e++)
        for (int h = 0; h < H; h++)
            out[e * H + h] += in[(int64_t)idx[e] * H + h];
}

void gather_rows_forward_accumulate(float *out, const float *in, const int32_t *idx,
                                    int64_t E, int H)
{
    // out is (E,H), in is (N,H), idx is (E)
    for (int64_t e = 0; e < E; e++)
        row_add(out + e * H, in + (int64_t)idx[e] * H, H);
}

void gather_rows_backward_naive(float *din, const float *dout, const int32_t *idx,
                                int64_t E, int H)
{
    // din is (N,H), dout is (E,H), idx is (E)
    for (int64_t e = 0; e < E; e++)
        for (int h = 0; h < H; h++)
            din[(int64_t)idx[e] * H + h] += dout[e * H + h];
}

void gather_rows_backward(float *din, const float *dout, const int32_t *idx, int64_t E, int H)
{
    // din is (N,H), dout is (E,H), idx is (E)
    // sequential over edges: the sum into each row has one fixed order
    for (int64_t e = 0; e < E; e++)
        row_add(din + (int64_t)idx[e] * H, dout + e * H, H);
}

/* ---- losses ----------------------------------------------------------------- */

static void check_target(int32_t target, int64_t i, int K)
{
    if (target < 0 || target >= K)
        die(EX_SOFTWARE, "item %lld: target %d outside [0, %d)", (long long)i, (int)target, K);
}

double softmax_cross_entropy(float *dlogits, const float *logits, const int32_t *target,
                             const float *weight, float scale, int64_t count, int K)
{
    // dlogits and logits are (count,K), target is (count), weight is (count) or NULL
    double total = 0.0;
    for (int64_t i = 0; i < count; i++) {
        double w = weight ? weight[i] : 1.0;
        if (w == 0.0)
            continue;
        check_target(target[i], i, K);
        const float *row = logits + i * K;
        // shift by the row maximum so no exp overflows
        float max = row[0];
        for (int k = 1; k < K; k++)
            if (row[k] > max) max = row[k];
        double sum = 0.0;
        for (int k = 0; k < K; k++)
            sum += exp((double)row[k] - max);
        double log_sum = log(sum);
        total += w * (log_sum - ((double)row[target[i]] - max));
        if (dlogits) {
            float *drow = dlogits + i * K;
            double g = w * scale;
            for (int k = 0; k < K; k++) {
                double p = exp((double)row[k] - max - log_sum);
                drow[k] += (float)(g * (p - (k == target[i])));
            }
        }
    }
    return scale * total;
}

double softmax_cross_entropy_naive(float *dlogits, const float *logits, const int32_t *target,
                                   const float *weight, float scale, int64_t count, int K)
{
    // dlogits and logits are (count,K), target is (count), weight is (count) or NULL
    // the textbook formula, unshifted: fine for the moderate logits of the tests
    double total = 0.0;
    for (int64_t i = 0; i < count; i++) {
        double w = weight ? weight[i] : 1.0;
        if (w == 0.0)
            continue;
        check_target(target[i], i, K);
        double sum = 0.0;
        for (int k = 0; k < K; k++)
            sum += exp((double)logits[i * K + k]);
        total += w * -log(exp((double)logits[i * K + target[i]]) / sum);
        if (dlogits)
            for (int k = 0; k < K; k++) {
                double p = exp((double)logits[i * K + k]) / sum;
                dlogits[i * K + k] += (float)(w * scale * (p - (k == target[i] ? 1.0 : 0.0)));
            }
    }
    return scale * total;
}

double bce_with_logits(float *dlogits, const float *logits, const float *target,
                       const float *weight, float scale, int64_t count)
{
    // dlogits, logits, target and weight (or NULL) are (count)
    double total = 0.0;
    for (int64_t i = 0; i < count; i++) {
        double w = weight ? weight[i] : 1.0;
        if (w == 0.0)
            continue;
        double x = logits[i], y = target[i];
        // max(x,0) − x·y + log(1 + e^−|x|) never overflows
        total += w * (fmax(x, 0.0) - x * y + log1p(exp(-fabs(x))));
        if (dlogits) {
            double sigmoid = x >= 0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x));
            dlogits[i] += (float)(w * scale * (sigmoid - y));
        }
    }
    return scale * total;
}

double bce_with_logits_naive(float *dlogits, const float *logits, const float *target,
                             const float *weight, float scale, int64_t count)
{
    // dlogits, logits, target and weight (or NULL) are (count)
    double total = 0.0;
    for (int64_t i = 0; i < count; i++) {
        double w = weight ? weight[i] : 1.0;
        if (w == 0.0)
            continue;
        double sigmoid = 1.0 / (1.0 + exp(-(double)logits[i]));
        double y = target[i];
        total += w * -(y * log(sigmoid) + (1.0 - y) * log(1.0 - sigmoid));
        if (dlogits)
            dlogits[i] += (float)(w * scale * (sigmoid - y));
    }
    return scale * total;
}

double squared_error(float *dpred, const float *pred, const float *target,
                     const float *weight, float scale, int64_t count)
{
    // dpred, pred, target and weight (or NULL) are (count)
    double total = 0.0;
    for (int64_t i = 0; i < count; i++) {
        double w = weight ? weight[i] : 1.0;
        if (w == 0.0)
            continue;
        double diff = (double)pred[i] - target[i];
        total += w * diff * diff;
        if (dpred)
            dpred[i] += (float)(2.0 * w * scale * diff);
    }
    return scale * total;
}

/* ---- parameter init --------------------------------------------------------- */

void param_init_uniform(float *value, int64_t count, int fan_in, struct rng *r)
{
    // value is (count)
    double bound = 1.0 / sqrt((double)fan_in);
    for (int64_t i = 0; i < count; i++)
        value[i] = (float)((2.0 * rng_uniform(r) - 1.0) * bound);
}

void linear_init(float *weight, float *bias, int C, int OC, struct rng *r)
{
    // weight is (OC,C), bias is (OC) or NULL
    param_init_uniform(weight, (int64_t)OC * C, C, r);
    if (bias)
        param_init_uniform(bias, OC, C, r);
}
