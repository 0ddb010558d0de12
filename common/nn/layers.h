/* layers.h - the numeric kernels the models are built from: dense layers (the
 * fixed-order kernels of gemm.h, OpenBLAS for large products), elementwise
 * activations, message aggregation over an edge list,
 * row gathers, losses and parameter init.  float32 throughout.
 *
 * Conventions (llm.c's, see DESIGN.md §7):
 * - name_forward(out..., in..., params..., dims...) and
 *   name_backward(dinputs..., dparams..., dout, saved inputs..., dims...);
 *   the first comment lines of each definition give every array's shape.
 * - Arrays are contiguous, row-major.  Row counts (N rows or nodes, E edges)
 *   are int64_t, feature widths int: C input and OC output features of a
 *   dense layer, H features of a message.  (Not I/O: OpenBLAS's cblas.h
 *   pulls in <complex.h>, which defines I.)
 * - Backward kernels ACCUMULATE (+=) into their d-buffers, so a tensor used
 *   in several places sums its gradients for free; zero them before the
 *   backward pass.  A d-buffer passed as NULL is not computed.
 * - Results never depend on the thread count: every reduction runs in one
 *   fixed order, so they are bit-identical across runs, across the worker
 *   pool's size (workers.h) and across OPENBLAS_NUM_THREADS.  OpenBLAS runs
 *   one thread inside each of ours (its threaded sgemm gives other bits than
 *   its single-threaded one on some CPUs); a dense layer of more than
 *   LINEAR_CHUNK_ROWS rows is cut into chunks of that many rows, spread over
 *   the pool, with dW's per-chunk partials added in chunk order.  Only that
 *   dW path allocates (its partials); no other kernel does.
 * - A kernel with a faster path has a `_naive` twin: plain loops, the
 *   specification the tests compare against.  Elementwise kernels (relu,
 *   tanh) and the squared error are plain loops already and have no twin.
 *
 * Useful identities for the model:
 * - A bilinear score matrix out(N×M) = a(N×K)·bᵀ (b is M×K) is
 *   linear_forward(out, a, b, NULL, N, K, M); its backward is
 *   linear_backward(da, db, NULL, dout, a, b, N, K, M).
 * - A sum of linear terms (M1·z_v + M2·z_u + Me·e_uv) is one linear_forward
 *   followed by linear_forward_accumulate or gather_rows_forward_accumulate. */
#ifndef DAR_LAYERS_H
#define DAR_LAYERS_H
#include <stdbool.h>
#include <stdint.h>
#include "rng.h"

/* ---- dense layer: out = in·Wᵀ (+ b), W stored (OC×C) ------------------------- */

/* Which code runs a product depends on its shape and the CPU only, so a
 * machine gives the same bits on every run:
 * - below LINEAR_CHAIN_MAX_MACS multiply-adds (N·C·OC), where the CPU has
 *   AVX2+FMA or AVX-512, the fixed-order kernels of gemm.h (same bits on
 *   every such CPU; they beat OpenBLAS on the model's shapes, which are too
 *   small for its packing to pay);
 * - otherwise cblas_sgemm, or the plain loops below LINEAR_BLAS_THRESHOLD
 *   (sgemm already wins at 2×16×16). */
#define LINEAR_CHAIN_MAX_MACS ((double)(1 << 25))
#define LINEAR_BLAS_THRESHOLD 512

/* Rows per sgemm call of a large dense layer: a task of the worker pool.  It
 * fixes the bits of dW for N above it, so it is a constant, not a tuning
 * knob of the thread count. */
#define LINEAR_CHUNK_ROWS 512

/* While linear_timing is set (benchmarks): linear_flops counts the
 * multiply-add FLOPs (2 per multiply-add) of every linear_* call, for the
 * achieved GFLOP/s, and linear_nanoseconds sums the calls' wall time (over
 * threads: a share of the iteration, times the thread count).  Off, the
 * calls touch no shared counter. */
extern _Atomic uint64_t linear_flops;
extern _Atomic uint64_t linear_nanoseconds;
extern bool linear_timing;

void linear_forward(float *out, const float *in, const float *weight, const float *bias,
                    int64_t N, int C, int OC);
/* out += in·Wᵀ (+ b): for summing several linear terms into one buffer. */
void linear_forward_accumulate(float *out, const float *in, const float *weight,
                               const float *bias, int64_t N, int C, int OC);
void linear_backward(float *din, float *dweight, float *dbias, const float *dout,
                     const float *in, const float *weight, int64_t N, int C, int OC);
/* The same two forward products with W given transposed: weight_t is
 * (C×OC), Wᵀ kept by a caller that runs the layer many times (the model
 * transposes its weights once per batch): a small product then pays no
 * transpose.  The same bits as linear_forward with W on the fixed-order and
 * plain paths; on the OpenBLAS path equal to rounding. */
void linear_forward_transposed(float *out, const float *in, const float *weight_t,
                               const float *bias, int64_t N, int C, int OC);
void linear_forward_transposed_accumulate(float *out, const float *in, const float *weight_t,
                                          const float *bias, int64_t N, int C, int OC);
/* out = relu(in·W + b), W given transposed: the relu is applied as the
 * product is stored (the same bits as linear_forward_transposed then
 * relu_forward). */
void linear_relu_forward_transposed(float *out, const float *in, const float *weight_t,
                                    const float *bias, int64_t N, int C, int OC);

void linear_forward_naive(float *out, const float *in, const float *weight, const float *bias,
                          int64_t N, int C, int OC);
void linear_forward_accumulate_naive(float *out, const float *in, const float *weight,
                                     const float *bias, int64_t N, int C, int OC);
void linear_backward_naive(float *din, float *dweight, float *dbias, const float *dout,
                           const float *in, const float *weight, int64_t N, int C, int OC);

/* ---- elementwise ---------------------------------------------------------- */

/* out and in may be the same buffer. */
void relu_forward(float *out, const float *in, int64_t count);
/* Uses the forward OUTPUT (out > 0 iff in > 0), so relu may run in place. */
void relu_backward(float *din, const float *dout, const float *out, int64_t count);
void tanh_forward(float *out, const float *in, int64_t count);
/* Uses the forward output: d tanh = 1 − out². */
void tanh_backward(float *din, const float *dout, const float *out, int64_t count);

/* ---- aggregation of edge messages at their receivers ------------------------ */
/* msg row e belongs to edge e, received by node recv[e] in [0, N).  The edge
 * list carries the self-loops the model wants; a node that receives nothing
 * gets 0 (and argmax −1). */

/* out[v] = max over edges e into v of msg[e], per feature; argmax records the
 * winning edge, ties going to the lowest edge index.  A message wins only by
 * comparing greater, so NaN and −inf never win (a feature whose messages are
 * all NaN or −inf counts as empty: 0, argmax −1).  argmax may be NULL when
 * no backward pass follows (inference). */
void aggregate_max_forward(float *out, int32_t *argmax, const float *msg, const int32_t *recv,
                           int64_t E, int64_t N, int H);
void aggregate_max_backward(float *dmsg, const float *dout, const int32_t *argmax,
                            int64_t N, int H);
void aggregate_sum_forward(float *out, const float *msg, const int32_t *recv,
                           int64_t E, int64_t N, int H);
void aggregate_sum_backward(float *dmsg, const float *dout, const int32_t *recv,
                            int64_t E, int H);
/* in_degree from edge_in_degree(); out[v] = sum / in_degree[v], 0 if none. */
void aggregate_mean_forward(float *out, const float *msg, const int32_t *recv,
                            const int32_t *in_degree, int64_t E, int64_t N, int H);
void aggregate_mean_backward(float *dmsg, const float *dout, const int32_t *recv,
                             const int32_t *in_degree, int64_t E, int H);
void edge_in_degree(int32_t *in_degree, const int32_t *recv, int64_t E, int64_t N);

void aggregate_max_forward_naive(float *out, int32_t *argmax, const float *msg,
                                 const int32_t *recv, int64_t E, int64_t N, int H);
void aggregate_max_backward_naive(float *dmsg, const float *dout, const int32_t *argmax,
                                  int64_t N, int H);
void aggregate_sum_forward_naive(float *out, const float *msg, const int32_t *recv,
                                 int64_t E, int64_t N, int H);
void aggregate_sum_backward_naive(float *dmsg, const float *dout, const int32_t *recv,
                                  int64_t E, int H);
void aggregate_mean_forward_naive(float *out, const float *msg, const int32_t *recv,
                                  const int32_t *in_degree, int64_t E, int64_t N, int H);
void aggregate_mean_backward_naive(float *dmsg, const float *dout, const int32_t *recv,
                                   const int32_t *in_degree, int64_t E, int H);

/* ---- row gathers ---------------------------------------------------------- */

/* out[e] = in[idx[e]]: node rows onto edges (sender or receiver side). */
void gather_rows_forward(float *out, const float *in, const int32_t *idx, int64_t E, int H);
/* out[e] += in[idx[e]]. */
void gather_rows_forward_accumulate(float *out, const float *in, const int32_t *idx,
                                    int64_t E, int H);
/* din[idx[e]] += dout[e], edges in increasing order (a fixed summation order). */
void gather_rows_backward(float *din, const float *dout, const int32_t *idx, int64_t E, int H);

void gather_rows_forward_naive(float *out, const float *in, const int32_t *idx, int64_t E, int H);
void gather_rows_forward_accumulate_naive(float *out, const float *in, const int32_t *idx,
                                          int64_t E, int H);
void gather_rows_backward_naive(float *din, const float *dout, const int32_t *idx,
                                int64_t E, int H);

/* ---- losses --------------------------------------------------------------- */
/* Each returns  scale · Σ_i weight[i] · loss_i  (summed in double, in item
 * order) and, when dlogits/dpred is not NULL, ACCUMULATES the gradient of
 * that value.  weight NULL means 1 for every item; items of weight 0 are
 * skipped entirely (their target may then be anything, e.g. a masked −1).
 * Callers make a masked mean with weight = mask, scale = 1/Σ mask. */

/* Softmax cross-entropy over K candidates per item:
 * loss_i = −log softmax(logits[i,:])[target[i]].  Pointers use K = n,
 * categories K = 2.  A target outside [0, K) on a weighted item dies (70). */
double softmax_cross_entropy(float *dlogits, const float *logits, const int32_t *target,
                             const float *weight, float scale, int64_t count, int K);
/* Binary cross-entropy on logits: loss_i = −[y log σ(x) + (1−y) log(1−σ(x))],
 * computed stably as max(x,0) − x·y + log(1 + e^−|x|). */
double bce_with_logits(float *dlogits, const float *logits, const float *target,
                       const float *weight, float scale, int64_t count);
/* loss_i = (pred_i − target_i)². */
double squared_error(float *dpred, const float *pred, const float *target,
                     const float *weight, float scale, int64_t count);

double softmax_cross_entropy_naive(float *dlogits, const float *logits, const int32_t *target,
                                   const float *weight, float scale, int64_t count, int K);
double bce_with_logits_naive(float *dlogits, const float *logits, const float *target,
                             const float *weight, float scale, int64_t count);

/* ---- parameter init ------------------------------------------------------- */

/* PyTorch's nn.Linear default: every entry ~ U(−1/√fan_in, +1/√fan_in).
 * Draws one rng_uniform() per entry in memory order: value[i] =
 * (float)((2u − 1)/√fan_in). */
void param_init_uniform(float *value, int64_t count, int fan_in, struct rng *r);
/* A dense layer (OC×C weight, then the OC-vector bias if not NULL): weight in
 * row-major order first, then bias, both with fan_in = C. */
void linear_init(float *weight, float *bias, int C, int OC, struct rng *r);

#endif
