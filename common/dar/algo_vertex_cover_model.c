/* algo_vertex_cover_model.c - vertex cover's schedule on the DAR
 * processor (its row's `schedule`, run by dar_spec_steps.c: one network
 * per primal-dual round, no-algo's one recurrent network on the weights):
 * the state before the first round, the decoded hints fed to the next
 * round (the residuals as values, the in-cover flags binarised, the live
 * edges those with no end in the cover, the dual's increments as values),
 * the cover (and the dual's packing) decoded at a graph's last round.  algo_vertex_cover.c holds the entry's
 * tables and its tools' operations. */
#include "algo_vertex_cover.h"
#include "dar_loss.h"
#include <math.h>
#include <string.h>

/* Per-graph state carried across rounds: the fed inputs and hints (w;
 * residual, in_cover, live, the dual's increments delta). */
struct graph_state {
    struct dar_spec_state base;
};

static struct dar_head_out *head_of(const struct dar_run *r, int probe)
{
    return (struct dar_head_out *)&r->head[r->net->head_of[probe]];
}

/* The live edges: those with neither end in the cover. */
static void update_live(const struct dar_graph *dg, struct graph_state *st)
{
    const uint8_t *in_cover = st->base.hint[VC_IN_COVER];
    uint8_t *live = st->base.hint[VC_LIVE];
    for (int e = 0; e < dg->g.m; e++)
        live[e] = !in_cover[dg->g.src[e]] && !in_cover[dg->g.dst[e]];
}

/* The residuals start at w, nothing in the cover, no increments. */
static void state_init(struct dar_group *c, int b, void *state)
{
    struct graph_state *st = state;
    const struct dar_graph *dg = c->gd[b].dg;
    int n = dg->g.n, m = dg->g.m;
    float *residual = arena_floats(c->arena, n);
    memcpy(residual, dg->g.node_w, sizeof(float) * (size_t)n);
    st->base.input[VC_W] = dg->g.node_w;
    st->base.hint[VC_RESIDUAL] = residual;
    st->base.hint[VC_IN_COVER] = arena_zero(c->arena, (size_t)n + 1);
    st->base.hint[VC_LIVE] = arena_zero(c->arena, (size_t)m + 1);
    st->base.hint[VC_DELTA] = arena_zero_floats(c->arena, m + 1);
    update_live(dg, st);
}

static void sigmoid_into(float *out, const float *logit, int n)
{
    for (int v = 0; v < n; v++)
        out[v] = 1.0f / (1.0f + expf(-logit[v]));
}

/* The predicted cover (P(in the cover)) and the dual's packing at graph
 * k's last step of run r. */
static void outputs(struct dar_group *c, const struct dar_run *r, int k, bool dual)
{
    int b = r->graph[k], n = c->gd[b].n, m = c->gd[b].m;
    if (c->pred[b].probe[VC_COVER])
        sigmoid_into(c->pred[b].probe[VC_COVER], head_of(r, VC_COVER)->value + r->node_offset[k], n);
    if (dual && c->pred[b].probe[VC_PACKING])
        memcpy(c->pred[b].probe[VC_PACKING], head_of(r, VC_PACKING)->value + r->edge_offset[k],
               sizeof(float) * (size_t)m);
}

/* What the next round reads: the residuals as values, the in-cover flags
 * binarised, the live edges, the dual's increments as values. */
static void update(struct dar_group *c, const struct dar_run *r, int k, void *state, bool dual)
{
    struct graph_state *st = state;
    int b = r->graph[k], n = c->gd[b].n;
    const struct dar_graph *dg = c->gd[b].dg;
    int64_t nodes = r->node_offset[k];
    uint8_t *in_cover = st->base.hint[VC_IN_COVER];
    memcpy(st->base.hint[VC_RESIDUAL], head_of(r, VC_RESIDUAL)->value + nodes, sizeof(float) * (size_t)n);
    const float *in = head_of(r, VC_IN_COVER)->value + nodes;
    for (int v = 0; v < n; v++)
        in_cover[v] = in[v] > 0.0f;
    update_live(dg, st);
    if (dual)
        memcpy(st->base.hint[VC_DELTA], head_of(r, VC_DELTA)->value + r->edge_offset[k],
               sizeof(float) * (size_t)dg->g.m);
}

const struct dar_spec_schedule vc_schedule = {
    .state_size = sizeof(struct graph_state),
    .dual_probe = VC_PACKING,
    .forced_by = VC_RESIDUAL,
    .init = state_init,
    .update = update,
    .outputs = outputs,
};
