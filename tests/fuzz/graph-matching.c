/* graph-matching: records as the matching entry reads them: ff_trace_run
 * --algorithm matching (one thread; with the trace, --no-hints and the
 * layered trace, --bfs-layers), the
 * entry's read_graph as dar-fit (its trace, DAR_NEED_TRAINING) and dar-step
 * (the instance, need 0) load a graph, and its random baseline. */
#include "harness.h"
#include "algo_matching.h"
#include "ff_trace.h"

struct input {
    const uint8_t *data;
    size_t size;
    int what;                   /* 0, 1: ff-trace with and without hints; 2, 3: read_graph; 4: baseline;
                                   5: ff-trace --bfs-layers */
};

static void run(void *ctx)
{
    struct input *p = ctx;
    FILE *in = harness_input(p->data, p->size);
    if (p->what < 2 || p->what == 5) {
        struct ff_trace_options o = {p->what != 1, PROGRESS_OFF, 1, &dar_algorithm_matching, p->what == 5};
        ff_trace_run(in, "<fuzz>", harness_sink(), &o);
    } else {
        struct reader rd;
        struct record rec;
        struct writer w;
        writer_init(&w, harness_sink());
        reader_init(&rd, in, "<fuzz>");
        while (reader_next(&rd, &rec)) {
            if (p->what == 4) {
                dar_algorithm_matching.random_baseline(&w, &rec, 1);
                continue;
            }
            struct dar_graph dg;
            dar_algorithm_matching.read_graph(&dg, &rec, p->what == 2 ? DAR_NEED_TRAINING : 0);
            dar_graph_free(&dg);
        }
        reader_free(&rd);
        writer_flush(&w);
    }
    fclose(in);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    harness_quiet();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int what = 0; what < 6; what++) {
        struct input in = {data, size, what};
        harness_expect(harness_run(run, &in), 0);
    }
    return 0;
}
