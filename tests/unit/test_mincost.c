/* test_mincost.c - min-cost maximum flow (common/flow/mincost.h) on hand
 * cases whose optimum is worked out in the comments: parallel and
 * antiparallel arcs, a path that cancels flow, zero capacities, no s-t
 * path, negative costs on a DAG, the refusals (negative capacity, a cycle of
 * negative cost, sums past the exact scale, a trace over its limit), the
 * float-cost scale, the certificate on optimal, costlier, infeasible
 * and smaller flows, and the rounds trace (a frame per relaxation round)
 * worked out by hand, with the tie where its pointers leave Dijkstra's.
 * tests/280-mincost.bats holds the solver to networkx on hundreds of
 * random graphs. */
#include "check.h"
#include "mincost.h"
#include <stdlib.h>
#include <string.h>

struct arc {
    int32_t u, v;
    int64_t cap, cost;
};

/* A network over up to 16 arcs, held in static arrays per call site. */
struct hand {
    struct mincost_net net;
    int32_t src[16], dst[16];
    int64_t cap[16], cost[16];
};

static void hand_init(struct hand *h, int n, int s, int t, const struct arc *arcs, int m)
{
    h->net = (struct mincost_net){.n = n, .m = m, .s = s, .t = t, .src = h->src, .dst = h->dst, .cap = h->cap,
                                  .cost = h->cost};
    for (int e = 0; e < m; e++) {
        h->src[e] = arcs[e].u;
        h->dst[e] = arcs[e].v;
        h->cap[e] = arcs[e].cap;
        h->cost[e] = arcs[e].cost;
    }
}

/* Solve, and check value, cost, rounds and that the solver's own flow and
 * potentials are certified optimal and maximum. */
static bool solve(const struct hand *h, struct mincost_solution *sol, struct mincost_trace *tr, const char *name,
                  int64_t value, int64_t cost, int rounds)
{
    struct mincost_error err;
    struct mincost_certificate c;
    bool ok = mincost_flow(&h->net, sol, tr, 0, &err);
    CHECK(ok, "%s: solved", name);
    if (!ok)
        return false;
    CHECK(sol->value == value && sol->cost == cost && sol->rounds == rounds,
          "%s: value %lld cost %lld in %d rounds (expected %lld, %lld, %d)", name, (long long)sol->value,
          (long long)sol->cost, sol->rounds, (long long)value, (long long)cost, rounds);
    CHECK(mincost_certify(&h->net, sol->flow, sol->potential, &c, &err) && c.feasible && c.maximum && c.optimal &&
          c.gap == 0 && c.negative_arcs == 0 && c.value == value && c.cost == cost,
          "%s: the solution certifies itself optimal and maximum", name);
    return true;
}

/* s=0, t=3; arcs 0-1 (2, 1), 0-2 (2, 2), 1-3 (1, 1), 2-3 (2, 1), 1-2 (1, 0).
 * Rounds: 0-1-3 (cost 2), 0-1-2-3 (2), 0-2-3 (3), then t is cut off: value 3,
 * cost 7. */
static const struct arc diamond[] = {{0, 1, 2, 1}, {0, 2, 2, 2}, {1, 3, 1, 1}, {2, 3, 2, 1}, {1, 2, 1, 0}};

static void test_diamond_and_trace(void)
{
    struct hand h;
    hand_init(&h, 4, 0, 3, diamond, 5);
    struct mincost_solution sol;
    struct mincost_trace tr;
    if (!solve(&h, &sol, &tr, "diamond", 3, 7, 4))
        return;
    const int64_t flow[] = {2, 1, 1, 2, 1};
    CHECK(memcmp(sol.flow, flow, sizeof flow) == 0, "diamond: the flow per arc");
    CHECK(tr.rounds == 4 && tr.amount[0] == 1 && tr.amount[1] == 1 && tr.amount[2] == 1 && tr.amount[3] == 0,
          "diamond: one unit per round, none in the last");
    /* Non-negative costs: Bellman-Ford's start is 0 everywhere. */
    CHECK(tr.potential[0] == 0 && tr.potential[1] == 0 && tr.potential[2] == 0 && tr.potential[3] == 0,
          "diamond: the potentials start at 0");
    /* Round 0 from 0: d(1) = 1, d(2) = min(2, 1+0) = 1 through 1, d(3) = 2. */
    CHECK(tr.distance[0] == 0 && tr.distance[1] == 1 && tr.distance[2] == 1 && tr.distance[3] == 2 &&
          tr.pointer[2] == 1 && tr.pointer_arc[2] == 2 * 4 && tr.pointer[3] == 1 && tr.pointer_arc[3] == 2 * 2,
          "diamond: round 0's distances and pointers");
    CHECK(tr.pointer[0] == 0 && tr.pointer_arc[0] == -1, "diamond: s points to itself");
    CHECK(tr.distance[3 * 4 + 3] == MINCOST_UNREACHED && tr.pointer[3 * 4 + 3] == 3 &&
          tr.pointer_arc[3 * 4 + 3] == -1, "diamond: the last round does not reach t");
    CHECK(memcmp(tr.flow + 3 * 5, sol.flow, sizeof flow) == 0 && memcmp(tr.flow + 2 * 5, sol.flow, sizeof flow) == 0,
          "diamond: the last round keeps the flow of the one before");
    CHECK(tr.flow[0] == 1 && tr.flow[2] == 1 && tr.flow[1] == 0, "diamond: the flow after round 0 is path 0-1-3");
    CHECK(memcmp(tr.potential + 4 * 4, sol.potential, 4 * sizeof *sol.potential) == 0,
          "diamond: the trace's last potentials are the solution's");

    /* The same value on a costlier flow: 0-1 1, 0-2 2, 1-3 1, 2-3 2 costs
     * 8; the gap bounds the excess (>= 1). */
    struct mincost_certificate c;
    struct mincost_error err;
    const int64_t costlier[] = {1, 2, 1, 2, 0};
    CHECK(mincost_certify(&h.net, costlier, sol.potential, &c, &err) && c.feasible && c.maximum && !c.optimal &&
          c.cost == 8 && c.gap >= 1 && c.negative_arcs > 0 && c.worst_arc >= 0 && c.worst_reduced < 0,
          "diamond: a costlier maximum flow has a gap (%lld) and a residual arc of negative reduced cost",
          (long long)c.gap);
    const int64_t leaky[] = {2, 1, 1, 2, 0};
    CHECK(mincost_certify(&h.net, leaky, sol.potential, &c, &err) && !c.feasible && !c.optimal && c.gap == 0,
          "diamond: a flow that breaks conservation at node 1 is not feasible");
    const int64_t over[] = {3, 0, 1, 2, 2};
    CHECK(mincost_certify(&h.net, over, sol.potential, &c, &err) && !c.feasible, "diamond: over capacity");
    const int64_t smaller[] = {1, 1, 1, 1, 0};
    CHECK(mincost_certify(&h.net, smaller, sol.potential, &c, &err) && c.feasible && !c.maximum && c.value == 2,
          "diamond: a flow of value 2 is feasible but not maximum");
    int64_t wild[4] = {INT64_MIN, 0, 5, 0};   /* arc 0-2 then reduces to INT64_MIN - 3 */
    CHECK(!mincost_certify(&h.net, sol.flow, wild, &c, &err) && strcmp(err.key, "potential") == 0,
          "diamond: potentials that overflow a reduced cost are refused naming 'potential'");
    mincost_solution_free(&sol);
    mincost_trace_free(&tr);

    /* A trace limit of two rounds' bytes refuses a four-round trace. */
    CHECK(!mincost_flow(&h.net, &sol, &tr, 200, &err) && err.key == NULL && sol.flow == NULL && tr.distance == NULL,
          "diamond: a trace over --max-trace-bytes is refused (%s)", err.what);
}

/* The rounds trace (mincost_flow_as with rounds) on s=0, t=3, arcs 0-1 (cap
 * 1, cost 1), 0-2 (2, 4), 1-3 (2, 1), 2-3 (2, 1), 1-2 (1, 1); U unreached.
 * Search 0 (pi 0): its start; round 1 from 0: d(1) = 1, d(2) = 4; round 2
 * from 1: d(3) = 2 and d(2) = 1 + 1 = 2 through arc 1-2 (residual 8); from
 * 2 the offer 5 to 3 is no improvement; round 3 changes nothing, so no
 * frame.  Augmentation: pi += min(d, 2) = (0, 1, 2, 2), one unit on 0-1-3.
 * Search 1, reduced costs under that pi: 0-2 2, 2-3 1, 3->1 backwards 0
 * (residual 5), 1->0 0, 1-2 0: round 1 d(2) = 2; round 2 d(3) = 3 through
 * 2; round 3 d(1) = 3 through 3 over arc 5; round 4 none.  Augmentation: pi
 * += min(d, 3) = (0, 4, 4, 5), two units on 0-2-3.  Search 2: 0's arcs are
 * full, only its start.  T = 4 + 5 + 1 = 10; value 3, cost 1+1 + 2*(4+1) =
 * 12, Dijkstra's pointers every search, so the augmentation frames and the
 * last are mincost_flow's frames. */
#define U MINCOST_UNREACHED
static const struct arc roundnet[] = {{0, 1, 1, 1}, {0, 2, 2, 4}, {1, 3, 2, 1}, {2, 3, 2, 1}, {1, 2, 1, 1}};

static void test_rounds_trace(void)
{
    struct hand h;
    hand_init(&h, 4, 0, 3, roundnet, 5);
    struct mincost_solution sol, one;
    struct mincost_trace tr, one_tr;
    struct mincost_error err;
    bool ok = mincost_flow_as(&h.net, &sol, &tr, true, 0, &err);
    CHECK(ok && sol.value == 3 && sol.cost == 12 && sol.rounds == 3 && tr.rounds == 10,
          "rounds: value 3, cost 12, 3 searches in 10 frames (%lld, %lld, %d, %d)", (long long)sol.value,
          (long long)sol.cost, sol.rounds, tr.rounds);
    if (!ok || tr.rounds != 10)
        return;
    static const uint8_t phase[10] = {0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    static const int64_t distance[10][4] = {
        {0, U, U, U}, {0, 1, 4, U}, {0, 1, 2, 2}, {0, 1, 2, 2},
        {0, U, U, U}, {0, U, 2, U}, {0, U, 2, 3}, {0, 3, 2, 3}, {0, 3, 2, 3},
        {0, U, U, U}};
    static const int32_t pointer[10][4] = {
        {0, 1, 2, 3}, {0, 0, 0, 3}, {0, 0, 1, 1}, {0, 0, 1, 1},
        {0, 1, 2, 3}, {0, 1, 0, 3}, {0, 1, 0, 2}, {0, 3, 0, 2}, {0, 3, 0, 2},
        {0, 1, 2, 3}};
    static const int32_t pointer_arc[10][4] = {
        {-1, -1, -1, -1}, {-1, 0, 2, -1}, {-1, 0, 8, 4}, {-1, 0, 8, 4},
        {-1, -1, -1, -1}, {-1, -1, 2, -1}, {-1, -1, 2, 6}, {-1, 5, 2, 6}, {-1, 5, 2, 6},
        {-1, -1, -1, -1}};
    /* pi before frame 0, then after each */
    static const int64_t potential[11][4] = {
        {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 1, 2, 2},
        {0, 1, 2, 2}, {0, 1, 2, 2}, {0, 1, 2, 2}, {0, 1, 2, 2}, {0, 4, 4, 5}, {0, 4, 4, 5}};
    static const int64_t flow[10][5] = {
        {0}, {0}, {0}, {1, 0, 1, 0, 0}, {1, 0, 1, 0, 0}, {1, 0, 1, 0, 0}, {1, 0, 1, 0, 0}, {1, 0, 1, 0, 0},
        {1, 2, 1, 2, 0}, {1, 2, 1, 2, 0}};
    static const int64_t amount[10] = {0, 0, 0, 1, 0, 0, 0, 0, 2, 0};
    for (int f = 0; f < 10; f++)
        CHECK(tr.phase[f] == phase[f] && memcmp(tr.distance + f * 4, distance[f], sizeof distance[f]) == 0 &&
              memcmp(tr.pointer + f * 4, pointer[f], sizeof pointer[f]) == 0 &&
              memcmp(tr.pointer_arc + f * 4, pointer_arc[f], sizeof pointer_arc[f]) == 0 &&
              memcmp(tr.flow + f * 5, flow[f], sizeof flow[f]) == 0 && tr.amount[f] == amount[f],
              "rounds: frame %d by hand", f);
    CHECK(memcmp(tr.potential, potential, sizeof potential) == 0, "rounds: the potentials by hand");

    /* the one-frame trace's frames are the augmentation frames and the last */
    ok = mincost_flow(&h.net, &one, &one_tr, 0, &err);
    CHECK(ok && one_tr.rounds == 3 && one_tr.phase == NULL && memcmp(one.flow, sol.flow, 5 * sizeof *one.flow) == 0,
          "rounds: mincost_flow's 3 rounds, the same flow");
    static const int at[3] = {3, 8, 9};
    for (int r = 0; ok && r < 3; r++) {
        int f = at[r];
        CHECK(memcmp(one_tr.distance + r * 4, tr.distance + f * 4, 4 * sizeof *tr.distance) == 0 &&
              memcmp(one_tr.pointer + r * 4, tr.pointer + f * 4, 4 * sizeof *tr.pointer) == 0 &&
              memcmp(one_tr.pointer_arc + r * 4, tr.pointer_arc + f * 4, 4 * sizeof *tr.pointer_arc) == 0 &&
              memcmp(one_tr.potential + (r + 1) * 4, tr.potential + (f + 1) * 4, 4 * sizeof *tr.potential) == 0 &&
              memcmp(one_tr.flow + r * 5, tr.flow + f * 5, 5 * sizeof *tr.flow) == 0,
              "rounds: round %d of the one-frame trace is frame %d", r, f);
    }
    mincost_solution_free(&one);
    mincost_trace_free(&one_tr);
    mincost_solution_free(&sol);
    mincost_trace_free(&tr);

    /* Without a trace the same solution; a limit of two frames' bytes refuses it. */
    CHECK(mincost_flow_as(&h.net, &sol, NULL, true, 0, &err) && sol.value == 3 && sol.cost == 12 && sol.rounds == 3,
          "rounds: untraced, the same solution");
    mincost_solution_free(&sol);
    CHECK(!mincost_flow_as(&h.net, &sol, &tr, true, 300, &err) && err.key == NULL && sol.flow == NULL &&
          tr.distance == NULL && tr.phase == NULL, "rounds: a trace over its limit is refused (%s)", err.what);
}

/* The tie rules differ: s=0, t=4, arcs 0-1 (1, 0), 1-2 (1, 0), 2-4 (1, 2),
 * 0-3 (1, 1), 3-4 (1, 1): two shortest paths to 4, both of cost 2.
 * Dijkstra settles 0, 1, 2 (distance 0) before 3 (1), so 4 points to 2;
 * the rounds reach 4 in round 2 from 3, and round 3's offer from 2 is no
 * improvement, so 4 points to 3.  Each augments its own path first; both
 * end at value 2, cost 4. */
static const struct arc tie[] = {{0, 1, 1, 0}, {1, 2, 1, 0}, {2, 4, 1, 2}, {0, 3, 1, 1}, {3, 4, 1, 1}};

static void test_rounds_tie(void)
{
    struct hand h;
    hand_init(&h, 5, 0, 4, tie, 5);
    struct mincost_solution sol, one;
    struct mincost_trace tr, one_tr;
    struct mincost_error err;
    bool ok = mincost_flow_as(&h.net, &sol, &tr, true, 0, &err) && mincost_flow(&h.net, &one, &one_tr, 0, &err);
    CHECK(ok, "tie: solved both ways");
    if (!ok)
        return;
    /* search 0: its start, rounds 1 and 2, then the augmentation */
    CHECK(tr.phase[3] == MINCOST_PHASE_AUGMENT && tr.pointer[3 * 5 + 4] == 3 && tr.pointer[2 * 5 + 4] == 3 &&
          tr.distance[3 * 5 + 4] == 2 && one_tr.pointer[4] == 2 && one_tr.distance[4] == 2,
          "tie: the rounds end on 4 -> 3, Dijkstra on 4 -> 2, both at distance 2");
    CHECK(tr.flow[3 * 5 + 3] == 1 && tr.flow[3 * 5 + 2] == 0 && one_tr.flow[2] == 1 && one_tr.flow[3] == 0,
          "tie: each pushes the path its pointers show");
    CHECK(sol.value == 2 && sol.cost == 4 && one.value == 2 && one.cost == 4 &&
          memcmp(sol.flow, one.flow, 5 * sizeof *sol.flow) == 0, "tie: the same flow in the end, value 2, cost 4");
    mincost_solution_free(&sol);
    mincost_trace_free(&tr);
    mincost_solution_free(&one);
    mincost_trace_free(&one_tr);
}
#undef U

static void test_parallel_antiparallel(void)
{
    struct hand h;
    struct mincost_solution sol;
    /* Two parallel arcs 0-1, costs 5 and 1, into 1-2 of capacity 1: the
     * cheap one carries the unit. */
    const struct arc parallel[] = {{0, 1, 1, 5}, {0, 1, 1, 1}, {1, 2, 1, 0}};
    hand_init(&h, 3, 0, 2, parallel, 3);
    if (solve(&h, &sol, NULL, "parallel", 1, 1, 2)) {
        CHECK(sol.flow[0] == 0 && sol.flow[1] == 1, "parallel: the cheaper of two parallel arcs");
        mincost_solution_free(&sol);
    }
    /* s=0 a=1 b=2 t=3: 0-1 (1,1), 1-2 (1,1), 2-3 (1,1), 0-2 (1,3), 1-3 (1,3),
     * and 2-1 (1,1) antiparallel to 1-2.  Round 0 takes 0-1-2-3 (3); round 1
     * goes 0-2, back over 1-2 (-1, cancelling), 1-3: 5.  Total 8 =
     * 0-1-3 + 0-2-3, with no flow left on 1-2 or 2-1. */
    const struct arc anti[] = {{0, 1, 1, 1}, {1, 2, 1, 1}, {2, 3, 1, 1}, {0, 2, 1, 3}, {1, 3, 1, 3}, {2, 1, 1, 1}};
    hand_init(&h, 4, 0, 3, anti, 6);
    struct mincost_trace tr;
    if (solve(&h, &sol, &tr, "antiparallel", 2, 8, 3)) {
        CHECK(sol.flow[1] == 0 && sol.flow[5] == 0, "antiparallel: the second path cancels 1-2 instead of using 2-1");
        CHECK(tr.pointer[4 + 1] == 2 && tr.pointer_arc[4 + 1] == 2 * 1 + 1,
              "antiparallel: round 1 reaches node 1 over arc 1-2 backwards, not over 2-1");
        mincost_solution_free(&sol);
        mincost_trace_free(&tr);
    }
}

static void test_zero_capacity_and_no_path(void)
{
    struct hand h;
    struct mincost_solution sol;
    /* A zero-capacity shortcut of cost -100 carries nothing, and the cycle
     * of negative cost it closes with 2-0 does not count: it has no
     * capacity. */
    const struct arc zero[] = {{0, 2, 0, -100}, {0, 1, 1, 1}, {1, 2, 1, 1}, {2, 0, 5, 1}};
    hand_init(&h, 3, 0, 2, zero, 4);
    if (solve(&h, &sol, NULL, "zero capacity", 1, 2, 2)) {
        CHECK(sol.flow[0] == 0 && sol.flow[3] == 0, "zero capacity: no flow on the zero arc");
        mincost_solution_free(&sol);
    }
    /* t = 3 has arcs only out of it, and 0-1 leads nowhere else. */
    const struct arc none[] = {{0, 1, 4, 1}, {3, 2, 4, 1}, {2, 0, 1, 1}};
    hand_init(&h, 4, 0, 3, none, 3);
    if (solve(&h, &sol, NULL, "no s-t path", 0, 0, 1))
        mincost_solution_free(&sol);
    hand_init(&h, 2, 1, 0, NULL, 0);
    if (solve(&h, &sol, NULL, "no arcs", 0, 0, 1))
        mincost_solution_free(&sol);
}

static void test_negative_dag(void)
{
    /* 0-1 (2,-5), 1-3 (1,-5), 1-2 (2,2), 2-3 (2,0), 0-2 (1,4): value 3;
     * 0-1-3 (-10), 0-1-2-3 (-3), 0-2-3 (4): cost -9.  Bellman-Ford's start:
     * 0, -5, -3, -10. */
    const struct arc dag[] = {{0, 1, 2, -5}, {1, 3, 1, -5}, {1, 2, 2, 2}, {2, 3, 2, 0}, {0, 2, 1, 4}};
    struct hand h;
    hand_init(&h, 4, 0, 3, dag, 5);
    struct mincost_solution sol;
    struct mincost_trace tr;
    if (solve(&h, &sol, &tr, "negative DAG", 3, -9, 4)) {
        CHECK(tr.potential[0] == 0 && tr.potential[1] == -5 && tr.potential[2] == -3 && tr.potential[3] == -10,
              "negative DAG: the potentials start from Bellman-Ford");
        for (int r = 0; r < tr.rounds; r++)
            for (int v = 0; v < 4; v++)
                if (tr.distance[r * 4 + v] != MINCOST_UNREACHED && tr.distance[r * 4 + v] < 0)
                    CHECK(0, "negative DAG: round %d has a negative reduced distance at %d", r, v);
        CHECK(tr.distance[3] == 0, "negative DAG: round 0's path 0-1-3 is at reduced distance 0");
        mincost_solution_free(&sol);
        mincost_trace_free(&tr);
    }
}

/* Each refusal names its key and entry. */
static void refused(const struct arc *arcs, int m, const char *name, const char *key, int64_t index)
{
    struct hand h;
    hand_init(&h, 3, 0, 2, arcs, m);
    struct mincost_solution sol;
    struct mincost_error err;
    char line[320];
    bool ok = mincost_flow(&h.net, &sol, NULL, 0, &err);
    if (!ok)
        mincost_error_format(&err, line, sizeof line);
    CHECK(!ok && err.key && strcmp(err.key, key) == 0 && err.index == index && sol.flow == NULL,
          "%s: refused naming '%s' entry %lld (%s)", name, key, (long long)index, ok ? "accepted" : line);
}

static void test_refusals(void)
{
    refused((const struct arc[]){{0, 1, 1, 1}, {1, 2, -1, 1}}, 2, "negative capacity", "cap", 1);
    refused((const struct arc[]){{0, 1, 1, 1}, {1, 2, 1, -3}, {2, 1, 1, 2}}, 3, "negative cycle", "cost", 1);
    refused((const struct arc[]){{0, 1, INT64_MAX, 1}, {1, 2, 1, 1}}, 2, "capacities past 2^63", "cap", 1);
    refused((const struct arc[]){{0, 1, 1, (int64_t)1 << 59}, {1, 2, 1, 1}}, 2, "a cost past 2^58", "cost", 0);
    refused((const struct arc[]){{0, 1, 1, (int64_t)1 << 57}, {1, 2, 1, (int64_t)3 << 56}}, 2,
            "costs summing past 2^58", "cost", 1);
    refused((const struct arc[]){{0, 1, (int64_t)1 << 40, (int64_t)1 << 30}, {1, 2, 1, 1}}, 2,
            "cost times capacity past 2^63", "cost", 0);
    struct mincost_error err = {.key = "cost", .index = 3};
    strcpy(err.what, "is 5");
    char line[64];
    mincost_error_format(&err, line, sizeof line);
    CHECK(strcmp(line, "'cost' entry 3 is 5") == 0, "errors read \"'cost' entry 3 is ...\": %s", line);
}

static void test_cost_units(void)
{
    int64_t k[3], units = 0;
    struct mincost_error err;
    const float tenths[] = {3.0f, 0.1f, -0.7f};
    CHECK(mincost_cost_units(3, tenths, 0, k, &units, &err) && units == 10 && k[0] == 30 && k[1] == 1 && k[2] == -7,
          "cost units: k/10 costs in float32 scale by 10");
    const float quarters[] = {0.25f, -0.1f, 2.0f};
    CHECK(mincost_cost_units(3, quarters, 0, k, &units, &err) && units == 20 && k[0] == 5 && k[1] == -2 && k[2] == 40,
          "cost units: the smallest scale that makes every cost whole (20)");
    CHECK(mincost_cost_units(3, quarters, 100, k, &units, &err) && units == 100 && k[0] == 25,
          "cost units: the record's own scale first");
    const float fine[] = {1.0f, 0x1p-12f, 0.0f};
    CHECK(mincost_cost_units(3, fine, 0, k, &units, &err) && units == 4096 && k[0] == 4096 && k[1] == 1 && k[2] == 0,
          "cost units: a power of two past 1000");
    const float vanishing[] = {1.0f, 1e-7f, 0.0f};
    CHECK(!mincost_cost_units(3, vanishing, 0, k, &units, &err) && strcmp(err.key, "cost") == 0 && err.index == 1,
          "cost units: a cost 2^40 below the largest has no exact scale and is named (%s)", err.what);
    const float huge[] = {1e13f, 0.5f};
    CHECK(!mincost_cost_units(2, huge, 0, k, &units, &err) && strcmp(err.key, "cost") == 0,
          "cost units: a cost past 2^40 units is refused (%s)", err.what);
    const float nan[] = {1.0f, NAN};
    CHECK(!mincost_cost_units(2, nan, 0, k, &units, &err) && err.index == 1, "cost units: NaN is refused");
}

int main(void)
{
    check_file_name = "mincost";
    test_diamond_and_trace();
    test_parallel_antiparallel();
    test_zero_capacity_and_no_path();
    test_negative_dag();
    test_refusals();
    test_cost_units();
    test_rounds_trace();
    test_rounds_tie();
    return check_done();
}
