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
#include "dar_loss.h"
#include "die.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    bool dual;                  /* the variant decodes the cover */
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

/* The predicted outputs (logits) at graph k's last step of run r: the
 * matching, and the dual's cover. */
static void predict_outputs(struct mt *f, const struct dar_run *r, int k)
{
    struct dar_group *c = f->c;
    int b = r->graph[k], n = c->gd[b].n, m = c->gd[b].m;
    if (!c->pred)
        return;
    if (c->pred[b].probe[MATCH_MATCH_OUT] && m)
        memcpy(c->pred[b].probe[MATCH_MATCH_OUT], head_of(r, MATCH_MATCH_OUT)->value + r->edge_offset[k],
               sizeof(float) * (size_t)m);
    if (f->dual && c->pred[b].probe[MATCH_COVER_OUT])
        memcpy(c->pred[b].probe[MATCH_COVER_OUT], head_of(r, MATCH_COVER_OUT)->value + r->node_offset[k],
               sizeof(float) * (size_t)n);
}

/* ---- no-algo: one recurrent network on the inputs ------------------------------- */

static void recurrent_inputs(struct dar_group *c, int b, struct dar_inputs *in, void *ctx)
{
    const struct mt *f = ctx;
    constant_inputs(&f->st[b], in);
}

static void no_algo_last_step(struct dar_group *c, const struct dar_run *r, int k, void *ctx)
{
    if (c->training)
        dar_run_losses(c, r, k, 0, false, true);
    predict_outputs(ctx, r, k);
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
    bool last = s->i + 2 == c->gd[s->list[k]].T;
    dar_run_losses(c, s->run, k, s->i, true, last);
    if (last)
        predict_outputs(ctx, s->run, k);
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
    if (i + 2 == c->gd[b].T && !c->training)
        predict_outputs(f, r, k);
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
    struct mt f = {.c = c, .dual = dar_variant_decodes(c->model, MATCH_COVER)};
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
