/* model-resume: a model record as dar-fit --resume reads it (dar_fit_run
 * with the record as the model to continue: configuration, train_state,
 * curve, Adam moments), on a small traced training set
 * (tests/fuzz/fixtures/traced.mp).  The options are those the seed
 * models were written with (tests/fuzz/corpus.sh); a model of another
 * configuration or seed is a usage error (64). */
#include "harness.h"
#include "dar_fit.h"

static uint8_t *graphs;
static size_t graphs_size;

struct input {
    const uint8_t *data;
    size_t size;
};

static void run(void *ctx)
{
    struct input *p = ctx;
    struct input_bytes train, resume;
    input_bytes_of(&train, harness_copy(graphs, graphs_size), graphs_size, "<train>");
    input_bytes_of(&resume, harness_copy(p->data, p->size), p->size, "<fuzz>");
    struct dar_fit_options o = {0};
    o.config = (struct dar_config){DAR_DUAL, DAR_PGN, DAR_AGG_MAX, 4, false, false};
    o.lr = 0.01;
    o.threads = 1;             /* no pool: a caught die() would free its threads' memory */
    o.batch = 1;
    o.iters = 2;
    o.eval_every = 1;
    o.adam = true;
    o.seed = 1;
    o.tf_decay = 0.999;
    o.progress = PROGRESS_OFF;
    o.canonical_args = "fuzz";
    dar_fit_run(&train, NULL, &resume, harness_sink(), &o);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    harness_quiet();
    graphs = harness_fixture("traced.mp", &graphs_size);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = {data, size};
    harness_expect(harness_run(run, &in), HARNESS_ALSO(64));
    return 0;
}
