/* dar.c - the DAR model's computation (formats/model.md §1-§5): encoders,
 * the PGN/MPNN processor and the decoders by probe type, their hand-written
 * backward, and the call: the batch split into groups, each group laid out and
 * handed to its algorithm's schedule (algorithm.h, dar_processor.h).  dar.h
 * says how the batch is laid out and what is kept for backward. */
#include "dar.h"
#include "dar_processor.h"
#include "arena.h"
#include "rows.h"
#include "die.h"
#include "layers.h"
#include "workers.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct dar_workspace {
    struct arena *arenas;       /* [groups]: one per group of the batch */
    int groups;
    float *grads;               /* [groups][grads_count]: each group's gradient */
    int64_t grads_count;
    float *weights_t;           /* [model count]: every weight transposed, for the call */
    int64_t weights_t_count;
    float *heads;               /* per network: the fused decoders' Wᵀ then biases */
    int64_t heads_room;
    enum dar_hprev_mode hprev_mode;
    float *hprev;               /* recorded h_prev of the hooked runs, in call order */
    int64_t hprev_count, hprev_room, hprev_cursor;
};

/* Room for `groups` groups of a model with `count` parameters. */
static void workspace_reserve(struct dar_workspace *ws, int groups, int64_t count)
{
    if (groups > ws->groups) {
        ws->arenas = xrealloc(ws->arenas, sizeof *ws->arenas * (size_t)groups);
        memset(ws->arenas + ws->groups, 0, sizeof *ws->arenas * (size_t)(groups - ws->groups));
    }
    if (groups > ws->groups || count != ws->grads_count) {
        int most = groups > ws->groups ? groups : ws->groups;
        free(ws->grads);
        ws->grads = xmalloc(sizeof(float) * (size_t)(most * count + 1));
        ws->grads_count = count;
    }
    if (groups > ws->groups)
        ws->groups = groups;
}

void dar_workspace_hprev_mode(struct dar_workspace *ws, enum dar_hprev_mode mode)
{
    ws->hprev_mode = mode;
}

struct dar_workspace *dar_workspace_new(void) { return xcalloc(1, sizeof(struct dar_workspace)); }

void dar_workspace_free(struct dar_workspace *ws)
{
    if (!ws)
        return;
    for (int g = 0; g < ws->groups; g++)
        arena_free(&ws->arenas[g]);
    free(ws->arenas);
    free(ws->grads);
    free(ws->weights_t);
    free(ws->heads);
    free(ws->hprev);
    free(ws);
}

size_t dar_workspace_bytes(const struct dar_workspace *ws)
{
    size_t bytes = sizeof(float) * (size_t)(ws->groups * ws->grads_count);
    for (int g = 0; g < ws->groups; g++)
        bytes += ws->arenas[g].bytes;
    return bytes;
}

/* Row helpers (vec8, load8, store8, row_sum3, row_axpy, row_add, row_dot) and
 * CLONES: rows.h */

/* d[i] = keep[i] ? d[i] : 0 */
CLONES static void mask_by_bytes(float *d, const uint8_t *keep, int64_t count)
{
    int64_t i = 0;
    for (; i + 8 <= count; i += 8) {
        bvec8 k;
        memcpy(&k, keep + i, sizeof k);
        ivec8 on = -__builtin_convertvector(k, ivec8);
        store8(d + i, (vec8)((ivec8)load8(d + i) & on));
    }
    for (; i < count; i++)
        if (!keep[i])
            d[i] = 0.0f;
}

/* out[i] = x[i] > 0 */
CLONES static void positive_bytes(uint8_t *out, const float *x, int64_t count)
{
    int64_t i = 0;
    for (; i + 8 <= count; i += 8) {
        bvec8 b = __builtin_convertvector(-(load8(x + i) > 0.0f), bvec8);
        memcpy(out + i, &b, sizeof b);
    }
    for (; i < count; i++)
        out[i] = x[i] > 0.0f;
}

/* d[i] = x[i] > 0 ? d[i] : 0 */
CLONES static void mask_by_positive(float *d, const float *x, int64_t count)
{
    int64_t i = 0;
    for (; i + 8 <= count; i += 8) {
        vec8 xv = load8(x + i);
        store8(d + i, (vec8)((ivec8)load8(d + i) & (xv > 0.0f)));
    }
    for (; i < count; i++)
        if (!(x[i] > 0.0f))
            d[i] = 0.0f;
}

/* ---- the call's context ------------------------------------------------------- */

static int net_index(const struct dar_model *m, const struct dar_net *net)
{
    return (int)(net - m->nets);
}

/* An edge mask or scalar: the symmetric edge head (dar.h struct dar_head). */
static bool symmetric_edge_head(const struct dar_head *head)
{
    return head->location == DAR_LOCATION_EDGE && head->type != DAR_TYPE_BOUNDED_ANTISYMMETRIC;
}

/* The layer of a head that reads the arc features through the rank-4
 * products (its q3), or NULL. */
static const struct dar_linear *arc_layer(const struct dar_head *head)
{
    if (head->type == DAR_TYPE_BOUNDED_ANTISYMMETRIC)
        return &head->linear[2];
    return symmetric_edge_head(head) ? &head->linear[1] : NULL;
}

/* ---- graphs laid out for the processor ------------------------------------- */

static void prepare_graph(struct dar_group *c, struct dar_graph_layout *gd, const struct dar_graph *dg)
{
    const struct dar_model *model = c->model;
    const struct dar_algorithm *alg = c->alg;
    const struct graph *g = &dg->g;
    int n = g->n, m = g->m;
    gd->dg = dg;
    gd->n = n;
    gd->m = m;
    bool pgn = model->config.processor == DAR_PGN;
    int64_t A = pgn ? 2 * (int64_t)m + n : (int64_t)n * n;
    gd->A = A;
    gd->send = arena_zero(c->arena, sizeof(int32_t) * (size_t)A);
    gd->recv = arena_zero(c->arena, sizeof(int32_t) * (size_t)A);
    gd->arc_fwd = arena_zero(c->arena, sizeof(int32_t) * (size_t)(m + 1));
    gd->arc_bwd = arena_zero(c->arena, sizeof(int32_t) * (size_t)(m + 1));
    if (pgn) {
        for (int e = 0; e < m; e++) {
            gd->send[2 * e] = g->src[e];
            gd->recv[2 * e] = g->dst[e];
            gd->send[2 * e + 1] = g->dst[e];
            gd->recv[2 * e + 1] = g->src[e];
            gd->arc_fwd[e] = 2 * e;
            gd->arc_bwd[e] = 2 * e + 1;
        }
        for (int v = 0; v < n; v++)
            gd->send[2 * m + v] = gd->recv[2 * m + v] = v;
    } else {
        for (int u = 0; u < n; u++)
            for (int v = 0; v < n; v++) {
                gd->send[(int64_t)u * n + v] = u;
                gd->recv[(int64_t)u * n + v] = v;
            }
        for (int e = 0; e < m; e++) {
            gd->arc_fwd[e] = g->src[e] * n + g->dst[e];
            gd->arc_bwd[e] = g->dst[e] * n + g->src[e];
        }
    }
    /* an edge input of an arc sums over the edges it comes from (one for
     * PGN; MPNN sums antiparallel directed edges that share a pair) */
    for (int col = 0; col < model->narc; col++) {
        int p = model->arc_probe[col];
        const struct dar_probe *probe = &alg->probes[p];
        if (probe->stage != DAR_STAGE_INPUT || probe->location != DAR_LOCATION_EDGE)
            continue;
        if (probe->vessel && !model->config.vessel_inputs)
            continue;
        const float *in = alg->edge_input(dg, p);
        if (!in)
            die_record_in(dg->source, dg->record, "missing key '%s' (the model's edge inputs are vessel "
                          "features)", probe->key);
        float *arc = gd->arc_input[col] = arena_zero_floats(c->arena, A);
        for (int e = 0; e < m; e++) {
            arc[gd->arc_fwd[e]] += in[e];
            arc[gd->arc_bwd[e]] += in[e];
        }
    }
    gd->T = dg->steps;
    gd->phase = dg->phase;
    if (model->config.edge_pointer)
        dar_edge_pointer_arcs(c, gd);
}

/* ---- run layout and inputs ---------------------------------------------------- */

struct dar_run *dar_run_new(struct dar_group *c, const struct dar_net *net, const int *list, int ngraphs)
{
    struct dar_run *r = arena_zero(c->arena, sizeof *r);
    int H = c->H;
    r->net = net;
    r->ngraphs = ngraphs;
    r->graph = arena_zero(c->arena, sizeof(int) * (size_t)ngraphs);
    memcpy(r->graph, list, sizeof(int) * (size_t)ngraphs);
    r->node_offset = arena_zero(c->arena, sizeof(int64_t) * (size_t)(ngraphs + 1));
    r->arc_offset = arena_zero(c->arena, sizeof(int64_t) * (size_t)(ngraphs + 1));
    r->edge_offset = arena_zero(c->arena, sizeof(int64_t) * (size_t)(ngraphs + 1));
    r->pointer_offset = arena_zero(c->arena, sizeof(int64_t) * (size_t)(ngraphs + 1));
    for (int k = 0; k < ngraphs; k++) {
        const struct dar_graph_layout *gd = &c->gd[list[k]];
        r->node_offset[k + 1] = r->node_offset[k] + gd->n;
        r->arc_offset[k + 1] = r->arc_offset[k] + gd->A;
        r->edge_offset[k + 1] = r->edge_offset[k] + gd->m;
        r->pointer_offset[k + 1] = r->pointer_offset[k] + (int64_t)gd->n * gd->n;
    }
    r->N = r->node_offset[ngraphs];
    r->A = r->arc_offset[ngraphs];
    r->E = r->edge_offset[ngraphs];
    r->P = r->pointer_offset[ngraphs];
    r->send = arena_zero(c->arena, sizeof(int32_t) * (size_t)r->A);
    r->recv = arena_zero(c->arena, sizeof(int32_t) * (size_t)r->A);
    for (int k = 0; k < ngraphs; k++) {
        const struct dar_graph_layout *gd = &c->gd[list[k]];
        int32_t base = (int32_t)r->node_offset[k];
        int32_t *send = r->send + r->arc_offset[k], *recv = r->recv + r->arc_offset[k];
        for (int64_t a = 0; a < gd->A; a++) {
            send[a] = base + gd->send[a];
            recv[a] = base + gd->recv[a];
        }
    }
    if (c->model->config.agg == DAR_AGG_MEAN) {
        r->in_degree = arena_zero(c->arena, sizeof(int32_t) * (size_t)r->N);
        edge_in_degree(r->in_degree, r->recv, r->A, r->N);
    }
    r->node = arena_floats(c->arena, r->N * c->model->node_columns);
    r->arc = arena_floats(c->arena, r->A * c->model->narc);
    r->input_grad = arena_zero(c->arena, sizeof(float *) * (size_t)(ngraphs * c->model->narc + 1));
    r->input_soft = arena_zero(c->arena, sizeof(float *) * (size_t)(ngraphs * c->model->narc + 1));
    r->carry_in = arena_zero(c->arena, sizeof(bool) * (size_t)ngraphs);
    r->hd = arena_floats(c->arena, r->N * 3 * H);
    return r;
}

/* Node and arc features of graph k of the run from its probe values. */
void dar_run_set_inputs(struct dar_group *c, struct dar_run *r, int k, const struct dar_inputs *in)
{
    const struct dar_model *model = c->model;
    const struct dar_algorithm *alg = c->alg;
    const struct dar_graph_layout *gd = &c->gd[r->graph[k]];
    int n = gd->n, columns = model->node_columns, narc = model->narc;
    float *node = r->node + r->node_offset[k] * columns;
    for (int p = 0; p < alg->nprobes; p++) {
        int col = model->node_column[p];
        if (col < 0)
            continue;
        const struct dar_probe *probe = &alg->probes[p];
        const void *values = in->probe[p];
        for (int v = 0; v < n; v++) {
            float *f = node + (int64_t)v * columns + col;
            switch (probe->type) {
            case DAR_TYPE_SCALAR:
                f[0] = values ? ((const float *)values)[v] : 0.0f;
                break;
            case DAR_TYPE_CATEGORICAL:
                for (int j = 0; j < probe->width; j++)
                    f[j] = values ? (((const uint8_t *)values)[v] == j) : 0.0f;
                break;
            default:    /* mask, mask_one */
                if (in->soft[p])
                    f[0] = in->soft[p][v];
                else
                    f[0] = values ? ((const uint8_t *)values)[v] : 0.0f;
                break;
            }
        }
    }
    float *arc = r->arc + r->arc_offset[k] * narc;
    for (int64_t a = 0; a < gd->A; a++) {
        float *f = arc + a * narc;
        for (int col = 0; col < narc; col++) {
            int p = model->arc_probe[col];
            if (alg->probes[p].type == DAR_TYPE_POINTER) {
                const int32_t *pi = in->probe[p];
                if (in->soft[p])
                    f[col] = in->soft[p][(int64_t)gd->send[a] * n + gd->recv[a]];
                else
                    f[col] = pi && pi[gd->send[a]] == gd->recv[a];
            } else {
                f[col] = gd->arc_input[col] ? gd->arc_input[col][a] : 0.0f;
            }
        }
    }
    for (int col = 0; col < narc; col++) {
        int p = model->arc_probe[col];
        if (alg->probes[p].type == DAR_TYPE_POINTER && in->soft[p] && in->grad[p]) {
            r->input_grad[(int64_t)k * narc + col] = in->grad[p];
            r->input_soft[(int64_t)k * narc + col] = in->soft[p];
        }
    }
    /* edge hints: on both arcs of their edge, negated on the backward one
     * for an antisymmetric probe */
    for (int col = 0; col < narc; col++) {
        int p = model->arc_probe[col];
        const struct dar_probe *probe = &alg->probes[p];
        if (probe->location != DAR_LOCATION_EDGE || probe->stage == DAR_STAGE_INPUT || !in->probe[p])
            continue;
        if (probe->type == DAR_TYPE_BOUNDED_ANTISYMMETRIC) {
            const float *F = in->probe[p];
            for (int e = 0; e < gd->m; e++) {
                arc[(int64_t)gd->arc_fwd[e] * narc + col] += F[e];
                arc[(int64_t)gd->arc_bwd[e] * narc + col] -= F[e];
            }
            r->input_grad[(int64_t)k * narc + col] = in->grad[p];
            continue;
        }
        for (int e = 0; e < gd->m; e++) {
            float x = probe->type == DAR_TYPE_SCALAR ? ((const float *)in->probe[p])[e]
                                                     : ((const uint8_t *)in->probe[p])[e];
            arc[(int64_t)gd->arc_fwd[e] * narc + col] += x;
            arc[(int64_t)gd->arc_bwd[e] * narc + col] += x;
        }
    }
}

/* ---- one network: forward ----------------------------------------------------- */

void dar_net_arc_products(const struct dar_model *m, const struct dar_net *net,
                          float *const *kme)
{
    int H = m->config.hidden;
    for (int col = 0; col < m->narc; col++) {
        if (!net->encodes[m->arc_probe[col]])
            continue;
        const float *a = net->enc[m->arc_probe[col]];
        for (int o = 0; o < H; o++) {
            const float *w = net->me.weight + (int64_t)o * H;
            float s = 0.0f;
            for (int h = 0; h < H; h++)
                s += w[h] * a[h];
            kme[col][o] = s;
        }
    }
}

/* The rank-4 products of every network, once per call: Me·a_c, and q3·a_c
 * of every edge head. */
static void netcache_init(struct dar_group *c)
{
    int H = c->H;
    const struct dar_model *model = c->model;
    for (int j = 0; j < model->nnets; j++) {
        const struct dar_net *net = &model->nets[j];
        struct dar_netcache *nc = &c->nc[j];
        memset(nc, 0, sizeof *nc);
        for (int col = 0; col < model->narc; col++) {
            nc->kme[col] = arena_zero_floats(c->arena, H);
            nc->dkme[col] = arena_zero_floats(c->arena, H);
        }
        dar_net_arc_products(model, net, nc->kme);
        for (int col = 0; col < model->narc; col++) {
            const float *a = net->enc[model->arc_probe[col]];
            if (!net->encodes[model->arc_probe[col]])
                continue;
            for (int hd = 0; hd < net->nheads; hd++) {
                const struct dar_linear *q3 = arc_layer(&net->heads[hd]);
                if (!q3)
                    continue;
                float s = 0.0f;
                for (int h = 0; h < H; h++)
                    s += q3->weight[h] * a[h];
                nc->kq[hd][col] = s;
            }
        }
    }
    dar_edge_pointer_products(c);
}

/* The node halves of the first message layer: An = M1 z + b1, Bn = M2 z + b2. */
static void message_nodes(struct dar_group *c, const struct dar_run *r, float *An, float *Bn, const float *z)
{
    // An and Bn are (N,H), z is (N,2H)
    const struct dar_net *net = r->net;
    int H = c->H;
    linear_forward_transposed(An, z, net->m1.weight_t, net->m1.bias, r->N, 2 * H, H);
    linear_forward_transposed(Bn, z, net->m2.weight_t, net->m2.bias, r->N, 2 * H, H);
}

/* First message layer of arcs a0..a1-1, relu'd:
 * r0[a] = relu(An[recv a] + Bn[send a] + b_me + Σ_φ f_aφ k_φ) */
CLONES static void message_rows(struct dar_group *c, const struct dar_run *r, float *r0, const float *An,
                         const float *Bn, int64_t a0, int64_t a1)
{
    // r0 is (a1-a0,H), An and Bn are (N,H)
    const struct dar_net *net = r->net;
    const struct dar_netcache *nc = &c->nc[net_index(c->model, net)];
    int H = c->H, narc = c->model->narc;
    bool use[DAR_MAX_PROBES];
    for (int p = 0; p < narc; p++)
        use[p] = net->encodes[c->model->arc_probe[p]];
    for (int64_t a = a0; a < a1; a++) {
        float *out = r0 + (a - a0) * H;
        const float *x = An + (int64_t)r->recv[a] * H, *y = Bn + (int64_t)r->send[a] * H;
        const float *f = r->arc + a * narc;
        row_sum3(out, x, y, net->me.bias, H);
        for (int p = 0; p < narc; p++)
            if (use[p] && f[p] != 0.0f)
                row_axpy(out, f[p], nc->kme[p], H);
        relu_forward(out, out, H);      /* while the row is in cache */
    }
}

static void message_input(struct dar_group *c, const struct dar_run *r, float *r0, const float *z)
{
    // r0 is (A,H), z is (N,2H)
    int H = c->H;
    struct arena_mark mark = arena_mark(c->arena);
    float *An = arena_floats(c->arena, r->N * H), *Bn = arena_floats(c->arena, r->N * H);
    message_nodes(c, r, An, Bn, z);
    message_rows(c, r, r0, An, Bn, 0, r->A);
    arena_release(c->arena, mark);
}

/* Without backward, big runs stream their arcs in chunks of this many,
 * aggregating as they go: memory O(chunk·H + N·H) instead of O(A·H). */
#define STREAM_ARCS 16384

/* agg over the messages of one chunk of arcs, in arc order: the same
 * operations, in the same order, as the aggregate_*_forward kernels. */
CLONES static void aggregate_rows(float *agg, const float *msg, const int32_t *recv, int64_t a0,
                                  int64_t a1, enum dar_agg kind, int H)
{
    for (int64_t a = a0; a < a1; a++) {
        float *out = agg + (int64_t)recv[a] * H;
        const float *m = msg + (a - a0) * H;
        if (kind == DAR_AGG_MAX)
            row_max_value(out, m, H);
        else
            row_add(out, m, H);
    }
}

/* The processor's messages and aggregate when no backward will follow. */
static void messages_streamed(struct dar_group *c, struct dar_run *r, const float *z)
{
    const struct dar_net *net = r->net;
    int H = c->H;
    int64_t N = r->N, A = r->A;
    enum dar_agg kind = c->model->config.agg;
    float *An = arena_floats(c->arena, N * H), *Bn = arena_floats(c->arena, N * H);
    message_nodes(c, r, An, Bn, z);
    float *r0 = arena_floats(c->arena, (int64_t)STREAM_ARCS * H);
    float *r1 = arena_floats(c->arena, (int64_t)STREAM_ARCS * H);
    for (int64_t i = 0; i < N * H; i++)
        r->agg[i] = kind == DAR_AGG_MAX ? -INFINITY : 0.0f;
    for (int64_t a0 = 0; a0 < A; a0 += STREAM_ARCS) {
        int64_t a1 = a0 + STREAM_ARCS < A ? a0 + STREAM_ARCS : A;
        message_rows(c, r, r0, An, Bn, a0, a1);
        linear_relu_forward_transposed(r1, r0, net->l1.weight_t, net->l1.bias, a1 - a0, H, H);
        linear_relu_forward_transposed(r0, r1, net->l2.weight_t, net->l2.bias, a1 - a0, H, H);
        aggregate_rows(r->agg, r0, r->recv, a0, a1, kind, H);
    }
    for (int64_t v = 0; v < N; v++) {
        float *out = r->agg + v * H;
        if (kind == DAR_AGG_MAX) {
            for (int h = 0; h < H; h++)
                if (out[h] == -INFINITY)
                    out[h] = 0.0f;
        } else if (kind == DAR_AGG_MEAN && r->in_degree[v]) {
            float degree = (float)r->in_degree[v];
            for (int h = 0; h < H; h++)
                out[h] /= degree;
        }
    }
}

/* z = [x; h_prev] rows copied out of hd */
static void hd_to_z(float *z, const float *hd, int64_t N, int H)
{
    for (int64_t v = 0; v < N; v++)
        memcpy(z + v * 2 * H, hd + v * 3 * H, sizeof(float) * 2 * (size_t)H);
}

/* Encoders and processor: fills hd (x, h_prev given in hprev (N×H, NULL =
 * zero), h) and the saved activations. */
CLONES static void net_forward(struct dar_group *c, struct dar_run *r, const float *hprev)
{
    const struct dar_net *net = r->net;
    int H = c->H;
    int64_t N = r->N, A = r->A;
    bool streamed = !c->backward && A > STREAM_ARCS;
    r->agg = arena_floats(c->arena, N * H);
    if (!streamed) {
        if (c->backward)
            r->r0 = arena_floats(c->arena, A * H);
        r->r1 = arena_floats(c->arena, A * H);
        if (c->model->config.agg != DAR_AGG_MAX)   /* max: the sign is agg's, see run_backward */
            r->msign = arena_alloc(c->arena, (size_t)(A * H > 0 ? A * H : 1));
        if (c->model->config.agg == DAR_AGG_MAX && c->backward)   /* inference: no argmax */
            r->argmax = arena_alloc(c->arena, sizeof(int32_t) * (size_t)(N * H > 0 ? N * H : 1));
    }
    struct arena_mark mark = arena_mark(c->arena);

    // x: the node encoders, Σ_p f_vp a_p (a categorical: W f_v, W H×width)
    const struct dar_model *model = c->model;
    const struct dar_algorithm *alg = c->alg;
    int columns = model->node_columns;
    for (int64_t v = 0; v < N; v++) {
        float *x = r->hd + v * 3 * H;
        const float *row = r->node + v * columns;
        memset(x, 0, sizeof(float) * (size_t)H);
        for (int p = 0; p < alg->nprobes; p++) {
            if (model->node_column[p] < 0 || !net->encodes[p])
                continue;
            const float *f = row + model->node_column[p];
            const float *W = net->enc[p];
            int K = alg->probes[p].type == DAR_TYPE_CATEGORICAL ? alg->probes[p].width : 1;
            if (K == 1) {
                if (f[0] != 0.0f)
                    row_axpy(x, f[0], W, H);
            } else if (K == 2) {
                if (f[0] != 0.0f || f[1] != 0.0f)
                    for (int h = 0; h < H; h++)
                        x[h] += W[2 * h] * f[0] + W[2 * h + 1] * f[1];
            } else {
                for (int h = 0; h < H; h++) {
                    float sum = 0.0f;
                    for (int j = 0; j < K; j++)
                        sum += W[(int64_t)K * h + j] * f[j];
                    x[h] += sum;
                }
            }
        }
        if (hprev)
            memcpy(x + H, hprev + v * H, sizeof(float) * (size_t)H);
        else
            memset(x + H, 0, sizeof(float) * (size_t)H);
    }
    float *z = arena_floats(c->arena, N * 2 * H);
    hd_to_z(z, r->hd, N, H);

    if (streamed) {
        messages_streamed(c, r, z);
    } else {
        float *r0 = c->backward ? r->r0 : arena_floats(c->arena, A * H);
        message_input(c, r, r0, z);
        linear_relu_forward_transposed(r->r1, r0, net->l1.weight_t, net->l1.bias, A, H, H);
        /* without backward r0 is dead: reuse */
        float *msg = c->backward ? arena_floats(c->arena, A * H) : r0;
        linear_relu_forward_transposed(msg, r->r1, net->l2.weight_t, net->l2.bias, A, H, H);
        if (r->msign)
            positive_bytes(r->msign, msg, A * H);
        switch (c->model->config.agg) {
        case DAR_AGG_MAX: aggregate_max_forward(r->agg, r->argmax, msg, r->recv, A, N, H); break;
        case DAR_AGG_MEAN: aggregate_mean_forward(r->agg, msg, r->recv, r->in_degree, A, N, H); break;
        case DAR_AGG_SUM: aggregate_sum_forward(r->agg, msg, r->recv, A, N, H); break;
        }
    }
    float *o = arena_floats(c->arena, N * H);
    linear_forward_transposed(o, z, net->o1.weight_t, net->o1.bias, N, 2 * H, H);
    linear_forward_transposed_accumulate(o, r->agg, net->o2.weight_t, net->o2.bias, N, H, H);
    if (dar_update_extended(model)) {
        /* what it saves for backward is allocated past z and o: the scratch
         * stays until the run's arena is released */
        dar_update_forward(c, r, z, o);
        return;
    }
    relu_forward(o, o, N * H);
    for (int64_t v = 0; v < N; v++)
        memcpy(r->hd + v * 3 * H + 2 * H, o + v * H, sizeof(float) * (size_t)H);
    arena_release(c->arena, mark);
}

/* A bounded antisymmetric edge head: F_e = b_e · tanh(q1·(hd_u − hd_v) +
 * q2·(hd_v − hd_u) + Σ_c kq_c (f_ac − f_a'c)), b the bounding edge input,
 * with q1·hd and q2·hd of node v at p1[v·stride], p2[v·stride]. */
static void antisymmetric_head_forward(struct dar_group *c, const struct dar_run *r, const struct dar_head *head,
                                       const float *kq, const float *p1, const float *p2, int64_t stride,
                                       float *t_out, float *F_out)
{
    const struct dar_net *net = r->net;
    const struct dar_model *model = c->model;
    int narc = model->narc;
    for (int k = 0; k < r->ngraphs; k++) {
        const struct dar_graph_layout *gd = &c->gd[r->graph[k]];
        const struct graph *g = &gd->dg->g;
        const float *bound = c->alg->edge_input(gd->dg, c->alg->probes[head->probe].bound);
        const float *arc = r->arc + r->arc_offset[k] * narc;
        const float *q1 = p1 + r->node_offset[k] * stride, *q2 = p2 + r->node_offset[k] * stride;
        for (int e = 0; e < gd->m; e++) {
            int64_t u = g->src[e], v = g->dst[e];
            const float *fa = arc + (int64_t)gd->arc_fwd[e] * narc;
            const float *fb = arc + (int64_t)gd->arc_bwd[e] * narc;
            float D = (q1[u * stride] - q1[v * stride]) + (q2[v * stride] - q2[u * stride]);
            for (int p = 0; p < narc; p++)
                if (net->encodes[model->arc_probe[p]])
                    D += kq[p] * (fa[p] - fb[p]);
            float t = tanhf(D);
            t_out[r->edge_offset[k] + e] = t;
            F_out[r->edge_offset[k] + e] = bound[e] * t;
        }
    }
}

/* The symmetric edge head: V_e = p_u + p_v + Σ_c kq_c (f_ac + f_a'c), with
 * p = q1·hd (its bias included) of node v at p[v·stride]. */
static void edge_head_forward(struct dar_group *c, const struct dar_run *r, const float *kq, const float *p,
                              int64_t stride, float *V_out)
{
    const struct dar_net *net = r->net;
    const struct dar_model *model = c->model;
    int narc = model->narc;
    for (int k = 0; k < r->ngraphs; k++) {
        const struct dar_graph_layout *gd = &c->gd[r->graph[k]];
        const struct graph *g = &gd->dg->g;
        const float *arc = r->arc + r->arc_offset[k] * narc;
        const float *q1 = p + r->node_offset[k] * stride;
        for (int e = 0; e < gd->m; e++) {
            const float *fa = arc + (int64_t)gd->arc_fwd[e] * narc;
            const float *fb = arc + (int64_t)gd->arc_bwd[e] * narc;
            float V = q1[(int64_t)g->src[e] * stride] + q1[(int64_t)g->dst[e] * stride];
            for (int col = 0; col < narc; col++)
                if (net->encodes[model->arc_probe[col]])
                    V += kq[col] * (fa[col] + fb[col]);
            V_out[r->edge_offset[k] + e] = V;
        }
    }
}

/* Columns [col, col + width) of the fused product's rows into dst (N×width). */
static void take_columns(float *dst, const float *all, int64_t stride, int col, int width, int64_t N)
{
    for (int64_t v = 0; v < N; v++)
        memcpy(dst + v * width, all + v * stride + col, sizeof(float) * (size_t)width);
}

/* The outputs of the network's heads and, with backward, their gradient
 * buffers, zeroed for the loss code to fill. */
static void heads_allocate(struct dar_group *c, struct dar_run *r)
{
    const struct dar_net *net = r->net;
    int H = c->H;
    int64_t N = r->N;
    bool bw = c->backward;
    for (int hd = 0; hd < net->nheads; hd++) {
        const struct dar_head *head = &net->heads[hd];
        struct dar_head_out *out = &r->head[hd];
        int64_t count;
        switch (head->type) {
        case DAR_TYPE_POINTER:
            out->p1 = arena_floats(c->arena, N * H);
            out->p2 = arena_floats(c->arena, N * H);
            count = r->P;
            break;
        case DAR_TYPE_BOUNDED_ANTISYMMETRIC:
            out->tanh = arena_floats(c->arena, r->E);
            count = r->E;
            break;
        case DAR_TYPE_CATEGORICAL:
            count = N * head->width;
            break;
        default:
            count = symmetric_edge_head(head) ? r->E : N;
            break;
        }
        out->value = arena_floats(c->arena, count);
        if (bw) out->grad = arena_zero_floats(c->arena, count);
    }
}

/* The heads the network has, on all graphs of the run: one product of hd
 * for all of them (net->heads_t, columns in head order), then the pointer
 * logits and the antisymmetric edge heads. */
static void heads_forward(struct dar_group *c, struct dar_run *r)
{
    const struct dar_net *net = r->net;
    const struct dar_netcache *nc = &c->nc[net_index(c->model, net)];
    int H = c->H;
    int64_t N = r->N;
    heads_allocate(c, r);
    struct arena_mark mark = arena_mark(c->arena);
    int out = net->heads_out;
    float *all = arena_floats(c->arena, N * out);
    linear_forward_transposed(all, r->hd, net->heads_t, net->heads_bias, N, 3 * H, out);
    int col = 0;
    for (int hd = 0; hd < net->nheads; hd++) {
        const struct dar_head *head = &net->heads[hd];
        struct dar_head_out *o = &r->head[hd];
        switch (head->type) {
        case DAR_TYPE_POINTER:
            take_columns(o->p1, all, out, col, H, N);
            take_columns(o->p2, all, out, col + H, H, N);
            if (c->model->config.edge_pointer) {
                dar_edge_pointer_forward(c, r, hd, o);
                break;
            }
            for (int k = 0; k < r->ngraphs; k++) {
                int n = c->gd[r->graph[k]].n;
                linear_forward(o->value + r->pointer_offset[k], o->p1 + r->node_offset[k] * H,
                               o->p2 + r->node_offset[k] * H, NULL, n, H, n);
            }
            break;
        case DAR_TYPE_BOUNDED_ANTISYMMETRIC:
            antisymmetric_head_forward(c, r, head, nc->kq[hd], all + col, all + col + 1, out, o->tanh,
                                       o->value);
            break;
        default:
            if (symmetric_edge_head(head))
                edge_head_forward(c, r, nc->kq[hd], all + col, out, o->value);
            else
                take_columns(o->value, all, out, col, head->width, N);
            break;
        }
        col += head->width;
    }
    if (col != out)
        die(EX_SOFTWARE, "BUG: the fused decoders have %d columns, %d read", out, col);
    arena_release(c->arena, mark);
}

/* ---- one network: backward ---------------------------------------------------- */

/* dF of an antisymmetric edge head back to dhd, the q weights, kq and the
 * arc columns of the antisymmetric edge inputs (darc[c], NULL for others). */
static void antisymmetric_head_backward(struct dar_group *c, const struct dar_run *r, const struct dar_head *head,
                                        const float *kq, float *dkq, const float *t, const float *dF,
                                        float *dhd, float *const *darc)
{
    int H = c->H;
    const struct dar_net *net = r->net;
    const struct dar_model *model = c->model;
    const struct dar_linear *q = head->linear;
    int narc = model->narc;
    struct arena_mark mark = arena_mark(c->arena);
    float *dp1 = arena_zero_floats(c->arena, r->N), *dp2 = arena_zero_floats(c->arena, r->N);
    for (int k = 0; k < r->ngraphs; k++) {
        const struct dar_graph_layout *gd = &c->gd[r->graph[k]];
        const struct graph *g = &gd->dg->g;
        const float *bound = c->alg->edge_input(gd->dg, c->alg->probes[head->probe].bound);
        const float *arc = r->arc + r->arc_offset[k] * narc;
        float *d1 = dp1 + r->node_offset[k], *d2 = dp2 + r->node_offset[k];
        for (int e = 0; e < gd->m; e++) {
            int64_t i = r->edge_offset[k] + e;
            float dD = dF[i] * bound[e] * (1.0f - t[i] * t[i]);
            if (dD == 0.0f)
                continue;
            int u = g->src[e], v = g->dst[e];
            d1[u] += dD;
            d1[v] -= dD;
            d2[v] += dD;
            d2[u] -= dD;
            const float *fa = arc + (int64_t)gd->arc_fwd[e] * narc;
            const float *fb = arc + (int64_t)gd->arc_bwd[e] * narc;
            for (int p = 0; p < narc; p++)
                if (net->encodes[model->arc_probe[p]])
                    dkq[p] += dD * (fa[p] - fb[p]);
            for (int p = 0; p < narc; p++)
                if (darc[p]) {
                    float *d = darc[p] + r->arc_offset[k];
                    d[gd->arc_fwd[e]] += dD * kq[p];
                    d[gd->arc_bwd[e]] -= dD * kq[p];
                }
        }
    }
    linear_backward(dhd, q[0].dweight, NULL, dp1, r->hd, q[0].weight, r->N, 3 * H, 1);
    linear_backward(dhd, q[1].dweight, NULL, dp2, r->hd, q[1].weight, r->N, 3 * H, 1);
    arena_release(c->arena, mark);
}

/* dV of a symmetric edge head back to dhd, q1 (weight and bias), kq and
 * the arc columns of the antisymmetric edge inputs (darc[c], NULL for others). */
static void edge_head_backward(struct dar_group *c, const struct dar_run *r, const struct dar_head *head,
                               const float *kq, float *dkq, const float *dV, float *dhd, float *const *darc)
{
    int H = c->H;
    const struct dar_net *net = r->net;
    const struct dar_model *model = c->model;
    const struct dar_linear *q1 = &head->linear[0];
    int narc = model->narc;
    struct arena_mark mark = arena_mark(c->arena);
    float *dp = arena_zero_floats(c->arena, r->N);
    for (int k = 0; k < r->ngraphs; k++) {
        const struct dar_graph_layout *gd = &c->gd[r->graph[k]];
        const struct graph *g = &gd->dg->g;
        const float *arc = r->arc + r->arc_offset[k] * narc;
        float *d1 = dp + r->node_offset[k];
        for (int e = 0; e < gd->m; e++) {
            float d = dV[r->edge_offset[k] + e];
            if (d == 0.0f)
                continue;
            d1[g->src[e]] += d;
            d1[g->dst[e]] += d;
            const float *fa = arc + (int64_t)gd->arc_fwd[e] * narc;
            const float *fb = arc + (int64_t)gd->arc_bwd[e] * narc;
            for (int col = 0; col < narc; col++)
                if (net->encodes[model->arc_probe[col]])
                    dkq[col] += d * (fa[col] + fb[col]);
            for (int col = 0; col < narc; col++)
                if (darc[col]) {
                    float *da = darc[col] + r->arc_offset[k];
                    da[gd->arc_fwd[e]] += d * kq[col];
                    da[gd->arc_bwd[e]] += d * kq[col];
                }
        }
    }
    linear_backward(dhd, q1->dweight, q1->dbias, dp, r->hd, q1->weight, r->N, 3 * H, 1);
    arena_release(c->arena, mark);
}

/* The pointer decoder's gradient (logits p1·p2ᵀ per graph) into dhd. */
static void pointer_head_backward(struct dar_group *c, const struct dar_run *r, const struct dar_head *head,
                                  const struct dar_head_out *o, float *dhd, float *const *darc)
{
    int H = c->H;
    int64_t N = r->N;
    float *dp1h = arena_zero_floats(c->arena, N * H), *dp2h = arena_zero_floats(c->arena, N * H);
    if (c->model->config.edge_pointer)
        dar_edge_pointer_backward(c, r, (int)(head - r->net->heads), o, dp1h, dp2h, darc);
    for (int k = 0; !c->model->config.edge_pointer && k < r->ngraphs; k++) {
        int n = c->gd[r->graph[k]].n;
        linear_backward(dp1h + r->node_offset[k] * H, dp2h + r->node_offset[k] * H, NULL,
                        o->grad + r->pointer_offset[k], o->p1 + r->node_offset[k] * H,
                        o->p2 + r->node_offset[k] * H, n, H, n);
    }
    const struct dar_linear *pi1 = &head->linear[0], *pi2 = &head->linear[1];
    linear_backward(dhd, pi1->dweight, pi1->dbias, dp1h, r->hd, pi1->weight, N, 3 * H, H);
    linear_backward(dhd, pi2->dweight, pi2->dbias, dp2h, r->hd, pi2->weight, N, 3 * H, H);
}

/* Every head the network has, in the order of the fused product. */
static void heads_backward(struct dar_group *c, const struct dar_run *r, float *dhd, float *const *darc)
{
    const struct dar_net *net = r->net;
    struct dar_netcache *nc = &c->nc[net_index(c->model, net)];
    int H = c->H;
    for (int hd = 0; hd < net->nheads; hd++) {
        const struct dar_head *head = &net->heads[hd];
        const struct dar_head_out *o = &r->head[hd];
        switch (head->type) {
        case DAR_TYPE_POINTER:
            pointer_head_backward(c, r, head, o, dhd, darc);
            break;
        case DAR_TYPE_BOUNDED_ANTISYMMETRIC:
            antisymmetric_head_backward(c, r, head, nc->kq[hd], nc->dkq[hd], o->tanh, o->grad, dhd, darc);
            break;
        default:
            if (symmetric_edge_head(head))
                edge_head_backward(c, r, head, nc->kq[hd], nc->dkq[hd], o->grad, dhd, darc);
            else
                linear_backward(dhd, head->linear[0].dweight, head->linear[0].dbias, o->grad, r->hd,
                                head->linear[0].weight, r->N, 3 * H, head->width);
            break;
        }
    }
}

/* The gradient of h left by the next step's run, added to dh. */
CLONES static void carry_gradient_in(struct dar_group *c, const struct dar_run *r, float *dhd)
{
    int H = c->H;
    for (int k = 0; k < r->ngraphs; k++) {
        struct dar_carry *st = &c->carry[r->graph[k]];
        if (!st->dh_pending)
            continue;
        int n = c->gd[r->graph[k]].n;
        for (int v = 0; v < n; v++)
            row_add(dhd + (r->node_offset[k] + v) * 3 * H + 2 * H, st->dh + (int64_t)v * H, H);
        st->dh_pending = false;
    }
}

/* Backward of h = relu(O1 z + O2 agg): dz gets O1's part (*z and *dz are
 * set, z copied out of hd); returns dagg. */
static float *update_backward(struct dar_group *c, const struct dar_run *r, const float *dhd, float **z,
                              float **dz)
{
    const struct dar_net *net = r->net;
    int H = c->H;
    int64_t N = r->N;
    float *dt = arena_zero_floats(c->arena, N * H);
    *z = arena_floats(c->arena, N * 2 * H);
    *dz = arena_floats(c->arena, N * 2 * H);
    hd_to_z(*z, r->hd, N, H);
    hd_to_z(*dz, dhd, N, H);
    float *dagg = arena_zero_floats(c->arena, N * H);
    if (dar_update_extended(c->model))
        dar_update_backward(c, r, dhd, *z, *dz, dt, dagg);
    else
        for (int64_t v = 0; v < N; v++) {
            float *o = dt + v * H;
            memcpy(o, dhd + v * 3 * H + 2 * H, sizeof(float) * (size_t)H);
            mask_by_positive(o, r->hd + v * 3 * H + 2 * H, H);
        }
    linear_backward(*dz, net->o1.dweight, net->o1.dbias, dt, *z, net->o1.weight, N, 2 * H, H);
    linear_backward(dagg, net->o2.dweight, net->o2.dbias, dt, r->agg, net->o2.weight, N, H, H);
    return dagg;
}

/* Backward of the aggregate and the two message layers after the first:
 * returns the gradient of the first layer's pre-activation (A×H). */
static float *messages_backward(struct dar_group *c, const struct dar_run *r, const float *dagg)
{
    const struct dar_net *net = r->net;
    int H = c->H;
    int64_t N = r->N, A = r->A;
    float *dm = arena_zero_floats(c->arena, A * H);
    switch (c->model->config.agg) {
    case DAR_AGG_MAX:
        // only the winning messages get a gradient, and a winner's value is
        // the aggregate's: relu passes it where agg > 0 (no mask pass)
        for (int64_t v = 0; v < N; v++) {
            const int32_t *winner = r->argmax + v * H;
            const float *value = r->agg + v * H, *d = dagg + v * H;
            for (int h = 0; h < H; h++)
                if (winner[h] >= 0 && value[h] > 0.0f)
                    dm[(int64_t)winner[h] * H + h] += d[h];
        }
        break;
    case DAR_AGG_MEAN: aggregate_mean_backward(dm, dagg, r->recv, r->in_degree, A, H); break;
    case DAR_AGG_SUM: aggregate_sum_backward(dm, dagg, r->recv, A, H); break;
    }
    if (r->msign)
        mask_by_bytes(dm, r->msign, A * H);
    float *dr1 = arena_zero_floats(c->arena, A * H);
    linear_backward(dr1, net->l2.dweight, net->l2.dbias, dm, r->r1, net->l2.weight, A, H, H);
    mask_by_positive(dr1, r->r1, A * H);
    const float *r0 = r->r0;
    float *dpre = dm;   /* dm is dead: reuse */
    memset(dpre, 0, sizeof(float) * (size_t)(A * H));
    linear_backward(dpre, net->l1.dweight, net->l1.dbias, dr1, r0, net->l1.weight, A, H, H);
    mask_by_positive(dpre, r0, A * H);
    return dpre;
}

/* Backward of pre = An[recv] + Bn[send] + b_me + Σ_φ f_aφ k_φ into dz, b_me,
 * the rank-4 products and the arc columns of antisymmetric edge inputs. */
CLONES static void message_input_backward(struct dar_group *c, const struct dar_run *r, const float *dpre,
                                          const float *z, float *dz, float *const *darc)
{
    const struct dar_net *net = r->net;
    struct dar_netcache *nc = &c->nc[net_index(c->model, net)];
    int H = c->H;
    int64_t N = r->N, A = r->A;
    float *dAn = arena_zero_floats(c->arena, N * H), *dBn = arena_zero_floats(c->arena, N * H);
    gather_rows_backward(dAn, dpre, r->recv, A, H);
    gather_rows_backward(dBn, dpre, r->send, A, H);
    int narc = c->model->narc;
    bool use[DAR_MAX_PROBES];
    for (int p = 0; p < narc; p++)
        use[p] = net->encodes[c->model->arc_probe[p]];
    for (int64_t a = 0; a < A; a++) {
        const float *d = dpre + a * H;
        const float *f = r->arc + a * narc;
        row_add(net->me.dbias, d, H);
        for (int p = 0; p < narc; p++)
            if (use[p] && f[p] != 0.0f)
                row_axpy(nc->dkme[p], f[p], d, H);
        for (int p = 0; p < narc; p++)
            if (darc[p])
                darc[p][a] += row_dot(nc->kme[p], d, H);
    }
    linear_backward(dz, net->m1.dweight, net->m1.dbias, dAn, z, net->m1.weight, N, 2 * H, H);
    linear_backward(dz, net->m2.dweight, net->m2.dbias, dBn, z, net->m2.weight, N, 2 * H, H);
}

/* Backward of the node encoders x = Σ_φ f_vφ a_φ (a categorical's W f_v). */
CLONES static void encoders_backward(struct dar_group *c, const struct dar_run *r, const float *dz)
{
    const struct dar_net *net = r->net;
    const struct dar_model *model = c->model;
    const struct dar_algorithm *alg = c->alg;
    int H = c->H, columns = model->node_columns;
    for (int64_t v = 0; v < r->N; v++) {
        const float *dx = dz + v * 2 * H;
        const float *row = r->node + v * columns;
        for (int p = 0; p < alg->nprobes; p++) {
            if (model->node_column[p] < 0 || !net->encodes[p])
                continue;
            const float *f = row + model->node_column[p];
            float *dW = net->denc[p];
            int K = alg->probes[p].type == DAR_TYPE_CATEGORICAL ? alg->probes[p].width : 1;
            if (K == 1) {
                if (f[0] != 0.0f)
                    row_axpy(dW, f[0], dx, H);
                continue;
            }
            bool any = false;
            for (int j = 0; j < K; j++)
                any |= f[j] != 0.0f;
            if (any)
                for (int h = 0; h < H; h++)
                    for (int j = 0; j < K; j++)
                        dW[(int64_t)K * h + j] += dx[h] * f[j];
        }
    }
}

/* d(h_prev) left for the previous step's run, for graphs with carry_in. */
static void carry_gradient_out(struct dar_group *c, const struct dar_run *r, const float *dz)
{
    int H = c->H;
    for (int k = 0; k < r->ngraphs; k++) {
        if (!r->carry_in[k])
            continue;
        struct dar_carry *st = &c->carry[r->graph[k]];
        int n = c->gd[r->graph[k]].n;
        for (int v = 0; v < n; v++)
            memcpy(st->dh + (int64_t)v * H, dz + (r->node_offset[k] + v) * 2 * H + H,
                   sizeof(float) * (size_t)H);
        st->dh_pending = true;
    }
}

/* The gradients of the antisymmetric edge inputs back to the predictions
 * they came from. */
/* A soft pointer's arc column back through the softmax it came from: the
 * column's gradient g summed per (u, v), then dlogit_uv += p_uv (g_uv −
 * Σ_w p_uw g_uw) into its head's logits gradient. */
static void soft_pointer_backward(struct dar_group *c, const struct dar_graph_layout *gd, const float *d,
                                  const float *p, float *dlogits)
{
    int n = gd->n;
    struct arena_mark mark = arena_mark(c->arena);
    float *g = arena_zero_floats(c->arena, (int64_t)n * n);
    for (int64_t a = 0; a < gd->A; a++)
        g[(int64_t)gd->send[a] * n + gd->recv[a]] += d[a];
    for (int u = 0; u < n; u++) {
        const float *pu = p + (int64_t)u * n, *gu = g + (int64_t)u * n;
        float mean = 0.0f;
        for (int v = 0; v < n; v++)
            mean += pu[v] * gu[v];
        for (int v = 0; v < n; v++)
            dlogits[(int64_t)u * n + v] += pu[v] * (gu[v] - mean);
    }
    arena_release(c->arena, mark);
}

static void inputs_backward(struct dar_group *c, const struct dar_run *r, float *const *darc)
{
    int narc = c->model->narc;
    for (int col = 0; col < narc; col++) {
        if (!darc[col])
            continue;
        for (int k = 0; k < r->ngraphs; k++) {
            float *dF = r->input_grad[(int64_t)k * narc + col];
            if (!dF)
                continue;
            const struct dar_graph_layout *gd = &c->gd[r->graph[k]];
            const float *d = darc[col] + r->arc_offset[k];
            if (r->input_soft[(int64_t)k * narc + col]) {
                soft_pointer_backward(c, gd, d, r->input_soft[(int64_t)k * narc + col], dF);
                continue;
            }
            for (int e = 0; e < gd->m; e++)
                dF[e] += d[gd->arc_fwd[e]] - d[gd->arc_bwd[e]];
        }
    }
}

/* Backward of one run: heads (their d-buffers filled by the loss code and
 * later steps), processor, encoders.  consume_carry: add the gradient of h
 * left by the next step's run; produce_carry: leave d(h_prev) for the
 * previous step's run, for graphs with carry_in. */
void dar_run_backward(struct dar_group *c, struct dar_run *r, bool consume_carry, bool produce_carry)
{
    int H = c->H;
    struct arena_mark mark = arena_mark(c->arena);
    float *dhd = arena_zero_floats(c->arena, r->N * 3 * H);
    /* the arc columns of the antisymmetric edge inputs the net encodes */
    float *darc[DAR_MAX_PROBES] = {0};
    for (int col = 0; col < c->model->narc; col++) {
        int p = c->model->arc_probe[col];
        bool soft = false;
        for (int k = 0; k < r->ngraphs && !soft; k++)
            soft = r->input_soft[(int64_t)k * c->model->narc + col] != NULL;
        if (r->net->encodes[p] && (c->alg->probes[p].type == DAR_TYPE_BOUNDED_ANTISYMMETRIC || soft))
            darc[col] = arena_zero_floats(c->arena, r->A);
    }
    heads_backward(c, r, dhd, darc);
    if (consume_carry)
        carry_gradient_in(c, r, dhd);
    float *z, *dz;
    float *dagg = update_backward(c, r, dhd, &z, &dz);
    float *dpre = messages_backward(c, r, dagg);
    message_input_backward(c, r, dpre, z, dz, darc);
    encoders_backward(c, r, dz);
    if (produce_carry)
        carry_gradient_out(c, r, dz);
    inputs_backward(c, r, darc);
    arena_release(c->arena, mark);
}

/* After every run's backward: the rank-4 products' gradients into Me, q3
 * and the arc encoders. */
static void netcache_backward(struct dar_group *c)
{
    int H = c->H;
    const struct dar_model *model = c->model;
    for (int j = 0; j < model->nnets; j++) {
        const struct dar_net *net = &model->nets[j];
        struct dar_netcache *nc = &c->nc[j];
        for (int p = 0; p < model->narc; p++) {
            int f = model->arc_probe[p];
            if (!net->encodes[f])
                continue;
            const float *a = net->enc[f];
            float *da = net->denc[f];
            const float *dk = nc->dkme[p];
            for (int o = 0; o < H; o++) {
                float *dw = net->me.dweight + (int64_t)o * H;
                const float *w = net->me.weight + (int64_t)o * H;
                for (int h = 0; h < H; h++) {
                    dw[h] += dk[o] * a[h];
                    da[h] += dk[o] * w[h];
                }
            }
            for (int hd = 0; hd < net->nheads; hd++) {
                const struct dar_linear *q3 = arc_layer(&net->heads[hd]);
                if (!q3)
                    continue;
                for (int h = 0; h < H; h++) {
                    q3->dweight[h] += nc->dkq[hd][p] * a[h];
                    da[h] += nc->dkq[hd][p] * q3->weight[h];
                }
            }
        }
    }
    dar_edge_pointer_products_backward(c);
}

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

void dar_run_forward(struct dar_group *c, struct dar_run *r, const float *hprev)
{
    net_forward(c, r, hprev);
    heads_forward(c, r);
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

void dar_hprev_test_hook(struct dar_group *c, float *h, int64_t count)
{
    struct dar_workspace *ws = c->ws;
    if (ws->hprev_mode == DAR_HPREV_RECORD) {
        if (ws->hprev_count + count > ws->hprev_room) {
            ws->hprev_room = 2 * (ws->hprev_count + count);
            ws->hprev = xrealloc(ws->hprev, sizeof(float) * (size_t)ws->hprev_room);
        }
        memcpy(ws->hprev + ws->hprev_count, h, sizeof(float) * (size_t)count);
        ws->hprev_count += count;
    } else if (ws->hprev_mode == DAR_HPREV_REPLAY) {
        if (ws->hprev_cursor + count > ws->hprev_count)
            die(EX_SOFTWARE, "BUG: replayed h_prev of another batch");
        memcpy(h, ws->hprev + ws->hprev_cursor, sizeof(float) * (size_t)count);
        ws->hprev_cursor += count;
    }
}

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

/* ---- one group ------------------------------------------------------------------ */

/* One group of graphs of the batch, start to end: the graphs laid out, the
 * products cached, the carried state zeroed; then the algorithm's schedule
 * (forward, losses into c->sum, predictions, backward of its runs); then the
 * rank-4 products' gradients. */
static void run_group(struct dar_group *c)
{
    int B = c->B, H = c->H;
    arena_reset(c->arena);
    c->gd = arena_zero(c->arena, sizeof(struct dar_graph_layout) * (size_t)(B ? B : 1));
    c->carry = arena_zero(c->arena, sizeof(struct dar_carry) * (size_t)(B ? B : 1));
    for (int b = 0; b < B; b++)
        prepare_graph(c, &c->gd[b], c->graphs[b]);
    netcache_init(c);
    for (int b = 0; b < B; b++) {
        int64_t n = c->gd[b].n;
        c->carry[b].h = arena_zero_floats(c->arena, n * H);
        c->carry[b].dh = arena_zero_floats(c->arena, n * H);
    }
    c->alg->run_group(c);
    if (c->backward)
        netcache_backward(c);
}

/* Every dense layer of a network: the processor's, then the heads'. */
static int net_layers(struct dar_net *net, struct dar_linear **out)
{
    struct dar_linear *fixed[] = {&net->m1, &net->m2, &net->me, &net->l1, &net->l2, &net->o1, &net->o2,
                                  &net->g1, &net->g2, &net->g3};
    int count = 0;
    for (size_t k = 0; k < sizeof fixed / sizeof *fixed; k++)
        if (fixed[k]->weight)
            out[count++] = fixed[k];
    for (int hd = 0; hd < net->nheads; hd++)
        for (int l = 0; l < net->heads[hd].nlinear; l++)
            out[count++] = &net->heads[hd].linear[l];
    return count;
}

enum { MAX_NET_LAYERS = 10 + 4 * DAR_MAX_HEADS };

/* The model as a group sees it: the same parameters, gradients into grads
 * (laid out as model->grads). */
static void model_with_grads(struct dar_model *view, const struct dar_model *model, float *grads)
{
    *view = *model;
    view->grads = grads;
#define REBASE(p) do { if (p) (p) = grads + ((p) - model->grads); } while (0)
    for (int i = 0; i < view->nparams; i++)
        REBASE(view->params[i].grad);
    for (int j = 0; j < view->nnets; j++) {
        struct dar_net *net = &view->nets[j];
        for (int f = 0; f < DAR_MAX_PROBES; f++)
            REBASE(net->denc[f]);
        REBASE(net->dln_scale);
        REBASE(net->dln_offset);
        struct dar_linear *layers[MAX_NET_LAYERS];
        int count = net_layers(net, layers);
        for (int k = 0; k < count; k++) {
            REBASE(layers[k]->dweight);
            REBASE(layers[k]->dbias);
        }
    }
#undef REBASE
}

/* The heads' layers that read hd, in the order of their columns in the
 * fused product (heads_forward reads them in this order): all of a head's
 * but an edge head's q3, which reads the arc encoders, and an edge
 * pointer's d3 and d4; returns how many. */
static int decoder_list(const struct dar_net *net, const struct dar_linear *const **out)
{
    static _Thread_local const struct dar_linear *list[4 * DAR_MAX_HEADS];
    int count = 0;
    for (int hd = 0; hd < net->nheads; hd++) {
        const struct dar_head *head = &net->heads[hd];
        /* a pointer's d3 and d4 read the arcs and the max, not hd */
        int reading = head->type == DAR_TYPE_POINTER ? 2 : arc_layer(head) ? head->nlinear - 1 : head->nlinear;
        for (int l = 0; l < reading; l++)
            list[count++] = &head->linear[l];
    }
    *out = list;
    return count;
}

/* The model for one call: weight_t of every dense layer set to its weight
 * transposed (in×out, in ws), which the forward products read. */
static void model_with_transposed_weights(struct dar_model *view, const struct dar_model *model,
                                          struct dar_workspace *ws)
{
    *view = *model;
    if (ws->weights_t_count != model->count) {
        free(ws->weights_t);
        ws->weights_t = xmalloc(sizeof(float) * (size_t)(model->count + 1));
        ws->weights_t_count = model->count;
    }
    for (int j = 0; j < view->nnets; j++) {
        struct dar_net *net = &view->nets[j];
        struct dar_linear *layers[MAX_NET_LAYERS];
        int count = net_layers(net, layers);
        for (int k = 0; k < count; k++) {
            struct dar_linear *L = layers[k];
            if (!L->weight)
                continue;
            if (L->weight < model->values || L->weight >= model->values + model->count)
                die(EX_SOFTWARE, "BUG: a weight outside the model's storage");
            float *t = ws->weights_t + (L->weight - model->values);
            for (int o = 0; o < L->out; o++)
                for (int i = 0; i < L->in; i++)
                    t[(int64_t)i * L->out + o] = L->weight[(int64_t)o * L->in + i];
            L->weight_t = t;
        }
    }
    // the decoders on hd as one product: one pass over hd instead of one a
    // decoder, and no product of one or two columns (a vector per column)
    int64_t need = 0;
    for (int j = 0; j < view->nnets; j++) {
        const struct dar_linear *const *heads;
        int count = decoder_list(&view->nets[j], &heads);
        int out = 0;
        for (int k = 0; k < count; k++)
            out += heads[k]->out;
        need += (int64_t)(3 * view->config.hidden + 1) * out;
    }
    if (need > ws->heads_room) {
        free(ws->heads);
        ws->heads_room = need;
        ws->heads = xmalloc(sizeof(float) * (size_t)need);
    }
    float *next = ws->heads;
    for (int j = 0; j < view->nnets; j++) {
        struct dar_net *net = &view->nets[j];
        const struct dar_linear *const *heads;
        int count = decoder_list(net, &heads);
        int out = 0;
        for (int k = 0; k < count; k++)
            out += heads[k]->out;
        int C = 3 * view->config.hidden;
        float *wt = next, *bias = next + (int64_t)C * out;
        next = bias + out;
        for (int k = 0, col = 0; k < count; col += heads[k]->out, k++)
            for (int o = 0; o < heads[k]->out; o++) {
                for (int i = 0; i < C; i++)
                    wt[(int64_t)i * out + col + o] = heads[k]->weight_t[(int64_t)i * heads[k]->out + o];
                bias[col + o] = heads[k]->bias ? heads[k]->bias[o] : 0.0f;
            }
        net->heads_t = wt;
        net->heads_bias = bias;
        net->heads_out = out;
    }
}

/* Graphs per group.  The batch is split into groups of this many consecutive
 * graphs, run as tasks of the worker pool, each with its own gradient; the
 * gradients are added in group order.  A constant: it fixes how the sums of
 * dW are grouped, so the bits do not depend on the thread count. */
enum { GROUP_GRAPHS = 2 };

struct batch_job {
    struct dar_model *model;
    struct dar_workspace *ws;
    struct dar_graph *const *graphs;
    int B;
    const uint8_t *teacher;
    int teacher_len;
    bool backward, training;
    struct dar_scales scales;
    double (*sums)[DAR_MAX_LOSSES];     /* [groups] */
    struct dar_prediction *pred;        /* [B] or NULL */
    enum dar_embed embed;
    const int *order;                   /* [groups]: task i runs group order[i] */
};

/* About the work of a group: steps times nodes and arcs, summed. */
static double group_cost(struct dar_graph *const *graphs, int B, int g, bool pgn)
{
    double cost = 0;
    for (int b = g * GROUP_GRAPHS; b < B && b < (g + 1) * GROUP_GRAPHS; b++) {
        double n = graphs[b]->g.n, arcs = pgn ? 2.0 * graphs[b]->g.m + n : n * n;
        cost += (graphs[b]->steps + 1.0) * (n + arcs);
    }
    return cost;
}

/* The groups, costliest first, so that no thread is left with a big one at
 * the end (which thread runs a group never changes its result). */
static void group_order(int *order, struct dar_graph *const *graphs, int B, int groups, bool pgn)
{
    double cost[groups > 0 ? groups : 1];
    for (int g = 0; g < groups; g++) {
        cost[g] = group_cost(graphs, B, g, pgn);
        int i = g;
        while (i > 0 && cost[order[i - 1]] < cost[g]) {
            order[i] = order[i - 1];
            i--;
        }
        order[i] = g;
    }
}

static void group_task(void *context, int64_t task, int worker)
{
    const struct batch_job *j = context;
    int64_t g = j->order[task];
    int first = (int)g * GROUP_GRAPHS;
    struct dar_model view;
    struct dar_model *model = j->model;
    if (j->backward) {
        float *grads = j->ws->grads + g * j->model->count;
        memset(grads, 0, sizeof(float) * (size_t)j->model->count);
        model_with_grads(&view, j->model, grads);
        model = &view;
    }
    const struct dar_config *config = &model->config;
    struct dar_group c = {
        .model = model,
        .alg = config->algorithm,
        .ws = j->ws,
        .arena = &j->ws->arenas[g],
        .H = config->hidden,
        .B = j->B - first < GROUP_GRAPHS ? j->B - first : GROUP_GRAPHS,
        .graphs = j->graphs + first,
        .training = j->training,
        .backward = j->backward,
        .variant = config->variant,
        .embed_first = j->embed == DAR_EMBED_FIRST,
        .teacher = j->teacher,
        .teacher_len = j->teacher_len,
        .scales = j->scales,
        .pred = j->pred ? j->pred + first : NULL,
    };
    run_group(&c);
    memcpy(j->sums[g], c.sum, sizeof c.sum);
}

/* Entries of the gradient per task when the groups' gradients are added. */
enum { GRADIENT_SPAN = 8192 };

struct gradient_sum { float *grads; const float *groups; int64_t count; int ngroups; };

static void gradient_sum_span(void *context, int64_t span, int worker)
{
    const struct gradient_sum *j = context;
    int64_t i0 = span * GRADIENT_SPAN, i1 = i0 + GRADIENT_SPAN < j->count ? i0 + GRADIENT_SPAN : j->count;
    for (int g = 0; g < j->ngroups; g++) {
        const float *src = j->groups + g * j->count;
        for (int64_t i = i0; i < i1; i++)
            j->grads[i] += src[i];
    }
}

/* The groups' loss terms added in group order, and reported per term by
 * the algorithm into *losses (when not NULL); returns the total. */
static double sum_losses(struct dar_losses *losses, double (*group_sums)[DAR_MAX_LOSSES], int groups,
                         const struct dar_model *model, const struct dar_scales *sc)
{
    double sum[DAR_MAX_LOSSES] = {0};
    for (int g = 0; g < groups; g++)
        for (int t = 0; t < DAR_MAX_LOSSES; t++)
            sum[t] += group_sums[g][t];
    if (!losses)
        return 0.0;
    memset(losses, 0, sizeof *losses);
    losses->total = model->config.algorithm->total_loss(model, sum, sc, losses->term);
    return losses->total;
}

static double dar_run(struct dar_model *model, struct dar_workspace *ws,
                      struct dar_graph *const *graphs, int B, const uint8_t *teacher,
                      int teacher_len, bool backward, bool training, struct dar_losses *losses,
                      struct dar_prediction *pred, enum dar_embed embed)
{
    int groups = (B + GROUP_GRAPHS - 1) / GROUP_GRAPHS;
    workspace_reserve(ws, groups, model->count);
    if (ws->hprev_mode == DAR_HPREV_RECORD)
        ws->hprev_count = 0;
    ws->hprev_cursor = 0;
    double group_sums[groups > 0 ? groups : 1][DAR_MAX_LOSSES];
    memset(group_sums, 0, sizeof group_sums);
    int order[groups > 0 ? groups : 1];
    group_order(order, graphs, B, groups, model->config.processor == DAR_PGN);
    struct dar_model view;
    model_with_transposed_weights(&view, model, ws);
    model = &view;
    struct batch_job job = {model, ws, graphs, B, teacher, teacher_len, backward, training,
                            model->config.algorithm->batch_scales(model, graphs, B,
                                                                  embed == DAR_EMBED_FIRST),
                            group_sums, pred, embed, order};
    if (ws->hprev_mode == DAR_HPREV_LIVE) {
        workers_run(groups, group_task, &job);
    } else {    /* the recorded h_prev are in group order */
        for (int g = 0; g < groups; g++)
            group_task(&job, g, 0);
    }
    if (backward) {
        struct gradient_sum gs = {model->grads, ws->grads, model->count, groups};
        workers_run((model->count + GRADIENT_SPAN - 1) / GRADIENT_SPAN, gradient_sum_span, &gs);
    }
    return sum_losses(losses, group_sums, groups, model, &job.scales);
}

int dar_batch_steps(struct dar_graph *const *graphs, int B)
{
    int steps = 0;
    for (int b = 0; b < B; b++)
        if (graphs[b]->steps - 1 > steps)
            steps = graphs[b]->steps - 1;
    return steps;
}

double dar_loss_and_grad(struct dar_model *model, struct dar_workspace *ws,
                         struct dar_graph *const *graphs, int B,
                         const uint8_t *teacher, int teacher_len, bool backward,
                         struct dar_losses *out)
{
    struct dar_losses local;
    model->config.algorithm->check(model, graphs, B, true, DAR_EMBED_LAST);
    return dar_run(model, ws, graphs, B, teacher, teacher_len, backward, true,
                   out ? out : &local, NULL, DAR_EMBED_LAST);
}

void dar_predict(struct dar_model *model, struct dar_workspace *ws,
                 struct dar_graph *const *graphs, int B, enum dar_embed embed,
                 struct dar_prediction *out)
{
    model->config.algorithm->check(model, graphs, B, false, embed);
    dar_run(model, ws, graphs, B, NULL, 0, false, false, NULL, out, embed);
}
