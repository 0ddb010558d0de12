/* lc_train.c - the linear classifier of the brain-vessel study
 * (formats/lc-train.md).
 *
 * Memory: the record stays in the reader's buffer and the inputs are read
 * in place (a 5.8M-edge record with a 185-wide embedding is 4.7 GB; a
 * standardised copy would double that).  Each step gathers its rows into a
 * small per-thread block, standardises them there and runs two sgemm calls
 * on it, so an epoch reads every train row once.
 *
 * Determinism: work is cut into blocks of fixed size (SUB rows in a step,
 * EVAL_BLOCK rows in an evaluation, and the statistics' blocks in classify.c);
 * each block writes its own slot and slots are summed in block order, so
 * the bits do not depend on the thread count.  OpenBLAS is set to one
 * thread: the parallelism is ours. */
#include "lc_train.h"
#include "cli.h"
#include "die.h"
#include "metrics.h"
#include "rng.h"
#include "stream.h"
#include "stream_parallel.h"
#include "tensor.h"
#include "workers.h"
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define K LC_CLASSES
enum { SUB = 256, EVAL_BLOCK = 4096 };

/* ---- batch size, class weights ----------------------------------------------- */

int64_t lc_batch_size(int64_t n_train)
{
    int64_t b = n_train / 256;
    return b < 32 ? 32 : b > 4096 ? 4096 : b;
}

void lc_class_weights(double *weight, int64_t *counts, const uint8_t *label, const uint8_t *split, int64_t m)
{
    int64_t n = 0;
    for (int c = 0; c < K; c++)
        counts[c] = 0;
    for (int64_t e = 0; e < m; e++)
        if (split[e] == LC_TRAIN) {
            counts[label[e]]++;
            n++;
        }
    for (int c = 0; c < K; c++)
        weight[c] = counts[c] ? (double)n / ((double)K * (double)counts[c]) : 0.0;
}

/* ---- the loss and one block's gradient --------------------------------------- */

double lc_softmax_ce_backward(float *dlogits, float *logits, const uint8_t *label,
                              const double *class_weight, int64_t n, float scale)
{
    double loss = 0;
    for (int64_t i = 0; i < n; i++) {
        float *z = logits + i * K, *dz = dlogits + i * K;
        float top = z[0];
        for (int c = 1; c < K; c++)
            top = fmaxf(top, z[c]);
        float sum = 0, zy = z[label[i]];
        for (int c = 0; c < K; c++) {
            z[c] = expf(z[c] - top);
            sum += z[c];
        }
        int y = label[i];
        float w = (float)class_weight[y];
        /* -log p_y = log sum - (z_y - top); z_y - top = log of its exp */
        loss += class_weight[y] * (double)(logf(sum) - (zy - top));
        for (int c = 0; c < K; c++) {
            z[c] /= sum;
            dz[c] = scale * w * (z[c] - (c == y ? 1.0f : 0.0f));
        }
    }
    return loss;
}

/* logits [n, K] = x [n, q] W [q, K] + b: rows of b first, then sgemm adds. */
static void lc_logits_forward(float *logits, const float *x, const float *W, const float *b, int64_t n, int q)
{
    for (int64_t i = 0; i < n; i++)
        for (int c = 0; c < K; c++)
            logits[i * K + c] = b[c];
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, K, q, 1.0f, x, q, W, K, 1.0f, logits, K);
}

double lc_block_gradient(float *gW, float *gb, float *work, const float *x, const uint8_t *label,
                         const float *W, const float *b, const double *class_weight,
                         int64_t n, int q, int64_t denominator)
{
    float *logits = work, *dlogits = work + n * K;
    lc_logits_forward(logits, x, W, b, n, q);
    double loss = lc_softmax_ce_backward(dlogits, logits, label, class_weight, n, 1.0f / (float)denominator);
    /* gW [q, K] = x^T [q, n] dlogits [n, K] */
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, q, K, (int)n, 1.0f, x, q, dlogits, K, 0.0f, gW, K);
    for (int c = 0; c < K; c++) {
        float s = 0;
        for (int64_t i = 0; i < n; i++)
            s += dlogits[i * K + c];
        gb[c] = s;
    }
    return loss;
}

double lc_block_gradient_naive(float *gW, float *gb, const float *x, const uint8_t *label,
                               const float *W, const float *b, const double *class_weight,
                               int64_t n, int q, int64_t denominator)
{
    double *dW = xcalloc((size_t)q * K, sizeof *dW), db[K] = {0}, loss = 0;
    for (int64_t i = 0; i < n; i++) {
        double z[K], top = -INFINITY, sum = 0;
        for (int c = 0; c < K; c++) {
            z[c] = b[c];
            for (int j = 0; j < q; j++)
                z[c] += (double)x[i * q + j] * W[j * K + c];
            top = fmax(top, z[c]);
        }
        for (int c = 0; c < K; c++)
            sum += exp(z[c] - top);
        int y = label[i];
        double w = class_weight[y];
        loss += w * (log(sum) - (z[y] - top));
        for (int c = 0; c < K; c++) {
            double d = w * (exp(z[c] - top) / sum - (c == y)) / (double)denominator;
            db[c] += d;
            for (int j = 0; j < q; j++)
                dW[j * K + c] += d * x[i * q + j];
        }
    }
    for (int j = 0; j < q * K; j++)
        gW[j] = (float)dW[j];
    for (int c = 0; c < K; c++)
        gb[c] = (float)db[c];
    free(dW);
    return loss;
}

/* ---- training -------------------------------------------------------------------- */

struct model {
    int q;
    float *W, *b;                /* [q, K], [K] */
};

struct scratch {                 /* one per worker */
    float *x, *work;             /* [SUB or EVAL_BLOCK rows, q], [2 rows K] */
    uint8_t *label;
    int64_t *rows;
};

struct train_job {
    const struct lc_inputs *in;
    const uint8_t *label;
    const float *shift, *scale;
    const double *class_weight;
    struct model *mdl;
    struct scratch *scr;
    /* a step */
    const int64_t *batch;        /* rows of the batch */
    int64_t nb;
    float *gW, *gb;              /* [slots, q K], [slots, K] */
    double *loss;                /* [slots] */
    /* an evaluation / prediction */
    const int64_t *eval_rows;    /* NULL: rows eval_lo .. eval_lo + eval_n */
    int64_t eval_n;
    int64_t *confusion;          /* [blocks, K, K] or NULL */
    uint8_t *pred_label;         /* [m] or NULL */
    float *pred_proba;           /* [m, K] or NULL */
};

static void step_block(void *ctx, int64_t sl, int worker)
{
    struct train_job *j = ctx;
    struct scratch *s = &j->scr[worker];
    int q = j->in->q;
    int64_t lo = sl * SUB, n = j->nb - lo < SUB ? j->nb - lo : SUB;
    const int64_t *rows = j->batch + lo;
    lc_gather(s->x, j->in, rows, n, j->shift, j->scale);
    for (int64_t i = 0; i < n; i++)
        s->label[i] = j->label[rows[i]];
    j->loss[sl] = lc_block_gradient(j->gW + sl * q * K, j->gb + sl * K, s->work, s->x, s->label,
                                    j->mdl->W, j->mdl->b, j->class_weight, n, q, j->nb);
}

static void softmax_rows(float *z, int64_t n)
{
    for (int64_t i = 0; i < n; i++, z += K) {
        float top = z[0], sum = 0;
        for (int c = 1; c < K; c++)
            top = fmaxf(top, z[c]);
        for (int c = 0; c < K; c++)
            sum += (z[c] = expf(z[c] - top));
        for (int c = 0; c < K; c++)
            z[c] /= sum;
    }
}

static void eval_block(void *ctx, int64_t bl, int worker)
{
    struct train_job *j = ctx;
    struct scratch *s = &j->scr[worker];
    int q = j->in->q;
    int64_t lo = bl * EVAL_BLOCK, n = j->eval_n - lo < EVAL_BLOCK ? j->eval_n - lo : EVAL_BLOCK;
    const int64_t *rows = j->eval_rows ? j->eval_rows + lo : s->rows;
    if (!j->eval_rows)
        for (int64_t i = 0; i < n; i++)
            s->rows[i] = lo + i;
    lc_gather(s->x, j->in, rows, n, j->shift, j->scale);
    lc_logits_forward(s->work, s->x, j->mdl->W, j->mdl->b, n, q);
    softmax_rows(s->work, n);
    int64_t *conf = j->confusion ? j->confusion + bl * K * K : NULL;
    if (conf)
        memset(conf, 0, sizeof *conf * K * K);
    for (int64_t i = 0; i < n; i++) {
        const float *p = s->work + i * K;
        int best = 0;
        for (int c = 1; c < K; c++)
            if (p[c] > p[best])
                best = c;
        if (conf)
            conf[j->label[rows[i]] * K + best]++;
        if (j->pred_label) {
            j->pred_label[rows[i]] = (uint8_t)best;
            memcpy(j->pred_proba + rows[i] * K, p, sizeof *p * K);
        }
    }
}

/* Balanced accuracy of the model on rows (metrics.h's definition). */
static double evaluate(struct train_job *j, const int64_t *rows, int64_t n)
{
    int64_t blocks = (n + EVAL_BLOCK - 1) / EVAL_BLOCK;
    j->eval_rows = rows;
    j->eval_n = n;
    j->confusion = xcalloc((size_t)(blocks ? blocks : 1) * K * K, sizeof *j->confusion);
    j->pred_label = NULL;
    j->pred_proba = NULL;
    workers_run(blocks, eval_block, j);
    int64_t *full = xcalloc((size_t)METRIC_CLASSES * METRIC_CLASSES, sizeof *full);
    for (int64_t bl = 0; bl < blocks; bl++)
        for (int a = 0; a < K; a++)
            for (int c = 0; c < K; c++)
                full[a * METRIC_CLASSES + c] += j->confusion[(bl * K + a) * K + c];
    double bacc = metric_balanced_accuracy(full);
    free(full);
    free(j->confusion);
    j->confusion = NULL;
    return bacc;
}

struct result {
    int64_t sizes[3], counts[K];
    double class_weight[K];
    double *mean, *std;
    float *W, *b;                /* the best epoch's */
    int64_t epochs, best_epoch, batch;
    double best_bacc;
    double *curve_loss, *curve_bacc;
};

/* The train and validation rows, in edge order. */
static void split_rows(const uint8_t *split, int64_t m, int64_t *train_rows, int64_t *val_rows)
{
    for (int64_t e = 0, a = 0, v = 0; e < m; e++) {
        if (split[e] == LC_TRAIN)
            train_rows[a++] = e;
        else if (split[e] == LC_VAL)
            val_rows[v++] = e;
    }
}

static struct scratch *scratch_new(int workers, int q)
{
    struct scratch *scr = xcalloc((size_t)workers, sizeof *scr);
    for (int w = 0; w < workers; w++) {
        scr[w].x = xmalloc(sizeof(float) * (size_t)EVAL_BLOCK * q);
        scr[w].work = xmalloc(sizeof(float) * 2 * EVAL_BLOCK * K);
        scr[w].label = xmalloc(EVAL_BLOCK);
        scr[w].rows = xmalloc(sizeof(int64_t) * EVAL_BLOCK);
    }
    return scr;
}

static void scratch_free(struct scratch *scr, int workers)
{
    for (int w = 0; w < workers; w++) {
        free(scr[w].x);
        free(scr[w].work);
        free(scr[w].label);
        free(scr[w].rows);
    }
    free(scr);
}

/* Adam's moments of W and b, and its step count. */
struct adam_state {
    double *mW, *vW, mb[K], vb[K];
    int64_t t;
};

/* One Adam step on mdl with the gradient g ([q K] for W, then [K] for b);
 * L2 on W only. */
static void adam_update(struct model *mdl, struct adam_state *a, const double *g, const struct lc_options *o)
{
    const double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
    int q = mdl->q;
    a->t++;
    double c1 = 1 - pow(beta1, (double)a->t), c2 = 1 - pow(beta2, (double)a->t);
    for (int i = 0; i < q * K + K; i++) {
        bool bias = i >= q * K;
        float *param = bias ? &mdl->b[i - q * K] : &mdl->W[i];
        double *mm = bias ? &a->mb[i - q * K] : &a->mW[i], *vv = bias ? &a->vb[i - q * K] : &a->vW[i];
        double gi = g[i] + (bias ? 0 : o->l2 * *param);
        *mm = beta1 * *mm + (1 - beta1) * gi;
        *vv = beta2 * *vv + (1 - beta2) * gi * gi;
        *param -= (float)(o->lr * (*mm / c1) / (sqrt(*vv / c2) + eps));
    }
}

/* One epoch over order[0..n_train) (shuffled here) in batches of B rows:
 * each batch's gradient is summed over its SUB-row slots in slot order.
 * Returns the summed loss. */
static double train_epoch(struct train_job *j, struct adam_state *a, double *g, int64_t *order, int64_t n_train,
                          int64_t B, int64_t epoch, const struct lc_options *o)
{
    int q = j->in->q;
    struct rng sr;
    rng_init(&sr, (uint64_t)o->seed, rng_stream_id("lc-order"), (uint64_t)epoch);
    for (int64_t i = n_train - 1; i > 0; i--) {
        int64_t k = (int64_t)rng_below(&sr, (uint64_t)i + 1), tmp = order[i];
        order[i] = order[k];
        order[k] = tmp;
    }
    double epoch_loss = 0;
    for (int64_t start = 0; start < n_train; start += B) {
        j->batch = order + start;
        j->nb = n_train - start < B ? n_train - start : B;
        int64_t used = (j->nb + SUB - 1) / SUB;
        workers_run(used, step_block, j);
        for (int i = 0; i < q * K + K; i++)
            g[i] = 0;
        for (int64_t sl = 0; sl < used; sl++) {
            for (int i = 0; i < q * K; i++)
                g[i] += j->gW[sl * q * K + i];
            for (int c = 0; c < K; c++)
                g[q * K + c] += j->gb[sl * K + c];
            epoch_loss += j->loss[sl];
        }
        adam_update(j->mdl, a, g, o);
    }
    return epoch_loss;
}

/* Epochs until o->max_epochs or o->patience epochs without a better
 * validation balanced accuracy; res keeps the curve and the best epoch's
 * model. */
static void train_epochs(struct result *res, struct train_job *j, const int64_t *train_rows, const int64_t *val_rows,
                         int64_t B, const struct lc_options *o)
{
    int q = j->in->q;
    int64_t n_train = res->sizes[0], n_val = res->sizes[1];
    struct model *mdl = j->mdl;
    struct adam_state adam = {xcalloc((size_t)q * K, sizeof(double)), xcalloc((size_t)q * K, sizeof(double)),
                              {0}, {0}, 0};
    double *g = xmalloc(sizeof *g * (size_t)(q * K + K));
    int64_t since_best = 0;
    res->curve_loss = xcalloc((size_t)o->max_epochs, sizeof(double));
    res->curve_bacc = xcalloc((size_t)o->max_epochs, sizeof(double));
    res->best_bacc = NAN;
    res->best_epoch = 0;
    int64_t *order = xmalloc(sizeof *order * (size_t)(n_train + 1));
    memcpy(order, train_rows, sizeof *order * (size_t)n_train);
    struct progress pr;
    progress_begin(&pr, o->progress, "epochs", o->max_epochs);
    int64_t epoch;
    for (epoch = 1; epoch <= o->max_epochs; epoch++) {
        double epoch_loss = train_epoch(j, &adam, g, order, n_train, B, epoch, o);
        double bacc = n_val ? evaluate(j, val_rows, n_val) : NAN;
        res->curve_loss[epoch - 1] = epoch_loss / (double)n_train;
        res->curve_bacc[epoch - 1] = bacc;
        if (res->best_epoch == 0 || isnan(bacc) || bacc > res->best_bacc) {
            res->best_bacc = bacc;
            res->best_epoch = epoch;
            memcpy(res->W, mdl->W, sizeof(float) * (size_t)q * K);
            memcpy(res->b, mdl->b, sizeof(float) * K);
            since_best = 0;
        } else
            since_best++;
        snprintf(pr.extra, sizeof pr.extra, "loss %.4f val bal. acc. %.4f", res->curve_loss[epoch - 1], bacc);
        progress_update(&pr, epoch);
        if (since_best >= o->patience)
            break;
    }
    progress_end(&pr);
    res->epochs = epoch > o->max_epochs ? o->max_epochs : epoch;
    free(adam.mW);
    free(adam.vW);
    free(g);
    free(order);
}

static void train(struct result *res, const struct lc_inputs *in, const uint8_t *label, const uint8_t *split,
                  const struct lc_options *o, long record, uint8_t *pred_label, float *pred_proba)
{
    int q = in->q;
    int64_t m = in->m, n_train = res->sizes[0], n_val = res->sizes[1];
    int64_t *train_rows = xmalloc(sizeof *train_rows * (size_t)(n_train + 1));
    int64_t *val_rows = xmalloc(sizeof *val_rows * (size_t)(n_val + 1));
    split_rows(split, m, train_rows, val_rows);
    res->mean = xmalloc(sizeof *res->mean * (size_t)q);
    res->std = xmalloc(sizeof *res->std * (size_t)q);
    lc_standardize_stats(res->mean, res->std, in, split, record);
    float *shift = xmalloc(sizeof *shift * (size_t)q), *scale = xmalloc(sizeof *scale * (size_t)q);
    for (int c = 0; c < q; c++) {
        shift[c] = (float)res->mean[c];
        scale[c] = (float)(1.0 / res->std[c]);
    }
    lc_class_weights(res->class_weight, res->counts, label, split, m);

    int64_t B = o->batch > 0 ? o->batch : lc_batch_size(n_train);
    if (B > n_train)
        B = n_train;
    res->batch = B;
    int64_t slots = (B + SUB - 1) / SUB;
    struct model mdl = {q, xcalloc((size_t)q * K, sizeof(float)), xcalloc(K, sizeof(float))};
    res->W = xcalloc((size_t)q * K, sizeof(float));
    res->b = xcalloc(K, sizeof(float));
    struct rng r;
    rng_init(&r, (uint64_t)o->seed, rng_stream_id("lc-init"), 0);
    for (int i = 0; i < q * K; i++)
        mdl.W[i] = (float)(0.01 * rng_normal(&r));

    int workers = workers_threads();
    struct scratch *scr = scratch_new(workers, q);
    struct train_job j = {in, label, shift, scale, res->class_weight, &mdl, scr, NULL, 0,
                          xmalloc(sizeof(float) * (size_t)(slots * q * K)), xmalloc(sizeof(float) * (size_t)(slots * K)),
                          xmalloc(sizeof(double) * (size_t)slots), NULL, 0, NULL, NULL, NULL};
    train_epochs(res, &j, train_rows, val_rows, B, o);

    /* predictions of the best epoch on every edge */
    memcpy(mdl.W, res->W, sizeof(float) * (size_t)q * K);
    memcpy(mdl.b, res->b, sizeof(float) * K);
    j.eval_rows = NULL;
    j.eval_n = m;
    j.confusion = NULL;
    j.pred_label = pred_label;
    j.pred_proba = pred_proba;
    workers_run((m + EVAL_BLOCK - 1) / EVAL_BLOCK, eval_block, &j);

    scratch_free(scr, workers);
    free(j.gW);
    free(j.gb);
    free(j.loss);
    free(mdl.W);
    free(mdl.b);
    free(shift);
    free(scale);
    free(train_rows);
    free(val_rows);
}

/* ---- the record ------------------------------------------------------------------ */

static const char *const added_keys[] = {"split", "pred_label", "pred_proba", "lc_model"};

static void write_model(struct writer *w, const struct lc_inputs *in, const struct result *res, const struct lc_options *o)
{
    int q = in->q;
    mp_map(w, 22);
    mp_key(w, "inputs");
    mp_array(w, (uint32_t)in->count);
    for (int k = 0; k < in->count; k++)
        mp_str(w, in->name[k]);
    mp_key(w, "input_dims");
    mp_array(w, (uint32_t)in->count);
    for (int k = 0; k < in->count; k++)
        mp_int(w, in->dim[k]);
    mp_key(w, "classes");       mp_int(w, K);
    mp_key(w, "mean");          mp_vector(w, DT_F64, q, res->mean);
    mp_key(w, "std");           mp_vector(w, DT_F64, q, res->std);
    mp_key(w, "weight");        mp_tensor(w, DT_F32, 2, (int64_t[]){q, K}, res->W);
    mp_key(w, "bias");          mp_vector(w, DT_F32, K, res->b);
    mp_key(w, "class_weight");  mp_vector(w, DT_F64, K, res->class_weight);
    mp_key(w, "train_counts");  mp_vector(w, DT_I64, K, res->counts);
    mp_key(w, "split_seed");    mp_int(w, o->split_seed);
    mp_key(w, "split_sizes");   mp_vector(w, DT_I64, 3, res->sizes);
    mp_key(w, "seed");          mp_int(w, o->seed);
    mp_key(w, "optimizer");     mp_str(w, "adam");
    mp_key(w, "lr");            mp_double(w, o->lr);
    mp_key(w, "l2");            mp_double(w, o->l2);
    mp_key(w, "batch");         mp_int(w, res->batch);
    mp_key(w, "max_epochs");    mp_int(w, o->max_epochs);
    mp_key(w, "patience");      mp_int(w, o->patience);
    mp_key(w, "epochs");        mp_int(w, res->epochs);
    mp_key(w, "best_epoch");    mp_int(w, res->best_epoch);
    mp_key(w, "val_balanced_accuracy"); mp_double(w, res->best_bacc);
    mp_key(w, "curve");
    mp_map(w, 2);
    mp_key(w, "loss");                  mp_vector(w, DT_F64, res->epochs, res->curve_loss);
    mp_key(w, "val_balanced_accuracy"); mp_vector(w, DT_F64, res->epochs, res->curve_bacc);
}

static void train_record(struct writer *w, const struct record *rec, void *context)
{
    const struct lc_options *o = context;
    if (record_has(rec, "kind"))
        record_expect_kind(rec, "graph");
    int64_t m = record_int(rec, "m");
    if (m < 1)
        record_die(rec, "'m' is %lld, expected at least 1 edge", (long long)m);
    struct cli_list names;
    cli_list_split(&names, o->inputs);
    struct lc_inputs in;
    lc_inputs_view(&in, rec, &names, m);
    uint8_t *label = record_vector(rec, "label", DT_U8, m);
    for (int64_t e = 0; e < m; e++)
        if (label[e] >= K)
            record_die(rec, "'label' entry %lld is %d, expected 0, 1 or 2", (long long)e, label[e]);
    struct result res = {0};
    uint8_t *split = xmalloc((size_t)m), *pred_label = xmalloc((size_t)m);
    float *pred_proba = xmalloc(sizeof *pred_proba * (size_t)m * K);
    lc_split(split, m, (uint64_t)o->split_seed, res.sizes);
    if (res.sizes[0] < 1)
        record_die(rec, "%lld edges leave no train edge (80%% of m)", (long long)m);
    train(&res, &in, label, split, o, rec->index, pred_label, pred_proba);

    lc_begin_output(w, rec, added_keys, 4, o->drop);
    mp_key(w, "split");      mp_vector(w, DT_U8, m, split);
    mp_key(w, "pred_label"); mp_vector(w, DT_U8, m, pred_label);
    mp_key(w, "pred_proba"); mp_tensor(w, DT_F32, 2, (int64_t[]){m, K}, pred_proba);
    mp_key(w, "lc_model");   write_model(w, &in, &res, o);

    free(res.mean);
    free(res.std);
    free(res.W);
    free(res.b);
    free(res.curve_loss);
    free(res.curve_bacc);
    free(split);
    free(pred_label);
    free(pred_proba);
    free(label);
    cli_list_free(&names);
}

void lc_train_run(FILE *in, const char *in_name, FILE *out, const struct lc_options *o)
{
    stream_map_graphs(in, in_name, out, train_record, (void *)o, o->threads);
}
