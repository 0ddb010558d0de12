/* dar-fit - train a DAR model on traced graphs. */
#include "cache.h"
#include "cli.h"
#include "dar.h"
#include "die.h"
#include "io.h"
#include "registry.h"
#include "dar_fit.h"
#include "dar_fit_checkpoint.h"
#include <string.h>

static const char *variant = "dual", *processor = "pgn", *agg = "max", *optim = "sgd", *pointer_head = "dot", *keep = "best",
                  *lr_schedule = "constant";
static int64_t hidden = 0, batch = 32, iters = 20000, eval_every = 100, seed = 0, threads = 0, checkpoint_every = 500,
               lr_horizon = 0;
static double lr = -1, weight_decay = -1, tf_decay = 0.999, clip_norm = 0;
static bool tf_per_step, leak_cut, layer_norm, gated, soft_hints, triplets, no_cache, verbose, force, quiet, progress;
static const char *val_path, *log_path, *resume_path, *input = "-", *output = "-";

static const struct cli_option options[] = {
    CLI_CHOICE_KEY("variant", 0, variant, "V", "what the model learns", "primal|dual|pipeline|no-algo"),
    CLI_CHOICE_KEY("processor", 0, processor, "P", "messages along edges (pgn) or between all pairs (mpnn)", "pgn|mpnn"),
    CLI_CHOICE_KEY("agg", 0, agg, "A", "message aggregator", "max|mean|sum"),
    CLI_INT_KEY("hidden", 'H', hidden, "H", "hidden size (0: the records' algorithm's per variant; the reference's 68 "
     "for primal and no-algo, 65 for dual and pipeline)", 0, 4096),
    CLI_DOUBLE_KEY("lr", 0, lr, "LR", "learning rate (-1: the records' algorithm's, per variant)", -1, 10),
    CLI_DOUBLE_KEY("weight-decay", 0, weight_decay, "WD", "L2 weight decay (-1: the records' algorithm's, per variant)", -1, 10),
    CLI_CHOICE_KEY("optim", 0, optim, "O", "optimiser", "sgd|adam"),
    CLI_INT_KEY("batch", 'b', batch, "B", "graphs per iteration, drawn with replacement", 1, 1 << 20),
    CLI_INT_KEY("iters", 'n', iters, "N", "training iterations", 0, 1e12),
    CLI_INT_KEY("eval-every", 0, eval_every, "N", "validate every N iterations, keep the best", 1, 1e12),
    CLI_INT_KEY("seed", 's', seed, "S", "seed of initialisation, batches and teacher forcing", 0, 9e18),
    CLI_DOUBLE_KEY("tf-decay", 0, tf_decay, "D", "teacher forcing probability decays as D^iteration", 0, 1),
    CLI_FLAG_KEY("tf-decay-per-step", 0, tf_per_step, "decay per unrolled step, as the authors' code"),
    CLI_FLAG_KEY("leak-cut", 0, leak_cut, "dual: feed the true dual solution, as the authors' code (the entries that allow it)"),
    CLI_CHOICE_KEY_IF_SET("pointer-head", 0, pointer_head, "D", "pointer decoder: p1(u)·p2(v) over every node (dot), "
     "or CLRS's, which sees the arc u->v, over u's neighbours and u (edge)", "dot|edge"),
    CLI_FLAG_KEY_IF_SET("layer-norm", 0, layer_norm, "layer-normalise the processor's node update (CLRS's use_ln)"),
    CLI_FLAG_KEY_IF_SET("gate", 0, gated, "gate the node update against the carried state (CLRS's gated processors)"),
    CLI_FLAG_KEY_IF_SET("soft-hints", 0, soft_hints, "feed predicted hints back as probabilities, pointers with "
     "their gradient (CLRS's soft re-prediction)"),
    CLI_FLAG_KEY_IF_SET("triplets", 0, triplets, "add Triplet-GMPNN's triplet messages to each arc's: 8 features of "
     "the arc's ends and every node of its graph, maxed over that node (O(n^3) per graph and step)"),
    CLI_DOUBLE_KEY_IF_SET("clip-norm", 0, clip_norm, "C", "clip the gradients' global L2 norm to C (0: no clipping)", 0, 1e9),
    CLI_CHOICE_KEY_IF_SET("lr-schedule", 0, lr_schedule, "S", "the learning rate over the iterations: constant, or "
     "cosine decay from --lr to 0 at --lr-horizon (optax's cosine_decay_schedule)", "constant|cosine"),
    CLI_INT_KEY_IF_SET("lr-horizon", 0, lr_horizon, "N", "the iteration the cosine reaches 0 (0: --iters; a run kept at "
     "several budgets by --resume names its last budget here)", 0, 1e12),
    CLI_STRING("val", 0, val_path, "FILE", "validation graphs (traced); without it the last parameters are kept"),
    CLI_CHOICE_KEY_IF_SET("keep", 0, keep, "K", "the parameters written: the best validated (best, CLRS's run.py) or "
     "the last iteration's (last: a validation set that saturates early makes best an early model)", "best|last"),
    CLI_STRING("resume", 0, resume_path, "FILE", "continue training a model record written by dar-fit"),
    CLI_INT("checkpoint-every", 0, checkpoint_every, "N", "keep the training's state beside its cache entry every N iterations; "
     "the same command run again resumes from it (0: never)", 0, 1e12),
    CLI_STRING("log", 0, log_path, "FILE", "write the training curve as TSV (iteration, losses, validation score, seconds)"),
    CLI_THREADS(threads),
    CLI_STRING("input", 'i', input, "FILE", "read training graphs from FILE instead of stdin"),
    CLI_STRING("output", 'o', output, "FILE", "write the model to FILE instead of stdout"),
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
    "by ff-trace, of the algorithm whose trace they carry (below): SGD (or Adam) on\n"
    "batches drawn with replacement, teacher forcing decaying per iteration,\n"
    "validation every --eval-every iterations keeping the checkpoint with the\n"
    "best validation score (each algorithm's below).  Defaults are the records'\n"
    "algorithm's, the authors' hyperparameters unless it tunes its own (primal\n"
    "H=68 lr 0.00934 wd 0.00342; dual and pipeline H=65 lr 0.00987 wd 0.00173).\n"
    "The model is cached by content: the same data, options and seed return the\n"
    "stored model at once.",
    "gen-graphs -n 16 -c 1000 -s 1 | ff-trace | dar-fit --variant dual --val val.mp --log curve.tsv > dual.mp",
    options,
    dar_algorithms_help,
};

/* The training's options from the parsed flags: the names read, --leak-cut
 * refused off the dual (before any input is read). */
static struct dar_fit_options training_options(void)
{
    struct dar_fit_options o = {.batch = batch, .iters = iters, .eval_every = eval_every, .adam = !strcmp(optim, "adam"),
                              .seed = (uint64_t)seed, .tf_decay = tf_decay, .tf_per_step = tf_per_step,
                              .log_path = log_path, .progress = progress_mode_of(quiet, progress, true), .threads = threads};
    dar_variant_parse(variant, &o.config.variant);
    dar_processor_parse(processor, &o.config.processor);
    dar_agg_parse(agg, &o.config.agg);
    if (leak_cut && o.config.variant != DAR_DUAL)
        cli_usage_error(&spec, "--leak-cut applies to --variant dual only");
    o.config.leak_dual = leak_cut;
    o.config.edge_pointer = !strcmp(pointer_head, "edge");
    o.config.layer_norm = layer_norm;
    o.config.gated = gated;
    o.config.soft_hints = soft_hints;
    o.config.triplets = triplets;
    o.clip_norm = clip_norm;
    o.keep_last = !strcmp(keep, "last");
    o.lr_schedule = !strcmp(lr_schedule, "cosine") ? LR_COSINE : LR_CONSTANT;
    o.lr_horizon = lr_horizon;
    if (lr_horizon && o.lr_schedule == LR_CONSTANT)
        cli_usage_error(&spec, "--lr-horizon applies to --lr-schedule cosine only");
    return o;
}

/* The hyperparameters the flags left at 0 or -1 from the entry the
 * training records are for: into the flags too, as the cache key holds
 * the values trained with.  The options the entry does not offer are
 * refused first, before a cached model could answer them. */
static void entry_hyperparameters(struct dar_fit_options *o, const struct input_bytes *train)
{
    const struct dar_algorithm *alg = dar_fit_records_entry(train);
    dar_config_check(&o->config, alg);
    dar_algorithm_hyperparameters(alg, o->config.variant, &hidden, &lr, &weight_decay);
    o->config.hidden = (int)hidden;
    o->lr = lr;
    o->weight_decay = weight_decay;
}

int main(int argc, char **argv)
{
    cli_no_operand(&spec, argc, argv, cli_parse(&spec, argc, argv));
    cleanup_install_signals();
    struct dar_fit_options o = training_options();

    FILE *in = io_open_input(input);
    FILE *val = val_path ? io_open_input(val_path) : NULL;
    FILE *resume = resume_path ? io_open_input(resume_path) : NULL;
    FILE *out = io_open_output(output, 1, force);
    struct input_bytes data, val_data, resume_data;
    input_bytes_read(&data, in, io_input_name(input));
    entry_hyperparameters(&o, &data);   /* before the key is made */
    /* the log is not part of the key: the model record carries the curve */
    struct cached_run run = {.log_path = log_path, .write_log = train_write_log_from_model};
    cached_run_begin(&run, &spec, no_cache, verbose);
    o.canonical_args = run.args;
    cached_run_read_bytes(&run, &data);
    if (val)
        cached_run_input_bytes(&run, val, val_path, &val_data);
    struct input_bytes *resuming = NULL;
    if (resume)
        cached_run_input_bytes(&run, resume, resume_path, resuming = &resume_data);
    FILE *dest = cached_run_lookup(&run, out);
    struct checkpoint checkpoint;
    if (dest && checkpoint_open(&checkpoint, &run.cache, checkpoint_every)) {
        o.checkpoint = &checkpoint;
        struct input_bytes kept;
        if (checkpoint_take_resume(&checkpoint, &kept)) {
            if (resuming)
                input_bytes_free(resuming);
            resume_data = kept;
            resuming = &resume_data;
            if (verbose)
                fprintf(stderr, "dar-fit: resuming from the checkpoint '%s'\n", checkpoint.path);
        }
    }
    if (dest)
        dar_fit_run(&data, val ? &val_data : NULL, resuming, dest, &o);
    /* what a hit left unread (dar_fit_run frees each input once read) */
    input_bytes_free(&data);
    if (val)
        input_bytes_free(&val_data);
    if (resuming)
        input_bytes_free(resuming);
    cached_run_end(&run);
    if (o.checkpoint) {
        checkpoint_done(&checkpoint);
        checkpoint_close(&checkpoint);
    }
    io_close_output(out);
    return 0;
}
