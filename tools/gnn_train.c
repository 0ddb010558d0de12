/* gnn_train.c - gnn-train's body (gnn_train.h, formats/gnn-train.md).
 *
 * Per record: the line graph (line_graph.h: node i = vessel i, so every
 * per-edge key indexes it), inputs and embeddings standardised on the train
 * vessels (lc-train's statistics), the model (gnn.h), then epochs of Adam
 * steps with evaluations on the validation vessels.
 *
 * C-SAGE: one METIS partition of the line graph (partition.h) into `parts`
 * clusters; each epoch shuffles the clusters (rng stream ("gnn-clusters",
 * epoch)) and takes one step per run of `batch_clusters` of them, on the
 * subgraph they induce (nodes cluster by cluster, ascending within one).  A
 * batch holding every cluster is the whole graph, which is then used as it
 * is (the same sums in the record's order).  Evaluation and prediction run on
 * the whole graph.
 *
 * Determinism: the sparse products pull per row, the dense ones are
 * layers.h's, dropout masks are drawn per block of rows, reductions run in
 * row order: the output does not depend on the thread count. */
#include "gnn_train.h"
#include "classify.h"
#include "cli.h"
#include "die.h"
#include "gnn.h"
#include "line_graph.h"
#include "metrics.h"
#include "optim.h"
#include "partition.h"
#include "rng.h"
#include "sparse.h"
#include "stream.h"
#include "stream_parallel.h"
#include "tensor.h"
#include "workers.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define K GNN_CLASSES

const char *gnn_options_resolve(struct gnn_options *o)
{
    /* the paper's CD1-E-3/E-2 values (appendix, tab:bvg-hyperparam) */
    int layers, hidden;
    double dropout;
    int64_t eval_every = 10;
    if (!strcmp(o->model, "gcn"))
        layers = 3, hidden = 256, dropout = 0.4;
    else if (!strcmp(o->model, "sage"))
        layers = 4, hidden = 128, dropout = 0.4;
    else if (!strcmp(o->model, "c-sage"))
        layers = 4, hidden = 128, dropout = 0.2, eval_every = 5;
    else
        return o->model;
    if (o->layers <= 0)
        o->layers = layers;
    if (o->hidden <= 0)
        o->hidden = hidden;
    if (o->dropout < 0)
        o->dropout = dropout;
    if (o->eval_every <= 0)
        o->eval_every = eval_every;
    return NULL;
}

/* ---- validation metrics ------------------------------------------------------------ */

/* The benchmark's metrics (its 8, less those equal by construction: f1
 * micro = accuracy, the "ovo" ROCs = the "ovr" ones on hard labels). */
enum { MET_BACC, MET_ACC, MET_F1W, MET_ROC, MET_ROCW, METRICS };
static const char *const metric_names[METRICS] = {"val_balanced_accuracy", "val_accuracy", "val_f1_weighted",
                                                  "val_roc_hard", "val_roc_hard_weighted"};

static void class_metrics(double *out, const int64_t conf[K][K])
{
    int64_t *full = xcalloc((size_t)METRIC_CLASSES * METRIC_CLASSES, sizeof *full);
    for (int a = 0; a < K; a++)
        for (int c = 0; c < K; c++)
            full[a * METRIC_CLASSES + c] = conf[a][c];
    out[MET_BACC] = metric_balanced_accuracy(full);
    out[MET_ACC] = metric_accuracy(full);
    out[MET_ROC] = metric_roc_hard(full, NULL);
    free(full);
    /* support-weighted F1 and one-vs-rest AUC of the hard predictions */
    int64_t total = 0, support[K] = {0}, predicted[K] = {0};
    for (int a = 0; a < K; a++)
        for (int c = 0; c < K; c++) {
            support[a] += conf[a][c];
            predicted[c] += conf[a][c];
            total += conf[a][c];
        }
    double f1 = 0, auc = 0, auc_support = 0;
    for (int c = 0; c < K; c++) {
        if (!support[c])
            continue;
        double tp = (double)conf[c][c];
        double denominator = (double)support[c] + (double)predicted[c];
        f1 += (double)support[c] * (denominator > 0 ? 2 * tp / denominator : 0);
        int64_t negatives = total - support[c];
        if (negatives > 0) {
            double tpr = tp / (double)support[c], tnr = (double)(negatives - (predicted[c] - conf[c][c])) / (double)negatives;
            auc += (double)support[c] * (tpr + tnr) / 2;
            auc_support += (double)support[c];
        }
    }
    out[MET_F1W] = total ? f1 / (double)total : NAN;
    out[MET_ROCW] = auc_support > 0 ? auc / auc_support : NAN;
}

/* ---- one record ------------------------------------------------------------------------ */

struct curve {
    int64_t rows, cap;
    int64_t *epoch;
    double *loss, *metric[METRICS];
};

static void curve_add(struct curve *c, int64_t epoch, double loss, const double *metric)
{
    if (c->rows == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        c->epoch = xrealloc(c->epoch, sizeof *c->epoch * (size_t)c->cap);
        c->loss = xrealloc(c->loss, sizeof *c->loss * (size_t)c->cap);
        for (int k = 0; k < METRICS; k++)
            c->metric[k] = xrealloc(c->metric[k], sizeof(double) * (size_t)c->cap);
    }
    c->epoch[c->rows] = epoch;
    c->loss[c->rows] = loss;
    for (int k = 0; k < METRICS; k++)
        c->metric[k][c->rows] = metric[k];
    c->rows++;
}

static void curve_free(struct curve *c)
{
    free(c->epoch);
    free(c->loss);
    for (int k = 0; k < METRICS; k++)
        free(c->metric[k]);
}

struct job {
    const struct gnn_options *o;
    long record;
    int threads;
    int64_t m;
    int32_t *label;                  /* [m] */
    uint8_t *split;                  /* [m] */
    int64_t sizes[3], counts[K];
    double class_weight[K];
    float *row_weight;               /* [m] class weight on train rows, 0 elsewhere */
    struct lc_inputs in, emb;
    double *in_mean, *in_std, *emb_mean, *emb_std;
    float *x, *e;                    /* [m, C], [m, D] standardised */
    struct line_graph g;
    float *scale;                    /* [m] GCN */
    bool cluster;
    int32_t *part;                   /* [m] C-SAGE */
    int64_t edge_cut;
    /* results */
    struct curve curve;
    int64_t epochs, best_epoch, steps;
    double best[METRICS];
    struct gnn_model best_model;     /* values only */
};

/* x [m, q] = the inputs standardised with the train statistics. */
static float *standardise(double **mean, double **std, const struct lc_inputs *in, const uint8_t *split, long record)
{
    int q = in->q;
    *mean = xmalloc(sizeof **mean * (size_t)q);
    *std = xmalloc(sizeof **std * (size_t)q);
    lc_standardize_stats(*mean, *std, in, split, record);
    float *shift = xmalloc(sizeof *shift * (size_t)q), *scale = xmalloc(sizeof *scale * (size_t)q);
    for (int c = 0; c < q; c++) {
        shift[c] = (float)(*mean)[c];
        scale[c] = (float)(1.0 / (*std)[c]);
    }
    float *x = xmalloc(sizeof *x * (size_t)in->m * (size_t)q);
    enum { CHUNK = 65536 };
    int64_t *rows = xmalloc(sizeof *rows * CHUNK);
    for (int64_t lo = 0; lo < in->m; lo += CHUNK) {
        int64_t n = in->m - lo < CHUNK ? in->m - lo : CHUNK;
        for (int64_t i = 0; i < n; i++)
            rows[i] = lo + i;
        lc_gather(x + lo * q, in, rows, n, shift, scale);
    }
    free(rows);
    free(shift);
    free(scale);
    return x;
}

/* Validation metrics of the model on the whole graph (dropout off). */
static void evaluate(double *metric, struct gnn_work *w, const struct gnn_model *mdl, const struct gnn_graph *gr,
                     const struct job *j)
{
    gnn_forward(w, mdl, gr, false, 0, 0, j->threads);
    int64_t conf[K][K] = {{0}};
    for (int64_t i = 0; i < j->m; i++) {
        if (j->split[i] != LC_VAL)
            continue;
        const float *z = w->logits + i * K;
        int best = 0;
        for (int c = 1; c < K; c++)
            if (z[c] > z[best])
                best = c;
        conf[j->label[i]][best]++;
    }
    class_metrics(metric, conf);
}

/* A C-SAGE batch: the subgraph of some clusters and its rows. */
struct batch {
    struct line_graph g;
    int32_t *nodes;
    float *x, *e, *row_weight;
    int32_t *label;
};

static void batch_gather(struct batch *b, const struct job *j, const int32_t *nodes, int64_t k, int32_t *local)
{
    line_graph_induced(&b->g, &j->g, nodes, k, local);
    int C = j->in.q, D = j->emb.q;
    b->x = xmalloc(sizeof(float) * (size_t)(k ? k : 1) * (size_t)C);
    b->e = D ? xmalloc(sizeof(float) * (size_t)(k ? k : 1) * (size_t)D) : NULL;
    b->row_weight = xmalloc(sizeof(float) * (size_t)(k ? k : 1));
    b->label = xmalloc(sizeof(int32_t) * (size_t)(k ? k : 1));
    for (int64_t i = 0; i < k; i++) {
        int64_t v = nodes[i];
        memcpy(b->x + i * C, j->x + v * C, sizeof(float) * (size_t)C);
        if (D)
            memcpy(b->e + i * D, j->e + v * D, sizeof(float) * (size_t)D);
        b->row_weight[i] = j->row_weight[v];
        b->label[i] = j->label[v];
    }
}

static void batch_free(struct batch *b)
{
    line_graph_free(&b->g);
    free(b->x);
    free(b->e);
    free(b->row_weight);
    free(b->label);
}

static void copy_values(struct gnn_model *to, const struct gnn_model *from)
{
    for (int k = 0; k < from->nparams; k++)
        memcpy(to->params[k].value, from->params[k].value, sizeof(float) * (size_t)from->params[k].count);
}

/* C-SAGE's clusters: their members, ascending, and the scratch of a batch. */
struct clusters {
    int parts;
    int64_t *start;                  /* [parts + 1] cluster p is members[start[p] .. start[p + 1]) */
    int32_t *members;                /* [m] */
    int32_t *local, *order, *batch_nodes;   /* [m] -1 outside a batch, [parts], [m] */
};

static void clusters_init(struct clusters *c, const struct job *j, int parts)
{
    c->parts = parts;
    c->start = xcalloc((size_t)parts + 1, sizeof *c->start);
    for (int64_t i = 0; i < j->m; i++)
        c->start[j->part[i] + 1]++;
    for (int p = 0; p < parts; p++)
        c->start[p + 1] += c->start[p];
    int64_t *fill = xmalloc(sizeof *fill * (size_t)parts);
    memcpy(fill, c->start, sizeof *fill * (size_t)parts);
    c->members = xmalloc(sizeof *c->members * (size_t)j->m);
    for (int64_t i = 0; i < j->m; i++)
        c->members[fill[j->part[i]]++] = (int32_t)i;
    free(fill);
    c->local = xmalloc(sizeof *c->local * (size_t)j->m);
    for (int64_t i = 0; i < j->m; i++)
        c->local[i] = -1;
    c->order = xmalloc(sizeof *c->order * (size_t)parts);
    c->batch_nodes = xmalloc(sizeof *c->batch_nodes * (size_t)j->m);
}

static void clusters_free(struct clusters *c)
{
    free(c->start);
    free(c->members);
    free(c->local);
    free(c->order);
    free(c->batch_nodes);
}

/* One C-SAGE epoch: the clusters shuffled, one Adam step per run of
 * batch_clusters of them.  Returns the sum of the batches' losses and sets
 * *batches. */
static double cluster_epoch(struct clusters *c, struct gnn_model *mdl, struct adam *opt, const struct job *j,
                            int64_t epoch, int64_t *batches)
{
    const struct gnn_options *o = j->o;
    int parts = c->parts;
    for (int p = 0; p < parts; p++)
        c->order[p] = p;
    struct rng r;
    rng_init(&r, (uint64_t)o->seed, rng_stream_id("gnn-clusters"), (uint64_t)epoch);
    for (int p = parts - 1; p > 0; p--) {
        int q = (int)rng_below(&r, (uint64_t)p + 1), t = c->order[p];
        c->order[p] = c->order[q];
        c->order[q] = t;
    }
    double loss = 0;
    *batches = 0;
    for (int first = 0; first < parts; first += o->batch_clusters) {
        int last = first + o->batch_clusters < parts ? first + o->batch_clusters : parts;
        int64_t k = 0;
        for (int p = first; p < last; p++)
            for (int64_t s = c->start[c->order[p]]; s < c->start[c->order[p] + 1]; s++)
                c->batch_nodes[k++] = c->members[s];
        struct batch b;
        batch_gather(&b, j, c->batch_nodes, k, c->local);
        struct gnn_graph sub = {&b.g, NULL, b.x, b.e};
        struct gnn_work bw;
        gnn_work_alloc(&bw, &mdl->cfg, k);
        params_zero_grad(mdl->params, mdl->nparams);
        gnn_forward(&bw, mdl, &sub, true, (uint64_t)o->seed, opt->step, j->threads);
        loss += gnn_loss_backward(&bw, mdl, &sub, b.label, b.row_weight, true, j->threads);
        adam_step(opt, mdl->params, mdl->nparams);
        (*batches)++;
        gnn_work_free(&bw);
        batch_free(&b);
    }
    return loss;
}

/* pred_label [m] and pred_proba [m, K]: the softmax of the logits in w. */
static void predict(uint8_t *pred_label, float *pred_proba, const struct gnn_work *w, int64_t m)
{
    for (int64_t i = 0; i < m; i++) {
        const float *z = w->logits + i * K;
        float top = z[0], sum = 0, p[K];
        for (int c = 1; c < K; c++)
            top = fmaxf(top, z[c]);
        for (int c = 0; c < K; c++)
            sum += (p[c] = expf(z[c] - top));
        int best = 0;
        for (int c = 0; c < K; c++) {
            p[c] /= sum;
            if (p[c] > p[best])
                best = c;
        }
        pred_label[i] = (uint8_t)best;
        memcpy(pred_proba + i * K, p, sizeof p);
    }
}

static void train(struct job *j, uint8_t *pred_label, float *pred_proba)
{
    const struct gnn_options *o = j->o;
    struct gnn_config cfg = {strcmp(o->model, "gcn") ? GNN_SAGE : GNN_GCN, o->layers, o->hidden, j->in.q, j->emb.q,
                             (float)o->dropout};
    struct gnn_model mdl;
    gnn_model_init(&mdl, &cfg, (uint64_t)o->seed);
    gnn_model_init(&j->best_model, &cfg, (uint64_t)o->seed);
    struct adam opt;
    adam_init(&opt, mdl.params, mdl.nparams, (float)o->lr, 0);
    struct gnn_graph full = {&j->g, j->scale, j->x, j->e};
    struct gnn_work work;
    gnn_work_alloc(&work, &cfg, j->m);
    struct clusters clusters = {0};
    bool batched = j->cluster && o->batch_clusters < o->parts;
    if (batched)
        clusters_init(&clusters, j, o->parts);

    struct progress pr;
    progress_begin(&pr, o->progress, "epochs", o->epochs);
    int64_t since_best = 0, epoch;
    double best_any[METRICS];
    for (int k = 0; k < METRICS; k++)
        best_any[k] = 0;     /* the benchmark's initial best */
    for (epoch = 1; epoch <= o->epochs; epoch++) {
        double epoch_loss = 0;
        int64_t batches = 1;
        if (batched) {
            epoch_loss = cluster_epoch(&clusters, &mdl, &opt, j, epoch, &batches);
        } else {
            params_zero_grad(mdl.params, mdl.nparams);
            gnn_forward(&work, &mdl, &full, true, (uint64_t)o->seed, opt.step, j->threads);
            epoch_loss = gnn_loss_backward(&work, &mdl, &full, j->label, j->row_weight, true, j->threads);
            adam_step(&opt, mdl.params, mdl.nparams);
        }
        epoch_loss /= (double)batches;
        /* the benchmark's cadence, plus the last epoch (so a short run has a checkpoint) */
        if ((epoch > 9 && epoch % o->eval_every == 0) || epoch == o->epochs) {
            double metric[METRICS];
            evaluate(metric, &work, &mdl, &full, j);
            curve_add(&j->curve, epoch, epoch_loss, metric);
            bool improved = false;
            for (int k = 0; k < METRICS; k++)
                if (metric[k] > best_any[k]) {
                    best_any[k] = metric[k];
                    improved = true;
                }
            since_best = improved ? 0 : since_best + 1;
            if (j->best_epoch == 0 || metric[MET_BACC] > j->best[MET_BACC]) {
                memcpy(j->best, metric, sizeof j->best);
                j->best_epoch = epoch;
                copy_values(&j->best_model, &mdl);
            }
            snprintf(pr.extra, sizeof pr.extra, "loss %.4f val bal. acc. %.4f", epoch_loss, metric[MET_BACC]);
        }
        progress_update(&pr, epoch);
        if (epoch > 70 && since_best * o->eval_every > o->patience)
            break;
    }
    progress_end(&pr);
    j->epochs = epoch > o->epochs ? o->epochs : epoch;
    j->steps = opt.step;

    /* predictions of the best evaluation on every vessel */
    gnn_forward(&work, &j->best_model, &full, false, 0, 0, j->threads);
    predict(pred_label, pred_proba, &work, j->m);
    gnn_work_free(&work);
    adam_free(&opt);
    gnn_model_free(&mdl);
    clusters_free(&clusters);
}

/* ---- output ---------------------------------------------------------------------------- */

static const char *const added_keys[] = {"split", "pred_label", "pred_proba", "gnn_model"};

static void write_names(struct writer *w, const struct lc_inputs *in)
{
    mp_array(w, (uint32_t)in->count);
    for (int k = 0; k < in->count; k++)
        mp_str(w, in->name[k]);
}

static void write_model(struct writer *w, const struct job *j)
{
    const struct gnn_options *o = j->o;
    const struct gnn_model *m = &j->best_model;
    mp_map(w, 29);
    mp_key(w, "model");          mp_str(w, o->model);
    mp_key(w, "layers");         mp_int(w, o->layers);
    mp_key(w, "hidden");         mp_int(w, o->hidden);
    mp_key(w, "dropout");        mp_double(w, o->dropout);
    mp_key(w, "head");           mp_str(w, "linear");
    mp_key(w, "inputs");         write_names(w, &j->in);
    mp_key(w, "input_mean");     mp_vector(w, DT_F64, j->in.q, j->in_mean);
    mp_key(w, "input_std");      mp_vector(w, DT_F64, j->in.q, j->in_std);
    mp_key(w, "embed");          write_names(w, &j->emb);
    mp_key(w, "embed_dim");      mp_int(w, j->emb.q);
    mp_key(w, "embed_mean");     mp_vector(w, DT_F64, j->emb.q, j->emb_mean);
    mp_key(w, "embed_std");      mp_vector(w, DT_F64, j->emb.q, j->emb_std);
    mp_key(w, "class_weight");   mp_vector(w, DT_F64, K, j->class_weight);
    mp_key(w, "label_counts");   mp_vector(w, DT_I64, K, j->counts);
    mp_key(w, "split_seed");     mp_int(w, o->split_seed);
    mp_key(w, "split_sizes");    mp_vector(w, DT_I64, 3, j->sizes);
    mp_key(w, "seed");           mp_int(w, o->seed);
    mp_key(w, "optimizer");      mp_str(w, "adam");
    mp_key(w, "lr");             mp_double(w, o->lr);
    mp_key(w, "max_epochs");     mp_int(w, o->epochs);
    mp_key(w, "patience");       mp_int(w, o->patience);
    mp_key(w, "eval_every");     mp_int(w, o->eval_every);
    mp_key(w, "parts");          mp_int(w, j->cluster ? o->parts : 1);
    mp_key(w, "batch_clusters"); mp_int(w, j->cluster ? o->batch_clusters : 1);
    mp_key(w, "edge_cut");       mp_int(w, j->edge_cut);
    mp_key(w, "epochs");         mp_int(w, j->epochs);
    mp_key(w, "best_epoch");     mp_int(w, j->best_epoch);
    mp_key(w, "curve");
    mp_map(w, 2 + METRICS);
    mp_key(w, "epoch");          mp_vector(w, DT_I64, j->curve.rows, j->curve.epoch);
    mp_key(w, "loss");           mp_vector(w, DT_F64, j->curve.rows, j->curve.loss);
    for (int k = 0; k < METRICS; k++) {
        mp_key(w, metric_names[k]);
        mp_vector(w, DT_F64, j->curve.rows, j->curve.metric[k]);
    }
    mp_key(w, "params");
    mp_map(w, (uint32_t)m->nparams);
    for (int k = 0; k < m->nparams; k++) {
        mp_key(w, m->names[k]);
        if (m->shape[k][1])
            mp_tensor(w, DT_F32, 2, m->shape[k], m->params[k].value);
        else
            mp_vector(w, DT_F32, m->shape[k][0], m->params[k].value);
    }
}

static void train_record(struct writer *w, const struct record *rec, const struct gnn_options *o, int threads)
{
    if (record_has(rec, "kind"))
        record_expect_kind(rec, "graph");
    struct job j = {0};
    j.o = o;
    j.record = rec->index;
    j.threads = threads;
    int64_t m = record_int(rec, "m"), n = record_int(rec, "n");
    if (m < 1)
        record_die(rec, "'m' is %lld, expected at least 1 edge", (long long)m);
    j.m = m;
    int32_t *src = record_vector(rec, "src", DT_I32, m), *dst = record_vector(rec, "dst", DT_I32, m);
    struct cli_list in_names, emb_names;
    cli_list_split(&in_names, o->inputs);
    cli_list_split(&emb_names, o->embed ? o->embed : "");
    lc_inputs_view(&j.in, rec, &in_names, m);
    lc_inputs_view(&j.emb, rec, &emb_names, m);
    uint8_t *label8 = record_vector(rec, "label", DT_U8, m);
    j.label = xmalloc(sizeof *j.label * (size_t)m);
    for (int64_t e = 0; e < m; e++) {
        if (label8[e] >= K)
            record_die(rec, "'label' entry %lld is %d, expected 0, 1 or 2", (long long)e, label8[e]);
        j.label[e] = label8[e];
        j.counts[label8[e]]++;
    }
    free(label8);
    j.split = xmalloc((size_t)m);
    lc_split(j.split, m, (uint64_t)o->split_seed, j.sizes);
    if (j.sizes[0] < 1 || j.sizes[1] < 1)
        record_die(rec, "%lld edges leave no train or no validation edge (80%%/10%% of m)", (long long)m);
    /* the benchmark's weights N / count_c over all labels; the loss divides by their sum */
    for (int c = 0; c < K; c++)
        j.class_weight[c] = j.counts[c] ? (double)m / (double)j.counts[c] : 0;
    j.row_weight = xmalloc(sizeof *j.row_weight * (size_t)m);
    for (int64_t e = 0; e < m; e++)
        j.row_weight[e] = j.split[e] == LC_TRAIN ? (float)j.class_weight[j.label[e]] : 0.0f;

    j.x = standardise(&j.in_mean, &j.in_std, &j.in, j.split, rec->index);
    j.e = j.emb.q ? standardise(&j.emb_mean, &j.emb_std, &j.emb, j.split, rec->index) : NULL;
    char err[300];
    if (line_graph_build(&j.g, n, m, src, dst, err, sizeof err))
        record_die(rec, "line graph: %s", err);
    free(src);
    free(dst);
    if (!strcmp(o->model, "gcn")) {
        j.scale = xmalloc(sizeof *j.scale * (size_t)m);
        gcn_scale(j.scale, &j.g);
    }
    j.cluster = !strcmp(o->model, "c-sage");
    if (j.cluster) {
        j.part = xmalloc(sizeof *j.part * (size_t)m);
        if (partition_metis(j.part, &j.g, o->parts, &j.edge_cut, err, sizeof err))
            record_die(rec, "%s", err);
    }
    uint8_t *pred_label = xmalloc((size_t)m);
    float *pred_proba = xmalloc(sizeof *pred_proba * (size_t)m * K);
    train(&j, pred_label, pred_proba);

    lc_begin_output(w, rec, added_keys, 4, o->drop);
    mp_key(w, "split");      mp_vector(w, DT_U8, m, j.split);
    mp_key(w, "pred_label"); mp_vector(w, DT_U8, m, pred_label);
    mp_key(w, "pred_proba"); mp_tensor(w, DT_F32, 2, (int64_t[]){m, K}, pred_proba);
    mp_key(w, "gnn_model");  write_model(w, &j);

    free(pred_label);
    free(pred_proba);
    gnn_model_free(&j.best_model);
    curve_free(&j.curve);
    line_graph_free(&j.g);
    free(j.scale);
    free(j.part);
    free(j.x);
    free(j.e);
    free(j.in_mean);
    free(j.in_std);
    free(j.emb_mean);
    free(j.emb_std);
    free(j.row_weight);
    free(j.split);
    free(j.label);
    cli_list_free(&in_names);
    cli_list_free(&emb_names);
}

/* The pool's threads cut the sparse products (gnn.c) as the dense ones
 * (layers.c) cut theirs. */
static void train_each(struct writer *w, const struct record *rec, void *context)
{
    train_record(w, rec, context, workers_threads());
}

void gnn_train_run(FILE *in, const char *in_name, FILE *out, const struct gnn_options *o)
{
    stream_map_graphs(in, in_name, out, train_each, (void *)o, o->threads);
}

/* ---- the log ------------------------------------------------------------------------------ */

void gnn_write_log(FILE *output, const char *name, const char *log_path)
{
    FILE *log = fopen(log_path, "w");
    if (!log)
        die(EX_CANTCREAT, "cannot create '%s':", log_path);
    fprintf(log, "record\tepoch\tloss");
    for (int k = 0; k < METRICS; k++)
        fprintf(log, "\t%s", metric_names[k]);
    fprintf(log, "\n");
    struct reader rd;
    struct record rec;
    reader_init(&rd, output, name);
    rd.max_record = STREAM_GRAPH_MAX_RECORD;
    while (reader_next(&rd, &rec)) {
        const msgpack_object *mo = record_find(&rec, "gnn_model");
        if (!mo || mo->type != MSGPACK_OBJECT_MAP)
            record_die(&rec, "no gnn_model in the output");
        struct record model = {mo, rec.index, rec.source};
        const msgpack_object *co = record_find(&model, "curve");
        if (!co || co->type != MSGPACK_OBJECT_MAP)
            record_die(&rec, "no curve in gnn_model");
        struct record curve = {co, rec.index, rec.source};
        struct tensor first;
        record_tensor(&curve, "epoch", DT_I64, 1, NULL, &first);
        int64_t rows = first.count, *epoch = first.data;
        double *loss = record_vector(&curve, "loss", DT_F64, rows), *metric[METRICS];
        for (int k = 0; k < METRICS; k++)
            metric[k] = record_vector(&curve, metric_names[k], DT_F64, rows);
        for (int64_t r = 0; r < rows; r++) {
            fprintf(log, "%ld\t%lld\t%.9g", rec.index, (long long)epoch[r], loss[r]);
            for (int k = 0; k < METRICS; k++)
                fprintf(log, "\t%.9g", metric[k][r]);
            fprintf(log, "\n");
        }
        tensor_free(&first);
        free(loss);
        for (int k = 0; k < METRICS; k++)
            free(metric[k]);
    }
    reader_free(&rd);
    if (fclose(log))
        die(EX_IOERR, "cannot write '%s':", log_path);
}
