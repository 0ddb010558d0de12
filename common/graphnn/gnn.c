/* gnn.c - GCN / GraphSAGE forward and backward (gnn.h).
 *
 * Memory of a training pass: the L activations h_l [n, H], one scratch
 * buffer [n, max(C, H)] and a bit mask of the same count.  The backward pass
 * walks the layers down and writes every gradient over the activation it
 * belongs to: once conv l's weight gradients have read h_{l-1}, its
 * relu/dropout mask is saved as bits and h_{l-1}'s buffer receives dh_{l-1},
 * masked in place into dz_{l-1}.  The SAGE aggregate M h_{l-1} is recomputed
 * rather than stored, except the last layer's, which the forward pass leaves
 * in the scratch buffer. */
#include "gnn.h"
#include "die.h"
#include "layers.h"
#include "parallel.h"
#include "rng.h"
#include "sparse.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DROP_BLOCK = 1024 };

static struct param *add_param(struct gnn_model *m, const char *name, int64_t rows, int64_t cols)
{
    int64_t count = cols ? rows * cols : rows;
    if (m->nparams == GNN_MAX_PARAMS)
        die(EX_SOFTWARE, "too many parameters");
    int k = m->nparams++;
    snprintf(m->names[k], sizeof m->names[k], "%s", name);
    struct param *p = &m->params[k];
    p->name = m->names[k];
    p->count = count;
    m->shape[k][0] = rows;
    m->shape[k][1] = cols;
    p->value = xcalloc((size_t)(count ? count : 1), sizeof(float));
    p->grad = xcalloc((size_t)(count ? count : 1), sizeof(float));
    return p;
}

struct param *gnn_param(struct gnn_model *m, const char *name)
{
    for (int k = 0; k < m->nparams; k++)
        if (!strcmp(m->names[k], name))
            return &m->params[k];
    return NULL;
}

static const float *value_of(const struct gnn_model *m, const char *name)
{
    return gnn_param((struct gnn_model *)m, name)->value;
}

void gnn_model_init(struct gnn_model *m, const struct gnn_config *cfg, uint64_t seed)
{
    memset(m, 0, sizeof *m);
    m->cfg = *cfg;
    if (cfg->layers < 1 || cfg->layers > GNN_MAX_LAYERS)
        die(EX_SOFTWARE, "%d layers, expected 1 to %d", cfg->layers, GNN_MAX_LAYERS);
    struct rng r;
    rng_init(&r, seed, rng_stream_id("gnn-init"), 0);
    int H = cfg->hidden;
    char name[32];
    for (int l = 1; l <= cfg->layers; l++) {
        int C = l == 1 ? cfg->inputs : H;
        if (cfg->conv == GNN_SAGE) {
            snprintf(name, sizeof name, "conv%d.lin_l.weight", l);
            struct param *w = add_param(m, name, H, C);
            snprintf(name, sizeof name, "conv%d.lin_l.bias", l);
            struct param *b = add_param(m, name, H, 0);
            linear_init(w->value, b->value, C, H, &r);
            snprintf(name, sizeof name, "conv%d.lin_r.weight", l);
            w = add_param(m, name, H, C);
            linear_init(w->value, NULL, C, H, &r);
        } else {
            snprintf(name, sizeof name, "conv%d.weight", l);
            struct param *w = add_param(m, name, H, C);
            double bound = sqrt(6.0 / (double)(C + H));
            for (int64_t i = 0; i < w->count; i++)
                w->value[i] = (float)((2.0 * rng_uniform(&r) - 1.0) * bound);
            snprintf(name, sizeof name, "conv%d.bias", l);
            add_param(m, name, H, 0);
        }
    }
    int fan_in = H + cfg->embed;
    struct param *wh = add_param(m, "head.weight_h", GNN_CLASSES, H);
    param_init_uniform(wh->value, wh->count, fan_in, &r);
    if (cfg->embed > 0) {
        struct param *we = add_param(m, "head.weight_e", GNN_CLASSES, cfg->embed);
        param_init_uniform(we->value, we->count, fan_in, &r);
    }
    struct param *b = add_param(m, "head.bias", GNN_CLASSES, 0);
    param_init_uniform(b->value, b->count, fan_in, &r);
}

void gnn_model_free(struct gnn_model *m)
{
    for (int k = 0; k < m->nparams; k++) {
        free(m->params[k].value);
        free(m->params[k].grad);
    }
    memset(m, 0, sizeof *m);
}

void gnn_work_alloc(struct gnn_work *w, const struct gnn_config *cfg, int64_t n)
{
    memset(w, 0, sizeof *w);
    w->n = n;
    size_t rows = (size_t)(n ? n : 1), H = (size_t)cfg->hidden;
    size_t wide = (size_t)(cfg->inputs > cfg->hidden ? cfg->inputs : cfg->hidden);
    for (int l = 1; l <= cfg->layers; l++)
        w->h[l] = xmalloc(sizeof(float) * rows * H);
    w->a = xmalloc(sizeof(float) * rows * wide);
    w->mask = xmalloc(sizeof(uint64_t) * ((rows * wide + 63) / 64));
    w->logits = xmalloc(sizeof(float) * rows * GNN_CLASSES);
    w->dlogits = xmalloc(sizeof(float) * rows * GNN_CLASSES);
}

void gnn_work_free(struct gnn_work *w)
{
    for (int l = 0; l <= GNN_MAX_LAYERS; l++)
        free(w->h[l]);
    free(w->a);
    free(w->mask);
    free(w->logits);
    free(w->dlogits);
    memset(w, 0, sizeof *w);
}

/* ---- relu + dropout ------------------------------------------------------------- */

struct dropout_job {
    float *h;
    int64_t n;
    int H;
    float p;
    uint64_t seed, stream;
};

/* relu then dropout of one unit, without branches (half the units drop at
 * random, which no branch predictor guesses): the result's bits are
 * relu(v) · keep masked by all-ones when kept, zero when dropped or v <= 0. */
static inline void dropout_unit(float *h, uint32_t draw, uint64_t threshold, float keep)
{
    float v = *h * keep;
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    uint32_t kept = -(uint32_t)(draw >= threshold);
    u &= kept & ~(uint32_t)((int32_t)u >> 31);      /* a negative value (sign bit) becomes +0 */
    memcpy(h, &u, sizeof u);
}

/* Blocks [lo, hi) of DROP_BLOCK rows; two 32-bit draws per rng_u64 call:
 * unit i is dropped when its draw is below p · 2^32. */
static void dropout_blocks(void *ctx, int64_t lo, int64_t hi)
{
    const struct dropout_job *j = ctx;
    float keep = 1.0f / (1.0f - j->p);
    uint64_t threshold = (uint64_t)((double)j->p * 4294967296.0);
    for (int64_t block = lo; block < hi; block++) {
        struct rng r;
        rng_init(&r, j->seed, rng_stream_id("gnn-dropout"), j->stream + (uint64_t)block);
        int64_t first = block * DROP_BLOCK * j->H;
        int64_t last = (block + 1) * DROP_BLOCK < j->n ? (block + 1) * DROP_BLOCK * j->H : j->n * j->H;
        for (int64_t i = first; i < last; i += 2) {
            uint64_t bits = rng_u64(&r);
            dropout_unit(&j->h[i], (uint32_t)bits, threshold, keep);
            if (i + 1 < last)
                dropout_unit(&j->h[i + 1], (uint32_t)(bits >> 32), threshold, keep);
        }
    }
}

void relu_dropout_forward(float *h, int64_t n, int H, float p, uint64_t seed, int64_t step, int layer, int threads)
{
    if (p <= 0) {
        relu_forward(h, h, n * H);
        return;
    }
    struct dropout_job j = {h, n, H, p, seed, ((uint64_t)step * 64 + (uint64_t)layer) << 24};
    parallel_rows(threads, (n + DROP_BLOCK - 1) / DROP_BLOCK, 8, dropout_blocks, &j);
}

void relu_dropout_backward(float *dz, const float *dh, const float *h, int64_t count, float p)
{
    float keep = p > 0 ? 1.0f / (1.0f - p) : 1.0f;
    for (int64_t i = 0; i < count; i++)
        dz[i] = h[i] > 0 ? dh[i] * keep : 0.0f;
}

/* Words of mask bits (64 units each) per piece of the passes below. */
enum { MASK_GRAIN = 4096 };

struct mask_job {
    float *h;
    uint64_t *bits;
    int64_t count;
    float keep;
};

/* bits[i] = h[i] > 0, then h[i] = 0: the relu/dropout mask of a stored
 * activation, kept while its buffer is zeroed to receive its gradient. */
static void mask_pack_clear_words(void *ctx, int64_t lo, int64_t hi)
{
    const struct mask_job *j = ctx;
    for (int64_t w = lo; w < hi; w++) {
        float *v = j->h + w * 64;
        int n = j->count - w * 64 < 64 ? (int)(j->count - w * 64) : 64;
        uint64_t b = 0;
        for (int k = 0; k < n; k++)
            b |= (uint64_t)(v[k] > 0) << k;
        j->bits[w] = b;
        memset(v, 0, sizeof *v * (size_t)n);
    }
}

static void mask_pack_clear(uint64_t *bits, float *h, int64_t count, int threads)
{
    struct mask_job j = {h, bits, count, 0};
    parallel_rows(threads, (count + 63) / 64, MASK_GRAIN, mask_pack_clear_words, &j);
}

/* dz = dh / (1 - p) where the bit is set, else 0, in place: relu_dropout_backward from the bits. */
static void mask_apply_words(void *ctx, int64_t lo, int64_t hi)
{
    const struct mask_job *j = ctx;
    for (int64_t w = lo; w < hi; w++) {
        float *v = j->h + w * 64;
        int n = j->count - w * 64 < 64 ? (int)(j->count - w * 64) : 64;
        uint64_t b = j->bits[w];
        for (int k = 0; k < n; k++) {  /* no branch: the bits are random under dropout */
            float x = v[k] * j->keep;
            uint32_t u;
            memcpy(&u, &x, sizeof u);
            u &= -(uint32_t)(b >> k & 1);
            memcpy(&v[k], &u, sizeof u);
        }
    }
}

static void mask_apply(float *dz, const uint64_t *bits, int64_t count, float p, int threads)
{
    struct mask_job j = {dz, (uint64_t *)bits, count, p > 0 ? 1.0f / (1.0f - p) : 1.0f};
    parallel_rows(threads, (count + 63) / 64, MASK_GRAIN, mask_apply_words, &j);
}

static void clear_words(void *ctx, int64_t lo, int64_t hi)
{
    const struct mask_job *j = ctx;
    int64_t first = lo * 64, last = hi * 64 < j->count ? hi * 64 : j->count;
    memset(j->h + first, 0, sizeof(float) * (size_t)(last - first));
}

/* h[count] = 0, on the threads: a buffer about to receive a product's accumulation. */
static void clear(float *h, int64_t count, int threads)
{
    struct mask_job j = {h, NULL, count, 0};
    parallel_rows(threads, (count + 63) / 64, MASK_GRAIN, clear_words, &j);
}

struct column_sum_job {
    double *sum;
    const float *dz;
    int64_t n;
    int H;
};

/* sum[c] += dz[i, c] over the rows in order, for columns [lo, hi). */
static void column_sum_columns(void *ctx, int64_t lo, int64_t hi)
{
    const struct column_sum_job *j = ctx;
    for (int64_t i = 0; i < j->n; i++)
        for (int64_t c = lo; c < hi; c++)
            j->sum[c] += j->dz[i * j->H + c];
}

/* bias_grad[c] += the sum of column c of dz [n, H], in double (millions of
 * rows) and row order; columns split over threads. */
static void bias_grad_columns(float *bias_grad, const float *dz, int64_t n, int H, int threads)
{
    double *sum = xcalloc((size_t)H, sizeof *sum);
    struct column_sum_job j = {sum, dz, n, H};
    parallel_rows(threads, H, 16, column_sum_columns, &j);
    for (int c = 0; c < H; c++)
        bias_grad[c] += (float)sum[c];
    free(sum);
}

/* ---- forward ------------------------------------------------------------------------ */

void gnn_forward(struct gnn_work *w, const struct gnn_model *m, const struct gnn_graph *gr, bool training,
                 uint64_t seed, int64_t step, int threads)
{
    const struct gnn_config *cfg = &m->cfg;
    int64_t n = gr->g->n;
    int H = cfg->hidden;
    char name[32];
    const float *in = gr->x;
    for (int l = 1; l <= cfg->layers; l++) {
        int C = l == 1 ? cfg->inputs : H;
        float *out = w->h[l];
        if (cfg->conv == GNN_SAGE) {
            sparse_mean_forward(w->a, in, gr->g, C, threads);
            snprintf(name, sizeof name, "conv%d.lin_l.weight", l);
            const float *wl = value_of(m, name);
            snprintf(name, sizeof name, "conv%d.lin_l.bias", l);
            const float *bl = value_of(m, name);
            snprintf(name, sizeof name, "conv%d.lin_r.weight", l);
            const float *wr = value_of(m, name);
            linear_forward(out, w->a, wl, bl, n, C, H);
            linear_forward_accumulate(out, in, wr, NULL, n, C, H);
        } else {
            snprintf(name, sizeof name, "conv%d.weight", l);
            linear_forward(w->a, in, value_of(m, name), NULL, n, C, H);
            snprintf(name, sizeof name, "conv%d.bias", l);
            sparse_gcn_forward(out, w->a, gr->scale, value_of(m, name), gr->g, H, threads);
        }
        relu_dropout_forward(out, n, H, training ? cfg->dropout : 0.0f, seed, step, l, threads);
        in = out;
    }
    linear_forward(w->logits, in, value_of(m, "head.weight_h"), value_of(m, "head.bias"), n, H, GNN_CLASSES);
    if (cfg->embed > 0)
        linear_forward_accumulate(w->logits, gr->e, value_of(m, "head.weight_e"), NULL, n, cfg->embed, GNN_CLASSES);
}

/* ---- loss and backward -------------------------------------------------------------- */

double gnn_loss_backward(struct gnn_work *w, struct gnn_model *m, const struct gnn_graph *gr, const int32_t *label,
                         const float *row_weight, bool backward, int threads)
{
    const struct gnn_config *cfg = &m->cfg;
    int64_t n = gr->g->n;
    int H = cfg->hidden, L = cfg->layers;
    double total = 0;
    for (int64_t i = 0; i < n; i++)
        total += row_weight[i];
    if (!(total > 0))
        return 0;
    float *dlogits = backward ? w->dlogits : NULL;
    if (dlogits)
        memset(dlogits, 0, sizeof(float) * (size_t)n * GNN_CLASSES);
    double loss = softmax_cross_entropy(dlogits, w->logits, label, row_weight, (float)(1.0 / total), n, GNN_CLASSES);
    if (!backward)
        return loss;
    float p = cfg->dropout;
    /* head: its weight gradients read h_L; then h_L's buffer receives dh_L,
     * masked by relu/dropout (the mask saved as bits first) into dz_L */
    struct param *wh = gnn_param(m, "head.weight_h"), *bh = gnn_param(m, "head.bias");
    linear_backward(NULL, wh->grad, bh->grad, dlogits, w->h[L], wh->value, n, H, GNN_CLASSES);
    if (cfg->embed > 0) {
        struct param *we = gnn_param(m, "head.weight_e");
        linear_backward(NULL, we->grad, NULL, dlogits, gr->e, we->value, n, cfg->embed, GNN_CLASSES);
    }
    mask_pack_clear(w->mask, w->h[L], (int64_t)n * H, threads);
    linear_backward(w->h[L], NULL, NULL, dlogits, NULL, wh->value, n, H, GNN_CLASSES);
    mask_apply(w->h[L], w->mask, (int64_t)n * H, p, threads);
    char name[32];
    for (int l = L; l >= 1; l--) {
        int C = l == 1 ? cfg->inputs : H;
        float *dz = w->h[l];
        const float *in = l == 1 ? gr->x : w->h[l - 1];
        float *din = l > 1 ? w->h[l - 1] : NULL;     /* no gradient for x; else over h_{l-1} once read */
        if (cfg->conv == GNN_SAGE) {
            snprintf(name, sizeof name, "conv%d.lin_l.weight", l);
            struct param *wl = gnn_param(m, name);
            snprintf(name, sizeof name, "conv%d.lin_l.bias", l);
            struct param *bl = gnn_param(m, name);
            snprintf(name, sizeof name, "conv%d.lin_r.weight", l);
            struct param *wr = gnn_param(m, name);
            linear_backward(NULL, wr->grad, NULL, dz, in, wr->value, n, C, H);
            if (l < L)      /* the last layer's is still in w->a from the forward pass */
                sparse_mean_forward(w->a, in, gr->g, C, threads);      /* the aggregate again */
            linear_backward(NULL, wl->grad, bl->grad, dz, w->a, wl->value, n, C, H);
            if (din) {
                clear(w->a, (int64_t)n * C, threads);
                linear_backward(w->a, NULL, NULL, dz, NULL, wl->value, n, C, H);   /* d(M h) */
                mask_pack_clear(w->mask, din, (int64_t)n * C, threads);
                linear_backward(din, NULL, NULL, dz, NULL, wr->value, n, C, H);
                sparse_mean_backward_in_place(din, w->a, gr->g, C, threads);
            }
        } else {
            snprintf(name, sizeof name, "conv%d.weight", l);
            struct param *wt = gnn_param(m, name);
            snprintf(name, sizeof name, "conv%d.bias", l);
            struct param *bias = gnn_param(m, name);
            bias_grad_columns(bias->grad, dz, n, H, threads);
            clear(w->a, (int64_t)n * H, threads);
            sparse_gcn_backward(w->a, dz, gr->scale, gr->g, H, threads);  /* d(h Wᵀ) = Â dz */
            linear_backward(NULL, wt->grad, NULL, w->a, in, wt->value, n, C, H);
            if (din) {
                mask_pack_clear(w->mask, din, (int64_t)n * C, threads);
                linear_backward(din, NULL, NULL, w->a, NULL, wt->value, n, C, H);
            }
        }
        if (din)
            mask_apply(din, w->mask, (int64_t)n * C, p, threads);
    }
    return loss;
}
