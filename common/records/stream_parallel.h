/* stream_parallel.h - a filter's records mapped on several threads, the
 * output byte for byte what one thread writes, in input order, and the
 * first bad record's error the one reported (the same line, the same exit
 * code), whatever the thread count.  For filters whose per-record work is
 * small and many (ff-trace's tracers); stream_map (stream.h) is the one-
 * thread form. */
#ifndef DAR_STREAM_PARALLEL_H
#define DAR_STREAM_PARALLEL_H
#include <stdio.h>
#include "progress.h"
#include "stream.h"

struct stream_parallel {
    int threads;                /* >= 1, the calling thread among them */
    /* Map one record to w, with this thread's state; may die (exit code and
     * message as a one-thread filter would). */
    void (*each)(struct writer *w, const struct record *rec, void *state);
    /* Each thread's state from context (NULL: the state is context, shared
     * read-only), and its release at the end (may be NULL). */
    void *(*begin)(void *context);
    void (*end)(void *state);
    void *context;
    enum progress_mode progress;
    const char *unit;           /* of the progress line: "graphs" */
};

void stream_map_parallel(FILE *in, const char *in_name, FILE *out, const struct stream_parallel *sp);

/* The other way to use several threads, for records that are each one
 * whole (vessel) graph: one record at a time, its work on the worker pool.
 * Starts the pool (workers_start_option(threads)), runs stream_map() with
 * records up to STREAM_GRAPH_MAX_RECORD, stops the pool; dies (65) when in
 * holds no record.  lc-train, gnn-train and node2vec run through it. */
#define STREAM_GRAPH_MAX_RECORD ((size_t)32 << 30)
void stream_map_graphs(FILE *in, const char *in_name, FILE *out, stream_each_fn *each, void *context, int64_t threads);

#endif
