/* edge-embed - DAR's algorithm reconstruction on a vessel graph, and the
 * one-step edge embeddings of huge vessel graphs (formats/edge-embed.md). */
#include "cache.h"
#include "cli.h"
#include "cpus.h"
#include "dar.h"
#include "die.h"
#include "edge_embed.h"
#include "io.h"
#include "workers.h"
#include <stdlib.h>
#include <string.h>

static const char *model_path, *capacity = "cross-section", *node = "both", *log_path,
                  *input = "-", *output = "-";
static bool reconstruct, no_cache, verbose, force, quiet, progress;
static int64_t iters = 15000, seed = 0, max_steps = 0, chunk = 65536, threads = 0;
static double lr = 1e-5, tf_decay = 0.999;

static const struct cli_option options[] = {
    {"model", 'm', CLI_STRING, &model_path, "FILE", "a dar-fit model (primal or dual), or a reconstructed one to embed with", 0, NULL, 0, 0},
    {"reconstruct", 0, CLI_FLAG, &reconstruct, NULL, "train vessel encoders in place of cap's on the one graph of stdin; write a model", CLI_KEY, NULL, 0, 0},
    {"iters", 0, CLI_INT, &iters, "N", "--reconstruct: Adam steps", CLI_KEY, NULL, 0, 1e9},
    {"lr", 0, CLI_DOUBLE, &lr, "X", "--reconstruct: Adam learning rate", CLI_KEY, NULL, 0, 1e3},
    {"tf-decay", 0, CLI_DOUBLE, &tf_decay, "D", "--reconstruct: teacher forcing probability D^iteration", CLI_KEY, NULL, 0, 1},
    {"capacity", 0, CLI_CHOICE, &capacity, "RULE", "--reconstruct: the trace's capacity from avgRadiusAvg r: (r/rmax)^2, (r/rmax)^4 or 1", CLI_KEY, "cross-section|poiseuille|unit", 0, 0},
    {"max-steps", 0, CLI_INT, &max_steps, "T", "--reconstruct: train on the first T frames of the trace (0: all)", CLI_KEY, NULL, 0, 1e9},
    {"seed", 's', CLI_INT, &seed, "S", "--reconstruct: seed of the new encoders' init and of teacher forcing", CLI_KEY, NULL, 0, 9e18},
    {"log", 0, CLI_STRING, &log_path, "FILE", "--reconstruct: write the training curve as TSV", 0, NULL, 0, 0},
    {"node", 0, CLI_CHOICE, &node, "E", "node embedding: [h_BF; h_F], h_F, or P_F's [x; h_BF; h_F]", CLI_KEY, "both|flow|hd", 0, 0},
    {"chunk", 0, CLI_INT, &chunk, "N", "arcs per work unit (memory O(N*H) per thread; no effect on the result)", 0, NULL, 1, 1e12},
    {"threads", 'j', CLI_INT, &threads, "N", "threads (0: one per CPU this process may use); no effect on the result", 0, NULL, 0, 1024},
    CLI_INPUT(input),
    CLI_OUTPUT(output),
    CLI_NO_CACHE(no_cache),
    CLI_VERBOSE(verbose),
    CLI_QUIET(quiet),
    {"progress", 0, CLI_FLAG, &progress, NULL, "a progress line even when stderr is not a terminal", 0, NULL, 0, 0},
    CLI_FORCE(force),
    {0},
};

static const struct cli_spec spec = {
    "edge-embed", "--model FILE [--reconstruct] [options] < vessel.mp > out.mp",
    "With --reconstruct: DAR's algorithm reconstruction (paper 4.2).  The capacity\n"
    "encoder of P_BF and P_F is replaced by three new encoders of the vessel\n"
    "features length, distance, curveness (min-max scaled per graph); everything\n"
    "else is frozen and only the new encoders are trained with Adam to reproduce\n"
    "the Ford-Fulkerson trace of the vessel graph on stdin (capacity from the\n"
    "vessel radius, s and t by double sweep).  Writes the reconstructed model.\n"
    "Without: one Ford-Fulkerson step of the model (P_BF then P_F from frame 0,\n"
    "s and t by double sweep) on each graph of stdin, node embeddings from the\n"
    "two states, and 'edge_embed' f32[m, d] = the sum of the endpoints'.\n"
    "Works on a reconstructed model (vessel inputs) or a dar-fit model (cap).\n"
    "Results are cached by content.",
    "gen-graphs --family vessel --edges 3234 -s 1 | edge-embed --reconstruct -m dual.mp > recon.mp\n"
    "  gen-graphs --family vessel --edges 5791309 -s 1 | edge-embed -m recon.mp > embedded.mp",
    options,
};

int main(int argc, char **argv)
{
    int first = cli_parse(&spec, argc, argv);
    if (first < argc)
        cli_usage_error(&spec, "unexpected operand '%s'", argv[first]);
    if (!model_path)
        cli_usage_error(&spec, "--model FILE is required");
    if (quiet && progress)
        cli_usage_error(&spec, "--quiet and --progress contradict each other");
    if (log_path && !reconstruct)
        cli_usage_error(&spec, "--log applies to --reconstruct only");
    cleanup_install_signals();
    enum progress_mode pm = progress_mode_of(quiet, progress, true);

    FILE *in = io_open_input(input);
    FILE *model_file = io_open_input(model_path);
    FILE *out = io_open_output(output, 1, force);
    const char *in_name = io_input_name(input);
    char *args = cli_canonical_args(&spec);
    struct cache c;
    cache_begin(&c, spec.tool, args, NULL, no_cache, verbose);
    model_file = cache_add_input(&c, model_file, model_path);
    FILE *data = cache_add_input(&c, in, in_name);
    /* the log is not part of the key: the model carries the curve, so a hit
     * writes the same log (without the timings) */
    FILE *hit = cache_replay_begin(out, reconstruct && log_path);
    FILE *dest = cache_lookup(&c, hit);
    if (dest) {
        if (reconstruct) {
            struct edge_embed_reconstruct_options o = {iters, lr, tf_decay, EDGE_CAP_CROSS_SECTION,
                                                       max_steps, (uint64_t)seed, log_path, pm, args};
            edge_capacity_parse(capacity, &o.capacity);
            workers_start(threads ? (int)threads : cpus_usable());
            edge_embed_reconstruct_run(&o, model_file, model_path, data, in_name, dest);
        } else {
            struct dar_model model;
            dar_model_load(&model, model_file, model_path);
            struct edge_embed_options o = {&model, chunk, threads ? (int)threads : cpus_usable(),
                                           EDGE_NODE_BOTH, pm};
            edge_node_parse(node, &o.node);
            edge_embed_run(data, in_name, dest, &o);
            dar_model_free(&model);
        }
        cache_commit(&c);
    } else if (hit != out) {
        rewind(hit);
        reconstruct_write_log_from_model(hit, "<cache>", log_path);
    }
    cache_end(&c);
    cache_replay_end(hit, out);
    free(args);
    io_close_output(out);
    return 0;
}
