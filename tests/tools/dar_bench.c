/* dar_bench - times training iterations of the C model for `make bench`:
 * seconds per iteration (forward + backward + SGD) on batches of the given
 * training stream, the FLOPs of its matrix products, the achieved GFLOP/s,
 * the share of the iteration spent in them, the best rate of OpenBLAS sgemm
 * and of our own kernels on a product of the same kind, and with a
 * validation stream the seconds of dar-fit's validation pass over it.
 *   dar_bench train.mp ITERS [variant processor agg hidden batch [val.mp]]
 * Threads: DAR_BENCH_THREADS (default 1). */
#include "algo_maxflow.h"
#include "die.h"
#include "gemm.h"
#include "io.h"
#include "layers.h"
#include "optim.h"
#include "progress.h"
#include "rng.h"
#include "stream.h"
#include "dar_fit.h"
#include "workers.h"
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int load(const char *path, struct dar_graph **out)
{
    FILE *f = io_open_input(path);
    struct reader rd;
    struct record rec;
    int count = 0, cap = 1024;
    struct dar_graph *graphs = xmalloc(sizeof *graphs * (size_t)cap);
    reader_init(&rd, f, path);
    while (reader_next(&rd, &rec)) {
        if (count == cap)
            graphs = xrealloc(graphs, sizeof *graphs * (size_t)(cap *= 2));
        maxflow_read_graph(&graphs[count++], &rec, DAR_NEED_TRAINING);
    }
    reader_free(&rd);
    fclose(f);
    if (!count)
        die(EX_DATAERR, "%s: no graphs", path);
    *out = graphs;
    return count;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct own_product { float *c; const float *a, *wt; int N, C, OC; };

static void own_product_chunk(void *context, int64_t chunk, int worker)
{
    const struct own_product *p = context;
    int64_t n0 = chunk * 512, rows = p->N - n0 < 512 ? p->N - n0 : 512;
    gemm_chain(p->c + n0 * p->OC, p->OC, p->a + n0 * p->C, p->C, 1, p->wt, p->OC, NULL, rows,
               p->OC, p->C, false);
}

/* GFLOP/s of out(N×OC) = in(N×C)·Wᵀ, best of a few rounds: OpenBLAS sgemm
 * at `threads` threads (blas) or our kernel in chunks of 512 rows on the
 * worker pool. */
static double product_rate(int N, int C, int OC, int threads, bool blas)
{
    float *a = xcalloc((size_t)N * C, 4), *w = xcalloc((size_t)OC * C, 4), *c = xcalloc((size_t)N * OC, 4);
    for (int i = 0; i < N * C; i++) a[i] = (float)(i % 7) * 0.1f;
    for (int i = 0; i < OC * C; i++) w[i] = (float)(i % 5) * 0.1f;
    int reps = 20;
    double best = 1e30;
    openblas_set_num_threads(blas ? threads : 1);
    for (int round = 0; round < 5; round++) {
        double t0 = now_seconds();
        for (int r = 0; r < reps; r++) {
            if (blas)
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, OC, C, 1.0f, a, C, w, C,
                            0.0f, c, OC);
            else {
                struct own_product p = {c, a, w, N, C, OC};   /* w read as Wᵀ: the same work */
                if (threads > 1)
                    workers_run((N + 511) / 512, own_product_chunk, &p);
                else
                    for (int64_t chunk = 0; chunk < (N + 511) / 512; chunk++)
                        own_product_chunk(&p, chunk, 0);
            }
        }
        double t = now_seconds() - t0;
        if (t < best) best = t;
    }
    openblas_set_num_threads(1);
    free(a); free(w); free(c);
    return 2.0 * N * C * OC * reps / 1e9 / best;
}

int main(int argc, char **argv)
{
    dar_tool = "dar_bench";
    if (argc < 3)
        die(EX_USAGE, "usage: dar_bench train.mp ITERS [variant processor agg hidden batch [val.mp]]");
    int iters = atoi(argv[2]);
    if (iters < 1)
        die(EX_USAGE, "ITERS must be at least 1");
    struct dar_config cfg = {.variant = DAR_DUAL, .processor = DAR_PGN, .agg = DAR_AGG_MAX, .hidden = 65,
                             .algorithm = &dar_algorithm_maxflow};
    if (argc > 3 && !dar_variant_parse(argv[3], &cfg.variant)) die(EX_USAGE, "bad variant");
    if (argc > 4 && !dar_processor_parse(argv[4], &cfg.processor)) die(EX_USAGE, "bad processor");
    if (argc > 5 && !dar_agg_parse(argv[5], &cfg.agg)) die(EX_USAGE, "bad aggregator");
    if (argc > 6) cfg.hidden = atoi(argv[6]);
    int B = argc > 7 ? atoi(argv[7]) : 32;
    const char *val_path = argc > 8 ? argv[8] : NULL;
    const char *threads_env = getenv("DAR_BENCH_THREADS");
    int threads = threads_env ? atoi(threads_env) : 1;
    workers_start(threads);

    struct dar_graph *graphs, *val = NULL;
    int count = load(argv[1], &graphs), val_count = val_path ? load(val_path, &val) : 0;

    struct dar_model model;
    dar_model_init(&model, &cfg, 1);
    struct sgd sgd = {0.0098682f, 0.0017346f};
    struct dar_workspace *ws = dar_workspace_new();
    struct dar_graph **batch = xmalloc(sizeof *batch * (size_t)B);
    double *seconds = xmalloc(sizeof *seconds * (size_t)iters), total = 0;
    uint64_t flops = 0, product_ns = 0;
    double counted = 0;
    /* iteration 0 warms the workspace up, 1..iters are timed, the last one
     * counts the products' FLOPs and time (counting costs a little) */
    for (int k = 0; k < iters + 2; k++) {
        struct rng r;
        rng_init(&r, 1, rng_stream_id("batch"), (uint64_t)k);
        for (int b = 0; b < B; b++)
            batch[b] = &graphs[rng_below(&r, (uint64_t)count)];
        struct dar_losses l;
        bool counting = k == iters + 1;
        linear_timing = counting;
        uint64_t flops_before = linear_flops, ns_before = linear_nanoseconds;
        double t0 = now_seconds();
        params_zero_grad(model.params, model.nparams);
        dar_loss_and_grad(&model, ws, batch, B, NULL, 0, true, &l);
        sgd_step(&sgd, model.params, model.nparams);
        double t = now_seconds() - t0;
        if (counting) {
            counted = t;
            flops = linear_flops - flops_before;
            product_ns = linear_nanoseconds - ns_before;
        } else if (k > 0) {
            seconds[k - 1] = t;
            total += t;
        }
    }
    linear_timing = false;
    double validation = 0;
    if (val) {
        double runs[3];
        for (int i = 0; i < 3; i++) {
            double t0 = now_seconds();
            model.config.algorithm->validation_score(&model, ws, val, val_count, NULL);
            runs[i] = now_seconds() - t0;
        }
        validation = median(runs, 3);
    }
    /* the message MLP's shape: all arcs of a batch x 2H -> H */
    int N = 8192, C = 2 * cfg.hidden, OC = cfg.hidden;
    double blas1 = product_rate(N, C, OC, 1, true), ours1 = product_rate(N, C, OC, 1, false);
    double blasT = threads > 1 ? product_rate(N, C, OC, threads, true) : blas1;
    double oursT = threads > 1 ? product_rate(N, C, OC, threads, false) : ours1;
    double best = blasT > oursT ? blasT : oursT;
    double per_iter = median(seconds, iters);
    printf("seconds_per_iteration %.4f\n", per_iter);
    printf("min_seconds_per_iteration %.4f\n", seconds[0]);   /* sorted by median() */
    printf("gflop_per_iteration %.3f\n", flops / 1e9);
    printf("achieved_gflops %.2f\n", flops / 1e9 / per_iter);
    printf("sgemm_gflops %.2f\n", blasT);
    printf("own_kernel_gflops %.2f\n", oursT);
    printf("best_gflops %.2f\n", best);
    printf("product_share %.3f\n", product_ns / 1e9 / (counted * threads));
    printf("openblas_core %s\n", openblas_get_corename());
    printf("own_kernel %s\n", gemm_kernel_name());
    printf("threads %d\n", threads);
    if (val)
        printf("validation_seconds %.4f\n", validation);
    printf("workspace_mb %.1f\n", dar_workspace_bytes(ws) / 1048576.0);
    free(batch);
    free(seconds);
    dar_workspace_free(ws);
    dar_model_free(&model);
    for (int i = 0; i < count; i++)
        dar_graph_free(&graphs[i]);
    free(graphs);
    for (int i = 0; i < val_count; i++)
        dar_graph_free(&val[i]);
    free(val);
    workers_stop();
    return 0;
}
