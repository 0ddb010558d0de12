/* ff-trace - Ford-Fulkerson with Bellman-Ford augmenting paths, traced. */
#include "cache.h"
#include "cli.h"
#include "cpus.h"
#include "die.h"
#include "ff_trace.h"
#include "io.h"
#include <stdlib.h>
#include <string.h>

static bool no_hints, no_cache, verbose, force, quiet, progress;
static int64_t threads = 0;
static const char *input = "-", *output = "-";

static const struct cli_option options[] = {
    {"no-hints", 0, CLI_FLAG, &no_hints, NULL, "only flow, maxflow and cut, by the fast exact solver (huge graphs)", CLI_KEY, NULL, 0, 0},
    {"threads", 'j', CLI_INT, &threads, "N", "threads (0: one per CPU this process may use, at most 8); the output does not depend on it", 0, NULL, 0, 256},
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
    "ff-trace", "[options] < graphs.mp > traced.mp",
    "Run Ford-Fulkerson with Bellman-Ford augmenting paths (synchronous rounds,\n"
    "ties to the lowest index, the true residual test, exact integer arithmetic)\n"
    "on every graph record and add the trace: steps, hint_phase, hint_mask,\n"
    "hint_pi, hint_flow, and the solution: flow, maxflow and the source-maximal\n"
    "min cut (0 = source side).  Results are cached by content.",
    "gen-graphs --nodes 16 --count 1000 --seed 1 | ff-trace > train.mp",
    options,
};

int main(int argc, char **argv)
{
    int first = cli_parse(&spec, argc, argv);
    if (first < argc)
        cli_usage_error(&spec, "unexpected operand '%s'", argv[first]);
    cleanup_install_signals();
    struct ff_trace_options o = {!no_hints, progress_mode_of(quiet, progress, true), (int)threads};
    if (!threads) {
        int cpus = cpus_usable();
        o.threads = cpus > 8 ? 8 : cpus;
    }
    FILE *in = io_open_input(input);
    FILE *out = io_open_output(output, 1, force);
    struct cache c;
    char *args = cli_canonical_args(&spec);
    cache_begin(&c, spec.tool, args, NULL, no_cache, verbose);
    FILE *data = cache_add_input(&c, in, io_input_name(input));
    FILE *dest = cache_lookup(&c, out);
    if (dest) {
        ff_trace_run(data, io_input_name(input), dest, &o);
        cache_commit(&c);
    }
    cache_end(&c);
    free(args);
    io_close_output(out);
    return 0;
}
