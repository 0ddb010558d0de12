/* vertex_cover.c - the uniform-increase primal-dual rounds and the check of
 * a cover and a packing. */
#include "vertex_cover.h"
#include "die.h"
#include "graph_bfs.h"
#include "hint_bound.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void record_frame(struct vertex_cover *vc, int t, const double *r, const uint8_t *in, const double *delta,
                         const uint8_t *live)
{
    if (!vc->hint_residual)
        return;
    size_t n = (size_t)vc->n, m = (size_t)vc->m;
    memcpy(vc->hint_residual + t * n, r, sizeof *r * n);
    memcpy(vc->hint_in_cover + t * n, in, n);
    memcpy(vc->hint_delta + t * m, delta, sizeof *delta * m);
    memcpy(vc->hint_live + t * m, live, m);
}

bool vertex_cover_trace(struct vertex_cover *vc, int n, int m, const int32_t *src, const int32_t *dst,
                        const float *node_w, double epsilon, bool hints, size_t max_hint_bytes,
                        char *err, size_t errlen)
{
    memset(vc, 0, sizeof *vc);
    if (hints && !hint_bytes_fit(((double)n + 1) * 9.0 * ((double)n + m), max_hint_bytes, "vertex-cover", err, errlen))
        return false;
    vc->n = n;
    vc->m = m;
    size_t frames = (size_t)n + 1, m1 = (size_t)(m ? m : 1);
    if (hints) {
        vc->hint_residual = xmalloc(sizeof *vc->hint_residual * frames * (size_t)n);
        vc->hint_in_cover = xmalloc(frames * (size_t)n);
        vc->hint_delta = xmalloc(sizeof *vc->hint_delta * frames * m1);
        vc->hint_live = xmalloc(frames * m1);
    }
    vc->cover = xcalloc((size_t)n, 1);
    vc->packing = xcalloc(m1, sizeof *vc->packing);
    double *r = xmalloc(sizeof *r * (size_t)n), *delta = xcalloc(m1, sizeof *delta);
    int32_t *degree = xcalloc((size_t)n, sizeof *degree);
    uint8_t *live = xmalloc(m1), *joining = xmalloc((size_t)n);
    struct adjacency adj;
    adjacency_build(&adj, n, m, src, dst);
    int live_count = m;
    for (int v = 0; v < n; v++)
        r[v] = node_w[v];
    memset(live, 1, (size_t)m);
    record_frame(vc, 0, r, vc->cover, delta, live);
    int steps = 1;
    while (live_count > 0) {
        if (steps > n)   /* the node of least r/d joins every round */
            die(EX_SOFTWARE, "BUG: vertex cover did not finish in %d rounds", n);
        memset(degree, 0, sizeof *degree * (size_t)n);
        for (int e = 0; e < m; e++)
            if (live[e])
                degree[src[e]]++, degree[dst[e]]++;
        for (int e = 0; e < m; e++) {
            int u = src[e], v = dst[e];
            delta[e] = live[e] ? fmin(r[u] / degree[u], r[v] / degree[v]) : 0.0;
        }
        for (int v = 0; v < n; v++) {
            joining[v] = 0;
            if (vc->cover[v])
                continue;
            double paid = 0;
            for (int64_t i = adj.off[v]; i < adj.off[v + 1]; i++)
                if (live[adj.edge_of[i]])
                    paid += delta[adj.edge_of[i]];
            r[v] -= paid;
            joining[v] = r[v] <= epsilon * node_w[v];
        }
        for (int e = 0; e < m; e++) {
            vc->packing[e] += delta[e];
            if (live[e] && (joining[src[e]] || joining[dst[e]]))
                live[e] = 0, live_count--;
        }
        for (int v = 0; v < n; v++)
            vc->cover[v] |= joining[v];
        record_frame(vc, steps++, r, vc->cover, delta, live);
    }
    vc->steps = steps;
    adjacency_free(&adj);
    free(r);
    free(delta);
    free(degree);
    free(live);
    free(joining);
    return true;
}

void vertex_cover_free(struct vertex_cover *vc)
{
    free(vc->hint_residual);
    free(vc->hint_in_cover);
    free(vc->hint_delta);
    free(vc->hint_live);
    free(vc->cover);
    free(vc->packing);
    memset(vc, 0, sizeof *vc);
}

double vertex_cover_weight(int n, const float *node_w, const uint8_t *cover)
{
    double total = 0;
    for (int v = 0; v < n; v++)
        if (cover[v])
            total += node_w[v];
    return total;
}

bool vertex_cover_check(int n, int m, const int32_t *src, const int32_t *dst, const float *node_w,
                        const uint8_t *cover, const double *y, double epsilon, double tol, char *err, size_t errlen)
{
    double *load = xcalloc((size_t)n, sizeof *load), total = 0;
    bool ok = true;
    for (int e = 0; e < m && ok; e++) {
        if (!cover[src[e]] && !cover[dst[e]])
            snprintf(err, errlen, "edge %d (%d-%d) is not covered", e, src[e], dst[e]), ok = false;
        else if (!(y[e] >= 0))
            snprintf(err, errlen, "the packing is %g on edge %d", y[e], e), ok = false;
        load[src[e]] += y[e];
        load[dst[e]] += y[e];
        total += y[e];
    }
    for (int v = 0; v < n && ok; v++)
        if (load[v] > node_w[v] + tol)
            snprintf(err, errlen, "the packing loads node %d with %.17g, over its weight %.17g", v, load[v],
                     (double)node_w[v]), ok = false;
    double weight = vertex_cover_weight(n, node_w, cover);
    if (ok && epsilon >= 0 && weight > 2.0 / (1.0 - epsilon) * total + tol)
        snprintf(err, errlen, "the cover weighs %.17g, over 2/(1-eps) times the packing's %.17g", weight, total),
            ok = false;
    free(load);
    return ok;
}
