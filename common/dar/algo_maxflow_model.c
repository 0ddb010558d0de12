/* algo_maxflow_model.c - max-flow's schedule on the DAR processor
 * (formats/model.md §4-§5): per step P_BF on every graph still running, then
 * P_F on those at a flow step with h_prev = stopgrad(P_BF's h); the
 * pipeline's mincut network first; no-algo's one recurrent network; the
 * losses from the row's loss terms (dar_loss.c; the pipeline's held mincut
 * logits scored here); predictions; with soft hints the mask's, the
 * pointers' and the dual's cut's probabilities fed back (dar_soft.c).
 * algo_maxflow.c holds the entry's tables and its tools' operations. */
#include "algo_maxflow.h"
#include "dar_loss.h"
#include "die.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Per-graph state carried across steps, and the graph's constant inputs. */
struct graph_state {
    float *pos;                 /* [n] v/n */
    uint8_t *is_s, *is_t;       /* [n] */
    int last_flow;              /* last flow step (i + 1 < T), -1 if none */
    int32_t *cut_target;        /* [n] the min cut as class indices, or NULL */
    uint8_t *mask;              /* [n] the last mask prediction, binarised */
    int32_t *pi;                /* [n] */
    float *flow;                /* [m] the last flow_hint prediction (frame 0 before) */
    float *flow_grad;           /* its gradient accumulator, NULL if constant */
    uint8_t *cut;               /* [n] argmax of the last cut_hint; */
    bool has_cut;               /*   false: all-zero input */
    float *mincut_logit;        /* [n*2] pipeline: the mincut network's last logits */
    float *mincut_dlogit;       /* [n*2] their gradient (inside its run) */
    uint8_t *mincut_cut;        /* [n] argmax */
    bool final_seen;            /* no-algo/prediction: F_out written */
    struct dar_soft_hints soft; /* config.soft_hints: the mask, the pointers after a
                                   Bellman-Ford step, the dual's cut hint */
};

/* The group as max-flow sees it. */
struct mf {
    struct dar_group *c;
    bool dual;                  /* the flow network decodes the cut hint */
    bool leak_cut;              /* dual with leak_cut: the true cut is an input */
    struct graph_state *st;     /* [B] */
    int bf, flow, mincut, net;  /* the networks by role, -1: none */
};

static struct dar_head_out *head_of(const struct dar_run *r, int probe)
{
    return (struct dar_head_out *)&r->head[r->net->head_of[probe]];
}

static void state_init(struct mf *f)
{
    struct dar_group *c = f->c;
    for (int b = 0; b < c->B; b++) {
        const struct dar_graph_layout *gd = &c->gd[b];
        const struct dar_graph *dg = gd->dg;
        struct graph_state *st = &f->st[b];
        int n = gd->n, m = gd->m;
        memset(st, 0, sizeof *st);
        st->pos = arena_floats(c->arena, n);
        st->is_s = arena_zero(c->arena, (size_t)n);
        st->is_t = arena_zero(c->arena, (size_t)n);
        for (int v = 0; v < n; v++)
            st->pos[v] = (float)v / (float)n;
        st->is_s[dg->g.s] = 1;
        st->is_t[dg->g.t] = 1;
        st->last_flow = -1;
        for (int i = 0; i + 1 < gd->T; i++)
            if (!gd->phase[i])
                st->last_flow = i;
        if (maxflow_cut(dg)) {
            st->cut_target = arena_zero(c->arena, sizeof(int32_t) * (size_t)n);
            for (int v = 0; v < n; v++)
                st->cut_target[v] = maxflow_cut(dg)[v];
        }
        st->mask = arena_zero(c->arena, (size_t)n);
        st->pi = arena_zero(c->arena, sizeof(int32_t) * (size_t)n);
        st->flow = arena_zero_floats(c->arena, m);
        st->cut = arena_zero(c->arena, (size_t)n);
        st->mincut_logit = arena_zero_floats(c->arena, (int64_t)n * 2);
        st->mincut_cut = arena_zero(c->arena, (size_t)n);
        if (maxflow_hint_mask(dg)) {
            memcpy(st->mask, maxflow_hint_mask(dg), (size_t)n);
            memcpy(st->pi, maxflow_hint_pi(dg), sizeof(int32_t) * (size_t)n);
            if (m)
                memcpy(st->flow, maxflow_hint_flow(dg), sizeof(float) * (size_t)m);
        } else {
            st->mask[dg->g.s] = 1;
            for (int v = 0; v < n; v++)
                st->pi[v] = v;
        }
        if (f->leak_cut) {
            memcpy(st->cut, maxflow_cut(dg), (size_t)n);
            st->has_cut = true;
        }
    }
}

/* The inputs every network reads: pos, s, t (cap and w are the arcs'). */
static void constant_inputs(const struct graph_state *st, struct dar_inputs *in)
{
    in->probe[MAXFLOW_POS] = st->pos;
    in->probe[MAXFLOW_S] = st->is_s;
    in->probe[MAXFLOW_T] = st->is_t;
}

/* P(sink side) of each node from its two cut logits. */
static void cut_probability(float *out, const float *logit, int n)
{
    for (int v = 0; v < n; v++)
        out[v] = 1.0f / (1.0f + expf(logit[2 * v] - logit[2 * v + 1]));
}

/* ---- the recurrent networks (pipeline's mincut, no-algo) -------------------- */

static void recurrent_inputs(struct dar_group *c, int b, struct dar_inputs *in, void *ctx)
{
    const struct mf *f = ctx;
    constant_inputs(&f->st[b], in);
}

/* The mincut network's head at graph k's last step: its logits. */
static void mincut_last_step(struct dar_group *c, const struct dar_run *r, int k, void *ctx)
{
    struct mf *f = ctx;
    int b = r->graph[k], n = c->gd[b].n;
    struct graph_state *st = &f->st[b];
    const struct dar_head_out *cut = head_of(r, MAXFLOW_CUT_OUT);
    memcpy(st->mincut_logit, cut->value + r->node_offset[k] * 2, sizeof(float) * 2 * (size_t)n);
    if (c->backward)
        st->mincut_dlogit = cut->grad + r->node_offset[k] * 2;
    for (int v = 0; v < n; v++)
        st->mincut_cut[v] = (uint8_t)dar_argmax_row(st->mincut_logit + 2 * v, 2);
}

/* No-algo's head at graph k's last step: F_out with its loss and outputs. */
static void no_algo_last_step(struct dar_group *c, const struct dar_run *r, int k, void *ctx)
{
    struct mf *f = ctx;
    int H = c->H;
    int b = r->graph[k];
    const struct dar_graph_layout *gd = &c->gd[b];
    struct graph_state *st = &f->st[b];
    int n = gd->n, m = gd->m;
    const struct dar_head_out *out = head_of(r, MAXFLOW_FLOW_OUT);
    const float *F = out->value + r->edge_offset[k];
    st->final_seen = true;
    if (c->training)
        dar_run_losses(c, r, k, 0, false, true);
    if (c->pred) {
        struct dar_prediction *p = &c->pred[b];
        if (maxflow_pred_flow(p) && m) memcpy(maxflow_pred_flow(p), F, sizeof(float) * (size_t)m);
        if (p->embed)
            memcpy(p->embed, r->hd + r->node_offset[k] * 3 * H, sizeof(float) * (size_t)(n * 3 * H));
    }
}

/* ---- one step of the algorithm: P_BF, then P_F at a flow step ----------------- */

/* Graph k's hint inputs at step i: the last predictions (with soft hints
 * the mask's, the pointers' and the dual's cut's probabilities), or the
 * trace's frame under teacher forcing (the cut is never the trace's). */
static void step_hint_inputs(struct dar_group *c, const struct dar_phase_step *s, int k, struct dar_inputs *in,
                             void *ctx)
{
    const struct mf *f = ctx;
    int i = s->i, b = s->list[k];
    const struct dar_graph *dg = c->gd[b].dg;
    const struct graph_state *st = &f->st[b];
    int n = c->gd[b].n, m = c->gd[b].m;
    bool forced = s->teacher_forced && maxflow_hint_mask(dg);
    constant_inputs(st, in);
    in->probe[MAXFLOW_MASK] = forced ? maxflow_hint_mask(dg) + (int64_t)i * n : st->mask;
    in->probe[MAXFLOW_PTR] = forced ? maxflow_hint_pi(dg) + (int64_t)i * n : st->pi;
    if (!forced) {
        dar_soft_hints_feed(&st->soft, MAXFLOW_MASK, in);
        dar_soft_hints_feed(&st->soft, MAXFLOW_PTR, in);
    }
    const float *flow = forced ? maxflow_hint_flow(dg) + (int64_t)i * m : st->flow;
    in->probe[MAXFLOW_FLOW] = flow;
    in->grad[MAXFLOW_FLOW] = forced ? NULL : st->flow_grad;
    if (f->mincut >= 0) {
        in->probe[MAXFLOW_CUT] = st->mincut_cut;
    } else if (f->dual) {
        if (f->leak_cut && (i == 0 || forced)) {
            bool zero = true;
            for (int e = 0; e < m && zero; e++)
                zero = flow[e] == 0.0f;
            in->probe[MAXFLOW_CUT] = zero ? maxflow_cut(dg) : NULL;
        } else {
            in->probe[MAXFLOW_CUT] = st->has_cut ? st->cut : NULL;
            dar_soft_hints_feed(&st->soft, MAXFLOW_CUT, in);
        }
    }
}

/* The pipeline's cut hint at a flow step: the mincut network's logits,
 * held, scored at every flow step (normalised as the flow hint, scored at
 * the same steps). */
static void held_cut_hint_loss(struct mf *f, int b)
{
    struct dar_group *c = f->c;
    const struct dar_graph *dg = c->gd[b].dg;
    const struct graph_state *st = &f->st[b];
    c->sum[MAXFLOW_LOSS_CUT_HINT] +=
        dar_probe_loss(c, DAR_TYPE_CATEGORICAL, 2, c->backward ? st->mincut_dlogit : NULL, st->mincut_logit,
                       st->cut_target, dar_loss_scale(c, MAXFLOW_LOSS_CUT_HINT, MAXFLOW_LOSS_FLOW_HINT, dg),
                       c->gd[b].n);
}

/* The run that decoded graph b at this step, and the graph's index in it. */
static struct dar_run *step_run_of(const struct dar_phase_step *s, const struct dar_graph_layout *gd, int k, int b,
                                   int *index_in_run)
{
    bool flow_step = !gd->phase[s->i];
    *index_in_run = flow_step ? s->second_pos[b] : k;
    return flow_step ? s->second_run : s->run;
}

/* The losses of step i: the hints of the network the graph's phase picks
 * (P_BF's, or P_F's and at the graph's last flow step its outputs). */
static void step_losses(struct dar_group *c, const struct dar_phase_step *s, void *ctx)
{
    struct mf *f = ctx;
    for (int k = 0; k < s->running; k++) {
        int b = s->list[k], index_in_run;
        struct dar_run *r = step_run_of(s, &c->gd[b], k, b, &index_in_run);
        bool last = s->i == f->st[b].last_flow;
        dar_run_losses(c, r, index_in_run, s->i, true, last);
        if (r == s->second_run && f->mincut >= 0)
            held_cut_hint_loss(f, b);
    }
}

/* What the next step reads: the binarised mask; after a Bellman-Ford step
 * the pointers; after a flow step identity pointers, the flow, the cut and
 * P_BF's h carried. */
static void step_update_state(struct dar_group *c, const struct dar_phase_step *s, void *ctx)
{
    struct mf *f = ctx;
    for (int k = 0; k < s->running; k++) {
        int b = s->list[k];
        const struct dar_graph_layout *gd = &c->gd[b];
        struct graph_state *st = &f->st[b];
        int n = gd->n, m = gd->m, index_in_run;
        const struct dar_run *r = step_run_of(s, gd, k, b, &index_in_run);
        const float *mask_logit = head_of(r, MAXFLOW_MASK)->value + r->node_offset[index_in_run];
        for (int v = 0; v < n; v++)
            st->mask[v] = mask_logit[v] > 0.0f;
        if (c->model->config.soft_hints) {
            dar_soft_hints_update(c, r, index_in_run, &st->soft);
            if (!gd->phase[s->i])   /* the pointers the flow step leaves are the identity's */
                st->soft.value[MAXFLOW_PTR] = st->soft.grad[MAXFLOW_PTR] = NULL;
        }
        if (gd->phase[s->i]) {
            const float *logit = head_of(s->run, MAXFLOW_PTR)->value + s->run->pointer_offset[k];
            for (int u = 0; u < n; u++)
                st->pi[u] = dar_argmax_row(logit + (int64_t)u * n, n);
            c->carry[b].h_valid = false;
            continue;
        }
        const struct dar_run *flow_run = s->second_run;
        const struct dar_head_out *flow_hint = head_of(flow_run, MAXFLOW_FLOW);
        int64_t edges = flow_run->edge_offset[index_in_run];
        int64_t nodes = flow_run->node_offset[index_in_run];
        for (int u = 0; u < n; u++)
            st->pi[u] = u;
        if (m)
            memcpy(st->flow, flow_hint->value + edges, sizeof(float) * (size_t)m);
        st->flow_grad = c->backward ? flow_hint->grad + edges : NULL;
        if (f->dual) {
            const float *cut_hint = head_of(flow_run, MAXFLOW_CUT)->value;
            for (int v = 0; v < n; v++)
                st->cut[v] = (uint8_t)dar_argmax_row(cut_hint + (nodes + v) * 2, 2);
            st->has_cut = true;
        }
        dar_carry_from_run(c, s->run, k);
    }
}

/* The hints of frame i + 1 (the state just updated) and, at a graph's last
 * flow step, its outputs. */
static void step_record_predictions(struct dar_group *c, const struct dar_phase_step *s, void *ctx)
{
    struct mf *f = ctx;
    int H = c->H, i = s->i;
    for (int k = 0; k < s->running; k++) {
        int b = s->list[k];
        const struct dar_graph_layout *gd = &c->gd[b];
        const struct graph_state *st = &f->st[b];
        struct dar_prediction *p = &c->pred[b];
        int n = gd->n, m = gd->m;
        if (i == st->last_flow) {
            const struct dar_run *flow_run = s->second_run;
            int64_t edges = flow_run->edge_offset[s->second_pos[b]];
            int64_t nodes = flow_run->node_offset[s->second_pos[b]];
            if (maxflow_pred_flow(p) && m)
                memcpy(maxflow_pred_flow(p), head_of(flow_run, MAXFLOW_FLOW_OUT)->value + edges, sizeof(float) * (size_t)m);
            if (maxflow_pred_cut(p) && f->dual)
                cut_probability(maxflow_pred_cut(p), head_of(flow_run, MAXFLOW_CUT_OUT)->value + nodes * 2, n);
            if (p->embed)
                memcpy(p->embed, flow_run->hd + nodes * 3 * H, sizeof(float) * (size_t)(n * 3 * H));
        }
        if (c->embed_first)
            continue;
        if (maxflow_pred_pi(p)) memcpy(maxflow_pred_pi(p) + (int64_t)(i + 1) * n, st->pi, sizeof(int32_t) * (size_t)n);
        if (maxflow_pred_mask(p)) memcpy(maxflow_pred_mask(p) + (int64_t)(i + 1) * n, st->mask, (size_t)n);
        if (maxflow_pred_hint_flow(p) && m)
            memcpy(maxflow_pred_hint_flow(p) + (int64_t)(i + 1) * m, st->flow, sizeof(float) * (size_t)m);
    }
}

/* Frame 0 of the predicted hints: the initial state. */
static void record_first_frame(struct mf *f)
{
    struct dar_group *c = f->c;
    if (c->embed_first)
        return;
    for (int b = 0; b < c->B; b++) {
        const struct dar_graph_layout *gd = &c->gd[b];
        const struct graph_state *st = &f->st[b];
        struct dar_prediction *p = &c->pred[b];
        if (maxflow_pred_pi(p)) memcpy(maxflow_pred_pi(p), st->pi, sizeof(int32_t) * (size_t)gd->n);
        if (maxflow_pred_mask(p)) memcpy(maxflow_pred_mask(p), st->mask, (size_t)gd->n);
        if (maxflow_pred_hint_flow(p) && gd->m) memcpy(maxflow_pred_hint_flow(p), st->flow, sizeof(float) * (size_t)gd->m);
    }
}

static const struct dar_phase_ops step_ops = {step_hint_inputs, step_losses, step_update_state,
                                              step_record_predictions};

/* ---- one group ------------------------------------------------------------------ */

/* Pipeline: the mincut network first; its logits are c_out (L_c) and the
 * cut input of every later step. */
static struct dar_run **mincut_forward(struct mf *f, int *steps, int *nsteps)
{
    struct dar_group *c = f->c;
    for (int b = 0; b < c->B; b++)
        steps[b] = c->gd[b].n + 1;
    struct dar_run **runs = dar_recurrent_forward(c, &c->model->nets[f->mincut], steps, nsteps,
                                                  recurrent_inputs, mincut_last_step, f);
    for (int b = 0; b < c->B; b++) {
        struct graph_state *st = &f->st[b];
        const struct dar_graph_layout *gd = &c->gd[b];
        if (c->training)
            c->sum[MAXFLOW_LOSS_CUT] +=
                dar_probe_loss(c, DAR_TYPE_CATEGORICAL, 2, c->backward ? st->mincut_dlogit : NULL,
                               st->mincut_logit, st->cut_target,
                               dar_loss_scale(c, MAXFLOW_LOSS_CUT, MAXFLOW_LOSS_CUT, gd->dg), gd->n);
        if (c->pred && maxflow_pred_cut(&c->pred[b]))
            cut_probability(maxflow_pred_cut(&c->pred[b]), st->mincut_logit, gd->n);
    }
    return runs;
}

/* Graphs that never reach an output step: F_out = 0, c_out logits 0. */
static void finish_graphs_without_output(struct mf *f)
{
    struct dar_group *c = f->c;
    int H = c->H;
    for (int b = 0; b < c->B; b++) {
        const struct dar_graph_layout *gd = &c->gd[b];
        bool has_output = f->net >= 0 ? f->st[b].final_seen : f->st[b].last_flow >= 0;
        if (has_output)
            continue;
        if (c->training) {
            /* the batch normaliser's denominators: Σ_b (m + n/2), Σ_b n */
            for (int e = 0; e < gd->m; e++)
                c->sum[MAXFLOW_LOSS_FLOW] += 2.0 * (double)maxflow_flow(gd->dg)[e] * maxflow_flow(gd->dg)[e] /
                                             (2.0 * dar_loss_denominator(c, MAXFLOW_LOSS_FLOW));
            if (f->dual)
                c->sum[MAXFLOW_LOSS_CUT] += gd->n * log(2.0) / dar_loss_denominator(c, MAXFLOW_LOSS_CUT);
        }
        if (c->pred) {
            struct dar_prediction *p = &c->pred[b];
            if (maxflow_pred_flow(p) && gd->m) memset(maxflow_pred_flow(p), 0, sizeof(float) * (size_t)gd->m);
            if (maxflow_pred_cut(p) && f->dual)
                for (int v = 0; v < gd->n; v++) maxflow_pred_cut(p)[v] = 0.5f;
            if (p->embed) memset(p->embed, 0, sizeof(float) * (size_t)(gd->n * 3 * H));
        }
    }
}

void maxflow_run_group(struct dar_group *c)
{
    struct mf f = {.c = c, .dual = dar_variant_decodes(c->model, MAXFLOW_CUT)};
    f.leak_cut = c->model->config.leak_dual && f.dual;
    f.bf = dar_net_index(c->model, c->alg->phase_nets[0]);
    f.flow = dar_net_index(c->model, c->alg->phase_nets[1]);
    f.mincut = dar_net_index(c->model, "mincut");
    f.net = dar_net_index(c->model, "net");
    static const uint8_t flow_phase[2] = {0, 1};
    if (c->embed_first)     /* one step, P_BF then P_F */
        for (int b = 0; b < c->B; b++) {
            c->gd[b].T = 2;
            c->gd[b].phase = flow_phase;
        }
    f.st = arena_zero(c->arena, sizeof(struct graph_state) * (size_t)(c->B ? c->B : 1));
    state_init(&f);
    if (f.net >= 0) {
        /* its backward touches neither the loss sums nor the predictions
         * that the graphs without an output step get afterwards */
        dar_run_recurrent_group(c, &c->model->nets[f.net], recurrent_inputs, no_algo_last_step, &f);
        finish_graphs_without_output(&f);
        return;
    }
    struct dar_run **mincut_runs = NULL;
    int mincut_steps = 0;
    int *steps = arena_zero(c->arena, sizeof(int) * (size_t)(c->B ? c->B : 1));
    if (f.mincut >= 0)
        mincut_runs = mincut_forward(&f, steps, &mincut_steps);
    if (c->pred)
        record_first_frame(&f);
    dar_run_phases(c, &c->model->nets[f.bf], &c->model->nets[f.flow], &step_ops, &f);
    finish_graphs_without_output(&f);
    if (c->backward && f.mincut >= 0)
        dar_recurrent_backward(c, mincut_runs, mincut_steps);
}

void maxflow_check(const struct dar_model *model, struct dar_graph *const *graphs, int B, bool training, int embed)
{
    enum dar_variant variant = model->config.variant;
    for (int b = 0; b < B; b++) {
        const struct dar_graph *g = graphs[b];
        if (training) {
            bool cut = variant == DAR_DUAL || variant == DAR_PIPELINE;
            if (!maxflow_flow(g) || (cut && !maxflow_cut(g)) || (variant != DAR_NO_ALGO && !maxflow_hint_mask(g)) || !g->phase)
                die(EX_SOFTWARE, "BUG: graph of record %ld loaded without its trace", g->record);
            continue;
        }
        if (embed != DAR_EMBED_FIRST && !g->phase)
            die_record_in(g->source, g->record, "missing key 'hint_phase' (the model follows the trace's "
                          "phase flags and length; run ff-trace first)");
        if (model->config.leak_dual && variant == DAR_DUAL && !maxflow_cut(g))
            die_record_in(g->source, g->record, "missing key 'cut' (--leak-cut feeds the true min cut)");
    }
}
