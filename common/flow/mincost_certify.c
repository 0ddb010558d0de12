/* mincost_certify.c - the optimality certificate of a flow and potentials
 * (see mincost.h): feasibility, maximality, and the duality gap as the sum
 * over residual arcs of residual times negative reduced cost.  It shares no
 * code with the solver, so a test can hold the one against the other. */
#include "mincost.h"
#include "die.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Residual arc a of the flow (mincost.h's numbering). */
static int64_t residual(const struct mincost_net *g, const int64_t *flow, int32_t a)
{
    int e = a >> 1;
    return a & 1 ? flow[e] : g->cap[e] - flow[e];
}

/* Capacity bounds, then conservation; fills value and cost when the
 * bounds hold (their sums then fit: mincost_check bounds them). */
static bool feasible(const struct mincost_net *g, const int64_t *flow, struct mincost_certificate *c)
{
    for (int e = 0; e < g->m; e++)
        if (flow[e] < 0 || flow[e] > g->cap[e])
            return false;
    int64_t *excess = xcalloc((size_t)g->n, sizeof *excess);
    for (int e = 0; e < g->m; e++) {
        excess[g->src[e]] -= flow[e];
        excess[g->dst[e]] += flow[e];
        c->cost += flow[e] * g->cost[e];
    }
    c->value = -excess[g->s];
    bool conserved = true;
    for (int v = 0; v < g->n; v++)
        if (v != g->s && v != g->t && excess[v] != 0)
            conserved = false;
    free(excess);
    return conserved;
}

/* Whether t can be reached from s over residual arcs of positive residual. */
static bool sink_reachable(const struct mincost_net *g, const int64_t *flow)
{
    uint8_t *seen = xcalloc((size_t)g->n, 1);
    int32_t *queue = xmalloc((size_t)g->n * sizeof *queue);
    int head = 0, tail = 0;
    seen[g->s] = 1;
    queue[tail++] = g->s;
    /* n searches over all arcs are fine for a check: no adjacency built */
    while (head < tail) {
        int u = queue[head++];
        for (int32_t a = 0; a < 2 * g->m; a++) {
            int from = a & 1 ? g->dst[a >> 1] : g->src[a >> 1], to = a & 1 ? g->src[a >> 1] : g->dst[a >> 1];
            if (from == u && !seen[to] && residual(g, flow, a) > 0) {
                seen[to] = 1;
                queue[tail++] = to;
            }
        }
    }
    bool reached = seen[g->t];
    free(seen);
    free(queue);
    return reached;
}

static bool fail(struct mincost_error *err, int64_t node, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(struct mincost_error *err, int64_t node, const char *fmt, ...)
{
    err->key = "potential";
    err->index = node;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->what, sizeof err->what, fmt, ap);
    va_end(ap);
    return false;
}

/* The residual arcs of negative reduced cost, and the gap they sum to. */
static bool reduced_costs(const struct mincost_net *g, const int64_t *flow, const int64_t *pi,
                          struct mincost_certificate *c, struct mincost_error *err)
{
    __int128 gap = 0;
    for (int32_t a = 0; a < 2 * g->m; a++) {
        int e = a >> 1, u = a & 1 ? g->dst[e] : g->src[e], v = a & 1 ? g->src[e] : g->dst[e];
        int64_t r = residual(g, flow, a);
        __int128 reduced = (__int128)(a & 1 ? -g->cost[e] : g->cost[e]) + pi[u] - pi[v];
        if (r <= 0 || reduced >= 0)
            continue;
        if (-reduced > INT64_MAX)
            return fail(err, u, "is %lld, which puts the reduced cost of the residual arc to node %d past 2^63",
                        (long long)pi[u], v);
        c->negative_arcs++;
        if (c->worst_arc < 0 || reduced < c->worst_reduced) {
            c->worst_arc = a;
            c->worst_reduced = (int64_t)reduced;
        }
        gap += (__int128)r * -reduced;
        if (gap > INT64_MAX)
            return fail(err, u, "is %lld, which puts the duality gap past 2^63", (long long)pi[u]);
    }
    c->gap = (int64_t)gap;
    return true;
}

bool mincost_certify(const struct mincost_net *g, const int64_t *flow, const int64_t *potential,
                     struct mincost_certificate *c, struct mincost_error *err)
{
    *c = (struct mincost_certificate){.worst_arc = -1};
    if (!mincost_check(g, err))
        return false;
    c->feasible = feasible(g, flow, c);
    if (!c->feasible) {
        c->value = c->cost = 0;
        return true;
    }
    if (!reduced_costs(g, flow, potential, c, err))
        return false;
    c->maximum = !sink_reachable(g, flow);
    c->optimal = c->gap == 0;
    return true;
}
