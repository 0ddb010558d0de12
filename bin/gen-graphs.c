/* gen-graphs - synthetic flow networks as a graph record stream
 * (formats/graph.md; the families are in common/graphs/graphgen.c). */
#include "cache.h"
#include "cli.h"
#include "die.h"
#include "graph.h"
#include "graphgen.h"
#include "io.h"
#include "progress.h"
#include "stream.h"
#include "vessel.h"
#include "vesselgraph_csv.h"
#include <stdlib.h>
#include <string.h>

/* Below this many node pairs in all (count * nodes^2) generating is cheaper
 * than hashing the executable and copying an entry: no cache. */
#define CACHE_MIN_WORK ((double)(1 << 24))
/* Above this much work the progress line appears (on a terminal). */
#define PROGRESS_MIN_WORK ((double)(1 << 22))
/* Vessel graphs from this many edges are cached (about 50 ms of work). */
#define VESSEL_CACHE_MIN_EDGES 200000

static const char *family = "two-community", *capacity = "max-of-two", *output = "-";
static const char *from_vesselgraph = "";
static int64_t nodes = 16, count = 1, seed = 0, edges = 0;
static double density = 0.75, inter_density = 0.05;
static bool directed, force, no_cache, verbose, quiet, progress;

static const struct cli_option options[] = {
    {"family", 0, CLI_CHOICE, &family, "NAME", "graph family", CLI_KEY,
     "two-community|bipartite|erdos-renyi|vessel", 0, 0},
    {"nodes", 'n', CLI_INT, &nodes, "N", "nodes per graph (two-community: even; not vessel)", CLI_KEY, NULL, 2, 46340},
    {"edges", 'e', CLI_INT, &edges, "E",
     "vessel: exactly E edges (3234: the benchmark's synthetic graph; 5791309, 2150326, 3130650: "
     "CD1-E-1/2/3); one record (formats/vessel.md)", CLI_KEY, NULL, 0, 1e8},
    {"from-vesselgraph", 0, CLI_STRING, &from_vesselgraph, "DIR",
     "read DIR/*_nodes_processed.csv and DIR/*_edges_processed.csv (VesselGraph) into one vessel "
     "record instead of generating; --seed draws w", CLI_KEY, NULL, 0, 0},
    {"count", 'c', CLI_INT, &count, "K", "number of graphs", CLI_KEY, NULL, 0, 1e12},
    {"seed", 's', CLI_INT, &seed, "S", "random seed; graph k depends only on (options, S, k)", CLI_KEY,
     NULL, 0, 9.2e18},
    {"density", 0, CLI_DOUBLE, &density, "P",
     "community pair density ({i,j} iff U_ij<=P or U_ji<=P); erdos-renyi edge probability; "
     "bipartite: A-B probability ~ U(P,1) per graph", CLI_KEY, NULL, 0, 1},
    {"inter-density", 0, CLI_DOUBLE, &inter_density, "P",
     "two-community: probability of each C1-C2 pair (+0.01 per redraw until one)", CLI_KEY, NULL, 0, 1},
    {"directed", 0, CLI_FLAG, &directed, NULL,
     "directed arcs, ordered pairs drawn independently (else undirected, src<dst)", CLI_KEY, NULL, 0, 0},
    {"capacity", 0, CLI_CHOICE, &capacity, "LAW",
     "max-of-two: larger of two draws in 1..9, /10 (authors' code); uniform-minmax: U{0..10} "
     "min-max rescaled per graph (paper); bipartite is always 1", CLI_KEY, "max-of-two|uniform-minmax", 0, 0},
    CLI_OUTPUT(output),
    CLI_FORCE(force),
    {"no-cache", 0, CLI_FLAG, &no_cache, NULL, "do not use the cache (large outputs are cached)", 0, NULL, 0, 0},
    {"verbose", 'v', CLI_FLAG, &verbose, NULL, "say on stderr whether the cache hit", 0, NULL, 0, 0},
    CLI_QUIET(quiet),
    {"progress", 0, CLI_FLAG, &progress, NULL, "progress line even when stderr is not a terminal", 0, NULL, 0, 0},
    {0},
};

static const struct cli_spec spec = {
    "gen-graphs", "[options] > graphs.mp",
    "Generate synthetic flow networks, one graph record per graph (formats/graph.md):\n"
    "two-community graphs (the paper's training and test data), bipartite graphs\n"
    "(s=0, t=n-1, unit capacities; the paper's out-of-family test) and Erdos-Renyi\n"
    "graphs.  Record k depends only on the options, the seed and k, so --count 10\n"
    "is a prefix of --count 1000.  Bellman-Ford weights are U[0,1) per edge.\n"
    "--family vessel --edges E makes one brain-vessel-like graph of exactly E edges\n"
    "with the VesselGraph edge columns, positions and labels; --from-vesselgraph DIR\n"
    "reads a real one (formats/vessel.md).",
    "gen-graphs --count 1000 --seed 1 | ff-trace > train.mp",
    options,
};

/* Start the cache for this run and look it up: NULL on a hit (already
 * copied to out), else where to generate.  A small output bypasses the cache:
 * hashing and copying an entry would cost more than generating it. */
static FILE *cache_open(struct cache *c, char **args, FILE *out, bool small)
{
    if (small && verbose && !no_cache)
        fprintf(stderr, "%s: cache not used for a small output\n", spec.tool);
    *args = cli_canonical_args(&spec);
    cache_begin(c, spec.tool, *args, NULL, no_cache || small, verbose);
    return cache_lookup(c, out);
}

/* One vessel record, generated (cached when large) or read from CSVs (not
 * cached: parsing costs about what hashing the files would). */
static int vessel_main(uint64_t vessel_seed)
{
    char err[256];
    struct vessel_graph v;
    if (from_vesselgraph[0]) {
        vesselgraph_read(from_vesselgraph, vessel_seed, &v);   /* dies 65/66 naming file:line */
        FILE *out = io_open_output(output, 1, force);
        struct writer w;
        writer_init(&w, out);
        vessel_write(&w, &v);
        vessel_free(&v);
        io_close_output(out);
        return 0;
    }
    FILE *out = io_open_output(output, 1, force);
    struct cache c;
    char *args;
    FILE *dest = cache_open(&c, &args, out, edges < VESSEL_CACHE_MIN_EDGES);
    if (dest) {
        struct progress p;
        progress_begin(&p, progress_mode_of(quiet, progress, edges >= VESSEL_CACHE_MIN_EDGES),
                       "graphs", 1);
        if (!vessel_generate(edges, vessel_seed, &v, err, sizeof err))
            die(EX_SOFTWARE, "record 0: %s", err);
        struct writer w;
        writer_init(&w, dest);
        vessel_write(&w, &v);
        vessel_free(&v);
        progress_update(&p, 1);
        progress_end(&p);
        cache_commit(&c);
    }
    cache_end(&c);
    free(args);
    io_close_output(out);
    return 0;
}

int main(int argc, char **argv)
{
    if (cli_parse(&spec, argc, argv) < argc)
        cli_usage_error(&spec, "unexpected operand '%s'", argv[argc - 1]);
    if (quiet && progress)
        cli_usage_error(&spec, "options '--quiet' and '--progress' conflict");
    cleanup_install_signals();

    struct graphgen_options o = {
        .family = family, .nodes = (int)nodes, .edges = edges, .density = density, .inter_density = inter_density,
        .directed = directed, .seed = (uint64_t)seed,
    };
    char err[256];
    if (!graphgen_capacity_law(capacity, &o.capacity))
        cli_usage_error(&spec, "unknown capacity law '%s'", capacity);
    if (!from_vesselgraph[0] && !graphgen_check(&o, err, sizeof err))
        cli_usage_error(&spec, "%s", err);

    bool vessel = strcmp(family, "vessel") == 0 || from_vesselgraph[0];
    if (vessel && count != 1)
        cli_usage_error(&spec, "a vessel graph is one record: '--count' must be 1, got %lld", (long long)count);
    if (!vessel && edges)
        cli_usage_error(&spec, "'--edges' is for family 'vessel'");
    if (vessel)
        return vessel_main(o.seed);

    FILE *out = io_open_output(output, 1, force);
    double work = (double)count * (double)nodes * (double)nodes;
    struct cache c;
    char *args;
    FILE *dest = cache_open(&c, &args, out, work < CACHE_MIN_WORK);
    if (dest) {
        struct progress p;
        progress_begin(&p, progress_mode_of(quiet, progress, work >= PROGRESS_MIN_WORK),
                       "graphs", count);
        struct writer w;
        writer_init(&w, dest);
        for (int64_t k = 0; k < count; k++) {
            struct graph g;
            if (!graphgen(&o, k, &g, err, sizeof err))
                die(EX_SOFTWARE, "record %lld: %s", (long long)k, err);
            mp_map(&w, GRAPH_CORE_KEYS);
            graph_write_core(&w, &g);
            graph_free(&g);
            progress_update(&p, k + 1);
        }
        progress_end(&p);
        cache_commit(&c);
    }
    cache_end(&c);
    free(args);
    io_close_output(out);
    return 0;
}
