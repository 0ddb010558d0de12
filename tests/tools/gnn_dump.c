/* gnn_dump - a test helper around common/graphnn/gnn.c, for comparing the C GCN /
 * GraphSAGE model with its PyTorch twin (tests/twin/gnn_twin.py).
 *
 *   gnn_dump --conv sage|gcn --layers L --hidden H --embed D --seed S < graph.mp > dump.mp
 *
 * Reads the first graph record (its edges only), builds the line graph and
 * draws, from the seed, inputs x [m, 3] and embeddings e [m, D] ~ N(0, 1),
 * labels, and row weights (a class weight on about 80% of the rows, 0
 * elsewhere); initialises the model as gnn-train does and writes one record:
 * offsets, neighbors, x, e, label, row_weight, loss (f64), params and grads
 * (maps name -> f32 tensor), dropout, and masks (u8[m, H] per layer: 1 where
 * the unit survived relu and dropout), so the twin applies the same masks. */
#include "cli.h"
#include "die.h"
#include "gnn.h"
#include "workers.h"
#include "io.h"
#include "line_graph.h"
#include "rng.h"
#include "sparse.h"
#include "stream.h"
#include "tensor.h"
#include <stdlib.h>
#include <string.h>

static const char *conv = "sage";
static int64_t layers = 2, hidden = 8, embed = 0, seed = 0, threads = 1;
static double dropout = 0;

static const struct cli_option options[] = {
    CLI_CHOICE("conv", 0, conv, "C", "convolution", "sage|gcn"),
    CLI_INT("layers", 0, layers, "L", "convolutions", 1, 16),
    CLI_INT("hidden", 0, hidden, "H", "width", 1, 4096),
    CLI_INT("embed", 0, embed, "D", "embedding width (0: none)", 0, 4096),
    CLI_INT("seed", 0, seed, "S", "seed of the model and the drawn data", 0, 0),
    CLI_INT("threads", 'j', threads, "N", "threads of the sparse products", 1, 64),
    CLI_DOUBLE("dropout", 0, dropout, "P", "dropout; the masks drawn are written as 'masks' for the twin", 0, 0.9),
    {0},
};

static const struct cli_spec spec = {
    "gnn_dump", "[options] < graph.mp > dump.mp",
    "Test helper: the loss and gradients of the GNN of gnn-train on the line\n"
    "graph of the first record, with drawn inputs, for the PyTorch twin.",
    "gen-graphs --family vessel --edges 300 --seed 1 | gnn_dump --conv gcn --embed 4 | gnn_twin.py",
    options,
    NULL,
};

static void write_params(struct writer *w, const struct gnn_model *m, bool grads)
{
    mp_map(w, (uint32_t)m->nparams);
    for (int k = 0; k < m->nparams; k++) {
        mp_key(w, m->names[k]);
        const float *v = grads ? m->params[k].grad : m->params[k].value;
        if (m->shape[k][1])
            mp_tensor(w, DT_F32, 2, m->shape[k], v);
        else
            mp_vector(w, DT_F32, m->shape[k][0], v);
    }
}

int main(int argc, char **argv)
{
    int first = cli_parse(&spec, argc, argv);
    if (first < argc)
        cli_usage_error(&spec, "unexpected operand '%s'", argv[first]);
    struct reader rd;
    struct record rec;
    reader_init(&rd, stdin, "<stdin>");
    if (!reader_next(&rd, &rec))
        die(EX_DATAERR, "no record");
    int64_t n = record_int(&rec, "n"), m = record_int(&rec, "m");
    int32_t *src = record_vector(&rec, "src", DT_I32, m), *dst = record_vector(&rec, "dst", DT_I32, m);
    struct line_graph g;
    char err[200];
    if (line_graph_build(&g, n, m, src, dst, err, sizeof err))
        die(EX_DATAERR, "%s", err);
    int D = (int)embed;
    struct rng r;
    rng_init(&r, (uint64_t)seed, rng_stream_id("gnn-dump"), 0);
    float *x = xmalloc(sizeof *x * (size_t)m * 3), *e = D ? xmalloc(sizeof *e * (size_t)m * (size_t)D) : NULL;
    for (int64_t i = 0; i < m * 3; i++)
        x[i] = (float)rng_normal(&r);
    for (int64_t i = 0; i < m * D; i++)
        e[i] = (float)rng_normal(&r);
    int32_t *label = xmalloc(sizeof *label * (size_t)m);
    float *row_weight = xmalloc(sizeof *row_weight * (size_t)m);
    const float class_weight[3] = {1.05f, 25.0f, 100.0f};
    for (int64_t i = 0; i < m; i++) {
        double u = rng_uniform(&r);
        label[i] = u < 0.7 ? 0 : u < 0.9 ? 1 : 2;
        row_weight[i] = rng_uniform(&r) < 0.8 ? class_weight[label[i]] : 0.0f;
    }
    struct gnn_config cfg = {strcmp(conv, "gcn") ? GNN_SAGE : GNN_GCN, (int)layers, (int)hidden, 3, D, (float)dropout};
    struct gnn_model mdl;
    gnn_model_init(&mdl, &cfg, (uint64_t)seed);
    float *scale = xmalloc(sizeof *scale * (size_t)m);
    gcn_scale(scale, &g);
    struct gnn_graph gr = {&g, scale, x, e};
    struct gnn_work work;
    gnn_work_alloc(&work, &cfg, m);
    params_zero_grad(mdl.params, mdl.nparams);
    workers_start((int)threads);
    gnn_forward(&work, &mdl, &gr, true, (uint64_t)seed, 0, (int)threads);
    uint8_t *masks = xmalloc((size_t)layers * (size_t)m * (size_t)hidden);
    for (int l = 1; l <= layers; l++)
        for (int64_t i = 0; i < m * hidden; i++)
            masks[(l - 1) * m * hidden + i] = work.h[l][i] > 0;
    double loss = gnn_loss_backward(&work, &mdl, &gr, label, row_weight, true, (int)threads);

    struct writer w;
    writer_init(&w, stdout);
    mp_map(&w, 14);
    mp_key(&w, "conv");       mp_str(&w, conv);
    mp_key(&w, "layers");     mp_int(&w, layers);
    mp_key(&w, "hidden");     mp_int(&w, hidden);
    mp_key(&w, "offsets");    mp_vector(&w, DT_I64, m + 1, g.offsets);
    mp_key(&w, "neighbors");  mp_vector(&w, DT_I32, g.offsets[m], g.neighbors);
    mp_key(&w, "x");          mp_tensor(&w, DT_F32, 2, (int64_t[]){m, 3}, x);
    mp_key(&w, "e");          mp_tensor(&w, DT_F32, 2, (int64_t[]){m, D}, D ? e : x);
    mp_key(&w, "label");      mp_vector(&w, DT_I32, m, label);
    mp_key(&w, "row_weight"); mp_vector(&w, DT_F32, m, row_weight);
    mp_key(&w, "loss");       mp_double(&w, loss);
    mp_key(&w, "params");     write_params(&w, &mdl, false);
    mp_key(&w, "grads");      write_params(&w, &mdl, true);
    mp_key(&w, "dropout");    mp_double(&w, dropout);
    mp_key(&w, "masks");      mp_tensor(&w, DT_U8, 3, (int64_t[]){layers, m, hidden}, masks);
    if (fflush(stdout))
        die(EX_IOERR, "cannot write:");
    gnn_work_free(&work);
    gnn_model_free(&mdl);
    line_graph_free(&g);
    free(x);
    free(e);
    free(label);
    free(row_weight);
    free(scale);
    free(masks);
    free(src);
    free(dst);
    reader_free(&rd);
    return 0;
}
