/* dar_forward.c - one network's forward pass on a run (formats/model.md §2):
 * the rank-4 products Me·a_φ and q3·a_φ cached once per call, the node
 * encoders, the PGN/MPNN processor's messages and aggregate (streamed in
 * chunks of arcs when no backward follows, messages_streamed), the update,
 * and the decoders by probe type, all of them one fused product of hd.
 * What backward needs is kept on the run (dar.h); dar_backward.c is the
 * hand-written backward of every function here. */
#include "dar.h"
#include "dar_processor.h"
#include "dar_internal.h"
#include "arena.h"
#include "rows.h"
#include "die.h"
#include "layers.h"
#include <math.h>
#include <string.h>

/* Row helpers (vec8, load8, store8, row_sum3, row_axpy, row_add, row_dot) and
 * CLONES: rows.h */

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
void dar_netcache_init(struct dar_group *c)
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
 * r0[a] = relu(An[recv a] + Bn[send a] + b_me + Σ_φ f_aφ k_φ (+ tri[a])),
 * tri the triplet messages of those arcs (config.triplets) or NULL */
CLONES static void message_rows(struct dar_group *c, const struct dar_run *r, float *r0, const float *An,
                         const float *Bn, int64_t a0, int64_t a1, const float *tri)
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
        if (tri)
            row_add(out, tri + (a - a0) * H, H);
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
    float *tri = NULL;
    if (c->model->config.triplets) {
        tri = arena_floats(c->arena, r->A * H);
        dar_triplet_rows(c, r, tri, 0, r->A);
    }
    message_rows(c, r, r0, An, Bn, 0, r->A, tri);
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
    float *tri = c->model->config.triplets ? arena_floats(c->arena, (int64_t)STREAM_ARCS * H) : NULL;
    for (int64_t i = 0; i < N * H; i++)
        r->agg[i] = kind == DAR_AGG_MAX ? -INFINITY : 0.0f;
    for (int64_t a0 = 0; a0 < A; a0 += STREAM_ARCS) {
        int64_t a1 = a0 + STREAM_ARCS < A ? a0 + STREAM_ARCS : A;
        if (tri)
            dar_triplet_rows(c, r, tri, a0, a1);
        message_rows(c, r, r0, An, Bn, a0, a1, tri);
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
    if (c->model->config.triplets)
        dar_triplet_allocate(c, r);
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
    if (model->config.triplets)
        dar_triplet_forward(c, r, z);

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

void dar_run_forward(struct dar_group *c, struct dar_run *r, const float *hprev)
{
    net_forward(c, r, hprev);
    heads_forward(c, r);
}
