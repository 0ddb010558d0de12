/* dar_loss.h - the losses from the spec (dar_loss.c; inside common/dar/
 * only): the generic step loss over an entry's loss terms (algorithm.h
 * struct dar_loss_term), the batch normalisers and reported terms an entry
 * with loss terms takes as its row's ops, its check among them.  With
 * the row's phase_nets, a step's losses are those of the network its
 * phase picks (dar_run_phases). */
#ifndef DAR_LOSS_H
#define DAR_LOSS_H
#include "dar_processor.h"

/* The variant of model decodes probe in one of its networks: what "dual"
 * is to an entry (its layout decodes the dual's probes). */
bool dar_variant_decodes(const struct dar_model *model, int probe);

/* Graph k of run r: the loss terms of the heads the run's network decodes,
 * into the group's sums with their gradients into the heads; with hints,
 * the hint heads against frame step + 1 of a hint target (an output
 * target whole); with outputs, the output heads against the graph's
 * outputs (training only). */
void dar_run_losses(struct dar_group *c, const struct dar_run *r, int k, int step, bool hints, bool outputs);

/* For an entry that scores a held output itself (a network's last logits
 * scored again at later steps): the batch's denominator of term t's
 * normaliser, and term t's scale on graph dg, a hint term normalised by
 * the steps of term steps_of. */
double dar_loss_denominator(const struct dar_group *c, int t);
float dar_loss_scale(const struct dar_group *c, int t, int steps_of, const struct dar_graph *dg);

/* The row ops of an entry with loss terms and a step schedule:
 * batch_scales, total_loss, and check (training: the trace loaded; else
 * the number of steps, its first trace key, present). */
struct dar_scales dar_spec_batch_scales(const struct dar_model *model, struct dar_graph *const *graphs, int B,
                                        bool embed_first);
double dar_spec_total_loss(const struct dar_model *model, const double *sum, const struct dar_scales *scales,
                           double *terms);
void dar_spec_check(const struct dar_model *model, struct dar_graph *const *graphs, int B, bool training,
                    int embed);

/* ---- an entry with one network a step, its hints fed back (dar_spec_steps.c) ---- */

/* The start of an entry's per-graph state: the constant inputs, and the
 * hints the next step reads (the predictions' frames are copies of them);
 * NULL: not fed (a hint with no value before the first step). */
struct dar_spec_state {
    const void *input[DAR_MAX_PROBES];
    void *hint[DAR_MAX_PROBES];
};

/* The row's `schedule`: what dar_spec_run_group asks of the entry.
 * dual is whether the variant decodes dual_probe. */
struct dar_spec_schedule {
    size_t state_size;          /* the entry's state, a struct dar_spec_state first */
    int dual_probe;
    int forced_by;              /* the trace key teacher forcing needs loaded */
    /* graph b's state before the first step (zeroed) */
    void (*init)(struct dar_group *c, int b, void *state);
    /* the state from graph k's decoded heads of run r */
    void (*update)(struct dar_group *c, const struct dar_run *r, int k, void *state, bool dual);
    /* the predicted outputs at graph k's last step of run r (c->pred set) */
    void (*outputs)(struct dar_group *c, const struct dar_run *r, int k, bool dual);
};

/* The row op run_group of such an entry: its state, no-algo's recurrent
 * network or the steps (dar_run_steps), the losses from the row's loss
 * terms, the predicted hints' frames and outputs. */
void dar_spec_run_group(struct dar_group *c);

#endif
