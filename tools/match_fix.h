/* match_fix.h - the match-fix filter: matching records carrying predicted
 * edge (and node) scores in, records enriched with a valid matching (and
 * cover) out (formats/graph.md). */
#ifndef DAR_MATCH_FIX_H
#define DAR_MATCH_FIX_H
#include <stdio.h>

void match_fix_run(FILE *in, const char *in_name, FILE *out);

#endif
