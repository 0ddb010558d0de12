/* graph-darstep: graph records as dar-step reads them (dar_step_run with
 * a small model of max-flow, shortest paths and min-cost flow, the hints
 * and, for max-flow, the embeddings; and their random baselines). */
#include "harness.h"
#include "algo_maxflow.h"
#include "algo_min_cost_flow.h"
#include "algo_shortest_paths.h"
#include "dar_step.h"

static struct dar_model maxflow_model, paths_model, mcf_model;

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
    bool embed = p->model == &maxflow_model;  /* the other entries' models have none */
    struct dar_step_options o = {p->model, !p->model, 1, p->model != NULL, embed, DAR_EMBED_LAST,
                                 .algorithm = p->baseline, .threads = 1};
    dar_step_run(in, "<fuzz>", harness_sink(), &o);
    fclose(in);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    harness_quiet();
    struct dar_config config = {.variant = DAR_DUAL, .processor = DAR_PGN, .agg = DAR_AGG_MAX, .hidden = 4,
                                .algorithm = &dar_algorithm_maxflow};
    dar_model_init(&maxflow_model, &config, 1);
    config.algorithm = &dar_algorithm_shortest_paths;
    dar_model_init(&paths_model, &config, 1);
    config.algorithm = &dar_algorithm_min_cost_flow;
    dar_model_init(&mcf_model, &config, 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = {data, size, &maxflow_model, NULL};
    harness_expect(harness_run(run, &in), 0);
    in.model = &paths_model;
    harness_expect(harness_run(run, &in), 0);
    in.model = NULL;
    harness_expect(harness_run(run, &in), 0);
    in.baseline = &dar_algorithm_shortest_paths;
    harness_expect(harness_run(run, &in), 0);
    in.baseline = &dar_algorithm_min_cost_flow;
    harness_expect(harness_run(run, &in), 0);
    in.model = &mcf_model;
    in.baseline = NULL;
    harness_expect(harness_run(run, &in), 0);
    return 0;
}
