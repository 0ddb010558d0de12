/* flow-fix - the corrective procedure: a predicted flow made feasible, or a
 * predicted vertex cover completed and its packing made feasible. */
#include "cli.h"
#include "flow_fix.h"
#include "io.h"
#include <string.h>

static bool force;
static const char *input = "-", *output = "-", *key, *dual_key = "pred_packing", *algorithm = "max-flow";
static const char *completion = "ratio";
static double threshold = 0.5;

static const struct cli_option options[] = {
    CLI_CHOICE("algorithm", 0, algorithm, "NAME", "whose prediction to repair", "max-flow|vertex-cover"),
    CLI_STRING("key", 'k', key, "NAME", "the prediction (default pred_flow; vertex-cover: pred_cover)"),
    CLI_STRING("dual-key", 0, dual_key, "NAME", "vertex-cover: the predicted packing (repaired when present)"),
    CLI_DOUBLE("threshold", 0, threshold, "X", "vertex-cover: a node starts in the cover when its score is above X",
               -1e30, 1e30),
    CLI_CHOICE("complete", 0, completion, "HOW", "vertex-cover: which node covers an uncovered edge", "ratio|score"),
    CLI_INPUT(input),
    CLI_OUTPUT(output),
    CLI_FORCE(force),
    {0},
};

static const struct cli_spec spec = {
    "flow-fix", "[options] < predicted.mp > fixed.mp",
    "Turn a predicted flow (capacity-bounded, antisymmetric, but not conserving)\n"
    "into a feasible flow with the paper's corrective procedure (appendix A.2):\n"
    "excess goes back towards s, surplus out-flow is lowered towards t.  Adds\n"
    "fixed_flow, fixed_value and the per-node conservation error before and after.\n"
    "\n"
    "--algorithm vertex-cover: the nodes scored above --threshold start the cover,\n"
    "and while an edge is uncovered a node joins: the one of least weight per\n"
    "uncovered edge (ratio, PDNAR's corrective stage) or the edge's endpoint of\n"
    "higher score (score).  A predicted packing is clamped to >= 0 and each edge\n"
    "scaled by min(s_u, s_v), s_v = min(1, w_v / load_v).  Adds fixed_cover,\n"
    "fixed_cover_weight, cover_added, and with a packing fixed_packing,\n"
    "packing_value (its sum) and packing_excess (sum of overloads before).",
    "dar-step --model dual.mp < test.mp | flow-fix | metrics\n"
    "  ff-trace --algorithm vertex-cover < g.mp | flow-fix --algorithm vertex-cover --key cover --dual-key packing",
    options,
};

int main(int argc, char **argv)
{
    cli_operand(&spec, argc, argv, cli_parse(&spec, argc, argv), &input);
    FILE *in = io_open_input(input);
    FILE *out = io_open_output(output, 1, force);
    bool cover = strcmp(algorithm, "vertex-cover") == 0;
    struct flow_fix_options o = {
        .algorithm = algorithm, .key = key ? key : cover ? "pred_cover" : "pred_flow", .dual_key = dual_key,
        .threshold = threshold,
        .completion = strcmp(completion, "score") == 0 ? VERTEX_COVER_COMPLETE_SCORE : VERTEX_COVER_COMPLETE_RATIO,
    };
    flow_fix_run(in, io_input_name(input), out, &o);
    io_close_output(out);
    return 0;
}
