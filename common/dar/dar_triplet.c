/* dar_triplet.c - Triplet-GMPNN's triplet messages (config.triplets; Ibarz
 * et al. 2022, "A Generalist Neural Algorithmic Learner", after Dudzik and
 * Veličković 2022), forward and hand-written backward.  For an arc s->t of
 * a graph and every node x of that graph, 8 features
 *
 *     t_xst = T1 z_x + T2 z_s + T3 z_t + E1 e_xs + E2 e_xt + E3 e_st
 *
 * (z = [x; h_prev], e_uv the encoded inputs of the pair u, v), maxed over x,
 * and tri_st = relu(O3 max_x t_xst + b3) added to the pre-activation of the
 * arc's first message layer, beside M1 z_t + M2 z_s + Me e_st.
 *
 * How it stands to CLRS's (processors.py, get_triplet_msgs and PGN with
 * use_triplets):
 *  - dense per graph: x runs over all n nodes of the arc's graph, linked to
 *    s and t or not, as CLRS's max runs over every node of its padded
 *    graph; the cost is A·n·8 per graph and step (n³·8 with MPNN's n² arcs).
 *  - only over the arcs: dar's messages travel on arcs (PGN the edges' and
 *    the self-loops, MPNN every pair), so a triplet message is made for
 *    each arc, where CLRS makes one for every pair and masks the rest.
 *  - e_uv is the pair's arcs' encoded inputs summed (one arc on a simple
 *    graph), zero where no arc joins them, as CLRS's edge features of a
 *    pair without an edge; E1..E3 have no bias, nor is there a T_g: dar has
 *    no graph features, and either would add a constant the node maps'
 *    biases already carry.
 *  - CLRS's PGN hands relu(O3 max) to the decoders as further edge
 *    features (nets.py concatenates them to edge_fts) and its node update
 *    never sees them; here they join the messages, so the node update, the
 *    carried state and through them every head see them, and the decoders'
 *    arc inputs stay the encoded ones.
 *
 * The E maps read the arcs through the rank-4 identity of dar_forward.c:
 * E_i e_a = Σ_c f_ac (E_i a_c), the products E_i a_c once per run
 * (r->tri_ke).  The max is kept for every arc of the run (A·8 floats) and
 * its winners for backward; the H-wide rows relu(O3 max + b3) are made
 * where they are added (chunk by chunk in messages_streamed) and made again
 * in backward rather than kept. */
#include "dar.h"
#include "dar_processor.h"
#include "dar_internal.h"
#include "arena.h"
#include "rows.h"
#include "layers.h"
#include <math.h>
#include <string.h>

#define F DAR_TRIPLET_FEATURES

/* E1, E2, E3 by index. */
static const struct dar_linear *edge_map(const struct dar_net *net, int i)
{
    return i == 0 ? &net->te1 : i == 1 ? &net->te2 : &net->te3;
}

void dar_triplet_allocate(struct dar_group *c, struct dar_run *r)
{
    int narc = c->model->narc;
    r->tri_max = arena_floats(c->arena, r->A * F);
    r->tri_ke = arena_zero_floats(c->arena, 3 * narc * F);
    if (c->backward)
        r->tri_arg = arena_alloc(c->arena, sizeof(int32_t) * (size_t)(r->A * F > 0 ? r->A * F : 1));
}

/* E_i a_c for each map i and arc column c the network encodes, into
 * r->tri_ke[(i·narc + c)·F]. */
static void edge_products(struct dar_group *c, struct dar_run *r)
{
    const struct dar_net *net = r->net;
    const struct dar_model *model = c->model;
    int H = c->H, narc = model->narc;
    for (int i = 0; i < 3; i++) {
        const struct dar_linear *E = edge_map(net, i);
        for (int col = 0; col < narc; col++) {
            if (!net->encodes[model->arc_probe[col]])
                continue;
            const float *a = net->enc[model->arc_probe[col]];
            float *out = r->tri_ke + ((int64_t)i * narc + col) * F;
            for (int o = 0; o < F; o++)
                out[o] = row_dot(E->weight + (int64_t)o * H, a, H);
        }
    }
}

/* Each arc's E1 e_a, E2 e_a, E3 e_a side by side: Ea [A × 3F]. */
static void arc_maps(struct dar_group *c, const struct dar_run *r, float *Ea)
{
    const struct dar_net *net = r->net;
    const struct dar_model *model = c->model;
    int narc = model->narc;
    for (int64_t a = 0; a < r->A; a++) {
        float *out = Ea + a * 3 * F;
        const float *f = r->arc + a * narc;
        memset(out, 0, sizeof(float) * 3 * F);
        for (int col = 0; col < narc; col++) {
            if (!net->encodes[model->arc_probe[col]] || f[col] == 0.0f)
                continue;
            for (int i = 0; i < 3; i++)
                row_axpy(out + i * F, f[col], r->tri_ke + ((int64_t)i * narc + col) * F, F);
        }
    }
}

void dar_triplet_forward(struct dar_group *c, struct dar_run *r, const float *z)
{
    const struct dar_net *net = r->net;
    int H = c->H;
    int64_t N = r->N, A = r->A;
    edge_products(c, r);
    struct arena_mark mark = arena_mark(c->arena);
    float *T1 = arena_floats(c->arena, N * F), *T2 = arena_floats(c->arena, N * F);
    float *T3 = arena_floats(c->arena, N * F), *Ea = arena_floats(c->arena, A * 3 * F);
    linear_forward_transposed(T1, z, net->t1.weight_t, net->t1.bias, N, 2 * H, F);
    linear_forward_transposed(T2, z, net->t2.weight_t, net->t2.bias, N, 2 * H, F);
    linear_forward_transposed(T3, z, net->t3.weight_t, net->t3.bias, N, 2 * H, F);
    arc_maps(c, r, Ea);
    for (int k = 0; k < r->ngraphs; k++) {
        const struct dar_graph_layout *gd = &c->gd[r->graph[k]];
        int64_t n = gd->n, a0 = r->arc_offset[k];
        const float *t1 = T1 + r->node_offset[k] * F, *t2 = T2 + r->node_offset[k] * F;
        const float *t3 = T3 + r->node_offset[k] * F;
        /* the pairs' E1 e_uv and E2 e_uv, dense: D[(u·n + v)·2F] */
        struct arena_mark pairs = arena_mark(c->arena);
        float *D = arena_zero_floats(c->arena, n * n * 2 * F);
        for (int64_t a = 0; a < gd->A; a++)
            row_add(D + ((int64_t)gd->send[a] * n + gd->recv[a]) * 2 * F, Ea + (a0 + a) * 3 * F, 2 * F);
        for (int64_t a = 0; a < gd->A; a++) {
            int64_t s = gd->send[a], t = gd->recv[a];
            float base[F], best[F];
            int32_t arg[F];
            for (int f = 0; f < F; f++) {
                base[f] = t2[s * F + f] + t3[t * F + f] + Ea[(a0 + a) * 3 * F + 2 * F + f];
                best[f] = -INFINITY;
                arg[f] = 0;
            }
            /* the lowest x wins a tie */
            for (int64_t x = 0; x < n; x++) {
                const float *dxs = D + (x * n + s) * 2 * F, *dxt = D + (x * n + t) * 2 * F + F;
                for (int f = 0; f < F; f++) {
                    float v = t1[x * F + f] + dxs[f] + dxt[f] + base[f];
                    if (v > best[f]) {
                        best[f] = v;
                        arg[f] = (int32_t)x;
                    }
                }
            }
            memcpy(r->tri_max + (a0 + a) * F, best, sizeof best);
            if (r->tri_arg)
                memcpy(r->tri_arg + (a0 + a) * F, arg, sizeof arg);
        }
        arena_release(c->arena, pairs);
    }
    arena_release(c->arena, mark);
}

void dar_triplet_rows(struct dar_group *c, const struct dar_run *r, float *tri, int64_t a0, int64_t a1)
{
    const struct dar_net *net = r->net;
    linear_relu_forward_transposed(tri, r->tri_max + a0 * F, net->o3.weight_t, net->o3.bias, a1 - a0, F, c->H);
}

void dar_triplet_backward(struct dar_group *c, const struct dar_run *r, const float *dpre, const float *z,
                          float *dz, float *const *darc)
{
    const struct dar_net *net = r->net;
    const struct dar_model *model = c->model;
    int H = c->H, narc = model->narc;
    int64_t N = r->N, A = r->A;
    struct arena_mark mark = arena_mark(c->arena);
    /* through the relu (its output recomputed) and O3 */
    float *du = arena_floats(c->arena, A * H);
    dar_triplet_rows(c, r, du, 0, A);
    for (int64_t i = 0; i < A * H; i++)
        du[i] = du[i] > 0.0f ? dpre[i] : 0.0f;
    float *dmax = arena_zero_floats(c->arena, A * F);
    linear_backward(dmax, net->o3.dweight, net->o3.dbias, du, r->tri_max, net->o3.weight, A, F, H);
    /* the max to the winning x's terms */
    float *dT1 = arena_zero_floats(c->arena, N * F), *dT2 = arena_zero_floats(c->arena, N * F);
    float *dT3 = arena_zero_floats(c->arena, N * F), *dEa = arena_zero_floats(c->arena, A * 3 * F);
    for (int k = 0; k < r->ngraphs; k++) {
        const struct dar_graph_layout *gd = &c->gd[r->graph[k]];
        int64_t n = gd->n, a0 = r->arc_offset[k], v0 = r->node_offset[k];
        struct arena_mark pairs = arena_mark(c->arena);
        float *dD = arena_zero_floats(c->arena, n * n * 2 * F);
        for (int64_t a = 0; a < gd->A; a++) {
            int64_t s = gd->send[a], t = gd->recv[a];
            const float *d = dmax + (a0 + a) * F;
            const int32_t *arg = r->tri_arg + (a0 + a) * F;
            for (int f = 0; f < F; f++) {
                if (d[f] == 0.0f)
                    continue;
                int64_t x = arg[f];
                dT1[(v0 + x) * F + f] += d[f];
                dT2[(v0 + s) * F + f] += d[f];
                dT3[(v0 + t) * F + f] += d[f];
                dD[(x * n + s) * 2 * F + f] += d[f];
                dD[(x * n + t) * 2 * F + F + f] += d[f];
                dEa[(a0 + a) * 3 * F + 2 * F + f] += d[f];
            }
        }
        /* a pair's E1 e_uv, E2 e_uv to each arc it sums */
        for (int64_t a = 0; a < gd->A; a++)
            row_add(dEa + (a0 + a) * 3 * F, dD + ((int64_t)gd->send[a] * n + gd->recv[a]) * 2 * F, 2 * F);
        arena_release(c->arena, pairs);
    }
    linear_backward(dz, net->t1.dweight, net->t1.dbias, dT1, z, net->t1.weight, N, 2 * H, F);
    linear_backward(dz, net->t2.dweight, net->t2.dbias, dT2, z, net->t2.weight, N, 2 * H, F);
    linear_backward(dz, net->t3.dweight, net->t3.dbias, dT3, z, net->t3.weight, N, 2 * H, F);
    /* the arcs' maps to the products E_i a_c and the arc columns */
    float *dke = arena_zero_floats(c->arena, 3 * narc * F);
    for (int64_t a = 0; a < A; a++) {
        const float *f = r->arc + a * narc, *d = dEa + a * 3 * F;
        for (int col = 0; col < narc; col++) {
            if (!net->encodes[model->arc_probe[col]])
                continue;
            for (int i = 0; i < 3; i++) {
                int64_t at = ((int64_t)i * narc + col) * F;
                if (f[col] != 0.0f)
                    row_axpy(dke + at, f[col], d + i * F, F);
                if (darc[col])
                    darc[col][a] += row_dot(r->tri_ke + at, d + i * F, F);
            }
        }
    }
    for (int i = 0; i < 3; i++) {
        const struct dar_linear *E = edge_map(net, i);
        for (int col = 0; col < narc; col++) {
            int p = model->arc_probe[col];
            if (!net->encodes[p])
                continue;
            const float *a = net->enc[p], *dk = dke + ((int64_t)i * narc + col) * F;
            float *da = net->denc[p];
            for (int o = 0; o < F; o++) {
                row_axpy(E->dweight + (int64_t)o * H, dk[o], a, H);
                row_axpy(da, dk[o], E->weight + (int64_t)o * H, H);
            }
        }
    }
    arena_release(c->arena, mark);
}
