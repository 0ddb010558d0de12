/* algo_record.h - what the entries' tool operations (algorithm.h) share:
 * reading a record's trace (a key the caller needs, 0/1 flags, pointers in
 * range, f64 amounts as the model's finite f32s), the instance, a trace's rounds as phase flags, and the model's
 * predictions of one probe in batches for a validation score.  Bad input
 * dies through record_die: one line naming the record, exit 65. */
#ifndef DAR_ALGO_RECORD_H
#define DAR_ALGO_RECORD_H
#include "algorithm.h"
#include "dar.h"
#include "graph.h"
#include "tensor.h"

/* Die when needed and the record lacks key: why the caller needs it, and
 * the ff-trace that writes it. */
void algo_need_key(const struct dar_algorithm *alg, const struct record *rec, const char *key, bool needed,
                   const char *why);
/* Die unless each of v[0..count) is 0 or 1. */
void algo_check_flags(const struct record *rec, const char *key, const uint8_t *v, int64_t count);
/* Die unless each of v[0..count) names a node of 0..n-1. */
void algo_check_pointers(const struct record *rec, const char *key, const int32_t *v, int64_t count, int n);
/* The f64 tensor key of shape[0..ndim) (ndim 1 or 2) as f32, each finite;
 * the caller frees it. */
float *algo_read_amounts(const struct record *rec, const char *key, int ndim, const int64_t *shape);

/* The instance alg reads (its instance_keys) into g.  A record carrying
 * another entry's whole trace the tools have refused before (registry.h
 * dar_algorithm_refuse_other_trace): only the registry knows the others. */
void algo_read_instance(const struct dar_algorithm *alg, struct graph *g, const struct record *rec);

/* The paper's random flow (§4.1): F = C tanh(R - R') per edge, R and R'
 * standard normal draws of r for its two arcs (in edge order), 0 where a
 * directed arc's would run backwards; flow[0..m). */
struct rng;
void algo_random_flow(struct rng *r, const struct graph *g, float *flow);

/* T frames, every step a round of the algorithm (phase flags all 1). */
void algo_all_rounds(struct dar_graph *dg, int T);

/* The model's predictions of probe (f32 or i32: 4 bytes per node, or per
 * edge when on_edges) for graphs[0..count), in batches of dar-fit's size;
 * score(g, pred, ctx) sees each graph's.  kappa, when not NULL, gains each
 * batch's 1 + the row's nets_per_step × steps (dar-fit's count of network
 * runs). */
void algo_predict_batches(struct dar_model *model, struct dar_workspace *ws, struct dar_graph *graphs, int count,
                          int probe, bool on_edges, double *kappa,
                          void (*score)(const struct dar_graph *g, const void *pred, void *ctx), void *ctx);

/* One key of dar-step's predictions: probe's decoded values, a vector per
 * node or per edge (the probe's location) or, for a hint, its frames
 * [T × count], written as dtype. */
struct algo_prediction {
    const char *key;
    int probe;
    enum dtype dtype;
    bool hint;                  /* only with --hints, and not for no-algo */
    bool dual;                  /* only for the dual variant */
};

/* dar-step's predict op for an entry whose model needs no more than the
 * instance and the number of steps: the graph read (alg->read_graph), its
 * steps from steps_of when the record has no trace, the model run, and
 * outs[0..nouts) written in order; finish (may be NULL) turns the decoded
 * values into what is written (probabilities from logits). */
void algo_predict(const struct dar_algorithm *alg, struct writer *w, const struct record *rec,
                  struct dar_model *model, struct dar_workspace *ws, bool hints, bool embed,
                  const struct algo_prediction *outs, int nouts, void (*steps_of)(struct dar_graph *dg),
                  void (*finish)(struct dar_prediction *p, const struct dar_graph *dg, bool dual));

#endif
