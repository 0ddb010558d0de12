/* graph-flowfix: records with a predicted flow as flow-fix reads them
 * (flow_fix_run, the default key pred_flow). */
#include "harness.h"
#include "flow_fix.h"

struct input {
    const uint8_t *data;
    size_t size;
};

static void run(void *ctx)
{
    struct input *p = ctx;
    FILE *in = harness_input(p->data, p->size);
    flow_fix_run(in, "<fuzz>", harness_sink(), "pred_flow");
    fclose(in);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    harness_quiet();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = {data, size};
    harness_expect(harness_run(run, &in), 0);
    return 0;
}
