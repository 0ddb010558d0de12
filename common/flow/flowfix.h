/* flowfix.h - the corrective procedure (paper appendix A.2, Algorithm 2):
 * turns a predicted flow that respects capacities but not conservation into
 * a feasible flow. */
#ifndef DAR_FLOWFIX_H
#define DAR_FLOWFIX_H
#include <stdint.h>
#include <stdbool.h>

/* Inputs: n nodes, m edges src/dst, capacities cap[m] (>= 0), predicted net
 * flow pred[m] (src->dst; in an undirected graph either sign).  Outputs:
 * fixed[m] feasible (|fixed| <= cap, and >= 0 on directed arcs; in-flow ==
 * out-flow at every node but s and t, to 1e-6 of the largest capacity),
 * conservation before/after per node (in-flow minus out-flow; 0 at s and t).
 * Returns the value of the fixed flow (net flow out of s). */
double flow_fix(int n, int m, int s, int t, bool directed,
                const int32_t *src, const int32_t *dst, const double *cap,
                const double *pred, double *fixed,
                double *conservation_before, double *conservation_after);

#endif
