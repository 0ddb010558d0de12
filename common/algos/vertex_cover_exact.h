/* vertex_cover_exact.h - minimum weighted vertex covers, exactly: on
 * bipartite graphs as a minimum cut (s->a with w_a, a->b unbounded, b->t
 * with w_b) through common/flow/maxflow.c, on any graph as an integer
 * program (minimise sum w_v x_v subject to x_u + x_v >= 1, x binary) through
 * GLPK, with a budget of branch-and-bound nodes per graph and the status it
 * ended in. */
#ifndef DAR_VERTEX_COVER_EXACT_H
#define DAR_VERTEX_COVER_EXACT_H
#include <stdint.h>
#include <stddef.h>

enum vertex_cover_status {
    VERTEX_COVER_OPTIMAL,      /* proved optimal */
    VERTEX_COVER_FEASIBLE,     /* the node budget ended the search: a cover, maybe not the lightest */
    VERTEX_COVER_UNSOLVED      /* no cover found within the budget (cover[] is every node) */
};
/* "optimal", "feasible", "unsolved" */
const char *vertex_cover_status_name(enum vertex_cover_status status);

/* The lightest cover of a bipartite graph (side[v]: 0 = A, 1 = B; every
 * edge joins A and B) into cover[n]; returns its weight.  The weights are
 * made integers at 2^-40 of the largest (or finer), so the cut is the
 * optimum of that rounding: within n 2^-40 max(w) of the true optimum. */
double vertex_cover_min_cut(int n, int m, const int32_t *src, const int32_t *dst, const uint8_t *side,
                            const float *node_w, uint8_t *cover);

/* The lightest cover of any graph by GLPK's branch and cut, stopped before
 * it begins subproblem node_limit + 1 (<= 0: no limit), into cover[n];
 * *weight gets its weight.  GLPK's tolerances make "optimal" exact to about
 * 1e-7 of the weight.  The budget counts nodes, not seconds, and GLPK's
 * search is deterministic, so the status, the cover and its weight are the
 * same on every machine and under any load: a wall-clock limit made a
 * graph that needs about the limit end "feasible" on a loaded machine and
 * "optimal" on a quiet one.  No clock is kept as a safety net: one that
 * fired would change the record, and the budget already bounds the work. */
enum vertex_cover_status vertex_cover_ilp(int n, int m, const int32_t *src, const int32_t *dst,
                                          const float *node_w, int64_t node_limit, uint8_t *cover, double *weight);

#endif
