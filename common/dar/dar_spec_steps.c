/* dar_spec_steps.c - the group of an entry with one network a step and its
 * hints fed back (dar_loss.h struct dar_spec_schedule, the row's
 * `schedule`): the per-graph state, no-algo's one recurrent network on the
 * inputs, the steps (dar_run_steps) with the trace's frame under teacher
 * forcing, the losses from the row's loss terms, the predicted hints'
 * frames and, at a graph's last step, its outputs.  The entry gives the
 * state's first values, how the decoded heads update it and the outputs.
 * With config.soft_hints the hints a step decodes are fed to the next as
 * probabilities (soft_update), for every entry alike. */
#include "dar_loss.h"
#include "arena.h"
#include <math.h>
#include <string.h>

/* config.soft_hints: graph b's hints as the last step's heads predicted
 * them, NULL before its first step or for a probe not fed so: a mask's
 * σ(logit) [n or m], a pointer's softmax rows [n×n] (fresh each step: the
 * next step's backward reads them) and its head's logits gradient, which
 * that backward feeds (with backward only). */
struct soft_hints {
    float *value[DAR_MAX_PROBES];
    float *grad[DAR_MAX_PROBES];
};

/* The group as the schedule sees it. */
struct spec_group {
    const struct dar_spec_schedule *sch;
    char *states;               /* [B] of sch->state_size bytes */
    bool dual;                  /* the variant decodes the row's dual probe */
    struct soft_hints *soft;    /* [B] config.soft_hints, else NULL */
};

static struct dar_spec_state *state_of(const struct spec_group *g, int b)
{
    return (struct dar_spec_state *)(g->states + (size_t)b * g->sch->state_size);
}

/* A probe's values in one graph, and the bytes of one. */
static int64_t probe_count(const struct dar_probe *p, const struct dar_graph *dg)
{
    return p->location == DAR_LOCATION_EDGE ? dg->g.m : dg->g.n;
}

static size_t value_size(enum dar_type type)
{
    return type == DAR_TYPE_MASK || type == DAR_TYPE_MASK_ONE ? 1 : 4;
}

/* Frame i of the predicted hints of graph b: its state. */
static void record_frame(struct dar_group *c, const struct spec_group *g, int b, int i)
{
    const struct dar_spec_state *st = state_of(g, b);
    struct dar_prediction *p = &c->pred[b];
    for (int q = 0; q < c->alg->nprobes; q++) {
        const struct dar_probe *probe = &c->alg->probes[q];
        if (probe->stage != DAR_STAGE_HINT || !p->probe[q] || !st->hint[q])
            continue;
        size_t bytes = (size_t)probe_count(probe, c->gd[b].dg) * value_size(probe->type);
        if (bytes)
            memcpy((char *)p->probe[q] + (size_t)i * bytes, st->hint[q], bytes);
    }
}

static void constant_inputs(const struct dar_spec_state *st, int nprobes, struct dar_inputs *in)
{
    for (int q = 0; q < nprobes; q++)
        if (st->input[q])
            in->probe[q] = st->input[q];
}

/* ---- no-algo: one recurrent network on the inputs ------------------------------- */

static void recurrent_inputs(struct dar_group *c, int b, struct dar_inputs *in, void *ctx)
{
    constant_inputs(state_of(ctx, b), c->alg->nprobes, in);
}

static void no_algo_last_step(struct dar_group *c, const struct dar_run *r, int k, void *ctx)
{
    const struct spec_group *g = ctx;
    if (c->training)
        dar_run_losses(c, r, k, 0, false, true);
    if (c->pred)
        g->sch->outputs(c, r, k, g->dual);
}

/* ---- the steps ------------------------------------------------------------------- */

/* Step i's inputs: the constant ones, and each hint the network encodes
 * from the state (with soft hints, the probabilities it was decoded from),
 * or the trace's frame i under teacher forcing. */
static void step_inputs(struct dar_group *c, const struct dar_step *s, int k, struct dar_inputs *in, void *ctx)
{
    const struct spec_group *g = ctx;
    int b = s->list[k], i = s->i;
    const struct dar_graph *dg = c->gd[b].dg;
    const struct dar_spec_state *st = state_of(g, b);
    const bool *encodes = s->run->net->encodes;
    bool forced = s->teacher_forced && dg->probe[g->sch->forced_by];
    constant_inputs(st, c->alg->nprobes, in);
    for (int q = 0; q < c->alg->nprobes; q++) {
        const struct dar_probe *probe = &c->alg->probes[q];
        if (probe->stage != DAR_STAGE_HINT || !encodes[q])
            continue;
        if (forced && dg->probe[q]) {
            in->probe[q] = (const char *)dg->probe[q] + (size_t)i * (size_t)probe_count(probe, dg) *
                                                             value_size(probe->type);
            continue;
        }
        in->probe[q] = st->hint[q];
        if (g->soft && g->soft[b].value[q]) {
            in->soft[q] = g->soft[b].value[q];
            in->grad[q] = g->soft[b].grad[q];
        }
    }
}

static void step_losses(struct dar_group *c, const struct dar_step *s, int k, void *ctx)
{
    (void)ctx;
    dar_run_losses(c, s->run, k, s->i, true, s->i + 2 == c->gd[s->list[k]].T);
}

/* The soft hints graph k of run r leaves its next step: each hint the
 * network decodes and encodes, fed back as its own prediction; a scalar
 * is already fed as its value, a categorical one as its class. */
static void soft_update(struct dar_group *c, const struct dar_run *r, int k, struct soft_hints *soft)
{
    const struct dar_graph *dg = c->gd[r->graph[k]].dg;
    int n = dg->g.n;
    for (int q = 0; q < c->alg->nprobes; q++) {
        const struct dar_probe *probe = &c->alg->probes[q];
        int head = r->net->head_of[q];
        if (probe->stage != DAR_STAGE_HINT || head < 0 || !r->net->encodes[q])
            continue;
        const struct dar_head_out *out = &r->head[head];
        if (probe->type == DAR_TYPE_MASK || probe->type == DAR_TYPE_MASK_ONE) {
            int64_t count = probe_count(probe, dg);
            const float *logit = out->value + (probe->location == DAR_LOCATION_EDGE ? r->edge_offset[k]
                                                                                     : r->node_offset[k]);
            float *p = soft->value[q] = arena_floats(c->arena, count);
            for (int64_t v = 0; v < count; v++)
                p[v] = 1.0f / (1.0f + expf(-logit[v]));
        } else if (probe->type == DAR_TYPE_POINTER) {
            /* each row's softmax; a masked logit's probability is 0 */
            const float *logits = out->value + r->pointer_offset[k];
            soft->value[q] = arena_floats(c->arena, (int64_t)n * n);
            soft->grad[q] = c->backward ? out->grad + r->pointer_offset[k] : NULL;
            for (int u = 0; u < n; u++) {
                const float *row = logits + (int64_t)u * n;
                float *p = soft->value[q] + (int64_t)u * n;
                float top = row[0], sum = 0.0f;
                for (int v = 1; v < n; v++)
                    top = row[v] > top ? row[v] : top;
                for (int v = 0; v < n; v++)
                    sum += p[v] = expf(row[v] - top);
                for (int v = 0; v < n; v++)
                    p[v] /= sum;
            }
        }
    }
}

/* What the next step reads; predictions of frame i + 1 and, at the
 * graph's last step, its outputs. */
static void step_update(struct dar_group *c, const struct dar_step *s, int k, void *ctx)
{
    const struct spec_group *g = ctx;
    int b = s->list[k];
    g->sch->update(c, s->run, k, state_of(g, b), g->dual);
    if (g->soft)
        soft_update(c, s->run, k, &g->soft[b]);
    if (!c->pred)
        return;
    record_frame(c, g, b, s->i + 1);
    if (s->i + 2 == c->gd[b].T)
        g->sch->outputs(c, s->run, k, g->dual);
}

static const struct dar_step_ops step_ops = {step_inputs, step_losses, step_update};

void dar_spec_run_group(struct dar_group *c)
{
    struct spec_group g = {.sch = c->alg->schedule};
    g.dual = dar_variant_decodes(c->model, g.sch->dual_probe);
    g.states = arena_zero(c->arena, g.sch->state_size * (size_t)(c->B ? c->B : 1));
    if (c->model->config.soft_hints)
        g.soft = arena_zero(c->arena, sizeof(struct soft_hints) * (size_t)(c->B ? c->B : 1));
    for (int b = 0; b < c->B; b++)
        g.sch->init(c, b, state_of(&g, b));
    if (c->variant == DAR_NO_ALGO) {
        dar_run_recurrent_group(c, &c->model->nets[0], recurrent_inputs, no_algo_last_step, &g);
        return;
    }
    if (c->pred)
        for (int b = 0; b < c->B; b++)
            record_frame(c, &g, b, 0);
    dar_run_steps(c, &c->model->nets[0], &step_ops, &g);
}
