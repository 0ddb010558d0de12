/* algo_matching.c - the bipartite matching entry (algorithm.h): its probes,
 * the networks of each variant, the record's trace (ff-trace --algorithm
 * matching: common/algos/matching.h), predictions and the random baseline
 * (dar-step), the validation score (dar-fit).  The schedule on the
 * processor is algo_matching_model.c.
 *
 * The primal is the maximum matching, an edge mask; the dual the Konig
 * cover, a node mask, read from the last search's reached set R as
 * (A \ R) + (B & R).  Covers are not unique: the model is trained on the
 * trace's, and is scored by validity and size (metrics), never by node
 * accuracy against that one cover.  Every step is a search, so the phase
 * flags are all 1 and are not stored in the record. */
#include "algo_matching.h"
#include "dar_loss.h"
#include "algo_record.h"
#include "die.h"
#include "graph.h"
#include "matching.h"
#include "rng.h"
#include "tensor.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ALGORITHM "matching"

/* ---- the description ------------------------------------------------------------ */

#define IN DAR_STAGE_INPUT
#define HINT DAR_STAGE_HINT
#define OUT DAR_STAGE_OUTPUT
#define NODE DAR_LOCATION_NODE
#define EDGE DAR_LOCATION_EDGE

static const struct dar_probe probes[MATCH_PROBES] = {
    /*                key             encoder    decoder       stage loc   type               width bound vessel */
    [MATCH_POS]       = {NULL,           "pos",     NULL,         IN,   NODE, DAR_TYPE_SCALAR,  1, -1, false},
    [MATCH_SIDE]      = {"side",         "side",    NULL,         IN,   NODE, DAR_TYPE_MASK,    1, -1, false},
    [MATCH_REACHED]   = {"hint_reached", "reached", "reached",    HINT, NODE, DAR_TYPE_MASK,    1, -1, false},
    [MATCH_COVER]     = {NULL,           "covered", "cover_hint", HINT, NODE, DAR_TYPE_MASK,    1, -1, false},
    [MATCH_PI]        = {"hint_pi",      "ptr",     "pi_hint",    HINT, NODE, DAR_TYPE_POINTER, 1, -1, false},
    [MATCH_MATCHED]   = {"hint_match",   "matched", "match_hint", HINT, EDGE, DAR_TYPE_MASK,    1, -1, false},
    [MATCH_MATCH_OUT] = {"match",        NULL,      "match",      OUT,  EDGE, DAR_TYPE_MASK,    1, -1, false},
    [MATCH_COVER_OUT] = {"cover",        NULL,      "cover",      OUT,  NODE, DAR_TYPE_MASK,    1, -1, false},
    [MATCH_START]     = {NULL,           "start",   NULL,         IN,   NODE, DAR_TYPE_MASK,    1, -1, false},
    [MATCH_AUGMENT]   = {NULL,           "augment", NULL,         IN,   NODE, DAR_TYPE_MASK,    1, -1, false},
};

#define BIT(p) (1u << (p))
/* what the networks encode: the inputs; with the searches' hints; and the
 * dual's cover */
#define INPUTS (BIT(MATCH_POS) | BIT(MATCH_SIDE))
/* The step's kind, encoded only by phased models (the row's phased_probes).
 * One network, the kind an input, rather than a network a phase as
 * max-flow's: the three kinds update the same state (reached, pointers,
 * matching), a layer and a new search share the expansion and differ in
 * what they keep, and one network keeps the one-frame models' layout. */
#define PHASES (BIT(MATCH_START) | BIT(MATCH_AUGMENT))
#define HINTS (INPUTS | BIT(MATCH_REACHED) | BIT(MATCH_PI) | BIT(MATCH_MATCHED) | PHASES)
#define HINTS_COVER (HINTS | BIT(MATCH_COVER))

/* One network steps through the searches; the dual encodes and decodes the
 * cover besides; no-algo maps the inputs to the matching without hints.
 * There is no pipeline. */
static const struct dar_layout layouts[DAR_VARIANTS] = {
    [DAR_PRIMAL] = {1, {{"match", HINTS, 4, {MATCH_REACHED, MATCH_PI, MATCH_MATCHED, MATCH_MATCH_OUT}}}},
    [DAR_DUAL] = {1, {{"match", HINTS_COVER, 6, {MATCH_REACHED, MATCH_PI, MATCH_MATCHED, MATCH_COVER,
                                                 MATCH_MATCH_OUT, MATCH_COVER_OUT}}}},
    [DAR_NO_ALGO] = {1, {{"net", INPUTS, 1, {MATCH_MATCH_OUT}}}},
};

static const char *const loss_names[MATCH_LOSSES] = {"reached", "pi_hint", "match_hint", "cover_hint",
                                                     "match", "cover"};

/* The hints against the trace's next frame (the cover hint against the
 * final cover: the trace has none before its last search), the outputs
 * against the solution. */
static const struct dar_loss_term loss_terms[MATCH_LOSSES] = {
    [MATCH_LOSS_REACHED] = {MATCH_REACHED, MATCH_REACHED, DAR_NORM_HINT},
    [MATCH_LOSS_PI_HINT] = {MATCH_PI, MATCH_PI, DAR_NORM_HINT},
    [MATCH_LOSS_MATCH_HINT] = {MATCH_MATCHED, MATCH_MATCHED, DAR_NORM_HINT},
    [MATCH_LOSS_COVER_HINT] = {MATCH_COVER, MATCH_COVER_OUT, DAR_NORM_HINT},
    [MATCH_LOSS_MATCH] = {MATCH_MATCH_OUT, MATCH_MATCH_OUT, DAR_NORM_BATCH},
    [MATCH_LOSS_COVER] = {MATCH_COVER_OUT, MATCH_COVER_OUT, DAR_NORM_BATCH},
};

static const char *const trace_keys[] = {"steps", "hint_reached", "hint_pi", "hint_match", "match", "cover",
                                         "size"};
static const char *const solution_keys[] = {"match", "cover", "size"};

static const float *edge_input(const struct dar_graph *dg, int p) { return NULL; }

/* ---- the record as the model reads it ------------------------------------------- */

/* The instance: a side per node, every edge between A and B. */
static void read_instance(struct graph *g, const struct record *rec)
{
    algo_read_instance(&dar_algorithm_matching, g, rec);
}

/* The most searches a graph takes: min(|A|, |B|) + 1. */
static int most_searches(const struct graph *g)
{
    int a = 0;
    for (int v = 0; v < g->n; v++)
        a += g->side[v] == 0;
    return (a < g->n - a ? a : g->n - a) + 1;
}

/* The trace's [T × width] frames behind the model's frame 0 (initial), as
 * [(T + 1) × width]; size bytes per entry. */
static void *with_first_frame(const void *trace, int64_t T, int64_t width, size_t size, const void *first)
{
    char *out = xmalloc(size * (size_t)((T + 1) * width + 1));
    memcpy(out, first, size * (size_t)width);
    memcpy(out + size * (size_t)width, trace, size * (size_t)(T * width));
    return out;
}

/* The model's frame 0 for a graph: the free A nodes reached from s (every A
 * node: nothing is matched yet), pointers to themselves, no edge matched. */
static void first_frame(const struct graph *g, uint8_t *reached, int32_t *pi, uint8_t *matched)
{
    for (int v = 0; v < g->n; v++) {
        reached[v] = g->side[v] == 0;
        pi[v] = v;
    }
    memset(matched, 0, (size_t)g->m);
}

/* The layered trace's steps and phases (hint_phase), checked: each a 0 or
 * a 1, the frames those of searches (the first and the last a layer, no two
 * augmentations in a row, at most min(|A|, |B|) of them, each search at most
 * n + 1 layers). */
static void read_phases(struct dar_graph *dg, const struct record *rec)
{
    if (!record_has(rec, "steps"))
        record_die(rec, "missing key 'steps' (hint_phase comes with the trace's length)");
    int64_t T = record_int(rec, "steps"), searches = most_searches(&dg->g), n = dg->g.n;
    int64_t most = searches * (n + 1) + searches - 1;
    if (T < 1 || T > most)
        record_die(rec, "'steps' is %lld, expected 1..%lld for a layered trace of min(|A|, |B|) + 1 = %lld searches",
                   (long long)T, (long long)most, (long long)searches);
    uint8_t *phase = record_vector(rec, "hint_phase", DT_U8, T);
    algo_check_flags(rec, "hint_phase", phase, T);
    int64_t augmentations = 0;
    for (int64_t i = 0; i < T; i++) {
        if (phase[i] == MATCHING_PHASE_AUGMENT && (i == 0 || i == T - 1 || phase[i - 1] == MATCHING_PHASE_AUGMENT))
            record_die(rec, "'hint_phase' entry %lld is an augmentation %s", (long long)i,
                       i == 0 ? "before any search" : i == T - 1 ? "after the last search (which has none)"
                                                                 : "right after another");
        augmentations += phase[i];
    }
    if (augmentations >= searches)
        record_die(rec, "'hint_phase' has %lld augmentations, expected at most min(|A|, |B|) = %lld",
                   (long long)augmentations, (long long)searches - 1);
    dg->steps = (int)T + 1;
    dg->phase = xcalloc((size_t)T + 1, 1);
    memcpy(dg->phase, phase, (size_t)T);
    free(phase);
}

bool match_layered(const struct dar_graph *dg)
{
    return dg->phase && dg->phase[0] == MATCHING_PHASE_SEARCH;
}

static void read_graph(struct dar_graph *dg, const struct record *rec, int need)
{
    memset(dg, 0, sizeof *dg);
    dg->record = rec->index;
    dg->source = rec->source;
    read_instance(&dg->g, rec);
    int64_t n = dg->g.n, m = dg->g.m;

    algo_need_key(&dar_algorithm_matching, rec, "steps", need & DAR_NEED_PHASES, "the model runs the trace's number of searches");
    if (record_has(rec, "hint_phase")) {
        read_phases(dg, rec);
    } else if (record_has(rec, "steps")) {
        int64_t T = record_int(rec, "steps"), most = most_searches(&dg->g);
        if (T < 1 || T > most)
            record_die(rec, "'steps' is %lld, expected 1..min(|A|, |B|) + 1 = %lld", (long long)T, (long long)most);
        algo_all_rounds(dg, (int)T + 1);
    }
    int64_t T = dg->steps - 1;

    const char *hint_why = "training scores the trace's hints";
    bool need_hints = need & DAR_NEED_HINTS;
    algo_need_key(&dar_algorithm_matching, rec, "hint_reached", need_hints, hint_why);
    algo_need_key(&dar_algorithm_matching, rec, "hint_pi", need_hints, hint_why);
    algo_need_key(&dar_algorithm_matching, rec, "hint_match", need_hints, hint_why);
    if (need_hints || record_has(rec, "hint_reached") || record_has(rec, "hint_pi") ||
        record_has(rec, "hint_match")) {
        if (!dg->steps)
            record_die(rec, "missing key 'steps' (the hints come with the trace's length)");
        uint8_t *reached0 = xmalloc((size_t)n + 1), *matched0 = xmalloc((size_t)m + 1);
        int32_t *pi0 = xmalloc(sizeof *pi0 * ((size_t)n + 1));
        first_frame(&dg->g, reached0, pi0, matched0);
        struct tensor t;
        record_tensor(rec, "hint_reached", DT_U8, 2, (int64_t[]){T, n}, &t);
        algo_check_flags(rec, "hint_reached", t.data, T * n);
        dg->probe[MATCH_REACHED] = with_first_frame(t.data, T, n, 1, reached0);
        tensor_free(&t);
        record_tensor(rec, "hint_pi", DT_I32, 2, (int64_t[]){T, n}, &t);
        algo_check_pointers(rec, "hint_pi", t.data, T * n, (int)n);
        dg->probe[MATCH_PI] = with_first_frame(t.data, T, n, sizeof(int32_t), pi0);
        tensor_free(&t);
        record_tensor(rec, "hint_match", DT_U8, 2, (int64_t[]){T, m}, &t);
        algo_check_flags(rec, "hint_match", t.data, T * m);
        dg->probe[MATCH_MATCHED] = with_first_frame(t.data, T, m, 1, matched0);
        tensor_free(&t);
        free(reached0);
        free(matched0);
        free(pi0);
    }

    const char *solution_why = "training scores the matching and the cover";
    algo_need_key(&dar_algorithm_matching, rec, "match", need & DAR_NEED_SOLUTION, solution_why);
    algo_need_key(&dar_algorithm_matching, rec, "cover", need & DAR_NEED_SOLUTION, solution_why);
    if (record_has(rec, "match")) {
        dg->probe[MATCH_MATCH_OUT] = record_vector(rec, "match", DT_U8, m);
        algo_check_flags(rec, "match", dg->probe[MATCH_MATCH_OUT], m);
    }
    if (record_has(rec, "cover")) {
        dg->probe[MATCH_COVER_OUT] = record_vector(rec, "cover", DT_U8, n);
        algo_check_flags(rec, "cover", dg->probe[MATCH_COVER_OUT], n);
    }
}

/* ---- the tracer (ff-trace) ------------------------------------------------------ */

/* ff-trace's flags of the matching trace, by bit. */
enum { MATCH_TRACE_BFS_LAYERS };
static const struct dar_trace_flag trace_flags[] = {
    [MATCH_TRACE_BFS_LAYERS] = {"bfs-layers",
                                "matching: a frame per BFS layer and one per augmentation, not one per search; "
                                "adds hint_phase (0 a layer, 1 an augmentation)"},
};

static const char *const layered_trace_keys[] = {"steps", "hint_phase", "hint_reached", "hint_pi", "hint_match",
                                                 "match", "cover", "size"};

static void trace(struct writer *w, const struct record *rec, bool hints, int64_t hint_bytes_limit,
                  struct dar_tracer_buffers *tb)
{
    struct graph g;
    read_instance(&g, rec);
    struct matching mt;
    char err[256];
    bool layered = tb->flags >> MATCH_TRACE_BFS_LAYERS & 1;
    if (!matching_trace_as(&mt, g.n, g.m, g.src, g.dst, g.side, hints, layered, (size_t)hint_bytes_limit, err,
                           sizeof err))
        record_die(rec, "%s", err);
    int64_t n = g.n, m = g.m, T = mt.steps;
    if (hints) {
        /* the layered keys are the one-frame keys and hint_phase: the
         * one-frame trace of a layered record drops its hint_phase */
        writer_begin_replacing(w, rec, layered_trace_keys, 8, layered ? 8 : 7);
        mp_key(w, "steps");        mp_int(w, T);
        if (layered) {
            mp_key(w, "hint_phase"); mp_vector(w, DT_U8, T, mt.hint_phase);
        }
        mp_key(w, "hint_reached"); mp_tensor(w, DT_U8, 2, (int64_t[]){T, n}, mt.hint_reached);
        mp_key(w, "hint_pi");      mp_tensor(w, DT_I32, 2, (int64_t[]){T, n}, mt.hint_pi);
        mp_key(w, "hint_match");   mp_tensor(w, DT_U8, 2, (int64_t[]){T, m}, mt.hint_match);
    } else {
        writer_begin_enriched(w, rec, solution_keys, 3);
    }
    mp_key(w, "match"); mp_vector(w, DT_U8, m, mt.match);
    mp_key(w, "cover"); mp_vector(w, DT_U8, n, mt.cover);
    mp_key(w, "size");  mp_int(w, mt.size);
    matching_free(&mt);
    graph_free(&g);
}

/* ---- dar-step: predictions, the random baseline ------------------------------------ */

/* An untraced graph runs as many searches as the algorithm takes on it. */
static void searches(struct dar_graph *dg)
{
    const struct graph *g = &dg->g;
    struct matching mt;
    char err[256];
    if (!matching_trace(&mt, g->n, g->m, g->src, g->dst, g->side, false, 0, err, sizeof err))
        die_record_in(dg->source, dg->record, "%s", err);
    algo_all_rounds(dg, mt.steps + 1);
    matching_free(&mt);
}

/* A phased model's: the layered trace's phases. */
static void layered_searches(struct dar_graph *dg)
{
    const struct graph *g = &dg->g;
    struct matching mt;
    char err[256];
    if (!matching_trace_as(&mt, g->n, g->m, g->src, g->dst, g->side, true, true, SIZE_MAX, err, sizeof err))
        die_record_in(dg->source, dg->record, "%s", err);
    dg->steps = mt.steps + 1;
    dg->phase = xcalloc((size_t)mt.steps + 1, 1);
    memcpy(dg->phase, mt.hint_phase, (size_t)mt.steps);
    matching_free(&mt);
}

static float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

/* The decoded logits as probabilities. */
static void probabilities(struct dar_prediction *p, const struct dar_graph *dg, bool dual)
{
    float *match = p->probe[MATCH_MATCH_OUT], *cover = p->probe[MATCH_COVER_OUT];
    for (int64_t e = 0; e < dg->g.m; e++)
        match[e] = sigmoid(match[e]);
    for (int64_t v = 0; dual && v < dg->g.n; v++)
        cover[v] = sigmoid(cover[v]);
}

static const struct algo_prediction predictions[] = {
    {"pred_match", MATCH_MATCH_OUT, DT_F32, false, false},
    {"pred_cover", MATCH_COVER_OUT, DT_F32, false, true},
    {"pred_hint_reached", MATCH_REACHED, DT_U8, true, false},
    {"pred_hint_pi", MATCH_PI, DT_I32, true, false},
    {"pred_hint_match", MATCH_MATCHED, DT_U8, true, false},
    {"pred_hint_cover", MATCH_COVER, DT_U8, true, true},
};

/* The predictions: pred_match, P(edge matched), and for the dual
 * pred_cover, P(node in the cover), for the repair (match-fix); with hints
 * each frame's decoded pred_hint_reached, pred_hint_pi, pred_hint_match and
 * the dual's pred_hint_cover. */
static void predict(struct writer *w, const struct record *rec, struct dar_model *model, struct dar_workspace *ws,
                    bool hints, bool embed, int embed_step)
{
    algo_predict(&dar_algorithm_matching, w, rec, model, ws, hints, embed, predictions, 6,
                 model->config.phased ? layered_searches : searches, probabilities);
}

/* The random baseline: a score U(0,1) per edge and per node, which the
 * repair turns into a valid matching and cover. */
static void random_baseline(struct writer *w, const struct record *rec, uint64_t seed)
{
    static const char *const keys[] = {"pred_match", "pred_cover"};
    struct graph g;
    read_instance(&g, rec);
    struct rng r;
    rng_init(&r, seed, rng_stream_id("random-baseline"), (uint64_t)rec->index);
    float *match = xmalloc(sizeof *match * ((size_t)g.m + 1)), *cover = xmalloc(sizeof *cover * ((size_t)g.n + 1));
    for (int e = 0; e < g.m; e++)
        match[e] = rng_uniform_f32(&r);
    for (int v = 0; v < g.n; v++)
        cover[v] = rng_uniform_f32(&r);
    writer_begin_enriched(w, rec, keys, 2);
    mp_key(w, "pred_match"); mp_vector(w, DT_F32, g.m, match);
    mp_key(w, "pred_cover"); mp_vector(w, DT_F32, g.n, cover);
    free(match);
    free(cover);
    graph_free(&g);
}

/* ---- dar-fit: the validation score -------------------------------------------------- */

/* 1 − the F1 score of the predicted matching (logit > 0) against the
 * trace's, pooled over the edges of all graphs. */
struct f1 {
    int64_t tp, fp, fn;
};

static void score_matching(const struct dar_graph *g, const void *pred, void *ctx)
{
    struct f1 *f = ctx;
    const uint8_t *truth = g->probe[MATCH_MATCH_OUT];
    const float *logit = pred;
    for (int e = 0; e < g->g.m; e++) {
        bool guess = logit[e] > 0.0f;
        f->tp += guess && truth[e];
        f->fp += guess && !truth[e];
        f->fn += !guess && truth[e];
    }
}

static double validation_score(struct dar_model *model, struct dar_workspace *ws, struct dar_graph *graphs,
                               int count, double *kappa)
{
    struct f1 f = {0};
    algo_predict_batches(model, ws, graphs, count, MATCH_MATCH_OUT, true, kappa, score_matching, &f);
    return f.tp ? 1.0 - 2.0 * (double)f.tp / (double)(2 * f.tp + f.fp + f.fn) : (f.fp + f.fn ? 1.0 : 0.0);
}

/* The processor's checks, and a trace of the kind the model was trained on:
 * a one-frame model cannot follow a layered trace's steps, nor a phased one
 * a trace without phases. */
static void check(const struct dar_model *model, struct dar_graph *const *graphs, int B, bool training, int embed)
{
    dar_spec_check(model, graphs, B, training, embed);
    for (int b = 0; b < B; b++) {
        const struct dar_graph *g = graphs[b];
        if (!g->phase || match_layered(g) == model->config.phased)
            continue;
        if (model->config.phased)
            die_record_in(g->source, g->record, "a trace of one frame per search, but the model was trained on "
                          "the layered trace (ff-trace --algorithm matching --bfs-layers)");
        die_record_in(g->source, g->record, "a layered trace (hint_phase), but the model was trained on one frame "
                      "per search (ff-trace --algorithm matching)");
    }
}

/* The keys of its instance (formats/graph.md, "Instances"). */
static const struct graph_key instance_keys[] = {
    {.key = "side", .dtype = DT_U8, .location = GRAPH_AT_NODE, .check = GRAPH_CHECK_SIDES,
     .what = "a side per node"},
};

const struct dar_algorithm dar_algorithm_matching = {
    .name = ALGORITHM,
    .summary = "Ford-Fulkerson with BFS augmenting paths on s->A->B->t; primal: the matching, dual: the Konig cover",
    .predictions_help = "pred_match (P(edge matched)), pred_cover (P(node in the cover); dual); --hints: "
                        "pred_hint_reached, pred_hint_pi, pred_hint_match, pred_hint_cover (dual)",
    .validation_help = "1 - F1 of the matching",
    .nprobes = MATCH_PROBES,
    .probes = probes,
    .vessel_replaces = -1,
    .layouts = layouts,
    .nlosses = MATCH_LOSSES,
    .loss_names = loss_names,
    .read_graph = read_graph,
    .edge_input = edge_input,
    .check = check,
    .batch_scales = dar_spec_batch_scales,
    .run_group = dar_spec_run_group,
    .total_loss = dar_spec_total_loss,
    .ntrace_keys = 7,
    .nsolution_keys = 3,
    .trace_keys = trace_keys,
    .solution_keys = solution_keys,
    .trace = trace,
    .predict = predict,
    .random_baseline = random_baseline,
    .validation_score = validation_score,
    .ninstance_keys = sizeof instance_keys / sizeof *instance_keys,
    .instance_keys = instance_keys,
    .generate = &graphgen_two_sided,
    .metrics = matching_metrics,
    .repair_tool = "match-fix",
    .repair_summary = "Turn a matching model's scores into a valid matching and a valid vertex\n"
                      "cover, with no solver: the edges taken greedily by score, each node once\n"
                      "(only those scored >= --threshold), and the nodes scored >= 1/2 completed by the more likely\n"
                      "endpoint of every edge left uncovered.  Adds fixed_match, fixed_match_size\n"
                      "and, when the record has pred_cover, cover_valid_before, fixed_cover and\n"
                      "fixed_cover_size.  A matching and a cover of the same size are both\n"
                      "optimal (Konig), a certificate that needs no ground truth.",
    .repair_example = "dar-step --model dual.mp < test.mp | match-fix | metrics",
    .nrepair_options = MATCH_REPAIR_OPTIONS,
    .repair_options = match_repair_options,
    .repair = match_repair,
    .loss_terms = loss_terms,
    .nets_per_step = 1,
    .defaults = DAR_REFERENCE_DEFAULTS,
    .schedule = &match_schedule,
    .soft_hints = true,
    .ntrace_flags = sizeof trace_flags / sizeof *trace_flags,
    .trace_flags = trace_flags,
    .phased_probes = PHASES,
    .phased_graph = match_layered,
};
