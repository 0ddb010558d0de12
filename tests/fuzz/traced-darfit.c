/* traced-darfit: traced records as dar-fit reads them (dar_fit_run: the
 * training set loaded and checked whole, then one iteration on two of
 * its graphs, a small dual model). */
#include "harness.h"
#include "dar_fit.h"

struct input {
    const uint8_t *data;
    size_t size;
};

static void run(void *ctx)
{
    struct input *p = ctx;
    struct input_bytes in;
    input_bytes_of(&in, harness_copy(p->data, p->size), p->size, "<fuzz>");
    struct dar_fit_options o = {0};
    o.config = (struct dar_config){DAR_DUAL, DAR_PGN, DAR_AGG_MAX, 4, false, false};
    o.lr = 0.01;
    o.threads = 1;             /* no pool: a caught die() would free its threads' memory */
    o.batch = 2;
    o.iters = 1;
    o.eval_every = 1;
    o.adam = true;
    o.seed = 1;
    o.tf_decay = 0.999;
    o.progress = PROGRESS_OFF;
    o.canonical_args = "fuzz";
    dar_fit_run(&in, NULL, NULL, harness_sink(), &o);
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
