/* graph-metrics: graph records as metrics reads them (metrics_run with
 * the defaults: every quantity the first record has inputs for, and once
 * with the classification edges of the training split and --per-graph). */
#include "harness.h"
#include "metrics_tool.h"

struct input {
    const uint8_t *data;
    size_t size;
    enum metric_edges edges;
};

static void run(void *ctx)
{
    struct input *p = ctx;
    FILE *in = harness_input(p->data, p->size);
    struct metrics_options o = {0};
    o.split = "test";
    o.edges = p->edges;
    o.per_graph = p->edges == EDGES_TRAIN ? harness_sink() : NULL;
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
    struct input in = {data, size, EDGES_AUTO};
    harness_expect(harness_run(run, &in), 0);
    in.edges = EDGES_TRAIN;
    harness_expect(harness_run(run, &in), 0);
    return 0;
}
