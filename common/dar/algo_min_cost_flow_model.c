/* algo_min_cost_flow_model.c - min-cost flow's schedule on the DAR
 * processor (dar_run_phases, max-flow's shape): per step, a round of
 * successive shortest paths, the search network "sp" on every graph still
 * running (reached set, distances, pointers), then the flow network on the
 * same graphs with h_prev = stopgrad(sp's h) (the flow after the
 * augmentation, the dual's potentials, and at a graph's last step the
 * outputs); sp's h is carried to the next step.  The decoded hints are fed
 * to the next step (binarised reached set, argmax pointers, the values of
 * the others; the flow with its gradient, as max-flow's; with soft hints
 * the reached probabilities and the pointers' softmax, dar_soft.c).  The
 * losses are the row's loss terms (dar_run_losses) on each run.  No-algo
 * is one recurrent network on the inputs.  algo_min_cost_flow.c holds the entry's
 * tables and its tools' operations.
 *
 * A phased model (the rounds trace, ff-trace --sp-rounds) runs the same two
 * networks every step, told the step's kind as two node inputs set on every
 * node: start, the step reaches a search's start (the frame before it an
 * augmentation), and augment; neither, a relaxation round.  The graph's
 * phases hold the kinds; the schedule's phase flags are all 0 (both
 * networks on every step), as the one-frame trace's. */
#include "algo_min_cost_flow.h"
#include "dar_loss.h"
#include "die.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Per-graph state carried across steps, and the graph's constant inputs. */
struct graph_state {
    float *pos;                 /* [n] v/n */
    uint8_t *is_s, *is_t;       /* [n] */
    uint8_t *reached;           /* [n] the last reached prediction, binarised */
    int32_t *pi;                /* [n] the last pointers, argmax */
    float *distance;            /* [n] the last distances */
    float *potential;           /* [n] the last potentials (dual) */
    float *flow;                /* [m] the last flow_hint prediction (frame 0 before) */
    float *flow_grad;           /* its gradient accumulator, NULL if constant */
    struct dar_soft_hints soft; /* config.soft_hints: the search's reached set and pointers */
    uint8_t *start, *augment;   /* [n] a phased model's step kind inputs */
};

/* The group as min-cost flow sees it. */
struct mcf {
    struct dar_group *c;
    bool dual;                  /* the variant decodes the potentials */
    struct graph_state *st;     /* [B] */
};

static struct dar_head_out *head_of(const struct dar_run *r, int probe)
{
    return (struct dar_head_out *)&r->head[r->net->head_of[probe]];
}

/* Frame i of a hint probe of graph dg (size bytes a value). */
static const void *frame(const struct dar_graph *dg, int probe, int i, size_t size)
{
    int64_t count = probe == MCF_FLOW ? dg->g.m : dg->g.n;
    return (const char *)dg->probe[probe] + (size_t)i * (size_t)count * size;
}

/* Frame 0: the trace's when loaded, else the state before the first round
 * (only s reached, own pointers, no flow, potentials 0). */
static void state_init(struct mcf *f)
{
    struct dar_group *c = f->c;
    for (int b = 0; b < c->B; b++) {
        const struct dar_graph *dg = c->gd[b].dg;
        struct graph_state *st = &f->st[b];
        int n = c->gd[b].n, m = c->gd[b].m;
        memset(st, 0, sizeof *st);
        st->pos = arena_floats(c->arena, n);
        st->is_s = arena_zero(c->arena, (size_t)n);
        st->is_t = arena_zero(c->arena, (size_t)n);
        st->reached = arena_zero(c->arena, (size_t)n);
        st->pi = arena_zero(c->arena, sizeof(int32_t) * (size_t)n);
        st->distance = arena_zero_floats(c->arena, n);
        st->potential = arena_zero_floats(c->arena, n);
        st->flow = arena_zero_floats(c->arena, m);
        for (int v = 0; v < n; v++) {
            st->pos[v] = (float)v / (float)n;
            st->pi[v] = v;
        }
        st->is_s[dg->g.s] = 1;
        st->is_t[dg->g.t] = 1;
        st->reached[dg->g.s] = 1;
        if (dg->probe[MCF_POTENTIAL])
            memcpy(st->potential, dg->probe[MCF_POTENTIAL], sizeof(float) * (size_t)n);
        if (c->model->config.phased) {
            st->start = arena_zero(c->arena, (size_t)n + 1);
            st->augment = arena_zero(c->arena, (size_t)n + 1);
        }
    }
}

static void constant_inputs(const struct graph_state *st, struct dar_inputs *in)
{
    in->probe[MCF_POS] = st->pos;
    in->probe[MCF_S] = st->is_s;
    in->probe[MCF_T] = st->is_t;
}

/* ---- no-algo: one recurrent network on the inputs ------------------------------- */

static void recurrent_inputs(struct dar_group *c, int b, struct dar_inputs *in, void *ctx)
{
    const struct mcf *f = ctx;
    constant_inputs(&f->st[b], in);
}

static void no_algo_last_step(struct dar_group *c, const struct dar_run *r, int k, void *ctx)
{
    int b = r->graph[k], m = c->gd[b].m;
    if (c->training)
        dar_run_losses(c, r, k, 0, false, true);
    if (c->pred && c->pred[b].probe[MCF_FLOW_OUT] && m)
        memcpy(c->pred[b].probe[MCF_FLOW_OUT], head_of(r, MCF_FLOW_OUT)->value + r->edge_offset[k],
               sizeof(float) * (size_t)m);
}

/* ---- the rounds: search, then augmentation ---------------------------------------- */

/* A phased model's kind of step i of graph dg into st's inputs (the file
 * comment's): dg->phase[i] is the kind of the frame step i reaches. */
static void step_kind(const struct dar_graph *dg, int i, int n, struct graph_state *st)
{
    bool augment = dg->phase[i] == MINCOST_PHASE_AUGMENT;
    bool start = !augment && i > 0 && dg->phase[i - 1] == MINCOST_PHASE_AUGMENT;
    memset(st->start, start, (size_t)n);
    memset(st->augment, augment, (size_t)n);
}

/* Graph k's inputs at step i: the last predictions (with soft hints the
 * search's probabilities), or the trace's frame i under teacher forcing;
 * a phased model's step kind. */
static void step_inputs(struct dar_group *c, const struct dar_phase_step *s, int k, struct dar_inputs *in, void *ctx)
{
    struct mcf *f = ctx;
    int i = s->i, b = s->list[k];
    const struct dar_graph *dg = c->gd[b].dg;
    struct graph_state *st = &f->st[b];
    bool forced = s->teacher_forced && dg->probe[MCF_PTR];
    constant_inputs(st, in);
    if (c->model->config.phased) {
        step_kind(dg, i, c->gd[b].n, st);
        in->probe[MCF_START] = st->start;
        in->probe[MCF_AUGMENT] = st->augment;
    }
    in->probe[MCF_REACHED] = forced ? frame(dg, MCF_REACHED, i, 1) : st->reached;
    in->probe[MCF_PTR] = forced ? frame(dg, MCF_PTR, i, sizeof(int32_t)) : st->pi;
    in->probe[MCF_DISTANCE] = forced ? frame(dg, MCF_DISTANCE, i, sizeof(float)) : st->distance;
    in->probe[MCF_FLOW] = forced ? frame(dg, MCF_FLOW, i, sizeof(float)) : st->flow;
    in->grad[MCF_FLOW] = forced ? NULL : st->flow_grad;
    if (f->dual)
        in->probe[MCF_POTENTIAL] = forced ? frame(dg, MCF_POTENTIAL, i, sizeof(float)) : st->potential;
    for (int q = 0; q < c->alg->nprobes && !forced; q++)
        dar_soft_hints_feed(&st->soft, q, in);
}

/* The hints of frame i + 1 on both runs and, at a graph's last step, the
 * outputs (the flow network's). */
static void step_losses(struct dar_group *c, const struct dar_phase_step *s, void *ctx)
{
    for (int k = 0; k < s->running; k++) {
        int b = s->list[k];
        dar_run_losses(c, s->run, k, s->i, true, false);
        dar_run_losses(c, s->second_run, s->second_pos[b], s->i, true, s->i + 2 == c->gd[b].T);
    }
}

/* What the next step reads: the search's reached set, pointers and
 * distances, the flow network's flow (with its gradient) and potentials;
 * sp's h carried. */
static void step_update(struct dar_group *c, const struct dar_phase_step *s, void *ctx)
{
    struct mcf *f = ctx;
    const struct dar_run *sp = s->run, *flow = s->second_run;
    for (int k = 0; k < s->running; k++) {
        int b = s->list[k], j = s->second_pos[b];
        struct graph_state *st = &f->st[b];
        int n = c->gd[b].n, m = c->gd[b].m;
        int64_t nodes = sp->node_offset[k], logits = sp->pointer_offset[k];
        const float *reached = head_of(sp, MCF_REACHED)->value + nodes;
        const float *pi = head_of(sp, MCF_PTR)->value + logits;
        for (int v = 0; v < n; v++) {
            st->reached[v] = reached[v] > 0.0f;
            st->pi[v] = dar_argmax_row(pi + (int64_t)v * n, n);
        }
        memcpy(st->distance, head_of(sp, MCF_DISTANCE)->value + nodes, sizeof(float) * (size_t)n);
        if (c->model->config.soft_hints)
            dar_soft_hints_update(c, sp, k, &st->soft);
        const struct dar_head_out *flow_hint = head_of(flow, MCF_FLOW);
        int64_t edges = flow->edge_offset[j];
        if (m)
            memcpy(st->flow, flow_hint->value + edges, sizeof(float) * (size_t)m);
        st->flow_grad = c->backward ? flow_hint->grad + edges : NULL;
        if (f->dual)
            memcpy(st->potential, head_of(flow, MCF_POTENTIAL)->value + flow->node_offset[j],
                   sizeof(float) * (size_t)n);
        dar_carry_from_run(c, sp, k);
    }
}

static void copy_frame(void *out, int i, const void *state, size_t row)
{
    if (out)
        memcpy((char *)out + (size_t)i * row, state, row);
}

/* The hints of frame i + 1 (the state just updated) and, at a graph's last
 * step, its outputs. */
static void step_record(struct dar_group *c, const struct dar_phase_step *s, void *ctx)
{
    struct mcf *f = ctx;
    int i = s->i;
    for (int k = 0; k < s->running; k++) {
        int b = s->list[k];
        const struct graph_state *st = &f->st[b];
        struct dar_prediction *p = &c->pred[b];
        size_t n = (size_t)c->gd[b].n, m = (size_t)c->gd[b].m;
        copy_frame(p->probe[MCF_REACHED], i + 1, st->reached, n);
        copy_frame(p->probe[MCF_PTR], i + 1, st->pi, sizeof(int32_t) * n);
        copy_frame(p->probe[MCF_DISTANCE], i + 1, st->distance, sizeof(float) * n);
        copy_frame(p->probe[MCF_POTENTIAL], i + 1, st->potential, sizeof(float) * n);
        copy_frame(p->probe[MCF_FLOW], i + 1, st->flow, sizeof(float) * m);
        if (i + 2 != c->gd[b].T)
            continue;
        const struct dar_run *flow = s->second_run;
        int j = s->second_pos[b];
        copy_frame(p->probe[MCF_FLOW_OUT], 0, head_of(flow, MCF_FLOW_OUT)->value + flow->edge_offset[j],
                   sizeof(float) * m);
        if (f->dual)
            copy_frame(p->probe[MCF_POTENTIAL_OUT], 0,
                       head_of(flow, MCF_POTENTIAL_OUT)->value + flow->node_offset[j], sizeof(float) * n);
    }
}

static const struct dar_phase_ops step_ops = {step_inputs, step_losses, step_update, step_record};

/* Frame 0 of the predicted hints: the initial state. */
static void record_first_frame(struct mcf *f)
{
    struct dar_group *c = f->c;
    for (int b = 0; b < c->B; b++) {
        const struct graph_state *st = &f->st[b];
        struct dar_prediction *p = &c->pred[b];
        size_t n = (size_t)c->gd[b].n, m = (size_t)c->gd[b].m;
        copy_frame(p->probe[MCF_REACHED], 0, st->reached, n);
        copy_frame(p->probe[MCF_PTR], 0, st->pi, sizeof(int32_t) * n);
        copy_frame(p->probe[MCF_DISTANCE], 0, st->distance, sizeof(float) * n);
        copy_frame(p->probe[MCF_POTENTIAL], 0, st->potential, sizeof(float) * n);
        copy_frame(p->probe[MCF_FLOW], 0, st->flow, sizeof(float) * m);
    }
}

void mcf_run_group(struct dar_group *c)
{
    struct mcf f = {.c = c, .dual = dar_variant_decodes(c->model, MCF_POTENTIAL)};
    f.st = arena_zero(c->arena, sizeof(struct graph_state) * (size_t)(c->B ? c->B : 1));
    state_init(&f);
    if (c->variant == DAR_NO_ALGO) {
        dar_run_recurrent_group(c, &c->model->nets[0], recurrent_inputs, no_algo_last_step, &f);
        return;
    }
    if (c->pred)
        record_first_frame(&f);
    if (c->model->config.phased)   /* the kinds are the inputs', both networks run every step */
        for (int b = 0; b < c->B; b++)
            c->gd[b].phase = arena_zero(c->arena, (size_t)c->gd[b].T + 1);
    dar_run_phases(c, &c->model->nets[0], &c->model->nets[1], &step_ops, &f);
}
