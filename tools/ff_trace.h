/* ff_trace.h - the ff-trace filter: graph records in, records enriched with
 * the Ford-Fulkerson trace (or only the solution) out.  formats/graph.md
 * lists the keys it adds. */
#ifndef DAR_FF_TRACE_H
#define DAR_FF_TRACE_H
#include <stdio.h>
#include <stdbool.h>
#include "progress.h"

struct ff_trace_options {
    bool hints;                 /* false: --no-hints, fast solver, solution only */
    enum progress_mode progress;
    int threads;                /* >= 1; the output does not depend on it */
};

void ff_trace_run(FILE *in, const char *in_name, FILE *out, const struct ff_trace_options *o);

#endif
