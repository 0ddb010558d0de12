/* algo_maxflow.h - the max-flow / min-cut entry of the algorithm registry
 * (algorithm.h): Ford-Fulkerson with Bellman-Ford augmenting paths, the
 * source-maximal min cut as its dual.  Its probes by index, for its own
 * files, the vessel half (edge-embed, max-flow's by design) and the tests. */
#ifndef DAR_ALGO_MAXFLOW_H
#define DAR_ALGO_MAXFLOW_H
#include "dar.h"
#include "metric_row.h"

/* The probes, in the order of the encoders' parameters (model.md §6). */
enum maxflow_probe {
    MAXFLOW_POS,        /* input, node scalar v/n */
    MAXFLOW_S,          /* input, node mask_one */
    MAXFLOW_T,          /* input, node mask_one */
    MAXFLOW_MASK,       /* hint_mask: node mask (reached) */
    MAXFLOW_CUT,        /* the dual's hint: node categorical, 2 classes; target the final cut */
    MAXFLOW_CAP,        /* input cap: edge scalar, bounds the flows */
    MAXFLOW_W,          /* input w: edge scalar, the Bellman-Ford weights */
    MAXFLOW_FLOW,       /* hint_flow: edge bounded_antisymmetric by cap */
    MAXFLOW_PTR,        /* hint_pi: node pointer */
    MAXFLOW_LENGTH,     /* vessel edge inputs, in place of cap */
    MAXFLOW_DISTANCE,
    MAXFLOW_CURVENESS,
    MAXFLOW_FLOW_OUT,   /* output flow: edge bounded_antisymmetric by cap */
    MAXFLOW_CUT_OUT,    /* output cut: node categorical, 2 classes (0 = source side) */
    MAXFLOW_PROBES
};

/* The arc columns (edge and pointer probes with an encoder, in probe order). */
enum maxflow_arc { MAXFLOW_ARC_CAP, MAXFLOW_ARC_W, MAXFLOW_ARC_FLOW, MAXFLOW_ARC_PTR, MAXFLOW_ARC_LENGTH,
                   MAXFLOW_ARC_DISTANCE, MAXFLOW_ARC_CURVENESS, MAXFLOW_ARC_COLUMNS };
/* The probe of each arc column. */
extern const int maxflow_arc_probe[MAXFLOW_ARC_COLUMNS];

/* The loss terms, in struct dar_losses and the training curve. */
enum maxflow_loss { MAXFLOW_LOSS_MASK, MAXFLOW_LOSS_PI, MAXFLOW_LOSS_FLOW_HINT, MAXFLOW_LOSS_CUT_HINT,
                    MAXFLOW_LOSS_FLOW, MAXFLOW_LOSS_CUT, MAXFLOW_LOSSES };

extern const struct dar_algorithm dar_algorithm_maxflow;
/* Its metric rows (algo_maxflow_metrics.c), ending with a row without a name. */
extern const struct metric_row maxflow_metrics[];

/* Its trace in a graph's probe[] (dar.h struct dar_graph), NULL when not
 * loaded: hint_mask [T*n], hint_pi [T*n], hint_flow [T*m], flow [m], cut [n]. */
static inline uint8_t *maxflow_hint_mask(const struct dar_graph *g) { return g->probe[MAXFLOW_MASK]; }
static inline int32_t *maxflow_hint_pi(const struct dar_graph *g) { return g->probe[MAXFLOW_PTR]; }
static inline float *maxflow_hint_flow(const struct dar_graph *g) { return g->probe[MAXFLOW_FLOW]; }
static inline float *maxflow_flow(const struct dar_graph *g) { return g->probe[MAXFLOW_FLOW_OUT]; }
static inline uint8_t *maxflow_cut(const struct dar_graph *g) { return g->probe[MAXFLOW_CUT_OUT]; }

/* Its predictions in a dar_prediction's probe[] (NULL: not wanted):
 *   flow [m] F_out, the flow head at the last flow step, 0 if none
 *        (no-algo: at its last step);
 *   cut [n] P(sink side) = softmax class 1 of c_out (dual: the cut head at
 *        the last flow step, 0.5 if none; pipeline: the mincut network);
 *   pi [T*n] pointer argmax at Bellman-Ford steps, identity after a flow step;
 *   mask [T*n] 1[mask logit > 0];
 *   hint_flow [T*m] the last flow_hint prediction (0 before the first). */
static inline float *maxflow_pred_flow(const struct dar_prediction *p) { return p->probe[MAXFLOW_FLOW_OUT]; }
static inline float *maxflow_pred_cut(const struct dar_prediction *p) { return p->probe[MAXFLOW_CUT_OUT]; }
static inline int32_t *maxflow_pred_pi(const struct dar_prediction *p) { return p->probe[MAXFLOW_PTR]; }
static inline uint8_t *maxflow_pred_mask(const struct dar_prediction *p) { return p->probe[MAXFLOW_MASK]; }
static inline float *maxflow_pred_hint_flow(const struct dar_prediction *p) { return p->probe[MAXFLOW_FLOW]; }

/* Read a graph record with max-flow's trace (its read_graph op,
 * algo_maxflow_graph.c); the trace keys are loaded when present and checked
 * (shapes, 0/1 flags, pointers in range, finite flows), and those in need
 * must be present.  Dies with exit 65 naming the record and key. */
void maxflow_read_graph(struct dar_graph *g, const struct record *rec, int need);

/* The schedule (algo_maxflow_model.c), for the entry's table. */
void maxflow_run_group(struct dar_group *c);
void maxflow_check(const struct dar_model *model, struct dar_graph *const *graphs, int B, bool training,
                   int embed);

/* Its repair (algo_maxflow_repair.c; flow-fix): the options by index and
 * the op of the row. */
enum maxflow_repair_option { MAXFLOW_REPAIR_KEY, MAXFLOW_REPAIR_OPTIONS };
extern const struct dar_repair_option maxflow_repair_options[MAXFLOW_REPAIR_OPTIONS];
void maxflow_repair(struct writer *w, const struct record *rec, const union dar_repair_value *options);

#endif
