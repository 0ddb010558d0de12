/* match-fix - the repair of a predicted matching and cover: valid ones. */
#include "cli.h"
#include "io.h"
#include "match_fix.h"
#include <string.h>

static bool force;
static const char *input = "-", *output = "-";
static double threshold = 0.0;

static const struct cli_option options[] = {
    CLI_DOUBLE("threshold", 0, threshold, "X", "the least score of a matched edge (0: any edge, by score; 0.5: only "
               "those predicted matched)", 0.0, 1.0),
    CLI_INPUT(input),
    CLI_OUTPUT(output),
    CLI_FORCE(force),
    {0},
};

static const struct cli_spec spec = {
    "match-fix", "[options] < predicted.mp > fixed.mp",
    "Turn a matching model's scores into a valid matching and a valid vertex\n"
    "cover, with no solver: the edges taken greedily by score, each node once\n"
    "(only those scored >= --threshold), and the nodes scored >= 1/2 completed by the more likely\n"
    "endpoint of every edge left uncovered.  Adds fixed_match, fixed_match_size\n"
    "and, when the record has pred_cover, cover_valid_before, fixed_cover and\n"
    "fixed_cover_size.  A matching and a cover of the same size are both\n"
    "optimal (Konig), a certificate that needs no ground truth.",
    "dar-step --model dual.mp < test.mp | match-fix | metrics",
    options,
    NULL,
};

int main(int argc, char **argv)
{
    cli_operand(&spec, argc, argv, cli_parse(&spec, argc, argv), &input);
    FILE *in = io_open_input(input);
    FILE *out = io_open_output(output, 1, force);
    match_fix_run(in, io_input_name(input), out, &(struct match_fix_options){threshold});
    io_close_output(out);
    return 0;
}
