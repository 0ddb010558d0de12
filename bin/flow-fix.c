/* flow-fix - the corrective procedure: a predicted flow made feasible. */
#include "cli.h"
#include "flow_fix.h"
#include "io.h"
#include <string.h>

static bool force;
static const char *input = "-", *output = "-", *key = "pred_flow";

static const struct cli_option options[] = {
    CLI_STRING("key", 'k', key, "NAME", "the key holding the predicted flow"),
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
    "fixed_flow, fixed_value and the per-node conservation error before and after.",
    "dar-step --model dual.mp < test.mp | flow-fix | metrics",
    options,
};

int main(int argc, char **argv)
{
    cli_operand(&spec, argc, argv, cli_parse(&spec, argc, argv), &input);
    FILE *in = io_open_input(input);
    FILE *out = io_open_output(output, 1, force);
    flow_fix_run(in, io_input_name(input), out, key);
    io_close_output(out);
    return 0;
}
