/* partition.h - the clusters of ClusterGCN (C-SAGE in the paper's Table 3):
 * a METIS k-way partition of the line graph, and the subgraph a batch of
 * clusters induces.
 *
 * As torch_sparse's partition() under PyG's ClusterData (reference/
 * table3-baselines.md §4): METIS_PartGraphKway of Debian's libmetis (32-bit
 * idx_t) on the symmetric CSR with no vertex or edge weights and default
 * options (seed 4321, so the partition is deterministic), one part skipping
 * METIS. */
#ifndef DAR_PARTITION_H
#define DAR_PARTITION_H
#include "line_graph.h"
#include <stddef.h>
#include <stdint.h>

/* part[n] in [0, parts).  Returns 0, or -1 with a message in err when METIS
 * fails (or parts < 1).  *edge_cut (if not NULL) gets METIS's edge cut. */
int partition_metis(int32_t *part, const struct line_graph *g, int parts, int64_t *edge_cut, char *err,
                    size_t errlen);

/* The subgraph of g induced by nodes[0..k) (distinct ids of g): node i of sub
 * is nodes[i]; every edge of g between two of them kept, rows sorted.
 * local[n] is scratch of g's size, all -1 on entry and on return. */
void line_graph_induced(struct line_graph *sub, const struct line_graph *g, const int32_t *nodes, int64_t k,
                        int32_t *local);

#endif
