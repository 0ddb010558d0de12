/* maxflow.c - maximum flow three ways (see maxflow.h): the Ford-Fulkerson
 * trace the model learns from, Dinic's algorithm for big graphs, and an
 * Edmonds-Karp oracle that shares no code with either, for the tests.
 *
 * Capacities and flows are int64, so every augmentation moves at least one
 * whole unit, nothing is lost to round-off and every flow returned is exactly
 * maximum.  Only the trace's Bellman-Ford distances are doubles: they choose
 * which path is augmented, never by how much.
 *
 * Sums of capacities must fit in int64 (they do for any real graph: 2^62 is
 * 4.6e18); nothing here checks for overflow. */
#include "maxflow.h"
#include "die.h"
#include "graph.h"
#include <math.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define DENSE_ROWS 1          /* where the CPU has AVX2 (dense_rows_here) */
#endif
#include <stdlib.h>
#include <string.h>

/* Arc indices are int32 and every edge becomes two arcs. */
#define MAXFLOW_MAX_EDGES (INT32_MAX / 2)

struct flownet flownet_from_graph(const struct graph *g, const int64_t *cap)
{
    return (struct flownet){.n = g->n, .m = g->m, .s = g->s, .t = g->t, .directed = g->directed,
                            .src = g->src, .dst = g->dst, .cap = cap, .w = g->w};
}

/* Every entry point checks its network the same way: a bad one is a bug in
 * the caller (graph_read() rejects bad records with exit 65), so it dies
 * with EX_SOFTWARE instead of returning a wrong answer or reading out of
 * bounds. */
static void flownet_check(const struct flownet *g, const char *caller)
{
    if (g->n < 2 || g->m < 0 || g->m > MAXFLOW_MAX_EDGES)
        die(EX_SOFTWARE, "%s: network with %d nodes and %d edges is out of range", caller, g->n, g->m);
    if (g->s < 0 || g->s >= g->n || g->t < 0 || g->t >= g->n || g->s == g->t)
        die(EX_SOFTWARE, "%s: source %d and sink %d must be distinct nodes of %d", caller, g->s, g->t, g->n);
    for (int e = 0; e < g->m; e++) {
        if (g->src[e] < 0 || g->src[e] >= g->n || g->dst[e] < 0 || g->dst[e] >= g->n || g->src[e] == g->dst[e])
            die(EX_SOFTWARE, "%s: edge %d joins %d and %d in a network of %d nodes", caller, e,
                (int)g->src[e], (int)g->dst[e], g->n);
        if (g->cap[e] < 0)
            die(EX_SOFTWARE, "%s: edge %d has negative capacity %lld", caller, e, (long long)g->cap[e]);
    }
}

/* Residual capacity of edge e leaving its endpoint `from` (see maxflow.h):
 * forwards it is cap - f either way; backwards an undirected edge can take
 * its whole capacity the other way as well (cap + f), an arc only its flow
 * back (f).  flow may be NULL for the zero flow. */
static inline int64_t edge_residual(const struct flownet *g, const int64_t *flow, int e, int from)
{
    int64_t f = flow ? flow[e] : 0;
    if (from == g->src[e])
        return g->cap[e] - f;
    return g->directed ? f : g->cap[e] + f;
}

/* ---- the residual graph shared by maxflow_fast and mincut_from_flow ------ */

/* Compressed sparse rows: the arcs leaving v are first[v] .. first[v+1]-1,
 * one pair of arcs per edge, built once, no allocation per edge.  Each arc
 * also carries a copy of its reverse arc's residual so that the search from
 * t, which asks "can this neighbour reach me?", reads one node's arcs in
 * sequence instead of jumping to a random reverse arc for every one. */
struct residual_arc {
    int64_t residual;           /* capacity left along this arc */
    int64_t reverse_residual;   /* == arcs[reverse].residual, kept in step */
    int32_t head;
    int32_t reverse;            /* the arc head -> tail */
};

struct residual_graph {
    int n;
    int32_t *first;             /* [n+1] */
    struct residual_arc *arcs;  /* [2m] */
    int32_t *edge_arc;          /* [m] the arc src[e] -> dst[e] of edge e */
};

static void residual_graph_build(struct residual_graph *rg, const struct flownet *g, const int64_t *flow)
{
    int n = g->n, m = g->m;
    rg->n = n;
    rg->first = xcalloc((size_t)n + 1, sizeof *rg->first);
    rg->arcs = xmalloc(((size_t)2 * m + 1) * sizeof *rg->arcs);
    rg->edge_arc = xmalloc(((size_t)m + 1) * sizeof *rg->edge_arc);
    for (int e = 0; e < m; e++) {
        rg->first[g->src[e] + 1]++;
        rg->first[g->dst[e] + 1]++;
    }
    for (int v = 0; v < n; v++)
        rg->first[v + 1] += rg->first[v];
    int32_t *next_free = xmalloc((size_t)n * sizeof *next_free);
    memcpy(next_free, rg->first, (size_t)n * sizeof *next_free);
    for (int e = 0; e < m; e++) {
        int u = g->src[e], v = g->dst[e];
        int32_t forward = next_free[u]++, backward = next_free[v]++;
        int64_t forward_residual = edge_residual(g, flow, e, u);
        int64_t backward_residual = edge_residual(g, flow, e, v);
        rg->arcs[forward] = (struct residual_arc){ forward_residual, backward_residual, v, backward };
        rg->arcs[backward] = (struct residual_arc){ backward_residual, forward_residual, u, forward };
        rg->edge_arc[e] = forward;
    }
    free(next_free);
}

static void residual_graph_free(struct residual_graph *rg)
{
    free(rg->first);
    free(rg->arcs);
    free(rg->edge_arc);
}

static inline void arc_push(struct residual_arc *arcs, int32_t a, int64_t amount)
{
    struct residual_arc *forward = &arcs[a], *backward = &arcs[forward->reverse];
    forward->residual -= amount;
    forward->reverse_residual += amount;
    backward->residual += amount;
    backward->reverse_residual -= amount;
}

/* Breadth-first search backwards from t over arcs with residual > 0:
 * level[v] = residual distance from v to t, or -1 when v cannot reach t.
 * Stops as soon as stop_at gets its level (pass -1 to label every node),
 * since Dinic only walks levels below the source's; returns whether stop_at
 * was labelled.  queue has room for n nodes. */
static bool label_distance_to_sink(const struct residual_graph *rg, int t, int stop_at, int32_t *level,
                                   int32_t *queue)
{
    memset(level, 0xff, (size_t)rg->n * sizeof *level);
    int head = 0, tail = 0;
    level[t] = 0;
    queue[tail++] = t;
    while (head < tail) {
        int32_t x = queue[head++], next_level = level[x] + 1;
        for (int32_t a = rg->first[x], end = rg->first[x + 1]; a < end; a++) {
            const struct residual_arc *arc = &rg->arcs[a];
            if (arc->reverse_residual > 0 && level[arc->head] < 0) {
                level[arc->head] = next_level;
                if (arc->head == stop_at)
                    return true;
                queue[tail++] = arc->head;
            }
        }
    }
    return false;
}

void mincut_from_flow(const struct flownet *g, const int64_t *flow, uint8_t *cut)
{
    flownet_check(g, "mincut_from_flow");
    struct residual_graph rg;
    residual_graph_build(&rg, g, flow);
    int32_t *level = xmalloc((size_t)g->n * sizeof *level);
    int32_t *queue = xmalloc((size_t)g->n * sizeof *queue);
    label_distance_to_sink(&rg, g->t, -1, level, queue);
    for (int v = 0; v < g->n; v++)
        cut[v] = level[v] >= 0;
    free(level);
    free(queue);
    residual_graph_free(&rg);
}

/* ---- maxflow_fast: Dinic ------------------------------------------------- */

/* Why Dinic: see the timings at maxflow_fast().  Its one expensive step is
 * finding the layers, and on the target graphs (random, small diameter)
 * the distance from s to t grows by one per phase to 20-30 while a search
 * from t alone sweeps almost the whole graph every time.  So the layers come
 * from a bidirectional search, each step growing whichever ball has the
 * smaller frontier; near-saturated terminals have thin balls, so both stay
 * small.
 *
 * Layers: p(v) = d_s(v) for nodes labelled from s, L - d_t(v) for nodes
 * labelled from t (L = the s-t distance), -1 for the rest.  Every shortest
 * path has p = 0, 1, .., L along it, and p(y) <= p(x) + 1 on every residual
 * arc (using d_s + d_t >= L), so blocking all admissible paths (p + 1 each
 * step) blocks every shortest path and the distance grows, as in Dinic's
 * own argument; dead ends on the s side are closed by the DFS. */

enum { UNLABELLED = 0, FROM_SOURCE = 1, TO_SINK = 2 };

/* Fills level with p(v) and returns L, or -1 when t cannot be reached. */
static int label_layers(const struct residual_graph *rg, int s, int t, int32_t *level, uint8_t *side,
                        int32_t *queue_source, int32_t *queue_sink)
{
    memset(side, UNLABELLED, (size_t)rg->n);
    memset(level, 0xff, (size_t)rg->n * sizeof *level);
    side[s] = FROM_SOURCE, level[s] = 0, queue_source[0] = s;
    side[t] = TO_SINK, level[t] = 0, queue_sink[0] = t;
    int source_begin = 0, source_end = 1, sink_begin = 0, sink_end = 1, source_radius = 0, sink_radius = 0;
    int distance = INT32_MAX;
    /* Finish the level in which the balls first touch: the shortest
     * connection may come from any node of it. */
    while (distance == INT32_MAX) {
        int source_frontier = source_end - source_begin, sink_frontier = sink_end - sink_begin;
        if (source_frontier == 0 || sink_frontier == 0)
            return -1;
        if (source_frontier <= sink_frontier) {
            int end = source_end;
            for (int i = source_begin; i < end; i++) {
                int32_t x = queue_source[i];
                for (int32_t a = rg->first[x]; a < rg->first[x + 1]; a++) {
                    const struct residual_arc *arc = &rg->arcs[a];
                    if (arc->residual <= 0)
                        continue;
                    if (side[arc->head] == UNLABELLED) {
                        side[arc->head] = FROM_SOURCE;
                        level[arc->head] = source_radius + 1;
                        queue_source[source_end++] = arc->head;
                    } else if (side[arc->head] == TO_SINK && source_radius + 1 + level[arc->head] < distance) {
                        distance = source_radius + 1 + level[arc->head];
                    }
                }
            }
            source_begin = end;
            source_radius++;
        } else {
            int end = sink_end;
            for (int i = sink_begin; i < end; i++) {
                int32_t x = queue_sink[i];
                for (int32_t a = rg->first[x]; a < rg->first[x + 1]; a++) {
                    const struct residual_arc *arc = &rg->arcs[a];
                    if (arc->reverse_residual <= 0)
                        continue;
                    if (side[arc->head] == UNLABELLED) {
                        side[arc->head] = TO_SINK;
                        level[arc->head] = sink_radius + 1;
                        queue_sink[sink_end++] = arc->head;
                    } else if (side[arc->head] == FROM_SOURCE && level[arc->head] + 1 + sink_radius < distance) {
                        distance = level[arc->head] + 1 + sink_radius;
                    }
                }
            }
            sink_begin = end;
            sink_radius++;
        }
    }
    for (int i = 0; i < sink_end; i++)
        level[queue_sink[i]] = distance - level[queue_sink[i]];
    return distance;
}

/* One blocking flow over the layers: advance along admissible arcs (p one
 * higher), augment on reaching t and restart from the tail of the first
 * saturated arc, retreat from (and close) nodes with no admissible arc left.
 * current[v] is the first arc of v not yet known useless in this phase. */
static int64_t dinic_blocking_flow(struct residual_graph *rg, int s, int t, int32_t *level, int32_t *current,
                                   int32_t *path_nodes, int32_t *path_arcs)
{
    struct residual_arc *arcs = rg->arcs;
    int64_t pushed = 0;
    int depth = 0, v = s;
    for (;;) {
        if (v == t) {
            int64_t amount = INT64_MAX;
            int first_saturated = 0;
            for (int i = 0; i < depth; i++)
                if (arcs[path_arcs[i]].residual < amount) {
                    amount = arcs[path_arcs[i]].residual;
                    first_saturated = i;
                }
            for (int i = 0; i < depth; i++)
                arc_push(arcs, path_arcs[i], amount);
            pushed += amount;
            depth = first_saturated;
            v = path_nodes[depth];
            continue;
        }
        int32_t a = current[v], end = rg->first[v + 1], wanted = level[v] + 1;
        while (a < end && !(arcs[a].residual > 0 && level[arcs[a].head] == wanted))
            a++;
        current[v] = a;
        if (a < end) {
            path_nodes[depth] = v;
            path_arcs[depth] = a;
            depth++;
            v = arcs[a].head;
        } else {
            level[v] = -1;      /* closed: keep every other path out of it */
            if (depth == 0)
                break;
            v = path_nodes[--depth];
        }
    }
    return pushed;
}

/* Dinic's algorithm with bidirectional layering, current arcs and an
 * iterative DFS, on a CSR residual graph built once.
 *
 * Layering from both ends, not from t alone (the textbook choice): on big
 * random graphs with many arcs at the terminals, layers grown from t alone
 * sweep most of the graph in every phase.  tests/bench/ff-trace.sh (part 2)
 * measures the whole --no-hints tool against Boost's
 * boykov_kolmogorov_max_flow on a graph of 1M nodes and 3M arcs, with and
 * without 1000 extra arcs at each terminal.  Building the residual graph
 * (random writes) is a large share of the time.  Push-relabel needs global
 * relabelling and gap heuristics to compete, and BK's tree adoption is
 * subtle; neither is simpler than this.
 *
 * The final search, which finds no path, is redone from t alone over the
 * whole graph: it labels exactly the nodes that can reach t, the cut that
 * mincut_from_flow() computes, without building the residual graph again. */
int64_t maxflow_fast(const struct flownet *g, int64_t *flow, uint8_t *cut)
{
    flownet_check(g, "maxflow_fast");
    int n = g->n;
    struct residual_graph rg;
    residual_graph_build(&rg, g, NULL);
    int32_t *level = xmalloc((size_t)n * sizeof *level);
    uint8_t *side = xmalloc((size_t)n);
    int32_t *queue_source = xmalloc((size_t)n * sizeof *queue_source);
    int32_t *queue_sink = xmalloc((size_t)n * sizeof *queue_sink);
    int32_t *current = xmalloc((size_t)n * sizeof *current);
    int32_t *path_nodes = xmalloc(((size_t)n + 1) * sizeof *path_nodes);
    int32_t *path_arcs = xmalloc(((size_t)n + 1) * sizeof *path_arcs);
    int64_t value = 0;
    while (label_layers(&rg, g->s, g->t, level, side, queue_source, queue_sink) >= 0) {
        memcpy(current, rg.first, (size_t)n * sizeof *current);
        value += dinic_blocking_flow(&rg, g->s, g->t, level, current, path_nodes, path_arcs);
    }
    label_distance_to_sink(&rg, g->t, -1, level, queue_sink);
    for (int v = 0; v < n; v++)
        cut[v] = level[v] >= 0;
    for (int e = 0; e < g->m; e++)
        flow[e] = g->cap[e] - rg.arcs[rg.edge_arc[e]].residual;
    free(level);
    free(side);
    free(queue_source);
    free(queue_sink);
    free(current);
    free(path_nodes);
    free(path_arcs);
    residual_graph_free(&rg);
    return value;
}

/* ---- maxflow_oracle: Edmonds-Karp, deliberately naive and separate -------- */

int64_t maxflow_oracle(const struct flownet *g)
{
    flownet_check(g, "maxflow_oracle");
    int n = g->n, m = g->m;
    /* Arc 2e is edge e from src to dst and arc 2e+1 the way back, so the
     * partner of arc a is a ^ 1; arcs leaving v form a linked list. */
    int *first_arc = xmalloc((size_t)n * sizeof *first_arc);
    int *next_arc = xmalloc(((size_t)2 * m + 1) * sizeof *next_arc);
    int *arc_to = xmalloc(((size_t)2 * m + 1) * sizeof *arc_to);
    int64_t *left = xmalloc(((size_t)2 * m + 1) * sizeof *left);
    for (int v = 0; v < n; v++)
        first_arc[v] = -1;
    for (int e = 0; e < m; e++) {
        int u = g->src[e], v = g->dst[e];
        arc_to[2 * e] = v;
        left[2 * e] = g->cap[e];
        next_arc[2 * e] = first_arc[u];
        first_arc[u] = 2 * e;
        arc_to[2 * e + 1] = u;
        left[2 * e + 1] = g->directed ? 0 : g->cap[e];
        next_arc[2 * e + 1] = first_arc[v];
        first_arc[v] = 2 * e + 1;
    }
    int *arc_into = xmalloc((size_t)n * sizeof *arc_into);   /* BFS tree: arc that reached v, -1 none */
    int *queue = xmalloc((size_t)n * sizeof *queue);
    int64_t value = 0;
    for (;;) {
        for (int v = 0; v < n; v++)
            arc_into[v] = -1;
        int head = 0, tail = 0;
        queue[tail++] = g->s;
        bool found = false;
        while (head < tail && !found) {
            int u = queue[head++];
            for (int a = first_arc[u]; a >= 0; a = next_arc[a]) {
                int v = arc_to[a];
                if (left[a] > 0 && v != g->s && arc_into[v] < 0) {
                    arc_into[v] = a;
                    queue[tail++] = v;
                    if (v == g->t) {
                        found = true;
                        break;
                    }
                }
            }
        }
        if (!found)
            break;
        int64_t amount = INT64_MAX;
        for (int v = g->t; v != g->s; v = arc_to[arc_into[v] ^ 1])
            if (left[arc_into[v]] < amount)
                amount = left[arc_into[v]];
        for (int v = g->t; v != g->s; v = arc_to[arc_into[v] ^ 1]) {
            left[arc_into[v]] -= amount;
            left[arc_into[v] ^ 1] += amount;
        }
        value += amount;
    }
    free(first_arc);
    free(next_arc);
    free(arc_to);
    free(left);
    free(arc_into);
    free(queue);
    return value;
}

/* ---- flow_feasible --------------------------------------------------------- */

bool flow_feasible(const struct flownet *g, const int64_t *flow, int64_t *value)
{
    flownet_check(g, "flow_feasible");
    int64_t *net_in = xcalloc((size_t)g->n, sizeof *net_in);
    bool feasible = true;
    for (int e = 0; e < g->m; e++) {
        int64_t f = flow[e];
        if (f > g->cap[e] || (g->directed ? f < 0 : f < -g->cap[e]))
            feasible = false;
        net_in[g->dst[e]] += f;
        net_in[g->src[e]] -= f;
    }
    for (int v = 0; v < g->n; v++)
        if (v != g->s && v != g->t && net_in[v] != 0)
            feasible = false;
    if (value)
        *value = -net_in[g->s];
    free(net_in);
    return feasible;
}

/* ---- maxflow_trace --------------------------------------------------------- */

void trace_free(struct trace *tr)
{
    free(tr->phase);
    free(tr->mask);
    free(tr->pi);
    free(tr->flow);
    free(tr->flows);
    free(tr->work);
    memset(tr, 0, sizeof *tr);
}

/* Room for one more frame; tr->capacity counts the frames that fit, so
 * that a push only has to compare it with the steps. */
static void trace_reserve_frame(struct trace *tr)
{
    if (tr->steps < tr->capacity)
        return;
    size_t frames = (size_t)tr->steps + 1, n = (size_t)tr->n, fit;
    tr->phase = xreserve(tr->phase, &tr->phase_bytes, frames);
    tr->mask = xreserve(tr->mask, &tr->mask_bytes, frames * n);
    tr->pi = xreserve(tr->pi, &tr->pi_bytes, frames * n * sizeof *tr->pi);
    fit = tr->phase_bytes;
    if (tr->mask_bytes / n < fit)
        fit = tr->mask_bytes / n;
    if (tr->pi_bytes / (n * sizeof *tr->pi) < fit)
        fit = tr->pi_bytes / (n * sizeof *tr->pi);
    tr->capacity = fit < INT32_MAX ? (int)fit : INT32_MAX;
}

/* A frame that opens a phase: only s reached, every pointer to itself. */
static void trace_push_start(struct trace *tr, uint8_t phase, int s, const int32_t *pi)
{
    trace_reserve_frame(tr);
    size_t k = (size_t)tr->steps++, n = (size_t)tr->n;
    tr->phase[k] = phase;
    memset(tr->mask + k * n, 0, n);
    tr->mask[k * n + s] = 1;
    memcpy(tr->pi + k * n, pi, n * sizeof *pi);
}

/* A Bellman-Ford round's frame: the frame before it plus the nodes that
 * changed, which are all reached now. */
static void trace_push_round(struct trace *tr, const int32_t *pi, const int32_t *changed_nodes, int changed_count)
{
    trace_reserve_frame(tr);
    size_t k = (size_t)tr->steps++, n = (size_t)tr->n;
    uint8_t *mask = tr->mask + k * n;
    tr->phase[k] = 1;
    memcpy(mask, mask - n, n);
    for (int i = 0; i < changed_count; i++)
        mask[changed_nodes[i]] = 1;
    memcpy(tr->pi + k * n, pi, n * sizeof *pi);
}

/* Record flow as the trace's next distinct flow. */
static void trace_push_flow(struct trace *tr, const int64_t *flow)
{
    size_t m = (size_t)tr->m, j = (size_t)tr->flow_count++;
    tr->flows = xreserve(tr->flows, &tr->flows_bytes, (j + 1) * m * sizeof *flow + 1);
    memcpy(tr->flows + j * m, flow, m * sizeof *flow);
}

/* The node pairs seen from each node u: pair p (u's pairs are first[u] ..
 * first[u+1]-1, in increasing order of neighbour, which gives the
 * reference's tie-break to the lowest index) joins u to neighbour[p] through
 * the edges edge[edge_first[p] .. edge_first[p+1]-1], lowest index first, so
 * weight[p] is the w of that first edge.  Each pair appears once from each
 * end: twin[p] is the same pair seen from neighbour[p].  residual[p] is
 * r(u, neighbour[p]) for the current flow, kept up to date by every push, so
 * a phase need not recompute it for every pair; hop[p] is what the pair
 * offers Bellman-Ford, next to its neighbour for the search's inner loop:
 * its weight while it is open (residual > 0 and not into s, whose distance
 * stays 0), +infinity when closed, which makes that loop one comparison. */
struct pair_hop {
    double step;            /* weight or +infinity */
    int32_t neighbour;
};

struct pair_lists {
    int32_t *first;         /* [n+1] */
    int32_t *neighbour;     /* [pairs] */
    int32_t *edge_first;    /* [pairs+1] */
    int32_t *edge;          /* [2m] */
    int32_t *twin;          /* [pairs] */
    double *weight;         /* [pairs] */
    struct pair_hop *hop;   /* [pairs] */
    int64_t *residual;      /* [pairs] */
    int s;
    /* Small graphs (n <= DENSE_MAX_NODES), on a CPU with AVX2, also keep
     * every pair's step in a dense n x stride matrix, +infinity where no
     * open pair joins u to v: there a round relaxes whole rows, four lanes
     * at a time, instead of walking each changed node's few pairs (short
     * loops whose exits the branch predictor misses, and scattered
     * stores).  NULL for bigger graphs and elsewhere: rows two lanes wide
     * (SSE2) gained too little over the pair lists to be worth a second
     * path, and rows in plain C lost to them. */
    double *dense;          /* [n * stride] */
    int stride;             /* n rounded up to a whole number of lanes */
};

/* Up to this many nodes a round relaxes dense rows: the matrix is 32 KiB at
 * most, and the training and test graphs (16 and 64 nodes) use it. */
#define DENSE_MAX_NODES 64

enum maxflow_relax maxflow_relax = RELAX_AUTO;

/* Everything one run of the trace works in, carved from one block (the
 * trace's work memory) instead of a dozen allocations per graph. */
struct trace_work {
    struct pair_lists pl;
    int32_t *by_node, *by_neighbour, *count, *node_first;  /* pair_lists_build's sorts */
    int32_t *entry_node, *entry_neighbour;                 /* [2m] */
    double *distance, *previous_distance;                  /* [n] */
    uint64_t *changed;                                     /* [n/64] a bit per node */
    int32_t *pi, *changed_nodes;                           /* [n] */
    int64_t *flow;                                         /* [m] the current flow */
};

/* Lanes of a dense row handled at once (four doubles in an AVX2 register);
 * rows, distances and pointers are padded to a whole number of them, the
 * padding at +infinity so it never changes. */
#define DENSE_LANES 4
static int dense_stride(int n) { return (n + DENSE_LANES - 1) / DENSE_LANES * DENSE_LANES; }

/* Whether a graph of n nodes gets dense rows here. */
static bool dense_rows_here(int n)
{
#ifdef DENSE_ROWS
    return n <= DENSE_MAX_NODES && maxflow_relax == RELAX_AUTO && __builtin_cpu_supports("avx2");
#else
    return false;
#endif
}

/* Lay out the arrays from base (NULL: only measure); returns the bytes used. */
static size_t trace_work_layout(struct trace_work *tw, char *base, int n, int m)
{
    size_t used = 0, pairs = (size_t)2 * m + 1, nodes = (size_t)n + 1, edges = (size_t)m + 1;
#define CARVE(field, count)                                                    \
    do {                                                                       \
        used = (used + 7) & ~(size_t)7;                                        \
        tw->field = base ? (void *)(base + used) : NULL;                       \
        used += (count) * sizeof *tw->field;                                   \
    } while (0)
    CARVE(pl.first, nodes);
    CARVE(pl.neighbour, pairs);
    CARVE(pl.edge_first, pairs);
    CARVE(pl.edge, pairs);
    CARVE(pl.twin, pairs);
    CARVE(pl.weight, pairs);
    CARVE(pl.hop, pairs);
    CARVE(pl.residual, pairs);
    bool dense = dense_rows_here(n);
    CARVE(pl.dense, dense ? (size_t)n * dense_stride(n) : 0);
    if (!dense)
        tw->pl.dense = NULL;
    CARVE(by_node, pairs);
    CARVE(by_neighbour, pairs);
    CARVE(entry_node, pairs);
    CARVE(entry_neighbour, pairs);
    CARVE(count, nodes);
    CARVE(node_first, nodes);
    CARVE(distance, nodes + DENSE_LANES);
    CARVE(previous_distance, nodes);
    CARVE(changed, nodes / 64 + 1);
    CARVE(pi, nodes + DENSE_LANES);
    CARVE(changed_nodes, nodes);
    CARVE(flow, edges);
#undef CARVE
    return used;
}

static void trace_work_init(struct trace_work *tw, struct trace *tr, int n, int m)
{
    tr->work = xreserve(tr->work, &tr->work_bytes, trace_work_layout(tw, NULL, n, m));
    trace_work_layout(tw, tr->work, n, m);
}

/* Residual of edge e leaving `from` for the zero flow. */
static int64_t zero_flow_residual(const struct flownet *g, int e, int from)
{
    return from == g->src[e] || !g->directed ? g->cap[e] : 0;
}

/* Pair p of node u: what it offers Bellman-Ford now. */
static inline void pair_update_step(struct pair_lists *pl, int u, int32_t p)
{
    double step = pl->residual[p] > 0 && pl->neighbour[p] != pl->s ? pl->weight[p] : INFINITY;
    pl->hop[p].step = step;
    pl->hop[p].neighbour = pl->neighbour[p];
    if (pl->dense)
        pl->dense[(size_t)u * pl->stride + pl->neighbour[p]] = step;
}

/* Stable counting sort of the entries order[0..2m) by key[entry] into
 * sorted; first[v] receives where key v begins (count is scratch). */
static void entries_sort(const int32_t *order, const int32_t *key, int n, int m, int32_t *count,
                         int32_t *first, int32_t *sorted)
{
    memset(count, 0, ((size_t)n + 1) * sizeof *count);
    for (int i = 0; i < 2 * m; i++)
        count[key[order ? order[i] : i] + 1]++;
    for (int v = 0; v < n; v++)
        count[v + 1] += count[v];
    if (first)
        memcpy(first, count, ((size_t)n + 1) * sizeof *count);
    for (int i = 0; i < 2 * m; i++) {
        int x = order ? order[i] : i;
        sorted[count[key[x]]++] = x;
    }
}

/* Whether each node's entries are in increasing order of neighbour. */
static bool entries_sorted_by_neighbour(const int32_t *by_node, const int32_t *node_first, const int32_t *neighbour,
                                        int n)
{
    for (int u = 0; u < n; u++)
        for (int32_t i = node_first[u] + 1; i < node_first[u + 1]; i++)
            if (neighbour[by_node[i]] < neighbour[by_node[i - 1]])
                return false;
    return true;
}

static void pair_lists_build(struct trace_work *tw, const struct flownet *g)
{
    struct pair_lists *pl = &tw->pl;
    int n = g->n, m = g->m;
    int32_t *by_node = tw->by_node, *by_neighbour = tw->by_neighbour, *count = tw->count;
    int32_t *node_first = tw->node_first;
    /* The 2m (node, neighbour, edge) entries sorted by node, then neighbour,
     * then edge.  Entry 2e is (src, dst, e) and entry 2e+1 is (dst, src, e),
     * so sorting them in edge order by node is enough when the edges come
     * sorted (as gen-graphs writes them): each node's neighbours are then
     * already in order.  Otherwise, two stable counting sorts: by
     * neighbour, then by node. */
    int32_t *node = tw->entry_node, *neighbour = tw->entry_neighbour;
    for (int e = 0; e < m; e++) {
        node[2 * e] = neighbour[2 * e + 1] = g->src[e];
        node[2 * e + 1] = neighbour[2 * e] = g->dst[e];
    }
    entries_sort(NULL, node, n, m, count, node_first, by_node);
    if (!entries_sorted_by_neighbour(by_node, node_first, neighbour, n)) {
        entries_sort(NULL, neighbour, n, m, count, NULL, by_neighbour);
        entries_sort(by_neighbour, node, n, m, count, NULL, by_node);
    }

    /* Twins as the pairs are made: the nodes u > v whose lists hold v come
     * in increasing order, as v's pairs towards higher nodes do, so
     * cursor[v] (v's next such pair) matches them in one sweep over u. */
    int32_t *cursor = count;
    int pairs = 0;
    pl->s = g->s;
    pl->stride = dense_stride(n);
    if (pl->dense)
        for (size_t i = 0, size = (size_t)n * pl->stride; i < size; i++)
            pl->dense[i] = INFINITY;
    for (int u = 0; u < n; u++) {
        pl->first[u] = pairs;
        cursor[u] = -1;
        for (int32_t i = node_first[u]; i < node_first[u + 1]; i++) {
            int x = by_node[i], e = x >> 1, v = neighbour[x];
            pl->edge[i] = e;
            if (i == node_first[u] || v != pl->neighbour[pairs - 1]) {
                int32_t p = pairs++;
                pl->neighbour[p] = v;
                pl->edge_first[p] = i;
                pl->weight[p] = (double)g->w[e];
                pl->residual[p] = 0;
                if (v < u) {
                    int32_t q = cursor[v]++;
                    pl->twin[p] = q;
                    pl->twin[q] = p;
                } else if (cursor[u] < 0) {
                    cursor[u] = p;
                }
            }
            pl->residual[pairs - 1] += zero_flow_residual(g, e, u);
        }
        for (int32_t p = pl->first[u]; p < pairs; p++)
            pair_update_step(pl, u, p);
    }
    pl->first[n] = pairs;
    pl->edge_first[pairs] = 2 * m;
}

/* r(u, neighbour[p]) for a pair p of u's, from the flow. */
static int64_t pair_residual(const struct flownet *g, const int64_t *flow, const struct pair_lists *pl, int u,
                             int32_t p)
{
    int64_t r = 0;
    for (int32_t i = pl->edge_first[p]; i < pl->edge_first[p + 1]; i++)
        r += edge_residual(g, flow, pl->edge[i], u);
    return r;
}

/* Push `amount` from u over its pair p.  Flow on an arc neighbour->u is
 * cancelled before any is pushed on u->neighbour, so the trace never leaves
 * flow on both of two antiparallel arcs.  Both ends' residuals follow. */
static void pair_push(const struct flownet *g, int64_t *flow, struct pair_lists *pl, int u, int32_t p,
                      int64_t amount)
{
    int32_t twin = pl->twin[p];
    if (amount > pl->residual[p])
        die(EX_SOFTWARE, "maxflow_trace: augmentation exceeds the residual from %d to %d", u,
            (int)pl->neighbour[p]);
    if (pl->edge_first[p + 1] - pl->edge_first[p] == 1) {
        /* One edge (nearly always): its residual from u falls by the
         * amount and the one back rises by as much, either direction. */
        int e = pl->edge[pl->edge_first[p]];
        flow[e] += g->src[e] == u ? amount : -amount;
        pl->residual[p] -= amount;
        pl->residual[twin] += amount;
    } else {
        for (int pass = 0; pass < 2 && amount > 0; pass++)
            for (int32_t i = pl->edge_first[p]; i < pl->edge_first[p + 1] && amount > 0; i++) {
                int e = pl->edge[i];
                bool cancels = g->directed && g->src[e] != u;
                if (cancels != (pass == 0))
                    continue;
                int64_t take = edge_residual(g, flow, e, u);
                if (take > amount)
                    take = amount;
                flow[e] += g->src[e] == u ? take : -take;
                amount -= take;
            }
        pl->residual[p] = pair_residual(g, flow, pl, u, p);
        pl->residual[twin] = pair_residual(g, flow, pl, pl->neighbour[p], twin);
    }
    pair_update_step(pl, u, p);
    pair_update_step(pl, pl->neighbour[p], twin);
}

/* The nodes whose bits are set, in increasing order (the order the next
 * round pushes in, for the tie-break), clearing the bits; returns the count. */
static int take_changed(uint64_t *changed, int n, int32_t *nodes)
{
    int count = 0;
    for (int word = 0; word <= (n - 1) / 64; word++) {
        for (uint64_t bits = changed[word]; bits; bits &= bits - 1)
            nodes[count++] = word * 64 + __builtin_ctzll(bits);
        changed[word] = 0;
    }
    return count;
}

/* Offer u's candidates (distance du + step) to its neighbours.  Returns the
 * bits of the nodes improved when the graph has at most 64 nodes (one word
 * the caller keeps in a register), else sets them in changed.
 *
 * Branch-free: whether a candidate wins is data, unpredictable, and a
 * mispredicted branch costs more than the stores.  Unreached nodes are at
 * +infinity and closed pairs step +infinity, so the one test is "open, and
 * reaches v for the first time or more cheaply". */
static inline __attribute__((always_inline)) uint64_t
relax_node(const struct pair_hop *restrict hop, int32_t p, int32_t end, int u, double du,
           double *restrict distance, int32_t *restrict pi, uint64_t *restrict changed, bool one_word)
{
    uint64_t bits = 0;
    for (; p < end; p++) {
        int v = hop[p].neighbour;
        double candidate = du + hop[p].step, current = distance[v];
        int32_t better = candidate < current, before = pi[v];
        distance[v] = candidate < current ? candidate : current;
        /* An empty asm hides where better came from, so the compiler
         * keeps the selects below as cmov instead of rebuilding the
         * branch it would mispredict. */
        __asm__("" : "+r"(better));
        pi[v] = better ? u : before;
        if (one_word)
            bits |= (uint64_t)better << v;
        else
            changed[v >> 6] |= (uint64_t)better << (v & 63);
    }
    return bits;
}

#ifdef DENSE_ROWS
/* A round over dense rows: relax_node() for every changed node u (in
 * increasing order) over its whole row, each lane a node v, the padding and
 * the nodes u has no open pair to at +infinity.  Returns the bits of the
 * nodes improved (n <= 64).  The same IEEE additions and comparisons as the
 * pair lists', so the trace does not depend on the machine. */
__attribute__((target("avx2")))
static uint64_t relax_rows(const double *restrict dense, int stride, const int32_t *restrict nodes, int count,
                           const double *restrict previous, double *restrict distance, int32_t *restrict pi)
{
    uint64_t bits = 0;
    for (int i = 0; i < count; i++) {
        int u = nodes[i];
        const double *row = dense + (size_t)u * stride;
        const __m256d du = _mm256_set1_pd(previous[u]);
        const __m128i pointer = _mm_set1_epi32(u);
        for (int v = 0; v < stride; v += 4) {
            __m256d candidate = _mm256_add_pd(du, _mm256_loadu_pd(row + v)), current = _mm256_loadu_pd(distance + v);
            __m256d better = _mm256_cmp_pd(candidate, current, _CMP_LT_OQ);
            /* candidate < current ? candidate : current */
            _mm256_storeu_pd(distance + v, _mm256_min_pd(candidate, current));
            /* the four 64-bit masks as four 32-bit ones, for the pointers */
            __m128 halves = _mm_shuffle_ps(_mm256_castps256_ps128(_mm256_castpd_ps(better)),
                                           _mm256_extractf128_ps(_mm256_castpd_ps(better), 1), _MM_SHUFFLE(2, 0, 2, 0));
            __m128i before = _mm_loadu_si128((const __m128i *)(pi + v));
            _mm_storeu_si128((__m128i *)(pi + v), _mm_blendv_epi8(before, pointer, _mm_castps_si128(halves)));
            bits |= (uint64_t)_mm256_movemask_pd(better) << v;
        }
    }
    return bits;
}
#endif

/* One synchronous round: every node that changed in the last one offers its
 * candidates, in increasing order (the tie-break to the lowest index). */
static void bellman_ford_round(const struct flownet *g, struct trace_work *tw, int changed_count)
{
    const int32_t *first = tw->pl.first;
    const struct pair_hop *hop = tw->pl.hop;
    const int32_t *changed_nodes = tw->changed_nodes;
    for (int i = 0; i < changed_count; i++)
        tw->previous_distance[changed_nodes[i]] = tw->distance[changed_nodes[i]];
    if (tw->pl.dense) {
#ifdef DENSE_ROWS
        tw->changed[0] = relax_rows(tw->pl.dense, tw->pl.stride, changed_nodes, changed_count,
                                    tw->previous_distance, tw->distance, tw->pi);
#endif
    } else if (g->n <= 64) {
        uint64_t bits = 0;
        for (int i = 0; i < changed_count; i++) {
            int u = changed_nodes[i];
            bits |= relax_node(hop, first[u], first[u + 1], u, tw->previous_distance[u], tw->distance, tw->pi,
                               NULL, true);
        }
        tw->changed[0] = bits;
    } else {
        for (int i = 0; i < changed_count; i++) {
            int u = changed_nodes[i];
            relax_node(hop, first[u], first[u + 1], u, tw->previous_distance[u], tw->distance, tw->pi,
                       tw->changed, false);
        }
    }
}

/* One Bellman-Ford phase from s, a frame per synchronous round.
 *
 * The rounds are computed by pushing from the nodes that changed in the
 * previous round rather than by pulling into every node from all its
 * neighbours: a node that did not change offers the same candidates as
 * before, which were already taken or rejected, so the frames are
 * identical to the reference's synchronous rounds (same minimum, same
 * tie-break to the lowest u, strict improvement for reached nodes) and a
 * round costs the degree of what changed instead of the whole graph. */
static void bellman_ford_phase(const struct flownet *g, struct trace_work *tw, struct trace *tr)
{
    int n = g->n, changed_count = 1;
    tw->changed_nodes[0] = g->s;
    for (int round = 0; round < n && changed_count > 0; round++) {
        bellman_ford_round(g, tw, changed_count);
        changed_count = take_changed(tw->changed, n, tw->changed_nodes);
        /* A round that changes nothing still gets its frame: it is the
         * phase's "no change" frame.  Changes include newly reached
         * nodes, not just distances (the reference compares d only,
         * which would end a phase early if a zero weight reached a
         * node at distance 0). */
        trace_push_round(tr, tw->pi, tw->changed_nodes, changed_count);
    }
}

/* The pair of u's that joins it to v (the search reached v from u over it). */
static int32_t pair_to(const struct pair_lists *pl, int u, int v)
{
    int32_t p = pl->first[u];
    while (pl->neighbour[p] != v)
        p++;
    return p;
}

/* Augment along the predecessor pointers from t; returns the amount. */
static int64_t augment_path(const struct flownet *g, struct trace_work *tw)
{
    int n = g->n, s = g->s, t = g->t;
    const int32_t *pi = tw->pi;
    int64_t amount = INT64_MAX;
    int path_length = 0;
    int32_t *path = tw->changed_nodes;     /* free between phases: the path's pairs */
    for (int v = t; v != s; v = pi[v]) {
        if (path_length == n)
            die(EX_SOFTWARE, "maxflow_trace: predecessor pointers do not lead back to the source");
        int32_t p = pair_to(&tw->pl, pi[v], v);
        path[path_length++] = p;
        if (tw->pl.residual[p] < amount)
            amount = tw->pl.residual[p];
    }
    for (int v = t, i = 0; v != s; v = pi[v], i++)
        pair_push(g, tw->flow, &tw->pl, pi[v], path[i], amount);
    return amount;
}

/* The source-maximal min cut from the pair residuals: what can still reach
 * t, found backwards from t (y reaches x when r(y, x) > 0, the twin's
 * residual); the same set mincut_from_flow() finds from the flow. */
static void cut_from_pairs(const struct flownet *g, struct trace_work *tw, uint8_t *cut)
{
    const struct pair_lists *pl = &tw->pl;
    int32_t *queue = tw->changed_nodes;
    int head = 0, tail = 0;
    memset(cut, 0, (size_t)g->n);
    cut[g->t] = 1;
    queue[tail++] = g->t;
    while (head < tail) {
        int x = queue[head++];
        for (int32_t p = pl->first[x]; p < pl->first[x + 1]; p++) {
            int y = pl->neighbour[p];
            if (!cut[y] && pl->residual[pl->twin[p]] > 0) {
                cut[y] = 1;
                queue[tail++] = y;
            }
        }
    }
}

/* Before a phase: only s reached, at distance 0; every other node at
 * +infinity (unreached) and pointing to itself. */
static void reset_to_source(const struct flownet *g, struct trace_work *tw)
{
    for (int v = 0; v < g->n; v++) {
        tw->distance[v] = v == g->s ? 0 : INFINITY;
        tw->pi[v] = v;
    }
    for (int v = g->n; v < tw->pl.stride; v++) {   /* dense rows' padding */
        tw->distance[v] = INFINITY;
        tw->pi[v] = v;
    }
}

int64_t maxflow_trace_frames(const struct flownet *g, struct trace *tr, int64_t *flow, uint8_t *cut)
{
    flownet_check(g, "maxflow_trace");
    int n = g->n, m = g->m;
    /* Negative weights could make the predecessor pointers cycle, and
     * +infinity stands for "unreached" and "closed". */
    for (int e = 0; e < m; e++)
        if (!(g->w[e] >= 0 && g->w[e] < INFINITY))
            die(EX_SOFTWARE, "maxflow_trace: edge %d has weight %g, expected a finite number >= 0", e,
                (double)g->w[e]);
    tr->n = n;
    tr->m = m;
    tr->steps = 0;
    tr->capacity = 0;           /* recounted for this n by the first push */
    tr->flow_count = 0;
    struct trace_work tw;
    trace_work_init(&tw, tr, n, m);
    pair_lists_build(&tw, g);
    memset(tw.changed, 0, ((size_t)n / 64 + 1) * sizeof *tw.changed);
    memset(tw.flow, 0, ((size_t)m + 1) * sizeof *tw.flow);
    int64_t value = 0;

    /* Frame 0 opens the first phase; later phases are opened by the flow
     * frame of the augmentation before them. */
    reset_to_source(g, &tw);
    trace_push_start(tr, 1, g->s, tw.pi);
    trace_push_flow(tr, tw.flow);
    for (;;) {
        bellman_ford_phase(g, &tw, tr);
        if (tw.distance[g->t] == INFINITY)
            break;
        value += augment_path(g, &tw);
        reset_to_source(g, &tw);
        trace_push_start(tr, 0, g->s, tw.pi);
        trace_push_flow(tr, tw.flow);
    }
    tr->capacity = tr->steps;
    memcpy(flow, tw.flow, (size_t)m * sizeof *flow);
    cut_from_pairs(g, &tw, cut);
    return value;
}

int64_t maxflow_trace(const struct flownet *g, struct trace *tr, int64_t *flow, uint8_t *cut)
{
    memset(tr, 0, sizeof *tr);
    int64_t value = maxflow_trace_frames(g, tr, flow, cut);
    size_t m = (size_t)tr->m;
    tr->flow = xmalloc(((size_t)tr->steps * m + 1) * sizeof *tr->flow);
    for (int k = 0, j = 0; k < tr->steps; k++) {
        j += tr->phase[k] == 0;
        memcpy(tr->flow + (size_t)k * m, tr->flows + (size_t)j * m, m * sizeof *tr->flow);
    }
    return value;
}
