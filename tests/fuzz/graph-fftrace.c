/* graph-fftrace: graph records as ff-trace reads them (ff_trace_run,
 * one thread, with the trace and with --no-hints), as max-flow's and as
 * min-cost flow's (--algorithm min-cost-flow: its exact instance reader and
 * tracer; matching's are graph-matching's). */
#include "harness.h"
#include "algo_min_cost_flow.h"
#include "ff_trace.h"

struct input {
    const uint8_t *data;
    size_t size;
    bool hints;
    const struct dar_algorithm *algorithm;     /* NULL: max-flow */
};

static void run(void *ctx)
{
    struct input *p = ctx;
    FILE *in = harness_input(p->data, p->size);
    struct ff_trace_options o = {p->hints, PROGRESS_OFF, 1, p->algorithm};
    ff_trace_run(in, "<fuzz>", harness_sink(), &o);
    fclose(in);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    harness_quiet();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = {data, size, true, NULL};
    harness_expect(harness_run(run, &in), 0);
    in.hints = false;
    harness_expect(harness_run(run, &in), 0);
    in.algorithm = &dar_algorithm_min_cost_flow;
    harness_expect(harness_run(run, &in), 0);
    in.hints = true;
    harness_expect(harness_run(run, &in), 0);
    return 0;
}
