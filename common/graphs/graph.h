/* graph.h - a graph record as the tools see it (formats/graph.md): a flow
 * network, or the instance of another problem (shortest paths, matching,
 * vertex cover) with only the keys that problem needs.
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
#include <stddef.h>
#include "stream.h"

struct graph {
    int64_t id;
    char family[32];
    int n, m;
    bool directed;
    int s, t;              /* -1 when the record has none (graph_read_instance) */
    int32_t *src, *dst;    /* [m] */
    float *cap;            /* [m] capacity, >= 0, finite; NULL when absent */
    float *w;              /* [m] edge weight in [0,1]; NULL when absent */
    int64_t cap_scale;     /* cap[e]*cap_scale is an integer (0: not known) */
    float *node_w;         /* [n] node weight, >= 0, finite; NULL when absent */
    uint8_t *side;         /* [n] 0 = side A, 1 = side B; NULL when absent */
};

/* What an algorithm needs from a record, as a mask of keys. */
enum graph_need {
    GRAPH_NEED_S = 1 << 0,
    GRAPH_NEED_T = 1 << 1,         /* and s != t */
    GRAPH_NEED_CAP = 1 << 2,
    GRAPH_NEED_W = 1 << 3,
    GRAPH_NEED_NODE_W = 1 << 4,
    GRAPH_NEED_SIDE = 1 << 5,      /* and every edge joins A to B (a directed arc runs A->B) */
};
#define GRAPH_NEEDS_MAX_FLOW (GRAPH_NEED_S | GRAPH_NEED_T | GRAPH_NEED_CAP)
#define GRAPH_NEEDS_SHORTEST_PATHS (GRAPH_NEED_S | GRAPH_NEED_W)
#define GRAPH_NEEDS_MATCHING GRAPH_NEED_SIDE
#define GRAPH_NEEDS_VERTEX_COVER GRAPH_NEED_NODE_W

/* Read and validate the core keys of a flow network; dies with exit 65
 * naming the record and the key on anything wrong (missing keys, lengths that
 * disagree with n or m, s == t, endpoints out of range, self-loops, duplicate
 * pairs, negative/NaN/infinite capacity, w outside [0,1]).  A missing w
 * reads as 1 on every edge (Bellman-Ford on hop counts). */
void graph_read(struct graph *g, const struct record *rec);

/* Read any graph record: n, m, src, dst as graph_read checks them, and
 * every optional key (s, t, cap, w, cap_scale, node_w, side) that is present,
 * validated; an absent one stays NULL or -1 (w is not filled in).  Then
 * graph_require(g, needs, algorithm, rec). */
void graph_read_instance(struct graph *g, const struct record *rec, unsigned needs, const char *algorithm);

/* The first key of needs that rec lacks ("s", "t", "cap", "w", "node_w",
 * "side"), or NULL: which algorithm's instance a record is, before reading it. */
const char *graph_missing_key(const struct record *rec, unsigned needs);
/* The keys of needs, space-separated, into buf ("s t cap"), for --help. */
const char *graph_needs_keys(unsigned needs, char *buf, size_t size);

/* Whether g has what needs asks for: false with the reason in err, as
 * "'side' is missing (matching needs a side per node)" or "edge 4 joins
 * nodes 2 and 5, both on side A".  algorithm names the user in the reason. */
bool graph_check_needs(const struct graph *g, unsigned needs, const char *algorithm, char *err, size_t errlen);
/* graph_check_needs or die: "tool: record 17: <reason>", exit 65. */
void graph_require(const struct graph *g, unsigned needs, const char *algorithm, const struct record *rec);

void graph_free(struct graph *g);

/* Number of core keys graph_write_core() packs, and the packing itself, in
 * the documented order: kind id family n m directed s t src dst cap w cap_scale. */
enum { GRAPH_CORE_KEYS = 13 };
void graph_write_core(struct writer *w, const struct graph *g);

/* The keys of an instance that has only some of the optional keys: kind id
 * family n m directed, then s t (when >= 0), src dst, cap w cap_scale (cap
 * and cap_scale when cap is there), node_w, side, each only when present.
 * graph_instance_keys() counts them for mp_map. */
int graph_instance_keys(const struct graph *g);
void graph_write_instance(struct writer *w, const struct graph *g);

/* Integer capacities for the exact max-flow algorithms: k[e] = round(cap[e] *
 * units), and returns units, the number of integer units in 1.0 (real
 * values are k / units).  When every capacity is, within 1e-5 relative, a
 * multiple of 1/scale for the record's cap_scale or the smallest scale in
 * 1..1000 that works, units is that scale and the integers are exact (k/10
 * capacities, unit capacities, min-max rescaled integers).  Any other
 * capacities (real vessel data) are quantised to 2^-40 of the largest one:
 * exact for that network, far below float32's own resolution. */
double graph_capacity_units(const struct graph *g, int64_t *k);

/* graph_capacity_units() for an exact algorithm over rec's graph: a record
 * whose capacities span more than 2^41 is refused (record_die), since an
 * edge rounded to 0 units would vanish from the flow network. */
double graph_capacity_units_exact(const struct record *rec, const struct graph *g, int64_t *k);

#endif
