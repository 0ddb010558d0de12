/* algo_record.c - what the entries' tool operations share (algo_record.h). */
#include "algo_record.h"
#include "die.h"
#include "rng.h"
#include "tensor.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void algo_need_key(const struct dar_algorithm *alg, const struct record *rec, const char *key, bool needed,
                   const char *why)
{
    if (needed && !record_has(rec, key))
        record_die(rec, "missing key '%s' (%s; run ff-trace --algorithm %s first)", key, why, alg->name);
}

void algo_check_flags(const struct record *rec, const char *key, const uint8_t *v, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        if (v[i] > 1)
            record_die(rec, "'%s' entry %lld is %d, expected 0 or 1", key, (long long)i, v[i]);
}

void algo_check_pointers(const struct record *rec, const char *key, const int32_t *v, int64_t count, int n)
{
    for (int64_t i = 0; i < count; i++)
        if (v[i] < 0 || v[i] >= n)
            record_die(rec, "'%s' entry %lld is %d, outside 0..%d", key, (long long)i, v[i], n - 1);
}

float *algo_read_amounts(const struct record *rec, const char *key, int ndim, const int64_t *shape)
{
    struct tensor t;
    record_tensor(rec, key, DT_F64, ndim, shape, &t);
    int64_t count = ndim == 2 ? shape[0] * shape[1] : shape[0];
    const double *d = t.data;
    float *out = xmalloc(sizeof *out * (size_t)(count + 1));
    for (int64_t i = 0; i < count; i++) {
        if (!isfinite(d[i]))
            record_die(rec, "'%s' entry %lld is %g, expected a finite number", key, (long long)i, d[i]);
        out[i] = (float)d[i];
    }
    tensor_free(&t);
    return out;
}

void algo_read_instance(const struct dar_algorithm *alg, struct graph *g, const struct record *rec)
{
    graph_read_instance(g, rec, alg->instance_keys, alg->ninstance_keys, alg->name);
}

void algo_random_flow(struct rng *r, const struct graph *g, float *flow)
{
    for (int e = 0; e < g->m; e++) {
        double forward = rng_normal(r), backward = rng_normal(r);
        flow[e] = (float)(g->cap[e] * tanh(forward - backward));
        if (g->directed && flow[e] < 0)
            flow[e] = 0;
    }
}

void algo_all_rounds(struct dar_graph *dg, int T)
{
    dg->steps = T;
    dg->phase = xmalloc((size_t)T);
    memset(dg->phase, 1, (size_t)T);
}

void algo_predict_batches(struct dar_model *model, struct dar_workspace *ws, struct dar_graph *graphs, int count,
                          int probe, bool on_edges, double *kappa,
                          void (*score)(const struct dar_graph *g, const void *pred, void *ctx), void *ctx)
{
    enum { EVAL_BATCH = 32 };
    for (int first = 0; first < count; first += EVAL_BATCH) {
        int B = count - first < EVAL_BATCH ? count - first : EVAL_BATCH;
        struct dar_graph *batch[EVAL_BATCH];
        struct dar_prediction pred[EVAL_BATCH];
        memset(pred, 0, sizeof pred);
        for (int b = 0; b < B; b++) {
            batch[b] = &graphs[first + b];
            int width = on_edges ? batch[b]->g.m : batch[b]->g.n;
            pred[b].probe[probe] = xcalloc((size_t)width + 1, 4);
        }
        dar_predict(model, ws, batch, B, DAR_EMBED_LAST, pred);
        if (kappa)
            *kappa += 1 + (double)model->config.algorithm->nets_per_step * dar_batch_steps(batch, B);
        for (int b = 0; b < B; b++) {
            score(batch[b], pred[b].probe[probe], ctx);
            free(pred[b].probe[probe]);
        }
    }
}

void algo_predict(const struct dar_algorithm *alg, struct writer *w, const struct record *rec,
                  struct dar_model *model, struct dar_workspace *ws, bool hints, bool embed,
                  const struct algo_prediction *outs, int nouts, void (*steps_of)(struct dar_graph *dg),
                  void (*finish)(struct dar_prediction *p, const struct dar_graph *dg, bool dual))
{
    if (embed)
        die(EX_USAGE, "--embed: the %s model has no node embeddings to give (max-flow's have)", alg->name);
    const char *keys[DAR_MAX_PROBES];
    int nkeys = 0;
    bool dual = model->config.variant == DAR_DUAL, frames = hints && model->config.variant != DAR_NO_ALGO;
    struct dar_graph dg;
    alg->read_graph(&dg, rec, 0);
    if (!dg.phase)
        steps_of(&dg);
    int64_t T = dg.steps, count[DAR_MAX_PROBES] = {0};
    bool wanted[DAR_MAX_PROBES] = {0};
    struct dar_prediction p = {0};
    for (int o = 0; o < nouts; o++) {
        const struct algo_prediction *out = &outs[o];
        if ((out->hint && !frames) || (out->dual && !dual))
            continue;
        count[o] = alg->probes[out->probe].location == DAR_LOCATION_EDGE ? dg.g.m : dg.g.n;
        p.probe[out->probe] = xcalloc((size_t)((out->hint ? T : 1) * count[o]) + 1, dtype_size(out->dtype));
        wanted[o] = true;
        keys[nkeys++] = out->key;
    }
    struct dar_graph *batch[1] = {&dg};
    dar_predict(model, ws, batch, 1, DAR_EMBED_LAST, &p);
    if (finish)
        finish(&p, &dg, dual);
    writer_begin_enriched(w, rec, keys, nkeys);
    for (int o = 0; o < nouts; o++) {
        if (!wanted[o])
            continue;
        mp_key(w, outs[o].key);
        if (outs[o].hint)
            mp_tensor(w, outs[o].dtype, 2, (int64_t[]){T, count[o]}, p.probe[outs[o].probe]);
        else
            mp_vector(w, outs[o].dtype, count[o], p.probe[outs[o].probe]);
    }
    for (int q = 0; q < DAR_MAX_PROBES; q++)
        free(p.probe[q]);
    dar_graph_free(&dg);
}
