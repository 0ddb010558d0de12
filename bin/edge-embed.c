/* edge-embed - DAR's algorithm reconstruction on a vessel graph, and the
 * one-step edge embeddings of huge vessel graphs (formats/edge-embed.md). */
#include "cache.h"
#include "cli.h"
#include "dar.h"
#include "die.h"
#include "edge_embed.h"
#include "io.h"
#include "registry.h"

static const char *model_path, *capacity = "cross-section", *node = "both", *log_path,
                  *input = "-", *output = "-";
static bool reconstruct, no_cache, verbose, force, quiet, progress;
static int64_t iters = 15000, seed = 0, max_steps = 0, chunk = 65536, threads = 0;
static double lr = 1e-5, tf_decay = 0.999;

static const struct cli_option options[] = {
    CLI_STRING("model", 'm', model_path, "FILE", "a dar-fit model (primal or dual), or a reconstructed one to embed with"),
    CLI_FLAG_KEY("reconstruct", 0, reconstruct, "train vessel encoders in place of cap's on the one graph of stdin; write a model"),
    CLI_INT_KEY("iters", 0, iters, "N", "--reconstruct: Adam steps", 0, 1e9),
    CLI_DOUBLE_KEY("lr", 0, lr, "X", "--reconstruct: Adam learning rate", 0, 1e3),
    CLI_DOUBLE_KEY("tf-decay", 0, tf_decay, "D", "--reconstruct: teacher forcing probability D^iteration", 0, 1),
    CLI_CHOICE_KEY("capacity", 0, capacity, "RULE", "--reconstruct: the trace's capacity from avgRadiusAvg r: (r/rmax)^2, (r/rmax)^4 or 1", "cross-section|poiseuille|unit"),
    CLI_INT_KEY("max-steps", 0, max_steps, "T", "--reconstruct: train on the first T frames of the trace (0: all)", 0, 1e9),
    CLI_INT_KEY("seed", 's', seed, "S", "--reconstruct: seed of the new encoders' init and of teacher forcing", 0, 9e18),
    CLI_STRING("log", 0, log_path, "FILE", "--reconstruct: write the training curve as TSV"),
    CLI_CHOICE_KEY("node", 0, node, "E", "node embedding: [h_BF; h_F], h_F, or P_F's [x; h_BF; h_F]", "both|flow|hd"),
    CLI_INT("chunk", 0, chunk, "N", "arcs per work unit (memory O(N*H) per thread; no effect on the result)", 1, 1e12),
    CLI_THREADS(threads),
    CLI_INPUT(input),
    CLI_OUTPUT(output),
    CLI_NO_CACHE(no_cache),
    CLI_VERBOSE(verbose),
    CLI_QUIET(quiet),
    CLI_FLAG("progress", 0, progress, "a progress line even when stderr is not a terminal"),
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
    NULL,
};

int main(int argc, char **argv)
{
    cli_no_operand(&spec, argc, argv, cli_parse(&spec, argc, argv));
    if (!model_path)
        cli_usage_error(&spec, "--model FILE is required");
    if (log_path && !reconstruct)
        cli_usage_error(&spec, "--log applies to --reconstruct only");
    cleanup_install_signals();
    enum progress_mode pm = progress_mode_of(quiet, progress, true);
    FILE *in = io_open_input(input);
    FILE *model_file = io_open_input(model_path);
    FILE *out = io_open_output(output, 1, force);
    const char *in_name = io_input_name(input);
    /* the log is not part of the key: the model carries the curve */
    struct cached_run run = {.log_path = log_path, .write_log = reconstruct_write_log_from_model};
    cached_run_begin(&run, &spec, no_cache, verbose);
    model_file = cached_run_input(&run, model_file, model_path);
    FILE *data = cached_run_input(&run, in, in_name);
    FILE *dest = cached_run_lookup(&run, out);
    if (dest && reconstruct) {
        struct edge_embed_reconstruct_options o = {iters, lr, tf_decay, EDGE_CAP_CROSS_SECTION, max_steps, (uint64_t)seed,
                                        log_path, pm, run.args, threads};
        edge_capacity_parse(capacity, &o.capacity);
        edge_embed_reconstruct_run(data, in_name, model_file, model_path, dest, &o);
    } else if (dest) {
        struct dar_model model;
        dar_model_load(&model, model_file, model_path, dar_algorithm_of_model);
        struct edge_embed_options o = {&model, chunk, threads, EDGE_NODE_BOTH, pm};
        edge_node_parse(node, &o.node);
        edge_embed_run(data, in_name, dest, &o);
        dar_model_free(&model);
    }
    cached_run_end(&run);
    io_close_output(out);
    return 0;
}
