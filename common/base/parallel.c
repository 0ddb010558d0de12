/* parallel.c - parallel_rows (parallel.h) on the process-wide task pool
 * (workers.h): the range is cut into `pieces` contiguous pieces, each a
 * task.  Rows are independent, so the cut changes no bit. */
#include "parallel.h"
#include "workers.h"

struct pieces {
    void (*fn)(void *ctx, int64_t lo, int64_t hi);
    void *ctx;
    int64_t n, count;
};

static void run_piece(void *arg, int64_t i, int worker)
{
    const struct pieces *p = arg;
    p->fn(p->ctx, p->n * i / p->count, p->n * (i + 1) / p->count);
}

void parallel_rows(int threads, int64_t n, int64_t grain, void (*fn)(void *ctx, int64_t lo, int64_t hi), void *ctx)
{
    if (n <= 0)
        return;
    if (grain < 1)
        grain = 1;
    int64_t count = threads < 1 ? 1 : threads;
    if (count > workers_threads())
        count = workers_threads();
    if (count > n / grain)
        count = n / grain;
    if (count <= 1) {
        fn(ctx, 0, n);
        return;
    }
    struct pieces p = {fn, ctx, n, count};
    workers_run(count, run_piece, &p);
}
