/* test_node2vec.c - Node2Vec's training (tools/node2vec.c) against a plain
 * float64 re-statement of PyG's steps on the same walks: N(0, 1) rows from
 * their streams, each batch's gradient summed per node over its walks'
 * pairs (sgns_walk_backward_naive), SparseAdam with the global step.  Two
 * epochs of two batches each (the second batch shorter, so its means have
 * other denominators) on a small line graph; and the same bits at 1, 2 and
 * 5 threads. */
#include "check.h"
#include "die.h"
#include "line_graph.h"
#include "node2vec.h"
#include "rng.h"
#include "sgns.h"
#include <stdlib.h>
#include <string.h>

/* A graph whose line graph has 300 nodes: 2 batches of 256 start nodes. */
static struct line_graph test_graph(void)
{
    enum { M = 300, NODES = 120 };
    int32_t src[M], dst[M];
    struct rng r;
    rng_init(&r, 1, 2, 3);
    for (int e = 0; e < M; e++) {
        src[e] = (int32_t)(e < NODES - 1 ? (uint64_t)e : rng_below(&r, NODES));
        dst[e] = (int32_t)(e < NODES - 1 ? (uint64_t)e + 1 : rng_below(&r, NODES));
        if (src[e] == dst[e])
            dst[e] = (dst[e] + 1) % NODES;
    }
    struct line_graph g;
    char err[200];
    if (line_graph_build(&g, NODES, M, src, dst, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    return g;
}

static void reference(double *table, const struct line_graph *g, const struct node2vec_options *o)
{
    int64_t n = g->n, dim = o->dim, L = o->walk_length;
    for (int64_t i = 0; i < n; i++) {
        struct rng r;
        rng_init(&r, (uint64_t)o->seed, rng_stream_id("node2vec-init"), (uint64_t)i);
        for (int64_t h = 0; h < dim; h++)
            table[i * dim + h] = (float)rng_normal(&r);
    }
    double *m = calloc((size_t)(n * dim), sizeof *m), *v = calloc((size_t)(n * dim), sizeof *v);
    double *grad = calloc((size_t)(n * dim), sizeof *grad);
    bool *touched = calloc((size_t)n, sizeof *touched);
    float *rows_f = malloc(sizeof *rows_f * (size_t)(L * dim)), *g_walk = malloc(sizeof *g_walk * (size_t)(L * dim));
    const float **rows = malloc(sizeof *rows * (size_t)L);
    int32_t *walks = malloc(sizeof *walks * (size_t)((1 + o->negatives) * L));
    struct node2vec_plan plan;
    node2vec_plan_init(&plan, g, o);
    int64_t pairs = sgns_walk_pairs((int)L, (int)o->context), step = 0;
    for (int64_t epoch = 0; epoch < o->epochs; epoch++) {
        node2vec_epoch_order(&plan, epoch);
        for (int64_t first = 0; first < n; first += NODE2VEC_BATCH) {
            int64_t starts = n - first < NODE2VEC_BATCH ? n - first : NODE2VEC_BATCH;
            int64_t walk_count = starts * o->walks_per_node;
            memset(grad, 0, sizeof *grad * (size_t)(n * dim));
            memset(touched, 0, sizeof *touched * (size_t)n);
            for (int64_t rep = 0; rep < o->walks_per_node; rep++)
                for (int64_t s = 0; s < starts; s++) {
                    node2vec_walk(walks, &plan, epoch, rep, first + s);
                    node2vec_negative_walks(walks + L, &plan, epoch, rep, first + s);
                    for (int k = 0; k <= o->negatives; k++) {
                        for (int64_t l = 0; l < L; l++) {
                            for (int64_t h = 0; h < dim; h++)
                                rows_f[l * dim + h] = (float)table[walks[k * L + l] * dim + h];
                            rows[l] = rows_f + l * dim;
                        }
                        double denominator = (double)walk_count * (double)pairs * (k ? (double)o->negatives : 1);
                        sgns_walk_backward_naive(g_walk, rows, (int)L, (int)o->context, (int)dim, k == 0,
                                                 (float)(1 / denominator));
                        for (int64_t l = 0; l < L; l++) {
                            int32_t node = walks[k * L + l];
                            touched[node] = true;
                            for (int64_t h = 0; h < dim; h++)
                                grad[node * dim + h] += g_walk[l * dim + h];
                        }
                    }
                }
            step++;
            double size = o->lr * sqrt(1 - pow(0.999, (double)step)) / (1 - pow(0.9, (double)step));
            for (int64_t i = 0; i < n; i++)
                if (touched[i])
                    for (int64_t h = 0; h < dim; h++) {
                        double gg = grad[i * dim + h];
                        m[i * dim + h] = 0.9 * m[i * dim + h] + 0.1 * gg;
                        v[i * dim + h] = 0.999 * v[i * dim + h] + 0.001 * gg * gg;
                        table[i * dim + h] -= size * m[i * dim + h] / (sqrt(v[i * dim + h]) + 1e-8);
                    }
        }
    }
    node2vec_plan_free(&plan);
    free(m);
    free(v);
    free(grad);
    free(touched);
    free(rows_f);
    free(g_walk);
    free(rows);
    free(walks);
}

static void test_against_reference(double p, double q)
{
    struct line_graph g = test_graph();
    struct node2vec_options o = {"n2v", 12, 7, 3, 2, 2, 2, 5, p, q, 0.05, 1, PROGRESS_OFF};
    int64_t count = g.n * o.dim;
    float *table = malloc(sizeof *table * (size_t)count), *other = malloc(sizeof *other * (size_t)count);
    double *want = malloc(sizeof *want * (size_t)count);
    workers_start(1);
    node2vec_train(table, &g, &o);
    workers_stop();
    reference(want, &g, &o);
    double worst = 0;
    for (int64_t i = 0; i < count; i++) {
        worst = fmax(worst, fabs(table[i] - want[i]));
    }
    /* float32 against float64 over 4 Adam steps of about lr each */
    CHECK(worst < 2e-4, "p %g q %g: 4 steps = the float64 re-statement of PyG's (worst difference %.2g)", p, q, worst);
    bool same = true;
    for (int threads = 2; threads <= 5; threads += 3) {
        workers_start(threads);
        node2vec_train(other, &g, &o);
        workers_stop();
        same = same && !memcmp(table, other, sizeof *table * (size_t)count);
    }
    CHECK(same, "p %g q %g: the same bits at 1, 2 and 5 threads", p, q);
    free(table);
    free(other);
    free(want);
    line_graph_free(&g);
}

static void test_walk_addresses(void)
{
    /* a walk is addressed by (epoch, repetition, position): another epoch's
     * order moves the start node, the walk of a position is reproducible */
    struct line_graph g = test_graph();
    struct node2vec_options o = {"n2v", 8, 10, 3, 3, 1, 1, 0, 1, 1, 0.01, 1, PROGRESS_OFF};
    struct node2vec_plan plan;
    node2vec_plan_init(&plan, &g, &o);
    node2vec_epoch_order(&plan, 0);
    int32_t a[10], b[10], c[10], neg[10];
    node2vec_walk(a, &plan, 0, 1, 17);
    node2vec_walk(b, &plan, 0, 1, 17);
    node2vec_walk(c, &plan, 0, 2, 17);
    node2vec_negative_walks(neg, &plan, 0, 1, 17);
    CHECK(!memcmp(a, b, sizeof a) && memcmp(a, c, sizeof a) && a[0] == plan.order[17] && neg[0] == a[0],
          "walks addressed by (epoch, repetition, position); negative walks start at the start node");
    bool permutation = true;
    char *seen = calloc((size_t)g.n, 1);
    for (int64_t i = 0; i < g.n; i++)
        seen[plan.order[i]]++;
    for (int64_t i = 0; i < g.n; i++)
        permutation = permutation && seen[i] == 1;
    CHECK(permutation, "an epoch's order is a permutation of the nodes");
    free(seen);
    node2vec_plan_free(&plan);
    line_graph_free(&g);
}

int main(void)
{
    check_file_name = "node2vec";
    test_against_reference(1, 1);
    test_against_reference(0.5, 2);
    test_walk_addresses();
    return check_done();
}
