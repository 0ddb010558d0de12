/* bellman_ford.c - synchronous Bellman-Ford rounds over incidence lists,
 * and the duality check. */
#include "bellman_ford.h"
#include "graph_bfs.h"
#include "die.h"
#include "hint_bound.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One frame's state: the hints' rows, or the two rolling rows without hints. */
static void record_frame(struct bellman_ford *bf, int frame, const double *d, const int32_t *pi, const uint8_t *reached)
{
    if (!bf->hint_d)
        return;
    size_t n = (size_t)bf->n, at = (size_t)frame * n;
    memcpy(bf->hint_d + at, d, sizeof *d * n);
    memcpy(bf->hint_pi + at, pi, sizeof *pi * n);
    memcpy(bf->hint_reached + at, reached, n);
}

bool bellman_ford_trace(struct bellman_ford *bf, int n, int m, const int32_t *src, const int32_t *dst,
                        const float *w, int s, bool hints, size_t max_hint_bytes, char *err, size_t errlen)
{
    memset(bf, 0, sizeof *bf);
    double frames = (double)n + 1;
    if (hints && !hint_bytes_fit(frames * n * (sizeof(double) + sizeof(int32_t) + 1), max_hint_bytes,
                                 "shortest-path", err, errlen))
        return false;
    bf->n = n;
    if (hints) {
        size_t cells = (size_t)(n + 1) * (size_t)n;
        bf->hint_d = xmalloc(sizeof *bf->hint_d * cells);
        bf->hint_pi = xmalloc(sizeof *bf->hint_pi * cells);
        bf->hint_reached = xmalloc(cells);
    }
    struct adjacency adj;
    adjacency_build(&adj, n, m, src, dst);
    double *d = xcalloc((size_t)n, sizeof *d), *next_d = xmalloc(sizeof *next_d * (size_t)n);
    int32_t *pi = xmalloc(sizeof *pi * (size_t)n), *next_pi = xmalloc(sizeof *next_pi * (size_t)n);
    uint8_t *reached = xcalloc((size_t)n, 1), *next_reached = xmalloc((size_t)n);
    for (int v = 0; v < n; v++)
        pi[v] = v;
    reached[s] = 1;
    record_frame(bf, 0, d, pi, reached);
    int steps = 1;
    for (bool changed = true; changed; steps++) {
        changed = false;
        for (int v = 0; v < n; v++) {
            double best = reached[v] ? d[v] : INFINITY;
            int32_t from = pi[v];
            bool improved = false;
            for (int64_t i = adj.off[v]; i < adj.off[v + 1]; i++) {
                int u = adj.nbr[i];
                if (!reached[u])
                    continue;
                double candidate = d[u] + (double)w[adj.edge_of[i]];
                /* strictly better than v's own d, or than an earlier
                 * candidate; a tie between candidates goes to the smaller u */
                if (candidate < best || (improved && candidate == best && u < from)) {
                    best = candidate;
                    from = u;
                    improved = true;
                }
            }
            next_d[v] = improved ? best : d[v];
            next_pi[v] = from;
            next_reached[v] = reached[v] | improved;
            changed |= improved;
        }
        double *x = d; d = next_d; next_d = x;
        int32_t *y = pi; pi = next_pi; next_pi = y;
        uint8_t *z = reached; reached = next_reached; next_reached = z;
        if (steps > n)   /* cannot happen with weights >= 0: n-1 rounds settle every path */
            die(EX_SOFTWARE, "BUG: bellman-ford did not settle in %d rounds", n);
        record_frame(bf, steps, d, pi, reached);
    }
    bf->steps = steps;
    bf->d = d;
    bf->pi = pi;
    bf->reached = reached;
    free(next_d);
    free(next_pi);
    free(next_reached);
    adjacency_free(&adj);
    return true;
}

void bellman_ford_free(struct bellman_ford *bf)
{
    free(bf->hint_d);
    free(bf->hint_pi);
    free(bf->hint_reached);
    free(bf->d);
    free(bf->pi);
    free(bf->reached);
    memset(bf, 0, sizeof *bf);
}

bool bellman_ford_check(int n, int m, const int32_t *src, const int32_t *dst, const float *w, int s,
                        const double *d, const int32_t *pi, const uint8_t *reached, double tol,
                        char *err, size_t errlen)
{
    if (!reached[s] || d[s] != 0 || pi[s] != s) {
        snprintf(err, errlen, "the source %d is not the tree's root at distance 0", s);
        return false;
    }
    for (int e = 0; e < m; e++) {
        int u = src[e], v = dst[e];
        if (reached[u] != reached[v]) {
            snprintf(err, errlen, "edge %d joins reached and unreached nodes %d and %d", e, u, v);
            return false;
        }
        if (reached[u] && (d[v] > d[u] + w[e] + tol || d[u] > d[v] + w[e] + tol)) {
            snprintf(err, errlen, "edge %d (%d-%d, w %.17g) violates the potentials %.17g, %.17g", e, u, v,
                     (double)w[e], d[u], d[v]);
            return false;
        }
    }
    /* tight tree edges: the weight of the pair {pi[v], v} by scanning v's
     * edges, through incidence lists */
    struct adjacency adj;
    adjacency_build(&adj, n, m, src, dst);
    bool ok = true;
    for (int v = 0; v < n && ok; v++) {
        if (!reached[v]) {
            if (pi[v] != v)
                snprintf(err, errlen, "unreached node %d points to %d, not itself", v, pi[v]), ok = false;
            continue;
        }
        if (v == s)
            continue;
        int p = pi[v];
        bool tight = false;
        for (int64_t i = adj.off[v]; i < adj.off[v + 1] && !tight; i++)
            tight = adj.nbr[i] == p && reached[p] && fabs(d[v] - (d[p] + w[adj.edge_of[i]])) <= tol;
        if (!tight)
            snprintf(err, errlen, "node %d points to %d, which is not a tight neighbour", v, p), ok = false;
    }
    /* following pi from any reached node reaches s within n steps */
    for (int v = 0; v < n && ok; v++) {
        int x = v, hops = 0;
        while (reached[v] && x != s && hops++ <= n)
            x = pi[x];
        if (reached[v] && x != s)
            snprintf(err, errlen, "the pointers from node %d do not lead to the source", v), ok = false;
    }
    adjacency_free(&adj);
    return ok;
}
