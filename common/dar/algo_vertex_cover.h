/* algo_vertex_cover.h - the vertex-cover entry of the algorithm registry
 * (algorithm.h): PDNAR's primal-dual rounds with uniform increases
 * (common/algos/vertex_cover.h); the primal is the cover (node mask), the
 * dual the edge packing y (edge scalar).  Its probes by index, for its own
 * files and the tests. */
#ifndef DAR_ALGO_VERTEX_COVER_H
#define DAR_ALGO_VERTEX_COVER_H
#include "dar.h"

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

/* The schedule (algo_vertex_cover_model.c), for the entry's table. */
void vc_run_group(struct dar_group *c);

#endif
