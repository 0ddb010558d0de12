/* edge_embed.h - the edge-embed tool (formats/edge-embed.md): DAR's
 * algorithm reconstruction on a vessel graph (paper §4.2, dar-reference.md
 * §6) and the one-step edge embeddings of huge vessel graphs.
 *
 * Files: edge_embed_reconstruct.c (vessel inputs, the capacity rule, the
 * ground-truth trace, training the new encoders), edge_embed.c (the chunked,
 * threaded one-step forward pass and the embedding records). */
#ifndef DAR_EDGE_EMBED_H
#define DAR_EDGE_EMBED_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "algo_maxflow.h"
#include "progress.h"

/* ---- vessel inputs and capacity (edge_embed_reconstruct.c) ------------------ */

/* Capacity from the radius r = avgRadiusAvg, normalised so the largest is 1:
 * cross-section (r/r_max)², Poiseuille (r/r_max)⁴, or 1 everywhere. */
enum edge_capacity { EDGE_CAP_CROSS_SECTION, EDGE_CAP_POISEUILLE, EDGE_CAP_UNIT };
bool edge_capacity_parse(const char *s, enum edge_capacity *c);
const char *edge_capacity_name(enum edge_capacity c);

/* The per-edge vessel inputs of a record, min-max scaled to [0,1] per graph
 * ((x − min)/(max − min), 0 when max == min), into out[0..2] = length,
 * distance, curveness (malloc'ed, m each).  Dies with exit 65 naming a
 * missing or misshapen key; why says what needs it. */
void vessel_inputs_read(const struct record *rec, int64_t m, float *out[3], const char *why);
/* Capacities of rule c from the record's avgRadiusAvg (not read for unit)
 * into cap[m]; dies with exit 65 when it is missing or not positive. */
void vessel_capacity(const struct record *rec, int64_t m, enum edge_capacity c, float *cap);

/* ---- algorithm reconstruction ----------------------------------------------- */

struct edge_embed_reconstruct_options {
    int64_t iters;              /* Adam steps (15000) */
    double lr;                  /* 1e-5 */
    double tf_decay;            /* teacher forcing probability decay^k, as dar-fit (0.999) */
    enum edge_capacity capacity;
    int64_t max_steps;          /* frames of the trace trained on; 0 = all */
    uint64_t seed;
    const char *log_path;       /* TSV curve, NULL: none */
    enum progress_mode progress;
    const char *canonical_args; /* for the provenance */
    int64_t threads;            /* the pool edge_embed_reconstruct_run starts (0: one per CPU) */
};

/* Read the model (a primal or dual DAR record) and the one graph record of
 * graph_in, train the vessel encoders that replace cap's, write the
 * reconstructed model record to out.  Bad input exits 65. */
void edge_embed_reconstruct_run(FILE *graph_in, const char *graph_name, FILE *model_in, const char *model_name,
                                FILE *out, const struct edge_embed_reconstruct_options *o);
/* Write the TSV log stored in a reconstructed model record (cache hits). */
void reconstruct_write_log_from_model(FILE *model, const char *name, const char *log_path);

/* Build the reconstructed model from a trained one: same configuration with
 * vessel_inputs, every parameter copied, the new encoders (H×1) drawn from
 * U(−1, 1) (torch's Linear(1, H) init) with rng(seed, "reconstruct", 0) in
 * parameter order.  Dies with exit 65 unless src is primal or dual with
 * capacity inputs. */
void reconstruct_model_init(struct dar_model *dst, const struct dar_model *src, uint64_t seed);

/* ---- one-step embeddings (edge_embed.c) -------------------------------------- */

/* Node embedding: [h_BF; h_F] (2H), h_F alone (H), or P_F's decoder input
 * [x_F; h_BF; h_F] (3H, dar-step --embed --embed-step first). */
enum edge_node { EDGE_NODE_BOTH, EDGE_NODE_FLOW, EDGE_NODE_HD };
bool edge_node_parse(const char *s, enum edge_node *e);

struct edge_embed_options {
    struct dar_model *model;
    int64_t chunk;              /* arcs per work unit (whole receivers) */
    int64_t threads;            /* the pool edge_embed_run starts (0: one per CPU) */
    enum edge_node node;
    enum progress_mode progress;
};

/* One Ford-Fulkerson step from frame 0 on graph g with s, t given: node
 * states h_bf and h_f (n×H each, caller's).  vessel: length, distance,
 * curveness (normalised) when the model has vessel inputs, else NULL.
 * Runs on workers.h's pool (workers_start: the caller's thread count).
 * Deterministic: bit-identical for every chunk size and thread count. */
void edge_embed_states(const struct dar_model *model, const struct graph *g, int s, int t,
                       float *const vessel[3], int64_t chunk,
                       enum progress_mode progress, float *h_bf, float *h_f);
/* x of network net for node v at frame 0 (mask e_s, no cut) into x[H]. */
void edge_embed_node_input(const struct dar_net *net, int H, int n, int s, int t, int v, float *x);

/* Graph records in, records with `edge_embed` (f32[m, d]) out. */
void edge_embed_run(FILE *in, const char *in_name, FILE *out, const struct edge_embed_options *o);

#endif
