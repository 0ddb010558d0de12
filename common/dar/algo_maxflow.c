/* algo_maxflow.c - the max-flow / min-cut entry (algorithm.h): its probes,
 * the networks of each variant, and its tools' operations: the traced
 * Ford-Fulkerson and the fast exact solver (ff-trace), the phases of an
 * untraced graph and the random baseline (dar-step), the validation score
 * (dar-fit).  The schedule on the processor is algo_maxflow_model.c.
 *
 * The tracer works in exact integers (maxflow.h); graph_capacity_units()
 * turns the capacities into integers (exactly for the paper's families).  A
 * training set is thousands of small graphs, so the per-record costs matter
 * as much as the algorithm: the arrays are reused from one record to the
 * next, and the flow of the T x m hint_flow tensor is converted to float
 * once per augmentation, not once per frame. */
#include "algo_maxflow.h"
#include "algo_record.h"
#include "dar_loss.h"
#include "die.h"
#include "graph.h"
#include "maxflow.h"
#include "rng.h"
#include "tensor.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the description ------------------------------------------------------------ */

#define IN DAR_STAGE_INPUT
#define HINT DAR_STAGE_HINT
#define OUT DAR_STAGE_OUTPUT
#define NODE DAR_LOCATION_NODE
#define EDGE DAR_LOCATION_EDGE

static const struct dar_probe probes[MAXFLOW_PROBES] = {
    /*                  key          encoder      decoder      stage loc   type                         width bound vessel */
    [MAXFLOW_POS]       = {NULL,        "pos",       NULL,        IN,   NODE, DAR_TYPE_SCALAR,               1, -1, false},
    [MAXFLOW_S]         = {"s",         "s",         NULL,        IN,   NODE, DAR_TYPE_MASK_ONE,             1, -1, false},
    [MAXFLOW_T]         = {"t",         "t",         NULL,        IN,   NODE, DAR_TYPE_MASK_ONE,             1, -1, false},
    [MAXFLOW_MASK]      = {"hint_mask", "mask",      "mask",      HINT, NODE, DAR_TYPE_MASK,                 1, -1, false},
    [MAXFLOW_CUT]       = {NULL,        "cut",       "cut_hint",  HINT, NODE, DAR_TYPE_CATEGORICAL,          2, -1, false},
    [MAXFLOW_CAP]       = {"cap",       "cap",       NULL,        IN,   EDGE, DAR_TYPE_SCALAR,               1, -1, false},
    [MAXFLOW_W]         = {"w",         "w",         NULL,        IN,   EDGE, DAR_TYPE_SCALAR,               1, -1, false},
    [MAXFLOW_FLOW]      = {"hint_flow", "flow",      "flow_hint", HINT, EDGE, DAR_TYPE_BOUNDED_ANTISYMMETRIC, 1, MAXFLOW_CAP, false},
    [MAXFLOW_PTR]       = {"hint_pi",   "ptr",       "pi",        HINT, NODE, DAR_TYPE_POINTER,              1, -1, false},
    [MAXFLOW_LENGTH]    = {"length",    "length",    NULL,        IN,   EDGE, DAR_TYPE_SCALAR,               1, -1, true},
    [MAXFLOW_DISTANCE]  = {"distance",  "distance",  NULL,        IN,   EDGE, DAR_TYPE_SCALAR,               1, -1, true},
    [MAXFLOW_CURVENESS] = {"curveness", "curveness", NULL,        IN,   EDGE, DAR_TYPE_SCALAR,               1, -1, true},
    [MAXFLOW_FLOW_OUT]  = {"flow",      NULL,        "flow",      OUT,  EDGE, DAR_TYPE_BOUNDED_ANTISYMMETRIC, 1, MAXFLOW_CAP, false},
    [MAXFLOW_CUT_OUT]   = {"cut",       NULL,        "cut",       OUT,  NODE, DAR_TYPE_CATEGORICAL,          2, -1, false},
};

const int maxflow_arc_probe[MAXFLOW_ARC_COLUMNS] = {MAXFLOW_CAP, MAXFLOW_W, MAXFLOW_FLOW, MAXFLOW_PTR,
                                                    MAXFLOW_LENGTH, MAXFLOW_DISTANCE, MAXFLOW_CURVENESS};

#define BIT(p) (1u << (p))
/* what the networks encode: the inputs; with the hints; and the dual's cut */
#define INPUTS (BIT(MAXFLOW_POS) | BIT(MAXFLOW_S) | BIT(MAXFLOW_T) | BIT(MAXFLOW_CAP) | BIT(MAXFLOW_W))
#define HINTS (INPUTS | BIT(MAXFLOW_MASK) | BIT(MAXFLOW_FLOW) | BIT(MAXFLOW_PTR))
#define HINTS_CUT (HINTS | BIT(MAXFLOW_CUT))

/* P_BF decodes the mask and the pointers; P_F the mask, the flow hint (and
 * the dual's cut hint) and the outputs.  The pipeline's mincut network runs
 * first and feeds its cut to both; no-algo is one network, inputs to flow. */
static const struct dar_layout layouts[DAR_VARIANTS] = {
    [DAR_PRIMAL] = {2, {{"bf", HINTS, 2, {MAXFLOW_MASK, MAXFLOW_PTR}},
                        {"flow", HINTS, 3, {MAXFLOW_MASK, MAXFLOW_FLOW, MAXFLOW_FLOW_OUT}}}},
    [DAR_DUAL] = {2, {{"bf", HINTS, 2, {MAXFLOW_MASK, MAXFLOW_PTR}},
                      {"flow", HINTS_CUT, 5, {MAXFLOW_MASK, MAXFLOW_FLOW, MAXFLOW_CUT, MAXFLOW_FLOW_OUT,
                                              MAXFLOW_CUT_OUT}}}},
    [DAR_PIPELINE] = {3, {{"mincut", INPUTS, 1, {MAXFLOW_CUT_OUT}},
                          {"bf", HINTS_CUT, 2, {MAXFLOW_MASK, MAXFLOW_PTR}},
                          {"flow", HINTS_CUT, 3, {MAXFLOW_MASK, MAXFLOW_FLOW, MAXFLOW_FLOW_OUT}}}},
    [DAR_NO_ALGO] = {1, {{"net", INPUTS, 1, {MAXFLOW_FLOW_OUT}}}},
};

static const char *const loss_names[MAXFLOW_LOSSES] = {"mask", "pi", "flow_hint", "cut_hint", "flow", "cut"};

/* The hints against the trace's next frame (the dual's cut hint against
 * the final cut; the pipeline's is its mincut network's, held), the
 * outputs against the solution (model.md §5). */
static const struct dar_loss_term loss_terms[MAXFLOW_LOSSES] = {
    [MAXFLOW_LOSS_MASK] = {MAXFLOW_MASK, MAXFLOW_MASK, DAR_NORM_HINT},
    [MAXFLOW_LOSS_PI] = {MAXFLOW_PTR, MAXFLOW_PTR, DAR_NORM_HINT},
    [MAXFLOW_LOSS_FLOW_HINT] = {MAXFLOW_FLOW, MAXFLOW_FLOW, DAR_NORM_HINT},
    [MAXFLOW_LOSS_CUT_HINT] = {MAXFLOW_CUT, MAXFLOW_CUT_OUT, DAR_NORM_HINT},
    [MAXFLOW_LOSS_FLOW] = {MAXFLOW_FLOW_OUT, MAXFLOW_FLOW_OUT, DAR_NORM_BATCH},
    [MAXFLOW_LOSS_CUT] = {MAXFLOW_CUT_OUT, MAXFLOW_CUT_OUT, DAR_NORM_BATCH},
};

static const char *const trace_keys[] = {"steps", "hint_phase", "hint_mask", "hint_pi", "hint_flow",
                                         "flow", "maxflow", "cut"};
static const char *const solution_keys[] = {"flow", "maxflow", "cut"};

static const float *edge_input(const struct dar_graph *dg, int p)
{
    switch (p) {
    case MAXFLOW_CAP: return dg->g.cap;
    case MAXFLOW_W: return dg->g.w;
    case MAXFLOW_LENGTH: return dg->length;
    case MAXFLOW_DISTANCE: return dg->distance;
    case MAXFLOW_CURVENESS: return dg->curveness;
    default: return NULL;
    }
}

/* ---- the tracer (ff-trace) ------------------------------------------------------ */

/* What one record needs, kept for the next; sizes in bytes. */
struct tracer_buffers {
    struct trace tr;
    int64_t *cap, *flow;
    uint8_t *cut;
    float *values;
    size_t cap_bytes, flow_bytes, cut_bytes, values_bytes;
};

static void buffers_free(void *data)
{
    struct tracer_buffers *b = data;
    trace_free(&b->tr);
    free(b->cap);
    free(b->flow);
    free(b->cut);
    free(b->values);
    free(b);
}

/* Real values are k / units (a division, so 27 units of 1/10 print as 2.7,
 * not 2.7000000000000002). */
static float flow_value(int64_t k, double units) { return (float)((double)k / units); }

/* The values of flow[m] into out as float32 bytes: out may be inside the
 * writer's buffer, unaligned, hence the byte copies (single stores). */
static void flow_to_values(unsigned char *out, const int64_t *flow, int m, double units)
{
    for (int e = 0; e < m; e++) {
        float x = flow_value(flow[e], units);
        memcpy(out + (size_t)e * sizeof x, &x, sizeof x);
    }
}

/* The T x m hint_flow values into out (float32 bytes, maybe unaligned).
 * Frame 0 converts the zero flow; every other frame repeats the row
 * before, except that a flow frame converts the entries its augmentation
 * changed (the path's edges). */
static void hint_flow_values(unsigned char *out, const struct trace *tr, int m, double units)
{
    size_t row = (size_t)m * sizeof(float);
    flow_to_values(out, tr->flows, m, units);
    const int64_t *flow = tr->flows;
    for (int k = 1; k < tr->steps; k++) {
        out += row;
        memcpy(out, out - row, row);
        if (tr->phase[k] == 0) {
            flow += m;
            for (int e = 0; e < m; e++)
                if (flow[e] != flow[e - m]) {
                    float x = flow_value(flow[e], units);
                    memcpy(out + (size_t)e * sizeof x, &x, sizeof x);
                }
        }
    }
}

/* hint_flow, straight into the writer's buffer when it fits (it is most of
 * the record); leaves the final flow, its last row, in b->values. */
static void write_hint_flow(struct writer *w, struct tracer_buffers *b, int m, double units)
{
    const struct trace *tr = &b->tr;
    int64_t T = tr->steps;
    size_t row = sizeof *b->values * (size_t)m, last = (size_t)(T - 1) * row;
    unsigned char *out = mp_tensor_reserve(w, DT_F32, 2, (int64_t[]){T, m});
    if (out) {
        hint_flow_values(out, tr, m, units);
        b->values = xreserve(b->values, &b->values_bytes, row + 1);
        memcpy(b->values, out + last, row);
    } else {
        b->values = xreserve(b->values, &b->values_bytes, (size_t)T * row + 1);
        hint_flow_values((unsigned char *)b->values, tr, m, units);
        mp_tensor(w, DT_F32, 2, (int64_t[]){T, m}, b->values);
        memmove(b->values, (unsigned char *)b->values + last, row);
    }
}

static void write_trace(struct writer *w, const struct record *rec, const struct graph *g,
                        const struct flownet *net, double units, struct tracer_buffers *b)
{
    const struct trace *tr = &b->tr;
    int64_t value = maxflow_trace_frames(net, &b->tr, b->flow, b->cut);
    int64_t T = tr->steps;
    writer_begin_enriched(w, rec, trace_keys, 8);
    mp_key(w, "steps");      mp_int(w, T);
    mp_key(w, "hint_phase"); mp_vector(w, DT_U8, T, tr->phase);
    mp_key(w, "hint_mask");  mp_tensor(w, DT_U8, 2, (int64_t[]){T, g->n}, tr->mask);
    mp_key(w, "hint_pi");    mp_tensor(w, DT_I32, 2, (int64_t[]){T, g->n}, tr->pi);
    mp_key(w, "hint_flow");  write_hint_flow(w, b, g->m, units);
    /* The last frame shows the final flow. */
    mp_key(w, "flow");       mp_vector(w, DT_F32, g->m, b->values);
    mp_key(w, "maxflow");    mp_double(w, (double)value / units);
    mp_key(w, "cut");        mp_vector(w, DT_U8, g->n, b->cut);
}

static void write_solution(struct writer *w, const struct record *rec, const struct graph *g,
                           const struct flownet *net, double units, struct tracer_buffers *b)
{
    int64_t value = maxflow_fast(net, b->flow, b->cut);
    b->values = xreserve(b->values, &b->values_bytes, sizeof *b->values * ((size_t)g->m + 1));
    flow_to_values((unsigned char *)b->values, b->flow, g->m, units);
    writer_begin_enriched(w, rec, solution_keys, 3);
    mp_key(w, "flow");       mp_vector(w, DT_F32, g->m, b->values);
    mp_key(w, "maxflow");    mp_double(w, (double)value / units);
    mp_key(w, "cut");        mp_vector(w, DT_U8, g->n, b->cut);
}

/* The least a trace's hints take: frame 0 and the last Bellman-Ford
 * round's frame, each a mask and a pointer per node, a flow per edge. */
static double least_hint_bytes(const struct graph *g)
{
    return 2.0 * (1.0 + 5.0 * g->n + 4.0 * g->m);
}

static void trace(struct writer *w, const struct record *rec, bool hints, int64_t hint_bytes_limit,
                  struct dar_tracer_buffers *tb)
{
    if (!tb->data) {
        tb->data = xcalloc(1, sizeof(struct tracer_buffers));
        tb->free = buffers_free;
    }
    struct tracer_buffers *b = tb->data;
    struct graph g;
    graph_read(&g, rec);
    if (hints && least_hint_bytes(&g) > (double)hint_bytes_limit)
        record_die(rec, "the trace's hints would take at least %.3g GiB (n = %d, m = %d), over the bound of "
                   "%.3g GiB; --no-hints gives the solution without them", least_hint_bytes(&g) / 1073741824.0,
                   g.n, g.m, (double)hint_bytes_limit / 1073741824.0);
    size_t edges = (size_t)g.m + 1;
    b->cap = xreserve(b->cap, &b->cap_bytes, sizeof *b->cap * edges);
    b->flow = xreserve(b->flow, &b->flow_bytes, sizeof *b->flow * edges);
    b->cut = xreserve(b->cut, &b->cut_bytes, (size_t)g.n);
    double units = graph_capacity_units_exact(rec, &g, b->cap);
    struct flownet net = flownet_from_graph(&g, b->cap);
    if (hints)
        write_trace(w, rec, &g, &net, units, b);
    else
        write_solution(w, rec, &g, &net, units, b);
    graph_free(&g);
}

/* ---- dar-step: predictions, the random baseline ------------------------------------ */

static void phases(struct dar_graph *dg)
{
    struct graph *g = &dg->g;
    int64_t *cap = xmalloc(sizeof *cap * (size_t)(g->m + 1)), *flow = xmalloc(sizeof *flow * (size_t)(g->m + 1));
    uint8_t *cut = xmalloc((size_t)g->n);
    graph_capacity_units(g, cap);
    struct flownet net = flownet_from_graph(g, cap);
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

/* The predictions: pred_flow, pred_cut (dual and pipeline), with hints
 * pred_pi, pred_mask, pred_hint_flow, with embed the node embeddings. */
static void predict(struct writer *w, const struct record *rec, struct dar_model *model, struct dar_workspace *ws,
                    bool hints, bool embed, int embed_step)
{
    const char *keys[6];
    int nkeys = 0;
    bool has_cut = model->config.variant == DAR_DUAL || model->config.variant == DAR_PIPELINE;
    bool only_embed = embed && embed_step == DAR_EMBED_FIRST && !hints;
    struct dar_graph dg;
    int need = model->config.leak_dual ? DAR_NEED_SOLUTION : 0;
    maxflow_read_graph(&dg, rec, need);
    if (!dg.phase && !only_embed)
        phases(&dg);
    int64_t n = dg.g.n, m = dg.g.m, T = dg.steps, H3 = 3 * (int64_t)model->config.hidden;

    struct dar_prediction p = {0};
    if (!only_embed) {
        p.probe[MAXFLOW_FLOW_OUT] = xcalloc((size_t)m + 1, sizeof *maxflow_pred_flow(&p));
        keys[nkeys++] = "pred_flow";
        if (has_cut) {
            p.probe[MAXFLOW_CUT_OUT] = xcalloc((size_t)n, sizeof *maxflow_pred_cut(&p));
            keys[nkeys++] = "pred_cut";
        }
    }
    if (hints && model->config.variant != DAR_NO_ALGO) {
        p.probe[MAXFLOW_PTR] = xcalloc((size_t)(T * n), sizeof *maxflow_pred_pi(&p));
        p.probe[MAXFLOW_MASK] = xcalloc((size_t)(T * n), 1);
        p.probe[MAXFLOW_FLOW] = xcalloc((size_t)(T * m + 1), sizeof *maxflow_pred_hint_flow(&p));
        keys[nkeys++] = "pred_pi";
        keys[nkeys++] = "pred_mask";
        keys[nkeys++] = "pred_hint_flow";
    }
    if (embed) {
        p.embed = xcalloc((size_t)(n * H3), sizeof *p.embed);
        keys[nkeys++] = "embed";
    }
    struct dar_graph *batch[1] = {&dg};
    dar_predict(model, ws, batch, 1, embed ? (enum dar_embed)embed_step : DAR_EMBED_LAST, &p);

    writer_begin_enriched(w, rec, keys, nkeys);
    if (maxflow_pred_flow(&p)) { mp_key(w, "pred_flow"); mp_vector(w, DT_F32, m, maxflow_pred_flow(&p)); }
    if (maxflow_pred_cut(&p))  { mp_key(w, "pred_cut");  mp_vector(w, DT_F32, n, maxflow_pred_cut(&p)); }
    if (maxflow_pred_pi(&p)) {
        mp_key(w, "pred_pi");        mp_tensor(w, DT_I32, 2, (int64_t[]){T, n}, maxflow_pred_pi(&p));
        mp_key(w, "pred_mask");      mp_tensor(w, DT_U8, 2, (int64_t[]){T, n}, maxflow_pred_mask(&p));
        mp_key(w, "pred_hint_flow"); mp_tensor(w, DT_F32, 2, (int64_t[]){T, m}, maxflow_pred_hint_flow(&p));
    }
    if (p.embed) { mp_key(w, "embed"); mp_tensor(w, DT_F32, 2, (int64_t[]){n, H3}, p.embed); }
    free(p.probe[MAXFLOW_FLOW_OUT]); free(p.probe[MAXFLOW_CUT_OUT]); free(p.probe[MAXFLOW_PTR]); free(p.probe[MAXFLOW_MASK]); free(p.probe[MAXFLOW_FLOW]); free(p.embed);
    dar_graph_free(&dg);
}

/* The paper's random baseline (§4.1, the proposal of dar-reference.md
 * §3.7): F = C tanh(R - R^T) with R standard normal on the two arcs of each
 * edge, and a cut probability U(0,1) per node. */
static void random_baseline(struct writer *w, const struct record *rec, uint64_t seed)
{
    static const char *const keys[] = {"pred_flow", "pred_cut"};
    struct graph g;
    graph_read(&g, rec);
    struct rng r;
    rng_init(&r, seed, rng_stream_id("random-baseline"), (uint64_t)rec->index);
    float *flow = xmalloc(sizeof *flow * (size_t)(g.m + 1)), *cut = xmalloc(sizeof *cut * (size_t)g.n);
    algo_random_flow(&r, &g, flow);
    for (int v = 0; v < g.n; v++)
        cut[v] = rng_uniform_f32(&r);
    writer_begin_enriched(w, rec, keys, 2);
    mp_key(w, "pred_flow"); mp_vector(w, DT_F32, g.m, flow);
    mp_key(w, "pred_cut");  mp_vector(w, DT_F32, g.n, cut);
    free(flow);
    free(cut);
    graph_free(&g);
}

/* ---- dar-fit: the validation score -------------------------------------------------- */

/* The mean squared error of the predicted flow over the edges whose true
 * flow is not zero. */
struct flow_error {
    double sum;
    int64_t pooled;
};

static void score_flow(const struct dar_graph *g, const void *pred, void *ctx)
{
    struct flow_error *err = ctx;
    const float *flow = pred;
    for (int e = 0; e < g->g.m; e++)
        if (maxflow_flow(g)[e] != 0) {
            double d = (double)flow[e] - maxflow_flow(g)[e];
            err->sum += d * d;
            err->pooled++;
        }
}

static double validation_score(struct dar_model *model, struct dar_workspace *ws, struct dar_graph *graphs,
                               int count, double *kappa)
{
    struct flow_error err = {0};
    algo_predict_batches(model, ws, graphs, count, MAXFLOW_FLOW_OUT, true, kappa, score_flow, &err);
    return err.pooled ? err.sum / (double)err.pooled : 0;
}

/* The keys of its instance (formats/graph.md, "Instances"). */
static const struct graph_key instance_keys[] = {
    {.key = "s", .dtype = DT_I64, .location = GRAPH_AT_GRAPH, .what = "a source"},
    {.key = "t", .dtype = DT_I64, .location = GRAPH_AT_GRAPH, .check = GRAPH_CHECK_NOT_S, .what = "a sink"},
    {.key = "cap", .dtype = DT_F32, .location = GRAPH_AT_EDGE, .what = "capacities"},
};

const struct dar_algorithm dar_algorithm_maxflow = {
    .name = "max-flow",
    .summary = "Ford-Fulkerson with Bellman-Ford augmenting paths (synchronous rounds, ties to the lowest index, the "
               "true residual test, exact integer arithmetic); dual: the source-maximal min cut (0 = source side)",
    .predictions_help = "pred_flow (F = C tanh(P - P^T)), pred_cut (probability of the sink side; dual and pipeline); "
                        "--hints: pred_pi, pred_mask, pred_hint_flow",
    .validation_help = "masked MSE of the final flow",
    .nprobes = MAXFLOW_PROBES,
    .probes = probes,
    .vessel_replaces = MAXFLOW_CAP,
    .layouts = layouts,
    .nlosses = MAXFLOW_LOSSES,
    .loss_names = loss_names,
    .read_graph = maxflow_read_graph,
    .edge_input = edge_input,
    .check = maxflow_check,
    .batch_scales = dar_spec_batch_scales,
    .run_group = maxflow_run_group,
    .total_loss = dar_spec_total_loss,
    .takes_other_traces = true,
    .ntrace_keys = 8,
    .nsolution_keys = 3,
    .trace_keys = trace_keys,
    .solution_keys = solution_keys,
    .trace = trace,
    .predict = predict,
    .random_baseline = random_baseline,
    .validation_score = validation_score,
    .ninstance_keys = sizeof instance_keys / sizeof *instance_keys,
    .instance_keys = instance_keys,
    .generate = &graphgen_flow_network,
    .metrics = maxflow_metrics,
    .repair_tool = "flow-fix",
    .repair_summary = "Turn a predicted flow (capacity-bounded, antisymmetric, but not conserving)\n"
                      "into a feasible flow with the paper's corrective procedure (appendix A.2):\n"
                      "excess goes back towards s, surplus out-flow is lowered towards t.  Adds\n"
                      "fixed_flow, fixed_value and the per-node conservation error before and after.",
    .repair_example = "dar-step --model dual.mp < test.mp | flow-fix | metrics",
    .nrepair_options = MAXFLOW_REPAIR_OPTIONS,
    .repair_options = maxflow_repair_options,
    .repair = maxflow_repair,
    .nets_per_step = 2,         /* P_BF, and P_F at a flow step: the authors' clock counts both */
    .leakable_dual = true,
    .embeds_first_step = true,
    .defaults = DAR_REFERENCE_DEFAULTS,
    .loss_terms = loss_terms,
    .phase_nets = {"bf", "flow"},
    .soft_hints = true,
};
