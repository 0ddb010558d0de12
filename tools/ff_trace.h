/* ff_trace.h - the ff-trace filter: graph records in, records enriched with
 * an algorithm's trace (or only its solution) out.  formats/graph.md lists
 * the keys each entry's adds. */
#ifndef DAR_FF_TRACE_H
#define DAR_FF_TRACE_H
#include <stdio.h>
#include <stdbool.h>
#include "algorithm.h"
#include "cli.h"
#include "progress.h"

struct ff_trace_options {
    bool hints;                 /* false: --no-hints, fast solver, solution only */
    enum progress_mode progress;
    int64_t threads;            /* 0: one per CPU, at most 8 (formats/graph.md); the output does not depend on it */
    const struct dar_algorithm *algorithm;     /* NULL: the registry's default */
    uint32_t trace_flags;       /* the entry's trace flags given (bit i: its trace_flags[i]) */
};

/* Every entry's trace flags as ff-trace's options, each name once, given[i]
 * set by the command line when flag i is. */
struct ff_trace_flags {
    int count;
    const char *name[DAR_MAX_TRACE_FLAGS * 8];
    bool given[DAR_MAX_TRACE_FLAGS * 8];
};
/* Appends the options to options (room for count + 1), a terminating {0}
 * after them; returns how many. */
int ff_trace_flag_options(struct ff_trace_flags *f, struct cli_option *options);
/* The flags given, as alg's bits; dies (exit 64) on one alg has not. */
uint32_t ff_trace_flags_of(const struct ff_trace_flags *f, const struct dar_algorithm *alg);

void ff_trace_run(FILE *in, const char *in_name, FILE *out, const struct ff_trace_options *o);

#endif
