/* sparse.h - the graph products of the GNN baselines (gnn-train), on the
 * int32 CSR of a symmetric graph without self-loops (struct line_graph):
 *
 *   mean aggregation  M = D^-1 A          (SAGEConv, aggr 'mean'; an isolated
 *                                          node's row is 0, as torch_scatter)
 *   GCN propagation   Â = S (A + I) S,     S = diag((deg + 1)^-1/2)
 *                                          (GCNConv's gcn_norm with self-loops)
 *
 * No per-edge values are stored: M uses the row length, Â the vector
 * scale[i] = (deg_i + 1)^-1/2 (gcn_scale).  Shapes: x, out, dx, dout are
 * [n, H] row-major, H the feature width.
 *
 * Each kernel computes every output row from its own neighbour list in list
 * order ("pull"), rows split over `threads` threads (parallel.h): the result
 * is the same bits for any thread count.  The backward kernels use the
 * symmetry of A (M^T x = A (D^-1 x), Â^T = Â) to pull as well; their _naive
 * twins scatter along the transposed products by the definition, so the tests
 * also check that the graph was symmetric.  Backward kernels ACCUMULATE into
 * dx (layers.h's convention). */
#ifndef DAR_SPARSE_H
#define DAR_SPARSE_H
#include "line_graph.h"
#include <stdint.h>

/* out[i] = (1/deg_i) sum_{j in N(i)} x[j]; 0 when deg_i = 0. */
void sparse_mean_forward(float *out, const float *x, const struct line_graph *g, int H, int threads);
/* dx += M^T dout: dx[i] += sum_{j in N(i)} dout[j] / deg_j. */
void sparse_mean_backward(float *dx, const float *dout, const struct line_graph *g, int H, int threads);
/* The same bits, for a caller done with dout: its rows are divided by their
 * degrees in place first, so a row is divided once instead of once per
 * neighbour, and the sum adds the quotients. */
void sparse_mean_backward_in_place(float *dx, float *dout, const struct line_graph *g, int H, int threads);

/* scale[n] = 1 / sqrt(deg_i + 1). */
void gcn_scale(float *scale, const struct line_graph *g);
/* out[i] = scale_i (scale_i x[i] + sum_{j in N(i)} scale_j x[j]) + bias
 * (bias [H] or NULL: the layer's bias added as each row is stored, the same
 * bits as adding it after). */
void sparse_gcn_forward(float *out, const float *x, const float *scale, const float *bias, const struct line_graph *g,
                        int H, int threads);
/* dx += Â^T dout (= Â dout). */
void sparse_gcn_backward(float *dx, const float *dout, const float *scale, const struct line_graph *g, int H,
                         int threads);

void sparse_mean_forward_naive(float *out, const float *x, const struct line_graph *g, int H);
void sparse_mean_backward_naive(float *dx, const float *dout, const struct line_graph *g, int H);
void sparse_gcn_forward_naive(float *out, const float *x, const float *scale, const struct line_graph *g, int H);
void sparse_gcn_backward_naive(float *dx, const float *dout, const float *scale, const struct line_graph *g, int H);

#endif
