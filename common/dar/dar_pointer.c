/* dar_pointer.c - the edge pointer head (config.edge_pointer): the parent
 * of node u scored among u's neighbours and u itself, each candidate v from
 * both nodes' decoder inputs and the arc u->v's features,
 *
 *     logit(u->v) = d4 · max(p1_u, p2_v + d3·e_uv) + b4,
 *
 * p1 = d1·hd, p2 = d2·hd (the fused product's columns), e_uv = Σ_c f_c a_c
 * the arc's encoded inputs (through the products d3·a_c, as Me·a_c), max
 * elementwise.  This is CLRS's pointer decoder (decoders.py) restricted to
 * the arcs of the graph: a dot product p1_u·p2_v over every node cannot see
 * the weight of the edge to its candidate, which for shortest paths is the
 * whole question, and names non-neighbours no tree can use.  The logits stay
 * an n×n row per node, the other entries POINTER_MASKED, so the losses,
 * predictions and argmax of the dot head read them unchanged. */
#include "dar_processor.h"
#include "arena.h"
#include <string.h>

/* exp of it minus any real logit is 0 in float: a masked entry takes no
 * probability and no gradient */
#define POINTER_MASKED (-1.0e9f)

void dar_edge_pointer_arcs(struct dar_group *c, struct dar_graph_layout *gd)
{
    int n = gd->n;
    bool pgn = c->model->config.processor == DAR_PGN;
    int32_t *list = arena_alloc(c->arena, sizeof(int32_t) * (size_t)(gd->A + 1));
    int64_t count = 0;
    struct arena_mark mark = arena_mark(c->arena);
    uint8_t *seen = arena_zero(c->arena, (size_t)n * (size_t)n + 1);
    /* the first arc of each (u, v) pair: PGN's arcs are the graph's edges
     * and the self-loops; MPNN's are every pair, of which the self-loops and
     * the edges' arcs count */
    for (int64_t a = 0; a < gd->A; a++) {
        int u = gd->send[a], v = gd->recv[a];
        if ((pgn || u == v) && !seen[(int64_t)u * n + v]) {
            seen[(int64_t)u * n + v] = 1;
            list[count++] = (int32_t)a;
        }
    }
    for (int e = 0; !pgn && e < gd->m; e++)
        for (int side = 0; side < 2; side++) {
            int32_t a = side ? gd->arc_bwd[e] : gd->arc_fwd[e];
            int u = gd->send[a], v = gd->recv[a];
            if (!seen[(int64_t)u * n + v]) {
                seen[(int64_t)u * n + v] = 1;
                list[count++] = a;
            }
        }
    arena_release(c->arena, mark);
    gd->pointer_arc = list;
    gd->npointer = count;
}

/* e = p2_v + Σ_c f_c kp_c over the columns the network encodes */
static void candidate_row(float *e, const float *p2v, const float *f, float *const *kp, const bool *use, int narc,
                          int H)
{
    memcpy(e, p2v, sizeof(float) * (size_t)H);
    for (int col = 0; col < narc; col++)
        if (use[col] && f[col] != 0.0f)
            for (int h = 0; h < H; h++)
                e[h] += f[col] * kp[col][h];
}

static void encoded_columns(const struct dar_group *c, const struct dar_net *net, bool *use)
{
    for (int col = 0; col < c->model->narc; col++)
        use[col] = net->encodes[c->model->arc_probe[col]];
}

void dar_edge_pointer_forward(struct dar_group *c, const struct dar_run *r, int head, struct dar_head_out *o)
{
    const struct dar_net *net = r->net;
    const struct dar_netcache *nc = &c->nc[net - c->model->nets];
    const struct dar_linear *d4 = &net->heads[head].linear[3];
    int H = c->H, narc = c->model->narc;
    bool use[DAR_MAX_PROBES];
    encoded_columns(c, net, use);
    struct arena_mark mark = arena_mark(c->arena);
    float *e = arena_floats(c->arena, H);
    for (int k = 0; k < r->ngraphs; k++) {
        const struct dar_graph_layout *gd = &c->gd[r->graph[k]];
        int n = gd->n;
        float *logits = o->value + r->pointer_offset[k];
        for (int64_t i = 0; i < (int64_t)n * n; i++)
            logits[i] = POINTER_MASKED;
        const float *p1 = o->p1 + r->node_offset[k] * H, *p2 = o->p2 + r->node_offset[k] * H;
        const float *arc = r->arc + r->arc_offset[k] * narc;
        for (int64_t i = 0; i < gd->npointer; i++) {
            int64_t a = gd->pointer_arc[i];
            int u = gd->send[a], v = gd->recv[a];
            candidate_row(e, p2 + (int64_t)v * H, arc + a * narc, nc->kp[head], use, narc, H);
            const float *x = p1 + (int64_t)u * H;
            float s = d4->bias[0];
            for (int h = 0; h < H; h++)
                s += d4->weight[h] * (x[h] >= e[h] ? x[h] : e[h]);
            logits[(int64_t)u * n + v] = s;
        }
    }
    arena_release(c->arena, mark);
}

void dar_edge_pointer_backward(struct dar_group *c, const struct dar_run *r, int head,
                               const struct dar_head_out *o, float *dp1, float *dp2, float *const *darc)
{
    const struct dar_net *net = r->net;
    struct dar_netcache *nc = &c->nc[net - c->model->nets];
    const struct dar_linear *d4 = &net->heads[head].linear[3];
    int H = c->H, narc = c->model->narc;
    bool use[DAR_MAX_PROBES];
    encoded_columns(c, net, use);
    struct arena_mark mark = arena_mark(c->arena);
    float *e = arena_floats(c->arena, H);
    for (int k = 0; k < r->ngraphs; k++) {
        const struct dar_graph_layout *gd = &c->gd[r->graph[k]];
        int n = gd->n;
        const float *grad = o->grad + r->pointer_offset[k];
        const float *p1 = o->p1 + r->node_offset[k] * H, *p2 = o->p2 + r->node_offset[k] * H;
        float *g1 = dp1 + r->node_offset[k] * H, *g2 = dp2 + r->node_offset[k] * H;
        const float *arc = r->arc + r->arc_offset[k] * narc;
        for (int64_t i = 0; i < gd->npointer; i++) {
            int64_t a = gd->pointer_arc[i];
            int u = gd->send[a], v = gd->recv[a];
            float g = grad[(int64_t)u * n + v];
            if (g == 0.0f)
                continue;
            const float *f = arc + a * narc;
            candidate_row(e, p2 + (int64_t)v * H, f, nc->kp[head], use, narc, H);
            const float *x = p1 + (int64_t)u * H;
            d4->dbias[0] += g;
            for (int h = 0; h < H; h++) {
                float dm = g * d4->weight[h];
                if (x[h] >= e[h]) {
                    d4->dweight[h] += g * x[h];
                    g1[(int64_t)u * H + h] += dm;
                } else {
                    d4->dweight[h] += g * e[h];
                    g2[(int64_t)v * H + h] += dm;
                    for (int col = 0; col < narc; col++)
                        if (use[col] && f[col] != 0.0f)
                            nc->dkp[head][col][h] += f[col] * dm;
                    for (int col = 0; col < narc; col++)
                        if (use[col] && darc[col])
                            darc[col][r->arc_offset[k] + a] += dm * nc->kp[head][col][h];
                }
            }
        }
    }
    arena_release(c->arena, mark);
}

/* One arc column of one edge pointer head: its product kp = d3 · a with
 * the column's encoder a (forward), or kp's gradient into d3 and a. */
static void column_product(struct dar_group *c, const struct dar_net *net, struct dar_netcache *nc, int hd,
                           int col, bool backward)
{
    int H = c->H, p = c->model->arc_probe[col];
    const struct dar_linear *d3 = &net->heads[hd].linear[2];
    if (!backward) {
        nc->kp[hd][col] = arena_zero_floats(c->arena, H);
        nc->dkp[hd][col] = arena_zero_floats(c->arena, H);
    }
    if (!net->encodes[p])
        return;
    const float *a = net->enc[p];
    for (int o = 0; o < H; o++) {
        const float *w = d3->weight + (int64_t)o * H;
        if (!backward) {
            float s = 0.0f;
            for (int h = 0; h < H; h++)
                s += w[h] * a[h];
            nc->kp[hd][col][o] = s;
            continue;
        }
        float dk = nc->dkp[hd][col][o], *dw = d3->dweight + (int64_t)o * H, *da = net->denc[p];
        for (int h = 0; h < H; h++) {
            dw[h] += dk * a[h];
            da[h] += dk * w[h];
        }
    }
}

/* Every edge pointer head's columns, once per call (forward) or after every
 * run's backward. */
static void products(struct dar_group *c, bool backward)
{
    const struct dar_model *model = c->model;
    if (!model->config.edge_pointer)
        return;
    for (int j = 0; j < model->nnets; j++)
        for (int hd = 0; hd < model->nets[j].nheads; hd++)
            if (model->nets[j].heads[hd].type == DAR_TYPE_POINTER)
                for (int col = 0; col < model->narc; col++)
                    column_product(c, &model->nets[j], &c->nc[j], hd, col, backward);
}

void dar_edge_pointer_products(struct dar_group *c) { products(c, false); }

void dar_edge_pointer_products_backward(struct dar_group *c) { products(c, true); }
