/* dar_backward.c - one network's backward pass on a run, written by hand
 * (formats/model.md §2, §5): the heads by probe type from the gradients the
 * loss code left in them, the carried h's gradient, the update, the
 * aggregate and messages, the node encoders, the gradients of antisymmetric
 * edge inputs back to the predictions they came from, and, once per call,
 * the rank-4 products' gradients into Me, q3 and the arc encoders.  The
 * mirror of dar_forward.c, function for function. */
#include "dar.h"
#include "dar_processor.h"
#include "dar_internal.h"
#include "arena.h"
#include "rows.h"
#include "layers.h"
#include <string.h>

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
    if (c->model->config.triplets)
        dar_triplet_backward(c, r, dpre, z, dz, darc);
    encoders_backward(c, r, dz);
    if (produce_carry)
        carry_gradient_out(c, r, dz);
    inputs_backward(c, r, darc);
    arena_release(c->arena, mark);
}

/* After every run's backward: the rank-4 products' gradients into Me, q3
 * and the arc encoders. */
void dar_netcache_backward(struct dar_group *c)
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
