/* algo_vertex_cover.c - the vertex-cover entry (algorithm.h): its probes,
 * the networks of each variant, the record's trace (ff-trace --algorithm
 * vertex-cover: common/algos/vertex_cover.h), predictions and the random
 * baseline (dar-step), the validation score (dar-fit).  The schedule on the
 * processor is algo_vertex_cover_model.c.
 *
 * The mirror of max-flow: the primal (the cover) lives on nodes, the dual
 * (the packing y) on edges.  The primal variant learns the rounds' residual
 * weights and in-cover flags and the cover; no-algo maps the weights to the
 * cover without hints; the dual also the increments δ_e and the packing
 * y (edge scalars, the symmetric edge head).  The trace is an approximation algorithm's: the validation score is the
 * predicted cover's weight (completed by PDNAR's rule) over the
 * algorithm's, not an error against an optimum. */
#include "algo_vertex_cover.h"
#include "dar_loss.h"
#include "algo_record.h"
#include "die.h"
#include "graph.h"
#include "rng.h"
#include "tensor.h"
#include "vertex_cover.h"
#include "vertex_cover_exact.h"
#include "vertex_cover_repair.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ALGORITHM "vertex-cover"

/* ---- the description ------------------------------------------------------------ */

#define IN DAR_STAGE_INPUT
#define HINT DAR_STAGE_HINT
#define OUT DAR_STAGE_OUTPUT
#define NODE DAR_LOCATION_NODE
#define EDGE DAR_LOCATION_EDGE

static const struct dar_probe probes[VC_PROBES] = {
    /*            key              encoder     decoder     stage loc   type             width bound vessel */
    [VC_W]        = {"node_w",        "w",        NULL,       IN,   NODE, DAR_TYPE_SCALAR, 1, -1, false},
    [VC_RESIDUAL] = {"hint_residual", "residual", "residual", HINT, NODE, DAR_TYPE_SCALAR, 1, -1, false},
    [VC_IN_COVER] = {"hint_in_cover", "in_cover", "in_cover", HINT, NODE, DAR_TYPE_MASK,   1, -1, false},
    [VC_LIVE]     = {"hint_live",     "live",     NULL,       HINT, EDGE, DAR_TYPE_MASK,   1, -1, false},
    [VC_DELTA]    = {"hint_delta",    "delta",    "delta",    HINT, EDGE, DAR_TYPE_SCALAR, 1, -1, false},
    [VC_COVER]    = {"cover",         NULL,       "cover",    OUT,  NODE, DAR_TYPE_MASK,   1, -1, false},
    [VC_PACKING]  = {"packing",       NULL,       "packing",  OUT,  EDGE, DAR_TYPE_SCALAR, 1, -1, false},
    [VC_OPT]      = {"opt_cover",     NULL,       NULL,       OUT,  NODE, DAR_TYPE_MASK,   1, -1, false},
};

#define BIT(p) (1u << (p))
#define INPUTS BIT(VC_W)
#define HINTS (INPUTS | BIT(VC_RESIDUAL) | BIT(VC_IN_COVER) | BIT(VC_LIVE))
#define HINTS_DELTA (HINTS | BIT(VC_DELTA))

/* One network steps through the rounds; the dual encodes and decodes the
 * increments besides and decodes the packing; no-algo maps the weights to
 * the cover without hints.  No pipeline: the packing is no input a
 * separate network could hand over before the rounds start. */
static const struct dar_layout layouts[DAR_VARIANTS] = {
    [DAR_PRIMAL] = {1, {{"vc", HINTS, 3, {VC_RESIDUAL, VC_IN_COVER, VC_COVER}}}},
    [DAR_DUAL] = {1, {{"vc", HINTS_DELTA, 5, {VC_RESIDUAL, VC_IN_COVER, VC_DELTA, VC_COVER, VC_PACKING}}}},
    [DAR_NO_ALGO] = {1, {{"net", INPUTS, 1, {VC_COVER}}}},
};

static const char *const loss_names[VC_LOSSES] = {"residual", "in_cover", "delta", "cover", "packing", "opt"};

/* The hints against the trace's next frame (the increments per edge and
 * round of the batch, not averaged with the node hints), the outputs
 * against the solution, and "+opt": the cover head against the optimum
 * when the records carry it (PDNAR's optimal_set_loss), its gradient added
 * to the algorithm's. */
static const struct dar_loss_term loss_terms[VC_LOSSES] = {
    [VC_LOSS_RESIDUAL] = {VC_RESIDUAL, VC_RESIDUAL, DAR_NORM_HINT},
    [VC_LOSS_IN_COVER] = {VC_IN_COVER, VC_IN_COVER, DAR_NORM_HINT},
    [VC_LOSS_DELTA] = {VC_DELTA, VC_DELTA, DAR_NORM_STEPS},
    [VC_LOSS_COVER] = {VC_COVER, VC_COVER, DAR_NORM_BATCH},
    [VC_LOSS_PACKING] = {VC_PACKING, VC_PACKING, DAR_NORM_BATCH},
    [VC_LOSS_OPT] = {VC_COVER, VC_OPT, DAR_NORM_BATCH},
};

static const char *const trace_keys[] = {"steps", "hint_residual", "hint_in_cover", "hint_delta", "hint_live",
                                         "cover", "packing"};
static const char *const solution_keys[] = {"cover", "packing"};

static const float *edge_input(const struct dar_graph *dg, int p)
{
    (void)dg;
    (void)p;
    return NULL;
}

/* ---- the record as the model reads it ------------------------------------------- */

/* The instance: node weights on an undirected graph. */
static void read_instance(struct graph *g, const struct record *rec)
{
    algo_read_instance(&dar_algorithm_vertex_cover, g, rec);
    if (g->directed)
        record_die(rec, "'directed' is true; " ALGORITHM " runs on undirected graphs");
}

static void read_graph(struct dar_graph *dg, const struct record *rec, int need)
{
    memset(dg, 0, sizeof *dg);
    dg->record = rec->index;
    dg->source = rec->source;
    read_instance(&dg->g, rec);
    int64_t n = dg->g.n, m = dg->g.m;

    algo_need_key(&dar_algorithm_vertex_cover, rec, "steps", need & DAR_NEED_PHASES, "the model runs the trace's number of rounds");
    if (record_has(rec, "steps")) {
        int64_t T = record_int(rec, "steps");
        if (T < 1 || T > n + 1)
            record_die(rec, "'steps' is %lld, expected 1..n + 1 = %lld", (long long)T, (long long)n + 1);
        algo_all_rounds(dg, (int)T);
    }
    int64_t T = dg->steps;

    const char *hint_why = "training scores the trace's hints";
    bool need_hints = need & DAR_NEED_HINTS;
    static const char *const hint_keys[] = {"hint_residual", "hint_in_cover", "hint_delta", "hint_live"};
    bool any = false;
    for (int k = 0; k < 4; k++) {
        algo_need_key(&dar_algorithm_vertex_cover, rec, hint_keys[k], need_hints, hint_why);
        any |= record_has(rec, hint_keys[k]);
    }
    if (need_hints || any) {
        if (!T)
            record_die(rec, "missing key 'steps' (the hints come with the trace's length)");
        for (int k = 0; k < 4; k++)
            algo_need_key(&dar_algorithm_vertex_cover, rec, hint_keys[k], true, "the hints come together");
        int64_t nodes[2] = {T, n}, edges[2] = {T, m};
        struct tensor t;
        dg->probe[VC_RESIDUAL] = algo_read_amounts(rec, "hint_residual", 2, nodes);
        record_tensor(rec, "hint_in_cover", DT_U8, 2, nodes, &t);
        dg->probe[VC_IN_COVER] = t.data;
        algo_check_flags(rec, "hint_in_cover", t.data, T * n);
        dg->probe[VC_DELTA] = algo_read_amounts(rec, "hint_delta", 2, edges);
        record_tensor(rec, "hint_live", DT_U8, 2, edges, &t);
        dg->probe[VC_LIVE] = t.data;
        algo_check_flags(rec, "hint_live", t.data, T * m);
    }

    const char *solution_why = "training scores the cover and the packing";
    algo_need_key(&dar_algorithm_vertex_cover, rec, "cover", need & DAR_NEED_SOLUTION, solution_why);
    algo_need_key(&dar_algorithm_vertex_cover, rec, "packing", need & DAR_NEED_SOLUTION, solution_why);
    if (record_has(rec, "cover")) {
        dg->probe[VC_COVER] = record_vector(rec, "cover", DT_U8, n);
        algo_check_flags(rec, "cover", dg->probe[VC_COVER], n);
    }
    if (record_has(rec, "packing"))
        dg->probe[VC_PACKING] = algo_read_amounts(rec, "packing", 1, (int64_t[]){m});
    if (record_has(rec, "opt_cover")) {
        dg->probe[VC_OPT] = record_vector(rec, "opt_cover", DT_U8, n);
        algo_check_flags(rec, "opt_cover", dg->probe[VC_OPT], n);
    }
}

/* ---- the tracer (ff-trace) ------------------------------------------------------ */

static void trace(struct writer *w, const struct record *rec, bool hints, int64_t hint_bytes_limit,
                  struct dar_tracer_buffers *tb)
{
    (void)tb;
    struct graph g;
    read_instance(&g, rec);
    struct vertex_cover vc;
    char err[256];
    if (!vertex_cover_trace(&vc, g.n, g.m, g.src, g.dst, g.node_w, VERTEX_COVER_EPSILON, hints,
                            (size_t)hint_bytes_limit, err, sizeof err))
        record_die(rec, "%s", err);
    int64_t n = g.n, m = g.m, T = vc.steps;
    if (hints) {
        writer_begin_enriched(w, rec, trace_keys, 7);
        mp_key(w, "steps");         mp_int(w, T);
        mp_key(w, "hint_residual"); mp_tensor(w, DT_F64, 2, (int64_t[]){T, n}, vc.hint_residual);
        mp_key(w, "hint_in_cover"); mp_tensor(w, DT_U8, 2, (int64_t[]){T, n}, vc.hint_in_cover);
        mp_key(w, "hint_delta");    mp_tensor(w, DT_F64, 2, (int64_t[]){T, m}, vc.hint_delta);
        mp_key(w, "hint_live");     mp_tensor(w, DT_U8, 2, (int64_t[]){T, m}, vc.hint_live);
    } else {
        writer_begin_enriched(w, rec, solution_keys, 2);
    }
    mp_key(w, "cover");   mp_vector(w, DT_U8, n, vc.cover);
    mp_key(w, "packing"); mp_vector(w, DT_F64, m, vc.packing);
    vertex_cover_free(&vc);
    graph_free(&g);
}

/* ---- dar-step: predictions, the random baseline ------------------------------------ */

/* An untraced graph runs as many rounds as the algorithm takes on it. */
static void rounds(struct dar_graph *dg)
{
    const struct graph *g = &dg->g;
    struct vertex_cover vc;
    char err[256];
    if (!vertex_cover_trace(&vc, g->n, g->m, g->src, g->dst, g->node_w, VERTEX_COVER_EPSILON, false, 0, err,
                            sizeof err))
        die_record_in(dg->source, dg->record, "%s", err);
    algo_all_rounds(dg, vc.steps);
    vertex_cover_free(&vc);
}

/* The predictions: pred_cover (the cover head's probability, for
 * cover-fix) and the dual's pred_packing; with
 * hints the rounds' pred_hint_residual, pred_hint_in_cover and the dual's
 * pred_hint_delta. */
static const struct algo_prediction predictions[] = {
    {"pred_cover", VC_COVER, DT_F32, false, false},
    {"pred_packing", VC_PACKING, DT_F32, false, true},
    {"pred_hint_residual", VC_RESIDUAL, DT_F32, true, false},
    {"pred_hint_in_cover", VC_IN_COVER, DT_U8, true, false},
    {"pred_hint_delta", VC_DELTA, DT_F32, true, true},
};

static void predict(struct writer *w, const struct record *rec, struct dar_model *model, struct dar_workspace *ws,
                    bool hints, bool embed, int embed_step)
{
    algo_predict(&dar_algorithm_vertex_cover, w, rec, model, ws, hints, embed, predictions, 5, rounds, NULL);
}

/* The random baseline: a cover score U(0,1) per node, and a packing U(0,1)
 * times the lighter end's weight per edge (cover-fix completes and scales
 * them). */
static void random_baseline(struct writer *w, const struct record *rec, uint64_t seed)
{
    static const char *const keys[] = {"pred_cover", "pred_packing"};
    struct graph g;
    read_instance(&g, rec);
    struct rng r;
    rng_init(&r, seed, rng_stream_id("random-baseline"), (uint64_t)rec->index);
    float *cover = xmalloc(sizeof *cover * ((size_t)g.n + 1)), *y = xmalloc(sizeof *y * ((size_t)g.m + 1));
    for (int v = 0; v < g.n; v++)
        cover[v] = rng_uniform_f32(&r);
    for (int e = 0; e < g.m; e++)
        y[e] = rng_uniform_f32(&r) * fminf(g.node_w[g.src[e]], g.node_w[g.dst[e]]);
    writer_begin_enriched(w, rec, keys, 2);
    mp_key(w, "pred_cover");   mp_vector(w, DT_F32, g.n, cover);
    mp_key(w, "pred_packing"); mp_vector(w, DT_F32, g.m, y);
    free(cover);
    free(y);
    graph_free(&g);
}

/* ---- dar-fit: the validation score -------------------------------------------------- */

/* The predicted covers' weight, completed by PDNAR's rule, over the
 * algorithm's, summed over the graphs (a ratio of sums: a graph without
 * edges weighs 0 both ways). */
struct weights {
    double ours, theirs;
};

static void score_cover(const struct dar_graph *dg, const void *pred, void *ctx)
{
    struct weights *w = ctx;
    const struct graph *g = &dg->g;
    uint8_t *cover = xmalloc((size_t)g->n + 1);
    vertex_cover_complete(g->n, g->m, g->src, g->dst, g->node_w, pred, 0.5, VERTEX_COVER_COMPLETE_RATIO, cover);
    w->ours += vertex_cover_weight(g->n, g->node_w, cover);
    w->theirs += vertex_cover_weight(g->n, g->node_w, dg->probe[VC_COVER]);
    free(cover);
}

static double validation_score(struct dar_model *model, struct dar_workspace *ws, struct dar_graph *graphs,
                               int count, double *kappa)
{
    struct weights w = {0};
    algo_predict_batches(model, ws, graphs, count, VC_COVER, false, kappa, score_cover, &w);
    return w.theirs > 0 ? w.ours / w.theirs : 0;
}

/* The instance's lightest cover, as PDNAR's datasets carry it for its
 * "+opt" loss and its ratio to the optimum (gen-graphs --optimum-nodes):
 * the min cut on a graph with sides (always optimal), else GLPK within the
 * node budget and its status. */
static void write_optimum(struct writer *w, const struct graph *g, int64_t node_limit)
{
    uint8_t *cover = xmalloc((size_t)g->n + 1);
    double weight;
    enum vertex_cover_status status = VERTEX_COVER_OPTIMAL;
    if (g->side)
        weight = vertex_cover_min_cut(g->n, g->m, g->src, g->dst, g->side, g->node_w, cover);
    else
        status = vertex_cover_ilp(g->n, g->m, g->src, g->dst, g->node_w, node_limit, cover, &weight);
    mp_key(w, "opt_cover");  mp_vector(w, DT_U8, g->n, cover);
    mp_key(w, "opt_weight"); mp_double(w, weight);
    mp_key(w, "opt_status"); mp_str(w, vertex_cover_status_name(status));
    free(cover);
}

/* The keys of its instance (formats/graph.md, "Instances"). */
static const struct graph_key instance_keys[] = {
    {.key = "node_w", .dtype = DT_F32, .location = GRAPH_AT_NODE, .what = "node weights"},
};

const struct dar_algorithm dar_algorithm_vertex_cover = {
    .name = ALGORITHM,
    .summary = "PDNAR's primal-dual rounds with uniform increases; primal: the cover, dual: the edge packing",
    .predictions_help = "pred_cover (P(node in the cover)), pred_packing (the packing y; dual); --hints: "
                        "pred_hint_residual, pred_hint_in_cover, pred_hint_delta (dual)",
    .validation_help = "the completed cover's weight over the algorithm's (a ratio of sums)",
    .nprobes = VC_PROBES,
    .probes = probes,
    .vessel_replaces = -1,
    .layouts = layouts,
    .nlosses = VC_LOSSES,
    .loss_names = loss_names,
    .read_graph = read_graph,
    .edge_input = edge_input,
    .check = dar_spec_check,
    .batch_scales = dar_spec_batch_scales,
    .run_group = dar_spec_run_group,
    .total_loss = dar_spec_total_loss,
    .ntrace_keys = 7,
    .nsolution_keys = 2,
    .trace_keys = trace_keys,
    .solution_keys = solution_keys,
    .trace = trace,
    .predict = predict,
    .random_baseline = random_baseline,
    .validation_score = validation_score,
    .ninstance_keys = sizeof instance_keys / sizeof *instance_keys,
    .instance_keys = instance_keys,
    .generate = &graphgen_node_weighted,
    .noptimum_keys = 3,
    .write_optimum = write_optimum,
    .optimum_help = "the lightest cover (opt_cover, opt_weight, opt_status): the min cut on bipartite-sides, else "
                    "GLPK's branch and bound stopped after N nodes per graph (its status says if proven; the same on "
                    "every machine)",
    .metrics = vertex_cover_metrics,
    .repair_tool = "cover-fix",
    .repair_summary = "Turn a vertex-cover model's predictions into a valid cover and a feasible\n"
                      "edge packing, with no solver.  The nodes scored above --threshold start the\n"
                      "cover; while an edge is uncovered a node joins: the one of least weight per\n"
                      "uncovered edge (ratio, PDNAR's corrective stage) or the edge's endpoint of\n"
                      "higher score (score).  A predicted packing is clamped to >= 0 and each edge\n"
                      "scaled by min(s_u, s_v), s_v = min(1, w_v / load_v).  Adds fixed_cover,\n"
                      "fixed_cover_weight, cover_added, and with a packing fixed_packing,\n"
                      "packing_value (its sum) and packing_excess (the overloads before).  By weak\n"
                      "duality fixed_cover_weight / packing_value bounds the cover's distance to\n"
                      "the optimum.",
    .repair_example = "dar-step --model dual.mp < test.mp | cover-fix | metrics\n"
                      "  ff-trace --algorithm vertex-cover < g.mp | cover-fix --key cover --dual-key packing",
    .nrepair_options = VC_REPAIR_OPTIONS,
    .repair_options = vc_repair_options,
    .repair = vc_repair,
    .loss_terms = loss_terms,
    .nets_per_step = 1,
    .defaults = DAR_REFERENCE_DEFAULTS,
    .schedule = &vc_schedule,
    .soft_hints = true,
};
