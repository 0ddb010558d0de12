/* algo_min_cost_flow.h - the min-cost flow entry of the algorithm registry
 * (algorithm.h): the minimum-cost maximum flow by successive shortest paths
 * with node potentials (common/flow/mincost.h); the primal is the flow, the
 * dual the potentials pi, whose reduced costs certify the cost as the cut
 * certifies max-flow's value.  Its probes by index, for its own files and
 * the tests. */
#ifndef DAR_ALGO_MIN_COST_FLOW_H
#define DAR_ALGO_MIN_COST_FLOW_H
#include "dar.h"

/* The probes, in the order of the encoders' parameters. */
enum mcf_probe {
    MCF_POS,            /* input, node scalar v/n */
    MCF_S,              /* input s: node mask_one */
    MCF_T,              /* input t: node mask_one */
    MCF_CAP,            /* input cap: edge scalar, bounds the flows */
    MCF_COST,           /* input cost: edge scalar, per unit of flow */
    MCF_REACHED,        /* hint_reached: node mask, the round's search reached the node */
    MCF_DISTANCE,       /* hint_distance: node scalar, reduced distance from s (0 where unreached) */
    MCF_PTR,            /* hint_pi: node pointer, the shortest-path tree */
    MCF_POTENTIAL,      /* hint_potential: node scalar (the dual's hint) */
    MCF_FLOW,           /* hint_flow: edge bounded_antisymmetric by cap */
    MCF_FLOW_OUT,       /* output flow: edge bounded_antisymmetric by cap */
    MCF_POTENTIAL_OUT,  /* output potential: node scalar (the dual) */
    MCF_PROBES
};

/* The loss terms, in struct dar_losses and the training curve. */
enum mcf_loss { MCF_LOSS_REACHED, MCF_LOSS_DISTANCE, MCF_LOSS_PI, MCF_LOSS_POTENTIAL_HINT, MCF_LOSS_FLOW_HINT,
                MCF_LOSS_FLOW, MCF_LOSS_POTENTIAL, MCF_LOSSES };

extern const struct dar_algorithm dar_algorithm_min_cost_flow;

/* The schedule (algo_min_cost_flow_model.c), for the entry's table. */
void mcf_run_group(struct dar_group *c);

#endif
