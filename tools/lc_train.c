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
 * EVAL_BLOCK rows in an evaluation, STAT_BLOCK rows for the statistics);
 * each block writes its own slot and slots are summed in block order, so
 * the bits do not depend on the thread count.  OpenBLAS is set to one
 * thread: the parallelism is ours. */
#include "lc_train.h"
#include "cpus.h"
#include "die.h"
#include "metrics.h"
#include "rng.h"
#include "stream.h"
#include "tensor.h"
#include <cblas.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define K LC_CLASSES
enum { SUB = 256, EVAL_BLOCK = 4096, STAT_BLOCK = 65536 };

/* ---- a tiny thread pool: run fn(ctx, worker, workers) on every worker ------ */

struct pool {
    int n;
    pthread_t *tid;
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    uint64_t generation;
    int running;
    bool quit;
    void (*fn)(void *ctx, int worker, int workers);
    void *ctx;
};
struct pool_arg { struct pool *p; int id; };

static void *pool_worker(void *arg)
{
    struct pool *p = ((struct pool_arg *)arg)->p;
    int id = ((struct pool_arg *)arg)->id;
    free(arg);
    uint64_t seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->generation == seen && !p->quit)
            pthread_cond_wait(&p->go, &p->mu);
        if (p->quit)
            break;
        seen = p->generation;
        pthread_mutex_unlock(&p->mu);
        p->fn(p->ctx, id, p->n);
        pthread_mutex_lock(&p->mu);
        if (--p->running == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void pool_start(struct pool *p, int n)
{
    memset(p, 0, sizeof *p);
    p->n = n < 1 ? 1 : n;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    p->tid = xcalloc((size_t)p->n, sizeof *p->tid);
    for (int i = 1; i < p->n; i++) {
        struct pool_arg *a = xmalloc(sizeof *a);
        a->p = p;
        a->id = i;
        if (pthread_create(&p->tid[i], NULL, pool_worker, a))
            die(EX_SOFTWARE, "cannot start a thread:");
    }
}

static void pool_run(struct pool *p, void (*fn)(void *, int, int), void *ctx)
{
    if (p->n == 1) {
        fn(ctx, 0, 1);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ctx = ctx;
    p->running = p->n - 1;
    p->generation++;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    fn(ctx, 0, p->n);
    pthread_mutex_lock(&p->mu);
    while (p->running > 0)
        pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

static void pool_stop(struct pool *p)
{
    pthread_mutex_lock(&p->mu);
    p->quit = true;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (int i = 1; i < p->n; i++)
        pthread_join(p->tid[i], NULL);
    free(p->tid);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->done);
}

/* ---- split, batch size, class weights ------------------------------------- */

void lc_split(uint8_t *split, int64_t m, uint64_t seed, int64_t sizes[3])
{
    int64_t *perm = xmalloc(sizeof *perm * (size_t)(m ? m : 1));
    for (int64_t i = 0; i < m; i++)
        perm[i] = i;
    struct rng r;
    rng_init(&r, seed, rng_stream_id("lc-split"), 0);
    for (int64_t i = m - 1; i > 0; i--) {
        int64_t j = (int64_t)rng_below(&r, (uint64_t)i + 1);
        int64_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    /* int(0.8 * N) in float64, as the benchmark's script */
    int64_t train_end = (int64_t)(0.8 * (double)m), val_end = (int64_t)(0.9 * (double)m);
    for (int64_t i = 0; i < m; i++)
        split[perm[i]] = i < train_end ? LC_TRAIN : i < val_end ? LC_VAL : LC_TEST;
    sizes[0] = train_end;
    sizes[1] = val_end - train_end;
    sizes[2] = m - val_end;
    free(perm);
}

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

/* ---- inputs: tensors read in place ------------------------------------------ */

static const msgpack_object *map_value(const msgpack_object *o, const char *key)
{
    for (uint32_t i = 0; i < o->via.map.size; i++)
        if (mp_str_eq(&o->via.map.ptr[i].key, key))
            return &o->via.map.ptr[i].val;
    return NULL;
}

/* The f32[m] or f32[m, d] tensor under key, without copying its data: checks
 * what tensor_decode checks (record_tensor's messages), returns d. */
int lc_input_view(const struct record *rec, const char *key, int64_t m, const unsigned char **data)
{
    const msgpack_object *o = record_find(rec, key);
    if (!o)
        die_record(rec->index, "unknown input '%s' (no such key in the record)", key);
    if (o->type != MSGPACK_OBJECT_MAP || !tensor_is(o))
        die_record(rec->index, "'%s' is not a tensor (expected f32[m] or f32[m,d])", key);
    const msgpack_object *type = map_value(o, "type"), *shape = map_value(o, "shape"), *bin = map_value(o, "data");
    enum dtype dt;
    if (!type || !shape || !bin || (type->type != MSGPACK_OBJECT_STR && type->type != MSGPACK_OBJECT_BIN) ||
        shape->type != MSGPACK_OBJECT_ARRAY || (bin->type != MSGPACK_OBJECT_BIN && bin->type != MSGPACK_OBJECT_STR))
        die_record(rec->index, "'%s' is not a tensor (needs keys nd, type, shape, data)", key);
    const char *ts = type->type == MSGPACK_OBJECT_STR ? type->via.str.ptr : type->via.bin.ptr;
    uint32_t tl = type->type == MSGPACK_OBJECT_STR ? type->via.str.size : type->via.bin.size;
    if (!dtype_parse(ts, tl, &dt) || dt != DT_F32)
        die_record(rec->index, "'%s' has dtype %.*s, expected <f4", key, (int)(tl < 16 ? tl : 16), ts);
    uint32_t nd = shape->via.array.size;
    int64_t dims[2] = {0, 1};
    for (uint32_t i = 0; i < nd && i < 2; i++) {
        const msgpack_object *s = &shape->via.array.ptr[i];
        if (s->type != MSGPACK_OBJECT_POSITIVE_INTEGER || s->via.u64 > ((uint64_t)1 << 40))
            die_record(rec->index, "'%s' has a bad shape entry", key);
        dims[i] = (int64_t)s->via.u64;
    }
    if (nd < 1 || nd > 2)
        die_record(rec->index, "'%s' has %u dimensions, expected 1 or 2", key, nd);
    if (dims[0] != m)
        die_record(rec->index, "'%s' has %lld entries, expected %lld", key, (long long)dims[0], (long long)m);
    if (dims[1] < 1 || dims[1] > 1 << 20)
        die_record(rec->index, "'%s' has %lld columns, expected 1 to %d", key, (long long)dims[1], 1 << 20);
    const char *bytes = bin->type == MSGPACK_OBJECT_BIN ? bin->via.bin.ptr : bin->via.str.ptr;
    uint64_t nbytes = bin->type == MSGPACK_OBJECT_BIN ? bin->via.bin.size : bin->via.str.size;
    if (nbytes != (uint64_t)m * (uint64_t)dims[1] * 4)
        die_record(rec->index, "'%s' has %llu data bytes, expected %llu for shape and dtype <f4", key,
                   (unsigned long long)nbytes, (unsigned long long)m * (unsigned long long)dims[1] * 4);
    *data = (const unsigned char *)bytes;
    return (int)dims[1];
}

/* One raw row (q floats) of the inputs. */
static inline void input_row(float *v, const struct lc_inputs *in, int64_t e)
{
    for (int k = 0; k < in->count; k++) {
        size_t d = (size_t)in->dim[k];
        if (d == 1)
            memcpy(v, in->data[k] + (size_t)e * 4, 4);    /* inlined: one load */
        else
            memcpy(v, in->data[k] + (size_t)e * d * 4, d * 4);
        v += d;
    }
}

void lc_gather(float *x, const struct lc_inputs *in, const int64_t *rows, int64_t n,
               const float *shift, const float *scale)
{
    int q = in->q;
    /* Rows come in random order, so each is a cache miss per input; asking
     * for rows PREFETCH ahead keeps many misses in flight (about 8x faster
     * on three f32[m] inputs).  Wide rows: their first lines, the hardware
     * prefetcher follows the rest. */
    enum { PREFETCH = 16 };
    for (int64_t i = 0; i < n; i++) {
        if (i + PREFETCH < n) {
            size_t e = (size_t)rows[i + PREFETCH];
            for (int k = 0; k < in->count; k++) {
                const unsigned char *a = in->data[k] + e * (size_t)in->dim[k] * 4;
                __builtin_prefetch(a);
                if (in->dim[k] > 16)
                    __builtin_prefetch(a + 64);
            }
        }
        float *v = x + i * q;
        input_row(v, in, rows[i]);
        for (int j = 0; j < q; j++)
            v[j] = (v[j] - shift[j]) * scale[j];
    }
}

/* ---- standardisation statistics ----------------------------------------------- */

struct stat_job {
    const struct lc_inputs *in;
    const uint8_t *split;
    const float *pivot;          /* [q] the shift: the first train row */
    int64_t blocks;
    double *sum, *sq;            /* [blocks, q] */
    int64_t *count;              /* [blocks] */
    int64_t *bad;                /* [blocks] first non-finite entry (row*q + col), -1 none */
};

static void stat_block(void *ctx, int worker, int workers)
{
    struct stat_job *j = ctx;
    int q = j->in->q;
    float *v = xmalloc(sizeof *v * (size_t)q);
    for (int64_t bl = worker; bl < j->blocks; bl += workers) {
        double *sum = j->sum + bl * q, *sq = j->sq + bl * q;
        int64_t lo = bl * STAT_BLOCK, hi = lo + STAT_BLOCK < j->in->m ? lo + STAT_BLOCK : j->in->m, count = 0;
        j->bad[bl] = -1;
        memset(sum, 0, sizeof *sum * (size_t)q);
        memset(sq, 0, sizeof *sq * (size_t)q);
        for (int64_t e = lo; e < hi; e++) {
            input_row(v, j->in, e);
            for (int c = 0; c < q; c++)
                if (!isfinite(v[c]) && j->bad[bl] < 0)
                    j->bad[bl] = e * q + c;
            if (j->split[e] != LC_TRAIN)
                continue;
            count++;
            for (int c = 0; c < q; c++) {
                double d = (double)v[c] - j->pivot[c];
                sum[c] += d;
                sq[c] += d * d;
            }
        }
        j->count[bl] = count;
    }
    free(v);
}

void lc_standardize_stats(double *mean, double *std, const struct lc_inputs *in,
                          const uint8_t *split, long record, int threads)
{
    int q = in->q;
    float *pivot = xcalloc((size_t)q, sizeof *pivot);
    for (int64_t e = 0; e < in->m; e++)
        if (split[e] == LC_TRAIN) {
            input_row(pivot, in, e);
            break;
        }
    for (int c = 0; c < q; c++)
        if (!isfinite(pivot[c]))
            pivot[c] = 0;        /* reported below with the other non-finite entries */
    struct stat_job j = {in, split, pivot, (in->m + STAT_BLOCK - 1) / STAT_BLOCK, NULL, NULL, NULL, NULL};
    int64_t nb = j.blocks ? j.blocks : 1;
    j.sum = xcalloc((size_t)(nb * q), sizeof *j.sum);
    j.sq = xcalloc((size_t)(nb * q), sizeof *j.sq);
    j.count = xcalloc((size_t)nb, sizeof *j.count);
    j.bad = xcalloc((size_t)nb, sizeof *j.bad);
    struct pool p;
    pool_start(&p, threads);
    pool_run(&p, stat_block, &j);
    pool_stop(&p);
    for (int64_t bl = 0; bl < j.blocks; bl++)
        if (j.bad[bl] >= 0) {
            int64_t e = j.bad[bl] / q;
            int c = (int)(j.bad[bl] % q), k = 0;
            while (c >= in->dim[k])
                c -= in->dim[k++];
            float v;
            memcpy(&v, in->data[k] + ((size_t)e * in->dim[k] + c) * 4, 4);
            if (in->dim[k] == 1)
                die_record(record, "'%s' entry %lld is %s, expected a finite number", in->name[k], (long long)e,
                           isnan(v) ? "nan" : "inf");
            die_record(record, "'%s' entry [%lld, %d] is %s, expected a finite number", in->name[k], (long long)e, c,
                       isnan(v) ? "nan" : "inf");
        }
    int64_t n = 0;
    for (int64_t bl = 0; bl < j.blocks; bl++)
        n += j.count[bl];
    for (int c = 0; c < q; c++) {
        double s = 0, s2 = 0;
        for (int64_t bl = 0; bl < j.blocks; bl++) {
            s += j.sum[bl * q + c];
            s2 += j.sq[bl * q + c];
        }
        double mu = n ? s / (double)n : 0, var = n ? s2 / (double)n - mu * mu : 0;
        mean[c] = pivot[c] + mu;
        std[c] = var > 0 ? sqrt(var) : 0;
        /* a column constant up to round-off (or empty) is left unscaled, as StandardScaler does */
        if (!(std[c] > 1e-7 * fmax(fabs(mean[c]), 1e-30)) || !isfinite(std[c]))
            std[c] = 1;
    }
    free(j.sum);
    free(j.sq);
    free(j.count);
    free(j.bad);
    free(pivot);
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

static void step_blocks(void *ctx, int worker, int workers)
{
    struct train_job *j = ctx;
    struct scratch *s = &j->scr[worker];
    int q = j->in->q;
    int64_t slots = (j->nb + SUB - 1) / SUB;
    for (int64_t sl = worker; sl < slots; sl += workers) {
        int64_t lo = sl * SUB, n = j->nb - lo < SUB ? j->nb - lo : SUB;
        const int64_t *rows = j->batch + lo;
        lc_gather(s->x, j->in, rows, n, j->shift, j->scale);
        for (int64_t i = 0; i < n; i++)
            s->label[i] = j->label[rows[i]];
        j->loss[sl] = lc_block_gradient(j->gW + sl * q * K, j->gb + sl * K, s->work, s->x, s->label,
                                        j->mdl->W, j->mdl->b, j->class_weight, n, q, j->nb);
    }
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

static void eval_blocks(void *ctx, int worker, int workers)
{
    struct train_job *j = ctx;
    struct scratch *s = &j->scr[worker];
    int q = j->in->q;
    int64_t blocks = (j->eval_n + EVAL_BLOCK - 1) / EVAL_BLOCK;
    for (int64_t bl = worker; bl < blocks; bl += workers) {
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
}

/* Balanced accuracy of the model on rows (metrics.h's definition). */
static double evaluate(struct pool *p, struct train_job *j, const int64_t *rows, int64_t n)
{
    int64_t blocks = (n + EVAL_BLOCK - 1) / EVAL_BLOCK;
    j->eval_rows = rows;
    j->eval_n = n;
    j->confusion = xcalloc((size_t)(blocks ? blocks : 1) * K * K, sizeof *j->confusion);
    j->pred_label = NULL;
    j->pred_proba = NULL;
    pool_run(p, eval_blocks, j);
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

static void train(struct result *res, const struct lc_inputs *in, const uint8_t *label, const uint8_t *split,
                  const struct lc_options *o, long record, struct pool *p, uint8_t *pred_label, float *pred_proba)
{
    int q = in->q;
    int64_t m = in->m, n_train = res->sizes[0], n_val = res->sizes[1];
    int64_t *train_rows = xmalloc(sizeof *train_rows * (size_t)(n_train + 1));
    int64_t *val_rows = xmalloc(sizeof *val_rows * (size_t)(n_val + 1));
    for (int64_t e = 0, a = 0, v = 0; e < m; e++) {
        if (split[e] == LC_TRAIN)
            train_rows[a++] = e;
        else if (split[e] == LC_VAL)
            val_rows[v++] = e;
    }
    res->mean = xmalloc(sizeof *res->mean * (size_t)q);
    res->std = xmalloc(sizeof *res->std * (size_t)q);
    lc_standardize_stats(res->mean, res->std, in, split, record, p->n);
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

    struct scratch *scr = xcalloc((size_t)p->n, sizeof *scr);
    for (int w = 0; w < p->n; w++) {
        scr[w].x = xmalloc(sizeof(float) * (size_t)EVAL_BLOCK * q);
        scr[w].work = xmalloc(sizeof(float) * 2 * EVAL_BLOCK * K);
        scr[w].label = xmalloc(EVAL_BLOCK);
        scr[w].rows = xmalloc(sizeof(int64_t) * EVAL_BLOCK);
    }
    struct train_job j = {in, label, shift, scale, res->class_weight, &mdl, scr, NULL, 0,
                          xmalloc(sizeof(float) * (size_t)(slots * q * K)), xmalloc(sizeof(float) * (size_t)(slots * K)),
                          xmalloc(sizeof(double) * (size_t)slots), NULL, 0, NULL, NULL, NULL};
    double *mW = xcalloc((size_t)q * K, sizeof *mW), *vW = xcalloc((size_t)q * K, sizeof *vW);
    double mb[K] = {0}, vb[K] = {0}, *g = xmalloc(sizeof *g * (size_t)(q * K + K));
    const double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
    int64_t t = 0, since_best = 0;
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
        struct rng sr;
        rng_init(&sr, (uint64_t)o->seed, rng_stream_id("lc-order"), (uint64_t)epoch);
        for (int64_t i = n_train - 1; i > 0; i--) {
            int64_t k = (int64_t)rng_below(&sr, (uint64_t)i + 1), tmp = order[i];
            order[i] = order[k];
            order[k] = tmp;
        }
        double epoch_loss = 0;
        for (int64_t start = 0; start < n_train; start += B) {
            j.batch = order + start;
            j.nb = n_train - start < B ? n_train - start : B;
            pool_run(p, step_blocks, &j);
            int64_t used = (j.nb + SUB - 1) / SUB;
            for (int i = 0; i < q * K + K; i++)
                g[i] = 0;
            for (int64_t sl = 0; sl < used; sl++) {
                for (int i = 0; i < q * K; i++)
                    g[i] += j.gW[sl * q * K + i];
                for (int c = 0; c < K; c++)
                    g[q * K + c] += j.gb[sl * K + c];
                epoch_loss += j.loss[sl];
            }
            t++;
            double c1 = 1 - pow(beta1, (double)t), c2 = 1 - pow(beta2, (double)t);
            for (int i = 0; i < q * K + K; i++) {
                bool bias = i >= q * K;
                float *param = bias ? &mdl.b[i - q * K] : &mdl.W[i];
                double *mm = bias ? &mb[i - q * K] : &mW[i], *vv = bias ? &vb[i - q * K] : &vW[i];
                double gi = g[i] + (bias ? 0 : o->l2 * *param);
                *mm = beta1 * *mm + (1 - beta1) * gi;
                *vv = beta2 * *vv + (1 - beta2) * gi * gi;
                *param -= (float)(o->lr * (*mm / c1) / (sqrt(*vv / c2) + eps));
            }
        }
        double bacc = n_val ? evaluate(p, &j, val_rows, n_val) : NAN;
        res->curve_loss[epoch - 1] = epoch_loss / (double)n_train;
        res->curve_bacc[epoch - 1] = bacc;
        if (res->best_epoch == 0 || isnan(bacc) || bacc > res->best_bacc) {
            res->best_bacc = bacc;
            res->best_epoch = epoch;
            memcpy(res->W, mdl.W, sizeof(float) * (size_t)q * K);
            memcpy(res->b, mdl.b, sizeof(float) * K);
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

    /* predictions of the best epoch on every edge */
    memcpy(mdl.W, res->W, sizeof(float) * (size_t)q * K);
    memcpy(mdl.b, res->b, sizeof(float) * K);
    j.eval_rows = NULL;
    j.eval_n = m;
    j.confusion = NULL;
    j.pred_label = pred_label;
    j.pred_proba = pred_proba;
    pool_run(p, eval_blocks, &j);

    for (int w = 0; w < p->n; w++) {
        free(scr[w].x);
        free(scr[w].work);
        free(scr[w].label);
        free(scr[w].rows);
    }
    free(scr);
    free(j.gW);
    free(j.gb);
    free(j.loss);
    free(mW);
    free(vW);
    free(g);
    free(order);
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

/* Is key (a msgpack string) one of the comma-separated names of list? */
static bool key_listed(const msgpack_object *key, const char *list)
{
    const char *p = key->type == MSGPACK_OBJECT_STR ? key->via.str.ptr : key->via.bin.ptr;
    size_t n = key->type == MSGPACK_OBJECT_STR ? key->via.str.size : key->via.bin.size;
    for (const char *s = list; s && *s;) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        if (len == n && !memcmp(s, p, n))
            return true;
        s = end ? end + 1 : NULL;
    }
    return false;
}

void lc_begin_output(struct writer *w, const struct record *rec, const char *const *added_keys, int n_added,
                     const char *drop)
{
    if (!drop || !*drop) {
        writer_begin_enriched(w, rec, added_keys, n_added);
        return;
    }
    const msgpack_object_map *m = &rec->map->via.map;
    uint32_t kept = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass)
            mp_map(w, kept + (uint32_t)n_added);
        for (uint32_t i = 0; i < m->size; i++) {
            const msgpack_object *k = &m->ptr[i].key;
            bool added = false;
            for (int a = 0; a < n_added; a++)
                added = added || mp_str_eq(k, added_keys[a]);
            if (added || key_listed(k, drop))
                continue;
            if (!pass)
                kept++;
            else {
                mp_object(w, k);
                mp_object(w, &m->ptr[i].val);
            }
        }
    }
}

static void train_record(struct writer *w, const struct record *rec, const struct lc_options *o, struct pool *p)
{
    if (record_has(rec, "kind"))
        record_expect_kind(rec, "graph");
    int64_t m = record_int(rec, "m");
    if (m < 1)
        die_record(rec->index, "'m' is %lld, expected at least 1 edge", (long long)m);
    struct lc_inputs in = {0};
    in.m = m;
    char *names = xstrdup(o->inputs);
    for (char *save = NULL, *tok = strtok_r(names, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        in.name[in.count] = tok;
        in.dim[in.count] = lc_input_view(rec, tok, m, &in.data[in.count]);
        in.q += in.dim[in.count];
        in.count++;
    }
    uint8_t *label = record_vector(rec, "label", DT_U8, m);
    for (int64_t e = 0; e < m; e++)
        if (label[e] >= K)
            die_record(rec->index, "'label' entry %lld is %d, expected 0, 1 or 2", (long long)e, label[e]);
    struct result res = {0};
    uint8_t *split = xmalloc((size_t)m), *pred_label = xmalloc((size_t)m);
    float *pred_proba = xmalloc(sizeof *pred_proba * (size_t)m * K);
    lc_split(split, m, (uint64_t)o->split_seed, res.sizes);
    if (res.sizes[0] < 1)
        die_record(rec->index, "%lld edges leave no train edge (80%% of m)", (long long)m);
    train(&res, &in, label, split, o, rec->index, p, pred_label, pred_proba);

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
    free(names);
}

void lc_train_run(FILE *in, const char *in_name, FILE *out, const struct lc_options *o)
{
    struct reader rd;
    struct record rec;
    struct writer w;
    reader_init(&rd, in, in_name);
    /* a 5.8M-edge graph with an embedding is larger than the default limit;
     * msgpack's bin32 bounds each tensor to 4 GiB anyway */
    rd.max_record = (size_t)32 << 30;
    writer_init(&w, out);
    int threads = o->threads > 0 ? o->threads : cpus_usable();
    openblas_set_num_threads(1);
    struct pool p;
    pool_start(&p, threads);
    bool any = false;
    while (reader_next(&rd, &rec)) {
        train_record(&w, &rec, o, &p);
        any = true;
    }
    pool_stop(&p);
    if (!any)
        die(EX_DATAERR, "no graph records in the input");
    reader_free(&rd);
}
