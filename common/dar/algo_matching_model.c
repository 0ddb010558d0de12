/* algo_matching_model.c - bipartite matching's schedule on the DAR
 * processor (its row's `schedule`, run by dar_spec_steps.c: one network
 * per search, no-algo's one recurrent network on the inputs): the state
 * before the first search, the decoded hints fed to the next search (the
 * binarised reached set and matching, the argmax pointers, the dual's
 * binarised cover), the matching and the cover decoded at a graph's last
 * search.  algo_matching.c holds the entry's tables and its tools'
 * operations.
 *
 * The dual's cover hint is trained towards the final cover at every step
 * (as max-flow's cut hint is towards the final cut) and fed back as the
 * model's own previous prediction, never the trace's: the trace has no
 * cover before its last search.
 *
 * A phased model (the layered trace) is told each step's kind as two node
 * inputs, set on every node: start, the step is a search's layer 0 (its
 * trace frame a layer after an augmentation, or the first), and augment;
 * neither, a further layer.  The previous frame's kind is what tells a new
 * search from a layer, so it is the schedule, not the network, that
 * reads it. */
#include "algo_matching.h"
#include "dar_loss.h"
#include "matching.h"
#include <string.h>

/* Per-graph state carried across searches, after the fed inputs and hints
 * (pos, side; reached, pi, matched, the dual's cover once predicted). */
struct graph_state {
    struct dar_spec_state base;
    uint8_t *cover;             /* [n] the dual's last cover prediction, binarised */
    /* a phased model's step kind inputs, for step `step` */
    uint8_t *start, *augment;   /* [n] */
    int step;
};

static struct dar_head_out *head_of(const struct dar_run *r, int probe)
{
    return (struct dar_head_out *)&r->head[r->net->head_of[probe]];
}

/* Graph b's kind of step i into the phased state's inputs. */
static void step_kind(const struct dar_group *c, int b, struct graph_state *st)
{
    const uint8_t *phase = c->gd[b].dg->phase;
    int i = st->step, n = c->gd[b].n;
    if (i + 1 >= c->gd[b].T)
        return;
    bool augment = phase[i] == MATCHING_PHASE_AUGMENT;
    bool start = !augment && (i == 0 || phase[i - 1] == MATCHING_PHASE_AUGMENT);
    memset(st->start, start, (size_t)n);
    memset(st->augment, augment, (size_t)n);
}

static void state_init(struct dar_group *c, int b, void *state)
{
    struct graph_state *st = state;
    const struct dar_graph *dg = c->gd[b].dg;
    int n = c->gd[b].n, m = c->gd[b].m;
    float *pos = arena_floats(c->arena, n);
    uint8_t *reached = arena_zero(c->arena, (size_t)n);
    int32_t *pi = arena_zero(c->arena, sizeof(int32_t) * (size_t)n);
    for (int v = 0; v < n; v++) {
        pos[v] = (float)v / (float)n;
        pi[v] = v;
        reached[v] = dg->g.side[v] == 0;
    }
    st->base.input[MATCH_POS] = pos;
    st->base.input[MATCH_SIDE] = dg->g.side;
    st->base.hint[MATCH_REACHED] = reached;
    st->base.hint[MATCH_PI] = pi;
    st->base.hint[MATCH_MATCHED] = arena_zero(c->arena, (size_t)m + 1);
    st->cover = arena_zero(c->arena, (size_t)n);
    if (c->model->config.phased) {
        st->start = arena_zero(c->arena, (size_t)n + 1);
        st->augment = arena_zero(c->arena, (size_t)n + 1);
        st->base.input[MATCH_START] = st->start;
        st->base.input[MATCH_AUGMENT] = st->augment;
        step_kind(c, b, st);
    }
}

/* The predicted outputs (logits) at graph k's last step of run r: the
 * matching, and the dual's cover. */
static void outputs(struct dar_group *c, const struct dar_run *r, int k, bool dual)
{
    int b = r->graph[k], n = c->gd[b].n, m = c->gd[b].m;
    if (c->pred[b].probe[MATCH_MATCH_OUT] && m)
        memcpy(c->pred[b].probe[MATCH_MATCH_OUT], head_of(r, MATCH_MATCH_OUT)->value + r->edge_offset[k],
               sizeof(float) * (size_t)m);
    if (dual && c->pred[b].probe[MATCH_COVER_OUT])
        memcpy(c->pred[b].probe[MATCH_COVER_OUT], head_of(r, MATCH_COVER_OUT)->value + r->node_offset[k],
               sizeof(float) * (size_t)n);
}

/* What the next search reads: the binarised reached set and matching, the
 * argmax pointers, the dual's binarised cover (its input from now on). */
static void update(struct dar_group *c, const struct dar_run *r, int k, void *state, bool dual)
{
    struct graph_state *st = state;
    int b = r->graph[k], n = c->gd[b].n, m = c->gd[b].m;
    uint8_t *reached_state = st->base.hint[MATCH_REACHED], *matched_state = st->base.hint[MATCH_MATCHED];
    int32_t *pi_state = st->base.hint[MATCH_PI];
    int64_t nodes = r->node_offset[k], edges = r->edge_offset[k], logits = r->pointer_offset[k];
    const float *reached = head_of(r, MATCH_REACHED)->value + nodes;
    const float *pi = head_of(r, MATCH_PI)->value + logits;
    const float *matched = head_of(r, MATCH_MATCHED)->value + edges;
    for (int v = 0; v < n; v++) {
        reached_state[v] = reached[v] > 0.0f;
        pi_state[v] = dar_argmax_row(pi + (int64_t)v * n, n);
    }
    for (int e = 0; e < m; e++)
        matched_state[e] = matched[e] > 0.0f;
    if (dual) {
        const float *cover = head_of(r, MATCH_COVER)->value + nodes;
        for (int v = 0; v < n; v++)
            st->cover[v] = cover[v] > 0.0f;
        st->base.hint[MATCH_COVER] = st->cover;
    }
    if (c->model->config.phased) {
        st->step++;
        step_kind(c, b, st);
    }
}

const struct dar_spec_schedule match_schedule = {
    .state_size = sizeof(struct graph_state),
    .dual_probe = MATCH_COVER,
    .forced_by = MATCH_PI,
    .init = state_init,
    .update = update,
    .outputs = outputs,
};
