/* dar_steps.c - what an algorithm's schedule runs between forward and
 * backward (dar_processor.h): the hidden state carried from one run to the
 * next, recurrent networks (no-algo's whole schedule and the pipeline of an
 * entry with two networks a step), the step loop of an entry with one network, and the loss of a
 * head by its probe's type.  Entries call these; they call only the runs'
 * forward and backward (dar_forward.c, dar_backward.c). */
#include "dar.h"
#include "dar_processor.h"
#include "arena.h"
#include "layers.h"
#include <string.h>

/* ---- the carried state and recurrent networks ---------------------------------- */

void dar_carry_from_run(struct dar_group *c, const struct dar_run *r, int k)
{
    int H = c->H, b = r->graph[k];
    struct dar_carry *st = &c->carry[b];
    for (int v = 0; v < c->gd[b].n; v++)
        memcpy(st->h + (int64_t)v * H, r->hd + (r->node_offset[k] + v) * 3 * H + 2 * H,
               sizeof(float) * (size_t)H);
    st->h_valid = true;
}

float *dar_carry_hprev(struct dar_group *c, struct dar_run *r)
{
    int H = c->H;
    bool any_carry = false;
    for (int k = 0; k < r->ngraphs; k++) {
        r->carry_in[k] = c->carry[r->graph[k]].h_valid;
        any_carry |= r->carry_in[k];
    }
    if (!any_carry)
        return NULL;
    float *hprev = arena_zero_floats(c->arena, r->N * H);
    for (int k = 0; k < r->ngraphs; k++)
        if (r->carry_in[k])
            memcpy(hprev + r->node_offset[k] * H, c->carry[r->graph[k]].h,
                   sizeof(float) * (size_t)(c->gd[r->graph[k]].n * H));
    return hprev;
}

struct dar_run **dar_recurrent_forward(struct dar_group *c, const struct dar_net *net, const int *steps,
                                       int *nsteps_out,
                                       void (*in)(struct dar_group *c, int b, struct dar_inputs *inputs,
                                                  void *ctx),
                                       void (*last)(struct dar_group *c, const struct dar_run *r, int k,
                                                    void *ctx),
                                       void *ctx)
{
    int B = c->B, H = c->H;
    int S = 0;
    for (int b = 0; b < B; b++)
        if (steps[b] > S) S = steps[b];
    *nsteps_out = S;
    struct dar_run **runs = arena_zero(c->arena, sizeof(struct dar_run *) * (size_t)(S + 1));
    int *list = arena_zero(c->arena, sizeof(int) * (size_t)B);
    for (int j = 0; j < S; j++) {
        struct arena_mark step_mark = arena_mark(c->arena);
        int ngraphs = 0;
        for (int b = 0; b < B; b++)
            if (j < steps[b]) list[ngraphs++] = b;
        struct dar_run *r = dar_run_new(c, net, list, ngraphs);
        float *hprev = arena_floats(c->arena, r->N * H);
        for (int k = 0; k < ngraphs; k++) {
            struct dar_carry *st = &c->carry[list[k]];
            struct dar_inputs inputs = {0};
            in(c, list[k], &inputs, ctx);
            dar_run_set_inputs(c, r, k, &inputs);
            r->carry_in[k] = st->h_valid;
            memcpy(hprev + r->node_offset[k] * H, st->h,
                   sizeof(float) * (size_t)(c->gd[list[k]].n * H));
        }
        dar_run_forward(c, r, j > 0 ? hprev : NULL);
        for (int k = 0; k < ngraphs; k++) {
            int b = list[k];
            dar_carry_from_run(c, r, k);
            if (j == steps[b] - 1)
                last(c, r, k, ctx);
        }
        if (c->backward)
            runs[j] = r;
        else
            arena_release(c->arena, step_mark);
    }
    for (int b = 0; b < B; b++)
        c->carry[b].h_valid = false;
    return runs;
}

void dar_recurrent_backward(struct dar_group *c, struct dar_run **runs, int S)
{
    for (int b = 0; b < c->B; b++)
        c->carry[b].dh_pending = false;
    for (int j = S - 1; j >= 0; j--)
        dar_run_backward(c, runs[j], true, true);
}

void dar_run_recurrent_group(struct dar_group *c, const struct dar_net *net,
                             void (*in)(struct dar_group *c, int b, struct dar_inputs *inputs, void *ctx),
                             void (*last)(struct dar_group *c, const struct dar_run *r, int k, void *ctx),
                             void *ctx)
{
    int *steps = arena_zero(c->arena, sizeof(int) * (size_t)(c->B ? c->B : 1));
    for (int b = 0; b < c->B; b++)
        steps[b] = c->gd[b].T > 1 ? c->gd[b].T - 1 : 0;
    int nsteps = 0;
    struct dar_run **runs = dar_recurrent_forward(c, net, steps, &nsteps, in, last, ctx);
    if (c->backward)
        dar_recurrent_backward(c, runs, nsteps);
}

/* ---- an algorithm's steps with one network -------------------------------------- */

void dar_run_steps(struct dar_group *c, const struct dar_net *net, const struct dar_step_ops *ops, void *ctx)
{
    int B = c->B, most = 0;
    for (int b = 0; b < B; b++)
        if (c->gd[b].T > most) most = c->gd[b].T;
    int nsteps = most > 1 ? most - 1 : 0;
    struct dar_run **runs = arena_zero(c->arena, sizeof(struct dar_run *) * (size_t)(nsteps + 1));
    int *list = arena_zero(c->arena, sizeof(int) * (size_t)(B ? B : 1));
    struct dar_step s = {.list = list};
    for (int i = 0; i < nsteps; i++) {
        struct arena_mark mark = arena_mark(c->arena);
        s.i = i;
        s.teacher_forced = i > 0 && c->teacher && i < c->teacher_len && c->teacher[i];
        s.running = 0;
        for (int b = 0; b < B; b++)
            if (i + 1 < c->gd[b].T)
                list[s.running++] = b;
        s.run = dar_run_new(c, net, list, s.running);
        for (int k = 0; k < s.running; k++) {
            struct dar_inputs in = {0};
            ops->inputs(c, &s, k, &in, ctx);
            dar_run_set_inputs(c, s.run, k, &in);
        }
        dar_run_forward(c, s.run, dar_carry_hprev(c, s.run));
        if (c->training)
            for (int k = 0; k < s.running; k++)
                ops->losses(c, &s, k, ctx);
        for (int k = 0; k < s.running; k++) {
            ops->update(c, &s, k, ctx);
            dar_carry_from_run(c, s.run, k);
        }
        if (c->backward)
            runs[i] = s.run;
        else
            arena_release(c->arena, mark);
    }
    for (int b = 0; b < B; b++)
        c->carry[b].h_valid = false;
    if (c->backward)
        dar_recurrent_backward(c, runs, nsteps);
}

/* ---- an algorithm's steps with two networks ------------------------------------ */

/* The graphs at step i: running, and of them those at a second-network phase. */
static void phase_select(struct dar_group *c, struct dar_phase_step *s, int i)
{
    s->i = i;
    s->teacher_forced = i > 0 && c->teacher && i < c->teacher_len && c->teacher[i];
    s->running = s->seconds = 0;
    for (int b = 0; b < c->B; b++)
        if (i + 1 < c->gd[b].T) {
            s->pos[b] = s->running;
            s->list[s->running++] = b;
            if (!c->gd[b].phase[i]) {
                s->second_pos[b] = s->seconds;
                s->second_list[s->seconds++] = b;
            }
        }
}

/* The first network on every running graph, h_prev the carried state
 * where there is one; then the second on its graphs, h_prev = stopgrad(the
 * first's h). */
static void phase_forward(struct dar_group *c, struct dar_phase_step *s, const struct dar_net *first,
                          const struct dar_net *second)
{
    int H = c->H;
    s->run = dar_run_new(c, first, s->list, s->running);
    for (int k = 0; k < s->running; k++)
        dar_run_set_inputs(c, s->run, k, &s->inputs[s->list[k]]);
    dar_run_forward(c, s->run, dar_carry_hprev(c, s->run));
    s->second_run = NULL;
    if (s->seconds == 0)
        return;
    struct dar_run *r = dar_run_new(c, second, s->second_list, s->seconds);
    float *first_h = arena_floats(c->arena, r->N * H);
    for (int k = 0; k < s->seconds; k++) {
        int b = s->second_list[k];
        dar_run_set_inputs(c, r, k, &s->inputs[b]);
        for (int v = 0; v < c->gd[b].n; v++)
            memcpy(first_h + (r->node_offset[k] + v) * H,
                   s->run->hd + (s->run->node_offset[s->pos[b]] + v) * 3 * H + 2 * H, sizeof(float) * (size_t)H);
    }
    dar_hprev_test_hook(c, first_h, r->N * H);
    dar_run_forward(c, r, first_h);
    s->second_run = r;
}

static void phases_backward(struct dar_group *c, struct dar_run **runs, struct dar_run **second_runs, int nsteps)
{
    for (int b = 0; b < c->B; b++)
        c->carry[b].dh_pending = false;
    for (int i = nsteps - 1; i >= 0; i--) {
        if (second_runs[i])
            dar_run_backward(c, second_runs[i], false, false);
        dar_run_backward(c, runs[i], true, true);
    }
}

void dar_run_phases(struct dar_group *c, const struct dar_net *first, const struct dar_net *second,
                    const struct dar_phase_ops *ops, void *ctx)
{
    int B = c->B, most = 0;
    for (int b = 0; b < B; b++)
        if (c->gd[b].T > most) most = c->gd[b].T;
    int nsteps = most > 1 ? most - 1 : 0;
    struct dar_run **runs = arena_zero(c->arena, sizeof(struct dar_run *) * (size_t)(nsteps + 1));
    struct dar_run **second_runs = arena_zero(c->arena, sizeof(struct dar_run *) * (size_t)(nsteps + 1));
    struct dar_phase_step s = {0};
    s.list = arena_zero(c->arena, sizeof(int) * (size_t)B);
    s.second_list = arena_zero(c->arena, sizeof(int) * (size_t)B);
    s.pos = arena_zero(c->arena, sizeof(int) * (size_t)B);
    s.second_pos = arena_zero(c->arena, sizeof(int) * (size_t)B);
    s.inputs = arena_zero(c->arena, sizeof(struct dar_inputs) * (size_t)B);
    for (int i = 0; i < nsteps; i++) {
        struct arena_mark mark = arena_mark(c->arena);
        phase_select(c, &s, i);
        for (int k = 0; k < s.running; k++) {
            struct dar_inputs *in = &s.inputs[s.list[k]];
            memset(in, 0, sizeof *in);
            ops->inputs(c, &s, k, in, ctx);
        }
        phase_forward(c, &s, first, second);
        if (c->training)
            ops->losses(c, &s, ctx);
        ops->update(c, &s, ctx);
        if (c->pred)
            ops->record(c, &s, ctx);
        if (c->backward) {
            runs[i] = s.run;
            second_runs[i] = s.second_run;
        } else {
            arena_release(c->arena, mark);
        }
    }
    if (c->backward)
        phases_backward(c, runs, second_runs, nsteps);
}

/* ---- losses by probe type ------------------------------------------------------ */

int dar_argmax_row(const float *row, int K)
{
    int best = 0;
    for (int k = 1; k < K; k++)
        if (row[k] > row[best])
            best = k;
    return best;
}

double dar_probe_loss(struct dar_group *c, enum dar_type type, int width, float *grad, const float *value,
                      const void *target, float scale, int count)
{
    switch (type) {
    case DAR_TYPE_MASK:
    case DAR_TYPE_MASK_ONE: {
        struct arena_mark mark = arena_mark(c->arena);
        float *t = arena_floats(c->arena, count > 0 ? count : 1);
        const uint8_t *mask = target;
        for (int v = 0; v < count; v++)
            t[v] = mask[v];
        double loss = bce_with_logits(grad, value, t, NULL, scale, count);
        arena_release(c->arena, mark);
        return loss;
    }
    case DAR_TYPE_CATEGORICAL:
        return softmax_cross_entropy(grad, value, target, NULL, scale, count, width);
    case DAR_TYPE_POINTER:
        return softmax_cross_entropy(grad, value, target, NULL, scale, count, count);
    default:
        return squared_error(grad, value, target, NULL, scale, count);
    }
}
