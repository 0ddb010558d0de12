/* workers.h - a fixed set of threads that run one function together:
 * workers_run(w, fn, ctx) calls fn(ctx, worker, workers) on every worker
 * (the caller's thread is worker 0) and returns when all are done, so each
 * call is a barrier.  Who computes what is the caller's choice; a result
 * that must not depend on the thread count is computed in fixed pieces
 * whatever the worker that takes them (lc_train.c keeps its own copy of
 * this pool; one of the two can go). */
#ifndef DAR_WORKERS_H
#define DAR_WORKERS_H
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct workers {
    int n;
    pthread_t *tid;
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    uint64_t generation;
    int running;
    bool quit;
    void (*fn)(void *ctx, int worker, int workers);
    void *ctx;
};

/* Start n - 1 threads (n < 1 counts as 1). */
void workers_start(struct workers *w, int n);
void workers_run(struct workers *w, void (*fn)(void *ctx, int worker, int workers), void *ctx);
void workers_stop(struct workers *w);

#endif
