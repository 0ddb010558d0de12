/* graph.h - a graph record as the tools see it (formats/graph.md): a flow
 * network, or the instance of another problem with only the keys that
 * problem needs (the keys its registry row lists, struct graph_key).
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
#include "tensor.h"

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
    float *cost;           /* [m] cost per unit of flow, finite, any sign; NULL when absent */
};

/* One key an instance must carry, as an algorithm's registry row lists it
 * (algorithm.h instance_keys).  The reader checks every optional key it
 * finds (its type, its length by location, its values: a node index, a
 * finite number >= 0, 0 or 1); a row adds that the key is there and the
 * check across keys it names. */
enum graph_location { GRAPH_AT_GRAPH, GRAPH_AT_NODE, GRAPH_AT_EDGE };
enum graph_key_check {
    GRAPH_CHECK_NONE,
    GRAPH_CHECK_NOT_S,      /* t: a node other than s (when the row lists s too) */
    GRAPH_CHECK_SIDES,      /* every edge joins side A to side B (a directed arc runs A->B) */
};
struct graph_key {
    const char *key;        /* one of the optional keys: s t cap w node_w side cost */
    enum dtype dtype;       /* as the record stores it (scalars: DT_I64) */
    enum graph_location location;
    enum graph_key_check check;
    const char *what;       /* "a source": the reason in "'s' is missing (NAME needs a source)" */
};

/* Read and validate the core keys of a flow network; dies with exit 65
 * naming the record and the key on anything wrong (missing keys, lengths that
 * disagree with n or m, s == t, endpoints out of range, self-loops, duplicate
 * pairs, negative/NaN/infinite capacity, w outside [0,1]).  A missing w
 * reads as 1 on every edge (Bellman-Ford on hop counts). */
void graph_read(struct graph *g, const struct record *rec);

/* Read any graph record: n, m, src, dst as graph_read checks them, and
 * every optional key (s, t, cap, w, cap_scale, node_w, side) that is present,
 * validated; an absent one stays NULL or -1 (w is not filled in).  Then
 * graph_require(g, keys, nkeys, algorithm, rec). */
void graph_read_instance(struct graph *g, const struct record *rec, const struct graph_key *keys, int nkeys,
                         const char *algorithm);

/* The first of the keys that rec lacks, or NULL: which algorithm's
 * instance a record is, before reading it. */
const char *graph_missing_key(const struct record *rec, const struct graph_key *keys, int nkeys);
/* The keys, space-separated, into buf ("s t cap"), for --help. */
const char *graph_keys_list(const struct graph_key *keys, int nkeys, char *buf, size_t size);

/* Whether g has the keys and passes their checks: false with the reason in
 * err, as "'side' is missing (NAME needs a side per node)" or "edge 4 joins
 * nodes 2 and 5, both on side A".  algorithm names the user in the reason.
 * A row the reader does not know (its key, type or location) is the
 * caller's bug: dies with EX_SOFTWARE. */
bool graph_check_keys(const struct graph *g, const struct graph_key *keys, int nkeys, const char *algorithm,
                      char *err, size_t errlen);
/* graph_check_keys or die: "tool: record 17: <reason>", exit 65. */
void graph_require(const struct graph *g, const struct graph_key *keys, int nkeys, const char *algorithm,
                   const struct record *rec);

void graph_free(struct graph *g);

/* Number of core keys graph_write_core() packs, and the packing itself, in
 * the documented order: kind id family n m directed s t src dst cap w cap_scale. */
enum { GRAPH_CORE_KEYS = 13 };
void graph_write_core(struct writer *w, const struct graph *g);

/* The keys of an instance that has only some of the optional keys: kind id
 * family n m directed, then s t (when >= 0), src dst, cap w cap_scale (cap
 * and cap_scale when cap is there), node_w, side, cost, each only when present.
 * graph_instance_keys() counts them for mp_map. */
int graph_instance_keys(const struct graph *g);
void graph_write_instance(struct writer *w, const struct graph *g);

/* Integer capacities for the exact flow algorithms: k[e] = round(cap[e] *
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
