/* algo_shortest_paths_metrics.c - shortest paths' metric rows
 * (formats/metric.md): the pointers, the distances, and the paths the
 * predicted pointers make. */
#include "algo_shortest_paths.h"
#include <stdlib.h>

static void pointer_accuracy(struct metric_mean *acc, const struct record *rec)
{
    int64_t n = metric_count(rec, "n");
    int32_t *pred = metric_node_vector(rec, "pred_pi", DT_I32, n), *pi = metric_node_vector(rec, "pi", DT_I32, n);
    metric_pointer_correct(acc, pred, pi, n);
    free(pred);
    free(pi);
}

static void mae_d(struct metric_mean *acc, const struct record *rec)
{
    int64_t n = metric_count(rec, "n");
    uint8_t *reached = metric_node_vector(rec, "reached", DT_U8, n);
    float *pred = metric_node_vector(rec, "pred_d", DT_F32, n);
    double *d = metric_node_vector(rec, "d", DT_F64, n);
    metric_distance_abs_error(acc, pred, d, reached, n);
    free(pred);
    free(d);
    free(reached);
}

/* The edges of a record: src, dst (checked to join nodes of the graph)
 * and w. */
struct edges {
    int64_t m;
    int32_t *src, *dst;
    float *w;
};

static struct edges read_edges(const struct record *rec, int64_t n)
{
    struct edges g = {.m = metric_count(rec, "m")};
    g.src = record_vector(rec, "src", DT_I32, g.m);
    g.dst = record_vector(rec, "dst", DT_I32, g.m);
    g.w = metric_f32_vector(rec, "w", g.m);
    for (int64_t e = 0; e < g.m; e++)
        if (g.src[e] < 0 || g.src[e] >= n || g.dst[e] < 0 || g.dst[e] >= n)
            record_die(rec, "edge %lld joins nodes %d and %d, outside 0..%lld", (long long)e, g.src[e], g.dst[e],
                       (long long)n - 1);
    return g;
}

static void free_edges(struct edges *g)
{
    free(g->src);
    free(g->dst);
    free(g->w);
}

static void feasible_edges(struct metric_mean *acc, const struct record *rec)
{
    int64_t n = metric_count(rec, "n");
    uint8_t *reached = metric_node_vector(rec, "reached", DT_U8, n);
    struct edges g = read_edges(rec, n);
    float *pred = metric_node_vector(rec, "pred_d", DT_F32, n);
    metric_feasible_edges(acc, pred, g.src, g.dst, g.w, reached, g.m, METRIC_FEASIBLE_TOL);
    free(pred);
    free_edges(&g);
    free(reached);
}

/* The predicted tree's paths, scored into gap and optimal (one of them a
 * scratch mean: metric_tree_paths computes both). */
static void tree_paths(struct metric_mean *gap, struct metric_mean *optimal, const struct record *rec)
{
    int64_t n = metric_count(rec, "n");
    uint8_t *reached = metric_node_vector(rec, "reached", DT_U8, n);
    struct edges g = read_edges(rec, n);
    int s = (int)metric_node_index(rec, "s", n);
    int32_t *pred = metric_node_vector(rec, "pred_pi", DT_I32, n);
    double *d = metric_node_vector(rec, "d", DT_F64, n);
    metric_tree_paths(gap, optimal, pred, d, reached, g.src, g.dst, g.w, n, g.m, s);
    free(pred);
    free(d);
    free_edges(&g);
    free(reached);
}

static void path_optimal(struct metric_mean *acc, const struct record *rec)
{
    struct metric_mean gap = {0};
    tree_paths(&gap, acc, rec);
}

static void path_gap(struct metric_mean *acc, const struct record *rec)
{
    struct metric_mean optimal = {0};
    tree_paths(acc, &optimal, rec);
}

const struct metric_row shortest_paths_metrics[] = {
    {.name = "pointer_accuracy", .keys = {"n", "pred_pi", "pi"}, .mean = pointer_accuracy},
    {.name = "mae_d", .keys = {"n", "pred_d", "d", "reached"}, .mean = mae_d},
    {.name = "feasible_edges", .keys = {"n", "m", "src", "dst", "w", "pred_d", "reached"}, .mean = feasible_edges},
    {.name = "path_optimal", .keys = {"n", "m", "s", "src", "dst", "w", "pred_pi", "d", "reached"},
     .mean = path_optimal},
    {.name = "path_gap", .keys = {"n", "m", "s", "src", "dst", "w", "pred_pi", "d", "reached"}, .mean = path_gap},
    {0},
};
