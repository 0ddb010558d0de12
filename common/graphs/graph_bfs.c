/* graph_bfs.c - BFS, largest component and the double sweep (graph_bfs.h). */
#include "graph_bfs.h"
#include "die.h"
#include <stdlib.h>
#include <string.h>

void adjacency_build(struct adjacency *a, int n, int64_t m, const int32_t *src, const int32_t *dst)
{
    a->n = n;
    a->off = xcalloc((size_t)n + 1, sizeof *a->off);
    a->nbr = xmalloc(sizeof *a->nbr * (size_t)(2 * m + 1));
    a->edge_of = xmalloc(sizeof *a->edge_of * (size_t)(2 * m + 1));
    for (int64_t e = 0; e < m; e++) {
        a->off[src[e] + 1]++;
        a->off[dst[e] + 1]++;
    }
    for (int v = 0; v < n; v++)
        a->off[v + 1] += a->off[v];
    int64_t *fill = xmalloc(sizeof *fill * ((size_t)n + 1));
    memcpy(fill, a->off, sizeof *fill * ((size_t)n + 1));
    for (int64_t e = 0; e < m; e++) {
        int u = src[e], v = dst[e];
        a->nbr[fill[u]] = v; a->edge_of[fill[u]++] = (int32_t)e;
        a->nbr[fill[v]] = u; a->edge_of[fill[v]++] = (int32_t)e;
    }
    free(fill);
}

void adjacency_free(struct adjacency *a)
{
    free(a->off);
    free(a->nbr);
    free(a->edge_of);
    memset(a, 0, sizeof *a);
}

int graph_bfs(const struct adjacency *a, int source, int32_t *dist, int *reached)
{
    int32_t *queue = xmalloc(sizeof *queue * (size_t)(a->n ? a->n : 1));
    for (int v = 0; v < a->n; v++)
        dist[v] = -1;
    int head = 0, tail = 0, far = source;
    dist[source] = 0;
    queue[tail++] = source;
    while (head < tail) {
        int u = queue[head++];
        if (dist[u] > dist[far] || (dist[u] == dist[far] && u < far))
            far = u;
        for (int64_t i = a->off[u]; i < a->off[u + 1]; i++) {
            int v = a->nbr[i];
            if (dist[v] < 0) {
                dist[v] = dist[u] + 1;
                queue[tail++] = v;
            }
        }
    }
    free(queue);
    if (reached)
        *reached = tail;
    return far;
}

int graph_largest_component_node(const struct adjacency *a)
{
    int32_t *comp = xmalloc(sizeof *comp * (size_t)(a->n ? a->n : 1));
    int32_t *queue = xmalloc(sizeof *queue * (size_t)(a->n ? a->n : 1));
    for (int v = 0; v < a->n; v++)
        comp[v] = -1;
    int best = 0, best_size = 0;
    for (int r = 0; r < a->n; r++) {
        if (comp[r] >= 0)
            continue;
        int head = 0, tail = 0;
        comp[r] = r;
        queue[tail++] = r;
        while (head < tail) {
            int u = queue[head++];
            for (int64_t i = a->off[u]; i < a->off[u + 1]; i++)
                if (comp[a->nbr[i]] < 0) {
                    comp[a->nbr[i]] = r;
                    queue[tail++] = a->nbr[i];
                }
        }
        if (tail > best_size) {
            best_size = tail;
            best = r;
        }
    }
    free(comp);
    free(queue);
    return best;
}

int double_sweep(const struct adjacency *a, int start, int *s, int *t)
{
    if (start < 0)
        start = graph_largest_component_node(a);
    int32_t *dist = xmalloc(sizeof *dist * (size_t)(a->n ? a->n : 1));
    int first = graph_bfs(a, start, dist, NULL);
    int second = graph_bfs(a, first, dist, NULL);
    int d = dist[second];
    free(dist);
    *s = first;
    *t = second;
    return d;
}
