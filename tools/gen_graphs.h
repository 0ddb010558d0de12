/* gen_graphs.h - gen-graphs' body: the records of a synthetic family, or one
 * vessel graph generated or read from VesselGraph CSVs (formats/graph.md,
 * formats/vessel.md).  Large outputs are cached; small ones cost less to
 * make than to hash and copy. */
#ifndef DAR_GEN_GRAPHS_H
#define DAR_GEN_GRAPHS_H
#include "algorithm.h"
#include "cli.h"
#include "graphgen.h"
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct gen_graphs_options {
    struct graphgen_options graph;  /* checked by graphgen_check unless from a directory */
    const struct dar_algorithm *algorithm;  /* the instance's registry row (--instance) */
    int64_t count;                  /* records; 1 for a vessel graph */
    const char *from_vesselgraph;   /* a VesselGraph directory, or "" */
    int64_t optimum_nodes;          /* > 0: the algorithm's write_optimum adds the optimum, with this
                                       budget per graph in branch-and-bound nodes; 0: none */
    bool no_cache, verbose, quiet, progress;
    const struct cli_spec *spec;    /* the tool's options: the cache key */
};

void gen_graphs_run(FILE *out, const struct gen_graphs_options *o);

#endif
