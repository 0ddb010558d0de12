/* repair.h - the repair tool: one body for every registry entry that has a
 * repair op (algorithm.h), installed under each entry's repair_tool name
 * (flow-fix, match-fix, cover-fix), which picks the entry.  Records
 * carrying predictions in, records enriched with a valid solution out
 * (formats/graph.md). */
#ifndef DAR_REPAIR_H
#define DAR_REPAIR_H
#include "algorithm.h"
#include "cli.h"
#include <stdio.h>

/* One entry's command line: its repair options, then -i, -o, -f, as a cli
 * table whose destinations are this struct's own fields (so it stays where
 * repair_cli_init put it). */
struct repair_cli {
    union dar_repair_value values[DAR_MAX_REPAIR_OPTIONS];   /* in repair_options' order */
    const char *input, *output;
    bool force;
    struct cli_option options[DAR_MAX_REPAIR_OPTIONS + 4];
    struct cli_spec spec;
};
void repair_cli_init(struct repair_cli *c, const struct dar_algorithm *alg);

/* The entry a command line is for: the one whose repair_tool argv[0] is
 * called by, else the one `--algorithm NAME` (or --algorithm=NAME) names as
 * the first argument, which is then taken out of argv; NULL for neither. */
const struct dar_algorithm *repair_entry(int *argc, char **argv);

/* The tool called by no entry's name and without a valid --algorithm
 * first: answers --help and --version, else a usage error (exit 64). */
__attribute__((noreturn)) void repair_unnamed(int argc, char **argv);

/* The records of in, each enriched by alg's repair op with the values of
 * its options (in repair_options' order). */
void repair_run(FILE *in, const char *in_name, FILE *out, const struct dar_algorithm *alg,
                const union dar_repair_value *values);

#endif
