/* edge_embed_reconstruct.c - DAR's algorithm reconstruction on a vessel graph
 * (paper §4.2, dar-reference.md §6, formats/edge-embed.md §1): the capacity
 * encoder of every network is replaced by three new encoders of the vessel
 * features (length, distance, curveness, min-max scaled per graph), all other
 * parameters are frozen, and only the new encoders are trained with Adam to
 * reproduce the Ford-Fulkerson trace of the graph, whose capacities come from
 * the vessel radius.  The forward and backward passes are dar_forward.c's and
 * dar_backward.c's (the model with config.vessel_inputs). */
#include "edge_embed.h"
#include "curve.h"
#include "die.h"
#include "graph_bfs.h"
#include "io.h"
#include "layers.h"
#include "maxflow.h"
#include "names.h"
#include "optim.h"
#include "registry.h"
#include "rng.h"
#include "stream.h"
#include "tensor.h"
#include "workers.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const capacity_names[] = {"cross-section", "poiseuille", "unit"};

bool edge_capacity_parse(const char *s, enum edge_capacity *c)
{
    int i = name_index(s, capacity_names, 3);
    if (i >= 0) *c = (enum edge_capacity)i;
    return i >= 0;
}

const char *edge_capacity_name(enum edge_capacity c) { return capacity_names[c]; }

static float *edge_column(const struct record *rec, const char *key, int64_t m, const char *why)
{
    if (!record_has(rec, key))
        record_die(rec, "missing key '%s' (%s)", key, why);
    float *v = record_vector(rec, key, DT_F32, m);
    for (int64_t e = 0; e < m; e++)
        if (!isfinite(v[e]))
            record_die(rec, "'%s' entry %lld is %g, expected a finite number", key,
                       (long long)e, v[e]);
    return v;
}

void vessel_inputs_read(const struct record *rec, int64_t m, float *out[3], const char *why)
{
    static const char *const keys[3] = {"length", "distance", "curveness"};
    for (int j = 0; j < 3; j++) {
        float *v = edge_column(rec, keys[j], m, why);
        double lo = INFINITY, hi = -INFINITY;
        for (int64_t e = 0; e < m; e++) {
            lo = fmin(lo, v[e]);
            hi = fmax(hi, v[e]);
        }
        for (int64_t e = 0; e < m; e++)
            v[e] = hi > lo ? (float)(((double)v[e] - lo) / (hi - lo)) : 0.0f;
        out[j] = v;
    }
}

void vessel_capacity(const struct record *rec, int64_t m, enum edge_capacity c, float *cap)
{
    if (c == EDGE_CAP_UNIT) {
        for (int64_t e = 0; e < m; e++)
            cap[e] = 1.0f;
        return;
    }
    float *r = edge_column(rec, "avgRadiusAvg", m, "the capacity rule reads the vessel radius");
    double top = 0.0;
    for (int64_t e = 0; e < m; e++) {
        if (!(r[e] > 0.0f))
            record_die(rec, "'avgRadiusAvg' entry %lld is %g, expected a positive radius",
                       (long long)e, r[e]);
        top = fmax(top, r[e]);
    }
    for (int64_t e = 0; e < m; e++) {
        double x = r[e] / top;
        cap[e] = (float)(c == EDGE_CAP_CROSS_SECTION ? x * x : (x * x) * (x * x));
    }
    free(r);
}

/* ---- the model ----------------------------------------------------------------- */

void reconstruct_model_init(struct dar_model *dst, const struct dar_model *src, uint64_t seed)
{
    if (src->config.algorithm != &dar_algorithm_maxflow)
        die(EX_DATAERR, "the model was trained on %s; reconstruction takes a %s model",
            src->config.algorithm->name, dar_algorithm_maxflow.name);
    if (src->config.variant != DAR_PRIMAL && src->config.variant != DAR_DUAL)
        die(EX_DATAERR, "the model is a %s model; reconstruction takes a primal or dual DAR model",
            dar_variant_name(src->config.variant));
    if (src->config.vessel_inputs)
        die(EX_DATAERR, "the model's edge inputs are already vessel features (a reconstructed "
            "model); give the dar-fit model it came from");
    struct dar_config c = src->config;
    c.vessel_inputs = true;
    dar_model_create(dst, &c);
    struct rng r;
    rng_init(&r, seed, rng_stream_id("reconstruct"), 0);
    for (int k = 0; k < dst->nparams; k++) {
        int j = dar_param_index(src, dst->info[k].name);
        if (j >= 0)
            memcpy(dst->params[k].value, src->params[j].value,
                   sizeof(float) * (size_t)dst->params[k].count);
        else
            param_init_uniform(dst->params[k].value, dst->params[k].count, dst->info[k].fan_in, &r);
    }
}

/* The parameters reconstruction trains: the vessel encoders of every network. */
static int trained_params(struct dar_model *m, struct param *out)
{
    int count = 0;
    for (int k = 0; k < m->nparams; k++) {
        const char *name = m->info[k].name;
        const char *dot = strstr(name, ".enc.");
        if (dot && (!strcmp(dot, ".enc.length") || !strcmp(dot, ".enc.distance") ||
                    !strcmp(dot, ".enc.curveness")))
            out[count++] = m->params[k];
    }
    return count;
}

/* ---- the graph and its trace ------------------------------------------------ */

struct recon_graph {
    struct dar_graph dg;
    int full_steps, augmentations;
    double maxflow;
};

static void recon_graph_load(struct recon_graph *rg, const struct record *rec,
                             const struct edge_embed_reconstruct_options *o)
{
    record_expect_kind(rec, "graph");
    struct dar_graph *dg = &rg->dg;
    maxflow_read_graph(dg, rec, 0);
    /* a traced input's own trace is not used: ours follows the capacity rule */
    free(dg->phase);
    dg->phase = NULL;
    for (int p = 0; p < DAR_MAX_PROBES; p++) {
        free(dg->probe[p]);
        dg->probe[p] = NULL;
    }
    struct graph *g = &dg->g;
    float *in[3];
    vessel_inputs_read(rec, g->m, in, "edge-embed --reconstruct encodes the vessel features");
    dg->length = in[0];
    dg->distance = in[1];
    dg->curveness = in[2];
    vessel_capacity(rec, g->m, o->capacity, g->cap);
    g->cap_scale = o->capacity == EDGE_CAP_UNIT ? 1 : 0;

    struct adjacency adj;
    adjacency_build(&adj, g->n, g->m, g->src, g->dst);
    int s, t;
    int d = double_sweep(&adj, -1, &s, &t);
    adjacency_free(&adj);
    if (d == 0)
        record_die(rec, "no two connected nodes: the double sweep finds no source and sink");
    g->s = s;
    g->t = t;

    int64_t *cap = xmalloc(sizeof *cap * (size_t)(g->m + 1));
    int64_t *flow = xmalloc(sizeof *flow * (size_t)(g->m + 1));
    uint8_t *cut = xmalloc((size_t)g->n);
    double units = graph_capacity_units_exact(rec, g, cap);
    struct flownet net = flownet_from_graph(g, cap);
    struct trace tr = {0};
    int64_t value = maxflow_trace(&net, &tr, flow, cut);
    if (value == 0) {
        trace_free(&tr);
        record_die(rec, "no path from s = %d to t = %d with positive capacity: the "
                   "Ford-Fulkerson trace has no augmentation to learn", s, t);
    }
    rg->full_steps = tr.steps;
    rg->augmentations = 0;
    for (int i = 0; i < tr.steps; i++)
        rg->augmentations += tr.phase[i] == 0;
    rg->maxflow = (double)value / units;
    int T = tr.steps;
    if (o->max_steps > 0 && T > o->max_steps)
        T = (int)o->max_steps;
    int64_t n = g->n, m = g->m;
    dg->steps = T;
    dg->phase = xmalloc((size_t)T);
    memcpy(dg->phase, tr.phase, (size_t)T);
    dg->probe[MAXFLOW_MASK] = xmalloc((size_t)(T * n));
    memcpy(maxflow_hint_mask(dg), tr.mask, (size_t)(T * n));
    dg->probe[MAXFLOW_PTR] = xmalloc(sizeof(int32_t) * (size_t)(T * n));
    memcpy(maxflow_hint_pi(dg), tr.pi, sizeof(int32_t) * (size_t)(T * n));
    float *hint_flow = xmalloc(sizeof(float) * (size_t)(T * m + 1));
    dg->probe[MAXFLOW_FLOW] = hint_flow;
    for (int64_t i = 0; i < T * m; i++)
        hint_flow[i] = (float)((double)tr.flow[i] / units);
    /* the output target: the flow at the end of the frames trained on (the
     * maximum flow when the whole trace is) */
    dg->probe[MAXFLOW_FLOW_OUT] = xmalloc(sizeof(float) * (size_t)(m + 1));
    if (m)
        memcpy(maxflow_flow(dg), hint_flow + (int64_t)(T - 1) * m, sizeof(float) * (size_t)m);
    dg->probe[MAXFLOW_CUT_OUT] = cut;
    trace_free(&tr);
    free(cap);
    free(flow);
}

/* ---- the curve ----------------------------------------------------------------- */

enum { CURVE_COLUMNS = 8 };
static const char *const curve_names[CURVE_COLUMNS] = {"iteration", "mask", "pi", "flow_hint",
                                                       "cut_hint", "flow", "cut", "total"};

static void recon_columns(const struct record *rec, int *ncolumns, const char *const **names)
{
    *ncolumns = CURVE_COLUMNS;
    *names = curve_names;
}

void reconstruct_write_log_from_model(FILE *model, const char *name, const char *log_path)
{
    curve_log_from_model(model, name, (const char *const[]){"provenance", "curve", NULL}, recon_columns, log_path);
}

/* ---- training ------------------------------------------------------------------- */

struct recon_write {
    const struct edge_embed_reconstruct_options *o;
    const struct recon_graph *rg;
    const struct curve *curve;
};

static void write_provenance(struct writer *w, const struct recon_write *c)
{
    const struct dar_graph *dg = &c->rg->dg;
    mp_key(w, "provenance");
    mp_map(w, 14);
    mp_key(w, "tool");           mp_str(w, "edge-embed");
    mp_key(w, "version");        mp_str(w, DAR_VERSION);
    mp_key(w, "mode");           mp_str(w, "reconstruct");
    mp_key(w, "args");           mp_str(w, c->o->canonical_args ? c->o->canonical_args : "");
    mp_key(w, "seed");           mp_int(w, (int64_t)c->o->seed);
    mp_key(w, "capacity");       mp_str(w, edge_capacity_name(c->o->capacity));
    mp_key(w, "s");              mp_int(w, dg->g.s);
    mp_key(w, "t");              mp_int(w, dg->g.t);
    mp_key(w, "steps");          mp_int(w, dg->steps);
    mp_key(w, "trace_steps");    mp_int(w, c->rg->full_steps);
    mp_key(w, "augmentations");  mp_int(w, c->rg->augmentations);
    mp_key(w, "maxflow");        mp_double(w, c->rg->maxflow);
    mp_key(w, "iterations");     mp_int(w, c->curve->rows);
    mp_key(w, "curve");
    curve_write(w, c->curve);
}

void edge_embed_reconstruct_run(FILE *graph_in, const char *graph_name, FILE *model_in, const char *model_name,
                                FILE *out, const struct edge_embed_reconstruct_options *o)
{
    workers_start_option(o->threads);
    struct dar_model src, model;
    dar_model_load(&src, model_in, model_name, dar_algorithm_of_model);
    reconstruct_model_init(&model, &src, o->seed);
    dar_model_free(&src);

    struct recon_graph rg;
    {
        struct reader rd;
        struct record rec;
        reader_init(&rd, graph_in, graph_name);
        if (!reader_next(&rd, &rec))
            die(EX_DATAERR, "%s: no graph record (reconstruction trains on one vessel graph)", graph_name);
        recon_graph_load(&rg, &rec, o);
        if (reader_next(&rd, &rec))
            record_die(&rec, "a second graph record (reconstruction trains on one vessel graph)");
        reader_free(&rd);
    }

    struct param trained[3 * DAR_MAX_NETS];
    int ntrained = trained_params(&model, trained);
    struct adam adam;
    adam_init(&adam, trained, ntrained, (float)o->lr, 0.0f);
    struct dar_workspace *ws = dar_workspace_new();
    struct dar_graph *batch[1] = {&rg.dg};
    int steps = dar_batch_steps(batch, 1);
    uint8_t *teacher = xmalloc((size_t)steps + 1);
    struct curve curve;
    curve_init(&curve, CURVE_COLUMNS, curve_names);
    uint64_t teacher_stream = rng_stream_id("teacher");
    struct progress p;
    progress_begin(&p, o->progress, "iterations", o->iters);
    double start = now_seconds();
    for (int64_t k = 0; k < o->iters; k++) {
        struct rng r;
        rng_init(&r, o->seed, teacher_stream, (uint64_t)k);
        double tf = pow(o->tf_decay, (double)k);
        for (int i = 0; i < steps; i++)
            teacher[i] = rng_uniform(&r) < tf;
        params_zero_grad(model.params, model.nparams);
        struct dar_losses l;
        double loss = dar_loss_and_grad(&model, ws, batch, 1, teacher, steps, true, &l);
        if (!isfinite(loss))
            die(EX_SOFTWARE, "reconstruction diverged at iteration %lld (loss %g)", (long long)k, loss);
        adam_step(&adam, trained, ntrained);
        double row[CURVE_COLUMNS] = {(double)(k + 1), l.term[MAXFLOW_LOSS_MASK], l.term[MAXFLOW_LOSS_PI],
                                     l.term[MAXFLOW_LOSS_FLOW_HINT], l.term[MAXFLOW_LOSS_CUT_HINT],
                                     l.term[MAXFLOW_LOSS_FLOW], l.term[MAXFLOW_LOSS_CUT], l.total};
        curve_add(&curve, row, now_seconds() - start);
        snprintf(p.extra, sizeof p.extra, "loss %.4g", loss);
        progress_update(&p, k + 1);
    }
    progress_end(&p);
    if (o->log_path)
        curve_write_log(&curve, o->log_path);

    struct writer w;
    writer_init(&w, out);
    struct recon_write ctx = {o, &rg, &curve};
    dar_model_write_begin(&w, &model, NULL, 1);
    write_provenance(&w, &ctx);

    curve_free(&curve);
    free(teacher);
    adam_free(&adam);
    dar_workspace_free(ws);
    dar_graph_free(&rg.dg);
    dar_model_free(&model);
    workers_stop();
}
