/* dar.h - the DAR model (formats/model.md): configuration, parameters, the
 * per-graph data it reads, the batched forward pass with its hand-written
 * backward through time, predictions, and the `model` record.
 *
 * Files: dar_model.c (configuration names, parameter list and init, model
 * records), dar_graph.c (what every entry's graphs share), and the
 * computation in five: dar.c (the call: the batch in groups on the worker
 * pool, the workspace), dar_layout.c (graphs and runs laid out, their
 * inputs), dar_forward.c (encoders, processor, decoders by probe type),
 * dar_backward.c (their hand-written backward), dar_steps.c (the carried
 * state, recurrent networks, the one-network step loop, the losses by probe
 * type); the entries' schedules drive it through dar_processor.h, and the
 * five share dar_internal.h.
 *
 * Batching.  A call takes B graphs, split into groups of a fixed number of
 * consecutive graphs (dar.c's GROUP_GRAPHS) that run as tasks of the worker
 * pool (workers.h), each into its own gradient; the groups' gradients and
 * losses are added in group order.  Within a group, at every step the graphs whose
 * trajectory is still running (step i < T_b − 1) are laid out one after
 * another (compact node and arc offsets per graph), and each linear layer of
 * each network runs as one sgemm over all their nodes or arcs; a graph whose
 * steps are over takes no further part.  A network may run on a subset of
 * the group's graphs at a step (as the second network of an entry with two
 * networks a step runs only at the steps that use it), and the pointer logits are one small product per graph.
 *
 * Me·e_a and q3·e_a are computed as rank-4 sums: e_a = Σ_φ f_aφ a_φ, so
 * Me·e_a = Σ_φ f_aφ (Me a_φ) with the products Me a_φ, q3·a_φ formed once
 * per call; backward goes through the same identity (dMe = Σ_φ dk_φ a_φᵀ,
 * da_φ += Meᵀ dk_φ).  In an antisymmetric edge head the biases of q1, q2,
 * q3 cancel in P_a − P_a' and get an exactly zero gradient; a symmetric edge
 * head (edge mask and scalar) adds q1's bias on both endpoints.
 *
 * Memory kept per step for backward: the decoder input hd (N×3H, which holds
 * z = [x; h_prev] and h), the aggregate (N×H) with its argmax for max, the
 * first and second message activations (A×H floats each), the sign of the
 * third (A×H bytes), the pointer projections, and the loss gradients of the
 * heads (formed in the forward pass: every loss normaliser is known before
 * the first step).
 *
 * The PGN message and aggregate exist three times: layers.c's kernels (with
 * their _naive twins), dar_forward.c's own path (arcs streamed in chunks
 * when no backward follows, messages_streamed) and edge_embed.c (receivers
 * in work units, for graphs too big for a batch).  Nothing but tests keeps them
 * equal: each forms the pre-activation the same way (An[recv] + Bn[send] +
 * b_me, then f_φ·(Me a_φ) feature by feature, dar_net_arc_products) and
 * aggregates in arc order; test_dar checks batching and the streamed path,
 * test_edge_embed edge_embed_states against dar_predict(DAR_EMBED_FIRST), and
 * tests/610-edge-embed.bats the tool against dar-step.  A change to one is a
 * change to all three.
 *
 * Determinism: every reduction runs in a fixed order (graphs in batch order,
 * groups in group order, nodes and arcs in index order) and the dense
 * products are fixed-order chains (layers.h, gemm.h), so results are
 * bit-identical across runs, thread counts and OPENBLAS_NUM_THREADS. */
#ifndef DAR_DAR_H
#define DAR_DAR_H
#include <stdbool.h>
#include <stdint.h>
#include "algorithm.h"
#include "graph.h"
#include "optim.h"
#include "stream.h"

/* ---- configuration ---------------------------------------------------------- */

enum dar_processor { DAR_PGN, DAR_MPNN };
enum dar_agg { DAR_AGG_MAX, DAR_AGG_MEAN, DAR_AGG_SUM };

struct dar_config {
    enum dar_variant variant;
    enum dar_processor processor;
    enum dar_agg agg;
    int hidden;                 /* H */
    bool leak_dual;             /* dual: feed the true dual output as an input, as the
                                   authors' code does (an entry's leakable_dual) */
    bool vessel_inputs;         /* edge-embed --reconstruct: the arcs encode the vessel
                                   inputs instead of the algorithm's vessel_replaces
                                   (record key "edge_inputs": "vessel") */
    const struct dar_algorithm *algorithm;     /* what the model is taught (algorithm.h);
                                                  never NULL (registry.h has the default) */
    bool layer_norm;            /* the node update h = relu(O1 z + O2 agg) layer-normalised
                                   (scale, offset), CLRS's use_ln (dar_update.c) */
    bool gated;                 /* then h = h·g + h_prev·(1 − g), g = σ(G3 relu(G1 z + G2 agg)),
                                   G3's bias starting at −3: CLRS's gated processors */
    bool soft_hints;            /* the hints a step predicts are fed to the next as
                                   probabilities (pointers: softmax, with their gradient;
                                   masks, node or edge: sigmoid; categoricals: softmax;
                                   scalars and antisymmetric edges are values already),
                                   not argmax and threshold, wherever the model's own
                                   hints are fed: CLRS's soft re-prediction (dar_soft.c);
                                   refused for an entry whose row's soft_hints is false */
    bool edge_pointer;          /* pointer heads see the arc to the candidate and choose
                                   among the node's neighbours and itself (CLRS's decoder,
                                   masked); false: p1(u)·p2(v) over every node */
    /* Triplet-GMPNN's triplet messages (dar_triplet.c) */
    bool triplets;              /* each arc s->t's first message layer also gets
                                   relu(O3 max_x t_xst), t_xst the 8 triplet features of
                                   s, t and each node x of its graph (Ibarz et al. 2022) */
    /* ---- phased traces: a trace whose steps are of several kinds ---- */
    bool phased;                /* trained on phased traces (the row's phased_graph): the
                                   networks encode the row's phased_probes, each step's
                                   phase, and take only phased traces (model key "phased") */
};

/* The triplet features per (x, s, t) (CLRS's nb_triplet_fts). */
enum { DAR_TRIPLET_FEATURES = 8 };

/* "primal" "dual" "pipeline" "no-algo"; "pgn" "mpnn"; "max" "mean" "sum".
 * The parsers return false on an unknown name. */
const char *dar_variant_name(enum dar_variant v);
const char *dar_processor_name(enum dar_processor p);
const char *dar_agg_name(enum dar_agg a);
bool dar_variant_parse(const char *s, enum dar_variant *v);
bool dar_processor_parse(const char *s, enum dar_processor *p);
bool dar_agg_parse(const char *s, enum dar_agg *a);

/* Dies (exit 64, naming alg) on what config asks that alg's row does not
 * offer: a leaked dual, soft hints.  Every call checks it; a tool checks
 * it first to refuse before any work. */
void dar_config_check(const struct dar_config *config, const struct dar_algorithm *alg);

/* ---- the model ------------------------------------------------------------- */

/* A linear layer's parameters inside the model's storage (NULL if absent). */
struct dar_linear {
    float *weight, *bias, *dweight, *dbias;
    int in, out;
    const float *weight_t;      /* weight transposed (in×out), set by dar.c for one call */
};

/* One decoder: the probe it predicts and its layers, by the probe's type
 * (algorithm.h): node mask, scalar and categorical one (3H→width); pointer
 * two (3H→H each, "<decoder>1", "<decoder>2"), and with config.edge_pointer
 * two more: "<decoder>3" (H→H, no bias) on the arc features and "<decoder>4"
 * (H→1), logit(u→v) = d4·max(p1_u, p2_v + d3·e_uv) over the arcs leaving u
 * (dar_pointer.c); bounded_antisymmetric three
 * (q1 and q2 3H→1, q3 H→1 on the arc features); an edge mask or scalar two,
 * the symmetric edge head (q1 3H→1, q3 H→1 without bias on the arc
 * features: value_e = q1·hd_u + q1·hd_v + q3·(e_uv + e_vu)). */
struct dar_head {
    int probe;
    enum dar_type type;
    enum dar_location location;
    int width;                          /* columns of the fused product it reads */
    int nlinear;
    struct dar_linear linear[4];
};

/* One encode-process-decode network of the algorithm's layout for the
 * variant (algorithm.h's struct dar_network).  Encoders and heads by probe. */
struct dar_net {
    char name[16];
    bool encodes[DAR_MAX_PROBES];
    float *enc[DAR_MAX_PROBES], *denc[DAR_MAX_PROBES];   /* H (categorical: H×width) */
    struct dar_linear m1, m2, me, l1, l2, o1, o2;
    float *ln_scale, *ln_offset, *dln_scale, *dln_offset;  /* [H] config.layer_norm, else NULL */
    struct dar_linear g1, g2, g3;       /* config.gated (2H→H, H→H, H→H), else no weight */
    int nheads;
    struct dar_head heads[DAR_MAX_HEADS];
    int head_of[DAR_MAX_PROBES];        /* index into heads, -1: not decoded */
    /* Set by dar.c for one call: the heads' layers that read hd, as one
     * product, weights transposed (3H×heads_out) and biases (0 for q). */
    const float *heads_t, *heads_bias;
    int heads_out;
    /* config.triplets (dar_triplet.c): T1 T2 T3 on z (2H→8), E1 E2 E3 on the
     * encoded arc inputs (H→8, no bias), O3 (8→H); else no weight */
    struct dar_linear t1, t2, t3, te1, te2, te3, o3;
};

/* Shape and init of one parameter tensor, parallel to model.params. */
struct dar_param_info {
    char name[64];
    int ndim;                   /* 1 (bias) or 2 (weight) */
    int64_t shape[2];
    int fan_in;
};

enum { DAR_MAX_PARAMS = 192 };     /* room for three networks with every option (the pipeline of an entry with two networks a step) */

struct dar_model {
    struct dar_config config;
    int nnets;
    struct dar_net nets[DAR_MAX_NETS];
    /* The processor's input columns, from the algorithm's probes in probe
     * order: a node column per node probe with an encoder (width columns for
     * a categorical), an arc column per edge or pointer probe with one. */
    int node_columns, narc;
    int node_column[DAR_MAX_PROBES];    /* first column of node probe p, -1: none */
    int arc_probe[DAR_MAX_PROBES];      /* [narc] the probe of each arc column */
    int nparams;
    struct param params[DAR_MAX_PARAMS];      /* model.md §6 order */
    struct dar_param_info info[DAR_MAX_PARAMS];
    int64_t count;              /* total entries */
    float *values, *grads;      /* one contiguous storage each, params point into them */
};

/* Lay out the parameters of config (values and grads zeroed). */
void dar_model_create(struct dar_model *m, const struct dar_config *config);
/* Create, then initialise per model.md §5: U(−1/√fan_in, 1/√fan_in) drawn
 * from rng(seed, "init", 0), parameter by parameter in §6 order. */
void dar_model_init(struct dar_model *m, const struct dar_config *config, uint64_t seed);
void dar_model_free(struct dar_model *m);
/* Index of the parameter called name, or -1. */
int dar_param_index(const struct dar_model *m, const char *name);
/* Index of the network called name ("bf"), or -1. */
int dar_net_index(const struct dar_model *m, const char *name);

/* ---- model records (formats/model.md §7) ------------------------------------ */

/* Begin a model record: kind, format, algorithm, variant, processor, agg,
 * hidden, the leak flag (config.leak_dual, under formats/model.md's key), params (values, or the model's own when NULL: a storage
 * laid out as model.values); the caller then packs exactly n_extra more
 * key/value pairs (provenance, train_state), which end the record. */
void dar_model_write_begin(struct writer *w, const struct dar_model *m, const float *values, int n_extra);
/* A whole model record with nothing more: dar_model_write_begin(w, m, values, 0). */
void dar_model_write(struct writer *w, const struct dar_model *m, const float *values);
/* Pack a params map (name -> f32 tensor, §6 order) of values laid out as
 * model.values; for train_state and the like. */
void dar_params_write(struct writer *w, const struct dar_model *m, const float *values);
/* Read a model record into m (allocates).  Dies with exit 65 naming the record
 * and key on a wrong kind or format, an unknown name, a missing, unknown or
 * misshapen parameter ("'params' entry 'bf.proc.m1.weight' has shape [4, 8],
 * expected [5, 10]"), a non-finite value.  resolve gives the entry the record
 * is of (the registry's dar_algorithm_of_model): the processor knows no list
 * of entries. */
void dar_model_read(struct dar_model *m, const struct record *rec,
                    const struct dar_algorithm *(*resolve)(const struct record *rec));
/* The first record of the stream f (named name in messages) read as above;
 * dies with exit 65 when f holds no record. */
void dar_model_load(struct dar_model *m, FILE *f, const char *name,
                    const struct dar_algorithm *(*resolve)(const struct record *rec));
/* Read a params map object (the value of `key` of record rec) into values,
 * laid out as model.values, with the same checks. */
void dar_params_read(const struct dar_model *m, const struct record *rec, const char *key,
                     float *values);

/* ---- graphs as the model sees them ----------------------------------------- */

/* What a read_graph op must find (a missing key dies naming it). */
enum {
    DAR_NEED_PHASES = 1,        /* the trace's length and phases: the step loop (prediction) */
    DAR_NEED_HINTS = 2,         /* the hint probes: training */
    DAR_NEED_SOLUTION = 4,      /* the output probes: training, a leaked dual */
    DAR_NEED_TRAINING = 7,
};

/* A graph record as the model reads it: the instance, the trace's length
 * and phases (the schedule's, per step), and the trace's probes.  An entry
 * keeps its probes in probe[] by probe index (hints [T × n or m], outputs
 * [n or m]; u8 for mask, mask_one and categorical, i32 for pointer, f32
 * for scalar and bounded_antisymmetric), loaded by its read_graph op and
 * read through its own typed accessors (declared in the entry's header);
 * dar_graph_free frees them. */
struct dar_graph {
    struct graph g;             /* n, m, src, dst and the instance's keys (graph_read_instance) */
    long record;                /* index in its stream, for messages */
    const char *source;         /* its stream's name, NULL for stdin (struct record) */
    int steps;                  /* T, 0 when not loaded */
    uint8_t *phase;             /* [T] the schedule's phase of each step, or NULL */
    void *probe[DAR_MAX_PROBES];
    /* [m] each, or NULL: the vessel edge inputs a model with vessel_inputs
     * encodes (set by the caller, e.g. edge_embed.h; freed here) */
    float *length, *distance, *curveness;
};

void dar_graph_free(struct dar_graph *g);

/* ---- training: loss and gradients ------------------------------------------ */

/* The loss terms in the order of the algorithm's loss_names (hints pooled
 * over the batch, 0 if never scored or the variant has none), and the total
 * the gradient is of. */
struct dar_losses {
    double term[DAR_MAX_LOSSES];
    double total;
};

/* Scratch memory reused across calls: an arena for everything one call
 * keeps for its backward pass, and per-graph state. */
struct dar_workspace;
struct dar_workspace *dar_workspace_new(void);
void dar_workspace_free(struct dar_workspace *ws);
/* Bytes the workspace holds (its high-water mark). */
size_t dar_workspace_bytes(const struct dar_workspace *ws);

/* Testing: makes a stop-gradient on a carried h_prev visible to finite
 * differences (an entry with two networks a step hands the first network's h
 * to the second through one).  DAR_HPREV_RECORD stores, during each call, the h_prev so
 * received; DAR_HPREV_REPLAY then feeds those
 * stored values in later calls on the same batch instead of the live ones,
 * so the loss as a function of the parameters has exactly the gradient the
 * backward pass computes.  DAR_HPREV_LIVE (the default) is the model. */
enum dar_hprev_mode { DAR_HPREV_LIVE, DAR_HPREV_RECORD, DAR_HPREV_REPLAY };
void dar_workspace_hprev_mode(struct dar_workspace *ws, enum dar_hprev_mode mode);

/* Steps the step loop runs for this batch: max_b T_b − 1 (no-algo as well).
 * The teacher array of dar_loss_and_grad is indexed by step 0..this−1. */
int dar_batch_steps(struct dar_graph *const *graphs, int B);

/* Forward pass over the batch (graphs must be loaded with DAR_NEED_TRAINING),
 * the losses of model.md §5 into *out, and with backward the gradient of
 * out->total ADDED to model->grads (zero them first: params_zero_grad).
 * teacher[i] != 0 teacher-forces step i (entries at or past teacher_len, or
 * all when teacher is NULL, mean no forcing; step 0 always uses frame 0).
 * Returns out->total. */
double dar_loss_and_grad(struct dar_model *model, struct dar_workspace *ws,
                         struct dar_graph *const *graphs, int B,
                         const uint8_t *teacher, int teacher_len, bool backward,
                         struct dar_losses *out);

/* ---- the processor's arc inputs --------------------------------------------- */

/* The products Me·a_φ of the arc encoders a_φ (the rank-4 identity above):
 * kme[c] (H floats) for every arc column c (model->arc_probe) the network
 * encodes; the others are not written. */
void dar_net_arc_products(const struct dar_model *m, const struct dar_net *net,
                          float *const *kme);

/* ---- prediction (dar-step) -------------------------------------------------- */

/* Where dar_predict writes, per graph; every pointer may be NULL (not wanted).
 * An entry's predictions go in probe[] by probe index, as its predict op
 * asks and in the layout its header says (frames aligned with the trace:
 * frame 0 the input, frame i+1 what step i predicts). */
struct dar_prediction {
    float *embed;           /* [n*3H] the node embedding, see enum dar_embed */
    void *probe[DAR_MAX_PROBES];
};

/* Node embeddings, as the entry's schedule defines them (for an entry with
 * two networks a step, as the vessel half uses them: LAST is the second
 * network's decoder input hd = [x; h_prev; h] at the graph's last step that
 * runs it, zeros if it has none, no-algo its network's hd at its last step;
 * FIRST one step from the frame-0 hints, the first network then the second,
 * the second's hd, which needs no trace and writes only `embed`). */
enum dar_embed {
    DAR_EMBED_LAST,
    DAR_EMBED_FIRST,
};

/* Run the model without teacher forcing and fill out[b] for each graph.
 * Except with DAR_EMBED_FIRST the graphs need their phase flags and length
 * (DAR_NEED_PHASES: the model follows the trace's phases, as the paper does),
 * and with a leaked dual its output probe (DAR_NEED_SOLUTION); hint values
 * are not read.
 * Memory is released step by step (nothing is kept for backward). */
void dar_predict(struct dar_model *model, struct dar_workspace *ws,
                 struct dar_graph *const *graphs, int B, enum dar_embed embed,
                 struct dar_prediction *out);

#endif
