/* line_graph.h - the line graph L(G) of an undirected edge list: one node per
 * edge of G (a vessel), two nodes adjacent when their edges share an
 * endpoint.  The brain-vessel benchmark classifies the nodes of L(G)
 * (reference/bvg.md §2), its GNNs convolve over it and Node2Vec walks on it.
 *
 * Node order: node i of L(G) is edge i of the record, so every per-edge
 * array (label, length, split, embeddings) indexes it directly.  PyG's
 * LineGraph numbers the vessels in sorted (min, max) order; a vessel record
 * (formats/vessel.md) already stores its edges sorted by (src, dst) with
 * src < dst, so for vessel records the two orders are the same, and so are
 * everything that depends on the order: the random split (a permutation of
 * node indices) and the METIS partition (METIS's result depends on vertex
 * numbering).  For an unsorted record the record's order is kept: the split
 * and predictions then stay aligned with the record's arrays, which is what
 * a user of that record needs.
 *
 * Memory: offsets int64[m+1] and neighbors int32[nnz]; nnz is about 4.4 m on
 * the real brains (reference/table3-baselines.md §6), so CD1-E-1 (5.8M
 * edges) takes 46 MB + 102 MB, plus int32[2m] + int64[n+1] of scratch
 * during the build. */
#ifndef DAR_LINE_GRAPH_H
#define DAR_LINE_GRAPH_H
#include <stddef.h>
#include <stdint.h>

/* L(G): node i is edge i of the vessel graph record (so per-edge arrays index it directly);
 * i and j adjacent when edges i and j share an endpoint; rows sorted ascending, no self
 * loops, no duplicates; symmetric. */
struct line_graph {
    int64_t n;           /* nodes of L(G) = m, edges of G */
    int64_t *offsets;    /* [n+1] */
    int32_t *neighbors;  /* [offsets[n]] */
};

/* Build L(G) from the m edges (src[e], dst[e]) of a graph on `nodes` nodes.
 * Parallel edges of G are adjacent once (they share both endpoints); a
 * self-loop (u, u) is adjacent to every other edge at u.  Returns 0, or -1
 * with a message in err (size errlen) when it does not fit (e.g. > INT32_MAX
 * nodes) or an endpoint is outside [0, nodes); lg is then empty (free-able). */
int line_graph_build(struct line_graph *lg, int64_t nodes, int64_t m, const int32_t *src, const int32_t *dst,
                     char *err, size_t errlen);
void line_graph_free(struct line_graph *lg);

/* The same by the definition, O(m^2): the specification the tests compare
 * against. */
int line_graph_build_naive(struct line_graph *lg, int64_t nodes, int64_t m, const int32_t *src,
                           const int32_t *dst, char *err, size_t errlen);

#endif
