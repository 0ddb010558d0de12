/* model-load: a model file as dar-step and edge-embed read it
 * (dar_model_load: one record, then nothing), then used by dar-step on a
 * small traced graph (tests/fuzz/fixtures/traced.mp). */
#include "harness.h"
#include "dar_step.h"
#include "registry.h"

static uint8_t *graph;
static size_t graph_size;

struct input {
    const uint8_t *data;
    size_t size;
};

static void run(void *ctx)
{
    struct input *p = ctx;
    FILE *model_file = harness_input(p->data, p->size);
    struct dar_model model;
    dar_model_load(&model, model_file, "<fuzz>", dar_algorithm_of_model);
    fclose(model_file);
    /* a model of a hidden size in the thousands is valid, and slow */
    if (model.config.hidden <= 64) {
        FILE *in = harness_input(graph, graph_size);
        struct dar_step_options o = {&model, false, 1, true, true, DAR_EMBED_LAST, NULL, 1};
        dar_step_run(in, "<graph>", harness_sink(), &o);
        fclose(in);
    }
    dar_model_free(&model);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    harness_quiet();
    graph = harness_fixture("traced.mp", &graph_size);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = {data, size};
    harness_expect(harness_run(run, &in), 0);
    return 0;
}
