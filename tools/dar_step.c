/* dar_step.c - predictions of a trained model (or the random baseline) added
 * to graph records.
 *
 * The model follows the trace's phase flags and length, as the paper's
 * evaluation does.  A graph that was only generated (no trace) gets them from
 * running Ford-Fulkerson here: only the flags and the length are used, no
 * hint or solution enters the model.  The random baseline (paper §4.1, the
 * proposal of dar-reference.md §3.7) needs neither: F = C tanh(R - R^T) with R
 * standard normal on the two arcs of each edge, and a cut probability
 * U(0,1) per node. */
#include "dar_step.h"
#include "die.h"
#include "graph.h"
#include "maxflow.h"
#include "rng.h"
#include "stream.h"
#include "tensor.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Phase flags and length from the algorithm itself, for untraced graphs. */
static void phases_from_algorithm(struct dar_graph *dg)
{
    struct graph *g = &dg->g;
    int64_t *cap = xmalloc(sizeof *cap * (size_t)(g->m + 1)), *flow = xmalloc(sizeof *flow * (size_t)(g->m + 1));
    uint8_t *cut = xmalloc((size_t)g->n);
    graph_capacity_units(g, cap);
    struct flownet net = {g->n, g->m, g->s, g->t, g->directed, g->src, g->dst, cap, g->w};
    struct trace tr;
    maxflow_trace(&net, &tr, flow, cut);
    dg->steps = tr.steps;
    dg->phase = xmalloc((size_t)tr.steps);
    memcpy(dg->phase, tr.phase, (size_t)tr.steps);
    trace_free(&tr);
    free(cap);
    free(flow);
    free(cut);
}

static void random_record(struct writer *w, const struct record *rec, uint64_t seed)
{
    static const char *const keys[] = {"pred_flow", "pred_cut"};
    struct graph g;
    graph_read(&g, rec);
    struct rng r;
    rng_init(&r, seed, rng_stream_id("random-baseline"), (uint64_t)rec->index);
    float *flow = xmalloc(sizeof *flow * (size_t)(g.m + 1)), *cut = xmalloc(sizeof *cut * (size_t)g.n);
    for (int e = 0; e < g.m; e++) {
        double forward = rng_normal(&r), backward = rng_normal(&r);
        flow[e] = (float)(g.cap[e] * tanh(forward - backward));
        if (g.directed && flow[e] < 0)
            flow[e] = 0;
    }
    for (int v = 0; v < g.n; v++)
        cut[v] = rng_uniform_f32(&r);
    writer_begin_enriched(w, rec, keys, 2);
    mp_key(w, "pred_flow"); mp_vector(w, DT_F32, g.m, flow);
    mp_key(w, "pred_cut");  mp_vector(w, DT_F32, g.n, cut);
    free(flow);
    free(cut);
    graph_free(&g);
}

static void model_record(struct writer *w, const struct record *rec, const struct dar_step_options *o,
                         struct dar_workspace *ws)
{
    const char *keys[6];
    int nkeys = 0;
    bool has_cut = o->model->config.variant == DAR_DUAL || o->model->config.variant == DAR_PIPELINE;
    bool only_embed = o->embed && o->embed_step == DAR_EMBED_FIRST && !o->hints;
    struct dar_graph dg;
    int need = o->model->config.leak_cut ? DAR_NEED_SOLUTION : 0;
    dar_graph_read(&dg, rec, need);
    if (!dg.phase && !only_embed)
        phases_from_algorithm(&dg);
    int64_t n = dg.g.n, m = dg.g.m, T = dg.steps, H3 = 3 * (int64_t)o->model->config.hidden;

    struct dar_prediction p = {0};
    if (!only_embed) {
        p.flow = xcalloc((size_t)m + 1, sizeof *p.flow);
        keys[nkeys++] = "pred_flow";
        if (has_cut) {
            p.cut = xcalloc((size_t)n, sizeof *p.cut);
            keys[nkeys++] = "pred_cut";
        }
    }
    if (o->hints && o->model->config.variant != DAR_NO_ALGO) {
        p.pi = xcalloc((size_t)(T * n), sizeof *p.pi);
        p.mask = xcalloc((size_t)(T * n), 1);
        p.hint_flow = xcalloc((size_t)(T * m + 1), sizeof *p.hint_flow);
        keys[nkeys++] = "pred_pi";
        keys[nkeys++] = "pred_mask";
        keys[nkeys++] = "pred_hint_flow";
    }
    if (o->embed) {
        p.embed = xcalloc((size_t)(n * H3), sizeof *p.embed);
        keys[nkeys++] = "embed";
    }
    struct dar_graph *batch[1] = {&dg};
    dar_predict(o->model, ws, batch, 1, o->embed ? o->embed_step : DAR_EMBED_LAST, &p);

    writer_begin_enriched(w, rec, keys, nkeys);
    if (p.flow) { mp_key(w, "pred_flow"); mp_vector(w, DT_F32, m, p.flow); }
    if (p.cut)  { mp_key(w, "pred_cut");  mp_vector(w, DT_F32, n, p.cut); }
    if (p.pi) {
        mp_key(w, "pred_pi");        mp_tensor(w, DT_I32, 2, (int64_t[]){T, n}, p.pi);
        mp_key(w, "pred_mask");      mp_tensor(w, DT_U8, 2, (int64_t[]){T, n}, p.mask);
        mp_key(w, "pred_hint_flow"); mp_tensor(w, DT_F32, 2, (int64_t[]){T, m}, p.hint_flow);
    }
    if (p.embed) { mp_key(w, "embed"); mp_tensor(w, DT_F32, 2, (int64_t[]){n, H3}, p.embed); }
    free(p.flow); free(p.cut); free(p.pi); free(p.mask); free(p.hint_flow); free(p.embed);
    dar_graph_free(&dg);
}

void dar_step_run(FILE *in, const char *in_name, FILE *out, const struct dar_step_options *o)
{
    struct reader rd;
    struct record rec;
    struct writer w;
    struct dar_workspace *ws = o->model ? dar_workspace_new() : NULL;
    reader_init(&rd, in, in_name);
    writer_init(&w, out);
    while (reader_next(&rd, &rec)) {
        if (o->random_baseline)
            random_record(&w, &rec, o->seed);
        else
            model_record(&w, &rec, o, ws);
    }
    reader_free(&rd);
    if (ws)
        dar_workspace_free(ws);
}
