/* algo_shortest_paths_model.c - shortest paths' schedule on the DAR
 * processor: one network per Bellman-Ford round on every graph still
 * running, its hidden state carried from round to round (with its
 * gradient), the decoded hints fed to the next round (the binarised
 * reached set, the argmax pointers, the dual's potentials as values), the
 * tree and the potentials decoded at a graph's last round; no-algo's one
 * recurrent network on the inputs.  algo_shortest_paths.c holds the
 * entry's tables and its tools' operations. */
#include "algo_shortest_paths.h"
#include "dar_loss.h"
#include "die.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Per-graph state carried across rounds, and the graph's constant inputs. */
struct graph_state {
    float *pos;                 /* [n] v/n */
    uint8_t *is_s;              /* [n] */
    uint8_t *reached;           /* [n] the last reached prediction, binarised */
    int32_t *pi;                /* [n] the last pointers, argmax */
    float *d;                   /* [n] the last potentials (dual) */
    /* config.soft_hints: the last step's reached probabilities [n], pointer
     * distributions [n×n] (fresh each step: the next step's backward reads
     * them) and its pointer head's logits gradient, NULL before the first */
    float *reached_soft, *pi_soft, *pi_grad;
};

/* The group as shortest paths sees it. */
struct sp {
    struct dar_group *c;
    bool dual;                  /* the variant decodes the potentials */
    struct graph_state *st;     /* [B] */
};

static struct dar_head_out *head_of(const struct dar_run *r, int probe)
{
    return (struct dar_head_out *)&r->head[r->net->head_of[probe]];
}

static const void *frame(const struct dar_graph *dg, int probe, int i, size_t size)
{
    return (const char *)dg->probe[probe] + (size_t)i * (size_t)dg->g.n * size;
}

static void state_init(struct sp *f)
{
    struct dar_group *c = f->c;
    for (int b = 0; b < c->B; b++) {
        const struct dar_graph *dg = c->gd[b].dg;
        struct graph_state *st = &f->st[b];
        int n = c->gd[b].n;
        st->pos = arena_floats(c->arena, n);
        st->is_s = arena_zero(c->arena, (size_t)n);
        st->reached = arena_zero(c->arena, (size_t)n);
        st->pi = arena_zero(c->arena, sizeof(int32_t) * (size_t)n);
        st->d = arena_zero_floats(c->arena, n);
        for (int v = 0; v < n; v++) {
            st->pos[v] = (float)v / (float)n;
            st->pi[v] = v;
        }
        st->is_s[dg->g.s] = 1;
        st->reached[dg->g.s] = 1;
    }
}

static void constant_inputs(const struct graph_state *st, struct dar_inputs *in)
{
    in->probe[SP_POS] = st->pos;
    in->probe[SP_S] = st->is_s;
}

/* ---- no-algo: one recurrent network on the inputs ------------------------------- */

static void recurrent_inputs(struct dar_group *c, int b, struct dar_inputs *in, void *ctx)
{
    const struct sp *f = ctx;
    constant_inputs(&f->st[b], in);
}

/* The tree's prediction at graph k's last step of run r. */
static void output_pointers(struct sp *f, const struct dar_run *r, int k)
{
    struct dar_group *c = f->c;
    int b = r->graph[k], n = c->gd[b].n;
    const struct dar_head_out *pi = head_of(r, SP_PI_OUT);
    int64_t logits = r->pointer_offset[k];
    if (c->pred && c->pred[b].probe[SP_PI_OUT]) {
        int32_t *out = c->pred[b].probe[SP_PI_OUT];
        for (int u = 0; u < n; u++)
            out[u] = dar_argmax_row(pi->value + logits + (int64_t)u * n, n);
    }
}

static void no_algo_last_step(struct dar_group *c, const struct dar_run *r, int k, void *ctx)
{
    if (c->training)
        dar_run_losses(c, r, k, 0, false, true);
    output_pointers(ctx, r, k);
}

/* ---- the rounds ------------------------------------------------------------------ */

/* Round i's inputs: the last predictions, or the trace's frame i under
 * teacher forcing. */
static void step_inputs(struct dar_group *c, const struct dar_step *s, int k, struct dar_inputs *in, void *ctx)
{
    const struct sp *f = ctx;
    int b = s->list[k], i = s->i;
    const struct dar_graph *dg = c->gd[b].dg;
    const struct graph_state *st = &f->st[b];
    bool forced = s->teacher_forced && dg->probe[SP_PI];
    constant_inputs(st, in);
    in->probe[SP_REACHED] = forced ? frame(dg, SP_REACHED, i, 1) : st->reached;
    in->probe[SP_PI] = forced ? frame(dg, SP_PI, i, sizeof(int32_t)) : st->pi;
    if (!forced && st->pi_soft) {
        in->soft[SP_REACHED] = st->reached_soft;
        in->soft[SP_PI] = st->pi_soft;
        in->grad[SP_PI] = st->pi_grad;
    }
    if (f->dual)
        in->probe[SP_D] = forced ? frame(dg, SP_D, i, sizeof(float)) : st->d;
}

/* The hints of frame i + 1 and, at the graph's last round, the outputs. */
static void step_losses(struct dar_group *c, const struct dar_step *s, int k, void *ctx)
{
    bool last = s->i + 2 == c->gd[s->list[k]].T;
    dar_run_losses(c, s->run, k, s->i, true, last);
    if (last)
        output_pointers(ctx, s->run, k);
}

/* The soft hints the next round reads: σ(reached logits), softmax of each
 * pointer row (its masked entries get 0), and where their gradient goes. */
static void soft_state(struct dar_group *c, struct graph_state *st, const float *reached, const float *pi,
                       float *pi_grad, int n)
{
    st->reached_soft = arena_floats(c->arena, n);
    st->pi_soft = arena_floats(c->arena, (int64_t)n * n);
    st->pi_grad = pi_grad;
    for (int v = 0; v < n; v++)
        st->reached_soft[v] = 1.0f / (1.0f + expf(-reached[v]));
    for (int u = 0; u < n; u++) {
        const float *row = pi + (int64_t)u * n;
        float *p = st->pi_soft + (int64_t)u * n;
        float top = row[0], sum = 0.0f;
        for (int v = 1; v < n; v++)
            top = row[v] > top ? row[v] : top;
        for (int v = 0; v < n; v++)
            sum += p[v] = expf(row[v] - top);
        for (int v = 0; v < n; v++)
            p[v] /= sum;
    }
}

/* What the next round reads; predictions of frame i + 1 and, at the
 * graph's last round, its outputs. */
static void step_update(struct dar_group *c, const struct dar_step *s, int k, void *ctx)
{
    struct sp *f = ctx;
    const struct dar_run *r = s->run;
    int i = s->i, b = r->graph[k], n = c->gd[b].n;
    struct graph_state *st = &f->st[b];
    int64_t nodes = r->node_offset[k], logits = r->pointer_offset[k];
    const float *reached = head_of(r, SP_REACHED)->value + nodes;
    const float *pi = head_of(r, SP_PI)->value + logits;
    for (int v = 0; v < n; v++) {
        st->reached[v] = reached[v] > 0.0f;
        st->pi[v] = dar_argmax_row(pi + (int64_t)v * n, n);
    }
    if (c->model->config.soft_hints)
        soft_state(c, st, reached, pi, c->backward ? head_of(r, SP_PI)->grad + logits : NULL, n);
    if (f->dual)
        memcpy(st->d, head_of(r, SP_D)->value + nodes, sizeof(float) * (size_t)n);
    if (!c->pred)
        return;
    struct dar_prediction *p = &c->pred[b];
    int64_t at = (int64_t)(i + 1) * n;
    if (p->probe[SP_REACHED]) memcpy((uint8_t *)p->probe[SP_REACHED] + at, st->reached, (size_t)n);
    if (p->probe[SP_PI]) memcpy((int32_t *)p->probe[SP_PI] + at, st->pi, sizeof(int32_t) * (size_t)n);
    if (p->probe[SP_D]) memcpy((float *)p->probe[SP_D] + at, st->d, sizeof(float) * (size_t)n);
    if (i + 2 == c->gd[b].T && !c->training) {
        output_pointers(f, r, k);
        if (p->probe[SP_D_OUT])
            memcpy(p->probe[SP_D_OUT], head_of(r, SP_D_OUT)->value + nodes, sizeof(float) * (size_t)n);
    }
}

static const struct dar_step_ops step_ops = {step_inputs, step_losses, step_update};

/* Frame 0 of the predicted hints: the initial state. */
static void record_first_frame(struct sp *f)
{
    struct dar_group *c = f->c;
    for (int b = 0; b < c->B; b++) {
        const struct graph_state *st = &f->st[b];
        struct dar_prediction *p = &c->pred[b];
        int n = c->gd[b].n;
        if (p->probe[SP_REACHED]) memcpy(p->probe[SP_REACHED], st->reached, (size_t)n);
        if (p->probe[SP_PI]) memcpy(p->probe[SP_PI], st->pi, sizeof(int32_t) * (size_t)n);
        if (p->probe[SP_D]) memcpy(p->probe[SP_D], st->d, sizeof(float) * (size_t)n);
    }
}

void sp_run_group(struct dar_group *c)
{
    struct sp f = {.c = c, .dual = dar_variant_decodes(c->model, SP_D)};
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
