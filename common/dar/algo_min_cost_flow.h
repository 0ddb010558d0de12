/* algo_min_cost_flow.h - the min-cost flow entry of the algorithm registry
 * (algorithm.h): the minimum-cost maximum flow by successive shortest paths
 * with node potentials (common/flow/mincost.h); the primal is the flow, the
 * dual the potentials pi, whose reduced costs certify the cost as the cut
 * certifies max-flow's value.  Its probes by index, for its own files and
 * the tests. */
#ifndef DAR_ALGO_MIN_COST_FLOW_H
#define DAR_ALGO_MIN_COST_FLOW_H
#include "dar.h"
#include "graph.h"
#include "metric_row.h"
#include "mincost.h"

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
    /* a phased model's inputs (the rounds trace, ff-trace --sp-rounds): the
     * kind of step, from hint_phase; one a step, on every node */
    MCF_START,          /* input, node mask: the step reaches a search's start */
    MCF_AUGMENT,        /* input, node mask: the step is an augmentation */
    MCF_PROBES
};

/* The loss terms, in struct dar_losses and the training curve. */
enum mcf_loss { MCF_LOSS_REACHED, MCF_LOSS_DISTANCE, MCF_LOSS_PI, MCF_LOSS_POTENTIAL_HINT, MCF_LOSS_FLOW_HINT,
                MCF_LOSS_FLOW, MCF_LOSS_POTENTIAL, MCF_LOSSES };

extern const struct dar_algorithm dar_algorithm_min_cost_flow;

/* Whether graph dg carries the rounds trace (ff-trace --sp-rounds: its
 * phases hold an augmentation; the one-frame trace's are all 0), the row's
 * phased_graph.  A rounds graph's dg->phase holds at i the kind of the
 * frame step i reaches (hint_phase[i + 1]); its schedule runs both
 * networks every step all the same (algo_min_cost_flow_model.c). */
bool mcf_rounds(const struct dar_graph *dg);

/* The schedule (algo_min_cost_flow_model.c), for the entry's table. */
void mcf_run_group(struct dar_group *c);

/* ---- the instance in exact integers (algo_min_cost_flow_instance.c): the
 * one reading of the tracer, the repair and the metric rows ---- */

/* A record's instance as the exact core takes it: the graph's edge e is arc
 * e (src -> dst); an undirected edge is also arc m + e (dst -> src), of the
 * same capacity and cost, as mincost.h makes an undirected edge two
 * antiparallel arcs.  Capacities and costs in integer units. */
struct mcf_instance {
    struct graph g;             /* the instance keys: n m src dst directed s t cap cost (cap_scale) */
    struct mincost_net net;     /* net.m = m (directed) or 2m */
    int32_t *src, *dst;         /* [net.m] */
    int64_t *cap, *cost;        /* [net.m] */
    double cap_units;           /* integer units of flow in 1.0 (graph_capacity_units) */
    int64_t cost_units;         /* integer units of cost in 1.0 (mincost_cost_units, `cost_scale`) */
};
/* Reads and checks rec's instance (the entry's instance keys, optional
 * `cost_scale`, mincost_check); dies with exit 65 naming record and key. */
void mcf_instance_read(struct mcf_instance *in, const struct record *rec);
/* The arcs of in->g, which the caller has read, in integer units: with rec
 * its scales (graph_capacity_units_exact, `cost_scale`); with NULL, for a
 * graph whose record is gone (dar-step's untraced rounds), the scales the
 * values themselves have.  False with err when a cost has no exact scale;
 * the arcs are in's either way. */
bool mcf_instance_exact(struct mcf_instance *in, const struct record *rec, struct mincost_error *err);
/* A mincost error as the record's one-line error (exit 65), naming the
 * record's own key: the second arc of an undirected edge is that edge's
 * entry, and 'potential' is potential_key when not NULL. */
void mcf_instance_die(const char *source, long index, const struct mcf_instance *in, struct mincost_error err,
                      const char *potential_key);
/* The arcs only (a graph the caller keeps), or everything. */
void mcf_instance_free_arcs(struct mcf_instance *in);
void mcf_instance_free(struct mcf_instance *in);
/* A signed flow per edge (real units, along src -> dst) as integer units on
 * the arcs: each entry rounded, clamped into its box ([0, cap] on a
 * directed arc, [-cap, cap] on an undirected edge) and put on the arc of its
 * sign.  Returns the number of entries the clamp moved by more than half a
 * unit (0 for a flow within capacity). */
int mcf_flow_arcs(const struct mcf_instance *in, const double *flow, int64_t *arcs);

/* ---- the evaluation half: the repair (algo_min_cost_flow_repair.c; cost-fix)
 * and the metric rows (algo_min_cost_flow_metrics.c) ---- */

/* Its repair (cost-fix): the options by index and the op of the row. */
enum mcf_repair_option { MCF_REPAIR_KEY, MCF_REPAIR_POTENTIAL_KEY, MCF_REPAIR_OPTIONS };
extern const struct dar_repair_option mcf_repair_options[MCF_REPAIR_OPTIONS];
void mcf_repair(struct writer *w, const struct record *rec, const union dar_repair_value *options);

/* Its metric rows, ending with a row without a name. */
extern const struct metric_row mcf_metrics[];

#endif
