/* dar_loss.c - the losses from the spec (dar_processor.h): an entry's loss
 * terms (algorithm.h struct dar_loss_term) walked over the heads a run's
 * network decodes, by the probe's type and location, the batch's
 * normalisers and the reported terms; and the check of an entry with a
 * step schedule (its trace loaded, its number of steps).
 * The entry gives the targets and the normalisers; buffers, offsets and
 * loss functions come from the probe table. */
#include "dar_loss.h"
#include "die.h"
#include <string.h>

/* The batch's counts the normalisers divide by, in struct dar_scales. */
struct spec_scales {
    double hints;               /* DAR_NORM_HINT terms the variant decodes */
    double count_steps;         /* Σ_b (T_b − 1): (graph, step) pairs scored */
    double sum[2];              /* Σ_b n, Σ_b m (by enum dar_location) */
    double steps[2];            /* Σ_b n (T_b − 1), Σ_b m (T_b − 1) */
};
_Static_assert(sizeof(struct spec_scales) <= sizeof(struct dar_scales), "struct dar_scales is too small");

static bool layout_decodes(const struct dar_layout *L, int probe)
{
    for (int j = 0; j < L->nnets; j++)
        for (int d = 0; d < L->nets[j].ndecoders; d++)
            if (L->nets[j].decoders[d] == probe)
                return true;
    return false;
}

bool dar_variant_decodes(const struct dar_model *model, int probe)
{
    return layout_decodes(&model->config.algorithm->layouts[model->config.variant], probe);
}

struct dar_scales dar_spec_batch_scales(const struct dar_model *model, struct dar_graph *const *graphs, int B,
                                        bool embed_first)
{
    (void)embed_first;
    const struct dar_algorithm *alg = model->config.algorithm;
    struct spec_scales sc = {0};
    for (int t = 0; t < alg->nlosses; t++)
        if (alg->loss_terms[t].norm == DAR_NORM_HINT && dar_variant_decodes(model, alg->loss_terms[t].head))
            sc.hints++;
    for (int b = 0; b < B; b++) {
        const struct dar_graph *g = graphs[b];
        sc.sum[DAR_LOCATION_NODE] += g->g.n;
        sc.sum[DAR_LOCATION_EDGE] += g->g.m;
        sc.count_steps += g->steps - 1;
        sc.steps[DAR_LOCATION_NODE] += (double)g->g.n * (g->steps - 1);
        sc.steps[DAR_LOCATION_EDGE] += (double)g->g.m * (g->steps - 1);
    }
    struct dar_scales out = {{0}};
    memcpy(&out, &sc, sizeof sc);
    return out;
}

double dar_spec_total_loss(const struct dar_model *model, const double *sum, const struct dar_scales *scales,
                           double *terms)
{
    const struct dar_algorithm *alg = model->config.algorithm;
    struct spec_scales sc;
    memcpy(&sc, scales, sizeof sc);
    double total = 0;
    for (int t = 0; t < alg->nlosses; t++) {
        terms[t] = alg->loss_terms[t].norm == DAR_NORM_HINT ? sum[t] * sc.hints : sum[t];
        total += sum[t];
    }
    return total;
}

/* A probe's values for one graph: nodes or edges. */
static int probe_count(const struct dar_probe *p, const struct dar_graph *dg)
{
    return p->location == DAR_LOCATION_EDGE ? dg->g.m : dg->g.n;
}

/* Bytes of one value of a probe of this type in a graph's probe[]. */
static size_t value_size(enum dar_type type)
{
    return type == DAR_TYPE_MASK || type == DAR_TYPE_MASK_ONE ? 1 : 4;
}

/* Where graph k's values of a head of this probe start in the run's buffers. */
static int64_t head_offset(const struct dar_run *r, int k, const struct dar_probe *p)
{
    if (p->type == DAR_TYPE_POINTER)
        return r->pointer_offset[k];
    if (p->location == DAR_LOCATION_EDGE)
        return r->edge_offset[k];
    return r->node_offset[k] * p->width;
}

static float term_scale(const struct spec_scales *sc, enum dar_norm norm, enum dar_location loc, int count)
{
    switch (norm) {
    case DAR_NORM_HINT:
        return (float)(1.0 / (count * sc->count_steps * sc->hints));
    case DAR_NORM_STEPS:
        return (float)(1.0 / sc->steps[loc]);
    default:
        return (float)(1.0 / sc->sum[loc]);
    }
}

/* Term t of graph k on head h of run r (step: the frame of a hint target). */
static void term_loss(struct dar_group *c, const struct dar_run *r, int k, int step, int t,
                      const struct dar_head_out *h)
{
    const struct dar_algorithm *alg = c->alg;
    const struct dar_loss_term *term = &alg->loss_terms[t];
    const struct dar_probe *head = &alg->probes[term->head], *target = &alg->probes[term->target];
    const struct dar_graph *dg = c->gd[r->graph[k]].dg;
    int count = probe_count(head, dg);
    const char *values = dg->probe[term->target];
    if (!values || count == 0)
        return;
    if (target->stage == DAR_STAGE_HINT)
        values += (size_t)(step + 1) * (size_t)probe_count(target, dg) * value_size(target->type);
    struct spec_scales sc;
    memcpy(&sc, &c->scales, sizeof sc);
    int64_t at = head_offset(r, k, head);
    c->sum[t] += dar_probe_loss(c, head->type, head->width, c->backward ? h->grad + at : NULL, h->value + at,
                                values, term_scale(&sc, term->norm, head->location, count), count);
}

void dar_run_losses(struct dar_group *c, const struct dar_run *r, int k, int step, bool hints, bool outputs)
{
    const struct dar_algorithm *alg = c->alg;
    const struct dar_network *spec = &alg->layouts[c->variant].nets[r->net - c->model->nets];
    for (int d = 0; d < spec->ndecoders; d++) {
        int p = spec->decoders[d];
        bool hint = alg->probes[p].stage == DAR_STAGE_HINT;
        if (hint ? !hints : !outputs)
            continue;
        for (int t = 0; t < alg->nlosses; t++)
            if (alg->loss_terms[t].head == p)
                term_loss(c, r, k, step, t, &r->head[r->net->head_of[p]]);
    }
}

/* ---- the checks ------------------------------------------------------------------ */

void dar_spec_check(const struct dar_model *model, struct dar_graph *const *graphs, int B, bool training,
                    int embed)
{
    (void)embed;
    const struct dar_algorithm *alg = model->config.algorithm;
    for (int b = 0; b < B; b++) {
        const struct dar_graph *g = graphs[b];
        if (!training) {
            if (!g->phase)
                die_record_in(g->source, g->record, "missing key '%s' (the model runs the trace's number of "
                              "steps; run ff-trace --algorithm %s first)", alg->trace_keys[0], alg->name);
            continue;
        }
        bool loaded = g->phase != NULL;
        for (int p = 0; p < alg->nprobes && loaded; p++) {
            const struct dar_probe *probe = &alg->probes[p];
            bool needed = probe->key && probe->decoder &&
                          (probe->stage == DAR_STAGE_OUTPUT || dar_variant_decodes(model, p));
            loaded = !needed || g->probe[p];
        }
        if (!loaded)
            die(EX_SOFTWARE, "BUG: graph of record %ld loaded without its trace", g->record);
    }
}
