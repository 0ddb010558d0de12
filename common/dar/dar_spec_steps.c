/* dar_spec_steps.c - the group of an entry with one network a step and its
 * hints fed back (dar_loss.h struct dar_spec_schedule, the row's
 * `schedule`): the per-graph state, no-algo's one recurrent network on the
 * inputs, the steps (dar_run_steps) with the trace's frame under teacher
 * forcing, the losses from the row's loss terms, the predicted hints'
 * frames and, at a graph's last step, its outputs.  The entry gives the
 * state's first values, how the decoded heads update it and the outputs.
 * With config.soft_hints the hints a step decodes are fed to the next as
 * probabilities (dar_soft.c) wherever the state's are. */
#include "dar_loss.h"
#include "arena.h"
#include <string.h>

/* The group as the schedule sees it. */
struct spec_group {
    const struct dar_spec_schedule *sch;
    char *states;               /* [B] of sch->state_size bytes */
    bool dual;                  /* the variant decodes the row's dual probe */
    struct dar_soft_hints *soft;    /* [B] config.soft_hints, else NULL */
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
        if (g->soft)
            dar_soft_hints_feed(&g->soft[b], q, in);
    }
}

static void step_losses(struct dar_group *c, const struct dar_step *s, int k, void *ctx)
{
    (void)ctx;
    dar_run_losses(c, s->run, k, s->i, true, s->i + 2 == c->gd[s->list[k]].T);
}

/* What the next step reads; predictions of frame i + 1 and, at the
 * graph's last step, its outputs. */
static void step_update(struct dar_group *c, const struct dar_step *s, int k, void *ctx)
{
    const struct spec_group *g = ctx;
    int b = s->list[k];
    g->sch->update(c, s->run, k, state_of(g, b), g->dual);
    if (g->soft)
        dar_soft_hints_update(c, s->run, k, &g->soft[b]);
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
        g.soft = arena_zero(c->arena, sizeof(struct dar_soft_hints) * (size_t)(c->B ? c->B : 1));
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
