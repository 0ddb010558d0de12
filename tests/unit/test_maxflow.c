/* test_maxflow.c - the trace against dar-reference.md §10's worked example,
 * and the three max-flow algorithms against each other and against the
 * max-flow/min-cut theorem on 10,000 random graphs of every shape the tools
 * meet (sparse and dense, directed with antiparallel arcs, zero capacities,
 * several components, the paper's two-community and bipartite families).
 *
 * A flow is proven maximum here, not merely agreed on: it is feasible and its
 * value equals the capacity of a cut.  The cut is checked against a naive
 * fixpoint twin of mincut_from_flow on the other algorithm's flow, since the
 * source-maximal minimum cut is the same for every maximum flow. */
#include "check.h"
#include "maxflow.h"
#include "rng.h"
#include "die.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SEED 20231125u
enum { STREAM_RANDOM = 1, STREAM_COMMUNITY_STATISTICS = 2, STREAM_MEDIUM = 3, STREAM_REUSE = 4, STREAM_RELAX = 5 };

/* A network being generated: the arrays behind a struct flownet. */
struct test_graph {
    const char *family;
    int n, m, edge_room, s, t;
    bool directed;
    int32_t *src, *dst;
    int64_t *cap;
    float *w;
};

static void graph_start(struct test_graph *tg, const char *family, int n, bool directed)
{
    tg->family = family;
    tg->n = n;
    tg->m = 0;
    tg->directed = directed;
    tg->s = 0;
    tg->t = n - 1;
}

static void graph_add(struct test_graph *tg, int u, int v, int64_t cap, float w)
{
    if (tg->m == tg->edge_room) {
        tg->edge_room = tg->edge_room ? 2 * tg->edge_room : 256;
        tg->src = xrealloc(tg->src, (size_t)tg->edge_room * sizeof *tg->src);
        tg->dst = xrealloc(tg->dst, (size_t)tg->edge_room * sizeof *tg->dst);
        tg->cap = xrealloc(tg->cap, (size_t)tg->edge_room * sizeof *tg->cap);
        tg->w = xrealloc(tg->w, (size_t)tg->edge_room * sizeof *tg->w);
    }
    tg->src[tg->m] = u;
    tg->dst[tg->m] = v;
    tg->cap[tg->m] = cap;
    tg->w[tg->m] = w;
    tg->m++;
}

static void graph_release(struct test_graph *tg)
{
    free(tg->src);
    free(tg->dst);
    free(tg->cap);
    free(tg->w);
    memset(tg, 0, sizeof *tg);
}

static struct flownet graph_net(const struct test_graph *tg)
{
    return (struct flownet){ .n = tg->n, .m = tg->m, .s = tg->s, .t = tg->t, .directed = tg->directed,
                             .src = tg->src, .dst = tg->dst, .cap = tg->cap, .w = tg->w };
}

/* Edge order and (undirected) orientation must not matter, so generators
 * emit pairs in order and this scrambles both. */
static void graph_scramble(struct test_graph *tg, struct rng *r)
{
    for (int e = tg->m - 1; e > 0; e--) {
        int k = (int)rng_below(r, (uint64_t)e + 1);
        int32_t a = tg->src[e], b = tg->dst[e];
        int64_t c = tg->cap[e];
        float w = tg->w[e];
        tg->src[e] = tg->src[k], tg->dst[e] = tg->dst[k], tg->cap[e] = tg->cap[k], tg->w[e] = tg->w[k];
        tg->src[k] = a, tg->dst[k] = b, tg->cap[k] = c, tg->w[k] = w;
    }
    if (!tg->directed)
        for (int e = 0; e < tg->m; e++)
            if (rng_below(r, 2)) {
                int32_t a = tg->src[e];
                tg->src[e] = tg->dst[e];
                tg->dst[e] = a;
            }
}

/* Erdos-Renyi with `components` groups (edges only inside a group, so s and
 * t are often cut apart), capacities U{0..max_cap} including zeros, and in
 * directed graphs each ordered pair drawn independently, so antiparallel
 * arcs occur. */
static void generate_random(struct test_graph *tg, struct rng *r, int n, bool directed, double p, int components,
                            int max_cap)
{
    graph_start(tg, directed ? "random-directed" : "random-undirected", n, directed);
    int *group = xmalloc((size_t)n * sizeof *group);
    for (int v = 0; v < n; v++)
        group[v] = (int)rng_below(r, (uint64_t)components);
    /* Walk the n*n ordered slots in geometric jumps (the gap to the next
     * success of a Bernoulli(p) sequence), so a sparse graph costs draws per
     * edge, not per pair; slots that are not pairs are skipped. */
    double log_miss = p < 1 ? log1p(-p) : -INFINITY;
    for (long slot = -1;;) {
        slot += 1 + (p < 1 ? (long)floor(log1p(-rng_uniform(r)) / log_miss) : 0);
        if (slot >= (long)n * n)
            break;
        int u = (int)(slot / n), v = (int)(slot % n);
        if (u != v && (directed || u < v) && group[u] == group[v])
            graph_add(tg, u, v, (int64_t)rng_below(r, (uint64_t)max_cap + 1), rng_uniform_f32(r));
    }
    tg->s = (int)rng_below(r, (uint64_t)n);
    tg->t = (int)rng_below(r, (uint64_t)n - 1);
    if (tg->t >= tg->s)
        tg->t++;
    free(group);
    graph_scramble(tg, r);
}

/* How two-community weights are drawn: U[0,1) per edge, or max of two such
 * draws, which is how an entry of the reference's W = max(R, R^T) is
 * distributed (§1.5; the reference fixes R per n, we draw it per graph). */
enum weight_law { WEIGHT_UNIFORM, WEIGHT_MAX_OF_TWO };

/* dar-reference.md §1.3/§10 with integer capacities in tenths: n even. */
static void generate_two_community(struct test_graph *tg, struct rng *r, int n, double p, enum weight_law law)
{
    graph_start(tg, "two-community", n, false);
    int h = n / 2;
    bool *inside = xmalloc((size_t)n * n * sizeof *inside);
    for (int i = 0; i < n * n; i++)
        inside[i] = rng_uniform(r) <= p;
    bool *between = xmalloc((size_t)h * h * sizeof *between);
    for (int k = 0;; k++) {
        bool any = false;
        for (int i = 0; i < h * h; i++)
            any |= between[i] = rng_uniform(r) < 0.05 + 0.01 * (k > 0 ? k - 1 : 0);
        if (any)
            break;
    }
    for (int u = 0; u < n; u++)
        for (int v = u + 1; v < n; v++) {
            bool present = (u < h) == (v < h) ? inside[u * n + v] || inside[v * n + u]
                                               : between[u * h + (v - h)];
            if (present) {
                int64_t a = 1 + (int64_t)rng_below(r, 9), b = 1 + (int64_t)rng_below(r, 9);
                float w = rng_uniform_f32(r);
                if (law == WEIGHT_MAX_OF_TWO) {
                    float other = rng_uniform_f32(r);
                    w = other > w ? other : w;
                }
                graph_add(tg, u, v, a > b ? a : b, w);
            }
        }
    tg->s = (int)rng_below(r, (uint64_t)h);
    tg->t = h + 1 + (int)rng_below(r, (uint64_t)(n - h - 1));
    free(inside);
    free(between);
}

/* dar-reference.md §1.4: s = 0, A = {1..a}, B = {a+1..n-2}, t = n-1, all
 * capacities 1, undirected; n >= 4. */
static void generate_bipartite(struct test_graph *tg, struct rng *r, int n)
{
    graph_start(tg, "bipartite", n, false);
    int a = (n - 2) / 2, b = n - 2 - a;
    bool *joined = xmalloc((size_t)a * b * sizeof *joined);
    double p = 0.35 + 0.65 * rng_uniform(r);
    for (int k = 0;; k++) {
        for (int i = 0; i < a * b; i++)
            joined[i] = rng_uniform(r) < p + 0.01 * k;
        bool every_b_joined = true;
        for (int j = 0; j < b; j++) {
            bool any = false;
            for (int i = 0; i < a; i++)
                any |= joined[i * b + j];
            every_b_joined &= any;
        }
        if (every_b_joined)
            break;
    }
    for (int i = 0; i < a; i++)
        graph_add(tg, 0, 1 + i, 1, rng_uniform_f32(r));
    for (int i = 0; i < a; i++)
        for (int j = 0; j < b; j++)
            if (joined[i * b + j])
                graph_add(tg, 1 + i, 1 + a + j, 1, rng_uniform_f32(r));
    for (int j = 0; j < b; j++)
        graph_add(tg, 1 + a + j, n - 1, 1, rng_uniform_f32(r));
    tg->s = 0;
    tg->t = n - 1;
    free(joined);
}

/* Capacity of the cut: arcs from the source side (0) to the sink side (1);
 * an undirected edge counts once when its ends are on different sides. */
static int64_t cut_capacity(const struct flownet *g, const uint8_t *cut)
{
    int64_t total = 0;
    for (int e = 0; e < g->m; e++) {
        int a = cut[g->src[e]], b = cut[g->dst[e]];
        if (g->directed ? a == 0 && b == 1 : a != b)
            total += g->cap[e];
    }
    return total;
}

/* The naive twin of mincut_from_flow: relax "v reaches t" over every edge
 * until nothing changes. */
static void naive_reaches_sink(const struct flownet *g, const int64_t *flow, uint8_t *reaches)
{
    for (int v = 0; v < g->n; v++)
        reaches[v] = v == g->t;
    for (bool changed = true; changed;) {
        changed = false;
        for (int e = 0; e < g->m; e++) {
            int u = g->src[e], v = g->dst[e];
            int64_t forward = g->cap[e] - flow[e], backward = g->directed ? flow[e] : g->cap[e] + flow[e];
            if (!reaches[u] && reaches[v] && forward > 0)
                reaches[u] = 1, changed = true;
            if (!reaches[v] && reaches[u] && backward > 0)
                reaches[v] = 1, changed = true;
        }
    }
}

/* ---- the worked example ------------------------------------------------------ */

static void test_worked_example(void)
{
    /* dar-reference.md §10: C01=.5 C02=.3 C12=.2 C13=.4 C23=.6 C34=.9
     * C24=.1 in tenths; W01=.1 W02=.5 W12=.3 W13=.2 W23=.4 W24=.6 W34=.3. */
    static const int32_t src[] = { 0, 0, 1, 1, 2, 3, 2 }, dst[] = { 1, 2, 2, 3, 3, 4, 4 };
    static const int64_t cap[] = { 5, 3, 2, 4, 6, 9, 1 };
    static const float w[] = { .1f, .5f, .3f, .2f, .4f, .3f, .6f };
    enum { E01, E02, E12, E13, E23, E34, E24 };
    struct flownet g = { .n = 5, .m = 7, .s = 0, .t = 4, .directed = false,
                         .src = src, .dst = dst, .cap = cap, .w = w };
    struct trace tr;
    int64_t flow[7];
    uint8_t cut[5];
    int64_t value = maxflow_trace(&g, &tr, flow, cut);

    CHECK(tr.steps == 17, "worked example: T = %d, expected 17 frames", tr.steps);
    CHECK(value == 8, "worked example: value %lld, expected 8 tenths", (long long)value);
    static const uint8_t expected_cut[] = { 0, 1, 1, 1, 1 };
    CHECK(memcmp(cut, expected_cut, 5) == 0, "worked example: cut [%d,%d,%d,%d,%d], expected [0,1,1,1,1]",
          cut[0], cut[1], cut[2], cut[3], cut[4]);
    static const int64_t expected_flow[] = { 5, 3, 1, 4, 3, 7, 1 };
    CHECK(memcmp(flow, expected_flow, sizeof flow) == 0,
          "worked example: final flow 01..24 = %lld %lld %lld %lld %lld %lld %lld", (long long)flow[E01],
          (long long)flow[E02], (long long)flow[E12], (long long)flow[E13], (long long)flow[E23],
          (long long)flow[E34], (long long)flow[E24]);
    if (tr.steps != 17) {
        trace_free(&tr);
        return;
    }

    bool phases_right = true;
    for (int k = 0; k < 17; k++)
        phases_right &= tr.phase[k] == (k == 5 || k == 10 || k == 15 ? 0 : 1);
    CHECK(phases_right, "worked example: flow frames are exactly 5, 10 and 15");

    /* The first phase round by round, worked out by hand: round 1 reaches 1
     * and 2 from s; round 2 reaches 2 more cheaply via 1 (.4 < .5), 3 via 1
     * and 4 via 2; round 3 reaches 4 via 3 (.6 < 1.1); round 4 changes
     * nothing. */
    static const uint8_t phase_one_mask[5][5] = {
        { 1, 0, 0, 0, 0 }, { 1, 1, 1, 0, 0 }, { 1, 1, 1, 1, 1 }, { 1, 1, 1, 1, 1 }, { 1, 1, 1, 1, 1 } };
    static const int32_t phase_one_pi[5][5] = {
        { 0, 1, 2, 3, 4 }, { 0, 0, 0, 3, 4 }, { 0, 0, 1, 1, 2 }, { 0, 0, 1, 1, 3 }, { 0, 0, 1, 1, 3 } };
    bool rounds_right = true;
    for (int k = 0; k < 5; k++)
        rounds_right &= memcmp(tr.mask + k * 5, phase_one_mask[k], 5) == 0 &&
                        memcmp(tr.pi + k * 5, phase_one_pi[k], sizeof phase_one_pi[k]) == 0;
    CHECK(rounds_right, "worked example: masks and pointers of frames 0-4 as worked by hand");

    /* Every flow frame: mask e_s, identity pointers; its augmenting path is
     * read from the pointers of the frame before it. */
    static const int flow_frames[] = { 5, 10, 15 };
    static const int64_t increments[] = { 4, 1, 3 };
    static const int32_t paths[3][4] = { { 0, 1, 3, 4 }, { 0, 1, 2, 4 }, { 0, 2, 3, 4 } };
    static const int path_edges[3][3] = { { E01, E13, E34 }, { E01, E12, E24 }, { E02, E23, E34 } };
    for (int i = 0; i < 3; i++) {
        int k = flow_frames[i];
        const int32_t *pi_before = tr.pi + (k - 1) * 5;
        bool path_right = true;
        for (int j = 3; j > 0; j--)
            path_right &= pi_before[paths[i][j]] == paths[i][j - 1];
        CHECK(path_right, "worked example: the path augmented at frame %d is %d-%d-%d-%d", k, paths[i][0],
              paths[i][1], paths[i][2], paths[i][3]);
        bool reset = tr.mask[k * 5] == 1;
        for (int v = 0; v < 5; v++)
            reset &= tr.pi[k * 5 + v] == v && (v == 0 || tr.mask[k * 5 + v] == 0);
        CHECK(reset, "worked example: flow frame %d has mask e_s and identity pointers", k);
        /* The flow changes only at flow frames, and there by the increment
         * along the path (in the path's direction: every path edge is
         * stored src -> dst). */
        bool flow_right = true;
        for (int e = 0; e < 7; e++) {
            int64_t change = tr.flow[k * 7 + e] - tr.flow[(k - 1) * 7 + e];
            bool on_path = e == path_edges[i][0] || e == path_edges[i][1] || e == path_edges[i][2];
            flow_right &= change == (on_path ? increments[i] : 0);
        }
        for (int j = k - 4; j < k; j++)
            flow_right &= memcmp(tr.flow + j * 7, tr.flow + (j - 1) * 7, 7 * sizeof *tr.flow) == 0;
        CHECK(flow_right, "worked example: flow frame %d adds %lld tenths along the path, BF frames keep it", k,
              (long long)increments[i]);
    }
    /* Last phase: s's two edges are saturated, so its one round reaches
     * nothing and is the "no change" frame. */
    bool last_right = tr.mask[16 * 5] == 1 && tr.phase[16] == 1;
    for (int v = 1; v < 5; v++)
        last_right &= tr.mask[16 * 5 + v] == 0;
    CHECK(last_right, "worked example: frame 16 is the final BF frame and s reaches nothing");
    CHECK(memcmp(tr.flow + 16 * 7, expected_flow, sizeof expected_flow) == 0,
          "worked example: the last frame holds the final flow");
    trace_free(&tr);
}

/* A path that runs against an arc carrying flow cancels that flow before
 * using the antiparallel arc's own capacity.  Arcs: e0 0->1 (1), e1 1->2 (1),
 * e2 2->1 (5), e3 2->3 (1), e4 0->2 (1), e5 1->3 (1).  The weights make the
 * first path 0-1-2-3 and the second 0-2-1-3, which must return e1's unit. */
static void test_antiparallel_cancels_first(void)
{
    static const int32_t src[] = { 0, 1, 2, 2, 0, 1 }, dst[] = { 1, 2, 1, 3, 2, 3 };
    static const int64_t cap[] = { 1, 1, 5, 1, 1, 1 };
    static const float w[] = { .1f, .1f, .9f, .1f, .5f, .9f };
    struct flownet g = { .n = 4, .m = 6, .s = 0, .t = 3, .directed = true,
                         .src = src, .dst = dst, .cap = cap, .w = w };
    struct trace tr;
    int64_t flow[6];
    uint8_t cut[4];
    int64_t value = maxflow_trace(&g, &tr, flow, cut);
    static const int64_t expected[] = { 1, 0, 0, 1, 1, 1 };
    CHECK(value == 2 && memcmp(flow, expected, sizeof expected) == 0,
          "antiparallel arcs: value %lld, flow %lld %lld %lld %lld %lld %lld (expected 2: 1 0 0 1 1 1)",
          (long long)value, (long long)flow[0], (long long)flow[1], (long long)flow[2], (long long)flow[3],
          (long long)flow[4], (long long)flow[5]);
    trace_free(&tr);
}

static void test_flow_feasible(void)
{
    static const int32_t src[] = { 0, 1, 0 }, dst[] = { 1, 2, 2 };
    static const int64_t cap[] = { 3, 2, 1 };
    struct flownet undirected = { .n = 3, .m = 3, .s = 0, .t = 2, .directed = false,
                                  .src = src, .dst = dst, .cap = cap };
    struct flownet directed = undirected;
    directed.directed = true;
    int64_t value;
    bool ok = flow_feasible(&undirected, (const int64_t[]){ 2, 2, 1 }, &value);
    CHECK(ok && value == 3, "flow_feasible: a maximum flow is feasible with value 3 (got %d, %lld)", ok,
          (long long)value);
    ok = flow_feasible(&undirected, (const int64_t[]){ -1, -1, -1 }, &value);
    CHECK(ok && value == -2, "flow_feasible: undirected edges carry flow backwards (value %lld)", (long long)value);
    CHECK(!flow_feasible(&directed, (const int64_t[]){ -1, -1, -1 }, &value),
          "flow_feasible: directed arcs carry no negative flow");
    CHECK(!flow_feasible(&undirected, (const int64_t[]){ 3, 3, 0 }, &value), "flow_feasible: capacity is enforced");
    CHECK(!flow_feasible(&undirected, (const int64_t[]){ -4, -4, 0 }, &value),
          "flow_feasible: capacity is enforced backwards too");
    CHECK(!flow_feasible(&undirected, (const int64_t[]){ 2, 1, 0 }, &value),
          "flow_feasible: conservation is enforced");
}

/* ---- random graphs ------------------------------------------------------------ */

enum { FAILURE_VALUES, FAILURE_FEASIBLE, FAILURE_CUT_CAPACITY, FAILURE_CUT_ENDS, FAILURE_SOURCE_MAXIMAL,
       FAILURE_TRACE_SHAPE, FAILURE_KINDS };
static const char *failure_names[FAILURE_KINDS] = {
    "trace, fast and oracle values agree",
    "both flows are feasible with that value",
    "cut capacity equals the value",
    "cut[s] = 0 and cut[t] = 1",
    "the cut is the set reaching t in the residual of either flow (naive search)",
    "the trace's frames are consistent (phases, flow frames, last frame)",
};

struct random_results {
    int graphs, traced, disconnected, directed;
    int failures[FAILURE_KINDS];
    char first_failure[FAILURE_KINDS][160];
};

static void note_failure(struct random_results *res, int kind, const struct test_graph *tg, int index)
{
    if (res->failures[kind]++ == 0)
        snprintf(res->first_failure[kind], sizeof res->first_failure[kind],
                 "first at graph %d (%s, n=%d, m=%d, s=%d, t=%d)", index, tg->family, tg->n, tg->m, tg->s, tg->t);
}

static bool trace_consistent(const struct trace *tr, const struct flownet *g, const int64_t *flow)
{
    if (tr->steps < 2 || tr->phase[0] != 1 || tr->phase[tr->steps - 1] != 1)
        return false;
    if (memcmp(tr->flow + (size_t)(tr->steps - 1) * g->m, flow, (size_t)g->m * sizeof *flow) != 0)
        return false;
    for (int k = 0; k < tr->steps; k++) {
        const uint8_t *mask = tr->mask + (size_t)k * g->n;
        const int32_t *pi = tr->pi + (size_t)k * g->n;
        if (!mask[g->s] || pi[g->s] != g->s)
            return false;
        for (int v = 0; v < g->n; v++)
            if (!mask[v] && pi[v] != v)
                return false;
        if (tr->phase[k] == 0) {
            /* A flow frame follows a "no change" frame that reached t. */
            if (k < 2 || !tr->mask[(size_t)(k - 1) * g->n + g->t] ||
                memcmp(tr->mask + (size_t)(k - 1) * g->n, tr->mask + (size_t)(k - 2) * g->n, (size_t)g->n) != 0)
                return false;
            for (int v = 0; v < g->n; v++)
                if (pi[v] != v || mask[v] != (v == g->s))
                    return false;
        }
    }
    return !tr->mask[(size_t)(tr->steps - 1) * g->n + g->t];
}

static void check_one_graph(struct random_results *res, const struct test_graph *tg, int index, bool trace)
{
    struct flownet g = graph_net(tg);
    int64_t *fast_flow = xmalloc(((size_t)g.m + 1) * sizeof *fast_flow);
    int64_t *trace_flow = xmalloc(((size_t)g.m + 1) * sizeof *trace_flow);
    uint8_t *fast_cut = xmalloc((size_t)g.n), *trace_cut = xmalloc((size_t)g.n), *reaches = xmalloc((size_t)g.n);
    int64_t fast_value = maxflow_fast(&g, fast_flow, fast_cut);
    int64_t oracle_value = maxflow_oracle(&g);
    int64_t trace_value = fast_value;
    res->graphs++;
    res->directed += g.directed;
    res->disconnected += fast_value == 0;

    int64_t feasible_value;
    bool values_agree = fast_value == oracle_value;
    bool feasible = flow_feasible(&g, fast_flow, &feasible_value) && feasible_value == fast_value;
    bool cut_right = cut_capacity(&g, fast_cut) == fast_value;
    bool ends_right = fast_cut[g.s] == 0 && fast_cut[g.t] == 1;
    naive_reaches_sink(&g, fast_flow, reaches);
    bool source_maximal = memcmp(reaches, fast_cut, (size_t)g.n) == 0;
    if (trace) {
        struct trace tr;
        res->traced++;
        trace_value = maxflow_trace(&g, &tr, trace_flow, trace_cut);
        values_agree &= trace_value == fast_value;
        feasible &= flow_feasible(&g, trace_flow, &feasible_value) && feasible_value == trace_value;
        cut_right &= cut_capacity(&g, trace_cut) == trace_value;
        ends_right &= trace_cut[g.s] == 0 && trace_cut[g.t] == 1;
        /* Each algorithm's cut must be what the other's flow leaves. */
        source_maximal &= memcmp(trace_cut, fast_cut, (size_t)g.n) == 0;
        naive_reaches_sink(&g, trace_flow, reaches);
        source_maximal &= memcmp(reaches, fast_cut, (size_t)g.n) == 0;
        if (!trace_consistent(&tr, &g, trace_flow))
            note_failure(res, FAILURE_TRACE_SHAPE, tg, index);
        trace_free(&tr);
    }
    if (!values_agree)
        note_failure(res, FAILURE_VALUES, tg, index);
    if (!feasible)
        note_failure(res, FAILURE_FEASIBLE, tg, index);
    if (!cut_right)
        note_failure(res, FAILURE_CUT_CAPACITY, tg, index);
    if (!ends_right)
        note_failure(res, FAILURE_CUT_ENDS, tg, index);
    if (!source_maximal)
        note_failure(res, FAILURE_SOURCE_MAXIMAL, tg, index);
    free(fast_flow);
    free(trace_flow);
    free(fast_cut);
    free(trace_cut);
    free(reaches);
}

static void test_random_graphs(int count)
{
    struct random_results res = { 0 };
    struct test_graph tg = { 0 };
    /* Densities as expected degree (sparse: s and t often apart) or as
     * probabilities (dense). */
    static const double degrees[] = { 0.5, 1, 1.5, 2, 3, 5 };
    static const double probabilities[] = { 0.05, 0.15, 0.4, 0.8 };
    clock_t started = clock();
    for (int i = 0; i < count; i++) {
        struct rng r;
        rng_init(&r, SEED, STREAM_RANDOM, (uint64_t)i);
        int n = 4 + (int)rng_below(&r, 125);
        int recipe = i % 8;
        if (recipe < 6) {
            bool directed = recipe % 2;
            double p = recipe < 4 ? degrees[rng_below(&r, 6)] / n : probabilities[rng_below(&r, 4)];
            /* Dense and large makes the oracle and the trace slow (many
             * small augmentations) without testing anything new: keep the
             * expected number of pairs below about 800. */
            if (p * n * (n - 1) > 1600)
                p = 1600.0 / (n * (n - 1));
            int components = recipe == 2 || recipe == 3 ? 2 + (int)rng_below(&r, 4) : 1;
            int max_cap = rng_below(&r, 4) == 0 ? 1 : 20;
            generate_random(&tg, &r, n, directed, p > 1 ? 1 : p, components, max_cap);
        } else if (recipe == 6) {
            generate_two_community(&tg, &r, 4 + 2 * (int)rng_below(&r, 31), rng_below(&r, 2) ? 0.75 : 0.35,
                                   rng_below(&r, 2) ? WEIGHT_MAX_OF_TWO : WEIGHT_UNIFORM);
        } else {
            generate_bipartite(&tg, &r, 4 + (int)rng_below(&r, 61));
        }
        /* A trace stores T*m flows; skip it where that would be large. */
        check_one_graph(&res, &tg, i, (long long)tg.n * tg.m <= 20000);
    }
    graph_release(&tg);
    double seconds = (double)(clock() - started) / CLOCKS_PER_SEC;
    printf("# %d random graphs (%d directed, %d with max flow 0), %d traced, %.2f s\n", res.graphs, res.directed,
           res.disconnected, res.traced, seconds);
    for (int k = 0; k < FAILURE_KINDS; k++)
        CHECK(res.failures[k] == 0, "random graphs: %s (%d failures%s%s)", failure_names[k], res.failures[k],
              res.failures[k] ? ", " : "", res.first_failure[k]);
    CHECK(res.traced >= count / 2, "random graphs: the trace ran on %d of %d", res.traced, res.graphs);
}

/* ---- maxflow_trace_frames: one trace reused over a stream -------------------- */

/* Whether the reused trace b holds the same frames as the fresh trace a, and
 * its distinct flows are a's flow frames in order (frame 0 the zero flow). */
static bool same_frames(const struct trace *a, const struct trace *b, int n, int m)
{
    if (a->steps != b->steps || memcmp(a->phase, b->phase, (size_t)a->steps) != 0 ||
        memcmp(a->mask, b->mask, (size_t)a->steps * n) != 0 ||
        memcmp(a->pi, b->pi, (size_t)a->steps * n * sizeof *a->pi) != 0 || b->flow != NULL)
        return false;
    int flow_frames = 0;
    for (int k = 0; k < a->steps; k++) {
        flow_frames += a->phase[k] == 0;
        if (memcmp(a->flow + (size_t)k * m, b->flows + (size_t)flow_frames * m, (size_t)m * sizeof *a->flow) != 0)
            return false;
    }
    return b->flow_count == flow_frames + 1;
}

/* The graphs grow and shrink from one to the next, so the reused arrays are
 * both too small and larger than needed along the way. */
static void test_trace_frames_reused(int count)
{
    struct test_graph tg = { 0 };
    struct trace reused = { 0 };
    int differ = 0, first_differing = -1;
    for (int i = 0; i < count; i++) {
        struct rng r;
        rng_init(&r, SEED, STREAM_REUSE, (uint64_t)i);
        int n = 2 + (int)rng_below(&r, i % 5 == 0 ? 80 : 12);
        if (i % 3 == 0)
            generate_two_community(&tg, &r, 4 + 2 * (int)rng_below(&r, 10), 0.75, WEIGHT_MAX_OF_TWO);
        else
            generate_random(&tg, &r, n, rng_below(&r, 2), 3.0 / n > 1 ? 1 : 3.0 / n, 1, 1 + (int)rng_below(&r, 20));
        struct flownet g = graph_net(&tg);
        int64_t *flow = xmalloc(((size_t)g.m + 1) * sizeof *flow), *reused_flow = xmalloc(((size_t)g.m + 1) * sizeof *flow);
        uint8_t *cut = xmalloc((size_t)g.n), *reused_cut = xmalloc((size_t)g.n);
        struct trace fresh;
        int64_t value = maxflow_trace(&g, &fresh, flow, cut);
        int64_t reused_value = maxflow_trace_frames(&g, &reused, reused_flow, reused_cut);
        bool same = value == reused_value && memcmp(flow, reused_flow, (size_t)g.m * sizeof *flow) == 0 &&
                    memcmp(cut, reused_cut, (size_t)g.n) == 0 && same_frames(&fresh, &reused, g.n, g.m);
        if (!same && differ++ == 0)
            first_differing = i;
        trace_free(&fresh);
        free(flow);
        free(reused_flow);
        free(cut);
        free(reused_cut);
    }
    trace_free(&reused);
    graph_release(&tg);
    CHECK(differ == 0, "maxflow_trace_frames, one trace reused over %d graphs: the frames, flows and cuts of "
          "maxflow_trace (%d differ, first %d)", count, differ, first_differing);
}

/* ---- the ways a round relaxes give the same trace ----------------------------- */

static bool same_traces(const struct trace *a, const struct trace *b, int n, int m)
{
    return a->steps == b->steps && memcmp(a->phase, b->phase, (size_t)a->steps) == 0 &&
           memcmp(a->mask, b->mask, (size_t)a->steps * n) == 0 &&
           memcmp(a->pi, b->pi, (size_t)a->steps * n * sizeof *a->pi) == 0 &&
           memcmp(a->flow, b->flow, (size_t)a->steps * m * sizeof *a->flow) == 0;
}

/* Small graphs relax dense rows where the CPU has AVX2, the others pair
 * lists: on graphs of 2 to 80 nodes, the default gives the pair lists'
 * frames, flow and cut, bit for bit. */
static void test_relax_ways(int count)
{
    struct test_graph tg = { 0 };
    int differ = 0, first = -1;
    for (int i = 0; i < count; i++) {
        struct rng r;
        rng_init(&r, SEED, STREAM_RELAX, (uint64_t)i);
        int n = 2 + (int)rng_below(&r, 79);
        if (i % 4 == 0)
            generate_two_community(&tg, &r, 4 + 2 * (int)rng_below(&r, 31), rng_below(&r, 2) ? 0.75 : 0.35,
                                   rng_below(&r, 2) ? WEIGHT_MAX_OF_TWO : WEIGHT_UNIFORM);
        else if (i % 4 == 1)
            generate_bipartite(&tg, &r, 4 + (int)rng_below(&r, 61));
        else
            generate_random(&tg, &r, n, rng_below(&r, 2), (1 + rng_below(&r, 6)) / (double)n, 1 + (int)rng_below(&r, 2),
                            1 + (int)rng_below(&r, 20));
        struct flownet g = graph_net(&tg);
        size_t edges = (size_t)g.m + 1;
        int64_t *flow = xmalloc(edges * sizeof *flow), *dense_flow = xmalloc(edges * sizeof *flow);
        uint8_t *cut = xmalloc((size_t)g.n), *dense_cut = xmalloc((size_t)g.n);
        struct trace pairs, dense;
        maxflow_relax = RELAX_PAIR_LISTS;
        int64_t value = maxflow_trace(&g, &pairs, flow, cut);
        maxflow_relax = RELAX_AUTO;
        int64_t dense_value = maxflow_trace(&g, &dense, dense_flow, dense_cut);
        bool same = value == dense_value && memcmp(flow, dense_flow, (size_t)g.m * sizeof *flow) == 0 &&
                    memcmp(cut, dense_cut, (size_t)g.n) == 0 && same_traces(&pairs, &dense, g.n, g.m);
        if (!same && differ++ == 0)
            first = i;
        trace_free(&pairs);
        trace_free(&dense);
        free(flow);
        free(dense_flow);
        free(cut);
        free(dense_cut);
    }
    graph_release(&tg);
#if defined(__x86_64__) && defined(__GNUC__)
    const char *how = __builtin_cpu_supports("avx2") ? "dense rows (AVX2)" : "no AVX2 on this CPU: the pair lists too,";
#else
    const char *how = "not x86-64: the pair lists too,";
#endif
    CHECK(differ == 0, "%d graphs: %s give the pair lists' trace (%d differ, first %d)", count, how, differ, first);
}

/* ---- trajectory lengths on the paper's 16-node graphs ------------------------ */

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* T mean, median and maximum and the augmentations' mean and maximum over
 * 1000 paper-sized graphs; returns the T mean. */
static double two_community_statistics(enum weight_law law)
{
    enum { GRAPHS = 1000 };
    int lengths[GRAPHS], most_augmentations = 0;
    long total_length = 0, total_augmentations = 0;
    struct test_graph tg = { 0 };
    struct trace tr;
    int64_t flow[16 * 16];
    uint8_t cut[16];
    for (int i = 0; i < GRAPHS; i++) {
        struct rng r;
        rng_init(&r, SEED, STREAM_COMMUNITY_STATISTICS, (uint64_t)i);
        generate_two_community(&tg, &r, 16, 0.75, law);
        struct flownet g = graph_net(&tg);
        maxflow_trace(&g, &tr, flow, cut);
        int augmentations = 0;
        for (int k = 0; k < tr.steps; k++)
            augmentations += tr.phase[k] == 0;
        lengths[i] = tr.steps;
        total_length += tr.steps;
        total_augmentations += augmentations;
        if (augmentations > most_augmentations)
            most_augmentations = augmentations;
        trace_free(&tr);
    }
    graph_release(&tg);
    qsort(lengths, GRAPHS, sizeof *lengths, compare_ints);
    double mean = (double)total_length / GRAPHS;
    printf("# two-community n=16 p=0.75, %d graphs, exact arithmetic, w %s: T mean %.1f, median %.1f, max %d; "
           "augmentations mean %.2f, max %d\n", GRAPHS, law == WEIGHT_UNIFORM ? "U[0,1)" : "max of two U[0,1)",
           mean, (lengths[GRAPHS / 2 - 1] + lengths[GRAPHS / 2]) / 2.0, lengths[GRAPHS - 1],
           (double)total_augmentations / GRAPHS, most_augmentations);
    return mean;
}

/* The sanity target holds for the reference's law of weights.  Weights
 * U[0,1) per edge give longer traces (T mean about 62): small weights make
 * many-hop paths cheapest, so Bellman-Ford phases take more rounds.  Printed
 * for whoever chooses the generator's weights. */
static void test_two_community_statistics(void)
{
    double mean = two_community_statistics(WEIGHT_MAX_OF_TWO);
    printf("# reference (dar-reference.md §2, W = max(R, R^T)): T mean 48.1 exact, 50.3 float64; median 46, "
           "max 165; augmentations 7.3 / 23 (float64)\n");
    CHECK(mean >= 44 && mean <= 53, "two-community n=16: T mean %.1f within 44..53 (w as the reference's W)", mean);
    two_community_statistics(WEIGHT_UNIFORM);
}

/* ---- a medium graph: fast against the oracle --------------------------------- */

static int compare_pairs(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void test_medium_graph(bool directed)
{
    enum { NODES = 20000, EDGES = 60000 };
    struct rng r;
    rng_init(&r, SEED, STREAM_MEDIUM, directed);
    struct test_graph tg = { 0 };
    graph_start(&tg, "medium", NODES, directed);
    /* Random endpoints may repeat a pair, which a network may not: sort the
     * pairs and drop repeats (a handful in 60,000). */
    int64_t *pairs = xmalloc(EDGES * sizeof *pairs);
    for (int e = 0; e < EDGES; e++) {
        int u = (int)rng_below(&r, NODES), v = (int)rng_below(&r, NODES - 1);
        v += v >= u;
        if (!directed && u > v) {
            int x = u;
            u = v;
            v = x;
        }
        pairs[e] = (int64_t)u * NODES + v;
    }
    qsort(pairs, EDGES, sizeof *pairs, compare_pairs);
    for (int e = 0; e < EDGES; e++)
        if (e == 0 || pairs[e] != pairs[e - 1])
            graph_add(&tg, (int)(pairs[e] / NODES), (int)(pairs[e] % NODES), (int64_t)rng_below(&r, 21),
                      rng_uniform_f32(&r));
    free(pairs);
    graph_scramble(&tg, &r);
    tg.s = 0;
    tg.t = NODES - 1;
    struct flownet g = graph_net(&tg);
    int64_t *flow = xmalloc((size_t)g.m * sizeof *flow);
    uint8_t *cut = xmalloc(NODES), *reaches = xmalloc(NODES);
    clock_t started = clock();
    int64_t value = maxflow_fast(&g, flow, cut);
    double fast_seconds = (double)(clock() - started) / CLOCKS_PER_SEC;
    started = clock();
    int64_t oracle = maxflow_oracle(&g);
    double oracle_seconds = (double)(clock() - started) / CLOCKS_PER_SEC;
    int64_t feasible_value;
    bool feasible = flow_feasible(&g, flow, &feasible_value) && feasible_value == value;
    naive_reaches_sink(&g, flow, reaches);
    CHECK(value == oracle && value > 0, "medium %s graph (20k nodes, 60k edges): fast %lld == oracle %lld "
          "(%.3f s vs %.3f s)", directed ? "directed" : "undirected", (long long)value, (long long)oracle,
          fast_seconds, oracle_seconds);
    CHECK(feasible && cut_capacity(&g, cut) == value && memcmp(cut, reaches, NODES) == 0,
          "medium %s graph: flow feasible, cut capacity = value, cut source-maximal",
          directed ? "directed" : "undirected");
    free(flow);
    free(cut);
    free(reaches);
    graph_release(&tg);
}

int main(void)
{
    check_file_name = "maxflow";
    test_worked_example();
    test_antiparallel_cancels_first();
    test_flow_feasible();
    test_random_graphs(10000);
    test_trace_frames_reused(2000);
    test_relax_ways(3000);
    test_two_community_statistics();
    test_medium_graph(true);
    test_medium_graph(false);
    return check_done();
}
