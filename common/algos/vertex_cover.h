/* vertex_cover.h - minimum weighted vertex cover by the primal-dual
 * algorithm with uniform increases, as PDNAR traces it (He & Vitercik,
 * ICML 2025; dransyhe/pdnar, src/dataset/algorithms/vertex_cover.py), and
 * the check of its edge-packing dual.
 *
 * Each round, on the live edges (those with no endpoint in the cover):
 *   d_v       = v's live degree, r_v its residual weight (r = w at first);
 *   delta_e   = min(r_u / d_u, r_v / d_v)            for every live e = uv;
 *   r_v      -= sum of delta_e over v's live edges   (in edge index order);
 *   v joins the cover when r_v <= epsilon * w_v, and its edges die.
 * The rounds stop when no edge is live.  The packing y_e = sum of e's
 * increments is feasible (sum over v's edges <= w_v) by construction, and
 * every cover node has paid (1 - epsilon) w_v, so w(C) <= 2/(1-epsilon) sum y.
 * The node with the smallest r/d joins in every round: T <= n + 1.
 *
 * Departures from PDNAR's code: it runs on the graph itself, not on the
 * bipartite graph of elements and sets (the same algorithm: an edge is an
 * element, a node a set); traces are not padded to n frames; arithmetic is
 * double, its sums in edge index order (networkx's neighbour order there).
 *
 * Hints, frame 0 before any round (r = w, nothing in the cover, every edge
 * live, increments 0), then one frame per round, after it:
 *   hint_residual[t][v]  r_v (frozen once v is in the cover);
 *   hint_in_cover[t][v]  1 once v has joined;
 *   hint_delta[t][e]     e's increment in the round (0 if e was dead);
 *   hint_live[t][e]      1 while neither end is in the cover. */
#ifndef DAR_VERTEX_COVER_H
#define DAR_VERTEX_COVER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VERTEX_COVER_EPSILON 0.1

struct vertex_cover {
    int n, m, steps;         /* T frames */
    /* hints, NULL when traced without them */
    double *hint_residual;   /* [T,n] */
    uint8_t *hint_in_cover;  /* [T,n] */
    double *hint_delta;      /* [T,m] */
    uint8_t *hint_live;      /* [T,m] */
    /* outputs */
    uint8_t *cover;          /* [n] */
    double *packing;         /* [m] y */
};

/* Trace.  node_w: [n], finite and >= 0 (graph_read checks it); epsilon in
 * [0,1).  With hints, refuses (false, the reason in err) a graph whose
 * hints could exceed max_hint_bytes ((n+1) frames of 9(n+m) bytes) before
 * allocating them.  Free vc with vertex_cover_free. */
bool vertex_cover_trace(struct vertex_cover *vc, int n, int m, const int32_t *src, const int32_t *dst,
                        const float *node_w, double epsilon, bool hints, size_t max_hint_bytes,
                        char *err, size_t errlen);
void vertex_cover_free(struct vertex_cover *vc);

/* cover[n] covers every edge; y[m] >= 0 packs (sum over v's edges <= w_v +
 * tol); if epsilon >= 0 also w(C) <= 2/(1-epsilon) sum y + tol.  false with
 * the first violation in err. */
bool vertex_cover_check(int n, int m, const int32_t *src, const int32_t *dst, const float *node_w,
                        const uint8_t *cover, const double *y, double epsilon, double tol, char *err, size_t errlen);

/* w(C) = the sum of node_w over the cover, in node order. */
double vertex_cover_weight(int n, const float *node_w, const uint8_t *cover);

#endif
