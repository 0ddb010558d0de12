/* workers.c - the thread set of workers.h: threads wait on a generation
 * counter, the caller bumps it and waits for the count of running ones to
 * reach zero. */
#include "workers.h"
#include "die.h"
#include <stdlib.h>
#include <string.h>

struct worker_arg { struct workers *w; int id; };

static void *worker_main(void *arg)
{
    struct workers *w = ((struct worker_arg *)arg)->w;
    int id = ((struct worker_arg *)arg)->id;
    free(arg);
    uint64_t seen = 0;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (w->generation == seen && !w->quit)
            pthread_cond_wait(&w->go, &w->mu);
        if (w->quit)
            break;
        seen = w->generation;
        pthread_mutex_unlock(&w->mu);
        w->fn(w->ctx, id, w->n);
        pthread_mutex_lock(&w->mu);
        if (--w->running == 0)
            pthread_cond_signal(&w->done);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

void workers_start(struct workers *w, int n)
{
    memset(w, 0, sizeof *w);
    w->n = n < 1 ? 1 : n;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->go, NULL);
    pthread_cond_init(&w->done, NULL);
    w->tid = xcalloc((size_t)w->n, sizeof *w->tid);
    for (int i = 1; i < w->n; i++) {
        struct worker_arg *a = xmalloc(sizeof *a);
        a->w = w;
        a->id = i;
        if (pthread_create(&w->tid[i], NULL, worker_main, a))
            die(EX_SOFTWARE, "cannot start a thread:");
    }
}

void workers_run(struct workers *w, void (*fn)(void *, int, int), void *ctx)
{
    if (w->n == 1) {
        fn(ctx, 0, 1);
        return;
    }
    pthread_mutex_lock(&w->mu);
    w->fn = fn;
    w->ctx = ctx;
    w->running = w->n - 1;
    w->generation++;
    pthread_cond_broadcast(&w->go);
    pthread_mutex_unlock(&w->mu);
    fn(ctx, 0, w->n);
    pthread_mutex_lock(&w->mu);
    while (w->running > 0)
        pthread_cond_wait(&w->done, &w->mu);
    pthread_mutex_unlock(&w->mu);
}

void workers_stop(struct workers *w)
{
    pthread_mutex_lock(&w->mu);
    w->quit = true;
    pthread_cond_broadcast(&w->go);
    pthread_mutex_unlock(&w->mu);
    for (int i = 1; i < w->n; i++)
        pthread_join(w->tid[i], NULL);
    free(w->tid);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->go);
    pthread_cond_destroy(&w->done);
}
