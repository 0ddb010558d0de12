/* classify.c - the per-edge classifiers' common ground (lc-train,
 * gnn-train): the benchmark's split, inputs read in place from a record,
 * their standardisation, and the output record without the dropped keys.
 *
 * Determinism: the statistics are computed per block of STAT_BLOCK rows,
 * each block in its own slot, slots summed in block order, so the bits do
 * not depend on the thread count. */
#include "classify.h"
#include "cli.h"
#include "die.h"
#include "rng.h"
#include "stream.h"
#include "tensor.h"
#include "workers.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { STAT_BLOCK = 65536 };

/* ---- split ---------------------------------------------------------------- */

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

/* ---- inputs: tensors read in place ------------------------------------------ */

/* The f32[m] or f32[m, d] tensor under key, without copying its data: the
 * tensor codec's checks (record_tensor's messages), then the shape; returns d. */
int lc_input_view(const struct record *rec, const char *key, int64_t m, const unsigned char **data)
{
    const msgpack_object *o = record_find(rec, key);
    if (!o)
        record_die(rec, "unknown input '%s' (no such key in the record)", key);
    if (!tensor_is(o))
        record_die(rec, "'%s' is not a tensor (expected f32[m] or f32[m,d])", key);
    struct tensor_view v;
    char err[160];
    if (!tensor_view(o, &v, err, sizeof err))
        record_die(rec, "'%s' %s", key, err);
    if (v.dtype != DT_F32)
        record_die(rec, "'%s' has dtype %s, expected <f4", key, dtype_name(v.dtype));
    if (v.ndim < 1 || v.ndim > 2)
        record_die(rec, "'%s' has %d dimensions, expected 1 or 2", key, v.ndim);
    int64_t columns = v.ndim == 2 ? v.shape[1] : 1;
    if (v.shape[0] != m)
        record_die(rec, "'%s' has %lld entries, expected %lld", key, (long long)v.shape[0], (long long)m);
    if (columns < 1 || columns > 1 << 20)
        record_die(rec, "'%s' has %lld columns, expected 1 to %d", key, (long long)columns, 1 << 20);
    *data = v.data;
    return (int)columns;
}

void lc_inputs_view(struct lc_inputs *in, const struct record *rec, const struct cli_list *names, int64_t m)
{
    memset(in, 0, sizeof *in);
    in->m = m;
    in->source = rec->source;
    if (names->count > LC_MAX_INPUTS)
        record_die(rec, "more than %d keys in one list", LC_MAX_INPUTS);
    for (int i = 0; i < names->count; i++) {
        in->name[in->count] = names->items[i];
        in->dim[in->count] = lc_input_view(rec, names->items[i], m, &in->data[in->count]);
        in->q += in->dim[in->count];
        in->count++;
    }
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
     * for rows PREFETCH ahead keeps many misses in flight (an epoch of
     * tests/bench/lc-train.sh is mostly these misses).  Wide rows: their
     * first lines, the hardware prefetcher follows the rest. */
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

static void stat_block(void *ctx, int64_t bl, int worker)
{
    struct stat_job *j = ctx;
    int q = j->in->q;
    float *v = xmalloc(sizeof *v * (size_t)q);
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
    free(v);
}

void lc_standardize_stats(double *mean, double *std, const struct lc_inputs *in,
                          const uint8_t *split, long record)
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
    workers_run(j.blocks, stat_block, &j);
    for (int64_t bl = 0; bl < j.blocks; bl++)
        if (j.bad[bl] >= 0) {
            int64_t e = j.bad[bl] / q;
            int c = (int)(j.bad[bl] % q), k = 0;
            while (c >= in->dim[k])
                c -= in->dim[k++];
            float v;
            memcpy(&v, in->data[k] + ((size_t)e * in->dim[k] + c) * 4, 4);
            if (in->dim[k] == 1)
                die_record_in(in->source, record, "'%s' entry %lld is %s, expected a finite number", in->name[k],
                              (long long)e, isnan(v) ? "nan" : "inf");
            die_record_in(in->source, record, "'%s' entry [%lld, %d] is %s, expected a finite number", in->name[k],
                          (long long)e, c, isnan(v) ? "nan" : "inf");
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


/* ---- the output record ---------------------------------------------------- */

/* Is key (a msgpack string) one of the names of list? */
static bool key_listed(const msgpack_object *key, const struct cli_list *list)
{
    const char *p;
    size_t n;
    return mp_string_view(key, &p, &n) && cli_list_has(list, p, n);
}

void lc_begin_output(struct writer *w, const struct record *rec, const char *const *added_keys, int n_added,
                     const char *drop)
{
    if (!drop || !*drop) {
        writer_begin_enriched(w, rec, added_keys, n_added);
        return;
    }
    const msgpack_object_map *m = &rec->map->via.map;
    struct cli_list dropped;
    cli_list_split(&dropped, drop);
    uint32_t kept = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass)
            mp_map(w, kept + (uint32_t)n_added);
        for (uint32_t i = 0; i < m->size; i++) {
            const msgpack_object *k = &m->ptr[i].key;
            bool added = false;
            for (int a = 0; a < n_added; a++)
                added = added || mp_str_eq(k, added_keys[a]);
            if (added || key_listed(k, &dropped))
                continue;
            if (!pass)
                kept++;
            else {
                mp_object(w, k);
                mp_object(w, &m->ptr[i].val);
            }
        }
    }
    cli_list_free(&dropped);
}
