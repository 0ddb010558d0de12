/* dar_layout.c - graphs and runs laid out for the processor (formats/model.md
 * §1): a group's graph as the arcs the processor sends messages on (PGN: both
 * directions of each edge and a self-loop per node; MPNN: every ordered
 * pair), its edge inputs summed onto those arcs; a run's graphs one after
 * another at compact offsets; and a run's node and arc features from the
 * probe values an entry hands it (dar_processor.h).  The forward and
 * backward passes (dar_forward.c, dar_backward.c) read what is laid out
 * here. */
#include "dar.h"
#include "dar_processor.h"
#include "dar_internal.h"
#include "arena.h"
#include "die.h"
#include "layers.h"
#include <string.h>

/* ---- graphs laid out for the processor ------------------------------------- */

void dar_prepare_graph(struct dar_group *c, struct dar_graph_layout *gd, const struct dar_graph *dg)
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
                    f[j] = in->soft[p] ? in->soft[p][(int64_t)v * probe->width + j]
                           : values    ? (((const uint8_t *)values)[v] == j)
                                       : 0.0f;
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
     * for an antisymmetric probe; a soft mask its probabilities */
    for (int col = 0; col < narc; col++) {
        int p = model->arc_probe[col];
        const struct dar_probe *probe = &alg->probes[p];
        if (probe->location != DAR_LOCATION_EDGE || probe->stage == DAR_STAGE_INPUT ||
            (!in->probe[p] && !in->soft[p]))
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
            float x = in->soft[p]                     ? in->soft[p][e]
                      : probe->type == DAR_TYPE_SCALAR ? ((const float *)in->probe[p])[e]
                                                       : ((const uint8_t *)in->probe[p])[e];
            arc[(int64_t)gd->arc_fwd[e] * narc + col] += x;
            arc[(int64_t)gd->arc_bwd[e] * narc + col] += x;
        }
    }
}
