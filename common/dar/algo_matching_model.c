/* algo_matching_model.c - bipartite matching's schedule on the DAR
 * processor: one network per search on every graph still running, its
 * hidden state carried from search to search (with its gradient), the
 * decoded hints fed to the next search (the binarised reached set and
 * matching, the argmax pointers, the dual's binarised cover), the matching
 * and the cover decoded at a graph's last search; no-algo's one recurrent
 * network on the inputs.  algo_matching.c holds the entry's tables and its
 * tools' operations.
 *
 * The dual's cover hint is trained towards the final cover at every step
 * (as max-flow's cut hint is towards the final cut) and fed back as the
 * model's own previous prediction, never the trace's: the trace has no
 * cover before its last search. */
#include "algo_matching.h"
#include "dar_processor.h"
#include "die.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The loss normalisers of the whole batch, in struct dar_scales. */
struct scales {
    double n_hints;             /* hint terms averaged over: primal 3, dual 4 */
    double count_steps;         /* (graph, step) pairs scored */
    double sum_nodes;           /* Σ_b n */
    double sum_edges;           /* Σ_b m */
};
_Static_assert(sizeof(struct scales) <= sizeof(struct dar_scales), "struct dar_scales is too small");

/* Per-graph state carried across searches, and the graph's constant inputs. */
struct graph_state {
    float *pos;                 /* [n] v/n */
    const uint8_t *side;        /* [n] */
    uint8_t *reached;           /* [n] the last reached prediction, binarised */
    int32_t *pi;                /* [n] the last pointers, argmax */
    uint8_t *matched;           /* [m] the last matching prediction, binarised */
    uint8_t *cover;             /* [n] the dual's last cover prediction, binarised */
    bool has_cover;             /*   false before the first step: no cover input */
};

/* The group as matching sees it. */
struct mt {
    struct dar_group *c;
    struct scales sc;
    bool dual;
    struct graph_state *st;     /* [B] */
};

static struct dar_head_out *head_of(const struct dar_run *r, int probe)
{
    return (struct dar_head_out *)&r->head[r->net->head_of[probe]];
}

/* Frame i of a hint probe: width n (node) or m (edge) entries of size bytes. */
static const void *frame(const struct dar_graph *dg, int probe, int i, size_t size)
{
    int64_t width = probe == MATCH_MATCHED ? dg->g.m : dg->g.n;
    return (const char *)dg->probe[probe] + (size_t)i * (size_t)width * size;
}

static void state_init(struct mt *f)
{
    struct dar_group *c = f->c;
    for (int b = 0; b < c->B; b++) {
        const struct dar_graph *dg = c->gd[b].dg;
        struct graph_state *st = &f->st[b];
        int n = c->gd[b].n, m = c->gd[b].m;
        st->pos = arena_floats(c->arena, n);
        st->side = dg->g.side;
        st->reached = arena_zero(c->arena, (size_t)n);
        st->pi = arena_zero(c->arena, sizeof(int32_t) * (size_t)n);
        st->matched = arena_zero(c->arena, (size_t)m + 1);
        st->cover = arena_zero(c->arena, (size_t)n);
        for (int v = 0; v < n; v++) {
            st->pos[v] = (float)v / (float)n;
            st->pi[v] = v;
            st->reached[v] = dg->g.side[v] == 0;
        }
    }
}

static void constant_inputs(const struct graph_state *st, struct dar_inputs *in)
{
    in->probe[MATCH_POS] = st->pos;
    in->probe[MATCH_SIDE] = st->side;
}

/* ---- the outputs ------------------------------------------------------------------ */

/* The matching's loss and prediction (logits) at graph k's last step of run r. */
static void output_matching(struct mt *f, const struct dar_run *r, int k)
{
    struct dar_group *c = f->c;
    int b = r->graph[k], m = c->gd[b].m;
    const struct dar_graph *dg = c->gd[b].dg;
    const struct dar_head_out *match = head_of(r, MATCH_MATCH_OUT);
    int64_t edges = r->edge_offset[k];
    if (c->training && m)
        c->sum[MATCH_LOSS_MATCH] += dar_probe_loss(c, DAR_TYPE_MASK, 1, c->backward ? match->grad + edges : NULL,
                                                   match->value + edges, dg->probe[MATCH_MATCH_OUT],
                                                   (float)(1.0 / f->sc.sum_edges), m);
    if (c->pred && c->pred[b].probe[MATCH_MATCH_OUT] && m)
        memcpy(c->pred[b].probe[MATCH_MATCH_OUT], match->value + edges, sizeof(float) * (size_t)m);
}

/* The dual's cover: loss and prediction (logits) at the last step. */
static void output_cover(struct mt *f, const struct dar_run *r, int k)
{
    struct dar_group *c = f->c;
    int b = r->graph[k], n = c->gd[b].n;
    const struct dar_graph *dg = c->gd[b].dg;
    const struct dar_head_out *cover = head_of(r, MATCH_COVER_OUT);
    int64_t nodes = r->node_offset[k];
    if (c->training)
        c->sum[MATCH_LOSS_COVER] += dar_probe_loss(c, DAR_TYPE_MASK, 1, c->backward ? cover->grad + nodes : NULL,
                                                   cover->value + nodes, dg->probe[MATCH_COVER_OUT],
                                                   (float)(1.0 / f->sc.sum_nodes), n);
    if (c->pred && c->pred[b].probe[MATCH_COVER_OUT])
        memcpy(c->pred[b].probe[MATCH_COVER_OUT], cover->value + nodes, sizeof(float) * (size_t)n);
}

/* ---- no-algo: one recurrent network on the inputs ------------------------------- */

static void recurrent_inputs(struct dar_group *c, int b, struct dar_inputs *in, void *ctx)
{
    const struct mt *f = ctx;
    constant_inputs(&f->st[b], in);
}

static void no_algo_last_step(struct dar_group *c, const struct dar_run *r, int k, void *ctx)
{
    output_matching(ctx, r, k);
}

/* ---- the searches ---------------------------------------------------------------- */

/* Step i's inputs: the last predictions, or the trace's frame i under
 * teacher forcing. */
static void step_inputs(struct dar_group *c, const struct dar_step *s, int k, struct dar_inputs *in, void *ctx)
{
    const struct mt *f = ctx;
    int b = s->list[k], i = s->i;
    const struct dar_graph *dg = c->gd[b].dg;
    const struct graph_state *st = &f->st[b];
    bool forced = s->teacher_forced && dg->probe[MATCH_PI];
    constant_inputs(st, in);
    in->probe[MATCH_REACHED] = forced ? frame(dg, MATCH_REACHED, i, 1) : st->reached;
    in->probe[MATCH_PI] = forced ? frame(dg, MATCH_PI, i, sizeof(int32_t)) : st->pi;
    in->probe[MATCH_MATCHED] = forced ? frame(dg, MATCH_MATCHED, i, 1) : st->matched;
    if (f->dual)
        in->probe[MATCH_COVER] = st->has_cover ? st->cover : NULL;
}

/* The hints of frame i + 1 and, at the graph's last step, the outputs. */
static void step_losses(struct dar_group *c, const struct dar_step *s, int k, void *ctx)
{
    struct mt *f = ctx;
    const struct dar_run *r = s->run;
    bool bw = c->backward;
    int i = s->i, b = r->graph[k], n = c->gd[b].n, m = c->gd[b].m;
    const struct dar_graph *dg = c->gd[b].dg;
    int64_t nodes = r->node_offset[k], edges = r->edge_offset[k], logits = r->pointer_offset[k];
    double per_step = f->sc.count_steps * f->sc.n_hints;
    float node_scale = (float)(1.0 / (n * per_step));
    const struct dar_head_out *reached = head_of(r, MATCH_REACHED), *pi = head_of(r, MATCH_PI);
    const struct dar_head_out *matched = head_of(r, MATCH_MATCHED);
    c->sum[MATCH_LOSS_REACHED] += dar_probe_loss(c, DAR_TYPE_MASK, 1, bw ? reached->grad + nodes : NULL,
                                                 reached->value + nodes, frame(dg, MATCH_REACHED, i + 1, 1),
                                                 node_scale, n);
    c->sum[MATCH_LOSS_PI_HINT] += dar_probe_loss(c, DAR_TYPE_POINTER, 1, bw ? pi->grad + logits : NULL,
                                                 pi->value + logits,
                                                 frame(dg, MATCH_PI, i + 1, sizeof(int32_t)), node_scale, n);
    if (m)
        c->sum[MATCH_LOSS_MATCH_HINT] += dar_probe_loss(c, DAR_TYPE_MASK, 1, bw ? matched->grad + edges : NULL,
                                                        matched->value + edges,
                                                        frame(dg, MATCH_MATCHED, i + 1, 1),
                                                        (float)(1.0 / (m * per_step)), m);
    if (f->dual) {
        const struct dar_head_out *cover = head_of(r, MATCH_COVER);
        c->sum[MATCH_LOSS_COVER_HINT] += dar_probe_loss(c, DAR_TYPE_MASK, 1, bw ? cover->grad + nodes : NULL,
                                                        cover->value + nodes, dg->probe[MATCH_COVER_OUT],
                                                        node_scale, n);
    }
    if (i + 2 != c->gd[b].T)
        return;
    output_matching(f, r, k);
    if (f->dual)
        output_cover(f, r, k);
}

/* What the next step reads; predictions of frame i + 1 and, at the graph's
 * last step, its outputs. */
static void step_update(struct dar_group *c, const struct dar_step *s, int k, void *ctx)
{
    struct mt *f = ctx;
    const struct dar_run *r = s->run;
    int i = s->i, b = r->graph[k], n = c->gd[b].n, m = c->gd[b].m;
    struct graph_state *st = &f->st[b];
    int64_t nodes = r->node_offset[k], edges = r->edge_offset[k], logits = r->pointer_offset[k];
    const float *reached = head_of(r, MATCH_REACHED)->value + nodes;
    const float *pi = head_of(r, MATCH_PI)->value + logits;
    const float *matched = head_of(r, MATCH_MATCHED)->value + edges;
    for (int v = 0; v < n; v++) {
        st->reached[v] = reached[v] > 0.0f;
        st->pi[v] = dar_argmax_row(pi + (int64_t)v * n, n);
    }
    for (int e = 0; e < m; e++)
        st->matched[e] = matched[e] > 0.0f;
    if (f->dual) {
        const float *cover = head_of(r, MATCH_COVER)->value + nodes;
        for (int v = 0; v < n; v++)
            st->cover[v] = cover[v] > 0.0f;
        st->has_cover = true;
    }
    if (!c->pred)
        return;
    struct dar_prediction *p = &c->pred[b];
    int64_t at = (int64_t)(i + 1) * n;
    if (p->probe[MATCH_REACHED]) memcpy((uint8_t *)p->probe[MATCH_REACHED] + at, st->reached, (size_t)n);
    if (p->probe[MATCH_PI]) memcpy((int32_t *)p->probe[MATCH_PI] + at, st->pi, sizeof(int32_t) * (size_t)n);
    if (p->probe[MATCH_MATCHED] && m)
        memcpy((uint8_t *)p->probe[MATCH_MATCHED] + (int64_t)(i + 1) * m, st->matched, (size_t)m);
    if (p->probe[MATCH_COVER]) memcpy((uint8_t *)p->probe[MATCH_COVER] + at, st->cover, (size_t)n);
    if (i + 2 == c->gd[b].T && !c->training) {
        output_matching(f, r, k);
        if (f->dual)
            output_cover(f, r, k);
    }
}

static const struct dar_step_ops step_ops = {step_inputs, step_losses, step_update};

/* Frame 0 of the predicted hints: the initial state. */
static void record_first_frame(struct mt *f)
{
    struct dar_group *c = f->c;
    for (int b = 0; b < c->B; b++) {
        const struct graph_state *st = &f->st[b];
        struct dar_prediction *p = &c->pred[b];
        int n = c->gd[b].n, m = c->gd[b].m;
        if (p->probe[MATCH_REACHED]) memcpy(p->probe[MATCH_REACHED], st->reached, (size_t)n);
        if (p->probe[MATCH_PI]) memcpy(p->probe[MATCH_PI], st->pi, sizeof(int32_t) * (size_t)n);
        if (p->probe[MATCH_MATCHED] && m) memcpy(p->probe[MATCH_MATCHED], st->matched, (size_t)m);
        if (p->probe[MATCH_COVER]) memcpy(p->probe[MATCH_COVER], st->cover, (size_t)n);
    }
}

void match_run_group(struct dar_group *c)
{
    struct mt f = {.c = c, .dual = c->variant == DAR_DUAL};
    memcpy(&f.sc, &c->scales, sizeof f.sc);
    f.st = arena_zero(c->arena, sizeof(struct graph_state) * (size_t)(c->B ? c->B : 1));
    state_init(&f);
    if (c->variant == DAR_NO_ALGO) {
        dar_run_recurrent_group(c, &c->model->nets[0], recurrent_inputs, no_algo_last_step, &f);
        return;
    }
    if (c->pred)
        record_first_frame(&f);
    dar_run_steps(c, &c->model->nets[0], &step_ops, &f);
}

struct dar_scales match_batch_scales(const struct dar_model *model, struct dar_graph *const *graphs, int B,
                                     bool embed_first)
{
    struct scales sc = {0};
    sc.n_hints = model->config.variant == DAR_DUAL ? 4 : 3;
    for (int b = 0; b < B; b++) {
        sc.sum_nodes += graphs[b]->g.n;
        sc.sum_edges += graphs[b]->g.m;
        sc.count_steps += graphs[b]->steps - 1;
    }
    struct dar_scales out = {{0}};
    memcpy(&out, &sc, sizeof sc);
    return out;
}

double match_total_loss(const struct dar_model *model, const double *sum, const struct dar_scales *scales,
                        double *terms)
{
    struct scales sc;
    memcpy(&sc, scales, sizeof sc);
    double total = 0;
    for (int t = 0; t < MATCH_LOSSES; t++) {
        bool hint = t == MATCH_LOSS_REACHED || t == MATCH_LOSS_PI_HINT || t == MATCH_LOSS_MATCH_HINT ||
                    t == MATCH_LOSS_COVER_HINT;
        terms[t] = hint ? sum[t] * sc.n_hints : sum[t];
        total += sum[t];
    }
    return total;
}

void match_check(const struct dar_model *model, struct dar_graph *const *graphs, int B, bool training, int embed)
{
    enum dar_variant variant = model->config.variant;
    if (embed == DAR_EMBED_FIRST)
        die(EX_USAGE, "the matching model has no first-step embedding");
    if (model->config.leak_dual)
        die(EX_USAGE, "--leak-cut feeds max-flow's true min cut; the matching model has none");
    for (int b = 0; b < B; b++) {
        const struct dar_graph *g = graphs[b];
        if (training) {
            if (!g->probe[MATCH_MATCH_OUT] || !g->probe[MATCH_COVER_OUT] ||
                (variant != DAR_NO_ALGO && !g->probe[MATCH_PI]) || !g->phase)
                die(EX_SOFTWARE, "BUG: graph of record %ld loaded without its trace", g->record);
            continue;
        }
        if (!g->phase)
            die_record_in(g->source, g->record, "missing key 'steps' (the model runs the trace's number of "
                          "searches; run ff-trace --algorithm matching first)");
    }
}
