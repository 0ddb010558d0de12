/* algo_vertex_cover.h - the vertex-cover entry of the algorithm registry
 * (algorithm.h): PDNAR's primal-dual rounds with uniform increases
 * (common/algos/vertex_cover.h); the primal is the cover (node mask), the
 * dual the edge packing y (edge scalar).  Its probes by index, for its own
 * files and the tests. */
#ifndef DAR_ALGO_VERTEX_COVER_H
#define DAR_ALGO_VERTEX_COVER_H
#include "dar.h"
#include "metric_row.h"

/* The probes, in the order of the encoders' parameters. */
enum vc_probe {
    VC_W,           /* input node_w: node scalar */
    VC_RESIDUAL,    /* hint_residual: node scalar r */
    VC_IN_COVER,    /* hint_in_cover: node mask */
    VC_LIVE,        /* hint_live: edge mask (an input of the next round: derived from in-cover) */
    VC_DELTA,       /* hint_delta: edge scalar, the round's increments (the dual's hint) */
    VC_COVER,       /* output cover: node mask (primal) */
    VC_PACKING,     /* output packing: edge scalar y (dual) */
    VC_OPT,         /* opt_cover: node mask, the optimum (gen-graphs --optimum): when the training
                       records carry it, the "+opt" loss scores the cover head against it too */
    VC_PROBES
};

/* The loss terms, in struct dar_losses and the training curve. */
enum vc_loss { VC_LOSS_RESIDUAL, VC_LOSS_IN_COVER, VC_LOSS_DELTA, VC_LOSS_COVER, VC_LOSS_PACKING, VC_LOSS_OPT,
               VC_LOSSES };

extern const struct dar_algorithm dar_algorithm_vertex_cover;
/* Its metric rows (algo_vertex_cover_metrics.c), ending with a row without a name. */
extern const struct metric_row vertex_cover_metrics[];

/* The schedule (algo_vertex_cover_model.c), for the entry's table. */
extern const struct dar_spec_schedule vc_schedule;

/* Its repair (algo_vertex_cover_repair.c; cover-fix): the options by index
 * and the op of the row. */
enum vc_repair_option { VC_REPAIR_KEY, VC_REPAIR_DUAL_KEY, VC_REPAIR_THRESHOLD, VC_REPAIR_COMPLETE,
                        VC_REPAIR_OPTIONS };
extern const struct dar_repair_option vc_repair_options[VC_REPAIR_OPTIONS];
void vc_repair(struct writer *w, const struct record *rec, const union dar_repair_value *options);

#endif
