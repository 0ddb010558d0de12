/* dar-fit - train a DAR model on traced graphs. */
#include "cache.h"
#include "cli.h"
#include "cpus.h"
#include "dar.h"
#include "die.h"
#include "io.h"
#include "dar_fit.h"
#include "workers.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *variant = "dual", *processor = "pgn", *agg = "max", *optim = "sgd";
static int64_t hidden = 0, batch = 32, iters = 20000, eval_every = 100, seed = 0, threads = 0;
static double lr = -1, weight_decay = -1, tf_decay = 0.999;
static bool tf_per_step, leak_cut, no_cache, verbose, force, quiet, progress;
static const char *val_path, *log_path, *resume_path, *input = "-", *output = "-";

static const struct cli_option options[] = {
    {"variant", 0, CLI_CHOICE, &variant, "V", "what the model learns", CLI_KEY, "primal|dual|pipeline|no-algo", 0, 0},
    {"processor", 0, CLI_CHOICE, &processor, "P", "messages along edges (pgn) or between all pairs (mpnn)", CLI_KEY, "pgn|mpnn", 0, 0},
    {"agg", 0, CLI_CHOICE, &agg, "A", "message aggregator", CLI_KEY, "max|mean|sum", 0, 0},
    {"hidden", 'H', CLI_INT, &hidden, "H", "hidden size (0: 68 for primal and no-algo, 65 for dual and pipeline)", CLI_KEY, NULL, 0, 4096},
    {"lr", 0, CLI_DOUBLE, &lr, "LR", "learning rate (-1: the reference's, per variant)", CLI_KEY, NULL, -1, 10},
    {"weight-decay", 0, CLI_DOUBLE, &weight_decay, "WD", "L2 weight decay (-1: the reference's, per variant)", CLI_KEY, NULL, -1, 10},
    {"optim", 0, CLI_CHOICE, &optim, "O", "optimiser", CLI_KEY, "sgd|adam", 0, 0},
    {"batch", 'b', CLI_INT, &batch, "B", "graphs per iteration, drawn with replacement", CLI_KEY, NULL, 1, 1 << 20},
    {"iters", 'n', CLI_INT, &iters, "N", "training iterations", CLI_KEY, NULL, 0, 1e12},
    {"eval-every", 0, CLI_INT, &eval_every, "N", "validate every N iterations, keep the best", CLI_KEY, NULL, 1, 1e12},
    {"seed", 's', CLI_INT, &seed, "S", "seed of initialisation, batches and teacher forcing", CLI_KEY, NULL, 0, 9e18},
    {"tf-decay", 0, CLI_DOUBLE, &tf_decay, "D", "teacher forcing probability decays as D^iteration", CLI_KEY, NULL, 0, 1},
    {"tf-decay-per-step", 0, CLI_FLAG, &tf_per_step, NULL, "decay per unrolled step, as the authors' code", CLI_KEY, NULL, 0, 0},
    {"leak-cut", 0, CLI_FLAG, &leak_cut, NULL, "dual: feed the true min cut, as the authors' code", CLI_KEY, NULL, 0, 0},
    {"val", 0, CLI_STRING, &val_path, "FILE", "validation graphs (traced); without it the last parameters are kept", 0, NULL, 0, 0},
    {"resume", 0, CLI_STRING, &resume_path, "FILE", "continue training a model record written by dar-fit", 0, NULL, 0, 0},
    {"log", 0, CLI_STRING, &log_path, "FILE", "write the training curve as TSV (iteration, losses, validation score, seconds)", 0, NULL, 0, 0},
    {"threads", 'j', CLI_INT, &threads, "N", "threads (0: one per CPU this process may use); the output does not depend on it", 0, NULL, 0, 1024},
    {"input", 'i', CLI_STRING, &input, "FILE", "read training graphs from FILE instead of stdin", 0, NULL, 0, 0},
    {"output", 'o', CLI_STRING, &output, "FILE", "write the model to FILE instead of stdout", 0, NULL, 0, 0},
    CLI_NO_CACHE(no_cache),
    CLI_VERBOSE(verbose),
    CLI_FORCE(force),
    CLI_PROGRESS(progress),
    CLI_QUIET(quiet),
    {0},
};

static const struct cli_spec spec = {
    "dar-fit", "[options] --val val.mp < train.mp > model.mp",
    "Train a Dual Algorithmic Reasoning model (formats/model.md) on graphs traced\n"
    "by ff-trace: SGD (or Adam) on batches drawn with replacement, teacher forcing\n"
    "decaying per iteration, validation every --eval-every iterations keeping the\n"
    "checkpoint with the lowest masked MSE of the final flow.  Defaults follow the\n"
    "authors' hyperparameters (primal H=68 lr 0.00934 wd 0.00342; dual and pipeline\n"
    "H=65 lr 0.00987 wd 0.00173).  The model is cached by content: the same data,\n"
    "options and seed return the stored model at once.",
    "gen-graphs -n 16 -c 1000 -s 1 | ff-trace | dar-fit --variant dual --val val.mp --log curve.tsv > dual.mp",
    options,
};

/* The reference's hyperparameters per variant (dar-reference.md §4). */
static void resolve_defaults(struct dar_fit_options *o)
{
    bool primal_like = o->config.variant == DAR_PRIMAL || o->config.variant == DAR_NO_ALGO;
    if (hidden == 0)
        hidden = primal_like ? 68 : 65;
    if (lr < 0)
        lr = primal_like ? 0.009341493994646139 : 0.009868199084919982;
    if (weight_decay < 0)
        weight_decay = primal_like ? 0.003420373065077989 : 0.0017345516681916279;
}

int main(int argc, char **argv)
{
    int first = cli_parse(&spec, argc, argv);
    if (first < argc)
        cli_usage_error(&spec, "unexpected operand '%s'", argv[first]);
    if (quiet && progress)
        cli_usage_error(&spec, "--quiet and --progress contradict each other");
    cleanup_install_signals();
    workers_start(threads ? (int)threads : cpus_usable());
    struct dar_fit_options o = {0};
    dar_variant_parse(variant, &o.config.variant);
    dar_processor_parse(processor, &o.config.processor);
    dar_agg_parse(agg, &o.config.agg);
    if (leak_cut && o.config.variant != DAR_DUAL)
        cli_usage_error(&spec, "--leak-cut applies to --variant dual only");
    resolve_defaults(&o);
    o.config.hidden = (int)hidden;
    o.config.leak_cut = leak_cut;
    o.lr = lr;
    o.weight_decay = weight_decay;
    o.batch = batch;
    o.iters = iters;
    o.eval_every = eval_every;
    o.adam = strcmp(optim, "adam") == 0;
    o.seed = (uint64_t)seed;
    o.tf_decay = tf_decay;
    o.tf_per_step = tf_per_step;
    o.log_path = log_path;
    o.progress = progress_mode_of(quiet, progress, true);
    char *args = cli_canonical_args(&spec);
    o.canonical_args = args;

    FILE *in = io_open_input(input);
    FILE *val = val_path ? io_open_input(val_path) : NULL;
    FILE *resume = resume_path ? io_open_input(resume_path) : NULL;
    FILE *out = io_open_output(output, 1, force);
    const char *in_name = io_input_name(input);

    /* The log is not part of the cache key: the model record carries the
     * curve, so a hit writes the same log (without the timings). */
    struct cache c;
    cache_begin(&c, spec.tool, args, NULL, no_cache, verbose);
    FILE *data = cache_add_input(&c, in, in_name);
    if (val)
        val = cache_add_input(&c, val, val_path);
    if (resume)
        resume = cache_add_input(&c, resume, resume_path);
    FILE *hit = cache_replay_begin(out, log_path != NULL);
    FILE *dest = cache_lookup(&c, hit);
    if (dest) {
        dar_fit_run(&o, data, in_name, val, val_path, resume, resume_path, dest);
        cache_commit(&c);
    } else if (log_path) {
        rewind(hit);
        train_write_log_from_model(hit, "<cache>", log_path);
    }
    cache_end(&c);
    cache_replay_end(hit, out);
    free(args);
    io_close_output(out);
    workers_stop();
    return 0;
}
