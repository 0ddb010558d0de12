/* mincost.c - minimum-cost maximum flow by successive shortest paths (see
 * mincost.h): the instance checks, the Bellman-Ford start of the
 * potentials, and the rounds of Dijkstra and augmentation with their trace
 * (or the rounds trace's relaxation rounds in Dijkstra's place).
 *
 * Dijkstra picks the next node by scanning all n instead of keeping a heap:
 * the graphs traced are small, every round is already a frame of n nodes,
 * and the scan makes the tie rule (smaller distance, then smaller index)
 * plain to read and to reproduce in an oracle. */
#include "mincost.h"
#include "die.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Arc indices are int32 and every arc becomes two residual arcs. */
#define MINCOST_MAX_ARCS (INT32_MAX / 2)
/* With C the sum of |cost| over arcs of positive capacity, every simple
 * residual path costs within [-C, C].  The potentials start in [-C, 0] and
 * pi(s) never moves; a round raises pi(v) by at most what it raises pi(t),
 * and pi(t) - pi(s) is t's true distance, so every pi stays in [-C, 2C],
 * reduced costs within 4C, distances within 2C and a Dijkstra candidate
 * within 6C: C <= 2^58 keeps all of them inside int64 with room. */
#define MINCOST_MAX_COST_SUM ((int64_t)1 << 58)

/* A bad shape is a bug in the caller (the record readers refuse bad
 * records with exit 65), as in maxflow.c's flownet_check. */
static void shape_check(const struct mincost_net *g, const char *caller)
{
    if (g->n < 2 || g->m < 0 || g->m > MINCOST_MAX_ARCS)
        die(EX_SOFTWARE, "%s: network with %d nodes and %d arcs is out of range", caller, g->n, g->m);
    if (g->s < 0 || g->s >= g->n || g->t < 0 || g->t >= g->n || g->s == g->t)
        die(EX_SOFTWARE, "%s: source %d and sink %d must be distinct nodes of %d", caller, g->s, g->t, g->n);
    for (int e = 0; e < g->m; e++)
        if (g->src[e] < 0 || g->src[e] >= g->n || g->dst[e] < 0 || g->dst[e] >= g->n || g->src[e] == g->dst[e])
            die(EX_SOFTWARE, "%s: arc %d joins %d and %d in a network of %d nodes", caller, e, (int)g->src[e],
                (int)g->dst[e], g->n);
}

static bool fail(struct mincost_error *err, const char *key, int64_t index, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool fail(struct mincost_error *err, const char *key, int64_t index, const char *fmt, ...)
{
    err->key = key;
    err->index = index;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->what, sizeof err->what, fmt, ap);
    va_end(ap);
    return false;
}

/* The starting potentials: shortest distances from a virtual node joined to
 * every node at cost 0, over the arcs of positive capacity (the residual
 * graph of the zero flow).  They leave no residual arc of negative reduced
 * cost, so Dijkstra can run from the first round.  A pass that still
 * improves after n-1 finds a cycle of negative cost. */
static bool start_potentials(const struct mincost_net *g, int64_t *pi, struct mincost_error *err)
{
    memset(pi, 0, (size_t)g->n * sizeof *pi);
    for (int pass = 0; pass < g->n; pass++) {
        int improved = -1;
        for (int e = 0; e < g->m; e++) {
            int u = g->src[e], v = g->dst[e];
            if (g->cap[e] > 0 && pi[u] + g->cost[e] < pi[v]) {
                pi[v] = pi[u] + g->cost[e];
                if (improved < 0)
                    improved = e;
            }
        }
        if (improved < 0)
            return true;
        if (pass == g->n - 1)
            return fail(err, "cost", improved,
                        "still lowers a distance after %d passes: the arcs of positive capacity hold a cycle of "
                        "negative cost, which successive shortest paths cannot start from (costs may be negative "
                        "on a DAG)", g->n);
    }
    return true;
}

bool mincost_check(const struct mincost_net *g, struct mincost_error *err)
{
    shape_check(g, "mincost_check");
    int64_t cap_sum = 0, cost_cap_sum = 0, cost_sum = 0;
    for (int e = 0; e < g->m; e++) {
        int64_t cap = g->cap[e], cost = g->cost[e], size;
        if (cap < 0)
            return fail(err, "cap", e, "is %lld, expected a capacity >= 0", (long long)cap);
        if (__builtin_add_overflow(cap_sum, cap, &cap_sum))
            return fail(err, "cap", e, "brings the capacities' sum past 2^63: a flow's value would not fit");
        if (cap == 0)
            continue;
        if (cost < -MINCOST_MAX_COST_SUM || cost > MINCOST_MAX_COST_SUM)
            return fail(err, "cost", e, "is %lld units, beyond 2^58: potentials would not fit the exact scale",
                        (long long)cost);
        int64_t magnitude = cost < 0 ? -cost : cost;
        cost_sum += magnitude;
        if (cost_sum > MINCOST_MAX_COST_SUM)
            return fail(err, "cost", e, "brings the sum of |cost| past 2^58 units: potentials would not fit the "
                        "exact scale");
        if (__builtin_mul_overflow(magnitude, cap, &size) || __builtin_add_overflow(cost_cap_sum, size, &cost_cap_sum))
            return fail(err, "cost", e, "times its capacity brings sum |cost| * cap past 2^63: a flow's cost "
                        "would not fit the exact scale");
    }
    int64_t *pi = xmalloc((size_t)g->n * sizeof *pi);
    bool ok = start_potentials(g, pi, err);
    free(pi);
    return ok;
}

/* ---- the rounds ---------------------------------------------------------- */

/* The residual graph: arcs 2e and 2e+1 (mincost.h), listed by tail in
 * increasing order (the tie rule's "lower residual arc"). */
struct work {
    int n, m;
    int32_t *first;             /* [n+1] */
    int32_t *out;               /* [2m] residual arcs by tail */
    int64_t *residual;          /* [2m] */
    int64_t *distance;          /* [n] */
    int32_t *pointer, *pointer_arc;   /* [n] */
    uint8_t *settled;           /* [n] */
    int64_t *before;            /* [n] a relaxation round's distances before it */
};

static inline int arc_tail(const struct mincost_net *g, int32_t a)
{
    return a & 1 ? g->dst[a >> 1] : g->src[a >> 1];
}

static inline int arc_head(const struct mincost_net *g, int32_t a)
{
    return a & 1 ? g->src[a >> 1] : g->dst[a >> 1];
}

static inline int64_t arc_cost(const struct mincost_net *g, int32_t a)
{
    return a & 1 ? -g->cost[a >> 1] : g->cost[a >> 1];
}

static void work_init(struct work *w, const struct mincost_net *g)
{
    int n = g->n, arcs = 2 * g->m;
    w->n = n;
    w->m = g->m;
    w->first = xcalloc((size_t)n + 1, sizeof *w->first);
    w->out = xmalloc(((size_t)arcs + 1) * sizeof *w->out);
    w->residual = xmalloc(((size_t)arcs + 1) * sizeof *w->residual);
    w->distance = xmalloc((size_t)n * sizeof *w->distance);
    w->pointer = xmalloc((size_t)n * sizeof *w->pointer);
    w->pointer_arc = xmalloc((size_t)n * sizeof *w->pointer_arc);
    w->settled = xmalloc((size_t)n);
    w->before = xmalloc((size_t)n * sizeof *w->before);
    for (int32_t a = 0; a < arcs; a++) {
        w->first[arc_tail(g, a) + 1]++;
        w->residual[a] = a & 1 ? 0 : g->cap[a >> 1];
    }
    for (int v = 0; v < n; v++)
        w->first[v + 1] += w->first[v];
    int32_t *next = xmalloc((size_t)n * sizeof *next);
    memcpy(next, w->first, (size_t)n * sizeof *next);
    for (int32_t a = 0; a < arcs; a++)
        w->out[next[arc_tail(g, a)]++] = a;
    free(next);
}

static void work_free(struct work *w)
{
    free(w->first);
    free(w->out);
    free(w->residual);
    free(w->distance);
    free(w->pointer);
    free(w->pointer_arc);
    free(w->settled);
    free(w->before);
}

/* A search's start: only s labelled, at 0; every node its own pointer. */
static void search_begin(const struct mincost_net *g, struct work *w)
{
    for (int v = 0; v < g->n; v++) {
        w->distance[v] = MINCOST_UNREACHED;
        w->pointer[v] = v;
        w->pointer_arc[v] = -1;
        w->settled[v] = 0;
    }
    w->distance[g->s] = 0;
}

/* Dijkstra from s on the reduced costs c(a) + pi(tail) - pi(head) >= 0 of
 * the residual arcs left; returns whether t is reached. */
static bool shortest_paths(const struct mincost_net *g, struct work *w, const int64_t *pi)
{
    int n = g->n;
    search_begin(g, w);
    for (;;) {
        int u = -1;
        for (int v = 0; v < n; v++)
            if (!w->settled[v] && w->distance[v] != MINCOST_UNREACHED && (u < 0 || w->distance[v] < w->distance[u]))
                u = v;
        if (u < 0)
            break;
        w->settled[u] = 1;
        for (int32_t i = w->first[u]; i < w->first[u + 1]; i++) {
            int32_t a = w->out[i];
            int v = arc_head(g, a);
            if (w->residual[a] <= 0 || w->settled[v])
                continue;
            int64_t candidate = w->distance[u] + arc_cost(g, a) + pi[u] - pi[v];
            if (candidate < w->distance[v]) {
                w->distance[v] = candidate;
                w->pointer[v] = u;
                w->pointer_arc[v] = a;
            }
        }
    }
    return w->distance[g->t] != MINCOST_UNREACHED;
}

/* One synchronous relaxation round (mincost.h, the rounds trace): the
 * offers read the distances before the round, tails in increasing order and
 * each tail's arcs in increasing order, so that a strict improvement over
 * the label so far keeps the first of the least offers; returns whether a
 * label changed.  Reduced costs are >= 0, so no offer reaches s below 0. */
static bool relax_round(const struct mincost_net *g, struct work *w, const int64_t *pi)
{
    int n = g->n;
    bool changed = false;
    memcpy(w->before, w->distance, (size_t)n * sizeof *w->before);
    for (int u = 0; u < n; u++) {
        if (w->before[u] == MINCOST_UNREACHED)
            continue;
        for (int32_t i = w->first[u]; i < w->first[u + 1]; i++) {
            int32_t a = w->out[i];
            int v = arc_head(g, a);
            if (w->residual[a] <= 0)
                continue;
            int64_t offer = w->before[u] + arc_cost(g, a) + pi[u] - pi[v];
            if (offer < w->distance[v]) {
                w->distance[v] = offer;
                w->pointer[v] = u;
                w->pointer_arc[v] = a;
                changed = true;
            }
        }
    }
    return changed;
}

/* pi += min(d, d(t)) at every node (unreached ones: d(t)).  Reduced costs
 * stay >= 0 on every residual arc, and those of the shortest path to t
 * become 0, so the arcs its augmentation opens backwards are >= 0 too. */
static void raise_potentials(const struct mincost_net *g, const struct work *w, int64_t *pi)
{
    int64_t dt = w->distance[g->t];
    for (int v = 0; v < g->n; v++)
        pi[v] += w->distance[v] < dt ? w->distance[v] : dt;
}

/* Push the bottleneck along the pointers from t; returns the amount. */
static int64_t augment(const struct mincost_net *g, struct work *w)
{
    int64_t amount = INT64_MAX;
    int length = 0;
    for (int v = g->t; v != g->s; v = arc_tail(g, w->pointer_arc[v])) {
        if (length++ == g->n)
            die(EX_SOFTWARE, "mincost_flow: shortest-path pointers do not lead back to the source");
        if (w->residual[w->pointer_arc[v]] < amount)
            amount = w->residual[w->pointer_arc[v]];
    }
    for (int v = g->t; v != g->s; v = arc_tail(g, w->pointer_arc[v])) {
        w->residual[w->pointer_arc[v]] -= amount;
        w->residual[w->pointer_arc[v] ^ 1] += amount;
    }
    return amount;
}

/* ---- the trace ----------------------------------------------------------- */

static size_t round_bytes(int n, int m)
{
    return (size_t)n * (sizeof(int64_t) * 2 + sizeof(int32_t) * 2) + (size_t)m * sizeof(int64_t) + sizeof(int64_t);
}

/* Room for one more round (a frame of the rounds trace, phased: with its
 * kind), doubling; false when it would pass the limit. */
static bool trace_reserve(struct mincost_trace *tr, size_t max_bytes, bool phased)
{
    size_t n = (size_t)tr->n, m = (size_t)tr->m;
    if (max_bytes && (size_t)(tr->rounds + 1) * (round_bytes(tr->n, tr->m) + phased) + n * sizeof(int64_t) >
                         max_bytes)
        return false;
    if (tr->rounds < tr->capacity)
        return true;
    tr->capacity = tr->capacity ? 2 * tr->capacity : 8;
    size_t rounds = (size_t)tr->capacity;
    tr->distance = xrealloc(tr->distance, rounds * n * sizeof *tr->distance);
    tr->pointer = xrealloc(tr->pointer, rounds * n * sizeof *tr->pointer);
    tr->pointer_arc = xrealloc(tr->pointer_arc, rounds * n * sizeof *tr->pointer_arc);
    tr->potential = xrealloc(tr->potential, (rounds + 1) * n * sizeof *tr->potential);
    tr->flow = xrealloc(tr->flow, (rounds * m + 1) * sizeof *tr->flow);
    tr->amount = xrealloc(tr->amount, rounds * sizeof *tr->amount);
    if (phased)
        tr->phase = xrealloc(tr->phase, rounds);
    return true;
}

/* The round just run: its search, the potentials and flow after it. */
static void trace_push(struct mincost_trace *tr, const struct work *w, const int64_t *pi, int64_t amount)
{
    size_t n = (size_t)tr->n, m = (size_t)tr->m, r = (size_t)tr->rounds;
    memcpy(tr->distance + r * n, w->distance, n * sizeof *tr->distance);
    memcpy(tr->pointer + r * n, w->pointer, n * sizeof *tr->pointer);
    memcpy(tr->pointer_arc + r * n, w->pointer_arc, n * sizeof *tr->pointer_arc);
    memcpy(tr->potential + (r + 1) * n, pi, n * sizeof *tr->potential);
    for (size_t e = 0; e < m; e++)
        tr->flow[r * m + e] = w->residual[2 * e + 1];
    tr->amount[r] = amount;
    tr->rounds++;
}

void mincost_trace_free(struct mincost_trace *tr)
{
    free(tr->distance);
    free(tr->pointer);
    free(tr->pointer_arc);
    free(tr->potential);
    free(tr->flow);
    free(tr->amount);
    free(tr->phase);
    memset(tr, 0, sizeof *tr);
}

void mincost_solution_free(struct mincost_solution *sol)
{
    free(sol->flow);
    free(sol->potential);
    memset(sol, 0, sizeof *sol);
}

/* A frame of the rounds trace of the given kind, when tracing; false with
 * err once it would pass the limit. */
static bool trace_frame(struct mincost_trace *tr, const struct work *w, const int64_t *pi, int64_t amount,
                        int phase, size_t max_bytes, struct mincost_error *err)
{
    if (!tr)
        return true;
    if (!trace_reserve(tr, max_bytes, true))
        return fail(err, NULL, -1, "frame %d would take the trace past %zu bytes", tr->rounds + 1, max_bytes);
    tr->phase[tr->rounds] = (uint8_t)phase;
    trace_push(tr, w, pi, amount);
    return true;
}

/* A search by relaxation rounds (mincost.h, the rounds trace), its frames
 * into tr: the start, then one a round that changes a label. */
static bool search_rounds(const struct mincost_net *g, struct work *w, const int64_t *pi, struct mincost_trace *tr,
                          size_t max_bytes, struct mincost_error *err)
{
    search_begin(g, w);
    if (!trace_frame(tr, w, pi, 0, MINCOST_PHASE_SEARCH, max_bytes, err))
        return false;
    while (relax_round(g, w, pi))
        if (!trace_frame(tr, w, pi, 0, MINCOST_PHASE_SEARCH, max_bytes, err))
            return false;
    return true;
}

/* ---- the call ------------------------------------------------------------ */

bool mincost_flow(const struct mincost_net *g, struct mincost_solution *sol, struct mincost_trace *tr,
                  size_t max_trace_bytes, struct mincost_error *err)
{
    return mincost_flow_as(g, sol, tr, false, max_trace_bytes, err);
}

bool mincost_flow_as(const struct mincost_net *g, struct mincost_solution *sol, struct mincost_trace *tr,
                     bool rounds, size_t max_trace_bytes, struct mincost_error *err)
{
    memset(sol, 0, sizeof *sol);
    if (tr)
        *tr = (struct mincost_trace){.n = g->n, .m = g->m};
    if (!mincost_check(g, err))
        return false;
    int64_t *pi = xmalloc((size_t)g->n * sizeof *pi);
    start_potentials(g, pi, err);
    struct work w;
    work_init(&w, g);
    bool ok = true, more = true;
    if (tr && trace_reserve(tr, max_trace_bytes, rounds))
        memcpy(tr->potential, pi, (size_t)g->n * sizeof *pi);
    while (more) {
        if (rounds) {
            if (!(ok = search_rounds(g, &w, pi, tr, max_trace_bytes, err)))
                break;
            more = w.distance[g->t] != MINCOST_UNREACHED;
        } else {
            if (tr && !trace_reserve(tr, max_trace_bytes, false)) {
                ok = fail(err, NULL, -1, "round %d would take the trace past %zu bytes", tr->rounds + 1,
                          max_trace_bytes);
                break;
            }
            more = shortest_paths(g, &w, pi);
        }
        int64_t amount = 0;
        if (more) {
            raise_potentials(g, &w, pi);
            amount = augment(g, &w);
            sol->value += amount;
        }
        sol->rounds++;
        /* the rounds trace: the augmentation's frame; its last search has none */
        if (rounds && more && !(ok = trace_frame(tr, &w, pi, amount, MINCOST_PHASE_AUGMENT, max_trace_bytes, err)))
            break;
        if (!rounds && tr)
            trace_push(tr, &w, pi, amount);
    }
    if (ok) {
        sol->flow = xmalloc(((size_t)g->m + 1) * sizeof *sol->flow);
        for (int e = 0; e < g->m; e++) {
            sol->flow[e] = w.residual[2 * e + 1];
            sol->cost += sol->flow[e] * g->cost[e];   /* within int64: mincost_check's sum |cost| * cap */
        }
        sol->potential = pi;
    } else {
        free(pi);
        sol->value = 0;
        sol->rounds = 0;
        if (tr)
            mincost_trace_free(tr);
    }
    work_free(&w);
    return ok;
}
