/* algo_matching.h - the bipartite matching entry of the algorithm registry
 * (algorithm.h): Ford-Fulkerson with BFS augmenting paths on the unit
 * network s->A->B->t (common/algos/matching.h, as Georgiev & Lio learn it);
 * the primal is the matching (an edge mask), the dual the Konig cover (a
 * node mask).  Its probes by index, for its own files and the tests.
 *
 * The model's frames: frame 0 is the state before any search (the free A
 * nodes reached from s, pointers to themselves, no edge matched), frame
 * k + 1 the trace's frame k (search k's reached set and BFS parents, the
 * matching after its augmentation); a graph with T searches runs T steps.
 *
 * The layered trace (hint_phase) has a frame per BFS layer and per
 * augmentation; frame 0 is then its first frame's state too (search 0's
 * layer 0), and a phased model (dar.h config.phased) is told each step's
 * kind.  A graph's dg->phase holds the trace's hint_phase, step i's at i
 * (so a layered graph's starts with 0); a one-frame graph's is all 1. */
#ifndef DAR_ALGO_MATCHING_H
#define DAR_ALGO_MATCHING_H
#include "dar.h"
#include "metric_row.h"

/* The probes, in the order of the encoders' parameters. */
enum match_probe {
    MATCH_POS,          /* input, node scalar v/n */
    MATCH_SIDE,         /* input side: node mask, 1 on side B */
    MATCH_REACHED,      /* hint_reached: node mask */
    MATCH_COVER,        /* the dual's hint: node mask; its target is the final cover */
    MATCH_PI,           /* hint_pi: node pointer */
    MATCH_MATCHED,      /* hint_match: edge mask, the matching so far */
    MATCH_MATCH_OUT,    /* output match: edge mask, the maximum matching (primal) */
    MATCH_COVER_OUT,    /* output cover: node mask, the Konig cover (dual) */
    /* a phased model's inputs (the layered trace, ff-trace --bfs-layers):
     * the kind of step, from hint_phase; one a step, on every node */
    MATCH_START,        /* input, node mask: the step is a search's layer 0 */
    MATCH_AUGMENT,      /* input, node mask: the step is an augmentation */
    MATCH_PROBES
};

/* The loss terms, in struct dar_losses and the training curve. */
enum match_loss { MATCH_LOSS_REACHED, MATCH_LOSS_PI_HINT, MATCH_LOSS_MATCH_HINT, MATCH_LOSS_COVER_HINT,
                  MATCH_LOSS_MATCH, MATCH_LOSS_COVER, MATCH_LOSSES };

extern const struct dar_algorithm dar_algorithm_matching;
/* Its metric rows (algo_matching_metrics.c), ending with a row without a name. */
extern const struct metric_row matching_metrics[];

/* The schedule (algo_matching_model.c), for the entry's table. */
extern const struct dar_spec_schedule match_schedule;
/* Whether graph dg carries the layered trace (its first step a search
 * layer), the row's phased_graph. */
bool match_layered(const struct dar_graph *dg);

/* Its repair (algo_matching_repair.c; match-fix): the options by index and
 * the op of the row. */
enum match_repair_option { MATCH_REPAIR_THRESHOLD, MATCH_REPAIR_OPTIONS };
extern const struct dar_repair_option match_repair_options[MATCH_REPAIR_OPTIONS];
void match_repair(struct writer *w, const struct record *rec, const union dar_repair_value *options);

#endif
