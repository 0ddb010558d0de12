/* node2vec.h - Node2Vec on the vessel line graph (node2vec tool,
 * formats/node2vec.md): PyG 1.7.2's training (walks of --walk-length nodes
 * from every node, --walks-per-node times an epoch, in shuffled batches of
 * 256 start nodes; forward-window skip-gram with uniform negative walks on
 * one table; SparseAdam) giving one embedding per node of L(G), i.e. per
 * vessel.
 *
 * Determinism at any thread count: every walk and negative walk draws from
 * its own rng stream, addressed by (epoch, repetition, position in the
 * epoch's order); each walk's gradient goes to its own slot of the batch;
 * a batch's gradient of a node is the sum of its slots in slot order, and
 * the SparseAdam step of a node reads only that node.  Threads only decide
 * who computes which walk or which node, never an order of additions. */
#ifndef DAR_NODE2VEC_H
#define DAR_NODE2VEC_H
#include <stdint.h>
#include <stdio.h>
#include "line_graph.h"
#include "progress.h"
#include "walk.h"
#include "workers.h"

enum { NODE2VEC_BATCH = 256 };     /* start nodes a step: PyG's loader */

struct node2vec_options {
    const char *key;          /* output key */
    int64_t dim, walk_length, context, walks_per_node, epochs, negatives, seed;
    double p, q, lr;
    int threads;              /* 0: one per usable CPU */
    enum progress_mode progress;
};

/* Filter: every graph record of in, enriched with f32[m, dim] under key. */
void node2vec_run(FILE *in, const char *in_name, FILE *out, const struct node2vec_options *o);

/* ---- building blocks (the bench tool and the tests use them) ---------- */

/* What a walk depends on.  order is the current epoch's permutation of the
 * nodes (node2vec_epoch_order). */
struct node2vec_plan {
    const struct line_graph *graph;
    struct walk_bias bias;
    uint64_t seed;
    int length, context, dim, negatives;
    int64_t walks_per_node;
    int32_t *order;           /* [graph->n] */
};
void node2vec_plan_init(struct node2vec_plan *plan, const struct line_graph *g, const struct node2vec_options *o);
void node2vec_plan_free(struct node2vec_plan *plan);
/* The epoch's shuffled order of start nodes (rng stream "node2vec-order"). */
void node2vec_epoch_order(struct node2vec_plan *plan, int64_t epoch);
/* The positive walk of the start node at `position` of the epoch's order,
 * repetition `repetition` (0 .. walks_per_node-1): walk[length]. */
void node2vec_walk(int32_t *walk, const struct node2vec_plan *plan, int64_t epoch, int64_t repetition,
                   int64_t position);
/* Its negative walks: walks[negatives][length], each the start node then
 * length - 1 uniform nodes (PyG's neg_sample). */
void node2vec_negative_walks(int32_t *walks, const struct node2vec_plan *plan, int64_t epoch,
                             int64_t repetition, int64_t position);

/* Train on the process-wide workers (workers_start): table [g->n, dim]
 * receives the embedding.
 * Returns the last epoch's mean batch loss when the progress line is
 * shown, else NaN (the logarithms are then skipped). */
double node2vec_train(float *table, const struct line_graph *g, const struct node2vec_options *o);

/* Bytes of a batch's gradient slots and their bookkeeping for these
 * options (the tool refuses settings above NODE2VEC_MAX_BATCH_BYTES). */
#define NODE2VEC_MAX_BATCH_BYTES ((int64_t)4 << 30)
int64_t node2vec_batch_bytes(const struct node2vec_options *o);

#endif
