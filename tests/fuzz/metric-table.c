/* metric-table: metric records as metrics --table reads them
 * (metrics_table with the tool's defaults, as markdown and as TSV). */
#include "harness.h"
#include "metrics_tool.h"

struct input {
    const uint8_t *data;
    size_t size;
    enum metric_table_format format;
};

static void run(void *ctx)
{
    struct input *p = ctx;
    FILE *in = harness_input(p->data, p->size);
    struct metrics_table_options o = {p->format, "model", "name", NULL, NULL, NULL,
                                      "cut_accuracy,accuracy,balanced_accuracy,roc_auc,roc_hard", 3, NULL};
    metrics_table(in, "<fuzz>", harness_sink(), &o);
    fclose(in);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    harness_quiet();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = {data, size, TABLE_MD};
    harness_expect(harness_run(run, &in), 0);
    in.format = TABLE_TSV;
    harness_expect(harness_run(run, &in), 0);
    return 0;
}
