/* cover_fix.h - the cover-fix filter: vertex-cover records carrying a
 * predicted cover (node scores) and optionally a predicted packing in,
 * records enriched with a valid cover and a feasible packing out
 * (formats/graph.md). */
#ifndef DAR_COVER_FIX_H
#define DAR_COVER_FIX_H
#include "vertex_cover_repair.h"
#include <stdio.h>

struct cover_fix_options {
    const char *key;            /* the cover's node scores */
    const char *dual_key;       /* the packing (absent from a record: no packing repair) */
    double threshold;           /* a node starts in the cover when its score is above */
    enum vertex_cover_completion completion;
};

void cover_fix_run(FILE *in, const char *in_name, FILE *out, const struct cover_fix_options *o);

#endif
