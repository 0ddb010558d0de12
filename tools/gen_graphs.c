/* gen_graphs.c - gen-graphs' body: records of a family or one vessel graph,
 * through the cache when the output is large. */
#include "gen_graphs.h"
#include "cache.h"
#include "die.h"
#include "graph.h"
#include "progress.h"
#include "stream.h"
#include "tensor.h"
#include "vessel.h"
#include "vesselgraph_csv.h"
#include <stdlib.h>
#include <string.h>

/* Below this many node pairs in all (count * nodes^2) generating is cheaper
 * than hashing the executable and copying an entry: no cache. */
#define CACHE_MIN_WORK ((double)(1 << 24))
/* Above this much work the progress line appears (on a terminal). */
#define PROGRESS_MIN_WORK ((double)(1 << 22))
/* Vessel graphs from this many edges are cached: below it generating one
 * is too cheap to be worth an entry. */
#define VESSEL_CACHE_MIN_EDGES 200000

/* Start the cached run and look it up: NULL on a hit (already copied to
 * out), else where to generate.  A small output bypasses the cache. */
static FILE *lookup(struct cached_run *run, const struct gen_graphs_options *o, FILE *out, bool small)
{
    if (small && o->verbose && !o->no_cache)
        fprintf(stderr, "%s: cache not used for a small output\n", o->spec->tool);
    cached_run_begin(run, o->spec, o->no_cache || small, o->verbose);
    return cached_run_lookup(run, out);
}

/* One vessel record, generated (cached when large) or read from CSVs (not
 * cached: parsing costs about what hashing the files would). */
static void vessel_run(const struct gen_graphs_options *o, FILE *out)
{
    struct vessel_graph v;
    struct writer w;
    if (o->from_vesselgraph[0]) {
        vesselgraph_read(o->from_vesselgraph, o->graph.seed, &v);   /* dies 65/66 naming file:line */
        writer_init(&w, out);
        vessel_write(&w, &v);
        vessel_free(&v);
        return;
    }
    bool large = o->graph.edges >= VESSEL_CACHE_MIN_EDGES;
    struct cached_run run = {0};
    FILE *dest = lookup(&run, o, out, !large);
    if (dest) {
        char err[256];
        struct progress p;
        progress_begin(&p, progress_mode_of(o->quiet, o->progress, large), "graphs", 1);
        if (!vessel_generate(o->graph.edges, o->graph.seed, &v, err, sizeof err))
            die(EX_SOFTWARE, "record 0: %s", err);
        writer_init(&w, dest);
        vessel_write(&w, &v);
        vessel_free(&v);
        progress_update(&p, 1);
        progress_end(&p);
    }
    cached_run_end(&run);
}

void gen_graphs_run(FILE *out, const struct gen_graphs_options *o)
{
    if (strcmp(o->graph.family, "vessel") == 0 || o->from_vesselgraph[0]) {
        vessel_run(o, out);
        return;
    }
    double work = (double)o->count * (double)o->graph.nodes * (double)o->graph.nodes;
    struct cached_run run = {0};
    FILE *dest = lookup(&run, o, out, work < CACHE_MIN_WORK);
    if (dest) {
        struct progress p;
        progress_begin(&p, progress_mode_of(o->quiet, o->progress, work >= PROGRESS_MIN_WORK), "graphs", o->count);
        struct writer w;
        writer_init(&w, dest);
        for (int64_t k = 0; k < o->count; k++) {
            char err[256];
            struct graph g;
            if (!graphgen(&o->graph, k, &g, err, sizeof err))
                die(EX_SOFTWARE, "record %lld: %s", (long long)k, err);
            /* a flow network's keys are graph_write_core's, in its order */
            bool optimum = o->optimum_nodes > 0;
            mp_map(&w, (uint32_t)graph_instance_keys(&g) + (optimum ? (uint32_t)o->algorithm->noptimum_keys : 0));
            graph_write_instance(&w, &g);
            if (optimum)
                o->algorithm->write_optimum(&w, &g, o->optimum_nodes);
            graph_free(&g);
            progress_update(&p, k + 1);
        }
        progress_end(&p);
    }
    cached_run_end(&run);
}
