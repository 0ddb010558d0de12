/* test_mincost.c - min-cost maximum flow (common/flow/mincost.h) on hand
 * cases whose optimum is worked out in the comments: parallel and
 * antiparallel arcs, a path that cancels flow, zero capacities, no s-t
 * path, negative costs on a DAG, the refusals (negative capacity, a cycle of
 * negative cost, sums past the exact scale, a trace over its limit), the
 * float-cost scale, and the certificate on optimal, costlier, infeasible
 * and smaller flows.  tests/280-mincost.bats holds the solver to networkx
 * on hundreds of random graphs. */
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
    return check_done();
}
