/* test_line_graph.c - L(G) against its definition (the O(m^2) naive build)
 * on hand-made and random multigraphs (self-loops, parallel edges, isolated
 * nodes), its invariants (sorted rows, no self-loops, symmetric), and its
 * errors.  tests/720-gnn-train.bats also checks it against networkx. */
#include "check.h"
#include "line_graph.h"
#include "rng.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool same(const struct line_graph *a, const struct line_graph *b)
{
    if (a->n != b->n)
        return false;
    if (memcmp(a->offsets, b->offsets, sizeof *a->offsets * (size_t)(a->n + 1)))
        return false;
    return !memcmp(a->neighbors, b->neighbors, sizeof *a->neighbors * (size_t)a->offsets[a->n]);
}

/* Rows ascending without repeats or self, and j in row i iff i in row j. */
static bool well_formed(const struct line_graph *g)
{
    for (int64_t i = 0; i < g->n; i++)
        for (int64_t k = g->offsets[i]; k < g->offsets[i + 1]; k++) {
            int32_t j = g->neighbors[k];
            if (j == i || j < 0 || j >= g->n || (k > g->offsets[i] && g->neighbors[k - 1] >= j))
                return false;
            bool back = false;
            for (int64_t l = g->offsets[j]; l < g->offsets[j + 1]; l++)
                back = back || g->neighbors[l] == i;
            if (!back)
                return false;
        }
    return true;
}

static void test_hand(void)
{
    /* a path 0-1-2-3 plus a triangle 3-4-5: edges
     * 0:(0,1) 1:(1,2) 2:(2,3) 3:(3,4) 4:(3,5) 5:(4,5) */
    int32_t src[] = {0, 1, 2, 3, 3, 4}, dst[] = {1, 2, 3, 4, 5, 5};
    struct line_graph g;
    char err[200];
    CHECK(line_graph_build(&g, 6, 6, src, dst, err, sizeof err) == 0, "builds a path plus a triangle");
    int64_t off[] = {0, 1, 3, 6, 9, 12, 14};
    int32_t nb[] = {1, 0, 2, 1, 3, 4, 2, 4, 5, 2, 3, 5, 3, 4};
    CHECK(g.n == 6 && !memcmp(g.offsets, off, sizeof off) && !memcmp(g.neighbors, nb, sizeof nb),
          "rows as drawn by hand (edge 2 meets 1 at node 2 and 3, 4 at node 3)");
    line_graph_free(&g);

    /* a star of degree 4: L is K4 */
    int32_t s2[] = {0, 0, 0, 0}, d2[] = {1, 2, 3, 4};
    line_graph_build(&g, 5, 4, s2, d2, err, sizeof err);
    CHECK(g.offsets[4] == 12 && well_formed(&g), "a 4-star's line graph is K4 (12 entries)");
    line_graph_free(&g);

    /* parallel edges 0:(0,1) 1:(0,1) share both ends: adjacent once */
    int32_t s3[] = {0, 0, 1}, d3[] = {1, 1, 1};
    line_graph_build(&g, 2, 3, s3, d3, err, sizeof err);
    CHECK(g.offsets[1] - g.offsets[0] == 2 && g.neighbors[0] == 1 && g.neighbors[1] == 2 && well_formed(&g),
          "parallel edges adjacent once; a self-loop meets the edges at its node");
    line_graph_free(&g);

    /* no edges, and no nodes at all */
    CHECK(line_graph_build(&g, 3, 0, NULL, NULL, err, sizeof err) == 0 && g.n == 0 && g.offsets[0] == 0,
          "a graph without edges gives an empty line graph");
    line_graph_free(&g);
    CHECK(line_graph_build(&g, 0, 0, NULL, NULL, err, sizeof err) == 0 && g.n == 0, "an empty graph too");
    line_graph_free(&g);
}

static void test_random(void)
{
    struct rng r;
    rng_init(&r, 7, rng_stream_id("test-line-graph"), 0);
    bool all_same = true, all_formed = true;
    for (int trial = 0; trial < 200; trial++) {
        int64_t nodes = 1 + (int64_t)rng_below(&r, 30), m = (int64_t)rng_below(&r, 60);
        int32_t *src = malloc(sizeof *src * (size_t)(m + 1)), *dst = malloc(sizeof *dst * (size_t)(m + 1));
        for (int64_t e = 0; e < m; e++) {
            src[e] = (int32_t)rng_below(&r, (uint64_t)nodes);
            dst[e] = (int32_t)rng_below(&r, (uint64_t)nodes);
        }
        struct line_graph fast, naive;
        char err[200];
        line_graph_build(&fast, nodes, m, src, dst, err, sizeof err);
        line_graph_build_naive(&naive, nodes, m, src, dst, err, sizeof err);
        all_same = all_same && same(&fast, &naive);
        all_formed = all_formed && well_formed(&fast);
        line_graph_free(&fast);
        line_graph_free(&naive);
        free(src);
        free(dst);
    }
    CHECK(all_same, "200 random multigraphs (self-loops, parallel edges): the build equals the O(m^2) definition");
    CHECK(all_formed, "rows sorted, no self-loops, no repeats, symmetric");
}

static void test_errors(void)
{
    struct line_graph g;
    char err[200] = "";
    int32_t src[] = {0, 5}, dst[] = {1, 1};
    CHECK(line_graph_build(&g, 3, 2, src, dst, err, sizeof err) == -1 && strstr(err, "edge 1 (5, 1)") &&
          g.offsets == NULL && g.neighbors == NULL,
          "an endpoint out of range: -1, '%s', nothing allocated", err);
    line_graph_free(&g);
    CHECK(line_graph_build(&g, 3, (int64_t)INT32_MAX + 1, src, dst, err, sizeof err) == -1 && strstr(err, "int32"),
          "more than INT32_MAX edges: -1, '%s'", err);
    CHECK(line_graph_build(&g, (int64_t)INT32_MAX + 1, 0, src, dst, err, sizeof err) == -1,
          "more than INT32_MAX nodes: -1, '%s'", err);
}

int main(void)
{
    check_file_name = "line_graph";
    test_hand();
    test_random();
    test_errors();
    return check_done();
}
