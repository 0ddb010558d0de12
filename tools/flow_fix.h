/* flow_fix.h - the flow-fix filter: records carrying a prediction in,
 * records enriched with its repair out (formats/graph.md): max-flow's
 * predicted flow made feasible, or vertex cover's predicted cover completed
 * and predicted packing scaled into a feasible one. */
#ifndef DAR_FLOW_FIX_H
#define DAR_FLOW_FIX_H
#include "vertex_cover_repair.h"
#include <stdio.h>

struct flow_fix_options {
    const char *algorithm;      /* "max-flow" (NULL too) or "vertex-cover" */
    const char *key;            /* the prediction: the flow, or the cover's node scores */
    const char *dual_key;       /* vertex cover: the packing (absent from a record: no packing repair) */
    double threshold;           /* vertex cover: a node starts in the cover when its score is above */
    enum vertex_cover_completion completion;
};

void flow_fix_run(FILE *in, const char *in_name, FILE *out, const struct flow_fix_options *o);

#endif
