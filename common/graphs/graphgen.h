/* graphgen.h - synthetic flow networks (dar-reference.md §1, §10).
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

enum capacity_law {
    CAP_MAX_OF_TWO,        /* max of two integer draws in 1..9, /10 (authors' code) */
    CAP_UNIFORM_MINMAX     /* integers U{0..10}, min-max rescaled per graph (paper) */
};

struct graphgen_options {
    const char *family;    /* "two-community", "bipartite", "erdos-renyi", "vessel" */
    int nodes;             /* not used by "vessel" */
    int64_t edges;         /* "vessel" only: exact edge count (vessel.h) */
    double density;        /* within communities / ER edge probability (0.75) */
    double inter_density;  /* between communities (0.05) */
    bool directed;
    enum capacity_law capacity;
    uint64_t seed;
};

/* Are the options able to make a graph (known family, densities in [0,1],
 * node count the family accepts: two-community even and >= 4, bipartite
 * >= 4, erdos-renyi >= 2)?  false with a reason in err.  graphgen() checks
 * too; tools call this first to fail with a usage error before writing. */
bool graphgen_check(const struct graphgen_options *o, char *err, size_t errlen);

/* "max-of-two" or "uniform-minmax" into *law; false if neither. */
bool graphgen_capacity_law(const char *name, enum capacity_law *law);

/* Generate graph k into g (allocates; free with graph_free).  Returns false
 * with a reason in err when the options cannot make such a graph.  The
 * "vessel" family has more keys than a graph: vessel_generate (vessel.h)
 * makes it; graphgen() refuses it. */
bool graphgen(const struct graphgen_options *o, int64_t k, struct graph *g, char *err, size_t errlen);

#endif
