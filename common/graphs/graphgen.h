/* graphgen.h - synthetic graphs: flow networks (dar-reference.md §1, §10)
 * and the instances of the other problems (formats/graph.md): a family
 * makes the structure, an instance kind (struct graphgen_instance, named by
 * an algorithm's registry row) adds its keys.
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

#define GRAPHGEN_ENUM_(id, name) id,

struct graphgen_options;
struct graph;

/* What records of one kind of instance are: the keys the generator adds to
 * a family's structure (formats/graph.md, "Instances") and the families
 * and options it takes.  An algorithm's registry row points at one
 * (algorithm.h `generate`); the ones below are those the rows share. */
struct graphgen_instance {
    const char *keys_help;  /* the keys it writes, for gen-graphs --help: "s t cap w" */
    /* s, t, cap and w as the families with an s and t draw them
     * (two-community, bipartite, erdos-renyi); the only kind that may be
     * directed, and the one an instance of NULL is */
    bool flow_network;
    bool needs_sides;       /* a side per node: bipartite-sides, or bipartite without its s and t */
    bool clrs_law;          /* takes --law clrs (CLRS's sampler of the edges and w) */
    double p_lo, p_hi;      /* erdos-renyi's edge probability unless --p; p_lo < 0: --density */
    /* The keys onto graph k's structure (n, m, src, dst; s = t = -1, no
     * other key); the options are checked (graphgen_check). */
    void (*finish)(const struct graphgen_options *o, int64_t k, struct graph *g);
};

/* s t cap w (cap_scale) on the families with an s and t, --capacity's law */
extern const struct graphgen_instance graphgen_flow_network;
/* s uniform, w ~ U[0,1) (or --law clrs's), edge probability 0.25 */
extern const struct graphgen_instance graphgen_weighted_from_source;
/* side: bipartite-sides' A and B, or bipartite's without s and t; p 0.25 */
extern const struct graphgen_instance graphgen_two_sided;
/* node_w by --node-weights, and side on bipartite-sides; p U(0.2, 0.8) */
extern const struct graphgen_instance graphgen_node_weighted;

enum node_weight_law {
    NODE_W_UNIFORM,        /* U(0,1] per node (PDNAR's U(1e-10, 1)) */
    NODE_W_UNIT            /* 1 on every node: the unweighted problem */
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
    const struct graphgen_instance *instance;   /* NULL: graphgen_flow_network */
    const char *instance_name;      /* the instance's name in messages (its registry row's); NULL: "these" */
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
    /* the edges and w drawn as CLRS's Bellman-Ford sampler does: p chosen
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
