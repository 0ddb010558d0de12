/* ff_trace.h - the ff-trace filter: graph records in, records enriched with
 * an algorithm's trace (or only its solution) out.  formats/graph.md lists
 * the keys each entry's adds. */
#ifndef DAR_FF_TRACE_H
#define DAR_FF_TRACE_H
#include <stdio.h>
#include <stdbool.h>
#include "algorithm.h"
#include "progress.h"

struct ff_trace_options {
    bool hints;                 /* false: --no-hints, fast solver, solution only */
    enum progress_mode progress;
    int64_t threads;            /* 0: one per CPU, at most 8 (formats/graph.md); the output does not depend on it */
    const struct dar_algorithm *algorithm;     /* NULL: the registry's default */
};

void ff_trace_run(FILE *in, const char *in_name, FILE *out, const struct ff_trace_options *o);

#endif
