/* dar-step - a trained model's predictions added to graph records. */
#include "cache.h"
#include "cli.h"
#include "dar.h"
#include "dar_step.h"
#include "die.h"
#include "io.h"
#include "registry.h"
#include <string.h>

static const char *model_path, *baseline = "none", *algorithm, *embed_step = "last", *input = "-",
                  *output = "-";
static bool hints, embed, no_cache, verbose, force;
static int64_t seed = 0, threads = 0;

static const struct cli_option options[] = {
    CLI_STRING("model", 'm', model_path, "FILE", "the model record written by dar-fit"),
    CLI_CHOICE_KEY("baseline", 0, baseline, "B", "random: the paper's random baseline instead of a model", "none|random"),
    CLI_INT_KEY("seed", 's', seed, "S", "seed of the random baseline", 0, 9e18),
    CLI_CHOICE_KEY("algorithm", 0, algorithm, "NAME", "the random baseline's algorithm (a model names its own)",
                   DAR_ALGORITHM_NAMES),
    CLI_FLAG_KEY("hints", 0, hints, "add the per-step predictions (each algorithm's --hints keys, below)"),
    CLI_FLAG_KEY("embed", 0, embed, "add node embeddings 'embed' (the last network's decoder input, 3H per node)"),
    CLI_CHOICE_KEY("embed-step", 0, embed_step, "S", "embeddings at the last flow step, or after one step from frame 0", "last|first"),
    CLI_THREADS(threads),
    CLI_INPUT(input),
    CLI_OUTPUT(output),
    CLI_NO_CACHE(no_cache),
    CLI_VERBOSE(verbose),
    CLI_FORCE(force),
    {0},
};

static const struct cli_spec spec = {
    "dar-step", "--model FILE [options] < graphs.mp > predicted.mp",
    "Run a trained DAR model on graph records and add the predictions of the\n"
    "algorithm it was trained on (each algorithm's below), with --hints the\n"
    "per-step predictions, with --embed the node embeddings.  The model follows\n"
    "the trace's phase flags and length as in the paper; untraced graphs get\n"
    "them from running the algorithm.\n"
    "Works for any n and m.  Results are cached by content.",
    "gen-graphs -n 64 -c 128 -s 4 | ff-trace | dar-step --model dual.mp | flow-fix | metrics",
    options,
    dar_algorithms_help,
};

int main(int argc, char **argv)
{
    algorithm = dar_algorithm_default()->name;
    cli_no_operand(&spec, argc, argv, cli_parse(&spec, argc, argv));
    bool random = strcmp(baseline, "random") == 0;
    if (!random && !model_path)
        cli_usage_error(&spec, "--model FILE is required (or --baseline random)");
    if (random && (model_path || hints || embed))
        cli_usage_error(&spec, "--baseline random takes no --model, --hints or --embed");
    cleanup_install_signals();
    struct dar_step_options o = {NULL, random, (uint64_t)seed, hints, embed,
                                strcmp(embed_step, "first") == 0 ? DAR_EMBED_FIRST : DAR_EMBED_LAST,
                                dar_algorithm_find(algorithm), threads};
    FILE *in = io_open_input(input);
    FILE *out = io_open_output(output, 1, force);
    FILE *model_file = model_path ? io_open_input(model_path) : NULL;
    const char *in_name = io_input_name(input);
    struct cached_run run = {0};
    cached_run_begin(&run, &spec, no_cache, verbose);
    if (model_file)
        model_file = cached_run_input(&run, model_file, model_path);
    FILE *data = cached_run_input(&run, in, in_name);
    FILE *dest = cached_run_lookup(&run, out);
    struct dar_model model;
    if (dest && model_file) {
        dar_model_load(&model, model_file, model_path, dar_algorithm_of_model);
        o.model = &model;
    }
    if (dest)
        dar_step_run(data, in_name, dest, &o);
    if (o.model)
        dar_model_free(&model);
    cached_run_end(&run);
    io_close_output(out);
    return 0;
}
