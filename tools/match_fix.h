/* match_fix.h - the match-fix filter: matching records carrying predicted
 * edge (and node) scores in, records enriched with a valid matching (and
 * cover) out (formats/graph.md). */
#ifndef DAR_MATCH_FIX_H
#define DAR_MATCH_FIX_H
#include <stdio.h>

struct match_fix_options {
    double threshold;           /* the least edge score a matched edge may have */
};

void match_fix_run(FILE *in, const char *in_name, FILE *out, const struct match_fix_options *o);

#endif
