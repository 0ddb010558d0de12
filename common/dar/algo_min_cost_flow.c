/* algo_min_cost_flow.c - the min-cost flow entry (algorithm.h): its probes,
 * the networks of each variant, its instances (gen-graphs --instance
 * min-cost-flow), the traced successive shortest paths (ff-trace
 * --algorithm min-cost-flow: common/flow/mincost.h), predictions and the
 * random baseline (dar-step), the validation score (dar-fit).  The
 * schedule on the processor is algo_min_cost_flow_model.c.
 *
 * The problem is the minimum-cost *maximum* flow (mincost.h says why: no
 * demand key).  A round of the trace is a shortest-path search on the
 * reduced costs and an augmentation along the path found, so a step of the
 * model is two networks, as max-flow's Bellman-Ford and flow phases: "sp"
 * decodes the search (reached set, distances, pointers), "flow" the flow
 * after the augmentation and, in the dual, the potentials.
 *
 * Frames: the record's trace has T = R + 1 frames for the R rounds of
 * mincost_trace (R >= 2: a graph without an s-t path is refused): frame 0
 * the state before the first round (no flow, only s reached at distance 0,
 * every node its own pointer, the starting potentials: 0, or Bellman-Ford's
 * where costs are negative), frame r + 1 the state after round r.  Every
 * step runs both networks, so the phase flags are all 0 and not stored.
 * The rounds trace (ff-trace --sp-rounds, mincost.h) has a frame per
 * relaxation round of each search and one per augmentation, their kinds in
 * hint_phase; a one-frame model refuses it. */
#include "algo_min_cost_flow.h"
#include "algo_record.h"
#include "dar_loss.h"
#include "die.h"
#include "graph.h"
#include "mincost.h"
#include "rng.h"
#include "tensor.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ALGORITHM "min-cost-flow"

/* ---- the description ------------------------------------------------------------ */

#define IN DAR_STAGE_INPUT
#define HINT DAR_STAGE_HINT
#define OUT DAR_STAGE_OUTPUT
#define NODE DAR_LOCATION_NODE
#define EDGE DAR_LOCATION_EDGE
#define BOUNDED DAR_TYPE_BOUNDED_ANTISYMMETRIC

static const struct dar_probe probes[MCF_PROBES] = {
    /*                  key               encoder      decoder           stage loc   type               width bound    vessel */
    [MCF_POS]           = {NULL,             "pos",       NULL,             IN,   NODE, DAR_TYPE_SCALAR,   1, -1,      false},
    [MCF_S]             = {"s",              "s",         NULL,             IN,   NODE, DAR_TYPE_MASK_ONE, 1, -1,      false},
    [MCF_T]             = {"t",              "t",         NULL,             IN,   NODE, DAR_TYPE_MASK_ONE, 1, -1,      false},
    [MCF_CAP]           = {"cap",            "cap",       NULL,             IN,   EDGE, DAR_TYPE_SCALAR,   1, -1,      false},
    [MCF_COST]          = {"cost",           "cost",      NULL,             IN,   EDGE, DAR_TYPE_SCALAR,   1, -1,      false},
    [MCF_REACHED]       = {"hint_reached",   "reached",   "reached",        HINT, NODE, DAR_TYPE_MASK,     1, -1,      false},
    [MCF_DISTANCE]      = {"hint_distance",  "distance",  "distance_hint",  HINT, NODE, DAR_TYPE_SCALAR,   1, -1,      false},
    [MCF_PTR]           = {"hint_pi",        "ptr",       "pi",             HINT, NODE, DAR_TYPE_POINTER,  1, -1,      false},
    [MCF_POTENTIAL]     = {"hint_potential", "potential", "potential_hint", HINT, NODE, DAR_TYPE_SCALAR,   1, -1,      false},
    [MCF_FLOW]          = {"hint_flow",      "flow",      "flow_hint",      HINT, EDGE, BOUNDED,           1, MCF_CAP, false},
    [MCF_FLOW_OUT]      = {"flow",           NULL,        "flow",           OUT,  EDGE, BOUNDED,           1, MCF_CAP, false},
    [MCF_POTENTIAL_OUT] = {"potential",      NULL,        "potential",      OUT,  NODE, DAR_TYPE_SCALAR,   1, -1,      false},
    [MCF_START]         = {NULL,             "start",     NULL,             IN,   NODE, DAR_TYPE_MASK,     1, -1,      false},
    [MCF_AUGMENT]       = {NULL,             "augment",   NULL,             IN,   NODE, DAR_TYPE_MASK,     1, -1,      false},
};

#define BIT(p) (1u << (p))
/* what the networks encode: the inputs; with the primal's hints; and the
 * dual's potentials */
#define INPUTS (BIT(MCF_POS) | BIT(MCF_S) | BIT(MCF_T) | BIT(MCF_CAP) | BIT(MCF_COST))
/* The step's kind, encoded only by phased models (the row's phased_probes),
 * by both networks: every step of the rounds trace still runs the search
 * network then the flow network, as a round of the one-frame trace does; a
 * search round leaves the flow and the potentials, an augmentation the
 * search's frame, and a search's start resets it, which the kind tells. */
#define PHASES (BIT(MCF_START) | BIT(MCF_AUGMENT))
#define HINTS (INPUTS | BIT(MCF_REACHED) | BIT(MCF_DISTANCE) | BIT(MCF_PTR) | BIT(MCF_FLOW) | PHASES)
#define HINTS_POTENTIAL (HINTS | BIT(MCF_POTENTIAL))

/* The search network decodes the round's shortest paths, the flow network
 * the flow after the augmentation (and the dual's potentials) and the
 * outputs.  No-algo is one network, inputs to flow.  There is no pipeline:
 * the potentials are built round by round and no separate network could
 * hand them over before the rounds start. */
static const struct dar_layout layouts[DAR_VARIANTS] = {
    [DAR_PRIMAL] = {2, {{"sp", HINTS, 3, {MCF_REACHED, MCF_DISTANCE, MCF_PTR}},
                        {"flow", HINTS, 2, {MCF_FLOW, MCF_FLOW_OUT}}}},
    [DAR_DUAL] = {2, {{"sp", HINTS_POTENTIAL, 3, {MCF_REACHED, MCF_DISTANCE, MCF_PTR}},
                      {"flow", HINTS_POTENTIAL, 4, {MCF_POTENTIAL, MCF_FLOW, MCF_FLOW_OUT, MCF_POTENTIAL_OUT}}}},
    [DAR_NO_ALGO] = {1, {{"net", INPUTS, 1, {MCF_FLOW_OUT}}}},
};

static const char *const loss_names[MCF_LOSSES] = {"reached", "distance_hint", "pi", "potential_hint",
                                                   "flow_hint", "flow", "potential"};

/* The hints against the trace's next frame, the outputs against the
 * solution. */
static const struct dar_loss_term loss_terms[MCF_LOSSES] = {
    [MCF_LOSS_REACHED] = {MCF_REACHED, MCF_REACHED, DAR_NORM_HINT},
    [MCF_LOSS_DISTANCE] = {MCF_DISTANCE, MCF_DISTANCE, DAR_NORM_HINT},
    [MCF_LOSS_PI] = {MCF_PTR, MCF_PTR, DAR_NORM_HINT},
    [MCF_LOSS_POTENTIAL_HINT] = {MCF_POTENTIAL, MCF_POTENTIAL, DAR_NORM_HINT},
    [MCF_LOSS_FLOW_HINT] = {MCF_FLOW, MCF_FLOW, DAR_NORM_HINT},
    [MCF_LOSS_FLOW] = {MCF_FLOW_OUT, MCF_FLOW_OUT, DAR_NORM_BATCH},
    [MCF_LOSS_POTENTIAL] = {MCF_POTENTIAL_OUT, MCF_POTENTIAL_OUT, DAR_NORM_BATCH},
};

static const char *const trace_keys[] = {"steps", "hint_reached", "hint_distance", "hint_pi", "hint_potential",
                                         "hint_flow", "flow", "maxflow", "mincost", "potential"};
static const char *const solution_keys[] = {"flow", "maxflow", "mincost", "potential"};

static const float *edge_input(const struct dar_graph *dg, int p)
{
    switch (p) {
    case MCF_CAP: return dg->g.cap;
    case MCF_COST: return dg->g.cost;
    default: return NULL;
    }
}

/* ---- the instance --------------------------------------------------------------- */

/* The instance: s, t, cap and cost (graph.h refuses a negative capacity). */
static void read_instance(struct graph *g, const struct record *rec)
{
    algo_read_instance(&dar_algorithm_min_cost_flow, g, rec);
}

/* Solve the exact instance (algo_min_cost_flow_instance.c), or die naming
 * the record and the key at fault: a trace over the bound, no s-t path (the
 * maximum flow is 0 and there is nothing to learn: refused, as max-flow's
 * instances always have one). */
static void solve(const struct mcf_instance *in, const char *source, long index, struct mincost_solution *sol,
                  struct mincost_trace *tr, bool rounds, size_t max_trace_bytes)
{
    struct mincost_error err;
    if (!mincost_flow_as(&in->net, sol, tr, rounds, max_trace_bytes, &err))
        mcf_instance_die(source, index, in, err, NULL);
    if (sol->value == 0)
        die_record_in(source, index, "'t' (node %d) is not reached from 's' (node %d) along edges of positive 'cap': "
                      ALGORITHM " needs a path s->t", in->g.t, in->g.s);
}

/* ---- the tracer (ff-trace) ------------------------------------------------------ */

/* Edge e's flow along src->dst from the arcs' (an undirected edge's two
 * arcs net), in real units. */
static void edge_flows(float *out, const int64_t *arc_flow, const struct graph *g, double units)
{
    for (int e = 0; e < g->m; e++) {
        int64_t f = g->directed ? arc_flow[e] : arc_flow[e] - arc_flow[g->m + e];
        out[e] = (float)((double)f / units);
    }
}

static void real_potentials(float *out, const int64_t *pi, int n, int64_t units)
{
    for (int v = 0; v < n; v++)
        out[v] = (float)((double)pi[v] / (double)units);
}

/* ff-trace's flags of the min-cost flow trace, by bit. */
enum { MCF_TRACE_SP_ROUNDS };
static const struct dar_trace_flag trace_flags[] = {
    [MCF_TRACE_SP_ROUNDS] = {"sp-rounds",
                             "min-cost-flow: a frame per relaxation round of each search and one per "
                             "augmentation, not one per round; adds hint_phase (0 a search's round, 1 an "
                             "augmentation)"},
};

static const char *const rounds_trace_keys[] = {"steps", "hint_phase", "hint_reached", "hint_distance", "hint_pi",
                                                "hint_potential", "hint_flow", "flow", "maxflow", "mincost",
                                                "potential"};

/* The T frames of the hints: R + 1 (the file comment's), or the rounds
 * trace's own (its frame 0 is search 0's start, the same state). */
struct frames {
    uint8_t *reached;
    float *distance, *potential, *flow;
    int32_t *pi;
};

static void frames_of(struct frames *f, const struct mincost_trace *tr, const struct mcf_instance *x, bool rounds)
{
    const struct graph *g = &x->g;
    int first = !rounds;   /* the one-frame trace's frame 0 is built here */
    int n = g->n, m = g->m, T = tr->rounds + first;
    f->reached = xcalloc((size_t)T * n, 1);
    f->distance = xcalloc((size_t)T * n, sizeof *f->distance);
    f->potential = xmalloc(sizeof *f->potential * (size_t)T * n);
    f->pi = xmalloc(sizeof *f->pi * (size_t)T * n);
    f->flow = xcalloc((size_t)T * m + 1, sizeof *f->flow);
    f->reached[g->s] = 1;
    for (int v = 0; v < n; v++)
        f->pi[v] = v;
    for (int i = 0; i < T; i++)
        real_potentials(f->potential + (size_t)i * n, tr->potential + (size_t)(i - first + 1) * n, n,
                        x->cost_units);
    for (int r = 0; r < tr->rounds; r++) {
        size_t at = (size_t)(r + first) * n;
        for (int v = 0; v < n; v++) {
            int64_t d = tr->distance[(size_t)r * n + v];
            f->reached[at + v] = d != MINCOST_UNREACHED;
            f->distance[at + v] = d == MINCOST_UNREACHED ? 0.0f : (float)((double)d / (double)x->cost_units);
            f->pi[at + v] = tr->pointer[(size_t)r * n + v];
        }
        edge_flows(f->flow + (size_t)(r + first) * m, tr->flow + (size_t)r * x->net.m, g, x->cap_units);
    }
}

static void frames_free(struct frames *f)
{
    free(f->reached);
    free(f->distance);
    free(f->potential);
    free(f->pi);
    free(f->flow);
}

static void trace(struct writer *w, const struct record *rec, bool hints, int64_t hint_bytes_limit,
                  struct dar_tracer_buffers *tb)
{
    /* only the flags: a record's arrays are the solver's own, nothing is
     * kept between records */
    bool rounds = tb->flags >> MCF_TRACE_SP_ROUNDS & 1;
    struct mcf_instance x;
    mcf_instance_read(&x, rec);
    const struct graph *g = &x.g;
    struct mincost_solution sol;
    struct mincost_trace tr;
    solve(&x, rec->source, rec->index, &sol, hints ? &tr : NULL, rounds, hints ? (size_t)hint_bytes_limit : 0);
    int64_t n = g->n, m = g->m;
    float *flow = xmalloc(sizeof *flow * ((size_t)m + 1)), *potential = xmalloc(sizeof *potential * (size_t)n);
    edge_flows(flow, sol.flow, g, x.cap_units);
    real_potentials(potential, sol.potential, g->n, x.cost_units);
    if (hints) {
        struct frames f;
        frames_of(&f, &tr, &x, rounds);
        int64_t T = tr.rounds + !rounds;
        /* the rounds keys are the one-frame keys and hint_phase: the
         * one-frame trace of a rounds-traced record drops its hint_phase */
        writer_begin_replacing(w, rec, rounds_trace_keys, 11, rounds ? 11 : 10);
        mp_key(w, "steps");          mp_int(w, T);
        if (rounds) {
            mp_key(w, "hint_phase"); mp_vector(w, DT_U8, T, tr.phase);
        }
        mp_key(w, "hint_reached");   mp_tensor(w, DT_U8, 2, (int64_t[]){T, n}, f.reached);
        mp_key(w, "hint_distance");  mp_tensor(w, DT_F32, 2, (int64_t[]){T, n}, f.distance);
        mp_key(w, "hint_pi");        mp_tensor(w, DT_I32, 2, (int64_t[]){T, n}, f.pi);
        mp_key(w, "hint_potential"); mp_tensor(w, DT_F32, 2, (int64_t[]){T, n}, f.potential);
        mp_key(w, "hint_flow");      mp_tensor(w, DT_F32, 2, (int64_t[]){T, m}, f.flow);
        frames_free(&f);
        mincost_trace_free(&tr);
    } else {
        writer_begin_enriched(w, rec, solution_keys, 4);
    }
    mp_key(w, "flow");      mp_vector(w, DT_F32, m, flow);
    mp_key(w, "maxflow");   mp_double(w, (double)sol.value / x.cap_units);
    mp_key(w, "mincost");   mp_double(w, (double)sol.cost / (x.cap_units * (double)x.cost_units));
    mp_key(w, "potential"); mp_vector(w, DT_F32, n, potential);
    free(flow);
    free(potential);
    mincost_solution_free(&sol);
    mcf_instance_free(&x);
}

/* ---- the record as the model reads it ------------------------------------------- */

/* T frames, every step both networks (phase flags all 0). */
static void all_augment_steps(struct dar_graph *dg, int T)
{
    dg->steps = T;
    dg->phase = xcalloc((size_t)T, 1);
}

/* The rounds trace's phases (hint_phase), checked: each a 0 or a 1, the
 * frames those of searches (the first and the last a search's, no
 * augmentation right after another or before its search's start and a
 * round, at least one: an instance without an s-t path is refused).  Step
 * i's phase is that of the frame it reaches, i + 1 (the last unused). */
static void read_phases(struct dar_graph *dg, const struct record *rec, int64_t T)
{
    uint8_t *phase = record_vector(rec, "hint_phase", DT_U8, T);
    algo_check_flags(rec, "hint_phase", phase, T);
    int64_t augmentations = 0, since = 0;   /* search frames since the last augmentation */
    for (int64_t i = 0; i < T; i++) {
        if (phase[i] == MINCOST_PHASE_AUGMENT && (i == T - 1 || since < 2))
            record_die(rec, "'hint_phase' entry %lld is an augmentation %s", (long long)i,
                       i == T - 1 ? "as the last frame (the last search has none)"
                       : since == 0 && i > 0 ? "right after another"
                                             : "before its search's start and a round");
        augmentations += phase[i];
        since = phase[i] == MINCOST_PHASE_AUGMENT ? 0 : since + 1;
    }
    if (augmentations == 0)
        record_die(rec, "'hint_phase' has no augmentation: a rounds trace pushes flow at least once");
    dg->steps = (int)T;
    dg->phase = xcalloc((size_t)T, 1);
    memcpy(dg->phase, phase + 1, (size_t)T - 1);
    free(phase);
}

bool mcf_rounds(const struct dar_graph *dg)
{
    if (!dg->phase)
        return false;
    for (int i = 0; i < dg->steps; i++)
        if (dg->phase[i] == MINCOST_PHASE_AUGMENT)
            return true;
    return false;
}

static float *read_values(const struct record *rec, const char *key, int ndim, const int64_t *shape)
{
    struct tensor t;
    record_tensor(rec, key, DT_F32, ndim, shape, &t);
    int64_t count = ndim == 1 ? shape[0] : shape[0] * shape[1];
    const float *v = t.data;
    for (int64_t i = 0; i < count; i++)
        if (!isfinite(v[i]))
            record_die(rec, "'%s' entry %lld is %g, expected a finite number", key, (long long)i, v[i]);
    return t.data;
}

static void read_graph(struct dar_graph *dg, const struct record *rec, int need)
{
    const struct dar_algorithm *alg = &dar_algorithm_min_cost_flow;
    memset(dg, 0, sizeof *dg);
    dg->record = rec->index;
    dg->source = rec->source;
    read_instance(&dg->g, rec);
    int64_t n = dg->g.n, m = dg->g.m;

    algo_need_key(alg, rec, "steps", need & DAR_NEED_PHASES, "the model runs the trace's number of rounds");
    if (record_has(rec, "steps")) {
        int64_t T = record_int(rec, "steps");
        if (T < 2 || T > 1000000000)
            record_die(rec, "'steps' is %lld, expected 2..1e9", (long long)T);
        if (record_has(rec, "hint_phase"))
            read_phases(dg, rec, T);
        else
            all_augment_steps(dg, (int)T);
    } else if (record_has(rec, "hint_phase")) {
        record_die(rec, "missing key 'steps' (hint_phase comes with the trace's length)");
    }
    int64_t T = dg->steps;

    static const char *const hint_keys[] = {"hint_reached", "hint_distance", "hint_pi", "hint_potential", "hint_flow"};
    bool need_hints = need & DAR_NEED_HINTS, has_hints = false;
    for (int k = 0; k < 5; k++) {
        algo_need_key(alg, rec, hint_keys[k], need_hints, "training scores the trace's hints");
        has_hints |= record_has(rec, hint_keys[k]);
    }
    if (has_hints) {
        if (!T)
            record_die(rec, "missing key 'steps' (the hints come with the trace's length)");
        int64_t nodes[2] = {T, n}, edges[2] = {T, m};
        struct tensor t;
        record_tensor(rec, "hint_reached", DT_U8, 2, nodes, &t);
        dg->probe[MCF_REACHED] = t.data;
        algo_check_flags(rec, "hint_reached", t.data, T * n);
        record_tensor(rec, "hint_pi", DT_I32, 2, nodes, &t);
        dg->probe[MCF_PTR] = t.data;
        algo_check_pointers(rec, "hint_pi", t.data, T * n, (int)n);
        dg->probe[MCF_DISTANCE] = read_values(rec, "hint_distance", 2, nodes);
        dg->probe[MCF_POTENTIAL] = read_values(rec, "hint_potential", 2, nodes);
        dg->probe[MCF_FLOW] = read_values(rec, "hint_flow", 2, edges);
    }

    const char *solution_why = "training scores the flow and the potentials";
    algo_need_key(alg, rec, "flow", need & DAR_NEED_SOLUTION, solution_why);
    algo_need_key(alg, rec, "potential", need & DAR_NEED_SOLUTION, solution_why);
    if (record_has(rec, "flow"))
        dg->probe[MCF_FLOW_OUT] = read_values(rec, "flow", 1, (int64_t[]){m});
    if (record_has(rec, "potential"))
        dg->probe[MCF_POTENTIAL_OUT] = read_values(rec, "potential", 1, (int64_t[]){n});
}

/* ---- dar-step: predictions, the random baseline ------------------------------------ */

/* An untraced graph runs as many steps as the algorithm takes rounds. */
static void rounds(struct dar_graph *dg)
{
    struct mcf_instance x = {.g = dg->g};     /* the graph stays dg's */
    struct mincost_error err;
    if (!mcf_instance_exact(&x, NULL, &err))
        mcf_instance_die(dg->source, dg->record, &x, err, NULL);
    struct mincost_solution sol;
    solve(&x, dg->source, dg->record, &sol, NULL, false, 0);
    all_augment_steps(dg, sol.rounds + 1);
    mincost_solution_free(&sol);
    mcf_instance_free_arcs(&x);
}

/* A phased model's: the rounds trace's frames and kinds. */
static void rounds_trace_steps(struct dar_graph *dg)
{
    struct mcf_instance x = {.g = dg->g};
    struct mincost_error err;
    if (!mcf_instance_exact(&x, NULL, &err))
        mcf_instance_die(dg->source, dg->record, &x, err, NULL);
    struct mincost_solution sol;
    struct mincost_trace tr;
    solve(&x, dg->source, dg->record, &sol, &tr, true, 0);
    dg->steps = tr.rounds;
    dg->phase = xcalloc((size_t)tr.rounds, 1);
    memcpy(dg->phase, tr.phase + 1, (size_t)tr.rounds - 1);
    mincost_trace_free(&tr);
    mincost_solution_free(&sol);
    mcf_instance_free_arcs(&x);
}

/* The predictions: pred_flow and, for the dual, pred_potential; with
 * hints the frames' pred_hint_* (the dual's potentials among them). */
static const struct algo_prediction predictions[] = {
    {"pred_flow", MCF_FLOW_OUT, DT_F32, false, false},
    {"pred_potential", MCF_POTENTIAL_OUT, DT_F32, false, true},
    {"pred_hint_reached", MCF_REACHED, DT_U8, true, false},
    {"pred_hint_distance", MCF_DISTANCE, DT_F32, true, false},
    {"pred_hint_pi", MCF_PTR, DT_I32, true, false},
    {"pred_hint_potential", MCF_POTENTIAL, DT_F32, true, true},
    {"pred_hint_flow", MCF_FLOW, DT_F32, true, false},
};

static void predict(struct writer *w, const struct record *rec, struct dar_model *model, struct dar_workspace *ws,
                    bool hints, bool embed, int embed_step)
{
    algo_predict(&dar_algorithm_min_cost_flow, w, rec, model, ws, hints, embed, predictions, 7,
                 model->config.phased ? rounds_trace_steps : rounds, NULL);
}

/* The random baseline: max-flow's F = C tanh(R - R') (0 where a directed
 * arc's would run backwards), and potentials U(0, D) but at s (0), D =
 * (n - 1) max |cost|, the most a simple path can cost. */
static void random_baseline(struct writer *w, const struct record *rec, uint64_t seed)
{
    static const char *const keys[] = {"pred_flow", "pred_potential"};
    struct graph g;
    read_instance(&g, rec);
    struct rng r;
    rng_init(&r, seed, rng_stream_id("random-baseline"), (uint64_t)rec->index);
    float *flow = xmalloc(sizeof *flow * ((size_t)g.m + 1)), *potential = xmalloc(sizeof *potential * (size_t)g.n);
    double most = 0;
    algo_random_flow(&r, &g, flow);
    for (int e = 0; e < g.m; e++)
        most = fmax(most, fabs(g.cost[e]));
    for (int v = 0; v < g.n; v++)
        potential[v] = v == g.s ? 0.0f : (float)(rng_uniform(&r) * most * (g.n - 1));
    writer_begin_enriched(w, rec, keys, 2);
    mp_key(w, "pred_flow");      mp_vector(w, DT_F32, g.m, flow);
    mp_key(w, "pred_potential"); mp_vector(w, DT_F32, g.n, potential);
    free(flow);
    free(potential);
    graph_free(&g);
}

/* ---- dar-fit: the validation score -------------------------------------------------- */

/* The mean absolute error of the predicted flow per edge. */
struct flow_error {
    double sum;
    int64_t edges;
};

static void score_flow(const struct dar_graph *g, const void *pred, void *ctx)
{
    struct flow_error *err = ctx;
    const float *flow = pred, *truth = g->probe[MCF_FLOW_OUT];
    for (int e = 0; e < g->g.m; e++)
        err->sum += fabs((double)flow[e] - truth[e]);
    err->edges += g->g.m;
}

static double validation_score(struct dar_model *model, struct dar_workspace *ws, struct dar_graph *graphs,
                               int count, double *kappa)
{
    struct flow_error err = {0};
    algo_predict_batches(model, ws, graphs, count, MCF_FLOW_OUT, true, kappa, score_flow, &err);
    return err.edges ? err.sum / (double)err.edges : 0;
}

/* The processor's checks, and a trace of the kind the model was trained
 * on: a one-frame model cannot follow the rounds trace's steps, nor a
 * phased one a trace without phases. */
static void check(const struct dar_model *model, struct dar_graph *const *graphs, int B, bool training, int embed)
{
    dar_spec_check(model, graphs, B, training, embed);
    for (int b = 0; b < B; b++) {
        const struct dar_graph *g = graphs[b];
        if (!g->phase || mcf_rounds(g) == model->config.phased)
            continue;
        if (model->config.phased)
            die_record_in(g->source, g->record, "a trace of one frame a round, but the model was trained on the "
                          "rounds trace (ff-trace --algorithm " ALGORITHM " --sp-rounds)");
        die_record_in(g->source, g->record, "a rounds trace (hint_phase), but the model was trained on one frame "
                      "a round (ff-trace --algorithm " ALGORITHM ")");
    }
}

/* ---- gen-graphs --instance min-cost-flow ---------------------------------------- */

/* The directed set is a DAG by node order: of the family's arcs, those
 * from a lower to a higher node (the others would close cycles, whose
 * negative costs no potentials could certify). */
static void keep_forward_arcs(struct graph *g)
{
    int kept = 0;
    for (int e = 0; e < g->m; e++)
        if (g->src[e] < g->dst[e]) {
            g->src[kept] = g->src[e];
            g->dst[kept] = g->dst[e];
            kept++;
        }
    g->m = kept;
}

/* The nodes s reaches along edges (arcs when directed) of positive capacity. */
static void reached_from(const struct graph *g, int s, uint8_t *seen, int32_t *queue)
{
    memset(seen, 0, (size_t)g->n);
    int head = 0, tail = 0;
    seen[s] = 1;
    queue[tail++] = s;
    while (head < tail) {
        int u = queue[head++];
        for (int e = 0; e < g->m; e++) {
            if (g->cap[e] <= 0)
                continue;
            int v = g->src[e] == u ? g->dst[e] : !g->directed && g->dst[e] == u ? g->src[e] : -1;
            if (v >= 0 && !seen[v]) {
                seen[v] = 1;
                queue[tail++] = v;
            }
        }
    }
}

/* Keep t when s reaches it, else the highest-numbered node s reaches (from
 * the first s that reaches any), so that every instance has a flow to
 * learn: the tracer refuses one without. */
static void reachable_sink(struct graph *g)
{
    uint8_t *seen = xmalloc((size_t)g->n);
    int32_t *queue = xmalloc(sizeof *queue * (size_t)g->n);
    for (int tries = 0; tries < g->n; tries++) {
        reached_from(g, g->s, seen, queue);
        if (seen[g->t])
            break;
        int t = g->n - 1;
        while (t >= 0 && (t == g->s || !seen[t]))
            t--;
        if (t >= 0) {
            g->t = t;
            break;
        }
        g->s = (g->s + 1) % g->n;
        if (g->t == g->s)
            g->t = (g->s + 1) % g->n;
    }
    free(seen);
    free(queue);
}

/* s, t and cap as max-flow's flow networks draw them (--capacity's law),
 * and a cost per edge: undirected, U{1..10}/10; directed (the DAG set, s =
 * 0 and t = n - 1 when reached), U{-5..10}/10, negative costs without a
 * negative cycle. */
static void instance_keys_of(const struct graphgen_options *o, int64_t k, struct graph *g)
{
    if (o->directed)
        keep_forward_arcs(g);
    graphgen_flow_network.finish(o, k, g);
    free(g->w);
    g->w = NULL;
    if (o->directed) {
        g->s = 0;
        g->t = g->n - 1;
    }
    reachable_sink(g);
    struct rng record, cost;
    rng_init(&record, o->seed, rng_stream_id(o->family), (uint64_t)k);
    rng_init(&cost, rng_u64(&record), rng_stream_id("cost"), 0);
    g->cost = xmalloc(sizeof *g->cost * ((size_t)g->m + 1));
    for (int e = 0; e < g->m; e++) {
        int units = o->directed ? (int)rng_below(&cost, 16) - 5 : 1 + (int)rng_below(&cost, 10);
        g->cost[e] = (float)units / 10.0f;
    }
}

static const struct graphgen_instance generate = {
    .keys_help = "s t cap cost; --directed: a DAG with costs in [-0.5, 1]",
    .flow_network = true, .p_lo = -1, .p_hi = -1, .finish = instance_keys_of,
};

/* The keys of its instance (formats/graph.md, "Instances"). */
static const struct graph_key instance_keys[] = {
    {.key = "s", .dtype = DT_I64, .location = GRAPH_AT_GRAPH, .what = "a source"},
    {.key = "t", .dtype = DT_I64, .location = GRAPH_AT_GRAPH, .check = GRAPH_CHECK_NOT_S, .what = "a sink"},
    {.key = "cap", .dtype = DT_F32, .location = GRAPH_AT_EDGE, .what = "capacities"},
    {.key = "cost", .dtype = DT_F32, .location = GRAPH_AT_EDGE, .what = "a cost per unit of flow"},
};

const struct dar_algorithm dar_algorithm_min_cost_flow = {
    .name = ALGORITHM,
    .summary = "min-cost maximum flow by successive shortest paths with potentials; dual: the potentials",
    .predictions_help = "pred_flow (F = C tanh(P - P^T)), pred_potential (dual); --hints: pred_hint_reached, "
                        "pred_hint_distance, pred_hint_pi, pred_hint_potential (dual), pred_hint_flow",
    .validation_help = "mean absolute error of the flow per edge",
    .nprobes = MCF_PROBES,
    .probes = probes,
    .vessel_replaces = -1,
    .layouts = layouts,
    .nlosses = MCF_LOSSES,
    .loss_names = loss_names,
    .read_graph = read_graph,
    .edge_input = edge_input,
    .check = check,
    .batch_scales = dar_spec_batch_scales,
    .run_group = mcf_run_group,
    .total_loss = dar_spec_total_loss,
    .ntrace_keys = 10,
    .nsolution_keys = 4,
    .trace_keys = trace_keys,
    .solution_keys = solution_keys,
    .trace = trace,
    .predict = predict,
    .random_baseline = random_baseline,
    .validation_score = validation_score,
    .ninstance_keys = sizeof instance_keys / sizeof *instance_keys,
    .instance_keys = instance_keys,
    .generate = &generate,
    .metrics = mcf_metrics,
    .repair_tool = "cost-fix",
    .repair_summary = "Turn a min-cost-flow model's predictions into a feasible flow of the maximum\n"
                      "value, and certify it with the predicted potentials, with no min-cost solver:\n"
                      "each edge's flow clamped into its capacity and rounded, the largest s-t flow\n"
                      "inside it kept, then a max flow on the residual graph added (cost-blind: the\n"
                      "repair does not optimise).  Adds fixed_flow, fixed_value, fixed_cost and,\n"
                      "when the record has potentials, certified (no residual arc of negative\n"
                      "reduced cost under them) and gap (the duality gap, which bounds the excess\n"
                      "over the optimum).  A flow without potentials carries no certificate: no\n"
                      "certified, no gap (metrics' mcf_optimal compares its cost to the optimum).",
    .repair_example = "dar-step --model dual.mp < test.mp | cost-fix | metrics\n"
                      "  ff-trace --algorithm min-cost-flow < g.mp | cost-fix --key flow --potential-key potential",
    .nrepair_options = MCF_REPAIR_OPTIONS,
    .repair_options = mcf_repair_options,
    .repair = mcf_repair,
    .loss_terms = loss_terms,
    .nets_per_step = 2,         /* the search network and the flow network */
    .defaults = DAR_REFERENCE_DEFAULTS,
    .soft_hints = true,
    .ntrace_flags = sizeof trace_flags / sizeof *trace_flags,
    .trace_flags = trace_flags,
    .phased_probes = PHASES,
    .phased_graph = mcf_rounds,
};
