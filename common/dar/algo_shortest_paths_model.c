/* algo_shortest_paths_model.c - shortest paths' schedule on the DAR
 * processor (its row's `schedule`, run by dar_spec_steps.c: one network
 * per Bellman-Ford round, no-algo's one recurrent network on the inputs):
 * the state before the first round, the decoded hints fed to the next
 * round (the binarised reached set, the argmax pointers, the dual's
 * potentials as values; soft hints are dar_spec_steps.c's), the tree and
 * the potentials decoded at a graph's last round.  algo_shortest_paths.c
 * holds the entry's tables and its tools' operations. */
#include "algo_shortest_paths.h"
#include "dar_loss.h"
#include <string.h>

/* Per-graph state carried across rounds: the fed inputs and hints (pos,
 * s; reached, pi, the dual's potentials d). */
struct graph_state {
    struct dar_spec_state base;
};

static struct dar_head_out *head_of(const struct dar_run *r, int probe)
{
    return (struct dar_head_out *)&r->head[r->net->head_of[probe]];
}

static void state_init(struct dar_group *c, int b, void *state)
{
    struct graph_state *st = state;
    const struct dar_graph *dg = c->gd[b].dg;
    int n = c->gd[b].n;
    float *pos = arena_floats(c->arena, n);
    uint8_t *is_s = arena_zero(c->arena, (size_t)n), *reached = arena_zero(c->arena, (size_t)n);
    int32_t *pi = arena_zero(c->arena, sizeof(int32_t) * (size_t)n);
    for (int v = 0; v < n; v++) {
        pos[v] = (float)v / (float)n;
        pi[v] = v;
    }
    is_s[dg->g.s] = 1;
    reached[dg->g.s] = 1;
    st->base.input[SP_POS] = pos;
    st->base.input[SP_S] = is_s;
    st->base.hint[SP_REACHED] = reached;
    st->base.hint[SP_PI] = pi;
    st->base.hint[SP_D] = arena_zero_floats(c->arena, n);
}

/* The tree's prediction (and the dual's potentials) at graph k's last
 * step of run r. */
static void outputs(struct dar_group *c, const struct dar_run *r, int k, bool dual)
{
    (void)dual;
    int b = r->graph[k], n = c->gd[b].n;
    struct dar_prediction *p = &c->pred[b];
    if (p->probe[SP_PI_OUT]) {
        const float *logits = head_of(r, SP_PI_OUT)->value + r->pointer_offset[k];
        int32_t *out = p->probe[SP_PI_OUT];
        for (int u = 0; u < n; u++)
            out[u] = dar_argmax_row(logits + (int64_t)u * n, n);
    }
    if (p->probe[SP_D_OUT])
        memcpy(p->probe[SP_D_OUT], head_of(r, SP_D_OUT)->value + r->node_offset[k], sizeof(float) * (size_t)n);
}

/* What the next round reads: the binarised reached set, the argmax
 * pointers, the dual's potentials as values. */
static void update(struct dar_group *c, const struct dar_run *r, int k, void *state, bool dual)
{
    struct graph_state *st = state;
    int b = r->graph[k], n = c->gd[b].n;
    uint8_t *reached_state = st->base.hint[SP_REACHED];
    int32_t *pi_state = st->base.hint[SP_PI];
    int64_t nodes = r->node_offset[k], logits = r->pointer_offset[k];
    const float *reached = head_of(r, SP_REACHED)->value + nodes;
    const float *pi = head_of(r, SP_PI)->value + logits;
    for (int v = 0; v < n; v++) {
        reached_state[v] = reached[v] > 0.0f;
        pi_state[v] = dar_argmax_row(pi + (int64_t)v * n, n);
    }
    if (dual)
        memcpy(st->base.hint[SP_D], head_of(r, SP_D)->value + nodes, sizeof(float) * (size_t)n);
}

const struct dar_spec_schedule sp_schedule = {
    .state_size = sizeof(struct graph_state),
    .dual_probe = SP_D,
    .forced_by = SP_PI,
    .init = state_init,
    .update = update,
    .outputs = outputs,
};
