/* graph.h - a flow network as the tools see it (formats/graph.md).
 *
 * Edges are a list: edge e joins src[e] and dst[e].  Undirected (the default,
 * as in the paper's data): each edge {src,dst} is stored once and carries
 * flow either way up to cap[e]; flow[e] is the net flow src->dst, negative
 * meaning dst->src.  Directed: flow[e] in [0, cap[e]].  Self-loops and a pair
 * joined twice (in an undirected graph also {u,v} after {v,u}) are rejected,
 * antiparallel arcs of a directed graph are allowed. */
#ifndef DAR_GRAPH_H
#define DAR_GRAPH_H
#include <stdint.h>
#include <stdbool.h>
#include "stream.h"

struct graph {
    int64_t id;
    char family[32];
    int n, m;
    bool directed;
    int s, t;
    int32_t *src, *dst;    /* [m] */
    float *cap;            /* [m] capacity, >= 0, finite */
    float *w;              /* [m] Bellman-Ford weight in [0,1] */
    int64_t cap_scale;     /* cap[e]*cap_scale is an integer (0: not known) */
};

/* Read and validate the core keys of a graph record; dies with exit 65
 * naming the record and the key on anything wrong (missing keys, lengths that
 * disagree with n or m, s == t, endpoints out of range, self-loops, duplicate
 * pairs, negative/NaN/infinite capacity, w outside [0,1]). */
void graph_read(struct graph *g, const struct record *rec);
void graph_free(struct graph *g);

/* Number of core keys graph_write_core() packs, and the packing itself, in
 * the documented order: kind id family n m directed s t src dst cap w cap_scale. */
enum { GRAPH_CORE_KEYS = 13 };
void graph_write_core(struct writer *w, const struct graph *g);

/* Integer capacities for the exact max-flow algorithms: k[e] = round(cap[e] *
 * units), and returns units, the number of integer units in 1.0 (real
 * values are k / units).  When every capacity is, within 1e-5 relative, a
 * multiple of 1/scale for the record's cap_scale or the smallest scale in
 * 1..1000 that works, units is that scale and the integers are exact (k/10
 * capacities, unit capacities, min-max rescaled integers).  Any other
 * capacities (real vessel data) are quantised to 2^-40 of the largest one:
 * exact for that network, far below float32's own resolution. */
double graph_capacity_units(const struct graph *g, int64_t *k);

#endif
