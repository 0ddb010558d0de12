/* graph-fftrace: graph records as ff-trace reads them (ff_trace_run,
 * one thread, with the trace and with --no-hints, and with each of the
 * entry's trace flags), as each entry of the registry traces them (its
 * instance reader and tracer). */
#include "harness.h"
#include "ff_trace.h"
#include "registry.h"

struct input {
    const uint8_t *data;
    size_t size;
    bool hints;
    const struct dar_algorithm *algorithm;
    uint32_t trace_flags;
};

static void run(void *ctx)
{
    struct input *p = ctx;
    FILE *in = harness_input(p->data, p->size);
    struct ff_trace_options o = {p->hints, PROGRESS_OFF, 1, p->algorithm, p->trace_flags};
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
    for (int a = 0; a < dar_algorithm_count; a++)
        for (int flag = 0; flag <= dar_algorithms[a]->ntrace_flags; flag++)   /* 0: none, else flag - 1 */
            for (int hints = 1; hints >= 0; hints--) {
                struct input in = {data, size, hints, dar_algorithms[a], flag ? 1u << (flag - 1) : 0};
                harness_expect(harness_run(run, &in), 0);
            }
    return 0;
}
