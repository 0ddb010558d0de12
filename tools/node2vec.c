/* node2vec.c - Node2Vec on the vessel line graph (node2vec.h,
 * formats/node2vec.md).
 *
 * A step (one batch of NODE2VEC_BATCH start nodes) runs in two parallel
 * phases with a sort between them:
 *   1. walks: every (start node, repetition) is a task that draws its walk
 *      and its negative walks and writes the gradient of each position into
 *      its own slot (sgns_walk_backward: the walk's rows stay in cache);
 *   2. the slots are sorted by node (a stable radix sort of node << 32 |
 *      slot, so a node's slots stay in slot order);
 *   3. update: every touched node sums its slots in that order and takes
 *      its SparseAdam step.
 * No addition depends on which thread made it, so the table is the same
 * bits at any thread count.  Memory: the table and Adam's two moments
 * (3 n dim floats; untouched pages of the moments are never written), and
 * the slots of one batch (node2vec_batch_bytes: 110 MB at the defaults). */
#include "node2vec.h"
#include "die.h"
#include "rng.h"
#include "rows.h"
#include "sgns.h"
#include "stream.h"
#include "stream_parallel.h"
#include "tensor.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { INIT_BLOCK = 1024, UPDATE_BLOCK = 256, WALK_CHUNK = 64, RADIX_BITS = 12 };

/* ---- walks ------------------------------------------------------------------ */

void node2vec_plan_init(struct node2vec_plan *plan, const struct line_graph *g, const struct node2vec_options *o)
{
    memset(plan, 0, sizeof *plan);
    plan->graph = g;
    walk_bias_init(&plan->bias, o->p, o->q);
    plan->seed = (uint64_t)o->seed;
    plan->length = (int)o->walk_length;
    plan->context = (int)o->context;
    plan->dim = (int)o->dim;
    plan->negatives = (int)o->negatives;
    plan->walks_per_node = o->walks_per_node;
    plan->order = xmalloc(sizeof *plan->order * (size_t)(g->n ? g->n : 1));
}

void node2vec_plan_free(struct node2vec_plan *plan)
{
    free(plan->order);
    plan->order = NULL;
}

void node2vec_epoch_order(struct node2vec_plan *plan, int64_t epoch)
{
    int64_t n = plan->graph->n;
    for (int64_t i = 0; i < n; i++)
        plan->order[i] = (int32_t)i;
    struct rng r;
    rng_init(&r, plan->seed, rng_stream_id("node2vec-order"), (uint64_t)epoch);
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)rng_below(&r, (uint64_t)i + 1);
        int32_t t = plan->order[i];
        plan->order[i] = plan->order[j];
        plan->order[j] = t;
    }
}

/* The walk's address: epochs are at most 10^4, repetitions 100 and nodes
 * 2^31, so it fits 64 bits. */
static uint64_t walk_index(const struct node2vec_plan *plan, int64_t epoch, int64_t repetition, int64_t position)
{
    return ((uint64_t)epoch * (uint64_t)plan->walks_per_node + (uint64_t)repetition) * (uint64_t)plan->graph->n +
           (uint64_t)position;
}

void node2vec_walk(int32_t *walk, const struct node2vec_plan *plan, int64_t epoch, int64_t repetition,
                   int64_t position)
{
    struct rng r;
    rng_init(&r, plan->seed, rng_stream_id("node2vec-walk"), walk_index(plan, epoch, repetition, position));
    walk_sample(walk, plan->length, plan->order[position], plan->graph, &plan->bias, &r);
}

void node2vec_negative_walks(int32_t *walks, const struct node2vec_plan *plan, int64_t epoch,
                             int64_t repetition, int64_t position)
{
    struct rng r;
    rng_init(&r, plan->seed, rng_stream_id("node2vec-negative"), walk_index(plan, epoch, repetition, position));
    uint64_t n = (uint64_t)plan->graph->n;
    for (int k = 0; k < plan->negatives; k++) {
        int32_t *w = walks + (size_t)k * plan->length;
        w[0] = plan->order[position];
        for (int l = 1; l < plan->length; l++)
            w[l] = (int32_t)rng_below(&r, n);
    }
}

int64_t node2vec_batch_bytes(const struct node2vec_options *o)
{
    /* per slot: its gradient row, its node, its sort key, the sort's
     * scratch copy and (at most) one unique-node entry */
    return NODE2VEC_BATCH * o->walks_per_node * (1 + o->negatives) * o->walk_length * (o->dim * 4 + 4 + 8 + 8 + 8);
}

/* ---- training ---------------------------------------------------------------- */

struct train_job {
    const struct node2vec_plan *plan;
    float *table, *m, *v;
    int dim;
    /* the batch */
    int64_t epoch, first, starts, tasks, slots_per_task;
    int32_t *nodes;              /* [tasks * slots_per_task] */
    float *grads;                /* [tasks * slots_per_task, dim] */
    double *loss_positive, *loss_negative;   /* [tasks] */
    float scale_positive, scale_negative;
    bool want_loss;
    const float **rows;          /* per worker [length] */
    /* the update */
    uint64_t *sorted;            /* node << 32 | slot, by node then slot */
    int64_t *unique_begin;       /* [unique + 1]: each touched node's run in sorted */
    int64_t unique;
    float step_size;
    float *sum;                  /* per worker [dim] */
    /* the initialisation */
    int64_t n;
};

static void init_rows(void *ctx, int64_t block, int worker)
{
    struct train_job *j = ctx;
    uint64_t stream = rng_stream_id("node2vec-init");
    for (int64_t i = block * INIT_BLOCK; i < j->n && i < (block + 1) * INIT_BLOCK; i++) {
        struct rng r;
        rng_init(&r, j->plan->seed, stream, (uint64_t)i);
        float *row = j->table + i * j->dim;
        for (int h = 0; h < j->dim; h++)
            row[h] = (float)rng_normal(&r);     /* torch.nn.Embedding's N(0, 1) */
    }
}

/* Draw task i's walk and negative walks into its slots, and ask for the
 * rows they will read (random rows of a table far larger than the caches). */
static void draw_task(const struct train_job *j, int64_t i)
{
    const struct node2vec_plan *plan = j->plan;
    int64_t repetition = i / j->starts, position = j->first + i % j->starts;
    int32_t *nodes = j->nodes + i * j->slots_per_task;
    node2vec_walk(nodes, plan, j->epoch, repetition, position);
    node2vec_negative_walks(nodes + plan->length, plan, j->epoch, repetition, position);
    size_t bytes = sizeof(float) * (size_t)j->dim;
    for (int64_t s = 0; s < j->slots_per_task; s++) {
        const char *row = (const char *)(j->table + (size_t)nodes[s] * j->dim);
        for (size_t line = 0; line < bytes; line += 64)
            __builtin_prefetch(row + line);
    }
}

/* Tasks WALK_CHUNK at a time: each writes only its own slots, so which
 * thread ran a chunk does not matter; rows is the thread's scratch. */
static void walk_tasks(void *ctx, int64_t chunk, int worker)
{
    struct train_job *j = ctx;
    const struct node2vec_plan *plan = j->plan;
    int L = plan->length, dim = j->dim;
    const float **rows = j->rows + (size_t)worker * L;
    int64_t lo = chunk * WALK_CHUNK, hi = lo + WALK_CHUNK < j->tasks ? lo + WALK_CHUNK : j->tasks;
    if (lo < hi)
        draw_task(j, lo);
    for (int64_t i = lo; i < hi; i++) {
        /* the next task's rows arrive while this one computes */
        if (i + 1 < hi)
            draw_task(j, i + 1);
        int64_t base = i * j->slots_per_task;
        const int32_t *nodes = j->nodes + base;
        j->loss_positive[i] = j->loss_negative[i] = 0;
        for (int k = 0; k <= plan->negatives; k++) {
            for (int l = 0; l < L; l++)
                rows[l] = j->table + (size_t)nodes[k * L + l] * dim;
            double loss = sgns_walk_backward(j->grads + (size_t)(base + (int64_t)k * L) * dim, rows, L, plan->context,
                                             dim, k == 0, k == 0 ? j->scale_positive : j->scale_negative, j->want_loss);
            if (k == 0)
                j->loss_positive[i] = loss;
            else
                j->loss_negative[i] += loss;
        }
    }
}

/* Sort keys (node << 32 | slot, made in slot order) by node, stably. */
static void sort_by_node(uint64_t *keys, uint64_t *scratch, int64_t count, int64_t nodes)
{
    int bits = 0;
    while (bits < 32 && ((uint64_t)(nodes - 1) >> bits))
        bits++;
    uint64_t *from = keys, *to = scratch;
    for (int shift = 32; shift < 32 + bits; shift += RADIX_BITS) {
        int64_t start[1 << RADIX_BITS] = {0};
        for (int64_t c = 0; c < count; c++)
            start[(from[c] >> shift) & ((1 << RADIX_BITS) - 1)]++;
        int64_t at = 0;
        for (int d = 0; d < 1 << RADIX_BITS; d++) {
            int64_t k = start[d];
            start[d] = at;
            at += k;
        }
        for (int64_t c = 0; c < count; c++)
            to[start[(from[c] >> shift) & ((1 << RADIX_BITS) - 1)]++] = from[c];
        uint64_t *t = from;
        from = to;
        to = t;
    }
    if (from != keys)
        memcpy(keys, from, sizeof *keys * (size_t)count);
}

/* Ask for the rows node u will read: its table and moment rows and its
 * first slot, all in random places (unique nodes are sorted, but sparse). */
static inline void prefetch_node(const struct train_job *j, int64_t u)
{
    size_t bytes = sizeof(float) * (size_t)j->dim;
    uint64_t key = j->sorted[j->unique_begin[u]];
    size_t at = (size_t)(key >> 32) * (size_t)j->dim;
    const char *rows[4] = {(const char *)(j->table + at), (const char *)(j->m + at), (const char *)(j->v + at),
                           (const char *)(j->grads + (size_t)(key & 0xffffffffu) * (size_t)j->dim)};
    for (int r = 0; r < 4; r++)
        for (size_t line = 0; line < bytes; line += 64)
            __builtin_prefetch(rows[r] + line);
}

/* AVX2 clone as in sgns.c: the same bits, half the instructions. */
__attribute__((target_clones("avx2", "default")))
static void update_nodes(void *ctx, int64_t block, int worker)
{
    struct train_job *j = ctx;
    int dim = j->dim;
    float *sum = j->sum + (size_t)worker * dim;
    enum { AHEAD = 3 };
    int64_t last = (block + 1) * UPDATE_BLOCK < j->unique ? (block + 1) * UPDATE_BLOCK : j->unique;
    for (int64_t u = block * UPDATE_BLOCK; u < last && u < block * UPDATE_BLOCK + AHEAD; u++)
        prefetch_node(j, u);
    for (int64_t u = block * UPDATE_BLOCK; u < last; u++) {
        if (u + AHEAD < last)
            prefetch_node(j, u + AHEAD);
        int64_t begin = j->unique_begin[u], end = j->unique_begin[u + 1];
        uint64_t node = j->sorted[begin] >> 32;
        memcpy(sum, j->grads + (size_t)(j->sorted[begin] & 0xffffffffu) * dim, sizeof *sum * (size_t)dim);
        for (int64_t c = begin + 1; c < end; c++)
            row_add(sum, j->grads + (size_t)(j->sorted[c] & 0xffffffffu) * dim, dim);
        size_t at = (size_t)node * dim;
        sparse_adam_row(j->table + at, j->m + at, j->v + at, sum, dim, j->step_size, 0.9f, 0.999f, 1e-8f);
    }
}

double node2vec_train(float *table, const struct line_graph *g, const struct node2vec_options *o)
{
    struct node2vec_plan plan;
    node2vec_plan_init(&plan, g, o);
    int64_t n = g->n, L = o->walk_length, dim = o->dim;
    struct train_job j = {0};
    j.plan = &plan;
    j.table = table;
    j.dim = (int)dim;
    j.n = n;
    workers_run((n + INIT_BLOCK - 1) / INIT_BLOCK, init_rows, &j);
    j.m = xcalloc((size_t)(n * dim), sizeof *j.m);
    j.v = xcalloc((size_t)(n * dim), sizeof *j.v);
    j.slots_per_task = (1 + o->negatives) * L;
    int64_t max_tasks = NODE2VEC_BATCH * o->walks_per_node, max_slots = max_tasks * j.slots_per_task;
    j.nodes = xmalloc(sizeof *j.nodes * (size_t)max_slots);
    j.grads = xmalloc(sizeof *j.grads * (size_t)(max_slots * dim));
    j.loss_positive = xmalloc(sizeof(double) * (size_t)max_tasks);
    j.loss_negative = xmalloc(sizeof(double) * (size_t)max_tasks);
    j.rows = xmalloc(sizeof *j.rows * (size_t)(workers_threads() * L));
    j.sorted = xmalloc(sizeof *j.sorted * (size_t)max_slots);
    uint64_t *scratch = xmalloc(sizeof *scratch * (size_t)max_slots);
    j.unique_begin = xmalloc(sizeof *j.unique_begin * (size_t)(max_slots + 1));
    j.sum = xmalloc(sizeof *j.sum * (size_t)(workers_threads() * dim));

    int64_t batches = (n + NODE2VEC_BATCH - 1) / NODE2VEC_BATCH, pairs = sgns_walk_pairs((int)L, (int)o->context);
    struct progress pr;
    progress_begin(&pr, o->progress, "batches", o->epochs * batches);
    j.want_loss = pr.enabled;
    double epoch_loss = NAN;
    int64_t step = 0;
    for (int64_t epoch = 0; epoch < o->epochs; epoch++) {
        node2vec_epoch_order(&plan, epoch);
        double loss_sum = 0;
        for (int64_t b = 0; b < batches; b++) {
            j.epoch = epoch;
            j.first = b * NODE2VEC_BATCH;
            j.starts = n - j.first < NODE2VEC_BATCH ? n - j.first : NODE2VEC_BATCH;
            j.tasks = j.starts * o->walks_per_node;
            /* PyG's loss: the mean over the batch's positive pairs plus the
             * mean over its negative pairs */
            j.scale_positive = (float)(1.0 / ((double)j.tasks * (double)pairs));
            j.scale_negative = (float)(1.0 / ((double)j.tasks * (double)o->negatives * (double)pairs));
            workers_run((j.tasks + WALK_CHUNK - 1) / WALK_CHUNK, walk_tasks, &j);

            int64_t slots = j.tasks * j.slots_per_task;
            for (int64_t c = 0; c < slots; c++)
                j.sorted[c] = (uint64_t)j.nodes[c] << 32 | (uint64_t)c;
            sort_by_node(j.sorted, scratch, slots, n);
            j.unique = 0;
            for (int64_t c = 0; c < slots; c++)
                if (c == 0 || j.sorted[c] >> 32 != j.sorted[c - 1] >> 32)
                    j.unique_begin[j.unique++] = c;
            j.unique_begin[j.unique] = slots;
            step++;
            j.step_size = (float)(o->lr * sqrt(1 - pow(0.999, (double)step)) / (1 - pow(0.9, (double)step)));
            workers_run((j.unique + UPDATE_BLOCK - 1) / UPDATE_BLOCK, update_nodes, &j);

            if (j.want_loss) {
                double positive = 0, negative = 0;
                for (int64_t i = 0; i < j.tasks; i++) {
                    positive += j.loss_positive[i];
                    negative += j.loss_negative[i];
                }
                loss_sum += positive * j.scale_positive + negative * j.scale_negative;
                snprintf(pr.extra, sizeof pr.extra, "epoch %lld loss %.4f", (long long)epoch + 1,
                         loss_sum / (double)(b + 1));
            }
            progress_update(&pr, epoch * batches + b + 1);
        }
        epoch_loss = j.want_loss ? loss_sum / (double)batches : NAN;
    }
    progress_end(&pr);
    free(j.m);
    free(j.v);
    free(j.nodes);
    free(j.grads);
    free(j.loss_positive);
    free(j.loss_negative);
    free(j.rows);
    free(j.sorted);
    free(scratch);
    free(j.unique_begin);
    free(j.sum);
    node2vec_plan_free(&plan);
    return epoch_loss;
}

/* ---- the records --------------------------------------------------------------- */

static void embed_record(struct writer *w, const struct record *rec, void *context)
{
    const struct node2vec_options *o = context;
    if (record_has(rec, "kind"))
        record_expect_kind(rec, "graph");
    int64_t nodes = record_int(rec, "n"), m = record_int(rec, "m");
    if (m < 1)
        record_die(rec, "'m' is %lld, expected at least 1 edge (no vessel to embed)", (long long)m);
    if ((uint64_t)m * (uint64_t)o->dim * 4 > UINT32_MAX)
        record_die(rec, "an embedding of %lld x %lld floats exceeds a msgpack tensor's 4 GiB", (long long)m,
                   (long long)o->dim);
    int32_t *src = record_vector(rec, "src", DT_I32, m), *dst = record_vector(rec, "dst", DT_I32, m);
    struct line_graph g;
    char err[256];
    if (line_graph_build(&g, nodes, m, src, dst, err, sizeof err) != 0)
        record_die(rec, "%s", err);
    free(src);
    free(dst);
    float *table = xmalloc(sizeof *table * (size_t)(m * o->dim));
    node2vec_train(table, &g, o);
    line_graph_free(&g);
    const char *add[] = {o->key};
    writer_begin_enriched(w, rec, add, 1);
    mp_key(w, o->key);
    mp_tensor(w, DT_F32, 2, (int64_t[]){m, o->dim}, table);
    free(table);
}

void node2vec_run(FILE *in, const char *in_name, FILE *out, const struct node2vec_options *o)
{
    stream_map_graphs(in, in_name, out, embed_record, (void *)o, o->threads);
}
