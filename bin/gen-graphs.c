/* gen-graphs - synthetic flow networks as a graph record stream
 * (formats/graph.md; the families are in common/graphs/graphgen.c, the body
 * in tools/gen_graphs.c). */
#include "cli.h"
#include "die.h"
#include "gen_graphs.h"
#include "io.h"
#include "registry.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *family = "two-community", *capacity = "max-of-two", *output = "-";
static const char *from_vesselgraph = "", *instance, *probability = "", *sides = "";
static const char *node_weights = "uniform", *sizes_list = "", *law = "dar";
static int64_t nodes = 16, count = 1, seed = 0, edges = 0, optimum_nodes;
static double density = 0.75, inter_density = 0.05, optimum_seconds;
static bool directed, force, no_cache, verbose, quiet, progress;
/* --instance's choices and help and --optimum-nodes' help, from the registry's
 * rows (describe_instances) */
static char instance_choices[256], instance_help[512], optimum_help[512];

static const struct cli_option options[] = {
    CLI_CHOICE_KEY("family", 0, family, "NAME", "graph family", GRAPHGEN_FAMILY_CHOICES),
    CLI_CHOICE_KEY("instance", 0, instance, "KIND", instance_help, instance_choices),
    CLI_INT_KEY("nodes", 'n', nodes, "N", "nodes per graph (two-community: even; not vessel)", 2, 46340),
    CLI_INT_KEY("edges", 'e', edges, "E", "vessel: exactly E edges (3234: the benchmark's synthetic graph; 5791309, 2150326, 3130650: "
     "CD1-E-1/2/3); one record (formats/vessel.md)", 0, 1e8),
    CLI_STRING_KEY("from-vesselgraph", 0, from_vesselgraph, "DIR", "read DIR/*_nodes_processed.csv and DIR/*_edges_processed.csv (VesselGraph) into one vessel "
     "record instead of generating; --seed draws w"),
    CLI_INT_KEY("count", 'c', count, "K", "number of graphs", 0, 1e12),
    CLI_INT_KEY("seed", 's', seed, "S", "random seed; graph k depends only on (options, S, k)", 0, 9.2e18),
    CLI_DOUBLE_KEY("density", 0, density, "P", "community pair density ({i,j} iff U_ij<=P or U_ji<=P); erdos-renyi edge probability; "
     "bipartite: A-B probability ~ U(P,1) per graph", 0, 1),
    CLI_STRING_KEY("p", 0, probability, "P|LO:HI", "erdos-renyi and bipartite-sides: edge probability, fixed or U(LO,HI) "
     "per graph (default: --density for instances with s t cap, 0.25 for bipartite-sides and for instances with s w or side, "
     "0.2:0.8 for instances with node_w)"),
    CLI_STRING_KEY("sides", 0, sides, "A,B", "bipartite-sides: A nodes on side A and B on side B (default: --nodes split in "
     "half; --sides sets the node count)"),
    CLI_CHOICE_KEY("node-weights", 0, node_weights, "LAW", "instances with node_w: U(0,1] per node (uniform) or 1 (unit)",
     GRAPHGEN_NODE_WEIGHT_CHOICES),
    CLI_INT_KEY("optimum-nodes", 0, optimum_nodes, "N", optimum_help, 0, 2147483647),
    /* kept only to refuse it with a pointer: it was GLPK's wall clock, so
     * the same command wrote different optima on a loaded machine */
    CLI_DOUBLE("optimum", 0, optimum_seconds, "S", "refused: seconds of wall clock made the optima depend on the "
     "machine's load; use --optimum-nodes", 0, 1e6),
    CLI_DOUBLE_KEY("inter-density", 0, inter_density, "P", "two-community: probability of each C1-C2 pair (+0.01 per redraw until one)", 0, 1),
    CLI_FLAG_KEY("directed", 0, directed, "directed arcs, ordered pairs drawn independently (else undirected, src<dst)"),
    CLI_CHOICE_KEY("capacity", 0, capacity, "LAW", "max-of-two: larger of two draws in 1..9, /10 (authors' code); uniform-minmax: U{0..10} "
     "min-max rescaled per graph (paper); bipartite is 1 under both; zero-one: bipartite only, each edge 0 or 1 (the paper's text)",
     "max-of-two|uniform-minmax|zero-one"),
    CLI_STRING_KEY_IF_SET("sizes", 0, sizes_list, "LIST", "graph k has the k-th of these node counts, cycling "
     "(4,7,11,13,16: CLRS's training lengths); empty: --nodes"),
    CLI_CHOICE_KEY_IF_SET("law", 0, law, "LAW", "instances with s and w: dar's (pairs with p = 0.25, w ~ U[0,1)) or CLRS's "
     "Bellman-Ford sampler (p per graph from 0.1..0.9 applied to both directions, w = sqrt(u u' + 1e-3))", "dar|clrs"),
    CLI_OUTPUT(output),
    CLI_FORCE(force),
    CLI_FLAG("no-cache", 0, no_cache, "do not use the cache (large outputs are cached)"),
    CLI_FLAG("verbose", 'v', verbose, "say on stderr whether the cache hit"),
    CLI_QUIET(quiet),
    CLI_FLAG("progress", 0, progress, "progress line even when stderr is not a terminal"),
    {0},
};

static const struct cli_spec spec = {
    "gen-graphs", "[options] > graphs.mp",
    "Generate synthetic flow networks, one graph record per graph (formats/graph.md):\n"
    "two-community graphs (the paper's training and test data), bipartite graphs\n"
    "(s=0, t=n-1, unit capacities; the paper's out-of-family test) and Erdos-Renyi\n"
    "graphs.  Record k depends only on the options, the seed and k, so --count 10\n"
    "is a prefix of --count 1000.  Bellman-Ford weights are U[0,1) per edge.\n"
    "--instance NAME writes the instances of another algorithm of the registry,\n"
    "with only the keys it needs; bipartite-sides (side A and side B),\n"
    "barabasi-albert, star and lobster are their families.\n"
    "--family vessel --edges E makes one brain-vessel-like graph of exactly E edges\n"
    "with the VesselGraph edge columns, positions and labels; --from-vesselgraph DIR\n"
    "reads a real one (formats/vessel.md).",
    "gen-graphs --count 1000 --seed 1 | ff-trace > train.mp",
    options,
    NULL,
};

static void append(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t size, const char *fmt, ...)
{
    size_t len = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, size - len, fmt, ap);
    va_end(ap);
}

/* The option table's texts that list the registry's instances. */
static void describe_instances(void)
{
    append(instance_help, sizeof instance_help, "the problem the records are instances of, which decides their keys:");
    for (int i = 0; i < dar_algorithm_count; i++) {
        const struct dar_algorithm *alg = dar_algorithms[i];
        append(instance_choices, sizeof instance_choices, "%s%s", i ? "|" : "", alg->name);
        append(instance_help, sizeof instance_help, "%s %s (%s)", i ? "," : "", alg->name, alg->generate->keys_help);
        if (alg->write_optimum)
            append(optimum_help, sizeof optimum_help, "%s%s: add %s", optimum_help[0] ? "; " : "", alg->name,
                   alg->optimum_help);
    }
}

/* The instances whose row has() holds, "'--instance A' or '--instance B'",
 * for the usage error of an option only they take. */
static const char *names_with(bool (*has)(const struct dar_algorithm *), char *buf, size_t size)
{
    buf[0] = '\0';
    for (int i = 0; i < dar_algorithm_count; i++)
        if (has(dar_algorithms[i]))
            append(buf, size, "%s'--instance %s'", buf[0] ? " or " : "", dar_algorithms[i]->name);
    return buf;
}
static bool takes_clrs_law(const struct dar_algorithm *alg) { return alg->generate->clrs_law; }
static bool has_optimum(const struct dar_algorithm *alg) { return alg->write_optimum; }

int main(int argc, char **argv)
{
    describe_instances();
    instance = dar_algorithm_default()->name;
    cli_no_operand(&spec, argc, argv, cli_parse(&spec, argc, argv));
    cleanup_install_signals();
    struct gen_graphs_options o = {
        .graph = {.family = family, .nodes = (int)nodes, .edges = edges, .density = density,
                  .inter_density = inter_density, .directed = directed, .seed = (uint64_t)seed},
        .count = count, .from_vesselgraph = from_vesselgraph, .optimum_nodes = optimum_nodes, .no_cache = no_cache, .verbose = verbose,
        .quiet = quiet, .progress = progress, .spec = &spec,
    };
    char err[256], names[256];
    o.algorithm = dar_algorithm_find(instance);
    if (!o.algorithm || !graphgen_node_weight_law(node_weights, &o.graph.node_weights))
        cli_usage_error(&spec, "unknown instance kind or node weight law");
    o.graph.instance = o.algorithm->generate;
    o.graph.instance_name = o.algorithm->name;
    if (probability[0] && !graphgen_parse_probability(probability, &o.graph.p_lo, &o.graph.p_hi, err, sizeof err))
        cli_usage_error(&spec, "%s", err);
    o.graph.p_given = probability[0];
    if (sizes_list[0] && !graphgen_parse_sizes(sizes_list, &o.graph, err, sizeof err))
        cli_usage_error(&spec, "%s", err);
    o.graph.clrs_law = !strcmp(law, "clrs");
    if (o.graph.clrs_law && !takes_clrs_law(o.algorithm))
        cli_usage_error(&spec, "'--law clrs' is for %s", names_with(takes_clrs_law, names, sizeof names));
    if (sides[0]) {
        if (!graphgen_parse_sides(sides, &o.graph.side_a, &o.graph.side_b, err, sizeof err))
            cli_usage_error(&spec, "%s", err);
        o.graph.nodes = o.graph.side_a + o.graph.side_b;
    }
    if (!graphgen_capacity_law(capacity, &o.graph.capacity))
        cli_usage_error(&spec, "unknown capacity law '%s'", capacity);
    if (!from_vesselgraph[0] && !graphgen_check(&o.graph, err, sizeof err))
        cli_usage_error(&spec, "%s", err);
    if (optimum_seconds > 0)
        cli_usage_error(&spec, "'--optimum S' (seconds of GLPK's wall clock) wrote different optima on a loaded and a "
                        "quiet machine; use '--optimum-nodes N', a budget of branch-and-bound nodes per graph");
    if (optimum_nodes > 0 && !has_optimum(o.algorithm))
        cli_usage_error(&spec, "'--optimum-nodes' is for %s", names_with(has_optimum, names, sizeof names));
    bool vessel = strcmp(family, "vessel") == 0 || from_vesselgraph[0];
    if (vessel && count != 1)
        cli_usage_error(&spec, "a vessel graph is one record: '--count' must be 1, got %lld", (long long)count);
    if (!vessel && edges)
        cli_usage_error(&spec, "'--edges' is for family 'vessel'");
    FILE *out = io_open_output(output, 1, force);
    gen_graphs_run(out, &o);
    io_close_output(out);
    return 0;
}
