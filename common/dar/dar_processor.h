/* dar_processor.h - the processor as an algorithm's schedule drives it
 * (inside common/dar/ only): graphs laid out for the networks, runs of one
 * network on a set of graphs at one step, their forward and backward, the
 * carried hidden state, and the losses by probe type.
 *
 * dar.c owns the call: it splits the batch into groups, lays out each group's
 * graphs and caches the rank-4 products, then hands the group to the
 * algorithm's run_group (algorithm.h), which runs its networks in its own
 * order through the functions below (dar_layout.c, dar_forward.c,
 * dar_backward.c, dar_steps.c) and keeps its own per-graph state.  The
 * processor never calls the algorithm but through its ops, and an entry
 * never reaches into the processor but through this header: no circle. */
#ifndef DAR_PROCESSOR_H
#define DAR_PROCESSOR_H
#include "dar.h"
#include "arena.h"

/* One graph laid out for the processor. */
struct dar_graph_layout {
    const struct dar_graph *dg;
    int n, m;
    int64_t A;                  /* arcs: PGN the 2m arcs of the edges and n self-loops, MPNN n² */
    int32_t *send, *recv;       /* [A] */
    int32_t *arc_fwd, *arc_bwd; /* [m] arcs src->dst and dst->src of each edge */
    float *arc_input[DAR_MAX_PROBES];   /* [A] per arc column of an edge input (summed over
                                           the edges an arc comes from), else NULL */
    int32_t *pointer_arc;       /* [npointer] the arcs an edge pointer head chooses among:
                                   one per (node, neighbour) pair and the self-loops */
    int64_t npointer;
    int T;                      /* frames the schedule follows */
    const uint8_t *phase;       /* [T] */
};

/* The probe values a run encodes for one graph, by probe index (NULL: zeros,
 * or no pointer): node probes [n] (f32 scalar, u8 mask, mask_one and
 * categorical classes, i32 pointer), edge probes [m] f32.  grad[p]: where
 * the gradient of a bounded_antisymmetric edge probe's values goes (the
 * prediction it came from), NULL: a constant. */
struct dar_inputs {
    const void *probe[DAR_MAX_PROBES];
    float *grad[DAR_MAX_PROBES];
    /* config.soft_hints: a hint fed as the probabilities its head predicted
     * (CLRS's soft re-prediction), in place of probe[p]: a pointer's [n×n]
     * rows (u's distribution over v), a node mask's [n], an edge mask's
     * [m], a categorical's [n×width] (dar_soft.c); with grad[p], for
     * a pointer, the [n×n] logits gradient of that head, which the
     * softmax's backward feeds */
    const float *soft[DAR_MAX_PROBES];
};

/* A head's outputs on a run, and their gradients (filled by the loss code). */
struct dar_head_out {
    float *value, *grad;        /* mask, scalar [N]; categorical [N×width] logits; pointer [P]
                                   logits; bounded_antisymmetric [E] F */
    float *tanh;                /* bounded_antisymmetric [E] */
    float *p1, *p2;             /* pointer [N×H] */
};

/* One network on a set of graphs at one step. */
struct dar_run {
    const struct dar_net *net;
    int ngraphs;
    int *graph;                 /* [ngraphs] batch indices */
    /* [ngraphs+1] where each graph's nodes, arcs, edges, pointer logits start */
    int64_t *node_offset, *arc_offset, *edge_offset, *pointer_offset;
    int64_t N, A, E, P;
    int32_t *send, *recv;       /* [A] compact node indices */
    int32_t *in_degree;         /* [N] mean only */
    float *node;                /* [N × model->node_columns] */
    float *arc;                 /* [A × model->narc] */
    float **input_grad;         /* [ngraphs × narc] where d(arc column) goes, per edge (a soft
                                   pointer's: its head's logits gradient, n×n) */
    const float **input_soft;   /* [ngraphs × narc] a soft pointer's probabilities, or NULL */
    bool *carry_in;             /* [ngraphs] h_prev is a carried state that takes a gradient */
    /* saved activations */
    float *hd;                  /* [N*3H] = [x; h_prev; h] */
    float *agg;                 /* [N*H] */
    int32_t *argmax;            /* [N*H] max only */
    float *r0;                  /* [A*H] first message activation (backward only) */
    float *r1;                  /* [A*H] second message activation */
    uint8_t *msign;             /* [A*H] third activation > 0 */
    /* config.layer_norm or gated (dar_update.c): [N*H] relu(O1 z + O2 agg),
     * the normalised rows and [N] their 1/σ, the gate, relu(G1 z + G2 agg)
     * and the update the gate mixes with h_prev */
    float *h_relu, *ln_xhat, *ln_rstd, *gate, *gate_in, *h_ungated;
    struct dar_head_out head[DAR_MAX_HEADS];
    /* config.triplets (dar_triplet.c): [A*8] the triplet features maxed over
     * the intermediate node, [A*8] which node won (backward only), and
     * [3 × narc × 8] E1, E2, E3 times each arc encoder */
    float *tri_max;
    int32_t *tri_arg;
    float *tri_ke;
};

/* The hidden state a graph carries from one run to the next. */
struct dar_carry {
    float *h;                   /* [n*H] */
    bool h_valid;               /*   false: zero */
    float *dh;                  /* [n*H] backward: gradient waiting for the producer */
    bool dh_pending;
};

/* Per network: the rank-4 products and their gradients. */
struct dar_netcache {
    float *kme[DAR_MAX_PROBES], *dkme[DAR_MAX_PROBES];        /* [H] Me·a_c per arc column */
    float kq[DAR_MAX_HEADS][DAR_MAX_PROBES], dkq[DAR_MAX_HEADS][DAR_MAX_PROBES];  /* q3·a_c */
    float *kp[DAR_MAX_HEADS][DAR_MAX_PROBES], *dkp[DAR_MAX_HEADS][DAR_MAX_PROBES];  /* [H] an edge
                                   pointer head's d3·a_c (dar_pointer.c) */
};

/* One group of the batch in one call. */
struct dar_group {
    struct dar_model *model;
    const struct dar_algorithm *alg;
    struct dar_workspace *ws;
    struct arena *arena;
    int H;
    int B;
    struct dar_graph *const *graphs;    /* [B] */
    bool training;              /* the losses are computed (into sum) */
    bool backward;              /* and their gradients */
    enum dar_variant variant;
    bool embed_first;           /* DAR_EMBED_FIRST */
    const uint8_t *teacher;     /* [teacher_len] teacher forcing per step, or NULL */
    int teacher_len;
    struct dar_scales scales;
    double sum[DAR_MAX_LOSSES]; /* the group's loss terms */
    struct dar_prediction *pred;    /* [B] or NULL (training) */
    struct dar_graph_layout *gd;    /* [B] */
    struct dar_carry *carry;        /* [B] */
    struct dar_netcache nc[DAR_MAX_NETS];
};

/* A run of net on the graphs list[0..ngraphs) (batch indices), laid out;
 * its inputs are set graph by graph with dar_run_set_inputs. */
struct dar_run *dar_run_new(struct dar_group *c, const struct dar_net *net, const int *list, int ngraphs);
void dar_run_set_inputs(struct dar_group *c, struct dar_run *r, int k, const struct dar_inputs *in);
/* Encoders, processor and every head of the run; h_prev is hprev (N×H, in
 * run order; NULL: zero). */
void dar_run_forward(struct dar_group *c, struct dar_run *r, const float *hprev);
/* Backward of one run: heads (their grad buffers filled by the loss code and
 * later runs), processor, encoders, and the inputs' gradients.
 * consume_carry: add the gradient of h left by the next run (carry dh);
 * produce_carry: leave d(h_prev) for the run before, for graphs with
 * carry_in. */
void dar_run_backward(struct dar_group *c, struct dar_run *r, bool consume_carry, bool produce_carry);

/* config.soft_hints (dar_soft.c): one graph's hints as the last run that
 * decoded them predicted them, NULL before it or for a probe never fed
 * so: a mask's σ(logit) [n or m], a categorical's softmax [n×width], a
 * pointer's softmax rows [n×n] (fresh each step: the next step's backward
 * reads them) and its head's logits gradient, which that backward feeds
 * (with backward only).  A scalar is fed as its value already. */
struct dar_soft_hints {
    float *value[DAR_MAX_PROBES];
    float *grad[DAR_MAX_PROBES];
};
/* The soft hints of graph k of run r: each hint its network decodes and
 * encodes (the entry feeds them as its own prediction of the hint). */
void dar_soft_hints_update(struct dar_group *c, const struct dar_run *r, int k, struct dar_soft_hints *soft);
/* Hint probe's soft values (and gradient) into in, if soft holds them. */
void dar_soft_hints_feed(const struct dar_soft_hints *soft, int probe, struct dar_inputs *in);

/* Graph k's rows of the run's h into its carry (h_valid set). */
void dar_carry_from_run(struct dar_group *c, const struct dar_run *r, int k);
/* h_prev for a run: graph k's carry where carry_in[k] is set (NULL when no
 * graph carries: all zero). */
float *dar_carry_hprev(struct dar_group *c, struct dar_run *r);

/* A recurrent network (the same net at every step, h carried, constant
 * inputs in(c, b, ctx)) run steps[b] steps on graph b; last(c, r, k, ctx) is
 * called at graph r->graph[k]'s last step.  Returns its runs (steps in
 * order, kept for backward) and their number. */
struct dar_run **dar_recurrent_forward(struct dar_group *c, const struct dar_net *net, const int *steps,
                                       int *nsteps_out,
                                       void (*in)(struct dar_group *c, int b, struct dar_inputs *inputs,
                                                  void *ctx),
                                       void (*last)(struct dar_group *c, const struct dar_run *r, int k,
                                                    void *ctx),
                                       void *ctx);
void dar_recurrent_backward(struct dar_group *c, struct dar_run **runs, int S);
/* No-algo's schedule: net recurrent T - 1 steps on each graph (T its
 * frames), forward and, when the group goes backward, backward. */
void dar_run_recurrent_group(struct dar_group *c, const struct dar_net *net,
                             void (*in)(struct dar_group *c, int b, struct dar_inputs *inputs, void *ctx),
                             void (*last)(struct dar_group *c, const struct dar_run *r, int k, void *ctx),
                             void *ctx);

/* One step of a one-network schedule: frame i to frame i + 1 on the graphs
 * still running (i + 1 < T), and the run of the network on them. */
struct dar_step {
    int i;
    bool teacher_forced;        /* the hint inputs are the trace's frame i */
    int running;
    const int *list;            /* [running] batch indices */
    struct dar_run *run;
};

/* What an entry does for graph k (batch index s->list[k]) of a step. */
struct dar_step_ops {
    /* the graph's inputs to the run (in: zeroed) */
    void (*inputs)(struct dar_group *c, const struct dar_step *s, int k, struct dar_inputs *in, void *ctx);
    /* training only, after the forward: the losses of frame i + 1 (and of
     * the outputs at the graph's last step), gradients into the heads */
    void (*losses)(struct dar_group *c, const struct dar_step *s, int k, void *ctx);
    /* the state the next step reads, and the predictions */
    void (*update)(struct dar_group *c, const struct dar_step *s, int k, void *ctx);
};

/* The algorithm's steps with one network: as many steps as the longest
 * trace, each on the graphs still running, h carried from step to step; the
 * runs kept for backward (in reverse) or their arena released. */
void dar_run_steps(struct dar_group *c, const struct dar_net *net, const struct dar_step_ops *ops, void *ctx);

/* One step of a two-network schedule (dar_run_phases): frame i to frame
 * i + 1 on the graphs still running; the first network runs on all of
 * them, then the second on those whose phase flag at i is 0, h_prev the
 * first's h (no gradient through it), both on the same inputs. */
struct dar_phase_step {
    int i;
    bool teacher_forced;        /* the hint inputs are the trace's frame i */
    int running, seconds;       /* graphs at this step; of them, at a second-network phase */
    int *list, *second_list;    /* [B] their batch indices */
    int *pos, *second_pos;      /* [B] a graph's index in each list, by batch index */
    struct dar_inputs *inputs;  /* [B] by batch index */
    struct dar_run *run;        /* the first network on the running graphs */
    struct dar_run *second_run; /* the second on theirs, or NULL */
};

/* What an entry does at each step of a two-network schedule. */
struct dar_phase_ops {
    /* graph k's inputs (batch index s->list[k]; in: zeroed) */
    void (*inputs)(struct dar_group *c, const struct dar_phase_step *s, int k, struct dar_inputs *in, void *ctx);
    /* training only, after both forwards: the step's losses */
    void (*losses)(struct dar_group *c, const struct dar_phase_step *s, void *ctx);
    /* the state the next step reads, the carried h among it (the entry's:
     * the schedule carries nothing itself) */
    void (*update)(struct dar_group *c, const struct dar_phase_step *s, void *ctx);
    /* with predictions wanted (c->pred), after update */
    void (*record)(struct dar_group *c, const struct dar_phase_step *s, void *ctx);
};

/* An algorithm's steps with two networks a step (an augmenting-path
 * algorithm's search then augment): as
 * many steps as the longest trace, the runs kept for backward (last step
 * first: the second network's run, then the first's, which takes the
 * gradient of the h carried to the next step) or their arena released. */
void dar_run_phases(struct dar_group *c, const struct dar_net *first, const struct dar_net *second,
                    const struct dar_phase_ops *ops, void *ctx);

/* DAR_HPREV_RECORD / _REPLAY (dar.h): a carried h_prev stored or substituted. */
void dar_hprev_test_hook(struct dar_group *c, float *h, int64_t count);

/* The loss of a head's values for one graph, by the probe's type, with its
 * gradient into grad when not NULL: mask BCE with logits (target u8 [n]);
 * categorical softmax cross-entropy over width classes (target i32 [n]);
 * pointer softmax cross-entropy over the n nodes (target i32 [n]); scalar and
 * bounded_antisymmetric squared error (target f32 [n or m]); each term times
 * scale.  count: the graph's nodes (edges for an edge probe). */
double dar_probe_loss(struct dar_group *c, enum dar_type type, int width, float *grad, const float *value,
                      const void *target, float scale, int count);

/* The edge pointer head (config.edge_pointer, dar_pointer.c): its logits
 * from the fused product's p1 and p2 (in o), the masked entries a large
 * negative number; its backward into dp1, dp2 (N×H, added) and the
 * products' gradients; the products d3·a_c once per call and their
 * gradient into d3 and the arc encoders. */
void dar_edge_pointer_forward(struct dar_group *c, const struct dar_run *r, int head, struct dar_head_out *o);
void dar_edge_pointer_backward(struct dar_group *c, const struct dar_run *r, int head,
                               const struct dar_head_out *o, float *dp1, float *dp2, float *const *darc);
void dar_edge_pointer_products(struct dar_group *c);
void dar_edge_pointer_products_backward(struct dar_group *c);
/* The eligible arcs of a laid-out graph (gd->pointer_arc). */
void dar_edge_pointer_arcs(struct dar_group *c, struct dar_graph_layout *gd);

/* The node update with CLRS's layer norm and gate (config.layer_norm,
 * config.gated; dar_update.c): from o = O1 z + O2 agg (N×H, overwritten)
 * the new h into hd; its backward from dhd's h part into dt (the gradient
 * of o, N×H, written), dz (the gate's G1 and h_prev's share, added) and
 * dagg (G2's, added). */
bool dar_update_extended(const struct dar_model *m);
void dar_update_forward(struct dar_group *c, struct dar_run *r, const float *z, float *o);
void dar_update_backward(struct dar_group *c, const struct dar_run *r, const float *dhd, const float *z, float *dz,
                         float *dt, float *dagg);

/* Triplet-GMPNN's triplet messages (config.triplets; dar_triplet.c):
 * their buffers on the run (before the forward's scratch mark: backward
 * reads them); the features maxed over the intermediate node from z = [x;
 * h_prev] (N×2H) and the arc inputs; rows a0..a1-1 of tri = relu(O3 max +
 * b3) (A×H) for the first message layer; and the backward from that
 * layer's pre-activation gradient dpre (A×H) into dz (added), the
 * parameters, the arc encoders and the arc columns darc (as
 * message_input_backward's). */
void dar_triplet_allocate(struct dar_group *c, struct dar_run *r);
void dar_triplet_forward(struct dar_group *c, struct dar_run *r, const float *z);
void dar_triplet_rows(struct dar_group *c, const struct dar_run *r, float *tri, int64_t a0, int64_t a1);
void dar_triplet_backward(struct dar_group *c, const struct dar_run *r, const float *dpre, const float *z,
                          float *dz, float *const *darc);

/* Index of the node whose row is the largest entry of row[0..K). */
int dar_argmax_row(const float *row, int K);

#endif
