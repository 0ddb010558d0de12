/* graph_bfs.h - breadth-first search on an undirected edge list, and the
 * double sweep that picks s and t for vessel graphs (formats/vessel.md).
 *
 * Graphs are given as edge lists (src[e], dst[e]), e < m, nodes 0..n-1;
 * edges are followed both ways.  Memory is O(n + m), time O(n + m) per
 * search. */
#ifndef DAR_GRAPH_BFS_H
#define DAR_GRAPH_BFS_H
#include <stdint.h>

/* Compressed adjacency: the neighbours of v are nbr[off[v] .. off[v+1]-1],
 * in increasing edge order; edge_of[] gives the edge of each entry. */
struct adjacency {
    int n;
    int64_t *off;          /* [n+1] */
    int32_t *nbr;          /* [2m] */
    int32_t *edge_of;      /* [2m] */
};

void adjacency_build(struct adjacency *a, int n, int64_t m, const int32_t *src, const int32_t *dst);
void adjacency_free(struct adjacency *a);

/* Hop distances from source into dist[n] (-1 where unreachable).  Returns
 * the farthest node reached, the lowest-numbered one among ties; *reached
 * (if not NULL) gets the number of nodes reached, source included. */
int graph_bfs(const struct adjacency *a, int source, int32_t *dist, int *reached);

/* The lowest-numbered node of the largest connected component (ties: the
 * component with the lowest-numbered node). */
int graph_largest_component_node(const struct adjacency *a);

/* Double sweep, a lower bound on the hop diameter that is exact on trees and
 * close on sparse spatial graphs: BFS from start (start < 0: the node
 * graph_largest_component_node returns) to its farthest node *s, BFS from
 * *s to its farthest node *t.  Returns the hop distance d(s, t), which is
 * 0 (and s == t) only when the component has one node. */
int double_sweep(const struct adjacency *a, int start, int *s, int *t);

#endif
