/* vertex_cover_repair.c - greedy completion of a predicted cover and the
 * scaling of a predicted packing into a feasible one. */
#include "vertex_cover_repair.h"
#include "die.h"
#include "graph_bfs.h"
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

const char *vertex_cover_completion_name(enum vertex_cover_completion how)
{
    return how == VERTEX_COVER_COMPLETE_SCORE ? "score" : "ratio";
}

/* A binary min-heap of (w_v / d_v, v) with lazy deletion: a node's entry is
 * stale once its uncovered degree fell, and is skipped when popped.  Each
 * edge that becomes covered pushes at most one entry per endpoint, so the
 * heap never holds more than n + 2m entries. */
struct ratio_heap {
    double *key;
    int32_t *node;
    int64_t count;
};

static bool heap_less(const struct ratio_heap *h, int64_t a, int64_t b)
{
    return h->key[a] < h->key[b] || (h->key[a] == h->key[b] && h->node[a] < h->node[b]);
}

static void heap_swap(struct ratio_heap *h, int64_t a, int64_t b)
{
    double k = h->key[a];
    int32_t v = h->node[a];
    h->key[a] = h->key[b], h->node[a] = h->node[b];
    h->key[b] = k, h->node[b] = v;
}

static void heap_push(struct ratio_heap *h, double key, int32_t v)
{
    int64_t i = h->count++;
    h->key[i] = key;
    h->node[i] = v;
    while (i > 0 && heap_less(h, i, (i - 1) / 2)) {
        heap_swap(h, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void heap_pop(struct ratio_heap *h)
{
    h->count--;
    heap_swap(h, 0, h->count);
    for (int64_t i = 0;;) {
        int64_t l = 2 * i + 1, r = l + 1, best = i;
        if (l < h->count && heap_less(h, l, best))
            best = l;
        if (r < h->count && heap_less(h, r, best))
            best = r;
        if (best == i)
            break;
        heap_swap(h, i, best);
        i = best;
    }
}

static int complete_by_ratio(int n, int m, const int32_t *src, const int32_t *dst, const float *node_w,
                             uint8_t *cover)
{
    int32_t *degree = xcalloc((size_t)n + 1, sizeof *degree);
    uint8_t *covered = xmalloc((size_t)m + 1);
    for (int e = 0; e < m; e++) {
        covered[e] = cover[src[e]] || cover[dst[e]];
        if (!covered[e])
            degree[src[e]]++, degree[dst[e]]++;
    }
    struct adjacency adj;
    adjacency_build(&adj, n, m, src, dst);
    struct ratio_heap h = {xmalloc(sizeof *h.key * ((size_t)n + 2 * (size_t)m + 1)),
                           xmalloc(sizeof *h.node * ((size_t)n + 2 * (size_t)m + 1)), 0};
    for (int v = 0; v < n; v++)
        if (degree[v] > 0)
            heap_push(&h, node_w[v] / (double)degree[v], v);
    int added = 0;
    while (h.count > 0) {
        int v = h.node[0];
        double key = h.key[0];
        heap_pop(&h);
        if (cover[v] || degree[v] == 0 || key != node_w[v] / (double)degree[v])
            continue;
        cover[v] = 1;
        added++;
        for (int64_t i = adj.off[v]; i < adj.off[v + 1]; i++) {
            int e = adj.edge_of[i];
            if (covered[e])
                continue;
            covered[e] = 1;
            int u = src[e] == v ? dst[e] : src[e];
            degree[v]--;
            if (--degree[u] > 0)
                heap_push(&h, node_w[u] / (double)degree[u], u);
        }
    }
    adjacency_free(&adj);
    free(h.key);
    free(h.node);
    free(degree);
    free(covered);
    return added;
}

int vertex_cover_complete(int n, int m, const int32_t *src, const int32_t *dst, const float *node_w,
                          const float *score, double threshold, enum vertex_cover_completion how, uint8_t *cover)
{
    for (int v = 0; v < n; v++)
        cover[v] = score[v] > threshold;
    if (how == VERTEX_COVER_COMPLETE_RATIO)
        return complete_by_ratio(n, m, src, dst, node_w, cover);
    int added = 0;
    for (int e = 0; e < m; e++) {
        int u = src[e], v = dst[e];
        if (cover[u] || cover[v])
            continue;
        int pick = score[v] > score[u] || (score[v] == score[u] && v < u) ? v : u;
        cover[pick] = 1;
        added++;
    }
    return added;
}

double vertex_cover_pack_repair(int n, int m, const int32_t *src, const int32_t *dst, const float *node_w,
                                const double *pred, double *y)
{
    double *load = xcalloc((size_t)n + 1, sizeof *load), *scale = xmalloc(sizeof *scale * ((size_t)n + 1));
    for (int e = 0; e < m; e++) {
        y[e] = fmax(pred[e], 0.0);
        load[src[e]] += y[e];
        load[dst[e]] += y[e];
    }
    /* The margin keeps the scaled sum at or under w_v after rounding: m
     * additions each err by half an ulp, far below 1e-9 of the sum. */
    double excess = 0;
    for (int v = 0; v < n; v++) {
        excess += fmax(load[v] - node_w[v], 0.0);
        scale[v] = load[v] > node_w[v] ? node_w[v] / load[v] * (1 - 1e-9) : 1.0;
    }
    for (int e = 0; e < m; e++)
        y[e] *= fmin(scale[src[e]], scale[dst[e]]);
    free(load);
    free(scale);
    return excess;
}
