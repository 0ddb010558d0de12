/* graph-coverfix: records with a predicted cover and packing as
 * cover-fix reads them (cover_fix_run with the keys
 * pred_cover and pred_packing, both completions), and its output as
 * metrics reads it (metrics_run with the defaults and --per-graph). */
#include "harness.h"
#include "cover_fix.h"
#include "metrics_tool.h"

struct input {
    const uint8_t *data;
    size_t size;
    enum vertex_cover_completion completion;
};

static void run(void *ctx)
{
    struct input *p = ctx;
    FILE *in = harness_input(p->data, p->size);
    cover_fix_run(in, "<fuzz>", harness_sink(),
                 &(struct cover_fix_options){.key = "pred_cover",
                                            .dual_key = "pred_packing", .threshold = 0.5,
                                            .completion = p->completion});
    fclose(in);
}

static void run_metrics(void *ctx)
{
    struct input *p = ctx;
    FILE *in = harness_input(p->data, p->size);
    struct metrics_options o = {0};
    o.split = "test";
    o.per_graph = harness_sink();
    metrics_run(in, "<fuzz>", harness_sink(), &o);
    fclose(in);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    harness_quiet();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = {data, size, VERTEX_COVER_COMPLETE_RATIO};
    harness_expect(harness_run(run, &in), 0);
    in.completion = VERTEX_COVER_COMPLETE_SCORE;
    harness_expect(harness_run(run, &in), 0);
    harness_expect(harness_run(run_metrics, &in), 0);
    return 0;
}
