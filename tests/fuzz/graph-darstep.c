/* graph-darstep: graph records as dar-step reads them (dar_step_run with
 * a small model, the hints and the embeddings; and the random baseline). */
#include "harness.h"
#include "dar_step.h"

static struct dar_model model;

struct input {
    const uint8_t *data;
    size_t size;
    bool random_baseline;
};

static void run(void *ctx)
{
    struct input *p = ctx;
    FILE *in = harness_input(p->data, p->size);
    struct dar_step_options o = {p->random_baseline ? NULL : &model, p->random_baseline, 1,
                                 !p->random_baseline, !p->random_baseline, DAR_EMBED_LAST, NULL, 1};
    dar_step_run(in, "<fuzz>", harness_sink(), &o);
    fclose(in);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    harness_quiet();
    struct dar_config config = {DAR_DUAL, DAR_PGN, DAR_AGG_MAX, 4, false, false};
    dar_model_init(&model, &config, 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = {data, size, false};
    harness_expect(harness_run(run, &in), 0);
    in.random_baseline = true;
    harness_expect(harness_run(run, &in), 0);
    return 0;
}
