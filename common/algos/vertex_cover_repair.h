/* vertex_cover_repair.h - a predicted cover and packing made valid: the
 * cover completed greedily until every edge is covered, the packing scaled
 * down where a node's constraint sum_{e at v} y_e <= w_v is broken.  After
 * both, w(cover) / sum y bounds the cover's distance to the optimum on any
 * graph (weak duality: every packing weighs at most the lightest cover). */
#ifndef DAR_VERTEX_COVER_REPAIR_H
#define DAR_VERTEX_COVER_REPAIR_H
#include <stdint.h>

/* How the uncovered edges are completed. */
enum vertex_cover_completion {
    /* PDNAR's corrective stage (graph_executor.py, test()): while an edge is
     * uncovered, the node of least w_v / d_v joins, d_v its number of
     * uncovered edges (ties: the lowest index, as torch.argmin) */
    VERTEX_COVER_COMPLETE_RATIO,
    /* each uncovered edge in index order: its endpoint of higher predicted
     * score joins (ties: the lower index) */
    VERTEX_COVER_COMPLETE_SCORE,
};
/* "ratio", "score" */
const char *vertex_cover_completion_name(enum vertex_cover_completion how);

/* cover[n] := {v : score[v] > threshold}, then completed.  Scores must be
 * finite (the caller checks).  Returns how many nodes the completion added. */
int vertex_cover_complete(int n, int m, const int32_t *src, const int32_t *dst, const float *node_w,
                          const float *score, double threshold, enum vertex_cover_completion how, uint8_t *cover);

/* y[m] := pred[m] clamped to >= 0, then y_e scaled by min(s_u, s_v), s_v =
 * min(1, w_v / load_v) with load_v the clamped packing's sum at v: every
 * node's constraint holds after (its edges shrink by at least its own s_v)
 * and an edge between two satisfied nodes keeps its value.  pred must be
 * finite.  Returns the excess before, sum_v max(0, load_v - w_v) of pred as
 * given (negative entries count as 0: they loosen no constraint). */
double vertex_cover_pack_repair(int n, int m, const int32_t *src, const int32_t *dst, const float *node_w,
                                const double *pred, double *y);

#endif
