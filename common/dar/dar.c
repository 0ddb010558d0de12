/* dar.c - the DAR model's computation (formats/model.md §1-§5): encoders,
 * the PGN/MPNN processor, the decoders, the step loop over a batch, the
 * losses, and the hand-written backward pass through time.  dar.h says how
 * the batch is laid out and what is kept for backward. */
#include "dar.h"
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
    float *hprev;               /* recorded h_prev of P_F, in call order */
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

enum { NODE_FEATURES = 6 };     /* pos s t mask cut0 cut1 */
const int dar_arc_encoder[DAR_ARC_FEATURES] = {DAR_F_CAP, DAR_F_W, DAR_F_FLOW, DAR_F_PTR,
                                               DAR_F_LENGTH, DAR_F_DISTANCE, DAR_F_CURVENESS};

/* One graph laid out for the model's processor. */
struct graph_layout {
    const struct dar_graph *dg;
    int n, m;
    int64_t A;                  /* arcs */
    int32_t *send, *recv;       /* [A] */
    int32_t *arc_fwd, *arc_bwd; /* [m] arcs src->dst and dst->src of each edge */
    float *arc_cap, *arc_w;     /* [A] */
    float *arc_vessel[3];       /* [A] length, distance, curveness (vessel_inputs), or NULL */
    int T;                      /* frames the step loop follows */
    const uint8_t *phase;       /* [T] */
    int last_flow;              /* last flow step (i + 1 < T), -1 if none */
    int32_t *cut_target;        /* [n] the min cut as class indices, or NULL */
};

/* Hint inputs of one graph at one step. */
struct hint_in {
    const uint8_t *mask;        /* [n] or NULL (zeros) */
    const int32_t *pi;          /* [n] or NULL (no pointer) */
    const float *flow;          /* [m] or NULL (zeros) */
    float *flow_grad;           /* [m] where d(flow) goes, NULL: a constant */
    const uint8_t *cut;         /* [n] classes or NULL (all-zero one-hot) */
};

/* Per-graph state carried across steps. */
struct graph_state {
    uint8_t *mask;              /* [n] the last mask prediction, binarised */
    int32_t *pi;                /* [n] */
    float *flow;                /* [m] the last flow_hint prediction (frame 0 before) */
    float *flow_grad;           /* its gradient accumulator, NULL if constant */
    uint8_t *cut;               /* [n] argmax of the last cut_hint; */
    bool has_cut;               /*   false: all-zero input */
    float *h;                   /* [n*H] the carried hidden state */
    bool h_valid;               /*   false: zero */
    float *dh;                  /* [n*H] backward: gradient waiting for the producer */
    bool dh_pending;
    float *mincut_logit;        /* [n*2] pipeline: the mincut network's last logits */
    float *mincut_dlogit;       /* [n*2] their gradient (inside its run) */
    uint8_t *mincut_cut;        /* [n] argmax */
    bool final_seen;            /* no-algo/prediction: F_out written */
};

/* One network on a set of graphs at one step. */
struct run {
    const struct dar_net *net;
    int ngraphs;
    int *graph;                    /* [ngraphs] batch indices */
    /* [ngraphs+1] where each graph's nodes, arcs, edges, pointer logits start */
    int64_t *node_offset, *arc_offset, *edge_offset, *pointer_offset;
    int64_t N, A, E, P;
    int32_t *send, *recv;       /* [A] compact node indices */
    int32_t *in_degree;         /* [N] mean only */
    float *node;                /* [N*6] */
    float *arc;                 /* [A*4] */
    float **flow_grad;          /* [ngraphs] where d(flow input) goes */
    bool *carry_in;             /* [ngraphs] h_prev is a carried state that takes a gradient */
    /* saved activations */
    float *hd;                  /* [N*3H] = [x; h_prev; h] */
    float *agg;                 /* [N*H] */
    int32_t *argmax;            /* [N*H] max only */
    float *r0;                  /* [A*H] first message activation (backward only) */
    float *r1;                  /* [A*H] second message activation */
    uint8_t *msign;             /* [A*H] third activation > 0 */
    /* heads */
    float *mask_logit, *dmask;  /* [N] */
    float *p1h, *p2h;           /* [N*H] */
    float *pi_logit, *dpi;      /* [P] */
    float *flow_hint_t, *flow_hint_F, *flow_hint_dF;    /* [E] tanh, F, dF */
    float *cut_hint_logit, *dcut_hint;  /* [N*2] */
    float *flow_t, *flow_F, *flow_dF;   /* [E] */
    float *cut_logit, *dcut;            /* [N*2] */
};

/* Per network: the rank-4 products and their gradients. */
struct netcache {
    float *kme[DAR_ARC_FEATURES], *dkme[DAR_ARC_FEATURES];     /* [H] Me·a_φ */
    float kq_flow_hint[DAR_ARC_FEATURES], dkq_flow_hint[DAR_ARC_FEATURES];   /* q3·a_φ */
    float kq_flow[DAR_ARC_FEATURES], dkq_flow[DAR_ARC_FEATURES];
};

/* The loss normalisers of the whole batch (model.md §5). */
struct scales {
    int n_hints;
    double count_mask, count_pi, count_flow_hint;   /* (graph, step) pairs scored */
    double sum_adj, sum_nodes;               /* Σ_b (2m+n), Σ_b n */
};

/* One group's contributions to the total loss, per loss term. */
struct sums { double mask, pi, flow_hint, cut_hint, flow, cut; };

/* One group of the batch in one call. */
struct ctx {
    struct dar_model *model;
    struct dar_workspace *ws;
    struct arena *arena;
    int H;
    int B;
    bool training;              /* the losses are computed (into sum) */
    bool backward;              /* and their gradients */
    enum dar_variant variant;
    bool leak_cut;              /* dual with leak_cut: the true cut is an input */
    bool embed_first;           /* DAR_EMBED_FIRST: one step, P_BF then P_F */
    const uint8_t *teacher;     /* [teacher_len] teacher forcing per step, or NULL */
    int teacher_len;
    struct scales scales;
    struct sums sum;
    struct dar_prediction *pred;    /* [B] or NULL (training) */
    struct graph_layout *gd;    /* [B] */
    struct graph_state *st;     /* [B] */
    struct netcache nc[DAR_MAX_NETS];
};

static int net_index(const struct dar_model *m, const struct dar_net *net)
{
    return (int)(net - m->nets);
}

/* ---- graphs laid out for the processor ------------------------------------- */

static void prepare_graph(struct ctx *c, struct graph_layout *gd, const struct dar_graph *dg)
{
    const struct graph *g = &dg->g;
    int n = g->n, m = g->m;
    gd->dg = dg;
    gd->n = n;
    gd->m = m;
    bool pgn = c->model->config.processor == DAR_PGN;
    int64_t A = pgn ? 2 * (int64_t)m + n : (int64_t)n * n;
    gd->A = A;
    gd->send = arena_zero(c->arena, sizeof(int32_t) * (size_t)A);
    gd->recv = arena_zero(c->arena, sizeof(int32_t) * (size_t)A);
    gd->arc_fwd = arena_zero(c->arena, sizeof(int32_t) * (size_t)(m + 1));
    gd->arc_bwd = arena_zero(c->arena, sizeof(int32_t) * (size_t)(m + 1));
    gd->arc_cap = arena_zero_floats(c->arena, A);
    gd->arc_w = arena_zero_floats(c->arena, A);
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
    /* an arc's cap and w sum over the edges it comes from (one for PGN; MPNN
     * sums antiparallel directed edges that share a pair) */
    for (int e = 0; e < m; e++) {
        gd->arc_cap[gd->arc_fwd[e]] += g->cap[e];
        gd->arc_cap[gd->arc_bwd[e]] += g->cap[e];
        gd->arc_w[gd->arc_fwd[e]] += g->w[e];
        gd->arc_w[gd->arc_bwd[e]] += g->w[e];
    }
    if (c->model->config.vessel_inputs) {
        float *const in[3] = {dg->length, dg->distance, dg->curveness};
        static const char *const names[3] = {"length", "distance", "curveness"};
        for (int j = 0; j < 3; j++) {
            if (!in[j])
                die_record_in(dg->source, dg->record, "missing key '%s' (the model's edge inputs are vessel "
                              "features)", names[j]);
            gd->arc_vessel[j] = arena_zero_floats(c->arena, A);
            for (int e = 0; e < m; e++) {
                gd->arc_vessel[j][gd->arc_fwd[e]] += in[j][e];
                gd->arc_vessel[j][gd->arc_bwd[e]] += in[j][e];
            }
        }
    }
    if (dg->cut) {
        gd->cut_target = arena_zero(c->arena, sizeof(int32_t) * (size_t)n);
        for (int v = 0; v < n; v++)
            gd->cut_target[v] = dg->cut[v];
    }
    gd->T = dg->steps;
    gd->phase = dg->phase;
    gd->last_flow = -1;
    for (int i = 0; i + 1 < gd->T; i++)
        if (!gd->phase[i])
            gd->last_flow = i;
}

/* ---- run layout and inputs ---------------------------------------------------- */

static struct run *run_new(struct ctx *c, const struct dar_net *net, const int *list, int ngraphs)
{
    struct run *r = arena_zero(c->arena, sizeof *r);
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
        const struct graph_layout *gd = &c->gd[list[k]];
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
        const struct graph_layout *gd = &c->gd[list[k]];
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
    r->node = arena_floats(c->arena, r->N * NODE_FEATURES);
    r->arc = arena_floats(c->arena, r->A * DAR_ARC_FEATURES);
    r->flow_grad = arena_zero(c->arena, sizeof(float *) * (size_t)ngraphs);
    r->carry_in = arena_zero(c->arena, sizeof(bool) * (size_t)ngraphs);
    r->hd = arena_floats(c->arena, r->N * 3 * H);
    return r;
}

/* Node and arc features of graph k of the run from its hint inputs. */
static void run_set_inputs(struct ctx *c, struct run *r, int k, const struct hint_in *in)
{
    const struct graph_layout *gd = &c->gd[r->graph[k]];
    const struct graph *g = &gd->dg->g;
    int n = gd->n;
    float *node = r->node + r->node_offset[k] * NODE_FEATURES;
    for (int v = 0; v < n; v++) {
        float *f = node + (int64_t)v * NODE_FEATURES;
        f[0] = (float)v / (float)n;
        f[1] = v == g->s;
        f[2] = v == g->t;
        f[3] = in->mask ? in->mask[v] : 0.0f;
        f[4] = in->cut ? (in->cut[v] == 0) : 0.0f;
        f[5] = in->cut ? (in->cut[v] == 1) : 0.0f;
    }
    float *arc = r->arc + r->arc_offset[k] * DAR_ARC_FEATURES;
    for (int64_t a = 0; a < gd->A; a++) {
        float *f = arc + a * DAR_ARC_FEATURES;
        f[DAR_ARC_CAP] = gd->arc_cap[a];
        f[DAR_ARC_W] = gd->arc_w[a];
        f[DAR_ARC_FLOW] = 0.0f;
        f[DAR_ARC_PTR] = in->pi && in->pi[gd->send[a]] == gd->recv[a];
        for (int j = 0; j < 3; j++)
            f[DAR_ARC_LENGTH + j] = gd->arc_vessel[j] ? gd->arc_vessel[j][a] : 0.0f;
    }
    if (in->flow)
        for (int e = 0; e < gd->m; e++) {
            arc[(int64_t)gd->arc_fwd[e] * DAR_ARC_FEATURES + DAR_ARC_FLOW] += in->flow[e];
            arc[(int64_t)gd->arc_bwd[e] * DAR_ARC_FEATURES + DAR_ARC_FLOW] -= in->flow[e];
        }
    r->flow_grad[k] = in->flow_grad;
}

/* ---- one network: forward ----------------------------------------------------- */

void dar_net_arc_products(const struct dar_net *net, int H, float *const kme[DAR_ARC_FEATURES])
{
    for (int p = 0; p < DAR_ARC_FEATURES; p++) {
        if (!net->encodes[dar_arc_encoder[p]])
            continue;
        const float *a = net->enc[dar_arc_encoder[p]];
        for (int o = 0; o < H; o++) {
            const float *w = net->me.weight + (int64_t)o * H;
            float s = 0.0f;
            for (int h = 0; h < H; h++)
                s += w[h] * a[h];
            kme[p][o] = s;
        }
    }
}

/* The rank-4 products of every network, once per call. */
static void netcache_init(struct ctx *c)
{
    int H = c->H;
    for (int j = 0; j < c->model->nnets; j++) {
        const struct dar_net *net = &c->model->nets[j];
        struct netcache *nc = &c->nc[j];
        memset(nc, 0, sizeof *nc);
        for (int p = 0; p < DAR_ARC_FEATURES; p++) {
            nc->kme[p] = arena_zero_floats(c->arena, H);
            nc->dkme[p] = arena_zero_floats(c->arena, H);
        }
        dar_net_arc_products(net, H, nc->kme);
        for (int p = 0; p < DAR_ARC_FEATURES; p++) {
            const float *a = net->enc[dar_arc_encoder[p]];
            if (!net->encodes[dar_arc_encoder[p]])
                continue;
            if (net->flow_hint[2].weight) {
                float s = 0.0f;
                for (int h = 0; h < H; h++)
                    s += net->flow_hint[2].weight[h] * a[h];
                nc->kq_flow_hint[p] = s;
            }
            if (net->flow[2].weight) {
                float s = 0.0f;
                for (int h = 0; h < H; h++)
                    s += net->flow[2].weight[h] * a[h];
                nc->kq_flow[p] = s;
            }
        }
    }
}

/* The node halves of the first message layer: An = M1 z + b1, Bn = M2 z + b2. */
static void message_nodes(struct ctx *c, const struct run *r, float *An, float *Bn, const float *z)
{
    // An and Bn are (N,H), z is (N,2H)
    const struct dar_net *net = r->net;
    int H = c->H;
    linear_forward_transposed(An, z, net->m1.weight_t, net->m1.bias, r->N, 2 * H, H);
    linear_forward_transposed(Bn, z, net->m2.weight_t, net->m2.bias, r->N, 2 * H, H);
}

/* First message layer of arcs a0..a1-1, relu'd:
 * r0[a] = relu(An[recv a] + Bn[send a] + b_me + Σ_φ f_aφ k_φ) */
CLONES static void message_rows(struct ctx *c, const struct run *r, float *r0, const float *An,
                         const float *Bn, int64_t a0, int64_t a1)
{
    // r0 is (a1-a0,H), An and Bn are (N,H)
    const struct dar_net *net = r->net;
    const struct netcache *nc = &c->nc[net_index(c->model, net)];
    int H = c->H;
    bool use[DAR_ARC_FEATURES];
    for (int p = 0; p < DAR_ARC_FEATURES; p++)
        use[p] = net->encodes[dar_arc_encoder[p]];
    for (int64_t a = a0; a < a1; a++) {
        float *out = r0 + (a - a0) * H;
        const float *x = An + (int64_t)r->recv[a] * H, *y = Bn + (int64_t)r->send[a] * H;
        const float *f = r->arc + a * DAR_ARC_FEATURES;
        row_sum3(out, x, y, net->me.bias, H);
        for (int p = 0; p < DAR_ARC_FEATURES; p++)
            if (use[p] && f[p] != 0.0f)
                row_axpy(out, f[p], nc->kme[p], H);
        relu_forward(out, out, H);      /* while the row is in cache */
    }
}

static void message_input(struct ctx *c, const struct run *r, float *r0, const float *z)
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
static void messages_streamed(struct ctx *c, struct run *r, const float *z)
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
CLONES static void net_forward(struct ctx *c, struct run *r, const float *hprev)
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

    // x: the node encoders
    static const int node_feature[4] = {DAR_F_POS, DAR_F_S, DAR_F_T, DAR_F_MASK};
    for (int64_t v = 0; v < N; v++) {
        float *x = r->hd + v * 3 * H;
        const float *f = r->node + v * NODE_FEATURES;
        memset(x, 0, sizeof(float) * (size_t)H);
        for (int p = 0; p < 4; p++)
            if (net->encodes[node_feature[p]] && f[p] != 0.0f)
                row_axpy(x, f[p], net->enc[node_feature[p]], H);
        if (net->encodes[DAR_F_CUT] && (f[4] != 0.0f || f[5] != 0.0f)) {
            const float *W = net->enc[DAR_F_CUT];   /* H×2 */
            for (int h = 0; h < H; h++)
                x[h] += W[2 * h] * f[4] + W[2 * h + 1] * f[5];
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
    relu_forward(o, o, N * H);
    for (int64_t v = 0; v < N; v++)
        memcpy(r->hd + v * 3 * H + 2 * H, o + v * H, sizeof(float) * (size_t)H);
    arena_release(c->arena, mark);
}

/* F_e = cap_e · tanh(q1·(hd_u − hd_v) + q2·(hd_v − hd_u) + Σ_φ kq_φ (f_aφ − f_a'φ)),
 * with q1·hd and q2·hd of node v at p1[v·stride], p2[v·stride]. */
static void flow_head_forward(struct ctx *c, const struct run *r, const float *kq,
                              const float *p1, const float *p2, int64_t stride, float *t_out,
                              float *F_out)
{
    const struct dar_net *net = r->net;
    for (int k = 0; k < r->ngraphs; k++) {
        const struct graph_layout *gd = &c->gd[r->graph[k]];
        const struct graph *g = &gd->dg->g;
        const float *arc = r->arc + r->arc_offset[k] * DAR_ARC_FEATURES;
        const float *q1 = p1 + r->node_offset[k] * stride, *q2 = p2 + r->node_offset[k] * stride;
        for (int e = 0; e < gd->m; e++) {
            int64_t u = g->src[e], v = g->dst[e];
            const float *fa = arc + (int64_t)gd->arc_fwd[e] * DAR_ARC_FEATURES;
            const float *fb = arc + (int64_t)gd->arc_bwd[e] * DAR_ARC_FEATURES;
            float D = (q1[u * stride] - q1[v * stride]) + (q2[v * stride] - q2[u * stride]);
            for (int p = 0; p < DAR_ARC_FEATURES; p++)
                if (net->encodes[dar_arc_encoder[p]])
                    D += kq[p] * (fa[p] - fb[p]);
            float t = tanhf(D);
            t_out[r->edge_offset[k] + e] = t;
            F_out[r->edge_offset[k] + e] = g->cap[e] * t;
        }
    }
}

/* Columns [col, col + width) of the fused product's rows into dst (N×width). */
static void take_columns(float *dst, const float *all, int64_t stride, int col, int width, int64_t N)
{
    for (int64_t v = 0; v < N; v++)
        memcpy(dst + v * width, all + v * stride + col, sizeof(float) * (size_t)width);
}

/* The outputs of the decoders the network has and, with backward, their
 * d-buffers, zeroed for the loss code to fill. */
static void heads_allocate(struct ctx *c, struct run *r)
{
    const struct dar_net *net = r->net;
    int H = c->H;
    int64_t N = r->N;
    bool bw = c->backward;
    if (net->mask.weight) {
        r->mask_logit = arena_floats(c->arena, N);
        if (bw) r->dmask = arena_zero_floats(c->arena, N);
    }
    if (net->pi1.weight) {
        r->p1h = arena_floats(c->arena, N * H);
        r->p2h = arena_floats(c->arena, N * H);
        r->pi_logit = arena_floats(c->arena, r->P);
        if (bw) r->dpi = arena_zero_floats(c->arena, r->P);
    }
    if (net->flow_hint[0].weight) {
        r->flow_hint_t = arena_floats(c->arena, r->E);
        r->flow_hint_F = arena_floats(c->arena, r->E);
        if (bw) r->flow_hint_dF = arena_zero_floats(c->arena, r->E);
    }
    if (net->cut_hint.weight) {
        r->cut_hint_logit = arena_floats(c->arena, N * 2);
        if (bw) r->dcut_hint = arena_zero_floats(c->arena, N * 2);
    }
    if (net->flow[0].weight) {
        r->flow_t = arena_floats(c->arena, r->E);
        r->flow_F = arena_floats(c->arena, r->E);
        if (bw) r->flow_dF = arena_zero_floats(c->arena, r->E);
    }
    if (net->cut.weight) {
        r->cut_logit = arena_floats(c->arena, N * 2);
        if (bw) r->dcut = arena_zero_floats(c->arena, N * 2);
    }
}

/* The decoders the network has, on all graphs of the run: one product of hd
 * for all of them (net->heads_t, columns in decoder_list's order), then the
 * pointer logits and the flow heads. */
static void heads_forward(struct ctx *c, struct run *r)
{
    const struct dar_net *net = r->net;
    const struct netcache *nc = &c->nc[net_index(c->model, net)];
    int H = c->H;
    int64_t N = r->N;
    heads_allocate(c, r);
    struct arena_mark mark = arena_mark(c->arena);
    int out = net->heads_out;
    float *all = arena_floats(c->arena, N * out);
    linear_forward_transposed(all, r->hd, net->heads_t, net->heads_bias, N, 3 * H, out);
    int col = 0;
    if (net->mask.weight) {
        take_columns(r->mask_logit, all, out, col, 1, N);
        col += 1;
    }
    if (net->pi1.weight) {
        take_columns(r->p1h, all, out, col, H, N);
        take_columns(r->p2h, all, out, col + H, H, N);
        col += 2 * H;
        for (int k = 0; k < r->ngraphs; k++) {
            int n = c->gd[r->graph[k]].n;
            linear_forward(r->pi_logit + r->pointer_offset[k], r->p1h + r->node_offset[k] * H,
                           r->p2h + r->node_offset[k] * H, NULL, n, H, n);
        }
    }
    if (net->flow_hint[0].weight) {
        flow_head_forward(c, r, nc->kq_flow_hint, all + col, all + col + 1, out, r->flow_hint_t,
                          r->flow_hint_F);
        col += 2;
    }
    if (net->cut_hint.weight) {
        take_columns(r->cut_hint_logit, all, out, col, 2, N);
        col += 2;
    }
    if (net->flow[0].weight) {
        flow_head_forward(c, r, nc->kq_flow, all + col, all + col + 1, out, r->flow_t, r->flow_F);
        col += 2;
    }
    if (net->cut.weight) {
        take_columns(r->cut_logit, all, out, col, 2, N);
        col += 2;
    }
    if (col != out)
        die(EX_SOFTWARE, "BUG: the fused decoders have %d columns, %d read", out, col);
    arena_release(c->arena, mark);
}

/* ---- one network: backward ---------------------------------------------------- */

/* dF of a flow head back to dhd, the q weights, kq and the arc flow features. */
static void flow_head_backward(struct ctx *c, const struct run *r, const struct dar_linear *q,
                               const float *kq, float *dkq, const float *t, const float *dF,
                               float *dhd, float *darc_flow)
{
    int H = c->H;
    const struct dar_net *net = r->net;
    struct arena_mark mark = arena_mark(c->arena);
    float *dp1 = arena_zero_floats(c->arena, r->N), *dp2 = arena_zero_floats(c->arena, r->N);
    for (int k = 0; k < r->ngraphs; k++) {
        const struct graph_layout *gd = &c->gd[r->graph[k]];
        const struct graph *g = &gd->dg->g;
        const float *arc = r->arc + r->arc_offset[k] * DAR_ARC_FEATURES;
        float *d1 = dp1 + r->node_offset[k], *d2 = dp2 + r->node_offset[k];
        float *dflow = darc_flow + r->arc_offset[k];
        for (int e = 0; e < gd->m; e++) {
            int64_t i = r->edge_offset[k] + e;
            float dD = dF[i] * g->cap[e] * (1.0f - t[i] * t[i]);
            if (dD == 0.0f)
                continue;
            int u = g->src[e], v = g->dst[e];
            d1[u] += dD;
            d1[v] -= dD;
            d2[v] += dD;
            d2[u] -= dD;
            const float *fa = arc + (int64_t)gd->arc_fwd[e] * DAR_ARC_FEATURES;
            const float *fb = arc + (int64_t)gd->arc_bwd[e] * DAR_ARC_FEATURES;
            for (int p = 0; p < DAR_ARC_FEATURES; p++)
                if (net->encodes[dar_arc_encoder[p]])
                    dkq[p] += dD * (fa[p] - fb[p]);
            if (net->encodes[DAR_F_FLOW]) {
                dflow[gd->arc_fwd[e]] += dD * kq[DAR_ARC_FLOW];
                dflow[gd->arc_bwd[e]] -= dD * kq[DAR_ARC_FLOW];
            }
        }
    }
    linear_backward(dhd, q[0].dweight, NULL, dp1, r->hd, q[0].weight, r->N, 3 * H, 1);
    linear_backward(dhd, q[1].dweight, NULL, dp2, r->hd, q[1].weight, r->N, 3 * H, 1);
    arena_release(c->arena, mark);
}

/* The mask decoder's gradient into dhd. */
static void mask_head_backward(struct ctx *c, const struct run *r, float *dhd)
{
    const struct dar_net *net = r->net;
    int H = c->H;
    linear_backward(dhd, net->mask.dweight, net->mask.dbias, r->dmask, r->hd, net->mask.weight,
                    r->N, 3 * H, 1);
}

/* The pointer decoder's gradient (logits p1h·p2hᵀ per graph) into dhd. */
static void pointer_head_backward(struct ctx *c, const struct run *r, float *dhd)
{
    const struct dar_net *net = r->net;
    int H = c->H;
    int64_t N = r->N;
    float *dp1h = arena_zero_floats(c->arena, N * H), *dp2h = arena_zero_floats(c->arena, N * H);
    for (int k = 0; k < r->ngraphs; k++) {
        int n = c->gd[r->graph[k]].n;
        linear_backward(dp1h + r->node_offset[k] * H, dp2h + r->node_offset[k] * H, NULL,
                        r->dpi + r->pointer_offset[k], r->p1h + r->node_offset[k] * H,
                        r->p2h + r->node_offset[k] * H, n, H, n);
    }
    linear_backward(dhd, net->pi1.dweight, net->pi1.dbias, dp1h, r->hd, net->pi1.weight,
                    N, 3 * H, H);
    linear_backward(dhd, net->pi2.dweight, net->pi2.dbias, dp2h, r->hd, net->pi2.weight,
                    N, 3 * H, H);
}

/* A two-class cut decoder's gradient (cut_hint or cut) into dhd. */
static void cut_head_backward(struct ctx *c, const struct run *r, const struct dar_linear *head,
                              const float *dlogit, float *dhd)
{
    int H = c->H;
    linear_backward(dhd, head->dweight, head->dbias, dlogit, r->hd, head->weight, r->N, 3 * H, 2);
}

/* Every decoder the network has, in the order of the fused product. */
static void heads_backward(struct ctx *c, const struct run *r, float *dhd, float *darc_flow)
{
    const struct dar_net *net = r->net;
    struct netcache *nc = &c->nc[net_index(c->model, net)];
    if (net->mask.weight)
        mask_head_backward(c, r, dhd);
    if (net->pi1.weight)
        pointer_head_backward(c, r, dhd);
    if (net->flow_hint[0].weight)
        flow_head_backward(c, r, net->flow_hint, nc->kq_flow_hint, nc->dkq_flow_hint,
                           r->flow_hint_t, r->flow_hint_dF, dhd, darc_flow);
    if (net->cut_hint.weight)
        cut_head_backward(c, r, &net->cut_hint, r->dcut_hint, dhd);
    if (net->flow[0].weight)
        flow_head_backward(c, r, net->flow, nc->kq_flow, nc->dkq_flow, r->flow_t, r->flow_dF, dhd,
                           darc_flow);
    if (net->cut.weight)
        cut_head_backward(c, r, &net->cut, r->dcut, dhd);
}

/* The gradient of h left by the next step's run, added to dh. */
CLONES static void carry_gradient_in(struct ctx *c, const struct run *r, float *dhd)
{
    int H = c->H;
    for (int k = 0; k < r->ngraphs; k++) {
        struct graph_state *st = &c->st[r->graph[k]];
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
static float *update_backward(struct ctx *c, const struct run *r, const float *dhd, float **z,
                              float **dz)
{
    const struct dar_net *net = r->net;
    int H = c->H;
    int64_t N = r->N;
    float *dt = arena_zero_floats(c->arena, N * H);
    for (int64_t v = 0; v < N; v++) {
        float *o = dt + v * H;
        memcpy(o, dhd + v * 3 * H + 2 * H, sizeof(float) * (size_t)H);
        mask_by_positive(o, r->hd + v * 3 * H + 2 * H, H);
    }
    *z = arena_floats(c->arena, N * 2 * H);
    *dz = arena_floats(c->arena, N * 2 * H);
    hd_to_z(*z, r->hd, N, H);
    hd_to_z(*dz, dhd, N, H);
    linear_backward(*dz, net->o1.dweight, net->o1.dbias, dt, *z, net->o1.weight, N, 2 * H, H);
    float *dagg = arena_zero_floats(c->arena, N * H);
    linear_backward(dagg, net->o2.dweight, net->o2.dbias, dt, r->agg, net->o2.weight, N, H, H);
    return dagg;
}

/* Backward of the aggregate and the two message layers after the first:
 * returns the gradient of the first layer's pre-activation (A×H). */
static float *messages_backward(struct ctx *c, const struct run *r, const float *dagg)
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
 * the rank-4 products and the arc flow features. */
CLONES static void message_input_backward(struct ctx *c, const struct run *r, const float *dpre,
                                          const float *z, float *dz, float *darc_flow)
{
    const struct dar_net *net = r->net;
    struct netcache *nc = &c->nc[net_index(c->model, net)];
    int H = c->H;
    int64_t N = r->N, A = r->A;
    float *dAn = arena_zero_floats(c->arena, N * H), *dBn = arena_zero_floats(c->arena, N * H);
    gather_rows_backward(dAn, dpre, r->recv, A, H);
    gather_rows_backward(dBn, dpre, r->send, A, H);
    bool use[DAR_ARC_FEATURES];
    for (int p = 0; p < DAR_ARC_FEATURES; p++)
        use[p] = net->encodes[dar_arc_encoder[p]];
    const float *kflow = nc->kme[DAR_ARC_FLOW];
    for (int64_t a = 0; a < A; a++) {
        const float *d = dpre + a * H;
        const float *f = r->arc + a * DAR_ARC_FEATURES;
        row_add(net->me.dbias, d, H);
        for (int p = 0; p < DAR_ARC_FEATURES; p++)
            if (use[p] && f[p] != 0.0f)
                row_axpy(nc->dkme[p], f[p], d, H);
        if (use[DAR_ARC_FLOW])
            darc_flow[a] += row_dot(kflow, d, H);
    }
    linear_backward(dz, net->m1.dweight, net->m1.dbias, dAn, z, net->m1.weight, N, 2 * H, H);
    linear_backward(dz, net->m2.dweight, net->m2.dbias, dBn, z, net->m2.weight, N, 2 * H, H);
}

/* Backward of the node encoders x = Σ_φ f_vφ a_φ (+ W_cut cut). */
CLONES static void encoders_backward(struct ctx *c, const struct run *r, const float *dz)
{
    const struct dar_net *net = r->net;
    int H = c->H;
    static const int node_feature[4] = {DAR_F_POS, DAR_F_S, DAR_F_T, DAR_F_MASK};
    for (int64_t v = 0; v < r->N; v++) {
        const float *dx = dz + v * 2 * H;
        const float *f = r->node + v * NODE_FEATURES;
        for (int p = 0; p < 4; p++)
            if (net->encodes[node_feature[p]] && f[p] != 0.0f)
                row_axpy(net->denc[node_feature[p]], f[p], dx, H);
        if (net->encodes[DAR_F_CUT] && (f[4] != 0.0f || f[5] != 0.0f)) {
            float *dW = net->denc[DAR_F_CUT];
            for (int h = 0; h < H; h++) {
                dW[2 * h] += dx[h] * f[4];
                dW[2 * h + 1] += dx[h] * f[5];
            }
        }
    }
}

/* d(h_prev) left for the previous step's run, for graphs with carry_in. */
static void carry_gradient_out(struct ctx *c, const struct run *r, const float *dz)
{
    int H = c->H;
    for (int k = 0; k < r->ngraphs; k++) {
        if (!r->carry_in[k])
            continue;
        struct graph_state *st = &c->st[r->graph[k]];
        int n = c->gd[r->graph[k]].n;
        for (int v = 0; v < n; v++)
            memcpy(st->dh + (int64_t)v * H, dz + (r->node_offset[k] + v) * 2 * H + H,
                   sizeof(float) * (size_t)H);
        st->dh_pending = true;
    }
}

/* The arc flow features' gradient back to the flow predictions they came from. */
static void flow_inputs_backward(struct ctx *c, const struct run *r, const float *darc_flow)
{
    for (int k = 0; k < r->ngraphs; k++) {
        float *dF = r->flow_grad[k];
        if (!dF)
            continue;
        const struct graph_layout *gd = &c->gd[r->graph[k]];
        const float *d = darc_flow + r->arc_offset[k];
        for (int e = 0; e < gd->m; e++)
            dF[e] += d[gd->arc_fwd[e]] - d[gd->arc_bwd[e]];
    }
}

/* Backward of one run: heads (their d-buffers filled by the loss code and
 * later steps), processor, encoders.  consume_carry: add the gradient of h
 * left by the next step's run; produce_carry: leave d(h_prev) for the
 * previous step's run, for graphs with carry_in. */
static void run_backward(struct ctx *c, struct run *r, bool consume_carry, bool produce_carry)
{
    int H = c->H;
    struct arena_mark mark = arena_mark(c->arena);
    float *dhd = arena_zero_floats(c->arena, r->N * 3 * H);
    float *darc_flow = arena_zero_floats(c->arena, r->A);
    heads_backward(c, r, dhd, darc_flow);
    if (consume_carry)
        carry_gradient_in(c, r, dhd);
    float *z, *dz;
    float *dagg = update_backward(c, r, dhd, &z, &dz);
    float *dpre = messages_backward(c, r, dagg);
    message_input_backward(c, r, dpre, z, dz, darc_flow);
    encoders_backward(c, r, dz);
    if (produce_carry)
        carry_gradient_out(c, r, dz);
    flow_inputs_backward(c, r, darc_flow);
    arena_release(c->arena, mark);
}

/* After every run's backward: the rank-4 products' gradients into Me, q3
 * and the arc encoders. */
static void netcache_backward(struct ctx *c)
{
    int H = c->H;
    for (int j = 0; j < c->model->nnets; j++) {
        const struct dar_net *net = &c->model->nets[j];
        struct netcache *nc = &c->nc[j];
        for (int p = 0; p < DAR_ARC_FEATURES; p++) {
            int f = dar_arc_encoder[p];
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
            if (net->flow_hint[2].weight)
                for (int h = 0; h < H; h++) {
                    net->flow_hint[2].dweight[h] += nc->dkq_flow_hint[p] * a[h];
                    da[h] += nc->dkq_flow_hint[p] * net->flow_hint[2].weight[h];
                }
            if (net->flow[2].weight)
                for (int h = 0; h < H; h++) {
                    net->flow[2].dweight[h] += nc->dkq_flow[p] * a[h];
                    da[h] += nc->dkq_flow[p] * net->flow[2].weight[h];
                }
        }
    }
}

/* ---- state, and the recurrent networks (pipeline's mincut, no-algo) --------- */

struct outputs {
    struct dar_prediction *pred;     /* NULL in training */
    enum dar_embed embed;
};

static void state_init(struct ctx *c)
{
    int H = c->H;
    for (int b = 0; b < c->B; b++) {
        const struct graph_layout *gd = &c->gd[b];
        const struct dar_graph *dg = gd->dg;
        struct graph_state *st = &c->st[b];
        int n = gd->n, m = gd->m;
        memset(st, 0, sizeof *st);
        st->mask = arena_zero(c->arena, (size_t)n);
        st->pi = arena_zero(c->arena, sizeof(int32_t) * (size_t)n);
        st->flow = arena_zero_floats(c->arena, m);
        st->cut = arena_zero(c->arena, (size_t)n);
        st->h = arena_zero_floats(c->arena, (int64_t)n * H);
        st->dh = arena_zero_floats(c->arena, (int64_t)n * H);
        st->mincut_logit = arena_zero_floats(c->arena, (int64_t)n * 2);
        st->mincut_cut = arena_zero(c->arena, (size_t)n);
        if (dg->hint_mask) {
            memcpy(st->mask, dg->hint_mask, (size_t)n);
            memcpy(st->pi, dg->hint_pi, sizeof(int32_t) * (size_t)n);
            if (m)
                memcpy(st->flow, dg->hint_flow, sizeof(float) * (size_t)m);
        } else {
            st->mask[dg->g.s] = 1;
            for (int v = 0; v < n; v++)
                st->pi[v] = v;
        }
        if (c->leak_cut) {
            memcpy(st->cut, dg->cut, (size_t)n);
            st->has_cut = true;
        }
    }
}

static int argmax_row(const float *row, int K)
{
    int best = 0;
    for (int k = 1; k < K; k++)
        if (row[k] > row[best])
            best = k;
    return best;
}

/* P(sink side) of each node from its two cut logits. */
static void cut_probability(float *out, const float *logit, int n)
{
    for (int v = 0; v < n; v++)
        out[v] = 1.0f / (1.0f + expf(logit[2 * v] - logit[2 * v + 1]));
}

/* The recurrent network's head at graph k's last step: the mincut logits
 * (pipeline), or F_out with its loss and outputs (no-algo). */
static void recurrent_last_step(struct ctx *c, const struct run *r, int k, bool is_mincut)
{
    int H = c->H;
    int b = r->graph[k];
    const struct graph_layout *gd = &c->gd[b];
    struct graph_state *st = &c->st[b];
    int n = gd->n, m = gd->m;
    if (is_mincut) {
        memcpy(st->mincut_logit, r->cut_logit + r->node_offset[k] * 2,
               sizeof(float) * 2 * (size_t)n);
        if (c->backward)
            st->mincut_dlogit = r->dcut + r->node_offset[k] * 2;
        for (int v = 0; v < n; v++)
            st->mincut_cut[v] = (uint8_t)argmax_row(st->mincut_logit + 2 * v, 2);
        return;
    }
    const float *F = r->flow_F + r->edge_offset[k];
    st->final_seen = true;
    if (c->training)
        c->sum.flow += squared_error(c->backward ? r->flow_dF + r->edge_offset[k] : NULL, F,
                                     gd->dg->flow, NULL, (float)(2.0 / c->scales.sum_adj), m);
    if (c->pred) {
        struct dar_prediction *p = &c->pred[b];
        if (p->flow && m) memcpy(p->flow, F, sizeof(float) * (size_t)m);
        if (p->embed)
            memcpy(p->embed, r->hd + r->node_offset[k] * 3 * H,
                   sizeof(float) * (size_t)(n * 3 * H));
    }
}

/* The mincut network (pipeline, n+1 steps) or no-algo's network (T−1 steps):
 * recurrent, h carried, constant inputs; its head is read at each graph's
 * last step.  Returns its runs (steps in order) for backward. */
static struct run **recurrent_forward(struct ctx *c, const struct dar_net *net, const int *steps,
                                      int *nsteps_out)
{
    int B = c->B, H = c->H;
    int S = 0;
    for (int b = 0; b < B; b++)
        if (steps[b] > S) S = steps[b];
    *nsteps_out = S;
    struct run **runs = arena_zero(c->arena, sizeof(struct run *) * (size_t)(S + 1));
    int *list = arena_zero(c->arena, sizeof(int) * (size_t)B);
    bool is_mincut = net->cut.weight != NULL;
    for (int j = 0; j < S; j++) {
        struct arena_mark step_mark = arena_mark(c->arena);
        int ngraphs = 0;
        for (int b = 0; b < B; b++)
            if (j < steps[b]) list[ngraphs++] = b;
        struct run *r = run_new(c, net, list, ngraphs);
        float *hprev = arena_floats(c->arena, r->N * H);
        for (int k = 0; k < ngraphs; k++) {
            struct graph_state *st = &c->st[list[k]];
            struct hint_in in = {0};
            run_set_inputs(c, r, k, &in);
            r->carry_in[k] = st->h_valid;
            memcpy(hprev + r->node_offset[k] * H, st->h,
                   sizeof(float) * (size_t)(c->gd[list[k]].n * H));
        }
        net_forward(c, r, j > 0 ? hprev : NULL);
        heads_forward(c, r);
        for (int k = 0; k < ngraphs; k++) {
            int b = list[k];
            struct graph_state *st = &c->st[b];
            for (int v = 0; v < c->gd[b].n; v++)
                memcpy(st->h + (int64_t)v * H, r->hd + (r->node_offset[k] + v) * 3 * H + 2 * H,
                       sizeof(float) * (size_t)H);
            st->h_valid = true;
            if (j == steps[b] - 1)
                recurrent_last_step(c, r, k, is_mincut);
        }
        if (c->backward)
            runs[j] = r;
        else
            arena_release(c->arena, step_mark);
    }
    for (int b = 0; b < B; b++)
        c->st[b].h_valid = false;
    return runs;
}

static void recurrent_backward(struct ctx *c, struct run **runs, int S)
{
    for (int b = 0; b < c->B; b++)
        c->st[b].dh_pending = false;
    for (int j = S - 1; j >= 0; j--)
        run_backward(c, runs[j], true, true);
}

/* DAR_HPREV_RECORD / _REPLAY (dar.h): P_F's h_prev stored or substituted. */
static void hprev_test_hook(struct ctx *c, float *h, int64_t count)
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

/* One-hot float targets of a mask frame, for the BCE kernel. */
static void mask_target(float *out, const uint8_t *mask, int n)
{
    for (int v = 0; v < n; v++)
        out[v] = mask[v];
}

/* The loss normalisers of the whole batch (model.md §5): every group's
 * losses are scaled by them. */
static struct scales batch_scales(const struct dar_model *model, struct dar_graph *const *graphs,
                                  int B, bool embed_first)
{
    struct scales sc = {0};
    sc.n_hints = model->config.variant == DAR_PRIMAL ? 3 : 4;
    for (int b = 0; b < B; b++) {
        const struct dar_graph *dg = graphs[b];
        int T = embed_first ? 2 : dg->steps;
        const uint8_t *phase = embed_first ? (const uint8_t[2]){0, 1} : dg->phase;
        sc.sum_adj += 2.0 * dg->g.m + dg->g.n;
        sc.sum_nodes += dg->g.n;
        for (int i = 0; i + 1 < T; i++) {
            sc.count_mask++;
            if (phase[i]) sc.count_pi++;
            else sc.count_flow_hint++;
        }
    }
    return sc;
}

/* ---- one step of the algorithm: P_BF, then P_F at a flow step ----------------- */

/* The graphs at step i (frame i to frame i + 1) and the runs on them. */
struct step {
    int i;
    bool teacher_forced;        /* the inputs are the trace's frame i */
    int running, flowing;       /* graphs at this step; of them, at a flow step */
    int *running_list, *flow_list;  /* [B] their batch indices */
    int *running_pos, *flow_pos;    /* [B] a graph's index in each list */
    struct hint_in *hints;      /* [B] */
    struct run *bf_run;         /* P_BF on the running graphs */
    struct run *flow_run;       /* P_F on the flowing graphs, or NULL */
    float *target;              /* [most nodes] a mask target */
};

static void step_select(struct ctx *c, struct step *s, int i)
{
    s->i = i;
    s->teacher_forced = i > 0 && c->teacher && i < c->teacher_len && c->teacher[i];
    s->running = s->flowing = 0;
    for (int b = 0; b < c->B; b++)
        if (i + 1 < c->gd[b].T) {
            s->running_pos[b] = s->running;
            s->running_list[s->running++] = b;
            if (!c->gd[b].phase[i]) {
                s->flow_pos[b] = s->flowing;
                s->flow_list[s->flowing++] = b;
            }
        }
}

/* The hint inputs of step i: the last predictions, or the trace's frame
 * under teacher forcing. */
static void step_hint_inputs(struct ctx *c, struct step *s)
{
    int i = s->i;
    for (int k = 0; k < s->running; k++) {
        int b = s->running_list[k];
        const struct dar_graph *dg = c->gd[b].dg;
        struct graph_state *st = &c->st[b];
        int n = c->gd[b].n, m = c->gd[b].m;
        bool forced = s->teacher_forced && dg->hint_mask;
        struct hint_in *in = &s->hints[b];
        in->mask = forced ? dg->hint_mask + (int64_t)i * n : st->mask;
        in->pi = forced ? dg->hint_pi + (int64_t)i * n : st->pi;
        in->flow = forced ? dg->hint_flow + (int64_t)i * m : st->flow;
        in->flow_grad = forced ? NULL : st->flow_grad;
        in->cut = NULL;
        if (c->variant == DAR_PIPELINE) {
            in->cut = st->mincut_cut;
        } else if (c->variant == DAR_DUAL) {
            if (c->leak_cut && (i == 0 || forced)) {
                bool zero = true;
                for (int e = 0; e < m && zero; e++)
                    zero = in->flow[e] == 0.0f;
                in->cut = zero ? dg->cut : NULL;
            } else {
                in->cut = st->has_cut ? st->cut : NULL;
            }
        }
    }
}

/* P_BF on every running graph, h_prev the carried state where there is one. */
static void step_bellman_ford(struct ctx *c, struct step *s)
{
    int H = c->H;
    const int *list = s->running_list;
    struct run *bf_run = run_new(c, &c->model->nets[c->model->bf], list, s->running);
    bool any_carry = false;
    for (int k = 0; k < s->running; k++) {
        run_set_inputs(c, bf_run, k, &s->hints[list[k]]);
        bf_run->carry_in[k] = c->st[list[k]].h_valid;
        any_carry |= bf_run->carry_in[k];
    }
    float *hprev = NULL;
    if (any_carry) {
        hprev = arena_zero_floats(c->arena, bf_run->N * H);
        for (int k = 0; k < s->running; k++)
            if (bf_run->carry_in[k])
                memcpy(hprev + bf_run->node_offset[k] * H, c->st[list[k]].h,
                       sizeof(float) * (size_t)(c->gd[list[k]].n * H));
    }
    net_forward(c, bf_run, hprev);
    heads_forward(c, bf_run);
    s->bf_run = bf_run;
}

/* P_F on the graphs at a flow step, h_prev = stopgrad(P_BF's h). */
static void step_flow(struct ctx *c, struct step *s)
{
    int H = c->H;
    s->flow_run = NULL;
    if (s->flowing == 0)
        return;
    const struct run *bf_run = s->bf_run;
    struct run *flow_run = run_new(c, &c->model->nets[c->model->flow], s->flow_list, s->flowing);
    float *bf_h = arena_floats(c->arena, flow_run->N * H);
    for (int k = 0; k < s->flowing; k++) {
        int b = s->flow_list[k];
        run_set_inputs(c, flow_run, k, &s->hints[b]);
        for (int v = 0; v < c->gd[b].n; v++)
            memcpy(bf_h + (flow_run->node_offset[k] + v) * H,
                   bf_run->hd + (bf_run->node_offset[s->running_pos[b]] + v) * 3 * H + 2 * H,
                   sizeof(float) * (size_t)H);
    }
    hprev_test_hook(c, bf_h, flow_run->N * H);
    net_forward(c, flow_run, bf_h);
    heads_forward(c, flow_run);
    s->flow_run = flow_run;
}

/* The losses of a graph at a flow step: flow_hint and cut_hint, and at its
 * last flow step the outputs' flow and cut. */
static void flow_step_losses(struct ctx *c, const struct step *s, int b)
{
    const struct scales *sc = &c->scales;
    const struct graph_layout *gd = &c->gd[b];
    const struct dar_graph *dg = gd->dg;
    struct graph_state *st = &c->st[b];
    const struct run *r = s->flow_run;
    int n = gd->n, m = gd->m, i = s->i;
    double hints = sc->n_hints;
    bool backward = c->backward;
    int64_t edges = r->edge_offset[s->flow_pos[b]], nodes = r->node_offset[s->flow_pos[b]];
    float flow_hint_scale = (float)(2.0 / ((2.0 * m + n) * sc->count_flow_hint * hints));
    c->sum.flow_hint += squared_error(backward ? r->flow_hint_dF + edges : NULL,
                                      r->flow_hint_F + edges, dg->hint_flow + (int64_t)(i + 1) * m,
                                      NULL, flow_hint_scale, m);
    float cut_hint_scale = (float)(1.0 / (n * sc->count_flow_hint * hints));
    if (c->variant == DAR_DUAL)
        c->sum.cut_hint += softmax_cross_entropy(backward ? r->dcut_hint + nodes * 2 : NULL,
                                                 r->cut_hint_logit + nodes * 2, gd->cut_target,
                                                 NULL, cut_hint_scale, n, 2);
    else if (c->variant == DAR_PIPELINE)
        c->sum.cut_hint += softmax_cross_entropy(backward ? st->mincut_dlogit : NULL,
                                                 st->mincut_logit, gd->cut_target, NULL,
                                                 cut_hint_scale, n, 2);
    if (i != gd->last_flow)
        return;
    c->sum.flow += squared_error(backward ? r->flow_dF + edges : NULL, r->flow_F + edges,
                                 dg->flow, NULL, (float)(2.0 / sc->sum_adj), m);
    if (c->variant == DAR_DUAL)
        c->sum.cut += softmax_cross_entropy(backward ? r->dcut + nodes * 2 : NULL,
                                            r->cut_logit + nodes * 2, gd->cut_target, NULL,
                                            (float)(1.0 / sc->sum_nodes), n, 2);
}

/* The run that decoded graph b at this step, and the graph's index in it. */
static struct run *step_run_of(const struct step *s, const struct graph_layout *gd, int k, int b,
                               int *index_in_run)
{
    bool flow_step = !gd->phase[s->i];
    *index_in_run = flow_step ? s->flow_pos[b] : k;
    return flow_step ? s->flow_run : s->bf_run;
}

/* The losses of step i: the mask of every running graph, then the pointer
 * (Bellman-Ford step) or the flow step's terms. */
static void step_losses(struct ctx *c, const struct step *s)
{
    const struct scales *sc = &c->scales;
    double hints = sc->n_hints;
    int i = s->i;
    for (int k = 0; k < s->running; k++) {
        int b = s->running_list[k];
        const struct graph_layout *gd = &c->gd[b];
        const struct dar_graph *dg = gd->dg;
        int n = gd->n, index_in_run;
        struct run *r = step_run_of(s, gd, k, b, &index_in_run);
        mask_target(s->target, dg->hint_mask + (int64_t)(i + 1) * n, n);
        int64_t nodes = r->node_offset[index_in_run];
        c->sum.mask += bce_with_logits(c->backward ? r->dmask + nodes : NULL, r->mask_logit + nodes,
                                       s->target, NULL, (float)(1.0 / (n * sc->count_mask * hints)),
                                       n);
        if (gd->phase[i]) {
            const struct run *bf_run = s->bf_run;
            int64_t logits = bf_run->pointer_offset[k];
            c->sum.pi += softmax_cross_entropy(c->backward ? bf_run->dpi + logits : NULL,
                                               bf_run->pi_logit + logits,
                                               dg->hint_pi + (int64_t)(i + 1) * n, NULL,
                                               (float)(1.0 / (n * sc->count_pi * hints)), n, n);
        } else {
            flow_step_losses(c, s, b);
        }
    }
}

/* What the next step reads: the binarised mask; after a Bellman-Ford step
 * the pointers; after a flow step identity pointers, the flow, the cut and
 * P_BF's h carried. */
static void step_update_state(struct ctx *c, const struct step *s)
{
    int H = c->H;
    for (int k = 0; k < s->running; k++) {
        int b = s->running_list[k];
        const struct graph_layout *gd = &c->gd[b];
        struct graph_state *st = &c->st[b];
        int n = gd->n, m = gd->m, index_in_run;
        const struct run *r = step_run_of(s, gd, k, b, &index_in_run);
        const float *mask_logit = r->mask_logit + r->node_offset[index_in_run];
        for (int v = 0; v < n; v++)
            st->mask[v] = mask_logit[v] > 0.0f;
        if (gd->phase[s->i]) {
            const float *logit = s->bf_run->pi_logit + s->bf_run->pointer_offset[k];
            for (int u = 0; u < n; u++)
                st->pi[u] = argmax_row(logit + (int64_t)u * n, n);
            st->h_valid = false;
            continue;
        }
        const struct run *flow_run = s->flow_run, *bf_run = s->bf_run;
        int64_t edges = flow_run->edge_offset[index_in_run];
        int64_t nodes = flow_run->node_offset[index_in_run];
        for (int u = 0; u < n; u++)
            st->pi[u] = u;
        if (m)
            memcpy(st->flow, flow_run->flow_hint_F + edges, sizeof(float) * (size_t)m);
        st->flow_grad = c->backward ? flow_run->flow_hint_dF + edges : NULL;
        if (c->variant == DAR_DUAL) {
            for (int v = 0; v < n; v++)
                st->cut[v] = (uint8_t)argmax_row(flow_run->cut_hint_logit + (nodes + v) * 2, 2);
            st->has_cut = true;
        }
        for (int v = 0; v < n; v++)
            memcpy(st->h + (int64_t)v * H,
                   bf_run->hd + (bf_run->node_offset[k] + v) * 3 * H + 2 * H,
                   sizeof(float) * (size_t)H);
        st->h_valid = true;
    }
}

/* The hints of frame i + 1 (the state just updated) and, at a graph's last
 * flow step, its outputs. */
static void step_record_predictions(struct ctx *c, const struct step *s)
{
    int H = c->H, i = s->i;
    for (int k = 0; k < s->running; k++) {
        int b = s->running_list[k];
        const struct graph_layout *gd = &c->gd[b];
        const struct graph_state *st = &c->st[b];
        struct dar_prediction *p = &c->pred[b];
        int n = gd->n, m = gd->m;
        if (i == gd->last_flow) {
            const struct run *flow_run = s->flow_run;
            int64_t edges = flow_run->edge_offset[s->flow_pos[b]];
            int64_t nodes = flow_run->node_offset[s->flow_pos[b]];
            if (p->flow && m)
                memcpy(p->flow, flow_run->flow_F + edges, sizeof(float) * (size_t)m);
            if (p->cut && c->variant == DAR_DUAL)
                cut_probability(p->cut, flow_run->cut_logit + nodes * 2, n);
            if (p->embed)
                memcpy(p->embed, flow_run->hd + nodes * 3 * H, sizeof(float) * (size_t)(n * 3 * H));
        }
        if (c->embed_first)
            continue;
        if (p->pi) memcpy(p->pi + (int64_t)(i + 1) * n, st->pi, sizeof(int32_t) * (size_t)n);
        if (p->mask) memcpy(p->mask + (int64_t)(i + 1) * n, st->mask, (size_t)n);
        if (p->hint_flow && m)
            memcpy(p->hint_flow + (int64_t)(i + 1) * m, st->flow, sizeof(float) * (size_t)m);
    }
}

/* Frame 0 of the predicted hints: the initial state. */
static void record_first_frame(struct ctx *c)
{
    if (c->embed_first)
        return;
    for (int b = 0; b < c->B; b++) {
        const struct graph_layout *gd = &c->gd[b];
        const struct graph_state *st = &c->st[b];
        struct dar_prediction *p = &c->pred[b];
        if (p->pi) memcpy(p->pi, st->pi, sizeof(int32_t) * (size_t)gd->n);
        if (p->mask) memcpy(p->mask, st->mask, (size_t)gd->n);
        if (p->hint_flow && gd->m) memcpy(p->hint_flow, st->flow, sizeof(float) * (size_t)gd->m);
    }
}

/* Backward through the steps, last first: P_F's run, then P_BF's, which
 * takes the gradient of the h it carried to the next step. */
static void steps_backward(struct ctx *c, struct run **bf_runs, struct run **flow_runs, int nsteps)
{
    for (int b = 0; b < c->B; b++)
        c->st[b].dh_pending = false;
    for (int i = nsteps - 1; i >= 0; i--) {
        if (flow_runs[i])
            run_backward(c, flow_runs[i], false, false);
        run_backward(c, bf_runs[i], true, true);
    }
}

/* The algorithm's steps (primal, dual, pipeline): every graph steps until
 * its trace ends, then backward through them. */
static void algorithm_steps(struct ctx *c)
{
    int B = c->B;
    int most_steps = 0, most_nodes = 1;
    for (int b = 0; b < B; b++) {
        if (c->gd[b].T > most_steps) most_steps = c->gd[b].T;
        if (c->gd[b].n > most_nodes) most_nodes = c->gd[b].n;
    }
    int nsteps = most_steps > 1 ? most_steps - 1 : 0;
    struct run **bf_runs = arena_zero(c->arena, sizeof(struct run *) * (size_t)(nsteps + 1));
    struct run **flow_runs = arena_zero(c->arena, sizeof(struct run *) * (size_t)(nsteps + 1));
    struct step s = {0};
    s.running_list = arena_zero(c->arena, sizeof(int) * (size_t)B);
    s.flow_list = arena_zero(c->arena, sizeof(int) * (size_t)B);
    s.running_pos = arena_zero(c->arena, sizeof(int) * (size_t)B);
    s.flow_pos = arena_zero(c->arena, sizeof(int) * (size_t)B);
    s.hints = arena_zero(c->arena, sizeof(struct hint_in) * (size_t)B);
    s.target = arena_floats(c->arena, most_nodes);
    if (c->pred)
        record_first_frame(c);
    for (int i = 0; i < nsteps; i++) {
        struct arena_mark step_mark = arena_mark(c->arena);
        step_select(c, &s, i);
        step_hint_inputs(c, &s);
        step_bellman_ford(c, &s);
        step_flow(c, &s);
        if (c->training)
            step_losses(c, &s);
        step_update_state(c, &s);
        if (c->pred)
            step_record_predictions(c, &s);
        if (c->backward) {
            bf_runs[i] = s.bf_run;
            flow_runs[i] = s.flow_run;
        } else {
            arena_release(c->arena, step_mark);
        }
    }
    if (c->backward)
        steps_backward(c, bf_runs, flow_runs, nsteps);
}

/* ---- one group ------------------------------------------------------------------ */

/* Pipeline: the mincut network first; its logits are c_out (L_c) and the
 * cut input of every later step. */
static struct run **mincut_forward(struct ctx *c, int *steps, int *nsteps)
{
    for (int b = 0; b < c->B; b++)
        steps[b] = c->gd[b].n + 1;
    struct run **runs = recurrent_forward(c, &c->model->nets[c->model->mincut], steps, nsteps);
    for (int b = 0; b < c->B; b++) {
        struct graph_state *st = &c->st[b];
        const struct graph_layout *gd = &c->gd[b];
        if (c->training)
            c->sum.cut += softmax_cross_entropy(c->backward ? st->mincut_dlogit : NULL,
                                                st->mincut_logit, gd->cut_target, NULL,
                                                (float)(1.0 / c->scales.sum_nodes), gd->n, 2);
        if (c->pred && c->pred[b].cut)
            cut_probability(c->pred[b].cut, st->mincut_logit, gd->n);
    }
    return runs;
}

/* Graphs that never reach an output step: F_out = 0, c_out logits 0. */
static void finish_graphs_without_output(struct ctx *c)
{
    int H = c->H;
    for (int b = 0; b < c->B; b++) {
        const struct graph_layout *gd = &c->gd[b];
        bool has_output = c->variant == DAR_NO_ALGO ? c->st[b].final_seen : gd->last_flow >= 0;
        if (has_output)
            continue;
        if (c->training) {
            for (int e = 0; e < gd->m; e++)
                c->sum.flow += 2.0 * (double)gd->dg->flow[e] * gd->dg->flow[e] / c->scales.sum_adj;
            if (c->variant == DAR_DUAL)
                c->sum.cut += gd->n * log(2.0) / c->scales.sum_nodes;
        }
        if (c->pred) {
            struct dar_prediction *p = &c->pred[b];
            if (p->flow && gd->m) memset(p->flow, 0, sizeof(float) * (size_t)gd->m);
            if (p->cut && c->variant == DAR_DUAL)
                for (int v = 0; v < gd->n; v++) p->cut[v] = 0.5f;
            if (p->embed) memset(p->embed, 0, sizeof(float) * (size_t)(gd->n * 3 * H));
        }
    }
}

/* The group's graphs laid out, the products cached, the state initialised. */
static void group_setup(struct ctx *c, struct dar_graph *const *graphs)
{
    int B = c->B;
    arena_reset(c->arena);
    c->gd = arena_zero(c->arena, sizeof(struct graph_layout) * (size_t)(B ? B : 1));
    c->st = arena_zero(c->arena, sizeof(struct graph_state) * (size_t)(B ? B : 1));
    static const uint8_t flow_phase[2] = {0, 1};
    for (int b = 0; b < B; b++) {
        prepare_graph(c, &c->gd[b], graphs[b]);
        if (c->embed_first) {   /* one step, P_BF then P_F */
            c->gd[b].T = 2;
            c->gd[b].phase = flow_phase;
            c->gd[b].last_flow = 0;
        }
    }
    netcache_init(c);
    state_init(c);
}

/* One group of graphs of the batch, start to end: forward, losses into
 * c->sum, backward into the gradients c->model's dweight pointers lead to. */
static void run_group(struct ctx *c, struct dar_graph *const *graphs)
{
    group_setup(c, graphs);
    struct run **mincut_runs = NULL, **net_runs = NULL;
    int mincut_steps = 0, net_steps = 0;
    int *steps = arena_zero(c->arena, sizeof(int) * (size_t)(c->B ? c->B : 1));
    if (c->variant == DAR_PIPELINE)
        mincut_runs = mincut_forward(c, steps, &mincut_steps);
    if (c->variant == DAR_NO_ALGO) {
        for (int b = 0; b < c->B; b++)
            steps[b] = c->gd[b].T > 1 ? c->gd[b].T - 1 : 0;
        net_runs = recurrent_forward(c, &c->model->nets[c->model->net], steps, &net_steps);
    } else {
        algorithm_steps(c);
    }
    finish_graphs_without_output(c);
    if (c->backward) {
        if (c->variant == DAR_PIPELINE)
            recurrent_backward(c, mincut_runs, mincut_steps);
        if (c->variant == DAR_NO_ALGO)
            recurrent_backward(c, net_runs, net_steps);
        netcache_backward(c);
    }
}

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
        for (int f = 0; f < DAR_F_COUNT; f++)
            REBASE(net->denc[f]);
        struct dar_linear *layers[] = {&net->m1, &net->m2, &net->me, &net->l1, &net->l2, &net->o1,
                                       &net->o2, &net->mask, &net->pi1, &net->pi2, &net->cut_hint,
                                       &net->cut, &net->flow_hint[0], &net->flow_hint[1],
                                       &net->flow_hint[2], &net->flow[0], &net->flow[1],
                                       &net->flow[2]};
        for (size_t k = 0; k < sizeof layers / sizeof *layers; k++) {
            REBASE(layers[k]->dweight);
            REBASE(layers[k]->dbias);
        }
    }
#undef REBASE
}

/* The decoders that read hd, in the order of their columns in the fused
 * product (heads_forward reads them in this order); returns how many. */
static int decoder_list(const struct dar_net *net, const struct dar_linear *const **out)
{
    static _Thread_local const struct dar_linear *list[9];
    const struct dar_linear *all[9] = {&net->mask, &net->pi1, &net->pi2, &net->flow_hint[0],
                                       &net->flow_hint[1], &net->cut_hint, &net->flow[0],
                                       &net->flow[1], &net->cut};
    int count = 0;
    for (int k = 0; k < 9; k++)
        if (all[k]->weight)
            list[count++] = all[k];
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
        struct dar_linear *layers[] = {&net->m1, &net->m2, &net->me, &net->l1, &net->l2, &net->o1,
                                       &net->o2, &net->mask, &net->pi1, &net->pi2, &net->cut_hint,
                                       &net->cut, &net->flow_hint[0], &net->flow_hint[1],
                                       &net->flow_hint[2], &net->flow[0], &net->flow[1],
                                       &net->flow[2]};
        for (size_t k = 0; k < sizeof layers / sizeof *layers; k++) {
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

/* Graphs per group.  The batch is cut into groups of this many consecutive
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
    struct scales scales;
    struct sums *sums;                  /* [groups] */
    const struct outputs *out;
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
    struct ctx c = {
        .model = model,
        .ws = j->ws,
        .arena = &j->ws->arenas[g],
        .H = config->hidden,
        .B = j->B - first < GROUP_GRAPHS ? j->B - first : GROUP_GRAPHS,
        .training = j->training,
        .backward = j->backward,
        .variant = config->variant,
        .leak_cut = config->leak_cut && config->variant == DAR_DUAL,
        .embed_first = j->out && j->out->embed == DAR_EMBED_FIRST,
        .teacher = j->teacher,
        .teacher_len = j->teacher_len,
        .scales = j->scales,
        .pred = j->out && j->out->pred ? j->out->pred + first : NULL,
    };
    run_group(&c, j->graphs + first);
    j->sums[g] = c.sum;
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

/* The groups' losses added in group order, scaled back per term into
 * *losses (when not NULL); returns the total. */
static double sum_losses(struct dar_losses *losses, const struct sums *group_sums, int groups,
                         enum dar_variant variant, const struct scales *sc)
{
    struct sums sum = {0};
    for (int g = 0; g < groups; g++) {
        sum.mask += group_sums[g].mask;
        sum.pi += group_sums[g].pi;
        sum.flow_hint += group_sums[g].flow_hint;
        sum.cut_hint += group_sums[g].cut_hint;
        sum.flow += group_sums[g].flow;
        sum.cut += group_sums[g].cut;
    }
    double total = 0.0;
    if (!losses)
        return total;
    double hints = sc->n_hints;
    memset(losses, 0, sizeof *losses);
    if (variant == DAR_NO_ALGO) {
        losses->flow = sum.flow;
        total = sum.flow;
    } else {
        losses->mask = sum.mask * hints;
        losses->pi = sum.pi * hints;
        losses->flow_hint = sum.flow_hint * hints;
        losses->cut_hint = sum.cut_hint * hints;
        losses->flow = sum.flow;
        losses->cut = sum.cut;
        total = sum.mask + sum.pi + sum.flow_hint + sum.cut_hint + sum.flow + sum.cut;
    }
    losses->total = total;
    return total;
}

static double dar_run(struct dar_model *model, struct dar_workspace *ws,
                      struct dar_graph *const *graphs, int B, const uint8_t *teacher,
                      int teacher_len, bool backward, bool training, struct dar_losses *losses,
                      const struct outputs *out)
{
    int groups = (B + GROUP_GRAPHS - 1) / GROUP_GRAPHS;
    workspace_reserve(ws, groups, model->count);
    if (ws->hprev_mode == DAR_HPREV_RECORD)
        ws->hprev_count = 0;
    ws->hprev_cursor = 0;
    struct sums group_sums[groups > 0 ? groups : 1];
    memset(group_sums, 0, sizeof group_sums);
    int order[groups > 0 ? groups : 1];
    group_order(order, graphs, B, groups, model->config.processor == DAR_PGN);
    struct dar_model view;
    model_with_transposed_weights(&view, model, ws);
    model = &view;
    struct batch_job job = {model, ws, graphs, B, teacher, teacher_len, backward, training,
                            batch_scales(model, graphs, B, out && out->embed == DAR_EMBED_FIRST),
                            group_sums, out, order};
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
    return sum_losses(losses, group_sums, groups, model->config.variant, &job.scales);
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
    bool cut = model->config.variant == DAR_DUAL || model->config.variant == DAR_PIPELINE;
    for (int b = 0; b < B; b++) {
        const struct dar_graph *g = graphs[b];
        if (!g->flow || (cut && !g->cut) ||
            (model->config.variant != DAR_NO_ALGO && !g->hint_mask) || !g->phase)
            die(EX_SOFTWARE, "BUG: graph of record %ld loaded without its trace", g->record);
    }
    return dar_run(model, ws, graphs, B, teacher, teacher_len, backward, true,
                   out ? out : &local, NULL);
}

void dar_predict(struct dar_model *model, struct dar_workspace *ws,
                 struct dar_graph *const *graphs, int B, enum dar_embed embed,
                 struct dar_prediction *out)
{
    for (int b = 0; b < B; b++) {
        const struct dar_graph *g = graphs[b];
        if (embed != DAR_EMBED_FIRST && !g->phase)
            die_record_in(g->source, g->record, "missing key 'hint_phase' (the model follows the trace's "
                          "phase flags and length; run ff-trace first)");
        if (model->config.leak_cut && model->config.variant == DAR_DUAL && !g->cut)
            die_record_in(g->source, g->record, "missing key 'cut' (--leak-cut feeds the true min cut)");
    }
    struct outputs o = {out, embed};
    dar_run(model, ws, graphs, B, NULL, 0, false, false, NULL, &o);
}
