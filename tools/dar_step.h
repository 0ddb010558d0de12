/* darstep.h - the dar-step filter: graph records in, records enriched with a
 * trained model's predictions out (formats/graph.md). */
#ifndef DAR_DARSTEP_H
#define DAR_DARSTEP_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "dar.h"

struct darstep_options {
    struct dar_model *model;   /* NULL with the random baseline */
    bool random_baseline;
    uint64_t seed;             /* random baseline */
    bool hints;                /* pred_pi, pred_mask, pred_hint_flow */
    bool embed;
    enum dar_embed embed_step;
};

void darstep_stream(FILE *in, const char *in_name, FILE *out, const struct darstep_options *o);

#endif
