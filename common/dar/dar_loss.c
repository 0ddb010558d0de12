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

/* The batch's denominator of each term's normaliser, in struct dar_scales:
 * DAR_NORM_HINT the (graph, step) pairs it is scored at; DAR_NORM_STEPS
 * Σ_b count_b (T_b − 1); DAR_NORM_BATCH Σ_b count_b. */
struct spec_scales {
    double denominator[DAR_MAX_LOSSES];
};
_Static_assert(sizeof(struct spec_scales) <= sizeof(struct dar_scales), "struct dar_scales is too small");

static bool network_decodes(const struct dar_network *net, int probe)
{
    for (int d = 0; d < net->ndecoders; d++)
        if (net->decoders[d] == probe)
            return true;
    return false;
}

static bool layout_decodes(const struct dar_layout *L, int probe)
{
    for (int j = 0; j < L->nnets; j++)
        if (network_decodes(&L->nets[j], probe))
            return true;
    return false;
}

bool dar_variant_decodes(const struct dar_model *model, int probe)
{
    return layout_decodes(&model->config.algorithm->layouts[model->config.variant], probe);
}

/* The hint terms the variant scores: those whose head it decodes, and
 * those whose target an earlier network decodes in the head's place, its
 * output held (a pipeline whose network that runs first decodes the
 * dual, which the later steps hold). */
static double hint_terms(const struct dar_model *model)
{
    const struct dar_algorithm *alg = model->config.algorithm;
    double hints = 0;
    for (int t = 0; t < alg->nlosses; t++) {
        const struct dar_loss_term *term = &alg->loss_terms[t];
        if (term->norm == DAR_NORM_HINT &&
            (dar_variant_decodes(model, term->head) || dar_variant_decodes(model, term->target)))
            hints++;
    }
    return hints;
}

/* The values of a probe a normaliser counts in one graph: its nodes or
 * edges; a bounded antisymmetric edge probe its adjacency's 2m + n
 * entries halved (each arc holds its pair). */
static double norm_count(const struct dar_probe *p, const struct dar_graph *dg)
{
    if (p->location != DAR_LOCATION_EDGE)
        return dg->g.n;
    return p->type == DAR_TYPE_BOUNDED_ANTISYMMETRIC ? dg->g.m + dg->g.n / 2.0 : dg->g.m;
}

/* The network the steps of each phase flag run their losses on (net[1]
 * hint_phase 1, net[0] 0; by the row's phase_nets): -1 where the entry
 * runs one network a step. */
static void phase_networks(const struct dar_model *model, int net[2])
{
    const char *const *names = model->config.algorithm->phase_nets;
    net[1] = names[0] ? dar_net_index(model, names[0]) : -1;
    net[0] = names[0] ? dar_net_index(model, names[1]) : -1;
}

struct dar_scales dar_spec_batch_scales(const struct dar_model *model, struct dar_graph *const *graphs, int B,
                                        bool embed_first)
{
    static const uint8_t first_step_phase[2] = {0, 1};
    const struct dar_algorithm *alg = model->config.algorithm;
    const struct dar_layout *L = &alg->layouts[model->config.variant];
    struct spec_scales sc = {{0}};
    int net[2];
    phase_networks(model, net);
    for (int b = 0; b < B; b++) {
        const struct dar_graph *g = graphs[b];
        int T = embed_first ? 2 : g->steps;
        const uint8_t *phase = embed_first ? first_step_phase : g->phase;
        for (int t = 0; t < alg->nlosses; t++) {
            const struct dar_loss_term *term = &alg->loss_terms[t];
            double count = norm_count(&alg->probes[term->head], g);
            switch (term->norm) {
            case DAR_NORM_HINT:
                for (int i = 0; i + 1 < T; i++) {
                    int j = net[phase[i] != 0];
                    sc.denominator[t] += j < 0 || network_decodes(&L->nets[j], term->head);
                }
                break;
            case DAR_NORM_STEPS:
                sc.denominator[t] += count * (T - 1);
                break;
            default:
                sc.denominator[t] += count;
            }
        }
    }
    struct dar_scales out = {{0}};
    memcpy(&out, &sc, sizeof sc);
    return out;
}

double dar_spec_total_loss(const struct dar_model *model, const double *sum, const struct dar_scales *scales,
                           double *terms)
{
    (void)scales;
    const struct dar_algorithm *alg = model->config.algorithm;
    double hints = hint_terms(model);
    double total = 0;
    for (int t = 0; t < alg->nlosses; t++) {
        terms[t] = alg->loss_terms[t].norm == DAR_NORM_HINT ? sum[t] * hints : sum[t];
        total += sum[t];
    }
    return total;
}

/* A probe's values for one graph: nodes or edges. */
static int probe_count(const struct dar_probe *p, const struct dar_graph *dg)
{
    return p->location == DAR_LOCATION_EDGE ? dg->g.m : dg->g.n;
}

/* Bytes of one value of a probe of this type in a graph's probe[]
 * (categorical values are class indices, one byte). */
static size_t value_size(enum dar_type type)
{
    return type == DAR_TYPE_MASK || type == DAR_TYPE_MASK_ONE || type == DAR_TYPE_CATEGORICAL ? 1 : 4;
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

double dar_loss_denominator(const struct dar_group *c, int t)
{
    struct spec_scales sc;
    memcpy(&sc, &c->scales, sizeof sc);
    return sc.denominator[t];
}

float dar_loss_scale(const struct dar_group *c, int t, int steps_of, const struct dar_graph *dg)
{
    const struct dar_loss_term *term = &c->alg->loss_terms[t];
    if (term->norm != DAR_NORM_HINT)
        return (float)(1.0 / dar_loss_denominator(c, t));
    double count = norm_count(&c->alg->probes[term->head], dg);
    return (float)(1.0 / (count * dar_loss_denominator(c, steps_of) * hint_terms(c->model)));
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
    const void *values = dg->probe[term->target];
    if (!values || count == 0)
        return;
    if (target->stage == DAR_STAGE_HINT)
        values = (const char *)values + (size_t)(step + 1) * (size_t)probe_count(target, dg) * value_size(target->type);
    struct arena_mark mark = arena_mark(c->arena);
    if (target->type == DAR_TYPE_CATEGORICAL) {     /* the loss takes the classes as int32 */
        int32_t *classes = arena_zero(c->arena, sizeof(int32_t) * (size_t)count);
        for (int v = 0; v < count; v++)
            classes[v] = ((const uint8_t *)values)[v];
        values = classes;
    }
    int64_t at = head_offset(r, k, head);
    c->sum[t] += dar_probe_loss(c, head->type, head->width, c->backward ? h->grad + at : NULL, h->value + at,
                                values, dar_loss_scale(c, t, t, dg), count);
    arena_release(c->arena, mark);
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
