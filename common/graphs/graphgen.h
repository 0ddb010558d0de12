/* graphgen.h - synthetic graphs: flow networks (dar-reference.md §1, §10)
 * and the instances of shortest paths, matching and vertex cover
 * (formats/graph.md).
 *
 * Graph k of a set depends only on (options, seed, k): the generator for
 * record k is rng_init(seed, family stream, k), so a set of 10 is a prefix of
 * a set of 1000 and output is bit-identical across runs. */
#ifndef DAR_GRAPHGEN_H
#define DAR_GRAPHGEN_H
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include "graph.h"

/* The families, named once: graphgen's table and gen-graphs' --family
 * choices both come from this list. */
#define GRAPHGEN_FAMILIES(X) \
    X(FAM_TWO_COMMUNITY, "two-community") \
    X(FAM_BIPARTITE, "bipartite") \
    X(FAM_ERDOS_RENYI, "erdos-renyi") \
    X(FAM_VESSEL, "vessel") \
    X(FAM_BIPARTITE_SIDES, "bipartite-sides") \
    X(FAM_BARABASI_ALBERT, "barabasi-albert") \
    X(FAM_STAR, "star") \
    X(FAM_LOBSTER, "lobster")
#define GRAPHGEN_CHOICE_(id, name) "|" name
/* "two-community|bipartite|...", for CLI_CHOICE */
#define GRAPHGEN_FAMILY_CHOICES (&(GRAPHGEN_FAMILIES(GRAPHGEN_CHOICE_))[1])

/* Which problem a record is an instance of: it decides the keys written
 * (formats/graph.md, "Instances"). */
#define GRAPHGEN_INSTANCES(X) \
    X(INSTANCE_MAX_FLOW, "max-flow") \
    X(INSTANCE_SHORTEST_PATHS, "shortest-paths") \
    X(INSTANCE_MATCHING, "matching") \
    X(INSTANCE_VERTEX_COVER, "vertex-cover")
#define GRAPHGEN_INSTANCE_CHOICES (GRAPHGEN_INSTANCES(GRAPHGEN_CHOICE_) + 1)
#define GRAPHGEN_ENUM_(id, name) id,
enum graph_instance { GRAPHGEN_INSTANCES(GRAPHGEN_ENUM_) INSTANCE_COUNT };

enum node_weight_law {
    NODE_W_UNIFORM,        /* U(0,1] per node (PDNAR's U(1e-10, 1)) */
    NODE_W_UNIT            /* 1 on every node: the unweighted cover */
};
#define GRAPHGEN_NODE_WEIGHT_CHOICES "uniform|unit"

enum capacity_law {
    CAP_MAX_OF_TWO,        /* max of two integer draws in 1..9, /10 (authors' code) */
    CAP_UNIFORM_MINMAX,    /* integers U{0..10}, min-max rescaled per graph (paper) */
    CAP_ZERO_ONE           /* bipartite only: each edge 0 or 1, U{0,1} (the paper's text) */
};

enum { GRAPHGEN_MAX_SIZES = 16 };

struct graphgen_options {
    const char *family;    /* one of GRAPHGEN_FAMILIES */
    int nodes;             /* not used by "vessel"; bipartite-sides: side_a + side_b */
    int64_t edges;         /* "vessel" only: exact edge count (vessel.h) */
    double density;        /* within communities / ER edge probability (0.75) */
    double inter_density;  /* between communities (0.05) */
    bool directed;
    enum capacity_law capacity;
    uint64_t seed;
    enum graph_instance instance;   /* max-flow (the zero value): today's keys */
    /* Edge probability of erdos-renyi and bipartite-sides: fixed when lo ==
     * hi, else drawn U(lo, hi) per graph.  p_given false: the default of
     * the family and instance (graphgen_probability). */
    bool p_given;
    double p_lo, p_hi;
    int side_a, side_b;             /* bipartite-sides; 0: nodes/2 and the rest */
    enum node_weight_law node_weights;
    /* Graph k has sizes[k % nsizes] nodes (nsizes 0: nodes), as CLRS's
     * training cycles through its lengths 4, 7, 11, 13, 16. */
    int nsizes;
    int sizes[GRAPHGEN_MAX_SIZES];
    /* shortest paths drawn as CLRS's Bellman-Ford sampler does: p chosen
     * per graph from {0.1, ..., 0.9} (unless --p), a pair an edge iff both
     * of its Bernoulli(p) draws succeed (B·Bᵀ, so with probability p²), w =
     * √(u·u′ + 10⁻³) from the two directions' U[0,1) draws */
    bool clrs_law;
};

/* "4,7,11" into o->sizes (each 2..GRAPHGEN_MAX_NODES); false with a reason. */
bool graphgen_parse_sizes(const char *text, struct graphgen_options *o, char *err, size_t errlen);

/* "P" or "LO:HI" into lo, hi (both in [0,1], lo <= hi); false with a reason. */
bool graphgen_parse_probability(const char *text, double *lo, double *hi, char *err, size_t errlen);
/* "A,B" (both >= 1) into a, b; false with a reason. */
bool graphgen_parse_sides(const char *text, int *a, int *b, char *err, size_t errlen);
/* Name to enum; false if unknown. */
bool graphgen_instance(const char *name, enum graph_instance *instance);
bool graphgen_node_weight_law(const char *name, enum node_weight_law *law);

/* Are the options able to make a graph (known family, densities in [0,1],
 * node count the family accepts: two-community even and >= 4, bipartite
 * >= 4, erdos-renyi >= 2)?  false with a reason in err.  graphgen() checks
 * too; tools call this first to fail with a usage error before writing. */
bool graphgen_check(const struct graphgen_options *o, char *err, size_t errlen);

/* "max-of-two", "uniform-minmax" or "zero-one" into *law; false if none. */
bool graphgen_capacity_law(const char *name, enum capacity_law *law);

/* Generate graph k into g (allocates; free with graph_free).  Returns false
 * with a reason in err when the options cannot make such a graph.  The
 * "vessel" family has more keys than a graph: vessel_generate (vessel.h)
 * makes it; graphgen() refuses it. */
bool graphgen(const struct graphgen_options *o, int64_t k, struct graph *g, char *err, size_t errlen);

#endif
