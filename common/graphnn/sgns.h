/* sgns.h - skip-gram with negative sampling as PyG 1.7.2's Node2Vec computes
 * it (formats/node2vec.md, reference/table3-baselines.md §5): one embedding
 * table for centres and contexts, forward windows over a walk.
 *
 * A walk of `length` nodes has length - context + 1 windows; window j pairs
 * its first node with the context - 1 nodes after it: (w[j], w[j+k]) for
 * k = 1 .. context - 1.  A positive walk (a random walk) scores each pair
 *     -log(sigmoid(s) + 1e-15),        s = E[a] . E[b]
 * a negative walk (its start node, then uniform random nodes)
 *     -log(1 - sigmoid(s) + 1e-15).
 * PyG takes the mean over a batch's positive pairs plus the mean over its
 * negative pairs; the caller passes 1 / (number of pairs) as `scale`. */
#ifndef DAR_SGNS_H
#define DAR_SGNS_H
#include <stdbool.h>
#include <stdint.h>

/* PyG's EPS inside the logarithms. */
#define SGNS_LOG_EPS 1e-15

/* Pairs a walk of `length` nodes makes with windows of `context` nodes. */
int64_t sgns_walk_pairs(int length, int context);

/* The loss of one pair and its derivative d loss / d s (float, as PyG). */
float sgns_pair_loss(float s, bool positive, float *dloss_ds);

/* Loss and gradient of one walk.
 *   rows [length] pointers to the walk's embedding rows (dim floats each;
 *        a node met twice has the same pointer twice)
 *   grad [length, dim] OVERWRITTEN: scale * d loss / d row, per position
 *        (the caller sums the positions of one node)
 * Returns the walk's loss sum, unscaled, when want_loss (else 0: the
 * logarithms are skipped). */
double sgns_walk_backward(float *grad, const float *const *rows, int length, int context, int dim,
                          bool positive, float scale, bool want_loss);
/* The same in plain loops and float64 (gradient rounded to float at the
 * end): the specification. */
double sgns_walk_backward_naive(float *grad, const float *const *rows, int length, int context, int dim,
                                bool positive, float scale);

/* torch.optim.SparseAdam (torch 1.13) on one touched row:
 *   m += (1 - beta1) (g - m);  v += (1 - beta2) (g^2 - v);
 *   param -= step_size * m / (sqrt(v) + eps),
 * step_size = lr sqrt(1 - beta2^t) / (1 - beta1^t) with t the global step
 * (rows not touched keep their moments: lazy). */
void sparse_adam_row(float *param, float *m, float *v, const float *g, int dim,
                     float step_size, float beta1, float beta2, float eps);

#endif
