/* test_vertex_cover - the primal-dual rounds on hand-worked graphs, the
 * certificate checks, the exact solvers (GLPK's integer program and the
 * bipartite min cut) against a brute force over every subset on graphs of
 * at most 20 nodes, and the hint bound. */
#include "check.h"
#include "graphgen.h"
#include "vertex_cover.h"
#include "vertex_cover_exact.h"
#include <stdlib.h>
#include <string.h>

static void test_path(void)
{
    /* 0-1-2 with weights 1, 0.5, 1: one round, delta 0.25 on both edges, 1 joins */
    const int32_t src[] = {0, 1}, dst[] = {1, 2};
    const float w[] = {1, 0.5f, 1};
    struct vertex_cover vc;
    char err[256];
    CHECK(vertex_cover_trace(&vc, 3, 2, src, dst, w, 0.1, true, 1 << 20, err, sizeof err), "traced");
    const double want_r[2][3] = {{1, 0.5, 1}, {0.75, 0, 0.75}};
    const double want_delta[2][2] = {{0, 0}, {0.25, 0.25}};
    const uint8_t want_in[2][3] = {{0, 0, 0}, {0, 1, 0}}, want_live[2][2] = {{1, 1}, {0, 0}};
    bool same = vc.steps == 2;
    for (int t = 0; t < 2 && same; t++) {
        for (int v = 0; v < 3; v++)
            same &= vc.hint_residual[t * 3 + v] == want_r[t][v] && vc.hint_in_cover[t * 3 + v] == want_in[t][v];
        for (int e = 0; e < 2; e++)
            same &= vc.hint_delta[t * 2 + e] == want_delta[t][e] && vc.hint_live[t * 2 + e] == want_live[t][e];
    }
    CHECK(same, "path 1-0.5-1: T = 2, every frame's residuals, cover, increments and live edges by hand");
    CHECK(vc.packing[0] == 0.25 && vc.packing[1] == 0.25 && vc.cover[1] && !vc.cover[0] && !vc.cover[2],
          "path: the cover {1}, the packing (0.25, 0.25)");
    vertex_cover_free(&vc);
}

static void test_star(void)
{
    /* centre 0 (weight 1) and leaves 0.1, 0.2, 0.9: round 1 the two light
     * leaves join (the centre has paid 0.1+0.2+1/3), round 2 the centre
     * pays the rest of its weight on its last live edge and joins: the
     * algorithm's cover weighs 1.3, the optimum (the centre) 1 = sum y */
    const int32_t src[] = {0, 0, 0}, dst[] = {1, 2, 3};
    const float w[] = {1, 0.1f, 0.2f, 0.9f};
    struct vertex_cover vc;
    char err[256];
    vertex_cover_trace(&vc, 4, 3, src, dst, w, 0.1, true, 1 << 20, err, sizeof err);
    const uint8_t want[4] = {1, 1, 1, 0};
    double total = vc.packing[0] + vc.packing[1] + vc.packing[2];
    CHECK(vc.steps == 3 && !memcmp(vc.cover, want, 4), "star: two rounds, the cover {0, 1, 2}");
    CHECK(check_close(total, 1.0, 1e-12, 0), "star: sum y = %.17g = the optimum 1", total);
    CHECK(vertex_cover_check(4, 3, src, dst, w, vc.cover, vc.packing, 0.1, 1e-12, err, sizeof err),
          "star: the certificate passes");
    uint8_t opt[4];
    double weight;
    CHECK(vertex_cover_ilp(4, 3, src, dst, w, 0, opt, &weight) == VERTEX_COVER_OPTIMAL && opt[0] && !opt[1] &&
          !opt[2] && !opt[3], "star: the ILP's optimum is the centre alone");
    /* each violation is caught */
    uint8_t cover[4] = {0, 1, 1, 0};
    CHECK(!vertex_cover_check(4, 3, src, dst, w, cover, vc.packing, 0.1, 1e-12, err, sizeof err),
          "a cover missing an edge is refused: %s", err);
    double y[3] = {0.1, 0.2, 0.8};
    CHECK(!vertex_cover_check(4, 3, src, dst, w, vc.cover, y, -1, 1e-12, err, sizeof err),
          "a packing over a node's weight is refused: %s", err);
    double thin[3] = {0.01, 0.01, 0.01};
    uint8_t all[4] = {1, 1, 1, 1};
    CHECK(!vertex_cover_check(4, 3, src, dst, w, all, thin, 0.1, 1e-12, err, sizeof err),
          "a cover over 2/(1-eps) times the packing is refused: %s", err);
    vertex_cover_free(&vc);

    CHECK(!vertex_cover_trace(&vc, 4, 3, src, dst, w, 0.1, true, 100, err, sizeof err) && !vc.hint_residual,
          "hints over the bound are refused before allocating: %s", err);
    CHECK(vertex_cover_trace(&vc, 4, 3, src, dst, w, 0.1, false, 0, err, sizeof err) && !vc.hint_residual &&
          vc.cover[0], "without hints: no bound, the same cover");
    vertex_cover_free(&vc);
}

/* The lightest cover by visiting every subset in Gray-code order: one node
 * flips per step, so the uncovered edge count changes by its degree. */
static double brute_force(int n, int m, const int32_t *src, const int32_t *dst, const float *w)
{
    int *start = calloc((size_t)n + 1, sizeof *start), *other = malloc(sizeof *other * (size_t)(2 * m + 1));
    for (int e = 0; e < m; e++)
        start[src[e] + 1]++, start[dst[e] + 1]++;
    for (int v = 0; v < n; v++)
        start[v + 1] += start[v];
    int *fill = malloc(sizeof *fill * (size_t)n);
    memcpy(fill, start, sizeof *fill * (size_t)n);
    for (int e = 0; e < m; e++)
        other[fill[src[e]]++] = dst[e], other[fill[dst[e]]++] = src[e];
    uint32_t set = 0;
    int uncovered = m;
    double best = INFINITY;
    if (m == 0)
        best = 0;
    for (uint32_t i = 1; i < (1u << n); i++) {
        int v = __builtin_ctz(i);
        bool adding = !(set >> v & 1);
        set ^= 1u << v;
        for (int j = start[v]; j < start[v + 1]; j++)
            if (!(set >> other[j] & 1))
                uncovered += adding ? -1 : 1;
        if (uncovered == 0) {
            double weight = 0;   /* summed afresh: no drift over a million flips */
            for (int u = 0; u < n; u++)
                if (set >> u & 1)
                    weight += w[u];
            if (weight < best)
                best = weight;
        }
    }
    free(start);
    free(other);
    free(fill);
    return best;
}

static void test_exact(void)
{
    const char *const families[] = {"barabasi-albert", "erdos-renyi", "star", "lobster", "bipartite-sides"};
    const int sizes[] = {6, 9, 12, 15, 18, 20};
    int graphs = 0, wrong = 0, not_optimal = 0, cuts = 0, cut_wrong = 0, bound_wrong = 0;
    for (int f = 0; f < 5; f++)
        for (int s = 0; s < 6; s++)
            for (int k = 0; k < 11; k++) {
                struct graphgen_options o = {.family = families[f], .nodes = sizes[s], .density = 0.75,
                                             .seed = 40 + (uint64_t)s, .instance = &graphgen_node_weighted};
                struct graph g;
                char err[256];
                if (!graphgen(&o, k, &g, err, sizeof err)) {
                    CHECK(0, "graphgen: %s", err);
                    return;
                }
                uint8_t cover[20];
                double weight;
                enum vertex_cover_status status = vertex_cover_ilp(g.n, g.m, g.src, g.dst, g.node_w, 0, cover, &weight);
                double best = brute_force(g.n, g.m, g.src, g.dst, g.node_w);
                not_optimal += status != VERTEX_COVER_OPTIMAL;
                wrong += !check_close(weight, best, 1e-7, 1e-12);
                if (g.side) {
                    double cut = vertex_cover_min_cut(g.n, g.m, g.src, g.dst, g.side, g.node_w, cover);
                    cut_wrong += !check_close(cut, best, 1e-9, 1e-12);
                    cuts++;
                }
                struct vertex_cover vc;
                vertex_cover_trace(&vc, g.n, g.m, g.src, g.dst, g.node_w, 0.1, false, 0, err, sizeof err);
                double total = 0, alg = vertex_cover_weight(g.n, g.node_w, vc.cover);
                for (int e = 0; e < g.m; e++)
                    total += vc.packing[e];
                bound_wrong += !(total <= best + 1e-12 && best <= alg + 1e-12 && alg <= total / 0.45 + 1e-12);
                vertex_cover_free(&vc);
                graph_free(&g);
                graphs++;
            }
    CHECK(not_optimal == 0 && wrong == 0, "the ILP is optimal and equals a brute force on %d graphs of 6..20 nodes "
          "(5 families)", graphs);
    CHECK(cuts > 50 && cut_wrong == 0, "the bipartite min cut equals the brute force on %d graphs", cuts);
    CHECK(bound_wrong == 0, "sum y <= OPT <= w(C_alg) <= 2/(1-eps) sum y on all %d", graphs);
    const int32_t src[] = {0}, dst[] = {1};
    const float w[] = {0.5f, 0.25f};
    uint8_t cover[2];
    double weight;
    CHECK(vertex_cover_ilp(2, 0, src, dst, w, 0, cover, &weight) == VERTEX_COVER_OPTIMAL && weight == 0 && !cover[0],
          "no edges: the empty cover, optimal");
    CHECK(!strcmp(vertex_cover_status_name(VERTEX_COVER_FEASIBLE), "feasible"), "status names");
}

int main(void)
{
    check_file_name = "test_vertex_cover";
    test_path();
    test_star();
    test_exact();
    return check_done();
}
