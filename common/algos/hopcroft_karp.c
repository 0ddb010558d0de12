/* hopcroft_karp.c - phases of a BFS that layers the A nodes by alternating
 * distance from the free ones, then vertex-disjoint shortest augmenting
 * paths found by a depth-first search (iterative: paths can be long). */
#include "hopcroft_karp.h"
#include "die.h"
#include "graph_bfs.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define UNLAYERED INT32_MAX

struct phase {
    struct adjacency adj;
    int32_t *mate;        /* [n] the node matched to v, or -1 */
    int32_t *layer;       /* [n] A nodes: alternating distance from a free A node */
    int32_t *queue;       /* [n] */
    int64_t *next;        /* [n] A nodes: the next incidence the search tries */
    int32_t *stack, *via; /* [n] the search's A nodes and the B node taken from each */
    int free_layer;       /* the layer at which a free B node is first reached */
};

/* Layer the A nodes; true if some free B node is reachable. */
static bool layer(struct phase *p, int n, const uint8_t *side)
{
    int head = 0, tail = 0;
    p->free_layer = UNLAYERED;
    for (int v = 0; v < n; v++) {
        p->layer[v] = UNLAYERED;
        if (side[v] == 0 && p->mate[v] < 0) {
            p->layer[v] = 0;
            p->queue[tail++] = v;
        }
    }
    while (head < tail) {
        int a = p->queue[head++];
        if (p->layer[a] >= p->free_layer)
            continue;
        for (int64_t i = p->adj.off[a]; i < p->adj.off[a + 1]; i++) {
            int a2 = p->mate[p->adj.nbr[i]];
            if (a2 < 0) {
                if (p->free_layer == UNLAYERED)
                    p->free_layer = p->layer[a] + 1;
            } else if (p->layer[a2] == UNLAYERED) {
                p->layer[a2] = p->layer[a] + 1;
                p->queue[tail++] = a2;
            }
        }
    }
    return p->free_layer != UNLAYERED;
}

/* One shortest augmenting path from the free A node root, along the layers;
 * augments it and returns true, or marks dead ends and returns false. */
static bool augment_from(struct phase *p, int root)
{
    int top = 0;
    p->stack[top++] = root;
    while (top > 0) {
        int a = p->stack[top - 1];
        if (p->next[a] == p->adj.off[a + 1]) {
            p->layer[a] = UNLAYERED;   /* no path through a in this phase */
            top--;
            continue;
        }
        int b = p->adj.nbr[p->next[a]++], a2 = p->mate[b];
        if (a2 < 0 ? p->layer[a] + 1 == p->free_layer : p->layer[a2] == p->layer[a] + 1) {
            p->via[top - 1] = b;
            if (a2 >= 0) {
                p->stack[top++] = a2;
                continue;
            }
            for (int j = 0; j < top; j++) {
                p->mate[p->stack[j]] = p->via[j];
                p->mate[p->via[j]] = p->stack[j];
            }
            return true;
        }
    }
    return false;
}

int hopcroft_karp(int n, int m, const int32_t *src, const int32_t *dst, const uint8_t *side, uint8_t *match)
{
    struct phase p;
    adjacency_build(&p.adj, n, m, src, dst);
    p.mate = xmalloc(sizeof *p.mate * (size_t)n);
    p.layer = xmalloc(sizeof *p.layer * (size_t)n);
    p.queue = xmalloc(sizeof *p.queue * (size_t)n);
    p.next = xmalloc(sizeof *p.next * (size_t)n);
    p.stack = xmalloc(sizeof *p.stack * (size_t)n);
    p.via = xmalloc(sizeof *p.via * (size_t)n);
    for (int v = 0; v < n; v++)
        p.mate[v] = -1;
    int size = 0;
    while (layer(&p, n, side)) {
        memcpy(p.next, p.adj.off, sizeof *p.next * (size_t)n);
        for (int a = 0; a < n; a++)
            if (side[a] == 0 && p.mate[a] < 0 && p.layer[a] == 0)
                size += augment_from(&p, a);
    }
    for (int e = 0; e < m; e++)
        match[e] = p.mate[src[e]] == dst[e];
    adjacency_free(&p.adj);
    free(p.mate);
    free(p.layer);
    free(p.queue);
    free(p.next);
    free(p.stack);
    free(p.via);
    return size;
}
