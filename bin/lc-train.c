/* lc-train - the linear classifier of the brain-vessel study (LC rows of Table 3). */
#include "cache.h"
#include "cli.h"
#include "die.h"
#include "io.h"
#include "lc_train.h"
#include <stdlib.h>
#include <string.h>

static const char *inputs = "length,distance,curveness", *drop = "";
static int64_t split_seed = 12, seed = 0, batch = 0, epochs = 50, patience = 5, threads = 0;
static double lr = 0.01, l2 = 0;
static bool no_cache, verbose, force, quiet, progress;
static const char *input = "-", *output = "-";

static const struct cli_option options[] = {
    {"inputs", 0, CLI_STRING, &inputs, "KEYS", "comma-separated per-edge inputs: f32[m] keys or f32[m,d] keys such as edge_embed", CLI_KEY, NULL, 0, 0},
    {"drop", 0, CLI_STRING, &drop, "KEYS", "comma-separated keys not to pass through (e.g. edge_embed: 3 GB at 5.8M edges)", CLI_KEY, NULL, 0, 0},
    {"split-seed", 0, CLI_INT, &split_seed, "S", "seed of the random 80/10/10 split (the benchmark's is 12)", CLI_KEY, NULL, 0, 0},
    {"seed", 0, CLI_INT, &seed, "S", "seed of the initial weights and the batch order: one trial", CLI_KEY, NULL, 0, 0},
    {"lr", 0, CLI_DOUBLE, &lr, "LR", "Adam step size", CLI_KEY, NULL, 1e-9, 10},
    {"l2", 0, CLI_DOUBLE, &l2, "L", "L2 penalty L/2 ||W||^2 on the mean loss (bias excluded)", CLI_KEY, NULL, 0, 1e6},
    {"batch", 0, CLI_INT, &batch, "B", "rows per step (0: train edges / 256, between 32 and 4096)", CLI_KEY, NULL, 0, 1 << 24},
    {"epochs", 0, CLI_INT, &epochs, "N", "at most N passes over the train edges", CLI_KEY, NULL, 1, 1e6},
    {"patience", 0, CLI_INT, &patience, "P", "stop after P epochs without a better validation balanced accuracy", CLI_KEY, NULL, 1, 1e6},
    {"threads", 'j', CLI_INT, &threads, "N", "worker threads (0: one per CPU this process may use); the output does not depend on it", 0, NULL, 0, 1024},
    {"input", 'i', CLI_STRING, &input, "FILE", "read FILE instead of stdin", 0, NULL, 0, 0},
    {"output", 'o', CLI_STRING, &output, "FILE", "write FILE instead of stdout", 0, NULL, 0, 0},
    {"no-cache", 0, CLI_FLAG, &no_cache, NULL, "neither read nor write the cache", 0, NULL, 0, 0},
    {"verbose", 'v', CLI_FLAG, &verbose, NULL, "say cache hit or miss on stderr", 0, NULL, 0, 0},
    {"force", 'f', CLI_FLAG, &force, NULL, "write msgpack even to a terminal", 0, NULL, 0, 0},
    {"progress", 0, CLI_FLAG, &progress, NULL, "show progress even when stderr is not a terminal", 0, NULL, 0, 0},
    {"quiet", 'q', CLI_FLAG, &quiet, NULL, "no progress line", 0, NULL, 0, 0},
    {0},
};

static const struct cli_spec spec = {
    "lc-train", "[options] < vessel.mp > classified.mp",
    "Train a linear softmax classifier (3 classes: capillary, vein, artery) on\n"
    "per-edge inputs of every graph record: inputs standardised on the train\n"
    "edges, inverse-frequency class weights, mini-batch Adam, early stopping on\n"
    "the validation balanced accuracy, the benchmark's random 80/10/10 split.\n"
    "Adds split (0 train, 1 val, 2 test), pred_label, pred_proba and lc_model\n"
    "(formats/lc-train.md).  Results are cached by content.",
    "gen-graphs --family vessel --edges 20000 --seed 1 | lc-train --seed 0 | metrics --quantity balanced_accuracy,roc_hard",
    options,
};

/* --inputs: names that are non-empty, distinct, at most LC_MAX_INPUTS. */
static void check_inputs(void)
{
    char *copy = xstrdup(inputs);
    const char *seen[LC_MAX_INPUTS];
    int n = 0;
    for (char *p = copy, *end; ; p = end + 1) {
        end = strchr(p, ',');
        if (end)
            *end = 0;
        if (!*p)
            cli_usage_error(&spec, "--inputs: an empty name in '%s'", inputs);
        for (int i = 0; i < n; i++)
            if (!strcmp(seen[i], p))
                cli_usage_error(&spec, "--inputs: '%s' given twice", p);
        if (n == LC_MAX_INPUTS)
            cli_usage_error(&spec, "--inputs: more than %d names", LC_MAX_INPUTS);
        seen[n++] = p;
        if (!end)
            break;
    }
    free(copy);
}

int main(int argc, char **argv)
{
    int first = cli_parse(&spec, argc, argv);
    if (first < argc)
        cli_usage_error(&spec, "unexpected operand '%s'", argv[first]);
    check_inputs();
    cleanup_install_signals();
    struct lc_options o = {inputs, drop, split_seed, seed, lr, l2, batch, epochs, patience, (int)threads,
                           progress_mode_of(quiet, progress, true)};
    FILE *in = io_open_input(input);
    FILE *out = io_open_output(output, 1, force);
    struct cache c;
    char *args = cli_canonical_args(&spec);
    const char *name = io_input_name(input);
    cache_begin(&c, spec.tool, args, NULL, no_cache, verbose);
    FILE *data = cache_add_input(&c, in, name);
    FILE *dest = cache_lookup(&c, out);
    if (dest) {
        lc_train_run(data, name, dest, &o);
        cache_commit(&c);
    }
    cache_end(&c);
    free(args);
    io_close_output(out);
    return 0;
}
