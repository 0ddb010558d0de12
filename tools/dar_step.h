/* dar_step.h - the dar-step filter: graph records in, records enriched with a
 * trained model's predictions out (formats/graph.md). */
#ifndef DAR_DAR_STEP_H
#define DAR_DAR_STEP_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "dar.h"

struct dar_step_options {
    struct dar_model *model;   /* NULL with the random baseline */
    bool random_baseline;
    uint64_t seed;             /* random baseline */
    bool hints;                /* pred_pi, pred_mask, pred_hint_flow */
    bool embed;
    enum dar_embed embed_step;
    const struct dar_algorithm *algorithm;     /* the random baseline's; NULL: the registry's default */
    int64_t threads;           /* the pool dar_step_run starts (0: one per CPU) */
};

void dar_step_run(FILE *in, const char *in_name, FILE *out, const struct dar_step_options *o);

#endif
