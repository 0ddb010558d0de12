/* mpcat - a stream as JSON lines, and back (--to-msgpack). */
#include "cli.h"
#include "die.h"
#include "io.h"
#include "mpcat.h"
#include "stream.h"
#include <string.h>

static bool summary, to_msgpack, force;
static const char *input = "-", *output = "-";

static const struct cli_option options[] = {
    CLI_FLAG("summary", 0, summary, "print tensors as dtype, shape, min, max and mean only"),
    CLI_FLAG("to-msgpack", 0, to_msgpack, "read JSON lines, write a msgpack stream"),
    CLI_INPUT(input),
    CLI_OUTPUT(output),
    CLI_FORCE(force),
    {0},
};

static const struct cli_spec spec = {
    "mpcat", "[options] [FILE]",
    "Print a msgpack record stream as JSON lines, one record per line; tensors\n"
    "appear as {\"dtype\",\"shape\",\"data\"}.  With --to-msgpack, turn such JSON lines\n"
    "back into a stream (objects of exactly dtype/shape/data become tensors).",
    "gen-graphs --count 3 | mpcat --summary | jq -c '{id, n, m}'",
    options,
    NULL,
};

int main(int argc, char **argv)
{
    cli_operand(&spec, argc, argv, cli_parse(&spec, argc, argv), &input);
    FILE *in = io_open_input(input);
    FILE *out = io_open_output(output, to_msgpack, force);
    const char *name = io_input_name(input);
    if (to_msgpack) {
        struct writer w;
        writer_init(&w, out);
        mpcat_from_jsonl(in, name, &w);
    } else {
        struct reader rd;
        struct record rec;
        reader_init(&rd, in, name);
        while (reader_next(&rd, &rec))
            mpcat_write_json(out, &rec, summary);
        reader_free(&rd);
    }
    io_close_output(out);
    return 0;
}
