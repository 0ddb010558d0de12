/* ff-trace - an algorithm's trace (by default the registry's default
 * entry's). */
#include "cache.h"
#include "cli.h"
#include "die.h"
#include "ff_trace.h"
#include "io.h"
#include "registry.h"

static bool no_hints, no_cache, verbose, force, quiet, progress;
static int64_t threads = 0;
static const char *input = "-", *output = "-", *algorithm;

static const struct cli_option common_options[] = {
    CLI_CHOICE_KEY("algorithm", 0, algorithm, "NAME", "the algorithm to trace", DAR_ALGORITHM_NAMES),
    CLI_FLAG_KEY("no-hints", 0, no_hints, "only the solution (each algorithm's --no-hints keys, below), by the fast exact solver; huge graphs"),
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

/* the common options, then every entry's trace flags */
static struct cli_option options[sizeof common_options / sizeof *common_options + DAR_MAX_TRACE_FLAGS * 8];
static struct ff_trace_flags trace_flags;

static const struct cli_spec spec = {
    "ff-trace", "[options] < graphs.mp > traced.mp",
    "Run an algorithm of the registry (below) on every graph record and add its\n"
    "trace: the hints and the solution (each algorithm's keys below).  Results\n"
    "are cached by content.  The options after --quiet are an algorithm's own\n"
    "(variants of its trace; formats/graph.md).",
    "gen-graphs --nodes 16 --count 1000 --seed 1 | ff-trace > train.mp",
    options,
    dar_algorithms_help,
};

int main(int argc, char **argv)
{
    algorithm = dar_algorithm_default()->name;
    int k = 0;
    for (; common_options[k].name; k++)
        options[k] = common_options[k];
    ff_trace_flag_options(&trace_flags, options + k);
    cli_no_operand(&spec, argc, argv, cli_parse(&spec, argc, argv));
    cleanup_install_signals();
    const struct dar_algorithm *alg = dar_algorithm_find(algorithm);
    struct ff_trace_options o = {!no_hints, progress_mode_of(quiet, progress, true), threads, alg,
                                 ff_trace_flags_of(&trace_flags, alg)};
    FILE *in = io_open_input(input);
    FILE *out = io_open_output(output, 1, force);
    struct cached_run run = {0};
    cached_run_begin(&run, &spec, no_cache, verbose);
    FILE *data = cached_run_input(&run, in, io_input_name(input));
    FILE *dest = cached_run_lookup(&run, out);
    if (dest)
        ff_trace_run(data, io_input_name(input), dest, &o);
    cached_run_end(&run);
    io_close_output(out);
    return 0;
}
