/* n2v_bench - a test helper around tools/node2vec.c for make bench
 * (tests/bench/node2vec.sh): gensim's word2vec must train on the walks
 * node2vec trains on, so this writes them.
 *
 *   n2v_bench RECORD.mp WALKS.txt THREADS [WALKS_PER_NODE]
 *
 * Reads the first graph record, builds its line graph, then with the
 * tool's defaults (dim 128, 40-node walks, context 15, 1 negative, p = q = 1,
 * seed 0) and one epoch:
 *   - draws every positive walk of epoch 0 (node2vec_walk, one thread) and
 *     writes them to WALKS.txt, one walk a line, node ids separated by
 *     spaces, in the order the tool trains on them;
 *   - trains one epoch with THREADS threads (node2vec_train).
 * Prints one line of key=value pairs: nodes, walks, walk_seconds (drawing
 * only), train_seconds and train_cpu_seconds (both threads' CPU time), pairs
 * (positive + negative pairs trained), avx2. */
#include "die.h"
#include "io.h"
#include "line_graph.h"
#include "node2vec.h"
#include "stream.h"
#include "tensor.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    dar_tool = "n2v_bench";
    if (argc < 4)
        die(EX_USAGE, "usage: n2v_bench RECORD.mp WALKS.txt THREADS [WALKS_PER_NODE]");
    FILE *in = io_open_input(argv[1]);
    struct reader rd;
    struct record rec;
    reader_init(&rd, in, argv[1]);
    rd.max_record = (size_t)32 << 30;
    if (!reader_next(&rd, &rec))
        die(EX_DATAERR, "no record in '%s'", argv[1]);
    int64_t m = record_int(&rec, "m"), nodes = record_int(&rec, "n");
    int32_t *src = record_vector(&rec, "src", DT_I32, m), *dst = record_vector(&rec, "dst", DT_I32, m);
    struct line_graph g;
    char err[256];
    if (line_graph_build(&g, nodes, m, src, dst, err, sizeof err))
        die(EX_DATAERR, "%s", err);
    struct node2vec_options o = {"n2v", 128, 40, 15, argc > 4 ? atoll(argv[4]) : 10, 1, 1, 0, 1, 1, 0.01,
                                 atoi(argv[3]), PROGRESS_OFF};

    struct node2vec_plan plan;
    node2vec_plan_init(&plan, &g, &o);
    node2vec_epoch_order(&plan, 0);
    int64_t walks = g.n * o.walks_per_node;
    int32_t *all = xmalloc(sizeof *all * (size_t)(walks * o.walk_length));
    double t0 = now_seconds();
    /* the tool's order: batches of 256 start nodes, each repetition of the batch in turn */
    int64_t w = 0;
    for (int64_t first = 0; first < g.n; first += NODE2VEC_BATCH) {
        int64_t starts = g.n - first < NODE2VEC_BATCH ? g.n - first : NODE2VEC_BATCH;
        for (int64_t r = 0; r < o.walks_per_node; r++)
            for (int64_t s = 0; s < starts; s++)
                node2vec_walk(all + (w++) * o.walk_length, &plan, 0, r, first + s);
    }
    double walk_seconds = now_seconds() - t0;
    FILE *out = fopen(argv[2], "w");
    if (!out)
        die(EX_CANTCREAT, "cannot create '%s':", argv[2]);
    for (int64_t i = 0; i < walks; i++)
        for (int l = 0; l < o.walk_length; l++)
            fprintf(out, "%d%c", all[i * o.walk_length + l], l + 1 < o.walk_length ? ' ' : '\n');
    if (fclose(out))
        die(EX_IOERR, "cannot write '%s':", argv[2]);
    free(all);
    node2vec_plan_free(&plan);

    workers_start(o.threads);
    float *table = xmalloc(sizeof *table * (size_t)(g.n * o.dim));
    t0 = now_seconds();
    double c0 = cpu_seconds();
    node2vec_train(table, &g, &o);
    double train_seconds = now_seconds() - t0, train_cpu_seconds = cpu_seconds() - c0;
    workers_stop();
    int64_t pairs = walks * (o.walk_length - o.context + 1) * (o.context - 1) * (1 + o.negatives);
    printf("nodes=%lld walks=%lld walk_seconds=%.4f train_seconds=%.4f train_cpu_seconds=%.4f pairs=%lld avx2=%d\n",
           (long long)g.n, (long long)walks, walk_seconds, train_seconds, train_cpu_seconds, (long long)pairs,
           __builtin_cpu_supports("avx2") ? 1 : 0);
    free(table);
    free(src);
    free(dst);
    line_graph_free(&g);
    reader_free(&rd);
    return 0;
}
