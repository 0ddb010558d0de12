/* algorithm.h - an algorithm as the DAR processor is taught it.
 *
 * The processor (dar*.c) knows networks, encoders, decoders and losses by
 * type; what it is taught comes from here: the algorithm's probes (after
 * CLRS's specs: stage × location × type), the networks each variant builds
 * (which probes each encodes and decodes), and a few operations where a
 * table does not fit: the step schedule, the tracer and an exact solver,
 * the random baseline, the validation score.  Every entry is one file
 * (algo_<name>.c) and one row of the registry (registry.h), which sits
 * above the processor and the entries: nothing here or below it names the
 * registry.  The model record names its entry (key `algorithm`).
 * ARCHITECTURE.md §6 is the recipe for a new entry.
 *
 * Probe types and what the processor does with them:
 *   scalar       node: an input column x·a; edge: summed onto the arcs of
 *                the edge (both directions)
 *   mask         node: input column; decoder 3H→1 logit, BCE; edge: summed
 *                onto both arcs; decoder the symmetric edge head (dar.h
 *                struct dar_head), a logit per edge, BCE
 *   scalar       (decoders) node 3H→1, edge the symmetric edge head;
 *                squared error
 *   mask_one     node: input column (1 at one node)
 *   categorical  node, width K: one-hot input columns, encoder H×K; decoder
 *                3H→K logits, softmax cross-entropy
 *   pointer      node: the arc u→π(u) gets feature 1 (an arc column);
 *                decoder two 3H→H projections, logits p1(u)·p2(v) over v,
 *                softmax cross-entropy
 *   bounded_antisymmetric
 *                edge: F_uv = b_uv tanh(P_uv − P_vu), b the probe `bound`
 *                (an edge input): +F on the forward arc, −F on the backward
 *                one (an arc column); decoder q1, q2 (3H→1) and q3 (H→1)
 *                on the arc features, squared error
 * Graph-level probes are declared for the schedule's use (a probe the
 * algorithm computes itself); the processor encodes and decodes only node
 * and edge probes. */
#ifndef DAR_ALGORITHM_H
#define DAR_ALGORITHM_H
#include <stdbool.h>
#include <stdint.h>
#include "graph.h"
#include "graphgen.h"
#include "cli.h"
#include "stream.h"

enum dar_stage { DAR_STAGE_INPUT, DAR_STAGE_HINT, DAR_STAGE_OUTPUT };
enum dar_location { DAR_LOCATION_NODE, DAR_LOCATION_EDGE, DAR_LOCATION_GRAPH };
enum dar_type { DAR_TYPE_SCALAR, DAR_TYPE_CATEGORICAL, DAR_TYPE_MASK, DAR_TYPE_MASK_ONE,
                DAR_TYPE_POINTER, DAR_TYPE_BOUNDED_ANTISYMMETRIC };

enum { DAR_MAX_PROBES = 24, DAR_MAX_HEADS = 8, DAR_MAX_NETS = 3, DAR_MAX_LOSSES = 8 };

struct dar_probe {
    const char *key;            /* its record key; NULL when the entry computes it (pos) */
    const char *encoder;        /* "<net>.enc.<encoder>"; NULL: never an input */
    const char *decoder;        /* "<net>.dec.<decoder>..."; NULL: never predicted */
    enum dar_stage stage;
    enum dar_location location;
    enum dar_type type;
    int width;                  /* categorical: classes; else 1 */
    int bound;                  /* bounded_antisymmetric: the probe bounding |F| */
    bool vessel;                /* an edge input of vessel models (edge-embed --reconstruct),
                                   in place of the probe vessel_replaces */
};

/* One network of a variant: the probes it encodes (bit p for probe p, in
 * probe order: the order of its encoder parameters) and those it decodes,
 * in the order of its decoder parameters and of the fused decoder product. */
struct dar_network {
    const char *name;           /* parameter prefix: "<name>.proc.m1.weight" */
    uint32_t encodes;
    int ndecoders;
    int decoders[DAR_MAX_HEADS];
};

struct dar_layout {
    int nnets;                  /* 0: the algorithm has no such variant */
    struct dar_network nets[DAR_MAX_NETS];
};

enum dar_variant { DAR_PRIMAL, DAR_DUAL, DAR_PIPELINE, DAR_NO_ALGO, DAR_VARIANTS };

struct dar_group;
struct metric_row;
struct dar_graph;
struct dar_model;
struct dar_workspace;
struct dar_scales { double value[8]; };

/* One option of an entry's repair, as the repair tool (tools/repair.c)
 * offers it: a string, a choice or a number, and its default. */
union dar_repair_value { const char *text; double number; };
struct dar_repair_option {
    const char *name;           /* --name */
    char short_name;            /* 0: none */
    enum cli_type type;         /* CLI_TYPE_STRING, CLI_TYPE_CHOICE (text) or CLI_TYPE_DOUBLE (number) */
    const char *arg, *help;     /* the placeholder and the help line */
    const char *choices;        /* CLI_TYPE_CHOICE: "a|b" */
    double min, max;            /* CLI_TYPE_DOUBLE: bounds */
    union dar_repair_value value;   /* the default */
};
enum { DAR_MAX_REPAIR_OPTIONS = 8 };

/* What a tracer keeps from one record to the next (its own buffers), and
 * the entry's trace flags ff-trace was given (bit i: the row's
 * trace_flags[i]). */
struct dar_tracer_buffers { void *data; void (*free)(void *data); uint32_t flags; };

/* One ff-trace flag of an entry (--name): a variant of its trace. */
struct dar_trace_flag { const char *name, *help; };
enum { DAR_MAX_TRACE_FLAGS = 4 };

/* Default hyperparameters of one variant (dar-fit's -H 0, --lr -1,
 * --weight-decay -1 take them). */
struct dar_hyperparameters {
    int hidden;
    double lr, weight_decay;
};

/* The reference's hyperparameters (the DAR paper's, tuned for its algorithm,
 * dar-reference.md §4;
 * primal and no-algo one set, dual and pipeline another): the defaults of
 * an entry that has not tuned its own. */
#define DAR_REFERENCE_DEFAULTS                                                  \
    {                                                                           \
        [DAR_PRIMAL] = {68, 0.009341493994646139, 0.003420373065077989},        \
        [DAR_DUAL] = {65, 0.009868199084919982, 0.0017345516681916279},         \
        [DAR_PIPELINE] = {65, 0.009868199084919982, 0.0017345516681916279},     \
        [DAR_NO_ALGO] = {68, 0.009341493994646139, 0.003420373065077989},       \
    }

/* How a loss term is normalised, from the batch's counts (dar_loss.c);
 * count is the graph's nodes or edges, by the head probe's location. */
enum dar_norm {
    DAR_NORM_HINT,      /* 1/(count · Σ_b (T_b − 1) · hints), hints the terms so normalised that the
                           variant decodes; the reported term is the sum × hints (a mean over hints) */
    DAR_NORM_STEPS,     /* 1/Σ_b count_b (T_b − 1): per element and step of the batch */
    DAR_NORM_BATCH,     /* 1/Σ_b count_b: per element of the batch (an output) */
};

/* One loss term: the head it scores and what against.  A hint-stage
 * target is scored at frame i + 1 of step i, an output-stage one whole;
 * a term whose head the variant does not decode, or whose target the
 * graph lacks, adds nothing. */
struct dar_loss_term {
    int head;                   /* the decoded probe */
    int target;                 /* the probe of the graph it is scored against */
    enum dar_norm norm;
};

struct dar_algorithm {
    const char *name;           /* --algorithm NAME, the model record's `algorithm` */
    const char *summary;        /* one line for --help and errors */
    const char *predictions_help;   /* dar-step's keys, for --help */
    const char *validation_help;    /* what validation_score is, for dar-fit --help */
    int nprobes;
    const struct dar_probe *probes;
    int vessel_replaces;        /* the edge input the vessel inputs replace, -1: none */
    const struct dar_layout *layouts;   /* [DAR_VARIANTS] */
    /* the losses, in the order of struct dar_losses' terms and the
     * training curve's columns */
    int nlosses;
    const char *const *loss_names;

    /* ---- the model (dar.c calls these) ---- */
    /* A graph record with the trace keys need asks for (dar.h DAR_NEED_*),
     * checked; dies with exit 65 naming the record and key. */
    void (*read_graph)(struct dar_graph *dg, const struct record *rec, int need);
    /* The values of edge input probe p of a graph ([m]), NULL if it has none. */
    const float *(*edge_input)(const struct dar_graph *dg, int p);
    /* Dies unless the graphs hold what the call needs: their trace for
     * training, what prediction reads otherwise (embed: enum dar_embed). */
    void (*check)(const struct dar_model *model, struct dar_graph *const *graphs, int B, bool training,
                  int embed);
    /* The loss normalisers of the whole batch, before any group runs. */
    struct dar_scales (*batch_scales)(const struct dar_model *model, struct dar_graph *const *graphs,
                                      int B, bool embed_first);
    /* One group, start to end: its state, its steps (dar_run_* in
     * dar_processor.h), the losses into the group's terms, predictions,
     * and with backward the backward pass of every run it made. */
    void (*run_group)(struct dar_group *c);
    /* The groups' loss terms added (in group order, already done) into
     * the reported terms; returns the total the gradient is of. */
    double (*total_loss)(const struct dar_model *model, const double *sum, const struct dar_scales *sc,
                         double *terms);

    /* ---- the tools ---- */
    /* Its ops take a record that carries another entry's whole trace too;
     * otherwise the tools refuse such a record before any op reads it
     * (registry.h dar_algorithm_refuse_other_trace).  True for the default
     * entry, whose ops have always taken them. */
    bool takes_other_traces;
    /* The keys trace() adds (hints and outputs), and those with hints off. */
    int ntrace_keys, nsolution_keys;
    const char *const *trace_keys, *const *solution_keys;
    /* Enrich rec with the trace (hints true) or only the solution; dies
     * (exit 65, naming the record) on a graph the algorithm cannot take,
     * and refuses hints bigger than hint_bytes_limit before allocating. */
    void (*trace)(struct writer *w, const struct record *rec, bool hints, int64_t hint_bytes_limit,
                  struct dar_tracer_buffers *b);
    /* dar-step: the model's predictions for one record, as an enriched
     * copy (hints: the per-step predictions too; embed: node embeddings,
     * embed_step an enum dar_embed); graphs without a trace get its phases
     * from running the algorithm (only the flags and the length enter). */
    void (*predict)(struct writer *w, const struct record *rec, struct dar_model *model,
                    struct dar_workspace *ws, bool hints, bool embed, int embed_step);
    /* The random baseline's predictions (dar-step --baseline random). */
    void (*random_baseline)(struct writer *w, const struct record *rec, uint64_t seed);
    /* dar-fit's validation score (lower is better) of model on graphs; adds
     * the inference cost to *kappa when not NULL. */
    double (*validation_score)(struct dar_model *model, struct dar_workspace *ws, struct dar_graph *graphs,
                               int count, double *kappa);

    /* ---- the instance: its keys and how gen-graphs makes it ---- */
    /* The keys of the instance it reads, checked by the graph reader
     * (graph_read_instance): which algorithm an untraced record is for,
     * and the instance list of --help. */
    int ninstance_keys;
    const struct graph_key *instance_keys;
    /* gen-graphs --instance NAME: the keys the generator adds to a
     * family's structure (graphgen.h's kinds, or the entry's own). */
    const struct graphgen_instance *generate;
    /* gen-graphs --optimum-nodes N: the optimum written after the
     * instance's keys (noptimum_keys of them), N the solver's budget per
     * graph in branch-and-bound nodes (a count, not seconds, so the records
     * are the same on every machine); NULL: the entry has none.
     * optimum_help says what it is. */
    int noptimum_keys;
    void (*write_optimum)(struct writer *w, const struct graph *g, int64_t node_limit);
    const char *optimum_help;
    /* ---- metrics (the `metrics` tool) ---- */
    /* Its quantities (common/eval/metric_row.h), in the order they are
     * written, ending with a row without a name: `metrics` computes,
     * writes --per-graph and lists in --help from them. */
    const struct metric_row *metrics;
    /* ---- the repair: one tool body (tools/repair.c) for every entry ---- */
    /* The name the repair is called by (the tool is installed under each
     * entry's, and picks the entry by it), NULL: the entry has no repair. */
    const char *repair_tool;
    const char *repair_summary;     /* its --help paragraph */
    const char *repair_example;     /* its --help example */
    /* Its options, in --help order; the tool adds --input, --output, --force. */
    int nrepair_options;
    const struct dar_repair_option *repair_options;
    /* Enrich rec with the repaired predictions, given the options' values
     * in the order of repair_options; dies (exit 65, naming the record and
     * key) on a record without them or with predictions it cannot take. */
    void (*repair)(struct writer *w, const struct record *rec, const union dar_repair_value *options);
    /* ---- the spec's losses, the schedule's shape, the defaults (issue 38) ---- */
    /* The loss terms [nlosses] (dar_loss.c's step loss walks them). */
    const struct dar_loss_term *loss_terms;
    /* Network runs one step of the trace costs: the teacher-forcing clock
     * (dar-fit --tf-decay-per-step) and the validation's inference cost. */
    int nets_per_step;
    /* The dual variant can be fed its true output as an input (dar-fit's
     * option for it, as the authors' code); refused for the others. */
    bool leakable_dual;
    /* Its models give node embeddings after the first step (DAR_EMBED_FIRST). */
    bool embeds_first_step;
    /* dar-fit's defaults, per variant. */
    struct dar_hyperparameters defaults[DAR_VARIANTS];
    /* ---- the two-network schedule's losses (issue 38 item 2) ---- */
    /* The networks a step's phase flag picks by name (dar_run_phases):
     * hint_phase 1 the first, 0 the second; a step's hint losses are those
     * of the network it picks, a hint term normalised by the steps that
     * pick a network decoding its head.  NULL: one network per step. */
    const char *phase_nets[2];
    /* The schedule of an entry with one network a step whose run_group is
     * dar_loss.h's dar_spec_run_group: its state and ops; NULL otherwise. */
    const struct dar_spec_schedule *schedule;
    /* ---- soft hints (issue 37) ---- */
    /* Its schedule feeds config.soft_hints (dar_soft.c's probabilities
     * where it feeds its own hints); false: such a model is refused
     * (dar.h dar_config_check) rather than trained without them. */
    bool soft_hints;
    /* ---- trace flags: variants of an entry's trace ---- */
    /* ff-trace's flags for this entry's trace, in --help order (at most
     * DAR_MAX_TRACE_FLAGS); the tracer finds those given in its buffers'
     * flags; ff-trace refuses them with another entry. */
    int ntrace_flags;
    const struct dar_trace_flag *trace_flags;
    /* Probes only a phased model (dar.h config.phased) encodes, bit p for
     * probe p: inputs its schedule fills from each step's phase. */
    uint32_t phased_probes;
    /* Whether a graph carries a phased trace, of which a model trained on
     * such graphs is phased (dar-fit); NULL: the entry has none. */
    bool (*phased_graph)(const struct dar_graph *dg);
};

/* The probe of alg whose encoder or decoder is called name, or -1. */
int dar_probe_by_encoder(const struct dar_algorithm *alg, const char *name);
/* Fills the hyperparameters left at their "default" values (hidden 0,
 * lr and weight_decay negative) with alg's for variant v. */
void dar_algorithm_hyperparameters(const struct dar_algorithm *alg, enum dar_variant v, int64_t *hidden,
                                   double *lr, double *weight_decay);

#endif
