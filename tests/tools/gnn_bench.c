/* gnn_bench - timings for tests/bench/gnn-train.sh: training epochs of
 * gnn-train's model (common/graphnn/gnn.c) on the line graph of the first record,
 * with the same drawn inputs the PyTorch peer uses, and METIS.
 *
 *   gnn_bench --conv sage|gcn [--layers L --hidden H --epochs N -j T] [--csr FILE] < graph.mp
 *
 * Prints key-value lines: nodes, nnz, line_graph_s, metis_s (9 parts),
 * epoch_s (median of the epochs: forward, weighted NLL, backward, Adam),
 * epoch_cpu_s (the median epoch's process CPU time: on a shared machine
 * it moves less than the wall time; it sums the threads' times),
 * gemm_gflops (linear_* FLOPs of one epoch / epoch time), sgemm_gflops
 * (cblas_sgemm alone on the epoch's widest shape), corename.  --csr FILE
 * writes {offsets, neighbors} for the peer (msgpack-numpy). */
#include "cli.h"
#include "die.h"
#include "gnn.h"
#include "layers.h"
#include "line_graph.h"
#include "partition.h"
#include "rng.h"
#include "sparse.h"
#include "stream.h"
#include "tensor.h"
#include <cblas.h>
#include "workers.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *conv = "sage", *csr_path;
static int64_t layers = 0, hidden = 0, epochs = 3, threads = 1;
static bool no_metis;

static const struct cli_option options[] = {
    CLI_CHOICE("conv", 0, conv, "C", "convolution", "sage|gcn"),
    CLI_INT("layers", 0, layers, "L", "convolutions (0: sage 4, gcn 3)", 0, 16),
    CLI_INT("hidden", 0, hidden, "H", "width (0: sage 128, gcn 256)", 0, 4096),
    CLI_INT("epochs", 0, epochs, "N", "epochs timed", 1, 1000),
    CLI_INT("threads", 'j', threads, "N", "threads", 1, 64),
    CLI_STRING("csr", 0, csr_path, "FILE", "write the line graph for the peer"),
    CLI_FLAG("no-metis", 0, no_metis, "skip the METIS timing"),
    {0},
};

static const struct cli_spec spec = {
    "gnn_bench", "[options] < graph.mp",
    "Benchmark helper: gnn-train's training epoch and METIS on a line graph.",
    "gen-graphs --family vessel --edges 1000000 | gnn_bench --conv sage",
    options,
    NULL,
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int first = cli_parse(&spec, argc, argv);
    if (first < argc)
        cli_usage_error(&spec, "unexpected operand '%s'", argv[first]);
    bool gcn = !strcmp(conv, "gcn");
    int L = layers ? (int)layers : gcn ? 3 : 4, H = hidden ? (int)hidden : gcn ? 256 : 128;
    workers_start((int)threads);
    struct reader rd;
    struct record rec;
    reader_init(&rd, stdin, "<stdin>");
    rd.max_record = (size_t)32 << 30;
    if (!reader_next(&rd, &rec))
        die(EX_DATAERR, "no record");
    int64_t n = record_int(&rec, "n"), m = record_int(&rec, "m");
    int32_t *src = record_vector(&rec, "src", DT_I32, m), *dst = record_vector(&rec, "dst", DT_I32, m);
    reader_free(&rd);
    struct line_graph g;
    char err[300];
    double t0 = now();
    if (line_graph_build(&g, n, m, src, dst, err, sizeof err))
        die(EX_DATAERR, "%s", err);
    printf("nodes %lld\nnnz %lld\nline_graph_s %.3f\n", (long long)m, (long long)g.offsets[m], now() - t0);
    free(src);
    free(dst);
    if (csr_path) {
        FILE *f = fopen(csr_path, "wb");
        if (!f)
            die(EX_CANTCREAT, "cannot create '%s':", csr_path);
        struct writer w;
        writer_init(&w, f);
        mp_map(&w, 2);
        mp_key(&w, "offsets");   mp_vector(&w, DT_I64, m + 1, g.offsets);
        mp_key(&w, "neighbors"); mp_vector(&w, DT_I32, g.offsets[m], g.neighbors);
        fclose(f);
    }
    if (!no_metis) {
        int32_t *part = xmalloc(sizeof *part * (size_t)m);
        int64_t cut;
        t0 = now();
        if (partition_metis(part, &g, 9, &cut, err, sizeof err))
            die(EX_DATAERR, "%s", err);
        printf("metis_s %.3f\nmetis_edge_cut %lld\n", now() - t0, (long long)cut);
        free(part);
    }
    struct rng r;
    rng_init(&r, 1, rng_stream_id("gnn-bench"), 0);
    float *x = xmalloc(sizeof *x * (size_t)m * 3), *rw = xmalloc(sizeof *rw * (size_t)m);
    int32_t *label = xmalloc(sizeof *label * (size_t)m);
    for (int64_t i = 0; i < m * 3; i++)
        x[i] = (float)rng_normal(&r);
    for (int64_t i = 0; i < m; i++) {
        double u = rng_uniform(&r);
        label[i] = u < 0.95 ? 0 : u < 0.99 ? 1 : 2;
        rw[i] = rng_uniform(&r) < 0.8 ? (float)(label[i] == 0 ? 1.05 : label[i] == 1 ? 25 : 100) : 0.0f;
    }
    struct gnn_config cfg = {gcn ? GNN_GCN : GNN_SAGE, L, H, 3, 0, 0.4f};
    struct gnn_model mdl;
    gnn_model_init(&mdl, &cfg, 0);
    float *scale = xmalloc(sizeof *scale * (size_t)m);
    gcn_scale(scale, &g);
    struct gnn_graph gr = {&g, scale, x, NULL};
    struct gnn_work work;
    gnn_work_alloc(&work, &cfg, m);
    struct adam opt;
    adam_init(&opt, mdl.params, mdl.nparams, 3e-3f, 0);
    double *times = xmalloc(sizeof *times * (size_t)epochs), *cpu_times = xmalloc(sizeof *cpu_times * (size_t)epochs);
    uint64_t flops = 0;
    for (int64_t e = 0; e < epochs; e++) {
        linear_timing = true;
        uint64_t f0 = linear_flops;
        t0 = now();
        double c0 = cpu_now();
        params_zero_grad(mdl.params, mdl.nparams);
        gnn_forward(&work, &mdl, &gr, true, 0, opt.step, (int)threads);
        gnn_loss_backward(&work, &mdl, &gr, label, rw, true, (int)threads);
        adam_step(&opt, mdl.params, mdl.nparams);
        times[e] = now() - t0;
        cpu_times[e] = cpu_now() - c0;
        flops = linear_flops - f0;
    }
    qsort(times, (size_t)epochs, sizeof *times, compare_double);
    double epoch_s = times[epochs / 2];
    qsort(cpu_times, (size_t)epochs, sizeof *cpu_times, compare_double);
    printf("epoch_cpu_s %.3f\n", cpu_times[epochs / 2]);
    printf("epoch_s %.3f\ngemm_gflop %.2f\ngemm_gflops %.2f\n", epoch_s, (double)flops / 1e9, (double)flops / 1e9 / epoch_s);
    /* sgemm alone: m x H by H x H (the hidden layers' shape) */
    int64_t rows = m < 1000000 ? m : 1000000;
    float *a = xmalloc(sizeof *a * (size_t)rows * H), *b = xmalloc(sizeof *b * (size_t)H * H),
          *c = xmalloc(sizeof *c * (size_t)rows * H);
    for (int64_t i = 0; i < rows * H; i++)
        a[i] = 0.5f;
    for (int64_t i = 0; i < (int64_t)H * H; i++)
        b[i] = 0.25f;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)rows, H, H, 1.0f, a, H, b, H, 0.0f, c, H);
    t0 = now();
    for (int k = 0; k < 3; k++)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)rows, H, H, 1.0f, a, H, b, H, 0.0f, c, H);
    double sgemm_s = (now() - t0) / 3;
    printf("sgemm_gflops %.2f\ncorename %s\n", 2.0 * (double)rows * H * H / 1e9 / sgemm_s, openblas_get_corename());
    free(a);
    free(b);
    free(c);
    adam_free(&opt);
    gnn_work_free(&work);
    gnn_model_free(&mdl);
    line_graph_free(&g);
    free(x);
    free(rw);
    free(label);
    free(scale);
    free(times);
    free(cpu_times);
    return 0;
}
