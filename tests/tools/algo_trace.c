/* algo_trace - a test helper around common/algos/: runs one tracer or
 * solver on every graph record and adds its outputs, for the oracles of
 * tests/250-algos.bats (tests/tools/algos_oracle.py) and the benches.
 *
 *   algo_trace --algorithm shortest-paths|matching|vertex-cover [--no-hints] [--exact]
 *       < graphs.mp > traced.mp
 *
 * matching also runs Hopcroft-Karp (hk_match, hk_size) and the Konig cover
 * of its matching (hk_cover).  vertex-cover --exact adds the ILP's optimum
 * (opt_cover, opt_weight, opt_status) and, on graphs with sides, the min
 * cut's (cut_cover, cut_weight).
 *
 * A record that lacks what the algorithm needs, or whose hints would exceed
 * --max-hint-bytes, is one line and exit 65, as a tool would say it. */
#include "bellman_ford.h"
#include "hopcroft_karp.h"
#include "matching.h"
#include "vertex_cover.h"
#include "vertex_cover_exact.h"
#include "cli.h"
#include "die.h"
#include "graph.h"
#include "algo_vertex_cover.h"
#include "algo_shortest_paths.h"
#include "algo_matching.h"
#include "hint_bound.h"
#include "io.h"
#include "stream.h"
#include "tensor.h"
#include <stdlib.h>
#include <string.h>

static const char *algorithm = "shortest-paths", *input = "-", *output = "-";
static bool no_hints, force, exact, no_second, cut_only;
static int64_t node_limit;
static int64_t max_hint_bytes = (int64_t)HINT_BYTES_MAX;

static const struct cli_option options[] = {
    CLI_CHOICE("algorithm", 'a', algorithm, "NAME", "what to run", "shortest-paths|matching|vertex-cover"),
    CLI_FLAG("no-hints", 0, no_hints, "outputs only"),
    CLI_INT("max-hint-bytes", 0, max_hint_bytes, "B", "refuse graphs whose hints could exceed B bytes", 1, 9.2e18),
    CLI_FLAG("exact", 0, exact, "vertex-cover: also the exact solvers"),
    CLI_FLAG("cut-only", 0, cut_only, "vertex-cover --exact: the min cut alone (graphs with sides; benches)"),
    CLI_FLAG("no-second", 0, no_second, "matching: the trace alone, without Hopcroft-Karp and the checks (benches)"),
    CLI_INT("node-limit", 0, node_limit, "N", "vertex-cover --exact: the ILP's budget of branch-and-bound nodes per graph "
     "(0: none)", 0, 2147483647),
    CLI_INPUT(input),
    CLI_OUTPUT(output),
    CLI_FORCE(force),
    {0},
};

static const struct cli_spec spec = {
    "algo_trace", "[options] < graphs.mp > traced.mp",
    "Test helper: the tracers and exact solvers of common/algos/ on graph records.",
    "gen-graphs --instance shortest-paths --family erdos-renyi | algo_trace",
    options,
    NULL,
};

static void tensor2(struct writer *w, enum dtype dt, int64_t rows, int64_t cols, const void *data)
{
    int64_t shape[2] = {rows, cols};
    mp_tensor(w, dt, 2, shape, data);
}

static void shortest_paths(struct writer *w, const struct record *rec)
{
    struct graph g;
    graph_read_instance(&g, rec, dar_algorithm_shortest_paths.instance_keys, dar_algorithm_shortest_paths.ninstance_keys, "shortest-paths");
    struct bellman_ford bf;
    char err[256];
    if (!bellman_ford_trace(&bf, g.n, g.m, g.src, g.dst, g.w, g.s, !no_hints, (size_t)max_hint_bytes, err, sizeof err))
        record_die(rec, "%s", err);
    bool dual_ok = bellman_ford_check(g.n, g.m, g.src, g.dst, g.w, g.s, bf.d, bf.pi, bf.reached, 1e-9, err, sizeof err);
    static const char *const with_hints[] = {"steps", "hint_d", "hint_pi", "hint_reached", "d", "pi", "reached", "dual_ok"};
    const char *const *keys = no_hints ? with_hints + 4 : with_hints;
    int count = no_hints ? 4 : 8;
    writer_begin_enriched(w, rec, keys, count);
    if (!no_hints) {
        mp_key(w, "steps");        mp_int(w, bf.steps);
        mp_key(w, "hint_d");       tensor2(w, DT_F64, bf.steps, g.n, bf.hint_d);
        mp_key(w, "hint_pi");      tensor2(w, DT_I32, bf.steps, g.n, bf.hint_pi);
        mp_key(w, "hint_reached"); tensor2(w, DT_U8, bf.steps, g.n, bf.hint_reached);
    }
    mp_key(w, "d");       mp_vector(w, DT_F64, g.n, bf.d);
    mp_key(w, "pi");      mp_vector(w, DT_I32, g.n, bf.pi);
    mp_key(w, "reached"); mp_vector(w, DT_U8, g.n, bf.reached);
    mp_key(w, "dual_ok"); mp_bool(w, dual_ok);
    bellman_ford_free(&bf);
    graph_free(&g);
}

static void matching(struct writer *w, const struct record *rec)
{
    struct graph g;
    graph_read_instance(&g, rec, dar_algorithm_matching.instance_keys, dar_algorithm_matching.ninstance_keys, "matching");
    struct matching mt;
    char err[256];
    if (!matching_trace(&mt, g.n, g.m, g.src, g.dst, g.side, !no_hints, (size_t)max_hint_bytes, err, sizeof err))
        record_die(rec, "%s", err);
    uint8_t *hk_match = xcalloc((size_t)(g.m ? g.m : 1), 1), *hk_cover = xcalloc((size_t)g.n, 1);
    int hk_size = 0;
    bool check_ok = false;
    if (!no_second) {
        hk_size = hopcroft_karp(g.n, g.m, g.src, g.dst, g.side, hk_match);
        matching_konig_cover(g.n, g.m, g.src, g.dst, g.side, hk_match, hk_cover);
        check_ok = matching_check(g.n, g.m, g.src, g.dst, mt.match, mt.cover, err, sizeof err) &&
                   matching_check(g.n, g.m, g.src, g.dst, hk_match, hk_cover, err, sizeof err);
    }
    static const char *const with_hints[] = {"steps", "hint_reached", "hint_pi", "hint_match", "match", "cover",
                                             "size", "hk_match", "hk_size", "hk_cover", "check_ok"};
    const char *const *keys = no_hints ? with_hints + 4 : with_hints;
    writer_begin_enriched(w, rec, keys, (no_hints ? 7 : 11) - (no_second ? 4 : 0));
    if (!no_hints) {
        mp_key(w, "steps");        mp_int(w, mt.steps);
        mp_key(w, "hint_reached"); tensor2(w, DT_U8, mt.steps, g.n, mt.hint_reached);
        mp_key(w, "hint_pi");      tensor2(w, DT_I32, mt.steps, g.n, mt.hint_pi);
        mp_key(w, "hint_match");   tensor2(w, DT_U8, mt.steps, g.m, mt.hint_match);
    }
    mp_key(w, "match");    mp_vector(w, DT_U8, g.m, mt.match);
    mp_key(w, "cover");    mp_vector(w, DT_U8, g.n, mt.cover);
    mp_key(w, "size");     mp_int(w, mt.size);
    if (!no_second) {
        mp_key(w, "hk_match"); mp_vector(w, DT_U8, g.m, hk_match);
        mp_key(w, "hk_size");  mp_int(w, hk_size);
        mp_key(w, "hk_cover"); mp_vector(w, DT_U8, g.n, hk_cover);
        mp_key(w, "check_ok"); mp_bool(w, check_ok);
    }
    free(hk_match);
    free(hk_cover);
    matching_free(&mt);
    graph_free(&g);
}

static void vertex_cover(struct writer *w, const struct record *rec)
{
    struct graph g;
    graph_read_instance(&g, rec, dar_algorithm_vertex_cover.instance_keys, dar_algorithm_vertex_cover.ninstance_keys, "vertex-cover");
    struct vertex_cover vc;
    char err[256];
    if (!vertex_cover_trace(&vc, g.n, g.m, g.src, g.dst, g.node_w, VERTEX_COVER_EPSILON, !no_hints,
                            (size_t)max_hint_bytes, err, sizeof err))
        record_die(rec, "%s", err);
    bool check_ok = vertex_cover_check(g.n, g.m, g.src, g.dst, g.node_w, vc.cover, vc.packing, VERTEX_COVER_EPSILON,
                                       1e-9, err, sizeof err);
    const char *keys[16];
    int count = 0;
    if (!no_hints)
        for (const char *const *k = (const char *const[]){"steps", "hint_residual", "hint_in_cover", "hint_delta",
                                                           "hint_live", NULL}; *k; k++)
            keys[count++] = *k;
    keys[count++] = "cover";
    keys[count++] = "packing";
    keys[count++] = "check_ok";
    uint8_t *opt = xmalloc((size_t)g.n), *cut = xmalloc((size_t)g.n);
    double opt_weight = 0, cut_weight = 0;
    enum vertex_cover_status status = VERTEX_COVER_UNSOLVED;
    bool bipartite = g.side && graph_check_keys(&g, dar_algorithm_matching.instance_keys, dar_algorithm_matching.ninstance_keys, NULL, err, sizeof err);
    bool ilp = exact && !cut_only;
    if (ilp) {
        status = vertex_cover_ilp(g.n, g.m, g.src, g.dst, g.node_w, node_limit, opt, &opt_weight);
        keys[count++] = "opt_cover";
        keys[count++] = "opt_weight";
        keys[count++] = "opt_status";
    }
    if (exact) {
        if (bipartite) {
            cut_weight = vertex_cover_min_cut(g.n, g.m, g.src, g.dst, g.side, g.node_w, cut);
            keys[count++] = "cut_cover";
            keys[count++] = "cut_weight";
        }
    }
    writer_begin_enriched(w, rec, keys, count);
    if (!no_hints) {
        mp_key(w, "steps");         mp_int(w, vc.steps);
        mp_key(w, "hint_residual"); tensor2(w, DT_F64, vc.steps, g.n, vc.hint_residual);
        mp_key(w, "hint_in_cover"); tensor2(w, DT_U8, vc.steps, g.n, vc.hint_in_cover);
        mp_key(w, "hint_delta");    tensor2(w, DT_F64, vc.steps, g.m, vc.hint_delta);
        mp_key(w, "hint_live");     tensor2(w, DT_U8, vc.steps, g.m, vc.hint_live);
    }
    mp_key(w, "cover");    mp_vector(w, DT_U8, g.n, vc.cover);
    mp_key(w, "packing");  mp_vector(w, DT_F64, g.m, vc.packing);
    mp_key(w, "check_ok"); mp_bool(w, check_ok);
    if (ilp) {
        mp_key(w, "opt_cover");  mp_vector(w, DT_U8, g.n, opt);
        mp_key(w, "opt_weight"); mp_double(w, opt_weight);
        mp_key(w, "opt_status"); mp_str(w, vertex_cover_status_name(status));
    }
    if (exact) {
        if (bipartite) {
            mp_key(w, "cut_cover");  mp_vector(w, DT_U8, g.n, cut);
            mp_key(w, "cut_weight"); mp_double(w, cut_weight);
        }
    }
    free(opt);
    free(cut);
    vertex_cover_free(&vc);
    graph_free(&g);
}

static void each(struct writer *w, const struct record *rec, void *context)
{
    if (strcmp(algorithm, "vertex-cover") == 0)
        vertex_cover(w, rec);
    else if (strcmp(algorithm, "matching") == 0)
        matching(w, rec);
    else
        shortest_paths(w, rec);
}

int main(int argc, char **argv)
{
    cli_no_operand(&spec, argc, argv, cli_parse(&spec, argc, argv));
    FILE *in = io_open_input(input);
    FILE *out = io_open_output(output, 1, force);
    struct stream_map map = {.each = each};
    stream_map(in, strcmp(input, "-") ? input : NULL, out, &map);
    io_close_output(out);
    return 0;
}
