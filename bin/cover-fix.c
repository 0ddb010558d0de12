/* cover-fix - a predicted vertex cover completed and its packing made
 * feasible: a valid cover, and a bound on its distance to the optimum. */
#include "cli.h"
#include "cover_fix.h"
#include "io.h"
#include <string.h>

static bool force;
static const char *input = "-", *output = "-", *key = "pred_cover", *dual_key = "pred_packing";
static const char *completion = "ratio";
static double threshold = 0.5;

static const struct cli_option options[] = {
    CLI_STRING("key", 'k', key, "NAME", "the predicted cover's node scores"),
    CLI_STRING("dual-key", 0, dual_key, "NAME", "the predicted packing (repaired when the record has it)"),
    CLI_DOUBLE("threshold", 0, threshold, "X", "a node starts in the cover when its score is above X", -1e30, 1e30),
    CLI_CHOICE("complete", 0, completion, "HOW", "which node covers an uncovered edge", "ratio|score"),
    CLI_INPUT(input),
    CLI_OUTPUT(output),
    CLI_FORCE(force),
    {0},
};

static const struct cli_spec spec = {
    "cover-fix", "[options] < predicted.mp > fixed.mp",
    "Turn a vertex-cover model's predictions into a valid cover and a feasible\n"
    "edge packing, with no solver.  The nodes scored above --threshold start the\n"
    "cover; while an edge is uncovered a node joins: the one of least weight per\n"
    "uncovered edge (ratio, PDNAR's corrective stage) or the edge's endpoint of\n"
    "higher score (score).  A predicted packing is clamped to >= 0 and each edge\n"
    "scaled by min(s_u, s_v), s_v = min(1, w_v / load_v).  Adds fixed_cover,\n"
    "fixed_cover_weight, cover_added, and with a packing fixed_packing,\n"
    "packing_value (its sum) and packing_excess (the overloads before).  By weak\n"
    "duality fixed_cover_weight / packing_value bounds the cover's distance to\n"
    "the optimum.",
    "dar-step --model dual.mp < test.mp | cover-fix | metrics\n"
    "  ff-trace --algorithm vertex-cover < g.mp | cover-fix --key cover --dual-key packing",
    options,
    NULL,
};

int main(int argc, char **argv)
{
    cli_operand(&spec, argc, argv, cli_parse(&spec, argc, argv), &input);
    FILE *in = io_open_input(input);
    FILE *out = io_open_output(output, 1, force);
    struct cover_fix_options o = {
        .key = key, .dual_key = dual_key, .threshold = threshold,
        .completion = strcmp(completion, "score") == 0 ? VERTEX_COVER_COMPLETE_SCORE : VERTEX_COVER_COMPLETE_RATIO,
    };
    cover_fix_run(in, io_input_name(input), out, &o);
    io_close_output(out);
    return 0;
}
