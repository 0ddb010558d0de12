/* flowfix_filter.h - the flow-fix filter: records carrying a predicted flow
 * in, records enriched with a feasible flow out (formats/graph.md). */
#ifndef DAR_FLOWFIX_FILTER_H
#define DAR_FLOWFIX_FILTER_H
#include <stdio.h>

void flowfix_stream(FILE *in, const char *in_name, FILE *out, const char *key);

#endif
