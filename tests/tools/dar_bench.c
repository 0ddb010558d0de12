/* dar_bench - times training iterations of the C model for `make bench`:
 * seconds per iteration (forward + backward + SGD) on batches of the given
 * training stream, the FLOPs of its matrix products, the achieved GFLOP/s,
 * and OpenBLAS sgemm's GFLOP/s on a shape of the same kind.
 *   dar_bench train.mp ITERS [variant processor agg hidden batch] */
#include "dar.h"
#include "die.h"
#include "io.h"
#include "layers.h"
#include "optim.h"
#include "progress.h"
#include "rng.h"
#include "stream.h"
#include "workers.h"
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    dar_tool = "dar_bench";
    if (argc < 3)
        die(EX_USAGE, "usage: dar_bench train.mp ITERS [variant processor agg hidden batch]");
    int iters = atoi(argv[2]);
    struct dar_config cfg = {.variant = DAR_DUAL, .processor = DAR_PGN, .agg = DAR_AGG_MAX, .hidden = 65};
    if (argc > 3 && !dar_variant_parse(argv[3], &cfg.variant)) die(EX_USAGE, "bad variant");
    if (argc > 4 && !dar_processor_parse(argv[4], &cfg.processor)) die(EX_USAGE, "bad processor");
    if (argc > 5 && !dar_agg_parse(argv[5], &cfg.agg)) die(EX_USAGE, "bad aggregator");
    if (argc > 6) cfg.hidden = atoi(argv[6]);
    int B = argc > 7 ? atoi(argv[7]) : 32;

    const char *threads = getenv("DAR_BENCH_THREADS");
    workers_start(threads ? atoi(threads) : 1);
    FILE *f = io_open_input(argv[1]);
    struct reader rd;
    struct record rec;
    int count = 0, cap = 1024;
    struct dar_graph *graphs = xmalloc(sizeof *graphs * (size_t)cap);
    reader_init(&rd, f, argv[1]);
    while (reader_next(&rd, &rec)) {
        if (count == cap)
            graphs = xrealloc(graphs, sizeof *graphs * (size_t)(cap *= 2));
        dar_graph_read(&graphs[count++], &rec, DAR_NEED_TRAINING);
    }
    reader_free(&rd);
    if (!count)
        die(EX_DATAERR, "no graphs");

    struct dar_model model;
    dar_model_init(&model, &cfg, 1);
    struct sgd sgd = {0.0098682f, 0.0017346f};
    struct dar_workspace *ws = dar_workspace_new();
    struct dar_graph **batch = xmalloc(sizeof *batch * (size_t)B);
    double total = 0;
    uint64_t flops = 0;
    for (int k = 0; k < iters + 1; k++) {
        struct rng r;
        rng_init(&r, 1, rng_stream_id("batch"), (uint64_t)k);
        for (int b = 0; b < B; b++)
            batch[b] = &graphs[rng_below(&r, (uint64_t)count)];
        struct dar_losses l;
        uint64_t before = linear_flops;
        double t0 = now_seconds();
        params_zero_grad(model.params, model.nparams);
        dar_loss_and_grad(&model, ws, batch, B, NULL, 0, true, &l);
        sgd_step(&sgd, model.params, model.nparams);
        if (k > 0) {   /* the first iteration warms the workspace up */
            total += now_seconds() - t0;
            flops += linear_flops - before;
        }
    }
    /* sgemm alone on the message MLP's shape: all arcs of a batch x H -> H */
    int N = 8192, C = 2 * cfg.hidden, OC = cfg.hidden, reps = 50;
    float *a = xcalloc((size_t)N * C, 4), *w = xcalloc((size_t)OC * C, 4), *c = xcalloc((size_t)N * OC, 4);
    for (int i = 0; i < N * C; i++) a[i] = (float)(i % 7) * 0.1f;
    for (int i = 0; i < OC * C; i++) w[i] = (float)(i % 5) * 0.1f;
    double t0 = now_seconds();
    for (int r = 0; r < reps; r++)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, OC, C, 1.0f, a, C, w, C, 0.0f, c, OC);
    double sgemm_s = now_seconds() - t0;
    double per_iter = total / iters;
    printf("seconds_per_iteration %.4f\n", per_iter);
    printf("gflop_per_iteration %.3f\n", flops / 1e9 / iters);
    printf("achieved_gflops %.2f\n", flops / 1e9 / total);
    printf("sgemm_gflops %.2f\n", 2.0 * N * C * OC * reps / 1e9 / sgemm_s);
    printf("workspace_mb %.1f\n", dar_workspace_bytes(ws) / 1048576.0);
    free(a); free(w); free(c); free(batch);
    dar_workspace_free(ws);
    dar_model_free(&model);
    for (int i = 0; i < count; i++)
        dar_graph_free(&graphs[i]);
    free(graphs);
    return 0;
}
