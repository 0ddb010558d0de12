/* algo_shortest_paths.h - the shortest-paths entry of the algorithm registry
 * (algorithm.h): synchronous Bellman-Ford rounds from s (common/algos/
 * bellman_ford.h); the primal is the shortest-path tree pi, the dual the LP
 * potentials d.  Its probes by index, for its own files and the tests. */
#ifndef DAR_ALGO_SHORTEST_PATHS_H
#define DAR_ALGO_SHORTEST_PATHS_H
#include "dar.h"
#include "metric_row.h"

/* The probes, in the order of the encoders' parameters. */
enum sp_probe {
    SP_POS,         /* input, node scalar v/n */
    SP_S,           /* input s: node mask_one */
    SP_W,           /* input w: edge scalar, the weights */
    SP_REACHED,     /* hint_reached: node mask */
    SP_D,           /* hint_d: node scalar (the dual's hint) */
    SP_PI,          /* hint_pi: node pointer */
    SP_PI_OUT,      /* output pi: node pointer, the tree (primal) */
    SP_D_OUT,       /* output d: node scalar, the potentials (dual) */
    SP_PROBES
};

/* The loss terms, in struct dar_losses and the training curve. */
enum sp_loss { SP_LOSS_REACHED, SP_LOSS_PI_HINT, SP_LOSS_D_HINT, SP_LOSS_PI, SP_LOSS_D, SP_LOSSES };

extern const struct dar_algorithm dar_algorithm_shortest_paths;
/* Its metric rows (algo_shortest_paths_metrics.c), ending with a row without a name. */
extern const struct metric_row shortest_paths_metrics[];

/* The schedule (algo_shortest_paths_model.c), for the entry's table. */
extern const struct dar_spec_schedule sp_schedule;

#endif
