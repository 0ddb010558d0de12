/* dar_soft.c - soft hints (config.soft_hints, CLRS's soft re-prediction):
 * the hints a run decodes, as the probabilities its heads predicted, for
 * the next step to read in place of their argmax and threshold.  Every
 * entry's schedule keeps them per graph and feeds them where it feeds its
 * own hints (dar_processor.h struct dar_soft_hints); dar_layout.c encodes
 * them and dar_backward.c takes a pointer's gradient back through its
 * softmax. */
#include "dar_processor.h"
#include <math.h>

/* Each row's softmax over width values; a masked logit's probability is 0. */
static void softmax_rows(float *out, const float *logits, int rows, int width)
{
    for (int u = 0; u < rows; u++) {
        const float *row = logits + (int64_t)u * width;
        float *p = out + (int64_t)u * width;
        float top = row[0], sum = 0.0f;
        for (int v = 1; v < width; v++)
            top = row[v] > top ? row[v] : top;
        for (int v = 0; v < width; v++)
            sum += p[v] = expf(row[v] - top);
        for (int v = 0; v < width; v++)
            p[v] /= sum;
    }
}

void dar_soft_hints_update(struct dar_group *c, const struct dar_run *r, int k, struct dar_soft_hints *soft)
{
    const struct dar_graph *dg = c->gd[r->graph[k]].dg;
    int n = dg->g.n;
    for (int q = 0; q < c->alg->nprobes; q++) {
        const struct dar_probe *probe = &c->alg->probes[q];
        int head = r->net->head_of[q];
        if (probe->stage != DAR_STAGE_HINT || head < 0 || !r->net->encodes[q])
            continue;
        const struct dar_head_out *out = &r->head[head];
        switch (probe->type) {
        case DAR_TYPE_MASK:
        case DAR_TYPE_MASK_ONE: {
            bool edge = probe->location == DAR_LOCATION_EDGE;
            int64_t count = edge ? dg->g.m : n;
            const float *logit = out->value + (edge ? r->edge_offset[k] : r->node_offset[k]);
            float *p = soft->value[q] = arena_floats(c->arena, count);
            for (int64_t v = 0; v < count; v++)
                p[v] = 1.0f / (1.0f + expf(-logit[v]));
            break;
        }
        case DAR_TYPE_CATEGORICAL:
            soft->value[q] = arena_floats(c->arena, (int64_t)n * probe->width);
            softmax_rows(soft->value[q], out->value + r->node_offset[k] * probe->width, n, probe->width);
            break;
        case DAR_TYPE_POINTER:
            soft->value[q] = arena_floats(c->arena, (int64_t)n * n);
            soft->grad[q] = c->backward ? out->grad + r->pointer_offset[k] : NULL;
            softmax_rows(soft->value[q], out->value + r->pointer_offset[k], n, n);
            break;
        default:    /* scalars are fed as their values already */
            break;
        }
    }
}

void dar_soft_hints_feed(const struct dar_soft_hints *soft, int probe, struct dar_inputs *in)
{
    if (!soft || !soft->value[probe])
        return;
    in->soft[probe] = soft->value[probe];
    in->grad[probe] = soft->grad[probe];
}
