/* test_flowfix.c - the corrective procedure: hand-made cases with known
 * answers, 10,000 predicted flows on random graphs checked for feasibility
 * and against an exact max flow, feasible inputs returned bit for bit, and
 * timing on graphs of a few thousand nodes.
 *
 * The max-flow oracle is a Dinic written here on integer-valued doubles
 * (exact), certified on every graph by a cut of equal capacity, so this test
 * depends on nothing but flowfix.c, die.c and rng.c. */
#include "check.h"
#include "flowfix.h"
#include "die.h"
#include "rng.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct graph {
    int n, m, s, t;
    bool directed;
    int32_t *src, *dst;
    double *cap;
};

static void graph_free(struct graph *g)
{
    free(g->src);
    free(g->dst);
    free(g->cap);
}

/* This thread's CPU time, not the wall clock: the bounds below tell a
 * linear walk from a quadratic one (minutes), and another process on a
 * loaded machine must not decide that. */
static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* ---- random graphs ------------------------------------------------------ */

static void add_edge(struct graph *g, int *room, int u, int v, double c)
{
    if (g->m == *room) {
        *room = *room ? 2 * *room : 64;
        g->src = xrealloc(g->src, (size_t)*room * sizeof *g->src);
        g->dst = xrealloc(g->dst, (size_t)*room * sizeof *g->dst);
        g->cap = xrealloc(g->cap, (size_t)*room * sizeof *g->cap);
    }
    g->src[g->m] = u;
    g->dst[g->m] = v;
    g->cap[g->m] = c;
    g->m++;
}

/* Integer capacities 0..10 (about one in six is 0) or 0/1, so the oracle is
 * exact.  Families: "random" (Erdos-Renyi, mean degree 2..12) and
 * "two-community" (dense halves, a few edges between, s and t apart).
 * Directed graphs may hold both (u,v) and (v,u), never the same pair twice. */
static struct graph random_graph(struct rng *r, int n, bool directed, bool communities)
{
    struct graph g = { .n = n, .directed = directed };
    int room = 0;
    bool unit = rng_below(r, 4) == 0;
    double p_in, p_out;
    if (communities) {
        p_in = 0.3 + 0.45 * rng_uniform(r);
        p_out = fmin(1.0, (1 + rng_below(r, 4)) / (double)(n * n / 4));
    } else {
        double degree = 2 + rng_uniform(r) * fmin(10, n - 3);
        p_in = p_out = fmin(1.0, degree / (n - 1));
    }
    for (int u = 0; u < n; u++)
        for (int v = u + 1; v < n; v++) {
            bool same = !communities || ((u < n / 2) == (v < n / 2));
            if (rng_uniform(r) >= (same ? p_in : p_out))
                continue;
            int k = rng_below(r, 6);
            double c = unit ? (k != 0) : (k == 0 ? 0 : (double)(1 + rng_below(r, 10)));
            bool flip = rng_below(r, 2);
            add_edge(&g, &room, flip ? v : u, flip ? u : v, c);
            if (directed && rng_below(r, 4) == 0)
                add_edge(&g, &room, flip ? u : v, flip ? v : u, (double)rng_below(r, 11));
        }
    if (communities) {
        g.s = rng_below(r, n / 2);
        g.t = n / 2 + rng_below(r, n - n / 2);
    } else {
        g.s = rng_below(r, n);
        do g.t = rng_below(r, n); while (g.t == g.s);
    }
    return g;
}

/* ---- the oracle: Dinic on integer-valued doubles ------------------------ */

/* Arc 2e runs src->dst, arc 2e+1 dst->src; residuals follow from the net flow
 * f[e]: cap-f forward, and cap+f (undirected) or f (directed) backward. */
struct dinic {
    const struct graph *g;
    double *flow;
    int *start, *arcs, *level, *cursor, *queue;
};

static int arc_head(const struct dinic *d, int a)
{
    return (a & 1) ? d->g->src[a >> 1] : d->g->dst[a >> 1];
}

static double residual(const struct dinic *d, int a)
{
    int e = a >> 1;
    if (!(a & 1))
        return d->g->cap[e] - d->flow[e];
    return d->g->directed ? d->flow[e] : d->g->cap[e] + d->flow[e];
}

static bool dinic_levels(struct dinic *d)
{
    int n = d->g->n, head = 0, tail = 0;
    for (int v = 0; v < n; v++)
        d->level[v] = -1;
    d->level[d->g->s] = 0;
    d->queue[tail++] = d->g->s;
    while (head < tail) {
        int v = d->queue[head++];
        for (int i = d->start[v]; i < d->start[v + 1]; i++) {
            int a = d->arcs[i], w = arc_head(d, a);
            if (d->level[w] < 0 && residual(d, a) > 0) {
                d->level[w] = d->level[v] + 1;
                d->queue[tail++] = w;
            }
        }
    }
    return d->level[d->g->t] >= 0;
}

static double dinic_push(struct dinic *d, int v, double limit)
{
    if (v == d->g->t)
        return limit;
    for (; d->cursor[v] < d->start[v + 1]; d->cursor[v]++) {
        int a = d->arcs[d->cursor[v]], w = arc_head(d, a);
        double r = residual(d, a);
        if (d->level[w] != d->level[v] + 1 || r <= 0)
            continue;
        double got = dinic_push(d, w, fmin(limit, r));
        if (got > 0) {
            d->flow[a >> 1] += (a & 1) ? -got : got;
            return got;
        }
    }
    return 0;
}

/* Max flow into flow[m]; returns its value, or -1 if the flow it found is
 * not certified by a cut of the same capacity. */
static double exact_maxflow(const struct graph *g, double *flow)
{
    int n = g->n, m = g->m;
    struct dinic d = { .g = g, .flow = flow };
    d.start = xcalloc((size_t)n + 1, sizeof *d.start);
    d.arcs = xmalloc((size_t)(2 * m + 1) * sizeof *d.arcs);
    d.level = xmalloc((size_t)n * sizeof *d.level);
    d.cursor = xmalloc((size_t)n * sizeof *d.cursor);
    d.queue = xmalloc((size_t)n * sizeof *d.queue);
    for (int e = 0; e < m; e++) {
        d.start[g->src[e] + 1]++;
        d.start[g->dst[e] + 1]++;
        flow[e] = 0;
    }
    for (int v = 0; v < n; v++)
        d.start[v + 1] += d.start[v];
    int *fill = xmalloc((size_t)(n + 1) * sizeof *fill);
    memcpy(fill, d.start, (size_t)(n + 1) * sizeof *fill);
    for (int e = 0; e < m; e++) {
        d.arcs[fill[g->src[e]]++] = 2 * e;
        d.arcs[fill[g->dst[e]]++] = 2 * e + 1;
    }
    free(fill);
    double value = 0;
    while (dinic_levels(&d)) {
        memcpy(d.cursor, d.start, (size_t)n * sizeof *d.cursor);
        double got;
        while ((got = dinic_push(&d, g->s, INFINITY)) > 0)
            value += got;
    }
    /* Certificate: the nodes s still reaches (level >= 0) form a cut whose
     * capacity equals the value only if the flow is maximum. */
    double cut = 0;
    for (int e = 0; e < m; e++) {
        bool a = d.level[g->src[e]] >= 0, b = d.level[g->dst[e]] >= 0;
        if (a && !b)
            cut += g->cap[e];
        else if (b && !a && !g->directed)
            cut += g->cap[e];
    }
    free(d.start); free(d.arcs); free(d.level); free(d.cursor); free(d.queue);
    return cut == value ? value : -1;
}

/* ---- independent checks ------------------------------------------------- */

struct verdict {
    double capacity_excess;     /* worst |f| - cap, or -f on a directed arc */
    double conservation;        /* worst |in - out| at an inner node */
    double value;               /* net out of s */
};

static struct verdict judge(const struct graph *g, const double *f)
{
    struct verdict v = { 0, 0, 0 };
    double *balance = xcalloc((size_t)g->n, sizeof *balance);
    for (int e = 0; e < g->m; e++) {
        double low = g->directed ? 0 : -g->cap[e];
        v.capacity_excess = fmax(v.capacity_excess, fmax(f[e] - g->cap[e], low - f[e]));
        if (isnan(f[e]))
            v.capacity_excess = INFINITY;
        balance[g->dst[e]] += f[e];
        balance[g->src[e]] -= f[e];
        if (g->src[e] == g->s) v.value += f[e];
        if (g->dst[e] == g->s) v.value -= f[e];
    }
    for (int u = 0; u < g->n; u++)
        if (u != g->s && u != g->t)
            v.conservation = fmax(v.conservation, fabs(balance[u]));
    free(balance);
    return v;
}

static double largest_cap(const struct graph *g)
{
    double c = 0;
    for (int e = 0; e < g->m; e++)
        c = fmax(c, g->cap[e]);
    return c;
}

/* Run flow_fix and check everything that must hold for any input: capacity,
 * conservation (own count and the reported one), the reported conservation
 * before, the returned value, and that the output is a sub-flow of the
 * cleaned input (same sign, no larger).  Returns a description of the first
 * failure, or NULL. */
struct run {
    double *fixed, *before, *after, value;
    struct verdict verdict;
};

static const char *run_and_judge(const struct graph *g, const double *pred, struct run *out)
{
    static char why[256];
    int n = g->n, m = g->m;
    out->fixed = xmalloc((size_t)(m ? m : 1) * sizeof *out->fixed);
    out->before = xmalloc((size_t)n * sizeof *out->before);
    out->after = xmalloc((size_t)n * sizeof *out->after);
    out->value = flow_fix(n, m, g->s, g->t, g->directed, g->src, g->dst, g->cap, pred,
                          out->fixed, out->before, out->after);
    out->verdict = judge(g, out->fixed);
    double tol = 1e-6 * largest_cap(g);
    if (out->verdict.capacity_excess > 0)
        return snprintf(why, sizeof why, "capacity exceeded by %g", out->verdict.capacity_excess), why;
    if (out->verdict.conservation > tol)
        return snprintf(why, sizeof why, "conservation off by %g", out->verdict.conservation), why;
    if (!check_close(out->value, out->verdict.value, 1e-12, 1e-12))
        return snprintf(why, sizeof why, "value %.17g, recount %.17g", out->value, out->verdict.value), why;
    double *balance = xcalloc((size_t)n, sizeof *balance);
    for (int e = 0; e < m; e++) {
        balance[g->dst[e]] += pred[e];
        balance[g->src[e]] -= pred[e];
    }
    const char *bad = NULL;
    for (int v = 0; v < n && !bad; v++) {
        double want = (v == g->s || v == g->t) ? 0 : balance[v];
        if (!check_close(out->before[v], want, 1e-12, 1e-12))
            bad = "conservation_before wrong";
        else if (!(fabs(out->after[v]) <= tol) || ((v == g->s || v == g->t) && out->after[v] != 0))
            bad = "conservation_after not ~0";
    }
    free(balance);
    if (bad)
        return bad;
    for (int e = 0; e < m; e++) {
        double c = g->cap[e];
        double clean = fmax(fmin(pred[e], c), g->directed ? 0 : -c);
        if (out->fixed[e] * clean < 0 || fabs(out->fixed[e]) > fabs(clean))
            return snprintf(why, sizeof why, "edge %d: %g is not a part of %g", e, out->fixed[e], clean), why;
    }
    return NULL;
}

static void run_free(struct run *r)
{
    free(r->fixed);
    free(r->before);
    free(r->after);
}

static bool same_bits(const double *a, const double *b, int count)
{
    return count == 0 || memcmp(a, b, (size_t)count * sizeof *a) == 0;
}

/* ---- hand-made cases ---------------------------------------------------- */

static void test_small_cases(void)
{
    double fixed[8], before[8], after[8];

    /* s=0 -> 1 -> t=2 keeping half at 1: the excess goes back to s. */
    {
        int32_t src[] = { 0, 1 }, dst[] = { 1, 2 };
        double cap[] = { 1, 1 }, pred[] = { 1, 0.5 };
        double v = flow_fix(3, 2, 0, 2, true, src, dst, cap, pred, fixed, before, after);
        CHECK(fixed[0] == 0.5 && fixed[1] == 0.5 && v == 0.5 && before[1] == 0.5 && after[1] == 0
              && before[0] == 0 && before[2] == 0,
              "excess on a path returns to s (%g %g, value %g)", fixed[0], fixed[1], v);
    }
    /* The same path emitting more than it gets: the out-flow is lowered. */
    {
        int32_t src[] = { 0, 1 }, dst[] = { 1, 2 };
        double cap[] = { 1, 1 }, pred[] = { 0.25, 1 };
        double v = flow_fix(3, 2, 0, 2, false, src, dst, cap, pred, fixed, before, after);
        CHECK(fixed[0] == 0.25 && fixed[1] == 0.25 && v == 0.25 && before[1] == -0.75,
              "deficit on a path is lowered towards t (%g %g)", fixed[0], fixed[1]);
    }
    /* A deficit feeding an excess: the two cancel, s -> t flow untouched.
     * s=0, t=3; 0->3 carries 1; 1->2 carries 1 (1 emits from nothing, 2 keeps). */
    {
        int32_t src[] = { 0, 1 }, dst[] = { 3, 2 };
        double cap[] = { 1, 1 }, pred[] = { 1, 1 };
        double v = flow_fix(4, 2, 0, 3, true, src, dst, cap, pred, fixed, before, after);
        CHECK(fixed[0] == 1 && fixed[1] == 0 && v == 1,
              "an excess fed by a deficit cancels against it (%g %g)", fixed[0], fixed[1]);
    }
    /* Preference: node 2 keeps 1 and has in-flow from s (edge 0) and from
     * node 1 (edge 1) which is itself fed by a deficit node 3; the excess
     * goes to node 1's side and cancels at node 3, keeping s's flow.
     * 0=s, 4=t: 0->2 (1), 1->2 (1), 2->4 (1), 3->1 (1). */
    {
        int32_t src[] = { 0, 1, 2, 3 }, dst[] = { 2, 2, 4, 1 };
        double cap[] = { 1, 1, 1, 1 }, pred[] = { 1, 1, 1, 1 };
        double v = flow_fix(5, 4, 0, 4, true, src, dst, cap, pred, fixed, before, after);
        CHECK(fixed[0] == 1 && fixed[1] == 0 && fixed[2] == 1 && fixed[3] == 0 && v == 1,
              "excess prefers inner upstream over s and cancels at a deficit (value %g)", v);
    }
    /* Backward flow from t is cut before anything else: 0=s, 3=t,
     * s->1 (1), t->1 (1), 1->2 (1), 2->t (1): node 1 keeps 1. */
    {
        int32_t src[] = { 0, 3, 1, 2 }, dst[] = { 1, 1, 2, 3 };
        double cap[] = { 1, 1, 1, 1 }, pred[] = { 1, 1, 1, 1 };
        double v = flow_fix(4, 4, 0, 3, true, src, dst, cap, pred, fixed, before, after);
        CHECK(fixed[0] == 1 && fixed[1] == 0 && fixed[2] == 1 && fixed[3] == 1 && v == 1,
              "excess is taken from flow leaving t first (value %g)", v);
    }
    /* An excess downstream of a circulation: 1->2->3->1 carries 2, s->1
     * carries 1 and nothing leaves; the walk would circle, the cycle is
     * cancelled and the excess returns to s. */
    {
        int32_t src[] = { 0, 1, 2, 3, 3 }, dst[] = { 1, 2, 3, 1, 4 };
        double cap[] = { 1, 2, 2, 2, 1 }, pred[] = { 1, 2, 2, 2, 0 };
        double v = flow_fix(5, 5, 0, 4, true, src, dst, cap, pred, fixed, before, after);
        CHECK(fixed[0] == 0 && fixed[1] == 0 && fixed[2] == 0 && fixed[3] == 0 && fixed[4] == 0
              && v == 0, "a cycle upstream of an excess is cancelled (value %g)", v);
    }
    /* A circulation away from the error is kept: cycle 1->2->3->1 (1) and
     * a separate excess at 5 fed by s. */
    {
        int32_t src[] = { 1, 2, 3, 0, 5 }, dst[] = { 2, 3, 1, 5, 4 };
        double cap[] = { 1, 1, 1, 1, 1 }, pred[] = { 1, 1, 1, 1, 0.5 };
        double v = flow_fix(6, 5, 0, 4, false, src, dst, cap, pred, fixed, before, after);
        CHECK(fixed[0] == 1 && fixed[1] == 1 && fixed[2] == 1 && fixed[3] == 0.5 && fixed[4] == 0.5
              && v == 0.5, "a circulation away from the error is kept (value %g)", v);
    }
    /* Undirected, negative flows: s=0, t=2, edges {1,0} and {2,1} store the
     * path backwards; node 1 keeps 0.3. */
    {
        int32_t src[] = { 1, 2 }, dst[] = { 0, 1 };
        double cap[] = { 1, 1 }, pred[] = { -0.8, -0.5 };
        double v = flow_fix(3, 2, 0, 2, false, src, dst, cap, pred, fixed, before, after);
        CHECK(fixed[0] == -0.5 && fixed[1] == -0.5 && v == 0.5,
              "undirected negative flows keep their sign (%g %g, value %g)", fixed[0], fixed[1], v);
    }
    /* A feasible flow comes back bit for bit, -0.0 included, and the
     * conservation pointers may be NULL. */
    {
        /* s=0, t=2: {1,0} and {2,1} carry 0.7 along s->1->t, stored backwards. */
        int32_t src[] = { 1, 2, 0, 3 }, dst[] = { 0, 1, 3, 2 };
        double p2[] = { -0.7, -0.7, -0.0, 0 };
        double cap2[] = { 1, 1, 0.5, 0.5 };
        double v = flow_fix(4, 4, 0, 2, false, src, dst, cap2, p2, fixed, NULL, NULL);
        CHECK(same_bits(fixed, p2, 4) && signbit(fixed[2]) && v == 0.7,
              "a feasible undirected flow is returned bit for bit (value %g)", v);
    }
    /* Directed, slightly negative values are clamped to 0, then fixed. */
    {
        int32_t src[] = { 0, 1 }, dst[] = { 1, 2 };
        double cap[] = { 1, 1 }, pred[] = { 0.5, -1e-9 };
        double v = flow_fix(3, 2, 0, 2, true, src, dst, cap, pred, fixed, before, after);
        CHECK(fixed[0] == 0 && fixed[1] == 0 && !signbit(fixed[1]) && v == 0 && after[1] == 0,
              "a directed value below 0 is clamped (%g %g)", fixed[0], fixed[1]);
    }
    /* Imbalance within 1e-6 of the largest capacity counts as feasible. */
    {
        int32_t src[] = { 0, 1 }, dst[] = { 1, 2 };
        double cap[] = { 2, 2 }, pred[] = { 1 + 1e-6, 1 };
        double v = flow_fix(3, 2, 0, 2, true, src, dst, cap, pred, fixed, before, after);
        CHECK(same_bits(fixed, pred, 2) && after[1] == before[1] && v == pred[0],
              "an input balanced to 1e-6 of the largest capacity is accepted as it is");
    }
    /* Out of capacity and NaN are cleaned (not expected from dar-step). */
    {
        int32_t src[] = { 0, 1, 0 }, dst[] = { 1, 2, 2 };
        double cap[] = { 1, 1, 1 }, pred[] = { 3, NAN, -0.5 };
        double v = flow_fix(3, 3, 0, 2, false, src, dst, cap, pred, fixed, before, after);
        CHECK(fixed[0] == 0 && fixed[1] == 0 && fixed[2] == -0.5 && v == -0.5,
              "over-capacity and NaN are cleaned; flow from t to s is kept (%g %g %g)", fixed[0], fixed[1], fixed[2]);
    }
    /* In place: fixed may be pred. */
    {
        int32_t src[] = { 0, 1 }, dst[] = { 1, 2 };
        double cap[] = { 1, 1 }, flow[] = { 1, 0.5 };
        double v = flow_fix(3, 2, 0, 2, true, src, dst, cap, flow, flow, NULL, NULL);
        CHECK(flow[0] == 0.5 && flow[1] == 0.5 && v == 0.5, "fixed may alias pred");
    }
    /* No edges at all. */
    {
        double v = flow_fix(2, 0, 0, 1, false, NULL, NULL, NULL, NULL, fixed, before, after);
        CHECK(v == 0 && after[0] == 0 && after[1] == 0, "an empty graph");
    }
}

/* ---- 10,000 predicted flows on random graphs ----------------------------- */

static double sigmoid(double x) { return 1 / (1 + exp(-x)); }

/* Like F = C * tanh(P - P^T): per edge, a node-potential part (which makes
 * the errors correlated, like a trained model's) plus independent noise. */
static void model_like(struct rng *r, const struct graph *g, double *pred)
{
    double *potential = xmalloc((size_t)g->n * sizeof *potential);
    double a = rng_uniform(r) * 3, b = 0.2 + rng_uniform(r) * 4;
    for (int v = 0; v < g->n; v++)
        potential[v] = rng_normal(r);
    for (int e = 0; e < g->m; e++) {
        double z = a * (potential[g->src[e]] - potential[g->dst[e]]) + b * (rng_normal(r) - rng_normal(r));
        if (!g->directed) {
            pred[e] = g->cap[e] * tanh(z);
        } else {
            int k = rng_below(r, 20);
            pred[e] = k == 0 ? 0 : k == 1 ? g->cap[e] : k == 2 ? -1e-9 * rng_uniform(r)
                    : g->cap[e] * sigmoid(z);
        }
    }
    free(potential);
}

static void noisy(struct rng *r, const struct graph *g, const double *flow, double sigma, double *pred)
{
    for (int e = 0; e < g->m; e++) {
        double c = g->cap[e];
        double f = flow[e] + sigma * c * rng_normal(r);
        pred[e] = fmax(fmin(f, c), g->directed ? 0 : -c);
    }
}

static void test_random(void)
{
    const int graphs = 1250, per_graph = 8;
    long flows = 0, failures = 0, value_over = 0, identity_fail = 0, idempotence_fail = 0;
    long oracle_fail = 0, determinism_fail = 0, oracle_runs = 0;
    double worst_conservation = 0, worst_over = -INFINITY;
    double kept_small = 0, kept_large = 0, total_max = 0;
    const char *first = NULL;
    char first_where[128] = "";
    double t0 = seconds();

    for (int k = 0; k < graphs; k++) {
        struct rng r;
        rng_init(&r, 20230501, rng_stream_id("flowfix-test"), (uint64_t)k);
        int n = 4 + rng_below(&r, 125);
        bool directed = rng_below(&r, 2), communities = rng_below(&r, 2);
        struct graph g = random_graph(&r, n, directed, communities);
        int m = g.m;
        double *maxflow = xmalloc((size_t)(m ? m : 1) * sizeof *maxflow);
        double *pred = xmalloc((size_t)(m ? m : 1) * sizeof *pred);
        double best = exact_maxflow(&g, maxflow);
        oracle_runs++;
        if (best < 0) {
            oracle_fail++;
            graph_free(&g); free(maxflow); free(pred);
            continue;
        }
        struct verdict mv = judge(&g, maxflow);
        if (mv.capacity_excess > 0 || mv.conservation != 0 || mv.value != best)
            oracle_fail++;
        total_max += best * (per_graph / 4);

        for (int j = 0; j < per_graph; j++) {
            /* kinds: 0 model-like, 1 noisy max flow (sigma <= 0.052), 2 (sigma 0.3) */
            int kind = j < per_graph / 2 ? 0 : j % 2 ? 1 : 2;
            if (kind == 0)
                model_like(&r, &g, pred);
            else
                noisy(&r, &g, maxflow, kind == 1 ? 0.002 + 0.05 * rng_uniform(&r) : 0.3, pred);
            struct run run;
            const char *why = run_and_judge(&g, pred, &run);
            flows++;
            if (why) {
                failures++;
                if (!first) {
                    first = why;
                    snprintf(first_where, sizeof first_where, "; graph %d, flow %d)", k, j);
                }
            }
            worst_conservation = fmax(worst_conservation, run.verdict.conservation / fmax(largest_cap(&g), 1e-300));
            worst_over = fmax(worst_over, run.value - best);
            if (run.value > best + 1e-9)
                value_over++;
            if (kind == 1) kept_small += run.value;
            if (kind == 2) kept_large += run.value;

            /* Its own output is feasible, so a second pass changes nothing. */
            if (j % 2 == 0) {
                struct run again;
                run_and_judge(&g, run.fixed, &again);
                if (!same_bits(again.fixed, run.fixed, m) || again.value != run.value)
                    idempotence_fail++;
                run_free(&again);
            }
            if (k % 10 == 0) {
                struct run twin;
                run_and_judge(&g, pred, &twin);
                if (!same_bits(twin.fixed, run.fixed, m) || !same_bits(twin.after, run.after, n))
                    determinism_fail++;
                run_free(&twin);
            }
            run_free(&run);
        }

        /* Feasible inputs come back bit for bit: the max flow, half of it,
         * and no flow at all. */
        for (int kind = 0; kind < 3; kind++) {
            for (int e = 0; e < m; e++)
                pred[e] = kind == 0 ? maxflow[e] : kind == 1 ? 0.5 * maxflow[e] : 0;
            struct run run;
            const char *why = run_and_judge(&g, pred, &run);
            if (why || !same_bits(run.fixed, pred, m) || !same_bits(run.after, run.before, n)
                || run.value != (kind == 0 ? best : kind == 1 ? 0.5 * best : 0))
                identity_fail++;
            run_free(&run);
        }
        graph_free(&g);
        free(maxflow);
        free(pred);
    }
    double elapsed = seconds() - t0;

    CHECK(oracle_fail == 0, "the max-flow oracle is feasible and certified by a cut on %ld graphs (%ld not)",
          oracle_runs, oracle_fail);
    CHECK(failures == 0, "%ld predicted flows come out feasible, with correct reports%s%s%s",
          flows, first ? " (first failure: " : "", first ? first : "", first ? first_where : "");
    CHECK(worst_conservation < 1e-12, "worst inner conservation after fixing is %.2g of the largest capacity",
          worst_conservation);
    CHECK(value_over == 0, "fixed value <= exact max flow + 1e-9 on all %ld (worst value - max flow %.3g)",
          flows, worst_over);
    CHECK(identity_fail == 0, "max flow, half of it and zero flow are returned bit for bit on %d graphs (%ld not)",
          graphs, identity_fail);
    CHECK(idempotence_fail == 0, "fixing a fixed flow changes nothing (%ld not)", idempotence_fail);
    CHECK(determinism_fail == 0, "two runs give the same bytes (%ld not)", determinism_fail);
    printf("# value kept from noisy max flows: %.1f%% (sigma <= 0.052), %.1f%% (sigma 0.3); %.2f s\n",
           100 * kept_small / total_max, 100 * kept_large / total_max, elapsed);
}

/* ---- size and adversarial shapes ---------------------------------------- */

static void test_large(void)
{
    /* A random sparse graph of 5,000 nodes and a model-like prediction. */
    {
        struct rng r;
        rng_init(&r, 7, rng_stream_id("flowfix-large"), 0);
        int n = 5000, m = 0, room = 0;
        struct graph g = { .n = n, .s = 0, .t = n - 1, .directed = false };
        for (int u = 0; u < n; u++)
            for (int k = 0; k < 3; k++) {
                int v = rng_below(&r, n);
                if (v != u)   /* duplicates are harmless here */
                    add_edge(&g, &room, u, v, 1 + rng_below(&r, 10));
            }
        m = g.m;
        double *pred = xmalloc((size_t)m * sizeof *pred), *best = xmalloc((size_t)m * sizeof *best);
        model_like(&r, &g, pred);
        double t0 = seconds();
        struct run run;
        const char *why = run_and_judge(&g, pred, &run);
        double elapsed = seconds() - t0;
        double maxflow = exact_maxflow(&g, best);
        CHECK(!why && elapsed < 2 && run.value <= maxflow + 1e-9,
              "n %d, m %d random undirected: feasible in %.1f ms, value %.3f <= max flow %.0f",
              n, m, 1e3 * elapsed, run.value, maxflow);
        run_free(&run);
        free(pred); free(best); graph_free(&g);
    }
    /* Directed, with many antiparallel pairs (cycles everywhere). */
    {
        struct rng r;
        rng_init(&r, 8, rng_stream_id("flowfix-large"), 1);
        int n = 4000, room = 0;
        struct graph g = { .n = n, .s = 3, .t = 1234, .directed = true };
        for (int u = 0; u < n; u++)
            for (int k = 0; k < 4; k++) {
                int v = rng_below(&r, n);
                if (v == u)
                    continue;
                add_edge(&g, &room, u, v, 1 + rng_below(&r, 10));
                if (k == 0)
                    add_edge(&g, &room, v, u, 1 + rng_below(&r, 10));
            }
        double *pred = xmalloc((size_t)g.m * sizeof *pred), *best = xmalloc((size_t)g.m * sizeof *best);
        for (int e = 0; e < g.m; e++)
            pred[e] = g.cap[e] * rng_uniform(&r);
        double t0 = seconds();
        struct run run;
        const char *why = run_and_judge(&g, pred, &run);
        double elapsed = seconds() - t0;
        double maxflow = exact_maxflow(&g, best);
        CHECK(!why && elapsed < 2 && run.value <= maxflow + 1e-9,
              "n %d, m %d random directed, flow on every arc: feasible in %.1f ms (value %.3f, max %.0f)",
              n, g.m, 1e3 * elapsed, run.value, maxflow);
        run_free(&run);
        free(pred); free(best); graph_free(&g);
    }
    /* A long ring carrying 1 with a small excess on it: a walk that shaves
     * 1e-5 per lap would need 1e5 laps of 1e5 nodes; the cycle is cancelled
     * instead (1e-5 is above the 1e-6 acceptance). */
    {
        int n = 100002, room = 0;
        struct graph g = { .n = n, .s = 0, .t = 1, .directed = true };
        for (int v = 2; v < n; v++)
            add_edge(&g, &room, v, v + 1 < n ? v + 1 : 2, 1);
        add_edge(&g, &room, 0, 2, 1);
        add_edge(&g, &room, 2, 1, 1);
        double *pred = xmalloc((size_t)g.m * sizeof *pred);
        for (int e = 0; e < g.m; e++)
            pred[e] = 1;
        pred[g.m - 2] = 1e-5;
        pred[g.m - 1] = 0;
        double t0 = seconds();
        struct run run;
        const char *why = run_and_judge(&g, pred, &run);
        double elapsed = seconds() - t0;
        CHECK(!why && elapsed < 2 && run.value == 0,
              "a ring of %d nodes with an excess of 1e-5: %.1f ms, value %g", n - 2, 1e3 * elapsed, run.value);
        run_free(&run);
        free(pred); graph_free(&g);
    }
    /* A long path whose flow shrinks at every node (an excess everywhere)
     * and one whose flow grows (a deficit everywhere): one visit each. */
    for (int grow = 0; grow < 2; grow++) {
        int n = 200000, room = 0;
        struct graph g = { .n = n, .s = 0, .t = n - 1, .directed = false };
        for (int v = 0; v + 1 < n; v++)
            add_edge(&g, &room, v, v + 1, 1);
        double *pred = xmalloc((size_t)g.m * sizeof *pred);
        for (int e = 0; e < g.m; e++)
            pred[e] = grow ? (double)(e + 1) / g.m : 1 - (double)e / g.m;
        double t0 = seconds();
        struct run run;
        const char *why = run_and_judge(&g, pred, &run);
        double elapsed = seconds() - t0;
        double want = grow ? 1.0 / g.m : 1.0 / g.m;
        CHECK(!why && elapsed < 2 && check_close(run.value, want, 1e-9, 0),
              "a path of %d nodes with %s everywhere: %.1f ms, value %g", n,
              grow ? "a deficit" : "an excess", 1e3 * elapsed, run.value);
        run_free(&run);
        free(pred); graph_free(&g);
    }
}

int main(void)
{
    check_file_name = "flowfix";
    test_small_cases();
    test_random();
    test_large();
    return check_done();
}
