/* bellman_ford.h - shortest paths from s as synchronous Bellman-Ford rounds,
 * the trace a model learns (issue 23: the primal is the tree pi, the dual
 * the potentials d), and the check of that pair's LP duality.
 *
 * The graph is undirected: edge e joins src[e] and dst[e] with weight
 * w[e] >= 0 both ways.  Frame 0 is the start (s reached, d = 0, pi =
 * identity); each round then relaxes every edge both ways from the values
 * of the frame before (synchronous, as CLRS's bellman_ford), and the trace
 * ends with the first round that changes nothing, so T = rounds + 1 and
 * T <= n + 1.
 *
 * Ties: node v takes the candidate d_u + w_uv that is strictly smaller than
 * its own d (any candidate when v is not yet reached); among equal
 * candidates the smallest u wins.  A node keeps its pointer otherwise.
 *
 * Unreached nodes have d = 0, pi = themselves and reached = 0 in every
 * frame and in the output (CLRS's convention: d = 0 where the mask is 0);
 * pi[s] = s. */
#ifndef DAR_BELLMAN_FORD_H
#define DAR_BELLMAN_FORD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bellman_ford {
    int n, steps;           /* T frames */
    /* hints, NULL when traced without them */
    double *hint_d;         /* [T,n] distance after the frame */
    int32_t *hint_pi;       /* [T,n] predecessor pointers */
    uint8_t *hint_reached;  /* [T,n] 1 where d is a path length */
    /* outputs */
    double *d;              /* [n] shortest distance from s */
    int32_t *pi;            /* [n] the shortest-path tree */
    uint8_t *reached;       /* [n] */
};

/* Trace from s.  w: [m] weights >= 0 (graph_read checks [0,1]).  With hints,
 * refuses (false, the reason in err) a graph whose hints could exceed
 * max_hint_bytes ((n+1) frames of 13 bytes a node) before allocating them.
 * bf is an output; free it with bellman_ford_free. */
bool bellman_ford_trace(struct bellman_ford *bf, int n, int m, const int32_t *src, const int32_t *dst,
                        const float *w, int s, bool hints, size_t max_hint_bytes, char *err, size_t errlen);
void bellman_ford_free(struct bellman_ford *bf);

/* LP duality of (d, pi) from s: d_s = 0; every edge with a reached end has
 * both ends reached and d_v <= d_u + w_uv both ways (the potentials are
 * feasible); every reached v != s has an edge to pi[v] with d_v = d_pi[v] +
 * w (the tree is tight) and following pi leads to s (a tree); an unreached
 * v has pi[v] = v.  tol absorbs round-off of other summation orders.  false
 * with the first violation in err. */
bool bellman_ford_check(int n, int m, const int32_t *src, const int32_t *dst, const float *w, int s,
                        const double *d, const int32_t *pi, const uint8_t *reached, double tol,
                        char *err, size_t errlen);

#endif
