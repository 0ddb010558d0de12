/* dar_update.c - the node update of CLRS's processors (processors.py, PGN):
 *
 *     h = relu(O1 z + O2 agg)                       the plain update (dar.c)
 *     h = LN(h) · scale + offset                    config.layer_norm (use_ln)
 *     g = σ(G3 relu(G1 z + G2 agg)), G3's bias −3   config.gated
 *     h = h · g + h_prev · (1 − g)
 *
 * with z = [x; h_prev].  The layer norm keeps h's scale from drifting over the
 * rounds a graph runs (a 64-node test graph runs more rounds than any 16-node
 * training graph); the gate lets a node keep its state when nothing reaches
 * it, as a settled node of a shortest-path tree does.  Haiku's LayerNorm: biased
 * variance, eps 1e-5. */
#include "dar_processor.h"
#include "layers.h"
#include <math.h>
#include <string.h>

#define LN_EPS 1e-5f

bool dar_update_extended(const struct dar_model *m)
{
    return m->config.layer_norm || m->config.gated;
}

void dar_update_forward(struct dar_group *c, struct dar_run *r, const float *z, float *o)
{
    const struct dar_net *net = r->net;
    const struct dar_config *cf = &c->model->config;
    int H = c->H;
    int64_t N = r->N;
    relu_forward(o, o, N * H);
    if (c->backward) {
        r->h_relu = arena_floats(c->arena, N * H);
        memcpy(r->h_relu, o, sizeof(float) * (size_t)(N * H));
    }
    if (cf->layer_norm) {
        if (c->backward) {
            r->ln_xhat = arena_floats(c->arena, N * H);
            r->ln_rstd = arena_floats(c->arena, N);
        }
        for (int64_t v = 0; v < N; v++) {
            float *x = o + v * H;
            float mean = 0.0f, var = 0.0f;
            for (int h = 0; h < H; h++)
                mean += x[h];
            mean /= (float)H;
            for (int h = 0; h < H; h++)
                var += (x[h] - mean) * (x[h] - mean);
            var /= (float)H;
            float rstd = 1.0f / sqrtf(var + LN_EPS);
            for (int h = 0; h < H; h++) {
                float xhat = (x[h] - mean) * rstd;
                if (c->backward)
                    r->ln_xhat[v * H + h] = xhat;
                x[h] = xhat * net->ln_scale[h] + net->ln_offset[h];
            }
            if (c->backward)
                r->ln_rstd[v] = rstd;
        }
    }
    if (cf->gated) {
        float *a = arena_floats(c->arena, N * H), *g = arena_floats(c->arena, N * H);
        linear_forward_transposed(a, z, net->g1.weight_t, net->g1.bias, N, 2 * H, H);
        linear_forward_transposed_accumulate(a, r->agg, net->g2.weight_t, net->g2.bias, N, H, H);
        relu_forward(a, a, N * H);
        linear_forward_transposed(g, a, net->g3.weight_t, net->g3.bias, N, H, H);
        if (c->backward) {
            r->h_ungated = arena_floats(c->arena, N * H);
            memcpy(r->h_ungated, o, sizeof(float) * (size_t)(N * H));
        }
        for (int64_t v = 0; v < N; v++) {
            const float *hprev = z + v * 2 * H + H;
            for (int h = 0; h < H; h++) {
                float gate = 1.0f / (1.0f + expf(-g[v * H + h]));
                g[v * H + h] = gate;
                o[v * H + h] = o[v * H + h] * gate + hprev[h] * (1.0f - gate);
            }
        }
        r->gate = g;
        r->gate_in = a;
    }
    for (int64_t v = 0; v < N; v++)
        memcpy(r->hd + v * 3 * H + 2 * H, o + v * H, sizeof(float) * (size_t)H);
}

void dar_update_backward(struct dar_group *c, const struct dar_run *r, const float *dhd, const float *z, float *dz,
                         float *dt, float *dagg)
{
    const struct dar_net *net = r->net;
    const struct dar_config *cf = &c->model->config;
    int H = c->H;
    int64_t N = r->N;
    for (int64_t v = 0; v < N; v++)
        memcpy(dt + v * H, dhd + v * 3 * H + 2 * H, sizeof(float) * (size_t)H);
    if (cf->gated) {
        struct arena_mark mark = arena_mark(c->arena);
        float *dg = arena_floats(c->arena, N * H), *da = arena_zero_floats(c->arena, N * H);
        for (int64_t v = 0; v < N; v++) {
            const float *hprev = z + v * 2 * H + H;
            float *dhprev = dz + v * 2 * H + H;
            for (int h = 0; h < H; h++) {
                int64_t i = v * H + h;
                float gate = r->gate[i], dh = dt[i];
                dg[i] = dh * (r->h_ungated[i] - hprev[h]) * gate * (1.0f - gate);
                dhprev[h] += dh * (1.0f - gate);
                dt[i] = dh * gate;
            }
        }
        linear_backward(da, net->g3.dweight, net->g3.dbias, dg, r->gate_in, net->g3.weight, N, H, H);
        for (int64_t i = 0; i < N * H; i++)
            if (!(r->gate_in[i] > 0.0f))
                da[i] = 0.0f;
        linear_backward(dz, net->g1.dweight, net->g1.dbias, da, z, net->g1.weight, N, 2 * H, H);
        linear_backward(dagg, net->g2.dweight, net->g2.dbias, da, r->agg, net->g2.weight, N, H, H);
        arena_release(c->arena, mark);
    }
    if (cf->layer_norm)
        for (int64_t v = 0; v < N; v++) {
            float *d = dt + v * H;
            const float *xhat = r->ln_xhat + v * H;
            float mean_d = 0.0f, mean_dx = 0.0f;
            for (int h = 0; h < H; h++) {
                net->dln_scale[h] += d[h] * xhat[h];
                net->dln_offset[h] += d[h];
                d[h] *= net->ln_scale[h];
                mean_d += d[h];
                mean_dx += d[h] * xhat[h];
            }
            mean_d /= (float)H;
            mean_dx /= (float)H;
            for (int h = 0; h < H; h++)
                d[h] = r->ln_rstd[v] * (d[h] - mean_d - xhat[h] * mean_dx);
        }
    for (int64_t i = 0; i < N * H; i++)
        if (!(r->h_relu[i] > 0.0f))
            dt[i] = 0.0f;
}
