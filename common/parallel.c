/* parallel.c - parallel_rows (parallel.h). */
#include "parallel.h"
#include "die.h"
#include <pthread.h>

struct piece {
    void (*fn)(void *ctx, int64_t lo, int64_t hi);
    void *ctx;
    int64_t lo, hi;
};

static void *run_piece(void *arg)
{
    struct piece *p = arg;
    p->fn(p->ctx, p->lo, p->hi);
    return NULL;
}

void parallel_rows(int threads, int64_t n, int64_t grain, void (*fn)(void *ctx, int64_t lo, int64_t hi), void *ctx)
{
    if (n <= 0)
        return;
    if (grain < 1)
        grain = 1;
    int64_t t = threads < 1 ? 1 : threads;
    if (t > n / grain)
        t = n / grain;
    if (t <= 1) {
        fn(ctx, 0, n);
        return;
    }
    enum { MAX_THREADS = 256 };
    if (t > MAX_THREADS)
        t = MAX_THREADS;
    struct piece pieces[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    for (int64_t i = 0; i < t; i++)
        pieces[i] = (struct piece){fn, ctx, n * i / t, n * (i + 1) / t};
    for (int64_t i = 1; i < t; i++)
        if (pthread_create(&tid[i], NULL, run_piece, &pieces[i]))
            die(EX_SOFTWARE, "cannot start a thread:");
    run_piece(&pieces[0]);
    for (int64_t i = 1; i < t; i++)
        pthread_join(tid[i], NULL);
}
