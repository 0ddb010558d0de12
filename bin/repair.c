/* repair - a model's predictions made a valid solution, by the repair op of
 * the algorithm's registry entry; installed as flow-fix, match-fix and
 * cover-fix (the Makefile's REPAIR_NAMES), each name its entry. */
#include "cli.h"
#include "io.h"
#include "repair.h"

int main(int argc, char **argv)
{
    const struct dar_algorithm *alg = repair_entry(&argc, argv);
    if (!alg)
        repair_unnamed(argc, argv);
    static struct repair_cli c;
    repair_cli_init(&c, alg);
    cli_operand(&c.spec, argc, argv, cli_parse(&c.spec, argc, argv), &c.input);
    FILE *in = io_open_input(c.input);
    FILE *out = io_open_output(c.output, 1, c.force);
    repair_run(in, io_input_name(c.input), out, alg, c.values);
    io_close_output(out);
    return 0;
}
