/* algo_vertex_cover_model.c - vertex cover's schedule on the DAR
 * processor: one network per primal-dual round on every graph still
 * running, its hidden state carried from round to round (with its
 * gradient), the decoded hints fed to the next round (the residuals as
 * values, the in-cover flags binarised, the live edges those with no end in
 * the cover, the dual's increments as values), the cover (and the dual's
 * packing) decoded at a graph's last round; no-algo's one
 * recurrent network on the weights.  algo_vertex_cover.c holds the entry's
 * tables and its tools' operations. */
#include "algo_vertex_cover.h"
#include "dar_loss.h"
#include "die.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Per-graph state carried across rounds. */
struct graph_state {
    float *residual;            /* [n] the last residual prediction (w at first) */
    uint8_t *in_cover;          /* [n] the last in-cover prediction, binarised */
    uint8_t *live;              /* [m] edges with neither end in in_cover */
    float *delta;               /* [m] the last increments predicted (dual; 0 at first) */
};

struct vc {
    struct dar_group *c;
    bool dual;                  /* the variant decodes the increments and the packing */
    struct graph_state *st;     /* [B] */
};

static struct dar_head_out *head_of(const struct dar_run *r, int probe)
{
    return (struct dar_head_out *)&r->head[r->net->head_of[probe]];
}

static const void *frame(const struct dar_graph *dg, int probe, int i, int64_t width, size_t size)
{
    return (const char *)dg->probe[probe] + (size_t)i * (size_t)width * size;
}

static void update_live(const struct dar_graph *dg, struct graph_state *st)
{
    for (int e = 0; e < dg->g.m; e++)
        st->live[e] = !st->in_cover[dg->g.src[e]] && !st->in_cover[dg->g.dst[e]];
}

static void state_init(struct vc *f)
{
    struct dar_group *c = f->c;
    for (int b = 0; b < c->B; b++) {
        const struct dar_graph *dg = c->gd[b].dg;
        struct graph_state *st = &f->st[b];
        int n = dg->g.n, m = dg->g.m;
        st->residual = arena_floats(c->arena, n);
        st->in_cover = arena_zero(c->arena, (size_t)n + 1);
        st->live = arena_zero(c->arena, (size_t)m + 1);
        st->delta = arena_zero_floats(c->arena, m + 1);
        memcpy(st->residual, dg->g.node_w, sizeof(float) * (size_t)n);
        update_live(dg, st);
    }
}

static void sigmoid_into(float *out, const float *logit, int n)
{
    for (int v = 0; v < n; v++)
        out[v] = 1.0f / (1.0f + expf(-logit[v]));
}

/* The predicted cover (P(in the cover)) and the dual's packing at graph
 * k's last step of run r. */
static void output_cover(struct vc *f, const struct dar_run *r, int k)
{
    struct dar_group *c = f->c;
    int b = r->graph[k], n = c->gd[b].n, m = c->gd[b].m;
    if (!c->pred || c->training)
        return;
    if (c->pred[b].probe[VC_COVER])
        sigmoid_into(c->pred[b].probe[VC_COVER], head_of(r, VC_COVER)->value + r->node_offset[k], n);
    if (f->dual && c->pred[b].probe[VC_PACKING])
        memcpy(c->pred[b].probe[VC_PACKING], head_of(r, VC_PACKING)->value + r->edge_offset[k],
               sizeof(float) * (size_t)m);
}

/* ---- no-algo: one recurrent network on the weights ------------------------------ */

static void recurrent_inputs(struct dar_group *c, int b, struct dar_inputs *in, void *ctx)
{
    (void)ctx;
    in->probe[VC_W] = c->gd[b].dg->g.node_w;
}

static void no_algo_last_step(struct dar_group *c, const struct dar_run *r, int k, void *ctx)
{
    if (c->training)
        dar_run_losses(c, r, k, 0, false, true);
    output_cover(ctx, r, k);
}

/* ---- the rounds ------------------------------------------------------------------ */

/* Round i's inputs: the last predictions, or the trace's frame i under
 * teacher forcing. */
static void step_inputs(struct dar_group *c, const struct dar_step *s, int k, struct dar_inputs *in, void *ctx)
{
    const struct vc *f = ctx;
    int b = s->list[k], i = s->i;
    const struct dar_graph *dg = c->gd[b].dg;
    const struct graph_state *st = &f->st[b];
    bool forced = s->teacher_forced && dg->probe[VC_RESIDUAL];
    int n = dg->g.n, m = dg->g.m;
    in->probe[VC_W] = dg->g.node_w;
    in->probe[VC_RESIDUAL] = forced ? frame(dg, VC_RESIDUAL, i, n, sizeof(float)) : st->residual;
    in->probe[VC_IN_COVER] = forced ? frame(dg, VC_IN_COVER, i, n, 1) : st->in_cover;
    in->probe[VC_LIVE] = forced ? frame(dg, VC_LIVE, i, m, 1) : st->live;
    if (f->dual)
        in->probe[VC_DELTA] = forced ? frame(dg, VC_DELTA, i, m, sizeof(float)) : st->delta;
}

/* The hints of frame i + 1 and, at the graph's last round, the cover
 * (and the "+opt" loss: the same head toward the optimum when the records
 * carry it, PDNAR's optimal_set_loss). */
static void step_losses(struct dar_group *c, const struct dar_step *s, int k, void *ctx)
{
    (void)ctx;
    dar_run_losses(c, s->run, k, s->i, true, s->i + 2 == c->gd[s->list[k]].T);
}

/* What the next round reads; predictions of frame i + 1 and, at the
 * graph's last round, the cover. */
static void step_update(struct dar_group *c, const struct dar_step *s, int k, void *ctx)
{
    struct vc *f = ctx;
    const struct dar_run *r = s->run;
    int i = s->i, b = r->graph[k], n = c->gd[b].n;
    const struct dar_graph *dg = c->gd[b].dg;
    struct graph_state *st = &f->st[b];
    int64_t nodes = r->node_offset[k];
    memcpy(st->residual, head_of(r, VC_RESIDUAL)->value + nodes, sizeof(float) * (size_t)n);
    const float *in = head_of(r, VC_IN_COVER)->value + nodes;
    for (int v = 0; v < n; v++)
        st->in_cover[v] = in[v] > 0.0f;
    update_live(dg, st);
    if (f->dual)
        memcpy(st->delta, head_of(r, VC_DELTA)->value + r->edge_offset[k], sizeof(float) * (size_t)dg->g.m);
    if (!c->pred)
        return;
    struct dar_prediction *p = &c->pred[b];
    int64_t at = (int64_t)(i + 1) * n;
    if (p->probe[VC_DELTA])
        memcpy((float *)p->probe[VC_DELTA] + (int64_t)(i + 1) * dg->g.m, st->delta,
               sizeof(float) * (size_t)dg->g.m);
    if (p->probe[VC_RESIDUAL]) memcpy((float *)p->probe[VC_RESIDUAL] + at, st->residual, sizeof(float) * (size_t)n);
    if (p->probe[VC_IN_COVER]) memcpy((uint8_t *)p->probe[VC_IN_COVER] + at, st->in_cover, (size_t)n);
    if (i + 2 == c->gd[b].T && !c->training)
        output_cover(f, r, k);
}

static const struct dar_step_ops step_ops = {step_inputs, step_losses, step_update};

static void record_first_frame(struct vc *f)
{
    struct dar_group *c = f->c;
    for (int b = 0; b < c->B; b++) {
        const struct graph_state *st = &f->st[b];
        struct dar_prediction *p = &c->pred[b];
        int n = c->gd[b].n;
        if (p->probe[VC_RESIDUAL]) memcpy(p->probe[VC_RESIDUAL], st->residual, sizeof(float) * (size_t)n);
        if (p->probe[VC_IN_COVER]) memcpy(p->probe[VC_IN_COVER], st->in_cover, (size_t)n);
    }
}

void vc_run_group(struct dar_group *c)
{
    struct vc f = {.c = c, .dual = dar_variant_decodes(c->model, VC_PACKING)};
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
