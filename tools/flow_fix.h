/* flow_fix.h - the flow-fix filter: records carrying a predicted flow
 * in, records enriched with a feasible flow out (formats/graph.md). */
#ifndef DAR_FLOW_FIX_H
#define DAR_FLOW_FIX_H
#include <stdio.h>

void flow_fix_run(FILE *in, const char *in_name, FILE *out, const char *key);

#endif
