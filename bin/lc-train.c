/* lc-train - the linear classifier of the brain-vessel study (LC rows of Table 3). */
#include "cache.h"
#include "cli.h"
#include "die.h"
#include "io.h"
#include "lc_train.h"

static const char *inputs = "length,distance,curveness", *drop = "";
static int64_t split_seed = 12, seed = 0, batch = 0, epochs = 50, patience = 5, threads = 0;
static double lr = 0.01, l2 = 0;
static bool no_cache, verbose, force, quiet, progress;
static const char *input = "-", *output = "-";

static const struct cli_option options[] = {
    CLI_LIST_KEY("inputs", 0, inputs, "KEYS", "comma-separated per-edge inputs: f32[m] keys or f32[m,d] keys such as edge_embed", 1, LC_MAX_INPUTS),
    CLI_LIST_KEY("drop", 0, drop, "KEYS", "comma-separated keys not to pass through (e.g. edge_embed: 3 GB at 5.8M edges)", 0, 0),
    CLI_INT_KEY("split-seed", 0, split_seed, "S", "seed of the random 80/10/10 split (the benchmark's is 12)", 0, 0),
    CLI_INT_KEY("seed", 0, seed, "S", "seed of the initial weights and the batch order: one trial", 0, 0),
    CLI_DOUBLE_KEY("lr", 0, lr, "LR", "Adam step size", 1e-9, 10),
    CLI_DOUBLE_KEY("l2", 0, l2, "L", "L2 penalty L/2 ||W||^2 on the mean loss (bias excluded)", 0, 1e6),
    CLI_INT_KEY("batch", 0, batch, "B", "rows per step (0: train edges / 256, between 32 and 4096)", 0, 1 << 24),
    CLI_INT_KEY("epochs", 0, epochs, "N", "at most N passes over the train edges", 1, 1e6),
    CLI_INT_KEY("patience", 0, patience, "P", "stop after P epochs without a better validation balanced accuracy", 1, 1e6),
    CLI_THREADS(threads),
    CLI_INPUT(input),
    CLI_OUTPUT(output),
    CLI_NO_CACHE(no_cache),
    CLI_VERBOSE(verbose),
    CLI_FORCE(force),
    CLI_PROGRESS(progress),
    CLI_QUIET(quiet),
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
    NULL,
};

int main(int argc, char **argv)
{
    cli_no_operand(&spec, argc, argv, cli_parse(&spec, argc, argv));
    cleanup_install_signals();
    struct lc_options o = {inputs, drop, split_seed, seed, lr, l2, batch, epochs, patience, (int)threads,
                           progress_mode_of(quiet, progress, true)};
    FILE *in = io_open_input(input);
    FILE *out = io_open_output(output, 1, force);
    const char *name = io_input_name(input);
    struct cached_run run = {0};
    cached_run_begin(&run, &spec, no_cache, verbose);
    FILE *data = cached_run_input(&run, in, name);
    FILE *dest = cached_run_lookup(&run, out);
    if (dest)
        lc_train_run(data, name, dest, &o);
    cached_run_end(&run);
    io_close_output(out);
    return 0;
}
