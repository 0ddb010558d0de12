/* workers.c - the process-wide task pool (workers.h).
 *
 * Tasks are claimed from a shared counter, so a slow thread (the machine is
 * often shared) does not hold the others up.  A job is announced by bumping
 * a generation counter; idle helpers poll it for a short while before they
 * sleep on a condition variable, because training calls the pool thousands
 * of times a second and a sleeping thread takes tens of microseconds to
 * wake. */
#define _GNU_SOURCE
#include "workers.h"
#include "cpus.h"
#include "die.h"
#include <cblas.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

/* How long an idle thread polls before it sleeps, and a finished caller
 * polls for the helpers before it sleeps. */
enum { POLL_NS = 200000 };

struct pool {
    int threads;
    pthread_t *helpers;                 /* [threads - 1] */
    pthread_mutex_t lock;
    pthread_cond_t wake, finished;
    /* generation << 32 | next task: a helper claims a task only while the
     * generation is the one it woke for, so a late helper never takes a
     * task of the next job */
    _Atomic uint64_t ticket;
    _Atomic int64_t done;               /* tasks of this job finished */
    _Atomic bool running;               /* a job is on: nested calls go inline */
    bool quit;
    _Atomic int64_t tasks;
    void (*task)(void *, int64_t, int);
    void *context;
};

static struct pool pool = {.threads = 1};
static _Thread_local int this_worker = 0;
static _Thread_local bool inside_task = false;

static uint32_t generation_of(uint64_t ticket) { return (uint32_t)(ticket >> 32); }

/* Run tasks of job `generation` until none is left. */
static void claim_tasks(uint32_t generation)
{
    bool was_inside = inside_task;
    inside_task = true;
    uint64_t t = atomic_load_explicit(&pool.ticket, memory_order_acquire);
    for (;;) {
        if (generation_of(t) != generation || (int64_t)(uint32_t)t >= pool.tasks)
            break;
        if (!atomic_compare_exchange_weak_explicit(&pool.ticket, &t, t + 1, memory_order_acq_rel,
                                                   memory_order_acquire))
            continue;
        pool.task(pool.context, (int64_t)(uint32_t)t, this_worker);
        if (atomic_fetch_add_explicit(&pool.done, 1, memory_order_acq_rel) + 1 == pool.tasks) {
            pthread_mutex_lock(&pool.lock);
            pthread_cond_signal(&pool.finished);
            pthread_mutex_unlock(&pool.lock);
        }
        t = atomic_load_explicit(&pool.ticket, memory_order_acquire);
    }
    inside_task = was_inside;
}

static void *helper_main(void *arg)
{
    this_worker = (int)(intptr_t)arg;
    uint32_t seen = 0;
    for (;;) {
        int64_t deadline = clock_ns() + POLL_NS;
        while (generation_of(atomic_load_explicit(&pool.ticket, memory_order_acquire)) == seen &&
               clock_ns() < deadline) {
            for (int i = 0; i < 64; i++)
                cpu_pause();
            sched_yield();
        }
        pthread_mutex_lock(&pool.lock);
        while (generation_of(atomic_load_explicit(&pool.ticket, memory_order_acquire)) == seen &&
               !pool.quit)
            pthread_cond_wait(&pool.wake, &pool.lock);
        seen = generation_of(atomic_load_explicit(&pool.ticket, memory_order_acquire));
        bool quit = pool.quit;
        pthread_mutex_unlock(&pool.lock);
        if (quit)
            return NULL;
        claim_tasks(seen);
    }
}

void workers_stop(void)
{
    if (pool.threads <= 1)
        return;
    pthread_mutex_lock(&pool.lock);
    pool.quit = true;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    for (int i = 0; i < pool.threads - 1; i++)
        pthread_join(pool.helpers[i], NULL);
    free(pool.helpers);
    pthread_mutex_destroy(&pool.lock);
    pthread_cond_destroy(&pool.wake);
    pthread_cond_destroy(&pool.finished);
    pool = (struct pool){.threads = 1};
}

void workers_start(int threads)
{
    openblas_set_num_threads(1);
    workers_stop();
    if (threads <= 1)
        return;
    pool.threads = threads;
    pool.quit = false;
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.wake, NULL);
    pthread_cond_init(&pool.finished, NULL);
    pool.helpers = xmalloc(sizeof *pool.helpers * (size_t)(threads - 1));
    // the signals that end a tool are the caller's thread's to handle (die.h's
    // cleanup): the helpers start with them blocked
    sigset_t ending, saved;
    sigemptyset(&ending);
    sigaddset(&ending, SIGINT);
    sigaddset(&ending, SIGTERM);
    sigaddset(&ending, SIGHUP);
    sigaddset(&ending, SIGQUIT);
    pthread_sigmask(SIG_BLOCK, &ending, &saved);
    for (int i = 0; i < threads - 1; i++)
        if (pthread_create(&pool.helpers[i], NULL, helper_main, (void *)(intptr_t)(i + 1)))
            die(EX_OSERR, "cannot start a thread:");
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

void workers_start_option(int64_t threads)
{
    workers_start(threads > 0 ? (int)threads : cpus_usable());
}

int workers_threads(void)
{
    return pool.threads;
}

void workers_run(int64_t tasks, void (*task)(void *, int64_t, int), void *context)
{
    if (tasks == 1) {           /* its own products may still use the pool */
        task(context, 0, this_worker);
        return;
    }
    bool expected = false;
    if (tasks <= 1 || tasks > UINT32_MAX / 2 || pool.threads <= 1 || inside_task ||
        !atomic_compare_exchange_strong(&pool.running, &expected, true)) {
        bool was_inside = inside_task;
        inside_task = true;
        for (int64_t i = 0; i < tasks; i++)
            task(context, i, this_worker);
        inside_task = was_inside;
        return;
    }
    pool.tasks = tasks;
    pool.task = task;
    pool.context = context;
    atomic_store_explicit(&pool.done, 0, memory_order_relaxed);
    uint32_t generation = generation_of(atomic_load_explicit(&pool.ticket, memory_order_relaxed)) + 1;
    if (generation == 0)            /* 0 is what a new helper has seen */
        generation = 1;
    pthread_mutex_lock(&pool.lock);
    atomic_store_explicit(&pool.ticket, (uint64_t)generation << 32, memory_order_release);
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    claim_tasks(generation);
    int64_t deadline = clock_ns() + POLL_NS;
    while (atomic_load_explicit(&pool.done, memory_order_acquire) < tasks && clock_ns() < deadline)
        cpu_pause();
    if (atomic_load_explicit(&pool.done, memory_order_acquire) < tasks) {
        pthread_mutex_lock(&pool.lock);
        while (atomic_load_explicit(&pool.done, memory_order_acquire) < tasks)
            pthread_cond_wait(&pool.finished, &pool.lock);
        pthread_mutex_unlock(&pool.lock);
    }
    /* Close the job before the next one changes pool.tasks: a helper that
     * read this job's ticket late must fail its claim, not take an index of
     * the next job under this generation (it would run a task twice). */
    atomic_store_explicit(&pool.ticket, (uint64_t)generation << 32 | UINT32_MAX, memory_order_release);
    atomic_store_explicit(&pool.running, false, memory_order_release);
}
