/* maxflow_big.c - maxflow_fast on the graphs its speed target is stated for:
 * 1M nodes, 3M uniformly random arcs with capacities U{0..10}, s = 0,
 * t = n-1 ("plain"), and the same graph with 1000 extra arcs of capacity 10
 * out of s and 1000 into t ("terminals"), which makes the flow large.
 * Boost 1.74's boykov_kolmogorov_max_flow, the peer, takes about 0.55 s and
 * 0.83 s on these on an idle machine; maxflow.c records both measured side
 * by side.
 *
 * Each result is checked, not just timed: a feasible flow whose value equals
 * the capacity of a cut is a maximum flow.
 *
 *   gcc -O2 -std=gnu11 -Icommon tests/bench/maxflow_big.c common/maxflow.c \
 *       common/rng.c common/die.c -lm -o /tmp/maxflow_big && /tmp/maxflow_big [nodes] */
#include "maxflow.h"
#include "rng.h"
#include "die.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Arcs with independent uniform endpoints (no self-loops); a few pairs
 * repeat, which maxflow_fast handles like any parallel arcs. */
static void generate(int n, int m, int terminal_arcs, int32_t *src, int32_t *dst, int64_t *cap)
{
    struct rng r;
    rng_init(&r, 1, rng_stream_id("maxflow_big"), 0);
    int e = 0;
    while (e < m) {
        int u = (int)rng_below(&r, (uint64_t)n), v = (int)rng_below(&r, (uint64_t)n);
        if (u == v)
            continue;
        src[e] = u, dst[e] = v, cap[e] = (int64_t)rng_below(&r, 11);
        e++;
    }
    for (int i = 0; i < terminal_arcs; i++) {
        src[e] = 0, dst[e] = 1 + (int)rng_below(&r, (uint64_t)n - 2), cap[e] = 10;
        e++;
        src[e] = 1 + (int)rng_below(&r, (uint64_t)n - 2), dst[e] = n - 1, cap[e] = 10;
        e++;
    }
}

static void run(const char *name, int n, int m, int terminal_arcs)
{
    int total = m + 2 * terminal_arcs;
    int32_t *src = xmalloc((size_t)total * sizeof *src), *dst = xmalloc((size_t)total * sizeof *dst);
    int64_t *cap = xmalloc((size_t)total * sizeof *cap), *flow = xmalloc((size_t)total * sizeof *flow);
    uint8_t *cut = xmalloc((size_t)n);
    generate(n, m, terminal_arcs, src, dst, cap);
    struct flownet g = { .n = n, .m = total, .s = 0, .t = n - 1, .directed = true,
                         .src = src, .dst = dst, .cap = cap, .w = NULL };
    double started = seconds_now();
    int64_t value = maxflow_fast(&g, flow, cut);
    double elapsed = seconds_now() - started;

    int64_t flow_value, cut_capacity = 0;
    bool feasible = flow_feasible(&g, flow, &flow_value);
    for (int e = 0; e < total; e++)
        if (!cut[src[e]] && cut[dst[e]])
            cut_capacity += cap[e];
    bool maximum = feasible && flow_value == value && cut_capacity == value && !cut[g.s] && cut[g.t];
    printf("maxflow_fast %s: %.3f s, value %lld (%d nodes, %d arcs; %s)\n", name, elapsed, (long long)value, n,
           total, maximum ? "feasible, equals a cut: maximum" : "NOT VERIFIED");
    free(src);
    free(dst);
    free(cap);
    free(flow);
    free(cut);
    if (!maximum)
        exit(1);
}

int main(int argc, char **argv)
{
    dar_tool = "maxflow_big";
    int n = argc > 1 ? atoi(argv[1]) : 1000000;
    if (n < 4)
        die(EX_USAGE, "usage: maxflow_big [nodes >= 4]");
    run("plain", n, 3 * n, 0);
    run("terminals", n, 3 * n, 1000);
    return 0;
}
