/* node2vec - Node2Vec embeddings of the vessels (the nodes of the line graph). */
#include "cache.h"
#include "cli.h"
#include "die.h"
#include "io.h"
#include "node2vec.h"

static const char *key = "n2v", *input = "-", *output = "-";
static int64_t dim = 128, walk_length = 40, context = 15, walks_per_node = 10, epochs = 5, negatives = 1, seed = 0,
               threads = 0;
static double p = 1, q = 1, lr = 0.01;
static bool no_cache, verbose, force, quiet, progress;

static const struct cli_option options[] = {
    CLI_STRING_KEY("key", 0, key, "KEY", "output key of the f32[m,dim] embedding"),
    CLI_INT_KEY("dim", 0, dim, "D", "embedding width", 1, 1024),
    CLI_INT_KEY("walk-length", 0, walk_length, "L", "nodes per walk, the start included", 2, 1000),
    CLI_INT_KEY("context", 0, context, "C", "window: a node and the C-1 nodes after it (at most --walk-length)", 2, 1000),
    CLI_INT_KEY("walks-per-node", 0, walks_per_node, "W", "walks from every node an epoch", 1, 100),
    CLI_INT_KEY("epochs", 0, epochs, "E", "passes over the nodes", 1, 10000),
    CLI_DOUBLE_KEY("p", 0, p, "P", "return parameter: weight 1/P to step back", 1e-6, 1e6),
    CLI_DOUBLE_KEY("q", 0, q, "Q", "in-out parameter: weight 1/Q to move away from the previous node", 1e-6, 1e6),
    CLI_DOUBLE_KEY("lr", 0, lr, "LR", "SparseAdam step size", 1e-9, 10),
    CLI_INT_KEY("negatives", 0, negatives, "K", "negative walks per walk (uniform random nodes)", 1, 20),
    CLI_INT_KEY("seed", 0, seed, "S", "seed of the initial table, the walks and the negatives", 0, 0),
    CLI_THREADS(threads),
    CLI_INPUT(input), CLI_OUTPUT(output), CLI_NO_CACHE(no_cache), CLI_VERBOSE(verbose), CLI_FORCE(force),
    CLI_PROGRESS(progress), CLI_QUIET(quiet),
    {0},
};

static const struct cli_spec spec = {
    "node2vec", "[options] < vessel.mp > embedded.mp",
    "Node2Vec on the line graph of every graph record (one node per edge, i.e.\n"
    "per vessel; adjacent when two vessels share an endpoint), as PyG 1.7.2\n"
    "trains it for the brain-vessel benchmark: p/q-biased walks from every node,\n"
    "skip-gram over forward windows with uniform negative walks on one table,\n"
    "SparseAdam on batches of 256 start nodes.  Adds f32[m, dim] under --key\n"
    "(formats/node2vec.md).  Same bytes at any --threads; cached by content.",
    "gen-graphs --family vessel --edges 20000 --seed 1 | node2vec | lc-train --inputs length,distance,curveness,n2v",
    options,
    NULL,
};

int main(int argc, char **argv)
{
    cli_no_operand(&spec, argc, argv, cli_parse(&spec, argc, argv));
    if (!*key)
        cli_usage_error(&spec, "--key: an empty name");
    if (context > walk_length)
        cli_usage_error(&spec, "--context %lld is longer than --walk-length %lld", (long long)context, (long long)walk_length);
    struct node2vec_options o = {key, dim, walk_length, context, walks_per_node, epochs, negatives, seed, p, q, lr,
                                 (int)threads, progress_mode_of(quiet, progress, true)};
    if (node2vec_batch_bytes(&o) > NODE2VEC_MAX_BATCH_BYTES)
        cli_usage_error(&spec, "a batch would need %.1f GB of gradient slots (256 x --walks-per-node x (1 + --negatives) "
                        "x --walk-length x --dim): at most %.1f", node2vec_batch_bytes(&o) / 1e9, NODE2VEC_MAX_BATCH_BYTES / 1e9);
    cleanup_install_signals();
    FILE *in = io_open_input(input);
    FILE *out = io_open_output(output, 1, force);
    const char *name = io_input_name(input);
    struct cached_run run = {0};
    cached_run_begin(&run, &spec, no_cache, verbose);
    FILE *data = cached_run_input(&run, in, name);
    FILE *dest = cached_run_lookup(&run, out);
    if (dest)
        node2vec_run(data, name, dest, &o);
    cached_run_end(&run);
    io_close_output(out);
    return 0;
}
