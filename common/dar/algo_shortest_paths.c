/* algo_shortest_paths.c - the shortest-paths entry (algorithm.h): its
 * probes, the networks of each variant, the record's trace (ff-trace
 * --algorithm shortest-paths: common/algos/bellman_ford.h), predictions and
 * the random baseline (dar-step), the validation score (dar-fit).  The
 * schedule on the processor is algo_shortest_paths_model.c.
 *
 * The primal is the shortest-path tree from s (pointers pi), the dual the
 * LP potentials d (feasible: d_v <= d_u + w_uv on every edge, tight on the
 * tree).  The primal variant learns Bellman-Ford's pointers and reached set
 * round by round; the dual adds the potentials as a hint and an output.
 * Every step is a Bellman-Ford round, so the schedule's phase flags are all
 * 1 and are not stored in the record. */
#include "algo_shortest_paths.h"
#include "dar_loss.h"
#include "algo_record.h"
#include "bellman_ford.h"
#include "die.h"
#include "graph.h"
#include "rng.h"
#include "tensor.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ALGORITHM "shortest-paths"

/* ---- the description ------------------------------------------------------------ */

#define IN DAR_STAGE_INPUT
#define HINT DAR_STAGE_HINT
#define OUT DAR_STAGE_OUTPUT
#define NODE DAR_LOCATION_NODE
#define EDGE DAR_LOCATION_EDGE

static const struct dar_probe probes[SP_PROBES] = {
    /*           key             encoder    decoder      stage loc   type               width bound vessel */
    [SP_POS]     = {NULL,           "pos",     NULL,        IN,   NODE, DAR_TYPE_SCALAR,   1, -1, false},
    [SP_S]       = {"s",            "s",       NULL,        IN,   NODE, DAR_TYPE_MASK_ONE, 1, -1, false},
    [SP_W]       = {"w",            "w",       NULL,        IN,   EDGE, DAR_TYPE_SCALAR,   1, -1, false},
    [SP_REACHED] = {"hint_reached", "reached", "reached",   HINT, NODE, DAR_TYPE_MASK,     1, -1, false},
    [SP_D]       = {"hint_d",       "dist",    "dist_hint", HINT, NODE, DAR_TYPE_SCALAR,   1, -1, false},
    [SP_PI]      = {"hint_pi",      "ptr",     "pi_hint",   HINT, NODE, DAR_TYPE_POINTER,  1, -1, false},
    [SP_PI_OUT]  = {"pi",           NULL,      "pi",        OUT,  NODE, DAR_TYPE_POINTER,  1, -1, false},
    [SP_D_OUT]   = {"d",            NULL,      "d",         OUT,  NODE, DAR_TYPE_SCALAR,   1, -1, false},
};

#define BIT(p) (1u << (p))
/* what the networks encode: the inputs; with the primal's hints; and the
 * dual's potentials */
#define INPUTS (BIT(SP_POS) | BIT(SP_S) | BIT(SP_W))
#define HINTS (INPUTS | BIT(SP_REACHED) | BIT(SP_PI))
#define HINTS_D (HINTS | BIT(SP_D))

/* One network steps through the rounds (CLRS's single processor); the dual
 * encodes and decodes the potentials besides; no-algo maps the inputs to
 * the tree without hints.  There is no pipeline: the potentials are not an
 * input a separate network could hand over before the rounds start. */
static const struct dar_layout layouts[DAR_VARIANTS] = {
    [DAR_PRIMAL] = {1, {{"bf", HINTS, 3, {SP_REACHED, SP_PI, SP_PI_OUT}}}},
    [DAR_DUAL] = {1, {{"bf", HINTS_D, 5, {SP_REACHED, SP_PI, SP_D, SP_PI_OUT, SP_D_OUT}}}},
    [DAR_NO_ALGO] = {1, {{"net", INPUTS, 1, {SP_PI_OUT}}}},
};

static const char *const loss_names[SP_LOSSES] = {"reached", "pi_hint", "d_hint", "pi", "d"};

/* The hints against the trace's next frame, the outputs against the
 * solution. */
static const struct dar_loss_term loss_terms[SP_LOSSES] = {
    [SP_LOSS_REACHED] = {SP_REACHED, SP_REACHED, DAR_NORM_HINT},
    [SP_LOSS_PI_HINT] = {SP_PI, SP_PI, DAR_NORM_HINT},
    [SP_LOSS_D_HINT] = {SP_D, SP_D, DAR_NORM_HINT},
    [SP_LOSS_PI] = {SP_PI_OUT, SP_PI_OUT, DAR_NORM_BATCH},
    [SP_LOSS_D] = {SP_D_OUT, SP_D_OUT, DAR_NORM_BATCH},
};

static const char *const trace_keys[] = {"steps", "hint_d", "hint_pi", "hint_reached", "d", "pi", "reached"};
static const char *const solution_keys[] = {"d", "pi", "reached"};

static const float *edge_input(const struct dar_graph *dg, int p)
{
    return p == SP_W ? dg->g.w : NULL;
}

/* ---- the record as the model reads it ------------------------------------------- */

/* The instance: s and w on an undirected graph. */
static void read_instance(struct graph *g, const struct record *rec)
{
    algo_read_instance(&dar_algorithm_shortest_paths, g, rec);
    if (g->directed)
        record_die(rec, "'directed' is true; " ALGORITHM " runs on undirected graphs (each edge both ways)");
}

static void read_graph(struct dar_graph *dg, const struct record *rec, int need)
{
    memset(dg, 0, sizeof *dg);
    dg->record = rec->index;
    dg->source = rec->source;
    read_instance(&dg->g, rec);
    int64_t n = dg->g.n;

    const char *steps_why = "the model runs the trace's number of rounds";
    algo_need_key(&dar_algorithm_shortest_paths, rec, "steps", need & DAR_NEED_PHASES, steps_why);
    if (record_has(rec, "steps")) {
        int64_t T = record_int(rec, "steps");
        if (T < 2 || T > n + 1)
            record_die(rec, "'steps' is %lld, expected 2..n + 1 = %lld", (long long)T, (long long)n + 1);
        algo_all_rounds(dg, (int)T);
    }
    int64_t T = dg->steps;

    const char *hint_why = "training scores the trace's hints";
    bool need_hints = need & DAR_NEED_HINTS;
    algo_need_key(&dar_algorithm_shortest_paths, rec, "hint_reached", need_hints, hint_why);
    algo_need_key(&dar_algorithm_shortest_paths, rec, "hint_pi", need_hints, hint_why);
    algo_need_key(&dar_algorithm_shortest_paths, rec, "hint_d", need_hints, hint_why);
    if (need_hints || record_has(rec, "hint_reached") || record_has(rec, "hint_pi") || record_has(rec, "hint_d")) {
        if (!T)
            record_die(rec, "missing key 'steps' (the hints come with the trace's length)");
        int64_t shape[2] = {T, n};
        struct tensor t;
        record_tensor(rec, "hint_reached", DT_U8, 2, shape, &t);
        dg->probe[SP_REACHED] = t.data;
        algo_check_flags(rec, "hint_reached", t.data, T * n);
        record_tensor(rec, "hint_pi", DT_I32, 2, shape, &t);
        dg->probe[SP_PI] = t.data;
        algo_check_pointers(rec, "hint_pi", t.data, T * n, (int)n);
        dg->probe[SP_D] = algo_read_amounts(rec, "hint_d", 2, shape);
    }

    const char *solution_why = "training scores the tree and the potentials";
    algo_need_key(&dar_algorithm_shortest_paths, rec, "pi", need & DAR_NEED_SOLUTION, solution_why);
    algo_need_key(&dar_algorithm_shortest_paths, rec, "d", need & DAR_NEED_SOLUTION, solution_why);
    if (record_has(rec, "pi")) {
        dg->probe[SP_PI_OUT] = record_vector(rec, "pi", DT_I32, n);
        algo_check_pointers(rec, "pi", dg->probe[SP_PI_OUT], n, (int)n);
    }
    if (record_has(rec, "d"))
        dg->probe[SP_D_OUT] = algo_read_amounts(rec, "d", 1, (int64_t[]){n});
}

/* ---- the tracer (ff-trace) ------------------------------------------------------ */

/* The most a trace's hints can take: n + 1 frames of a distance (8 bytes),
 * a pointer (4) and a flag (1) per node (bellman_ford.h's own bound). */
static double most_hint_bytes(const struct graph *g)
{
    return ((double)g->n + 1.0) * 13.0 * (double)g->n;
}

static void trace(struct writer *w, const struct record *rec, bool hints, int64_t hint_bytes_limit,
                  struct dar_tracer_buffers *tb)
{
    struct graph g;
    read_instance(&g, rec);
    if (hints && most_hint_bytes(&g) > (double)hint_bytes_limit)
        record_die(rec, "the trace's hints could take %.3g GiB (n = %d), over the bound of %.3g GiB; "
                   "--no-hints gives the solution without them", most_hint_bytes(&g) / 1073741824.0, g.n,
                   (double)hint_bytes_limit / 1073741824.0);
    struct bellman_ford bf;
    char err[256];
    if (!bellman_ford_trace(&bf, g.n, g.m, g.src, g.dst, g.w, g.s, hints, (size_t)hint_bytes_limit, err,
                            sizeof err))
        record_die(rec, "%s", err);
    int64_t n = g.n, T = bf.steps;
    if (hints) {
        writer_begin_enriched(w, rec, trace_keys, 7);
        mp_key(w, "steps");        mp_int(w, T);
        mp_key(w, "hint_d");       mp_tensor(w, DT_F64, 2, (int64_t[]){T, n}, bf.hint_d);
        mp_key(w, "hint_pi");      mp_tensor(w, DT_I32, 2, (int64_t[]){T, n}, bf.hint_pi);
        mp_key(w, "hint_reached"); mp_tensor(w, DT_U8, 2, (int64_t[]){T, n}, bf.hint_reached);
    } else {
        writer_begin_enriched(w, rec, solution_keys, 3);
    }
    mp_key(w, "d");       mp_vector(w, DT_F64, n, bf.d);
    mp_key(w, "pi");      mp_vector(w, DT_I32, n, bf.pi);
    mp_key(w, "reached"); mp_vector(w, DT_U8, n, bf.reached);
    bellman_ford_free(&bf);
    graph_free(&g);
}

/* ---- dar-step: predictions, the random baseline ------------------------------------ */

/* An untraced graph runs as many rounds as Bellman-Ford takes on it. */
static void rounds(struct dar_graph *dg)
{
    const struct graph *g = &dg->g;
    struct bellman_ford bf;
    char err[256];
    if (!bellman_ford_trace(&bf, g->n, g->m, g->src, g->dst, g->w, g->s, false, 0, err, sizeof err))
        die_record_in(dg->source, dg->record, "%s", err);
    algo_all_rounds(dg, bf.steps);
    bellman_ford_free(&bf);
}

/* The predictions: pred_pi (the tree) and, for the dual, pred_d (the
 * potentials); with hints the rounds' pred_hint_reached, pred_hint_pi and
 * the dual's pred_hint_d. */
static const struct algo_prediction predictions[] = {
    {"pred_pi", SP_PI_OUT, DT_I32, false, false},
    {"pred_d", SP_D_OUT, DT_F32, false, true},
    {"pred_hint_reached", SP_REACHED, DT_U8, true, false},
    {"pred_hint_pi", SP_PI, DT_I32, true, false},
    {"pred_hint_d", SP_D, DT_F32, true, true},
};

static void predict(struct writer *w, const struct record *rec, struct dar_model *model, struct dar_workspace *ws,
                    bool hints, bool embed, int embed_step)
{
    algo_predict(&dar_algorithm_shortest_paths, w, rec, model, ws, hints, embed, predictions, 5, rounds, NULL);
}

/* The random baseline: each node points to a neighbour drawn uniformly (s
 * and isolated nodes to themselves), and a potential U(0,1) per node but s
 * (0), the scale of one edge weight. */
static void random_baseline(struct writer *w, const struct record *rec, uint64_t seed)
{
    static const char *const keys[] = {"pred_pi", "pred_d"};
    struct graph g;
    read_instance(&g, rec);
    struct rng r;
    rng_init(&r, seed, rng_stream_id("random-baseline"), (uint64_t)rec->index);
    /* each node's neighbours in edge order (first[v]..first[v+1] of nbr) */
    int64_t *first = xcalloc((size_t)g.n + 2, sizeof *first);
    int32_t *nbr = xmalloc(sizeof *nbr * (2 * (size_t)g.m + 1)), *pi = xmalloc(sizeof *pi * ((size_t)g.n + 1));
    float *d = xmalloc(sizeof *d * ((size_t)g.n + 1));
    for (int e = 0; e < g.m; e++) {
        first[g.src[e] + 2]++;
        first[g.dst[e] + 2]++;
    }
    for (int v = 0; v < g.n; v++)
        first[v + 2] += first[v + 1];
    for (int e = 0; e < g.m; e++) {
        nbr[first[g.src[e] + 1]++] = g.dst[e];
        nbr[first[g.dst[e] + 1]++] = g.src[e];
    }
    for (int v = 0; v < g.n; v++) {
        int64_t degree = first[v + 1] - first[v];
        pi[v] = v != g.s && degree ? nbr[first[v] + (int64_t)rng_below(&r, (uint64_t)degree)] : v;
        d[v] = v == g.s ? 0.0f : rng_uniform_f32(&r);
    }
    writer_begin_enriched(w, rec, keys, 2);
    mp_key(w, "pred_pi"); mp_vector(w, DT_I32, g.n, pi);
    mp_key(w, "pred_d");  mp_vector(w, DT_F32, g.n, d);
    free(first);
    free(nbr);
    free(pi);
    free(d);
    graph_free(&g);
}

/* ---- dar-fit: the validation score -------------------------------------------------- */

/* 1 − the pointer accuracy of the predicted tree over all nodes (CLRS's
 * score for the task, turned into lower-is-better). */
struct accuracy {
    int64_t right, nodes;
};

static void score_tree(const struct dar_graph *g, const void *pred, void *ctx)
{
    struct accuracy *a = ctx;
    const int32_t *truth = g->probe[SP_PI_OUT], *guess = pred;
    for (int v = 0; v < g->g.n; v++)
        a->right += truth[v] == guess[v];
    a->nodes += g->g.n;
}

static double validation_score(struct dar_model *model, struct dar_workspace *ws, struct dar_graph *graphs,
                               int count, double *kappa)
{
    struct accuracy a = {0};
    algo_predict_batches(model, ws, graphs, count, SP_PI_OUT, false, kappa, score_tree, &a);
    return a.nodes ? 1.0 - (double)a.right / (double)a.nodes : 0;
}

/* The keys of its instance (formats/graph.md, "Instances"). */
static const struct graph_key instance_keys[] = {
    {.key = "s", .dtype = DT_I64, .location = GRAPH_AT_GRAPH, .what = "a source"},
    {.key = "w", .dtype = DT_F32, .location = GRAPH_AT_EDGE, .what = "edge weights"},
};

const struct dar_algorithm dar_algorithm_shortest_paths = {
    .name = ALGORITHM,
    .summary = "synchronous Bellman-Ford rounds from s; primal: the shortest-path tree, dual: the potentials",
    .predictions_help = "pred_pi (the tree), pred_d (the potentials; dual); --hints: pred_hint_reached, pred_hint_pi, pred_hint_d (dual)",
    .validation_help = "1 - pointer accuracy of the tree",
    .nprobes = SP_PROBES,
    .probes = probes,
    .vessel_replaces = -1,
    .layouts = layouts,
    .nlosses = SP_LOSSES,
    .loss_names = loss_names,
    .read_graph = read_graph,
    .edge_input = edge_input,
    .check = dar_spec_check,
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
    .generate = &graphgen_weighted_from_source,
    .metrics = shortest_paths_metrics,
    .loss_terms = loss_terms,
    .nets_per_step = 1,
    .defaults = DAR_REFERENCE_DEFAULTS,
    .schedule = &sp_schedule,
    .soft_hints = true,
};
