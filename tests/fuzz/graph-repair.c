/* graph-repair: records with predictions as the repair tool reads them
 * (repair_run) for every registry entry that has a repair, with its
 * defaults as flow-fix, match-fix and cover-fix take them and with the
 * other value of an option that picks a branch (match-fix --threshold 0.5,
 * cover-fix --complete score); and the input as metrics reads it
 * (metrics_run with the defaults and --per-graph). */
#include "harness.h"
#include "metrics_tool.h"
#include "registry.h"
#include "repair.h"

struct input {
    const uint8_t *data;
    size_t size;
    const struct dar_algorithm *alg;
    const char *option, *text;  /* the option set off its default, or NULL */
    double number;
};

static void run(void *ctx)
{
    struct input *p = ctx;
    static struct repair_cli c;
    repair_cli_init(&c, p->alg);
    for (int k = 0; p->option && k < p->alg->nrepair_options; k++)
        if (strcmp(p->alg->repair_options[k].name, p->option) == 0) {
            if (p->text)
                c.values[k].text = p->text;
            else
                c.values[k].number = p->number;
        }
    FILE *in = harness_input(p->data, p->size);
    repair_run(in, "<fuzz>", harness_sink(), p->alg, c.values);
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
    /* the options that pick another branch of a repair than its default */
    static const struct { const char *alg, *option, *text; double number; } variants[] = {
        {"matching", "threshold", NULL, 0.5},
        {"vertex-cover", "complete", "score", 0},
    };
    for (int i = 0; i < dar_algorithm_count; i++)
        if (dar_algorithms[i]->repair) {
            struct input in = {data, size, dar_algorithms[i], NULL, NULL, 0};
            harness_expect(harness_run(run, &in), 0);
        }
    for (size_t i = 0; i < sizeof variants / sizeof *variants; i++) {
        struct input in = {data, size, dar_algorithm_find(variants[i].alg), variants[i].option, variants[i].text,
                           variants[i].number};
        harness_expect(harness_run(run, &in), 0);
    }
    struct input in = {data, size, NULL, NULL, NULL, 0};
    harness_expect(harness_run(run_metrics, &in), 0);
    return 0;
}
