/* test_graphgen.c - the synthetic generator: structure, statistics,
 * determinism and independence of the purpose streams; and the checks of
 * the instance key rows its kinds of instance are read back with. */
#include "check.h"
#include "graphgen.h"
#include <stdlib.h>
#include <string.h>

static struct graphgen_options opts(const char *family, int n)
{
    struct graphgen_options o = {
        .family = family, .nodes = n, .density = 0.75, .inter_density = 0.05,
        .directed = false, .capacity = CAP_MAX_OF_TWO, .seed = 0,
    };
    return o;
}

static void gen(const struct graphgen_options *o, int64_t k, struct graph *g)
{
    char err[256];
    if (!graphgen(o, k, g, err, sizeof err)) {
        fprintf(stderr, "graphgen failed: %s\n", err);
        exit(2);
    }
}

static bool same_graph(const struct graph *a, const struct graph *b)
{
    return a->n == b->n && a->m == b->m && a->s == b->s && a->t == b->t &&
           a->directed == b->directed && a->cap_scale == b->cap_scale && a->id == b->id &&
           strcmp(a->family, b->family) == 0 &&
           !memcmp(a->src, b->src, sizeof *a->src * a->m) &&
           !memcmp(a->dst, b->dst, sizeof *a->dst * a->m) &&
           !memcmp(a->cap, b->cap, sizeof *a->cap * a->m) &&
           !memcmp(a->w, b->w, sizeof *a->w * a->m);
}

/* Edges sorted by (src,dst), strictly; no self-loops; src < dst when
 * undirected; endpoints in range; w in [0,1); cap*scale integral. */
static bool well_formed(const struct graph *g)
{
    for (int e = 0; e < g->m; e++) {
        if (g->src[e] < 0 || g->src[e] >= g->n || g->dst[e] < 0 || g->dst[e] >= g->n) return false;
        if (g->src[e] == g->dst[e]) return false;
        if (!g->directed && g->src[e] > g->dst[e]) return false;
        if (e > 0 && (g->src[e - 1] > g->src[e] ||
                      (g->src[e - 1] == g->src[e] && g->dst[e - 1] >= g->dst[e]))) return false;
        if (!(g->w[e] >= 0 && g->w[e] < 1)) return false;
        if (!(g->cap[e] >= 0 && g->cap[e] <= 1)) return false;
        double k = g->cap[e] * (double)g->cap_scale;
        if (fabs(k - nearbyint(k)) > 1e-5) return false;
    }
    return g->s != g->t && g->s >= 0 && g->s < g->n && g->t >= 0 && g->t < g->n;
}

static void test_two_community(void)
{
    struct graphgen_options o = opts("two-community", 16);
    int n = 16, h = 8, graphs = 2000;
    long within = 0, within_pairs = 0, inter = 0, cross_missing = 0, bad = 0, s_bad = 0, t_bad = 0;
    double cap_sum = 0; long caps = 0, cap_off = 0;
    for (int k = 0; k < graphs; k++) {
        struct graph g;
        gen(&o, k, &g);
        if (!well_formed(&g) || g.n != n || g.directed || strcmp(g.family, "two-community") || g.id != k)
            bad++;
        int cross = 0;
        for (int e = 0; e < g.m; e++) {
            bool a = g.src[e] < h, b = g.dst[e] < h;
            if (a == b) within++; else cross++;
            cap_sum += g.cap[e]; caps++;
            int c10 = (int)nearbyintf(g.cap[e] * 10);
            if (c10 < 1 || c10 > 9 || g.cap[e] != (float)c10 / 10.0f) cap_off++;
        }
        within_pairs += 2 * h * (h - 1) / 2;
        inter += cross;
        if (cross == 0) cross_missing++;
        if (!(g.s >= 0 && g.s < h)) s_bad++;
        if (!(g.t > h && g.t < n)) t_bad++;
        if (g.cap_scale != 10) bad++;
        graph_free(&g);
    }
    double density = (double)within / within_pairs;
    CHECK(bad == 0, "two-community: %d graphs well formed, sorted, src<dst, id=k", graphs);
    CHECK(fabs(density - 0.9375) < 0.005,
          "two-community n=16 p=.75: within-community pair density %.4f ~ 1-(1-p)^2 = 0.9375", density);
    CHECK(cross_missing == 0, "two-community: every graph has an inter-community edge");
    double mean_inter = (double)inter / graphs;
    CHECK(mean_inter > 2.9 && mean_inter < 3.8, "two-community: mean inter edges %.3f ~ 64*0.05 given >= 1", mean_inter);
    CHECK(s_bad == 0, "two-community: s in 0..h-1");
    CHECK(t_bad == 0, "two-community: t in h+1..n-1");
    CHECK(cap_off == 0, "max-of-two capacities are k/10, k in 1..9, as float32");
    CHECK(fabs(cap_sum / caps - 0.6481) < 0.01, "max-of-two: mean capacity %.4f ~ 0.6481", cap_sum / caps);

    /* Both communities and every s,t value turn up. */
    int s_seen[16] = {0}, t_seen[16] = {0};
    for (int k = 0; k < 400; k++) {
        struct graph g;
        gen(&o, k, &g);
        s_seen[g.s]++; t_seen[g.t]++;
        graph_free(&g);
    }
    int s_all = 1, t_all = 1;
    for (int i = 0; i < h; i++) s_all &= s_seen[i] > 0;
    for (int i = h + 1; i < n; i++) t_all &= t_seen[i] > 0;
    CHECK(s_all && t_all && t_seen[h] == 0, "two-community: s covers 0..7, t covers 9..15, never 8");
}

static void test_two_community_directed(void)
{
    struct graphgen_options o = opts("two-community", 16);
    o.directed = true;
    int h = 8, graphs = 1000;
    long within = 0, anti = 0, bad = 0, no_forward = 0;
    for (int k = 0; k < graphs; k++) {
        struct graph g;
        gen(&o, k, &g);
        if (!well_formed(&g) || !g.directed) bad++;
        int forward = 0;
        for (int e = 0; e < g.m; e++) {
            if ((g.src[e] < h) == (g.dst[e] < h)) within++;
            if (g.src[e] < h && g.dst[e] >= h) forward++;
            if (g.src[e] > g.dst[e]) anti++;
        }
        if (!forward) no_forward++;
        graph_free(&g);
    }
    double density = (double)within / ((double)graphs * 2 * h * (h - 1));
    CHECK(bad == 0, "two-community --directed: well formed");
    CHECK(fabs(density - 0.75) < 0.01, "two-community --directed: ordered-pair density %.4f ~ 0.75", density);
    CHECK(no_forward == 0, "two-community --directed: always an arc from C1 to C2");
    CHECK(anti > 0, "two-community --directed: arcs with src > dst exist");

    /* Undirected is the symmetrised directed graph (same structure draws). */
    struct graphgen_options u = opts("two-community", 16);
    int same = 1;
    for (int k = 0; k < 50; k++) {
        struct graph gd, gu;
        gen(&o, k, &gd); gen(&u, k, &gu);
        uint8_t adj[16 * 16] = {0};
        for (int e = 0; e < gd.m; e++)
            if ((gd.src[e] < h) == (gd.dst[e] < h)) {
                int a = gd.src[e], b = gd.dst[e];
                adj[(a < b ? a : b) * 16 + (a < b ? b : a)] = 1;
            }
        for (int e = 0; e < gu.m; e++)
            if ((gu.src[e] < h) == (gu.dst[e] < h)) {
                if (!adj[gu.src[e] * 16 + gu.dst[e]]) same = 0;
                adj[gu.src[e] * 16 + gu.dst[e]] = 0;
            }
        for (int i = 0; i < 256; i++) if (adj[i]) same = 0;
        graph_free(&gd); graph_free(&gu);
    }
    CHECK(same, "two-community: undirected communities are the symmetrised directed ones");
}

static void test_bipartite_at(int n)
{
    struct graphgen_options o = opts("bipartite", n);
    int a_count = (n - 2) / 2, b_first = a_count + 1, b_last = n - 2, b_count = b_last - b_first + 1;
    long bad_shape = 0, bad_cap = 0, ab = 0;
    int graphs = 500;
    for (int k = 0; k < graphs; k++) {
        struct graph g;
        gen(&o, k, &g);
        int s_a = 0, b_t = 0, k_ab = 0, other = 0;
        int *b_has = calloc((size_t)n, sizeof *b_has);
        for (int e = 0; e < g.m; e++) {
            int u = g.src[e], v = g.dst[e];
            bool ua = u >= 1 && u <= a_count, vb = v >= b_first && v <= b_last;
            if (u == 0 && v >= 1 && v <= a_count) s_a++;
            else if (v == n - 1 && u >= b_first && u <= b_last) b_t++;
            else if (ua && vb) { k_ab++; b_has[v] = 1; }
            else other++;
            if (g.cap[e] != 1.0f) bad_cap++;
        }
        int covered = 1;
        for (int b = b_first; b <= b_last; b++) covered &= b_has[b];
        free(b_has);
        if (!well_formed(&g) || g.s != 0 || g.t != n - 1 || s_a != a_count || b_t != b_count ||
            other || !covered || g.m != a_count + b_count + k_ab || g.cap_scale != 1 || g.directed)
            bad_shape++;
        ab += k_ab;
        graph_free(&g);
    }
    CHECK(bad_shape == 0, "bipartite n=%d: s=0, t=n-1, s-A all, B-t all, only A-B otherwise, every B covered", n);
    CHECK(bad_cap == 0, "bipartite n=%d: every capacity is 1", n);
    double density = (double)ab / ((double)graphs * a_count * b_count);
    CHECK(fabs(density - 0.875) < 0.02, "bipartite n=%d: A-B density %.4f ~ E[U(0.75,1)] = 0.875", n, density);
}

static void test_bipartite(void)
{
    test_bipartite_at(16);
    test_bipartite_at(64);
    test_bipartite_at(15);
    /* The capacity law does not apply to bipartite graphs. */
    struct graphgen_options o = opts("bipartite", 16), p = o;
    p.capacity = CAP_UNIFORM_MINMAX;
    struct graph a, b;
    gen(&o, 3, &a); gen(&p, 3, &b);
    CHECK(same_graph(&a, &b), "bipartite: --capacity changes nothing");
    graph_free(&a); graph_free(&b);

    struct graphgen_options d = opts("bipartite", 16);
    d.directed = true;
    gen(&d, 0, &a);
    CHECK(well_formed(&a) && a.directed, "bipartite --directed: arcs s->A, A->B, B->t");
    graph_free(&a);
}

static void test_erdos_renyi(void)
{
    struct graphgen_options o = opts("erdos-renyi", 16);
    o.density = 0.3;
    long edges = 0, bad = 0;
    int graphs = 1000;
    for (int k = 0; k < graphs; k++) {
        struct graph g;
        gen(&o, k, &g);
        if (!well_formed(&g) || strcmp(g.family, "erdos-renyi")) bad++;
        edges += g.m;
        graph_free(&g);
    }
    double density = (double)edges / (graphs * 120.0);
    CHECK(bad == 0, "erdos-renyi: well formed, s != t");
    CHECK(fabs(density - 0.3) < 0.01, "erdos-renyi p=0.3: pair density %.4f", density);

    o.density = 0;
    struct graph g;
    gen(&o, 0, &g);
    CHECK(g.m == 0 && g.s != g.t, "erdos-renyi p=0: no edges, still a valid record");
    graph_free(&g);
}

static void test_uniform_minmax(void)
{
    struct graphgen_options o = opts("two-community", 16);
    o.capacity = CAP_UNIFORM_MINMAX;
    long bad = 0, zeros = 0, caps = 0;
    for (int k = 0; k < 500; k++) {
        struct graph g;
        gen(&o, k, &g);
        float lo = 2, hi = -1;
        for (int e = 0; e < g.m; e++) {
            if (g.cap[e] < lo) lo = g.cap[e];
            if (g.cap[e] > hi) hi = g.cap[e];
            zeros += g.cap[e] == 0;
            caps++;
        }
        if (!well_formed(&g) || g.cap_scale < 1 || g.cap_scale > 10) bad++;
        if (g.cap_scale > 1 || lo != hi) { if (lo != 0 || hi != 1) bad++; }
        graph_free(&g);
    }
    CHECK(bad == 0, "uniform-minmax: min 0, max 1, cap*cap_scale integral, scale in 1..10");
    CHECK(zeros > 0 && zeros < caps / 5, "uniform-minmax: zero capacities occur and are kept (%ld of %ld)", zeros, caps);

    /* Changing the capacity law keeps structure, weights and endpoints. */
    struct graphgen_options p = opts("two-community", 16);
    int same = 1;
    for (int k = 0; k < 50; k++) {
        struct graph a, b;
        gen(&o, k, &a); gen(&p, k, &b);
        same &= a.m == b.m && a.s == b.s && a.t == b.t &&
                !memcmp(a.src, b.src, sizeof *a.src * a.m) && !memcmp(a.dst, b.dst, sizeof *a.dst * a.m) &&
                !memcmp(a.w, b.w, sizeof *a.w * a.m);
        graph_free(&a); graph_free(&b);
    }
    CHECK(same, "capacity law changes only capacities (separate streams)");
}

static void test_determinism(void)
{
    const char *fams[] = { "two-community", "bipartite", "erdos-renyi" };
    for (int f = 0; f < 3; f++) {
        struct graphgen_options o = opts(fams[f], 32);
        struct graph a, b, c, d;
        gen(&o, 7, &a); gen(&o, 7, &b); gen(&o, 8, &c);
        o.seed = 1;
        gen(&o, 7, &d);
        CHECK(same_graph(&a, &b), "%s: same (seed,k) gives the identical graph", fams[f]);
        CHECK(!same_graph(&a, &c), "%s: record 8 differs from record 7", fams[f]);
        CHECK(!same_graph(&a, &d), "%s: seed 1 differs from seed 0", fams[f]);
        graph_free(&a); graph_free(&b); graph_free(&c); graph_free(&d);
    }
    /* Record k does not depend on what was generated before it. */
    struct graphgen_options o = opts("two-community", 16);
    struct graph seq[10], alone;
    for (int k = 0; k < 10; k++) gen(&o, k, &seq[k]);
    gen(&o, 6, &alone);
    CHECK(same_graph(&seq[6], &alone), "record 6 is the same alone as after records 0..5");
    for (int k = 0; k < 10; k++) graph_free(&seq[k]);
    graph_free(&alone);

    /* Pinned values: a change of the draw order must be deliberate. */
    struct graph g;
    gen(&o, 0, &g);
    printf("# two-community n=16 seed 0 record 0: m=%d s=%d t=%d cap[0]=%g w[0]=%.9g\n",
           g.m, g.s, g.t, g.cap[0], g.w[0]);
    graph_free(&g);
}

static void test_errors(void)
{
    char err[256];
    struct graph g;
    struct graphgen_options o = opts("two-community", 15);
    CHECK(!graphgen_check(&o, err, sizeof err) && strstr(err, "even") && strstr(err, "15"),
          "two-community n=15 refused: %s", err);
    CHECK(!graphgen(&o, 0, &g, err, sizeof err), "graphgen refuses n=15 too");
    o = opts("two-community", 2);
    CHECK(!graphgen_check(&o, err, sizeof err), "two-community n=2 refused: %s", err);
    o = opts("triangle", 16);
    CHECK(!graphgen_check(&o, err, sizeof err) && strstr(err, "triangle"), "unknown family refused: %s", err);
    o = opts("erdos-renyi", 16);
    o.density = 1.5;
    CHECK(!graphgen_check(&o, err, sizeof err) && strstr(err, "density"), "density 1.5 refused: %s", err);
    o = opts("bipartite", 3);
    CHECK(!graphgen_check(&o, err, sizeof err), "bipartite n=3 refused: %s", err);
    enum capacity_law law;
    CHECK(graphgen_capacity_law("uniform-minmax", &law) && law == CAP_UNIFORM_MINMAX &&
          graphgen_capacity_law("max-of-two", &law) && law == CAP_MAX_OF_TWO &&
          !graphgen_capacity_law("gauss", &law), "capacity law names");
}

/* Edges sorted, undirected, no self-loop, no pair twice. */
static bool simple_sorted(const struct graph *g)
{
    for (int e = 0; e < g->m; e++) {
        if (g->src[e] < 0 || g->dst[e] >= g->n || g->src[e] >= g->dst[e]) return false;
        if (e > 0 && (g->src[e - 1] > g->src[e] || (g->src[e - 1] == g->src[e] && g->dst[e - 1] >= g->dst[e])))
            return false;
    }
    return true;
}

/* Connected and m = n-1: a tree. */
static bool is_tree(const struct graph *g)
{
    if (g->m != g->n - 1) return false;
    int *root = malloc(sizeof *root * (size_t)g->n);
    for (int v = 0; v < g->n; v++) root[v] = v;
    int joins = 0;
    for (int e = 0; e < g->m; e++) {
        int a = g->src[e], b = g->dst[e];
        while (root[a] != a) a = root[a];
        while (root[b] != b) b = root[b];
        if (a != b) { root[a] = b; joins++; }
    }
    free(root);
    return joins == g->n - 1;
}

static void test_shortest_path_instances(void)
{
    struct graphgen_options o = opts("erdos-renyi", 40);
    o.instance = &graphgen_weighted_from_source;
    long pairs = 0, edges = 0;
    int bad = 0, s_seen[40] = {0};
    double w_sum = 0;
    for (int k = 0; k < 400; k++) {
        struct graph g;
        gen(&o, k, &g);
        bad += !simple_sorted(&g) || g.t != -1 || g.cap || !g.w || g.node_w || g.side || g.s < 0 || g.s >= 40;
        s_seen[g.s < 0 ? 0 : g.s]++;
        pairs += 40 * 39 / 2;
        edges += g.m;
        for (int e = 0; e < g.m; e++)
            w_sum += g.w[e], bad += !(g.w[e] >= 0 && g.w[e] < 1);
        graph_free(&g);
    }
    int unseen = 0;
    for (int v = 0; v < 40; v++) unseen += !s_seen[v];
    CHECK(bad == 0, "shortest-paths: s and w only (no t, cap), w in [0,1), edges simple and sorted");
    CHECK(fabs((double)edges / pairs - 0.25) < 0.005, "shortest-paths: default pair density %.4f ~ 0.25 (CLRS's p^2)",
          (double)edges / pairs);
    CHECK(fabs(w_sum / edges - 0.5) < 0.01, "shortest-paths: mean w %.4f ~ 0.5 (uniform, not max-of-two)", w_sum / edges);
    CHECK(unseen == 0, "shortest-paths: every node is some graph's source");

    /* a fixed --p makes the edges of --density */
    struct graphgen_options flow = opts("erdos-renyi", 20), sp = flow;
    flow.density = 0.4;
    sp.instance = &graphgen_weighted_from_source;
    sp.p_given = true;
    sp.p_lo = sp.p_hi = 0.4;
    struct graph a, b;
    gen(&flow, 3, &a);
    gen(&sp, 3, &b);
    CHECK(a.m == b.m && !memcmp(a.src, b.src, sizeof *a.src * a.m) && !memcmp(a.dst, b.dst, sizeof *a.dst * a.m),
          "--p 0.4 and --density 0.4 give the same edges");
    graph_free(&a);
    graph_free(&b);

    /* --p LO:HI draws p per graph: the densities spread */
    sp.nodes = 60;
    sp.p_lo = 0.1;
    sp.p_hi = 0.9;
    double lo = 1, hi = 0;
    for (int k = 0; k < 100; k++) {
        gen(&sp, k, &a);
        double density = a.m / (60.0 * 59 / 2);
        lo = fmin(lo, density);
        hi = fmax(hi, density);
        graph_free(&a);
    }
    CHECK(lo < 0.2 && hi > 0.8, "--p 0.1:0.9: per-graph densities span %.3f..%.3f", lo, hi);
}

static void test_bipartite_sides(void)
{
    struct graphgen_options o = opts("bipartite-sides", 12);
    o.instance = &graphgen_two_sided;
    o.side_a = 3;
    o.side_b = 9;
    long edges = 0;
    int bad = 0;
    for (int k = 0; k < 300; k++) {
        struct graph g;
        gen(&o, k, &g);
        bad += !simple_sorted(&g) || !g.side || g.s != -1 || g.t != -1 || g.w || g.cap || g.node_w;
        for (int v = 0; g.side && v < 12; v++) bad += g.side[v] != (v >= 3);
        for (int e = 0; e < g.m; e++) bad += !(g.src[e] < 3 && g.dst[e] >= 3);
        edges += g.m;
        graph_free(&g);
    }
    CHECK(bad == 0, "bipartite-sides 3,9: side 0 on 0..2, 1 on 3..11, every edge A-B, no s, t, w, cap");
    CHECK(fabs(edges / (300.0 * 27) - 0.25) < 0.02, "bipartite-sides: default A-B density %.4f ~ 0.25",
          edges / (300.0 * 27));
    o.instance = &graphgen_node_weighted;
    struct graph g;
    gen(&o, 0, &g);
    CHECK(g.side && g.node_w, "bipartite-sides vertex-cover instances keep their sides and get node_w");
    graph_free(&g);
}

static void test_vertex_cover_families(void)
{
    const char *const fams[] = {"barabasi-albert", "star", "lobster", "erdos-renyi"};
    for (int f = 0; f < 4; f++) {
        struct graphgen_options o = opts(fams[f], 16);
        o.instance = &graphgen_node_weighted;
        int bad = 0, trees = 0, attach[10] = {0};
        double w_min = 1, w_max = 0;
        for (int k = 0; k < 300; k++) {
            struct graph g;
            gen(&o, k, &g);
            bad += !simple_sorted(&g) || !g.node_w || g.w || g.cap || g.side || g.s != -1;
            for (int v = 0; v < 16; v++) {
                bad += !(g.node_w[v] > 0 && g.node_w[v] <= 1);
                w_min = fmin(w_min, g.node_w[v]);
                w_max = fmax(w_max, g.node_w[v]);
            }
            trees += is_tree(&g);
            /* BA with attachment k has k + (n-k-1)k edges: m determines k */
            for (int a = 1; a <= 9 && f == 0; a++)
                attach[a] += g.m == a + (16 - a - 1) * a;
            graph_free(&g);
        }
        CHECK(bad == 0 && w_min < 0.01 && w_max > 0.99, "%s: node_w in (0,1] spread %.4f..%.4f, simple graphs",
              fams[f], w_min, w_max);
        if (f == 0) {
            int all = 1;
            for (int a = 1; a <= 9; a++) all &= attach[a] > 15;
            CHECK(all, "barabasi-albert: every attachment 1..9 drawn (m = k(n-k))");
        } else if (f < 3) {
            CHECK(trees == 300, "%s: every graph is a tree", fams[f]);
        }
    }
    struct graphgen_options o = opts("star", 8);
    o.instance = &graphgen_node_weighted;
    o.node_weights = NODE_W_UNIT;
    struct graph g;
    gen(&o, 0, &g);
    bool unit = true;
    for (int v = 0; v < 8; v++) unit &= g.node_w[v] == 1.0f;
    CHECK(unit, "--node-weights unit: 1 on every node");
    graph_free(&g);
}

static void test_instance_errors(void)
{
    char err[256];
    struct graphgen_options o = opts("star", 8);
    CHECK(!graphgen_check(&o, err, sizeof err) && strstr(err, "no s and t"), "star max-flow refused: %s", err);
    o = opts("erdos-renyi", 8);
    o.instance = &graphgen_two_sided;
    CHECK(!graphgen_check(&o, err, sizeof err) && strstr(err, "need sides"), "erdos-renyi matching refused: %s", err);
    double lo, hi;
    CHECK(graphgen_parse_probability("0.2:0.8", &lo, &hi, err, sizeof err) && lo == 0.2 && hi == 0.8, "--p 0.2:0.8");
    CHECK(graphgen_parse_probability("0.3", &lo, &hi, err, sizeof err) && lo == 0.3 && hi == 0.3, "--p 0.3");
    CHECK(!graphgen_parse_probability("0.8:0.2", &lo, &hi, err, sizeof err) &&
          !graphgen_parse_probability("1.5", &lo, &hi, err, sizeof err) &&
          !graphgen_parse_probability("0.2:", &lo, &hi, err, sizeof err), "--p refuses HI < LO, > 1, a missing end");
    int a, b;
    CHECK(graphgen_parse_sides("8,24", &a, &b, err, sizeof err) && a == 8 && b == 24, "--sides 8,24");
    CHECK(!graphgen_parse_sides("0,3", &a, &b, err, sizeof err) && !graphgen_parse_sides("3", &a, &b, err, sizeof err) &&
          !graphgen_parse_sides("3,4x", &a, &b, err, sizeof err), "--sides refuses 0, one number, trailing text");
}

/* The checks a row of instance keys asks for, beyond the key being there:
 * t other than s, every edge between the sides (an arc A->B). */
static void test_key_checks(void)
{
    static const struct graph_key ends[] = {
        {.key = "s", .dtype = DT_I64, .location = GRAPH_AT_GRAPH, .what = "a source"},
        {.key = "t", .dtype = DT_I64, .location = GRAPH_AT_GRAPH, .check = GRAPH_CHECK_NOT_S, .what = "a sink"},
    };
    static const struct graph_key sides[] = {
        {.key = "side", .dtype = DT_U8, .location = GRAPH_AT_NODE, .check = GRAPH_CHECK_SIDES, .what = "sides"},
    };
    char err[256];
    struct graph g = {.n = 4, .m = 2, .s = 2, .t = 2, .src = (int32_t[]){0, 3}, .dst = (int32_t[]){2, 1},
                      .side = (uint8_t[]){0, 0, 1, 1}};
    CHECK(!graph_check_keys(&g, ends, 2, "x", err, sizeof err) && !strcmp(err, "'s' and 't' are both 2"),
          "t == s refused: %s", err);
    CHECK(graph_check_keys(&g, ends + 1, 1, "x", err, sizeof err), "t alone is not compared with s");
    g.t = 3;
    CHECK(graph_check_keys(&g, ends, 2, "x", err, sizeof err), "t != s passes");
    CHECK(graph_check_keys(&g, sides, 1, "x", err, sizeof err), "edges A-B pass undirected");
    g.directed = true;
    CHECK(!graph_check_keys(&g, sides, 1, "x", err, sizeof err) &&
          !strcmp(err, "arc 1 runs from node 3 on side B to node 1 on side A (x needs arcs A->B)"), "arc B->A: %s", err);
    g.directed = false;
    g.side[3] = 0;
    CHECK(!graph_check_keys(&g, sides, 1, "x", err, sizeof err) &&
          !strcmp(err, "edge 1 joins nodes 3 and 1, both on side A (x needs every edge between A and B)"),
          "an A-A edge: %s", err);
    g.side = NULL;
    CHECK(!graph_check_keys(&g, sides, 1, "x", err, sizeof err) && !strcmp(err, "'side' is missing (x needs sides)"),
          "no side: %s", err);
}

int main(void)
{
    check_file_name = "graphgen";
    test_key_checks();
    test_two_community();
    test_two_community_directed();
    test_bipartite();
    test_erdos_renyi();
    test_uniform_minmax();
    test_determinism();
    test_errors();
    test_shortest_path_instances();
    test_bipartite_sides();
    test_vertex_cover_families();
    test_instance_errors();
    return check_done();
}
