/* graph-darstep: graph records as dar-step reads them (dar_step_run with
 * a small model of each entry of the registry, the hints and the
 * embeddings where the entry has them; and each entry's random baseline). */
#include "harness.h"
#include <stdlib.h>
#include "dar_step.h"
#include "registry.h"

static struct dar_model *models;           /* [dar_algorithm_count] */

struct input {
    const uint8_t *data;
    size_t size;
    struct dar_model *model;                  /* NULL: the random baseline */
    const struct dar_algorithm *baseline;     /* its algorithm */
};

static void run(void *ctx)
{
    struct input *p = ctx;
    FILE *in = harness_input(p->data, p->size);
    /* the default entry's models give embeddings (edge-embed's); the others' have none */
    bool embed = p->model == &models[0];
    struct dar_step_options o = {p->model, !p->model, 1, p->model != NULL, embed, DAR_EMBED_LAST,
                                 .algorithm = p->baseline, .threads = 1};
    dar_step_run(in, "<fuzz>", harness_sink(), &o);
    fclose(in);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    harness_quiet();
    models = calloc((size_t)dar_algorithm_count, sizeof *models);
    for (int a = 0; a < dar_algorithm_count; a++) {
        struct dar_config config = {.variant = DAR_DUAL, .processor = DAR_PGN, .agg = DAR_AGG_MAX, .hidden = 4,
                                    .algorithm = dar_algorithms[a]};
        dar_model_init(&models[a], &config, 1);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int a = 0; a < dar_algorithm_count; a++) {
        struct input in = {data, size, &models[a], NULL};
        harness_expect(harness_run(run, &in), 0);
        in = (struct input){data, size, NULL, dar_algorithms[a]};
        harness_expect(harness_run(run, &in), 0);
    }
    return 0;
}
