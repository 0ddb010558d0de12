/* walk.h - node2vec's second-order random walks (Grover & Leskovec 2016) on
 * a CSR graph of struct line_graph's shape (offsets/neighbors, rows sorted,
 * symmetric), as Node2Vec walks the vessel line graph (formats/node2vec.md).
 *
 * From the current node v, reached from t, the next node x is a neighbour of
 * v with probability proportional to
 *     1/p  if x == t          (return)
 *     1    if x is adjacent to t
 *     1/q  otherwise          (move away)
 * The first step has no t and is uniform; a node without neighbours keeps
 * the walk where it is.  p = q = 1 is uniform at every step and takes a
 * fast path (one draw per step); otherwise rejection sampling from the
 * uniform proposal (no alias tables: O(1) memory per node), exact for every
 * p, q.  torch_cluster's sampler, which PyG runs, is not exact when p != q
 * (its rejection test falls through to the 1/q branch); see the format. */
#ifndef DAR_WALK_H
#define DAR_WALK_H
#include <stdbool.h>
#include <stdint.h>
#include "line_graph.h"
#include "rng.h"

struct walk_bias {
    bool uniform;            /* p == q == 1 */
    double accept_return;    /* (1/p) / max(1/p, 1, 1/q) */
    double accept_neighbor;  /* 1 / max(...) */
    double accept_far;       /* (1/q) / max(...) */
};

/* The acceptance probabilities of the rejection sampler; p, q > 0. */
void walk_bias_init(struct walk_bias *b, double p, double q);

/* One walk of `length` nodes, walk[0] = start, drawn with r. */
void walk_sample(int32_t *walk, int length, int32_t start, const struct line_graph *g,
                 const struct walk_bias *b, struct rng *r);

/* Is x adjacent to t (binary search in t's sorted row)? */
bool walk_adjacent(const struct line_graph *g, int32_t t, int32_t x);

/* The exact transition probabilities out of cur, reached from prev (prev < 0:
 * the first step): prob[i] for neighbors[offsets[cur] + i].  The
 * specification the sampler is tested against. */
void walk_transition_probabilities(double *prob, const struct line_graph *g, int32_t prev, int32_t cur,
                                   double p, double q);

#endif
