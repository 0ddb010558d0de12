/* dar.c - the DAR model's computation (formats/model.md §1-§5): encoders,
 * the PGN/MPNN processor, the decoders, the step loop over a batch, the
 * losses, and the hand-written backward pass through time.  dar.h says how
 * the batch is laid out and what is kept for backward. */
#include "dar.h"
#include "rows.h"
#include "die.h"
#include "layers.h"
#include "workers.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena: one call's memory, reused across calls ----------------------------
 * A bump allocator over a list of chunks.  arena_mark/arena_release give
 * stack discipline (temporaries of one run, one step of a prediction). */

#define ARENA_CHUNK ((size_t)32 << 20)

struct chunk { char *base; size_t size; };
struct arena {
    struct chunk *chunks;
    int nchunks, room;
    int cur;                    /* chunk in use */
    size_t off;                 /* bytes used in it */
    size_t bytes;               /* sum of chunk sizes */
};
struct arena_mark { int cur; size_t off; };

static void *arena_alloc(struct arena *a, size_t bytes)
{
    bytes = (bytes + 63) & ~(size_t)63;
    if (!bytes)
        bytes = 64;
    for (;;) {
        if (a->cur < a->nchunks) {
            struct chunk *c = &a->chunks[a->cur];
            if (a->off + bytes <= c->size) {
                void *p = c->base + a->off;
                a->off += bytes;
                return p;
            }
            if (a->off == 0) {      /* an unused chunk too small: replace it */
                a->bytes -= c->size;
                free(c->base);
                c->size = bytes > ARENA_CHUNK ? bytes : ARENA_CHUNK;
                c->base = aligned_alloc(64, c->size);
                if (!c->base)
                    die(EX_SOFTWARE, "out of memory allocating %zu bytes", c->size);
                a->bytes += c->size;
                continue;
            }
            a->cur++;
            a->off = 0;
            continue;
        }
        if (a->nchunks == a->room) {
            a->room = a->room ? 2 * a->room : 8;
            a->chunks = xrealloc(a->chunks, sizeof *a->chunks * (size_t)a->room);
        }
        struct chunk *c = &a->chunks[a->nchunks++];
        c->size = bytes > ARENA_CHUNK ? bytes : ARENA_CHUNK;
        c->base = aligned_alloc(64, c->size);
        if (!c->base)
            die(EX_SOFTWARE, "out of memory allocating %zu bytes", c->size);
        a->bytes += c->size;
        a->cur = a->nchunks - 1;
        a->off = 0;
    }
}

static struct arena_mark arena_mark(const struct arena *a) { return (struct arena_mark){a->cur, a->off}; }
static void arena_release(struct arena *a, struct arena_mark m) { a->cur = m.cur; a->off = m.off; }
static void arena_reset(struct arena *a) { a->cur = 0; a->off = 0; }

static void arena_free(struct arena *a)
{
    for (int i = 0; i < a->nchunks; i++)
        free(a->chunks[i].base);
    free(a->chunks);
    memset(a, 0, sizeof *a);
}

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

/* Row helpers (vec8, load8, store8, row_sum3, row_axpy, row_add, row_dot): rows.h */

/* gcc lowers an 8-wide compare to scalar code on baseline x86-64: these
 * loops get an AVX2 clone, chosen at load time (a compare and a mask give
 * the same bits on either). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CLONES
#endif

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
enum { ARC_CAP, ARC_W, ARC_FLOW, ARC_PTR, ARC_LENGTH, ARC_DISTANCE, ARC_CURVENESS, ARC_FEATURES };
static const int arc_feature[ARC_FEATURES] = {DAR_F_CAP, DAR_F_W, DAR_F_FLOW, DAR_F_PTR,
                                              DAR_F_LENGTH, DAR_F_DISTANCE, DAR_F_CURVENESS};

/* One graph laid out for the model's processor. */
struct gdata {
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
struct gstate {
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
    int ng;
    int *gi;                    /* [ng] batch indices */
    int64_t *noff, *aoff, *eoff, *poff;   /* [ng+1] nodes, arcs, edges, pointer logits */
    int64_t N, A, E, P;
    int32_t *send, *recv;       /* [A] compact node indices */
    int32_t *in_degree;         /* [N] mean only */
    float *node;                /* [N*6] */
    float *arc;                 /* [A*4] */
    float **flow_grad;          /* [ng] where d(flow input) goes */
    bool *carry_in;             /* [ng] h_prev is a carried state that takes a gradient */
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
    float *fh_t, *fh_F, *fh_dF; /* [E] */
    float *ch_logit, *dch;      /* [N*2] */
    float *f_t, *f_F, *f_dF;    /* [E] */
    float *c_logit, *dc;        /* [N*2] */
};

/* Per network: the rank-4 products and their gradients. */
struct netcache {
    float *kme[ARC_FEATURES], *dkme[ARC_FEATURES];     /* [H] Me·a_φ */
    float kq_fh[ARC_FEATURES], dkq_fh[ARC_FEATURES];   /* q3·a_φ */
    float kq_f[ARC_FEATURES], dkq_f[ARC_FEATURES];
};

struct ctx {
    struct dar_model *model;
    struct dar_workspace *ws;
    struct arena *arena;
    int H;
    bool backward;
    int B;
    struct gdata *gd;
    struct gstate *st;
    struct netcache nc[DAR_MAX_NETS];
};

static float *af(struct ctx *c, int64_t count)
{
    return arena_alloc(c->arena, sizeof(float) * (size_t)(count > 0 ? count : 1));
}

static float *azf(struct ctx *c, int64_t count)
{
    float *p = af(c, count);
    memset(p, 0, sizeof(float) * (size_t)(count > 0 ? count : 1));
    return p;
}

static void *az(struct ctx *c, size_t bytes)
{
    void *p = arena_alloc(c->arena, bytes ? bytes : 1);
    memset(p, 0, bytes ? bytes : 1);
    return p;
}

static int net_index(const struct dar_model *m, const struct dar_net *net)
{
    return (int)(net - m->nets);
}

/* ---- graphs laid out for the processor ------------------------------------- */

static void prepare_graph(struct ctx *c, struct gdata *gd, const struct dar_graph *dg)
{
    const struct graph *g = &dg->g;
    int n = g->n, m = g->m;
    gd->dg = dg;
    gd->n = n;
    gd->m = m;
    bool pgn = c->model->config.processor == DAR_PGN;
    int64_t A = pgn ? 2 * (int64_t)m + n : (int64_t)n * n;
    gd->A = A;
    gd->send = az(c, sizeof(int32_t) * (size_t)A);
    gd->recv = az(c, sizeof(int32_t) * (size_t)A);
    gd->arc_fwd = az(c, sizeof(int32_t) * (size_t)(m + 1));
    gd->arc_bwd = az(c, sizeof(int32_t) * (size_t)(m + 1));
    gd->arc_cap = azf(c, A);
    gd->arc_w = azf(c, A);
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
                die_record(dg->record, "missing key '%s' (the model's edge inputs are vessel "
                           "features)", names[j]);
            gd->arc_vessel[j] = azf(c, A);
            for (int e = 0; e < m; e++) {
                gd->arc_vessel[j][gd->arc_fwd[e]] += in[j][e];
                gd->arc_vessel[j][gd->arc_bwd[e]] += in[j][e];
            }
        }
    }
    if (dg->cut) {
        gd->cut_target = az(c, sizeof(int32_t) * (size_t)n);
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

static struct run *run_new(struct ctx *c, const struct dar_net *net, const int *list, int ng)
{
    struct run *r = az(c, sizeof *r);
    int H = c->H;
    r->net = net;
    r->ng = ng;
    r->gi = az(c, sizeof(int) * (size_t)ng);
    memcpy(r->gi, list, sizeof(int) * (size_t)ng);
    r->noff = az(c, sizeof(int64_t) * (size_t)(ng + 1));
    r->aoff = az(c, sizeof(int64_t) * (size_t)(ng + 1));
    r->eoff = az(c, sizeof(int64_t) * (size_t)(ng + 1));
    r->poff = az(c, sizeof(int64_t) * (size_t)(ng + 1));
    for (int k = 0; k < ng; k++) {
        const struct gdata *gd = &c->gd[list[k]];
        r->noff[k + 1] = r->noff[k] + gd->n;
        r->aoff[k + 1] = r->aoff[k] + gd->A;
        r->eoff[k + 1] = r->eoff[k] + gd->m;
        r->poff[k + 1] = r->poff[k] + (int64_t)gd->n * gd->n;
    }
    r->N = r->noff[ng];
    r->A = r->aoff[ng];
    r->E = r->eoff[ng];
    r->P = r->poff[ng];
    r->send = az(c, sizeof(int32_t) * (size_t)r->A);
    r->recv = az(c, sizeof(int32_t) * (size_t)r->A);
    for (int k = 0; k < ng; k++) {
        const struct gdata *gd = &c->gd[list[k]];
        int32_t base = (int32_t)r->noff[k];
        int32_t *send = r->send + r->aoff[k], *recv = r->recv + r->aoff[k];
        for (int64_t a = 0; a < gd->A; a++) {
            send[a] = base + gd->send[a];
            recv[a] = base + gd->recv[a];
        }
    }
    if (c->model->config.agg == DAR_AGG_MEAN) {
        r->in_degree = az(c, sizeof(int32_t) * (size_t)r->N);
        edge_in_degree(r->in_degree, r->recv, r->A, r->N);
    }
    r->node = af(c, r->N * NODE_FEATURES);
    r->arc = af(c, r->A * ARC_FEATURES);
    r->flow_grad = az(c, sizeof(float *) * (size_t)ng);
    r->carry_in = az(c, sizeof(bool) * (size_t)ng);
    r->hd = af(c, r->N * 3 * H);
    return r;
}

/* Node and arc features of graph k of the run from its hint inputs. */
static void run_set_inputs(struct ctx *c, struct run *r, int k, const struct hint_in *in)
{
    const struct gdata *gd = &c->gd[r->gi[k]];
    const struct graph *g = &gd->dg->g;
    int n = gd->n;
    float *node = r->node + r->noff[k] * NODE_FEATURES;
    for (int v = 0; v < n; v++) {
        float *f = node + (int64_t)v * NODE_FEATURES;
        f[0] = (float)v / (float)n;
        f[1] = v == g->s;
        f[2] = v == g->t;
        f[3] = in->mask ? in->mask[v] : 0.0f;
        f[4] = in->cut ? (in->cut[v] == 0) : 0.0f;
        f[5] = in->cut ? (in->cut[v] == 1) : 0.0f;
    }
    float *arc = r->arc + r->aoff[k] * ARC_FEATURES;
    for (int64_t a = 0; a < gd->A; a++) {
        float *f = arc + a * ARC_FEATURES;
        f[ARC_CAP] = gd->arc_cap[a];
        f[ARC_W] = gd->arc_w[a];
        f[ARC_FLOW] = 0.0f;
        f[ARC_PTR] = in->pi && in->pi[gd->send[a]] == gd->recv[a];
        for (int j = 0; j < 3; j++)
            f[ARC_LENGTH + j] = gd->arc_vessel[j] ? gd->arc_vessel[j][a] : 0.0f;
    }
    if (in->flow)
        for (int e = 0; e < gd->m; e++) {
            arc[(int64_t)gd->arc_fwd[e] * ARC_FEATURES + ARC_FLOW] += in->flow[e];
            arc[(int64_t)gd->arc_bwd[e] * ARC_FEATURES + ARC_FLOW] -= in->flow[e];
        }
    r->flow_grad[k] = in->flow_grad;
}

/* ---- one network: forward ----------------------------------------------------- */

/* The rank-4 products of every network, once per call. */
static void netcache_init(struct ctx *c)
{
    int H = c->H;
    for (int j = 0; j < c->model->nnets; j++) {
        const struct dar_net *net = &c->model->nets[j];
        struct netcache *nc = &c->nc[j];
        memset(nc, 0, sizeof *nc);
        for (int p = 0; p < ARC_FEATURES; p++) {
            nc->kme[p] = azf(c, H);
            nc->dkme[p] = azf(c, H);
            const float *a = net->enc[arc_feature[p]];
            if (!net->encodes[arc_feature[p]])
                continue;
            for (int o = 0; o < H; o++) {
                const float *w = net->me.weight + (int64_t)o * H;
                float s = 0.0f;
                for (int h = 0; h < H; h++)
                    s += w[h] * a[h];
                nc->kme[p][o] = s;
            }
            if (net->flow_hint[2].weight) {
                float s = 0.0f;
                for (int h = 0; h < H; h++)
                    s += net->flow_hint[2].weight[h] * a[h];
                nc->kq_fh[p] = s;
            }
            if (net->flow[2].weight) {
                float s = 0.0f;
                for (int h = 0; h < H; h++)
                    s += net->flow[2].weight[h] * a[h];
                nc->kq_f[p] = s;
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
    bool use[ARC_FEATURES];
    for (int p = 0; p < ARC_FEATURES; p++)
        use[p] = net->encodes[arc_feature[p]];
    for (int64_t a = a0; a < a1; a++) {
        float *out = r0 + (a - a0) * H;
        const float *x = An + (int64_t)r->recv[a] * H, *y = Bn + (int64_t)r->send[a] * H;
        const float *f = r->arc + a * ARC_FEATURES;
        row_sum3(out, x, y, net->me.bias, H);
        for (int p = 0; p < ARC_FEATURES; p++)
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
    float *An = af(c, r->N * H), *Bn = af(c, r->N * H);
    message_nodes(c, r, An, Bn, z);
    message_rows(c, r, r0, An, Bn, 0, r->A);
    arena_release(c->arena, mark);
}

/* Without backward, big runs stream their arcs in chunks of this many,
 * aggregating as they go: memory O(chunk·H + N·H) instead of O(A·H). */
#define STREAM_ARCS 16384

/* agg over the messages of one chunk of arcs, in arc order: the same
 * operations, in the same order, as the aggregate_*_forward kernels. */
static void aggregate_rows(float *agg, const float *msg, const int32_t *recv, int64_t a0,
                           int64_t a1, enum dar_agg kind, int H)
{
    for (int64_t a = a0; a < a1; a++) {
        float *out = agg + (int64_t)recv[a] * H;
        const float *m = msg + (a - a0) * H;
        if (kind == DAR_AGG_MAX) {
            for (int h = 0; h < H; h++)
                if (m[h] > out[h])
                    out[h] = m[h];
        } else {
            row_add(out, m, H);
        }
    }
}

/* The processor's messages and aggregate when no backward will follow. */
static void messages_streamed(struct ctx *c, struct run *r, const float *z)
{
    const struct dar_net *net = r->net;
    int H = c->H;
    int64_t N = r->N, A = r->A;
    enum dar_agg kind = c->model->config.agg;
    float *An = af(c, N * H), *Bn = af(c, N * H);
    message_nodes(c, r, An, Bn, z);
    float *r0 = af(c, (int64_t)STREAM_ARCS * H), *r1 = af(c, (int64_t)STREAM_ARCS * H);
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
    r->agg = af(c, N * H);
    if (!streamed) {
        if (c->backward)
            r->r0 = af(c, A * H);
        r->r1 = af(c, A * H);
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
    float *z = af(c, N * 2 * H);
    hd_to_z(z, r->hd, N, H);

    if (streamed) {
        messages_streamed(c, r, z);
    } else {
        float *r0 = c->backward ? r->r0 : af(c, A * H);
        message_input(c, r, r0, z);
        linear_relu_forward_transposed(r->r1, r0, net->l1.weight_t, net->l1.bias, A, H, H);
        float *msg = c->backward ? af(c, A * H) : r0;   /* without backward r0 is dead: reuse */
        linear_relu_forward_transposed(msg, r->r1, net->l2.weight_t, net->l2.bias, A, H, H);
        if (r->msign)
            positive_bytes(r->msign, msg, A * H);
        switch (c->model->config.agg) {
        case DAR_AGG_MAX: aggregate_max_forward(r->agg, r->argmax, msg, r->recv, A, N, H); break;
        case DAR_AGG_MEAN: aggregate_mean_forward(r->agg, msg, r->recv, r->in_degree, A, N, H); break;
        case DAR_AGG_SUM: aggregate_sum_forward(r->agg, msg, r->recv, A, N, H); break;
        }
    }
    float *o = af(c, N * H);
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
    for (int k = 0; k < r->ng; k++) {
        const struct gdata *gd = &c->gd[r->gi[k]];
        const struct graph *g = &gd->dg->g;
        const float *arc = r->arc + r->aoff[k] * ARC_FEATURES;
        const float *q1 = p1 + r->noff[k] * stride, *q2 = p2 + r->noff[k] * stride;
        for (int e = 0; e < gd->m; e++) {
            int64_t u = g->src[e], v = g->dst[e];
            const float *fa = arc + (int64_t)gd->arc_fwd[e] * ARC_FEATURES;
            const float *fb = arc + (int64_t)gd->arc_bwd[e] * ARC_FEATURES;
            float D = (q1[u * stride] - q1[v * stride]) + (q2[v * stride] - q2[u * stride]);
            for (int p = 0; p < ARC_FEATURES; p++)
                if (net->encodes[arc_feature[p]])
                    D += kq[p] * (fa[p] - fb[p]);
            float t = tanhf(D);
            t_out[r->eoff[k] + e] = t;
            F_out[r->eoff[k] + e] = g->cap[e] * t;
        }
    }
}

/* Columns [col, col + width) of the fused product's rows into dst (N×width). */
static void take_columns(float *dst, const float *all, int64_t stride, int col, int width, int64_t N)
{
    for (int64_t v = 0; v < N; v++)
        memcpy(dst + v * width, all + v * stride + col, sizeof(float) * (size_t)width);
}

/* The decoders the network has, on all graphs of the run: one product of hd
 * for all of them (net->heads_t, columns in decoder_list's order), then the
 * pointer logits and the flow heads; the d-buffers are zeroed here for the
 * loss code to fill. */
static void heads_forward(struct ctx *c, struct run *r)
{
    const struct dar_net *net = r->net;
    const struct netcache *nc = &c->nc[net_index(c->model, net)];
    int H = c->H;
    int64_t N = r->N;
    bool bw = c->backward;
    if (net->mask.weight) {
        r->mask_logit = af(c, N);
        if (bw) r->dmask = azf(c, N);
    }
    if (net->pi1.weight) {
        r->p1h = af(c, N * H);
        r->p2h = af(c, N * H);
        r->pi_logit = af(c, r->P);
        if (bw) r->dpi = azf(c, r->P);
    }
    if (net->flow_hint[0].weight) {
        r->fh_t = af(c, r->E);
        r->fh_F = af(c, r->E);
        if (bw) r->fh_dF = azf(c, r->E);
    }
    if (net->cut_hint.weight) {
        r->ch_logit = af(c, N * 2);
        if (bw) r->dch = azf(c, N * 2);
    }
    if (net->flow[0].weight) {
        r->f_t = af(c, r->E);
        r->f_F = af(c, r->E);
        if (bw) r->f_dF = azf(c, r->E);
    }
    if (net->cut.weight) {
        r->c_logit = af(c, N * 2);
        if (bw) r->dc = azf(c, N * 2);
    }
    struct arena_mark mark = arena_mark(c->arena);
    int out = net->heads_out;
    float *all = af(c, N * out);
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
        for (int k = 0; k < r->ng; k++) {
            int n = c->gd[r->gi[k]].n;
            linear_forward(r->pi_logit + r->poff[k], r->p1h + r->noff[k] * H,
                           r->p2h + r->noff[k] * H, NULL, n, H, n);
        }
    }
    if (net->flow_hint[0].weight) {
        flow_head_forward(c, r, nc->kq_fh, all + col, all + col + 1, out, r->fh_t, r->fh_F);
        col += 2;
    }
    if (net->cut_hint.weight) {
        take_columns(r->ch_logit, all, out, col, 2, N);
        col += 2;
    }
    if (net->flow[0].weight) {
        flow_head_forward(c, r, nc->kq_f, all + col, all + col + 1, out, r->f_t, r->f_F);
        col += 2;
    }
    if (net->cut.weight) {
        take_columns(r->c_logit, all, out, col, 2, N);
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
    float *dp1 = azf(c, r->N), *dp2 = azf(c, r->N);
    for (int k = 0; k < r->ng; k++) {
        const struct gdata *gd = &c->gd[r->gi[k]];
        const struct graph *g = &gd->dg->g;
        const float *arc = r->arc + r->aoff[k] * ARC_FEATURES;
        float *d1 = dp1 + r->noff[k], *d2 = dp2 + r->noff[k];
        float *dflow = darc_flow + r->aoff[k];
        for (int e = 0; e < gd->m; e++) {
            int64_t i = r->eoff[k] + e;
            float dD = dF[i] * g->cap[e] * (1.0f - t[i] * t[i]);
            if (dD == 0.0f)
                continue;
            int u = g->src[e], v = g->dst[e];
            d1[u] += dD;
            d1[v] -= dD;
            d2[v] += dD;
            d2[u] -= dD;
            const float *fa = arc + (int64_t)gd->arc_fwd[e] * ARC_FEATURES;
            const float *fb = arc + (int64_t)gd->arc_bwd[e] * ARC_FEATURES;
            for (int p = 0; p < ARC_FEATURES; p++)
                if (net->encodes[arc_feature[p]])
                    dkq[p] += dD * (fa[p] - fb[p]);
            if (net->encodes[DAR_F_FLOW]) {
                dflow[gd->arc_fwd[e]] += dD * kq[ARC_FLOW];
                dflow[gd->arc_bwd[e]] -= dD * kq[ARC_FLOW];
            }
        }
    }
    linear_backward(dhd, q[0].dweight, NULL, dp1, r->hd, q[0].weight, r->N, 3 * H, 1);
    linear_backward(dhd, q[1].dweight, NULL, dp2, r->hd, q[1].weight, r->N, 3 * H, 1);
    arena_release(c->arena, mark);
}

/* Backward of one run: heads (their d-buffers filled by the loss code and
 * later steps), processor, encoders.  consume_carry: add the gradient of h
 * left by the next step's run; produce_carry: leave d(h_prev) for the
 * previous step's run, for graphs with carry_in. */
CLONES static void run_backward(struct ctx *c, struct run *r, bool consume_carry, bool produce_carry)
{
    const struct dar_net *net = r->net;
    struct netcache *nc = &c->nc[net_index(c->model, net)];
    int H = c->H;
    int64_t N = r->N, A = r->A;
    struct arena_mark mark = arena_mark(c->arena);
    float *dhd = azf(c, N * 3 * H);
    float *darc_flow = azf(c, A);

    if (net->mask.weight)
        linear_backward(dhd, net->mask.dweight, net->mask.dbias, r->dmask, r->hd,
                        net->mask.weight, N, 3 * H, 1);
    if (net->pi1.weight) {
        float *dp1h = azf(c, N * H), *dp2h = azf(c, N * H);
        for (int k = 0; k < r->ng; k++) {
            int n = c->gd[r->gi[k]].n;
            linear_backward(dp1h + r->noff[k] * H, dp2h + r->noff[k] * H, NULL,
                            r->dpi + r->poff[k], r->p1h + r->noff[k] * H,
                            r->p2h + r->noff[k] * H, n, H, n);
        }
        linear_backward(dhd, net->pi1.dweight, net->pi1.dbias, dp1h, r->hd, net->pi1.weight,
                        N, 3 * H, H);
        linear_backward(dhd, net->pi2.dweight, net->pi2.dbias, dp2h, r->hd, net->pi2.weight,
                        N, 3 * H, H);
    }
    if (net->flow_hint[0].weight)
        flow_head_backward(c, r, net->flow_hint, nc->kq_fh, nc->dkq_fh, r->fh_t, r->fh_dF,
                           dhd, darc_flow);
    if (net->cut_hint.weight)
        linear_backward(dhd, net->cut_hint.dweight, net->cut_hint.dbias, r->dch, r->hd,
                        net->cut_hint.weight, N, 3 * H, 2);
    if (net->flow[0].weight)
        flow_head_backward(c, r, net->flow, nc->kq_f, nc->dkq_f, r->f_t, r->f_dF, dhd, darc_flow);
    if (net->cut.weight)
        linear_backward(dhd, net->cut.dweight, net->cut.dbias, r->dc, r->hd, net->cut.weight,
                        N, 3 * H, 2);
    if (consume_carry)
        for (int k = 0; k < r->ng; k++) {
            struct gstate *st = &c->st[r->gi[k]];
            if (!st->dh_pending)
                continue;
            int n = c->gd[r->gi[k]].n;
            for (int v = 0; v < n; v++)
                row_add(dhd + (r->noff[k] + v) * 3 * H + 2 * H, st->dh + (int64_t)v * H, H);
            st->dh_pending = false;
        }

    // h = relu(O1 z + O2 agg)
    float *dt = azf(c, N * H);
    for (int64_t v = 0; v < N; v++) {
        float *o = dt + v * H;
        memcpy(o, dhd + v * 3 * H + 2 * H, sizeof(float) * (size_t)H);
        mask_by_positive(o, r->hd + v * 3 * H + 2 * H, H);
    }
    float *z = af(c, N * 2 * H), *dz = af(c, N * 2 * H);
    hd_to_z(z, r->hd, N, H);
    hd_to_z(dz, dhd, N, H);
    linear_backward(dz, net->o1.dweight, net->o1.dbias, dt, z, net->o1.weight, N, 2 * H, H);
    float *dagg = azf(c, N * H);
    linear_backward(dagg, net->o2.dweight, net->o2.dbias, dt, r->agg, net->o2.weight, N, H, H);

    // messages
    float *dm = azf(c, A * H);
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
    float *dr1 = azf(c, A * H);
    linear_backward(dr1, net->l2.dweight, net->l2.dbias, dm, r->r1, net->l2.weight, A, H, H);
    mask_by_positive(dr1, r->r1, A * H);
    const float *r0 = r->r0;
    float *dpre = dm;   /* dm is dead: reuse */
    memset(dpre, 0, sizeof(float) * (size_t)(A * H));
    linear_backward(dpre, net->l1.dweight, net->l1.dbias, dr1, r0, net->l1.weight, A, H, H);
    mask_by_positive(dpre, r0, A * H);

    // pre = An[recv] + Bn[send] + b_me + Σ_φ f_aφ k_φ
    float *dAn = azf(c, N * H), *dBn = azf(c, N * H);
    gather_rows_backward(dAn, dpre, r->recv, A, H);
    gather_rows_backward(dBn, dpre, r->send, A, H);
    bool use[ARC_FEATURES];
    for (int p = 0; p < ARC_FEATURES; p++)
        use[p] = net->encodes[arc_feature[p]];
    const float *kflow = nc->kme[ARC_FLOW];
    for (int64_t a = 0; a < A; a++) {
        const float *d = dpre + a * H;
        const float *f = r->arc + a * ARC_FEATURES;
        row_add(net->me.dbias, d, H);
        for (int p = 0; p < ARC_FEATURES; p++)
            if (use[p] && f[p] != 0.0f)
                row_axpy(nc->dkme[p], f[p], d, H);
        if (use[ARC_FLOW])
            darc_flow[a] += row_dot(kflow, d, H);
    }
    linear_backward(dz, net->m1.dweight, net->m1.dbias, dAn, z, net->m1.weight, N, 2 * H, H);
    linear_backward(dz, net->m2.dweight, net->m2.dbias, dBn, z, net->m2.weight, N, 2 * H, H);

    // encoders: x = Σ_φ f_vφ a_φ (+ W_cut cut)
    static const int node_feature[4] = {DAR_F_POS, DAR_F_S, DAR_F_T, DAR_F_MASK};
    for (int64_t v = 0; v < N; v++) {
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
    if (produce_carry)
        for (int k = 0; k < r->ng; k++) {
            if (!r->carry_in[k])
                continue;
            struct gstate *st = &c->st[r->gi[k]];
            int n = c->gd[r->gi[k]].n;
            for (int v = 0; v < n; v++)
                memcpy(st->dh + (int64_t)v * H, dz + (r->noff[k] + v) * 2 * H + H,
                       sizeof(float) * (size_t)H);
            st->dh_pending = true;
        }
    // the arc flow features back to the flow predictions they came from
    for (int k = 0; k < r->ng; k++) {
        float *dF = r->flow_grad[k];
        if (!dF)
            continue;
        const struct gdata *gd = &c->gd[r->gi[k]];
        const float *d = darc_flow + r->aoff[k];
        for (int e = 0; e < gd->m; e++)
            dF[e] += d[gd->arc_fwd[e]] - d[gd->arc_bwd[e]];
    }
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
        for (int p = 0; p < ARC_FEATURES; p++) {
            int f = arc_feature[p];
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
                    net->flow_hint[2].dweight[h] += nc->dkq_fh[p] * a[h];
                    da[h] += nc->dkq_fh[p] * net->flow_hint[2].weight[h];
                }
            if (net->flow[2].weight)
                for (int h = 0; h < H; h++) {
                    net->flow[2].dweight[h] += nc->dkq_f[p] * a[h];
                    da[h] += nc->dkq_f[p] * net->flow[2].weight[h];
                }
        }
    }
}

/* ---- the step loop ----------------------------------------------------------- */

struct scales {
    int n_hints;
    double count_mask, count_pi, count_fh;   /* (graph, step) pairs scored */
    double sum_adj, sum_nodes;               /* Σ_b (2m+n), Σ_b n */
};

struct sums { double mask, pi, fh, ch, f, c; };   /* contributions to the total */

struct outputs {
    struct dar_prediction *pred;     /* NULL in training */
    enum dar_embed embed;
};

static void state_init(struct ctx *c)
{
    int H = c->H;
    bool leak = c->model->config.leak_cut && c->model->config.variant == DAR_DUAL;
    for (int b = 0; b < c->B; b++) {
        const struct gdata *gd = &c->gd[b];
        const struct dar_graph *dg = gd->dg;
        struct gstate *st = &c->st[b];
        int n = gd->n, m = gd->m;
        memset(st, 0, sizeof *st);
        st->mask = az(c, (size_t)n);
        st->pi = az(c, sizeof(int32_t) * (size_t)n);
        st->flow = azf(c, m);
        st->cut = az(c, (size_t)n);
        st->h = azf(c, (int64_t)n * H);
        st->dh = azf(c, (int64_t)n * H);
        st->mincut_logit = azf(c, (int64_t)n * 2);
        st->mincut_cut = az(c, (size_t)n);
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
        if (leak) {
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

/* The mincut network (pipeline, n+1 steps) or no-algo's network (T−1 steps):
 * recurrent, h carried, constant inputs; its head is read at each graph's
 * last step.  Returns its runs (steps in order) for backward. */
static struct run **recurrent_forward(struct ctx *c, const struct dar_net *net, const int *steps,
                                      int *nsteps_out, const struct scales *sc, struct sums *sum,
                                      const struct outputs *out)
{
    int B = c->B, H = c->H;
    int S = 0;
    for (int b = 0; b < B; b++)
        if (steps[b] > S) S = steps[b];
    *nsteps_out = S;
    struct run **runs = az(c, sizeof(struct run *) * (size_t)(S + 1));
    int *list = az(c, sizeof(int) * (size_t)B);
    bool is_mincut = net->cut.weight != NULL;
    for (int j = 0; j < S; j++) {
        struct arena_mark step_mark = arena_mark(c->arena);
        int ng = 0;
        for (int b = 0; b < B; b++)
            if (j < steps[b]) list[ng++] = b;
        struct run *r = run_new(c, net, list, ng);
        float *hprev = af(c, r->N * H);
        for (int k = 0; k < ng; k++) {
            struct gstate *st = &c->st[list[k]];
            struct hint_in in = {0};
            run_set_inputs(c, r, k, &in);
            r->carry_in[k] = st->h_valid;
            memcpy(hprev + r->noff[k] * H, st->h, sizeof(float) * (size_t)(c->gd[list[k]].n * H));
        }
        net_forward(c, r, j > 0 ? hprev : NULL);
        heads_forward(c, r);
        for (int k = 0; k < ng; k++) {
            int b = list[k];
            const struct gdata *gd = &c->gd[b];
            struct gstate *st = &c->st[b];
            int n = gd->n, m = gd->m;
            for (int v = 0; v < n; v++)
                memcpy(st->h + (int64_t)v * H, r->hd + (r->noff[k] + v) * 3 * H + 2 * H,
                       sizeof(float) * (size_t)H);
            st->h_valid = true;
            if (j != steps[b] - 1)
                continue;
            if (is_mincut) {
                memcpy(st->mincut_logit, r->c_logit + r->noff[k] * 2, sizeof(float) * 2 * (size_t)n);
                if (c->backward)
                    st->mincut_dlogit = r->dc + r->noff[k] * 2;
                for (int v = 0; v < n; v++)
                    st->mincut_cut[v] = (uint8_t)argmax_row(st->mincut_logit + 2 * v, 2);
            } else {
                const float *F = r->f_F + r->eoff[k];
                st->final_seen = true;
                if (sum) {
                    sum->f += squared_error(c->backward ? r->f_dF + r->eoff[k] : NULL, F,
                                            gd->dg->flow, NULL, (float)(2.0 / sc->sum_adj), m);
                }
                if (out && out->pred) {
                    struct dar_prediction *p = &out->pred[b];
                    if (p->flow && m) memcpy(p->flow, F, sizeof(float) * (size_t)m);
                    if (p->embed)
                        memcpy(p->embed, r->hd + r->noff[k] * 3 * H, sizeof(float) * (size_t)(n * 3 * H));
                }
            }
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
            else sc.count_fh++;
        }
    }
    return sc;
}

/* One group of graphs of the batch, start to end: forward, losses into
 * *sum, backward into the gradients model's dweight pointers lead to. */
static void run_group(struct dar_model *model, struct dar_workspace *ws, struct arena *arena,
                      struct dar_graph *const *graphs, int B, const uint8_t *teacher,
                      int teacher_len, bool backward, bool training, const struct scales *batch,
                      struct sums *sum_out, const struct outputs *out)
{
    struct ctx cx = {0}, *c = &cx;
    c->model = model;
    c->ws = ws;
    c->arena = arena;
    c->H = model->config.hidden;
    c->backward = backward;
    c->B = B;
    int H = c->H;
    enum dar_variant variant = model->config.variant;
    bool leak = model->config.leak_cut && variant == DAR_DUAL;
    bool embed_first = out && out->embed == DAR_EMBED_FIRST;
    arena_reset(c->arena);
    c->gd = az(c, sizeof(struct gdata) * (size_t)(B ? B : 1));
    c->st = az(c, sizeof(struct gstate) * (size_t)(B ? B : 1));
    static const uint8_t flow_phase[2] = {0, 1};
    for (int b = 0; b < B; b++) {
        prepare_graph(c, &c->gd[b], graphs[b]);
        if (embed_first) {      /* one step, P_BF then P_F */
            c->gd[b].T = 2;
            c->gd[b].phase = flow_phase;
            c->gd[b].last_flow = 0;
        }
    }
    netcache_init(c);
    state_init(c);

    struct scales sc = *batch;
    struct sums sum = {0};
    struct sums *S = training ? &sum : NULL;

    struct run **mincut_runs = NULL, **net_runs = NULL;
    int mincut_steps = 0, net_steps = 0;
    int *steps = az(c, sizeof(int) * (size_t)(B ? B : 1));
    struct dar_prediction *pred = out ? out->pred : NULL;

    if (variant == DAR_PIPELINE) {
        for (int b = 0; b < B; b++)
            steps[b] = c->gd[b].n + 1;
        mincut_runs = recurrent_forward(c, &model->nets[model->mincut], steps, &mincut_steps, &sc,
                                        S, out);
        for (int b = 0; b < B; b++) {
            struct gstate *st = &c->st[b];
            const struct gdata *gd = &c->gd[b];
            if (training)       /* L_c: c_out is the mincut network's logits */
                sum.c += softmax_cross_entropy(backward ? st->mincut_dlogit : NULL, st->mincut_logit,
                                               gd->cut_target, NULL, (float)(1.0 / sc.sum_nodes),
                                               gd->n, 2);
            if (pred && pred[b].cut)
                for (int v = 0; v < gd->n; v++)
                    pred[b].cut[v] = 1.0f / (1.0f + expf(st->mincut_logit[2 * v] -
                                                         st->mincut_logit[2 * v + 1]));
        }
    }

    if (variant == DAR_NO_ALGO) {
        for (int b = 0; b < B; b++)
            steps[b] = c->gd[b].T > 1 ? c->gd[b].T - 1 : 0;
        net_runs = recurrent_forward(c, &model->nets[model->net], steps, &net_steps, &sc, S, out);
    } else {
        const struct dar_net *bf = &model->nets[model->bf], *fl = &model->nets[model->flow];
        int maxT = 0, maxn = 1;
        for (int b = 0; b < B; b++) {
            if (c->gd[b].T > maxT) maxT = c->gd[b].T;
            if (c->gd[b].n > maxn) maxn = c->gd[b].n;
        }
        int nsteps = maxT > 1 ? maxT - 1 : 0;
        struct run **bf_runs = az(c, sizeof(struct run *) * (size_t)(nsteps + 1));
        struct run **flow_runs = az(c, sizeof(struct run *) * (size_t)(nsteps + 1));
        int *list = az(c, sizeof(int) * (size_t)B), *flist = az(c, sizeof(int) * (size_t)B);
        int *pos = az(c, sizeof(int) * (size_t)B), *fpos = az(c, sizeof(int) * (size_t)B);
        struct hint_in *hin = az(c, sizeof(struct hint_in) * (size_t)B);
        float *target = af(c, maxn);
        double nh = sc.n_hints;
        if (pred)       /* frame 0 */
            for (int b = 0; b < B; b++) {
                const struct gdata *gd = &c->gd[b];
                struct gstate *st = &c->st[b];
                if (embed_first) continue;
                if (pred[b].pi) memcpy(pred[b].pi, st->pi, sizeof(int32_t) * (size_t)gd->n);
                if (pred[b].mask) memcpy(pred[b].mask, st->mask, (size_t)gd->n);
                if (pred[b].hint_flow && gd->m) memcpy(pred[b].hint_flow, st->flow, sizeof(float) * (size_t)gd->m);
            }
        for (int i = 0; i < nsteps; i++) {
            struct arena_mark step_mark = arena_mark(c->arena);
            bool tf = i > 0 && teacher && i < teacher_len && teacher[i];
            int ng = 0, nf = 0;
            for (int b = 0; b < B; b++)
                if (i + 1 < c->gd[b].T) {
                    pos[b] = ng;
                    list[ng++] = b;
                    if (!c->gd[b].phase[i]) {
                        fpos[b] = nf;
                        flist[nf++] = b;
                    }
                }
            // the hint inputs of step i
            for (int k = 0; k < ng; k++) {
                int b = list[k];
                const struct dar_graph *dg = c->gd[b].dg;
                struct gstate *st = &c->st[b];
                int n = c->gd[b].n, m = c->gd[b].m;
                bool forced = tf && dg->hint_mask;
                struct hint_in *in = &hin[b];
                in->mask = forced ? dg->hint_mask + (int64_t)i * n : st->mask;
                in->pi = forced ? dg->hint_pi + (int64_t)i * n : st->pi;
                in->flow = forced ? dg->hint_flow + (int64_t)i * m : st->flow;
                in->flow_grad = forced ? NULL : st->flow_grad;
                in->cut = NULL;
                if (variant == DAR_PIPELINE) {
                    in->cut = st->mincut_cut;
                } else if (variant == DAR_DUAL) {
                    if (leak && (i == 0 || forced)) {
                        bool zero = true;
                        for (int e = 0; e < m && zero; e++)
                            zero = in->flow[e] == 0.0f;
                        in->cut = zero ? dg->cut : NULL;
                    } else {
                        in->cut = st->has_cut ? st->cut : NULL;
                    }
                }
            }
            // P_BF on every running graph
            struct run *rb = run_new(c, bf, list, ng);
            bool any_carry = false;
            for (int k = 0; k < ng; k++) {
                run_set_inputs(c, rb, k, &hin[list[k]]);
                rb->carry_in[k] = c->st[list[k]].h_valid;
                any_carry |= rb->carry_in[k];
            }
            float *hprev = NULL;
            if (any_carry) {
                hprev = azf(c, rb->N * H);
                for (int k = 0; k < ng; k++)
                    if (rb->carry_in[k])
                        memcpy(hprev + rb->noff[k] * H, c->st[list[k]].h,
                               sizeof(float) * (size_t)(c->gd[list[k]].n * H));
            }
            net_forward(c, rb, hprev);
            heads_forward(c, rb);
            // P_F on the graphs at a flow step, h_prev = stopgrad(P_BF's h)
            struct run *rf = NULL;
            if (nf > 0) {
                rf = run_new(c, fl, flist, nf);
                float *hb = af(c, rf->N * H);
                for (int k = 0; k < nf; k++) {
                    int b = flist[k];
                    run_set_inputs(c, rf, k, &hin[b]);
                    for (int v = 0; v < c->gd[b].n; v++)
                        memcpy(hb + (rf->noff[k] + v) * H,
                               rb->hd + (rb->noff[pos[b]] + v) * 3 * H + 2 * H,
                               sizeof(float) * (size_t)H);
                }
                hprev_test_hook(c, hb, rf->N * H);
                net_forward(c, rf, hb);
                heads_forward(c, rf);
            }
            // losses, then the state the next step reads
            for (int k = 0; k < ng; k++) {
                int b = list[k];
                const struct gdata *gd = &c->gd[b];
                const struct dar_graph *dg = gd->dg;
                struct gstate *st = &c->st[b];
                int n = gd->n, m = gd->m;
                bool flow_step = !gd->phase[i];
                struct run *r = flow_step ? rf : rb;
                int kk = flow_step ? fpos[b] : k;
                const float *mask_logit = r->mask_logit + r->noff[kk];
                if (training) {
                    mask_target(target, dg->hint_mask + (int64_t)(i + 1) * n, n);
                    sum.mask += bce_with_logits(backward ? r->dmask + r->noff[kk] : NULL, mask_logit,
                                                target, NULL,
                                                (float)(1.0 / (n * sc.count_mask * nh)), n);
                }
                for (int v = 0; v < n; v++)
                    st->mask[v] = mask_logit[v] > 0.0f;
                if (!flow_step) {
                    const float *logit = rb->pi_logit + rb->poff[k];
                    if (training)
                        sum.pi += softmax_cross_entropy(backward ? rb->dpi + rb->poff[k] : NULL, logit,
                                                        dg->hint_pi + (int64_t)(i + 1) * n, NULL,
                                                        (float)(1.0 / (n * sc.count_pi * nh)), n, n);
                    for (int u = 0; u < n; u++)
                        st->pi[u] = argmax_row(logit + (int64_t)u * n, n);
                    st->h_valid = false;
                } else {
                    int64_t eo = rf->eoff[kk], no = rf->noff[kk];
                    const float *F = rf->fh_F + eo;
                    if (training) {
                        sum.fh += squared_error(backward ? rf->fh_dF + eo : NULL, F,
                                                dg->hint_flow + (int64_t)(i + 1) * m, NULL,
                                                (float)(2.0 / ((2.0 * m + n) * sc.count_fh * nh)), m);
                        float ch_scale = (float)(1.0 / (n * sc.count_fh * nh));
                        if (variant == DAR_DUAL)
                            sum.ch += softmax_cross_entropy(backward ? rf->dch + no * 2 : NULL,
                                                            rf->ch_logit + no * 2, gd->cut_target,
                                                            NULL, ch_scale, n, 2);
                        else if (variant == DAR_PIPELINE)
                            sum.ch += softmax_cross_entropy(backward ? st->mincut_dlogit : NULL,
                                                            st->mincut_logit, gd->cut_target, NULL,
                                                            ch_scale, n, 2);
                    }
                    if (i == gd->last_flow) {
                        const float *Fo = rf->f_F + eo;
                        if (training) {
                            sum.f += squared_error(backward ? rf->f_dF + eo : NULL, Fo, dg->flow, NULL,
                                                   (float)(2.0 / sc.sum_adj), m);
                            if (variant == DAR_DUAL)
                                sum.c += softmax_cross_entropy(backward ? rf->dc + no * 2 : NULL,
                                                               rf->c_logit + no * 2, gd->cut_target,
                                                               NULL, (float)(1.0 / sc.sum_nodes), n, 2);
                        }
                        if (pred) {
                            struct dar_prediction *p = &pred[b];
                            if (p->flow && m) memcpy(p->flow, Fo, sizeof(float) * (size_t)m);
                            if (p->cut && variant == DAR_DUAL)
                                for (int v = 0; v < n; v++)
                                    p->cut[v] = 1.0f / (1.0f + expf(rf->c_logit[(no + v) * 2] -
                                                                    rf->c_logit[(no + v) * 2 + 1]));
                            if (p->embed)
                                memcpy(p->embed, rf->hd + no * 3 * H, sizeof(float) * (size_t)(n * 3 * H));
                        }
                    }
                    for (int u = 0; u < n; u++)
                        st->pi[u] = u;
                    if (m)
                        memcpy(st->flow, F, sizeof(float) * (size_t)m);
                    st->flow_grad = backward ? rf->fh_dF + eo : NULL;
                    if (variant == DAR_DUAL) {
                        for (int v = 0; v < n; v++)
                            st->cut[v] = (uint8_t)argmax_row(rf->ch_logit + (no + v) * 2, 2);
                        st->has_cut = true;
                    }
                    for (int v = 0; v < n; v++)
                        memcpy(st->h + (int64_t)v * H, rb->hd + (rb->noff[k] + v) * 3 * H + 2 * H,
                               sizeof(float) * (size_t)H);
                    st->h_valid = true;
                }
                if (pred && !embed_first) {
                    struct dar_prediction *p = &pred[b];
                    if (p->pi) memcpy(p->pi + (int64_t)(i + 1) * n, st->pi, sizeof(int32_t) * (size_t)n);
                    if (p->mask) memcpy(p->mask + (int64_t)(i + 1) * n, st->mask, (size_t)n);
                    if (p->hint_flow && m)
                        memcpy(p->hint_flow + (int64_t)(i + 1) * m, st->flow, sizeof(float) * (size_t)m);
                }
            }
            if (backward) {
                bf_runs[i] = rb;
                flow_runs[i] = rf;
            } else {
                arena_release(c->arena, step_mark);
            }
        }
        if (backward) {
            for (int b = 0; b < B; b++)
                c->st[b].dh_pending = false;
            for (int i = nsteps - 1; i >= 0; i--) {
                if (flow_runs[i])
                    run_backward(c, flow_runs[i], false, false);
                run_backward(c, bf_runs[i], true, true);
            }
        }
    }

    // graphs that never reach an output step: F_out = 0, c_out logits 0
    for (int b = 0; b < B; b++) {
        const struct gdata *gd = &c->gd[b];
        bool has_output = variant == DAR_NO_ALGO ? c->st[b].final_seen : gd->last_flow >= 0;
        if (has_output)
            continue;
        if (training) {
            for (int e = 0; e < gd->m; e++)
                sum.f += 2.0 * (double)gd->dg->flow[e] * gd->dg->flow[e] / sc.sum_adj;
            if (variant == DAR_DUAL)
                sum.c += gd->n * log(2.0) / sc.sum_nodes;
        }
        if (pred) {
            if (pred[b].flow && gd->m) memset(pred[b].flow, 0, sizeof(float) * (size_t)gd->m);
            if (pred[b].cut && variant == DAR_DUAL)
                for (int v = 0; v < gd->n; v++) pred[b].cut[v] = 0.5f;
            if (pred[b].embed) memset(pred[b].embed, 0, sizeof(float) * (size_t)(gd->n * 3 * H));
        }
    }

    if (backward) {
        if (variant == DAR_PIPELINE)
            recurrent_backward(c, mincut_runs, mincut_steps);
        if (variant == DAR_NO_ALGO)
            recurrent_backward(c, net_runs, net_steps);
        netcache_backward(c);
    }
    *sum_out = sum;
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
    int count = j->B - first < GROUP_GRAPHS ? j->B - first : GROUP_GRAPHS;
    struct dar_model view;
    struct dar_model *model = j->model;
    if (j->backward) {
        float *grads = j->ws->grads + g * j->model->count;
        memset(grads, 0, sizeof(float) * (size_t)j->model->count);
        model_with_grads(&view, j->model, grads);
        model = &view;
    }
    struct outputs out;
    if (j->out) {
        out = *j->out;
        if (out.pred)
            out.pred += first;
    }
    run_group(model, j->ws, &j->ws->arenas[g], j->graphs + first, count, j->teacher,
              j->teacher_len, j->backward, j->training, &j->scales, &j->sums[g],
              j->out ? &out : NULL);
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
    struct sums sum = {0};
    for (int g = 0; g < groups; g++) {
        sum.mask += group_sums[g].mask;
        sum.pi += group_sums[g].pi;
        sum.fh += group_sums[g].fh;
        sum.ch += group_sums[g].ch;
        sum.f += group_sums[g].f;
        sum.c += group_sums[g].c;
    }
    enum dar_variant variant = model->config.variant;
    struct scales sc = job.scales;

    double total = 0.0;
    if (losses) {
        double nh = sc.n_hints;
        memset(losses, 0, sizeof *losses);
        if (variant == DAR_NO_ALGO) {
            losses->flow = sum.f;
            total = sum.f;
        } else {
            losses->mask = sum.mask * nh;
            losses->pi = sum.pi * nh;
            losses->flow_hint = sum.fh * nh;
            losses->cut_hint = sum.ch * nh;
            losses->flow = sum.f;
            losses->cut = sum.c;
            total = sum.mask + sum.pi + sum.fh + sum.ch + sum.f + sum.c;
        }
        losses->total = total;
    }
    return total;
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
            die_record(g->record, "missing key 'hint_phase' (the model follows the trace's "
                       "phase flags and length; run ff-trace first)");
        if (model->config.leak_cut && model->config.variant == DAR_DUAL && !g->cut)
            die_record(g->record, "missing key 'cut' (--leak-cut feeds the true min cut)");
    }
    struct outputs o = {out, embed};
    dar_run(model, ws, graphs, B, NULL, 0, false, false, NULL, &o);
}
