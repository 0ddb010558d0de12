/* parallel.c - parallel_rows (parallel.h) on one process-wide set of
 * workers (workers.h), started at the first call that wants more than one
 * thread and restarted only when the thread count asked for changes.  Calls
 * come from one thread at a time (the tool's main thread). */
#include "parallel.h"
#include "workers.h"
#include <pthread.h>

static struct workers pool;
static int pool_size;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

struct pieces {
    void (*fn)(void *ctx, int64_t lo, int64_t hi);
    void *ctx;
    int64_t n, count;
};

static void run_piece(void *arg, int worker, int workers)
{
    const struct pieces *p = arg;
    if (worker < p->count)
        p->fn(p->ctx, p->n * worker / p->count, p->n * (worker + 1) / p->count);
}

void parallel_rows(int threads, int64_t n, int64_t grain, void (*fn)(void *ctx, int64_t lo, int64_t hi), void *ctx)
{
    if (n <= 0)
        return;
    if (grain < 1)
        grain = 1;
    int64_t count = threads < 1 ? 1 : threads;
    if (count > n / grain)
        count = n / grain;
    if (count <= 1) {
        fn(ctx, 0, n);
        return;
    }
    pthread_mutex_lock(&pool_lock);
    if (pool_size != threads) {
        if (pool_size)
            workers_stop(&pool);
        workers_start(&pool, threads);
        pool_size = threads;
    }
    struct pieces p = {fn, ctx, n, count};
    workers_run(&pool, run_piece, &p);
    pthread_mutex_unlock(&pool_lock);
}
