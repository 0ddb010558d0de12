/* workers.h - one process-wide pool of threads that run numbered tasks.
 *
 * A caller cuts its work into tasks whose boundaries do not depend on the
 * thread count (fixed-size row chunks, one graph each, ...), each task
 * writes only its own output or its own slot, and the caller combines slots
 * in task order after workers_run returns.  Then the result is the same bits
 * for 1 thread or 64: which thread ran a task never matters.
 *
 * Without workers_start, or from inside a task, or while another thread's
 * job runs, workers_run runs every task itself in increasing order: a kernel
 * may call it anywhere. */
#ifndef DAR_WORKERS_H
#define DAR_WORKERS_H
#include <stdint.h>

/* Start threads - 1 helper threads (the caller is the other one) and set
 * OpenBLAS to one thread, since the parallelism is ours.  Calling it again
 * with another count replaces the pool.  threads < 1 means 1. */
void workers_start(int threads);
/* workers_start for a tool's --threads N: N threads, or one per CPU this
 * process may use when N < 1.  A tool's body calls it first and
 * workers_stop last (ARCHITECTURE.md §5); its main never does. */
void workers_start_option(int64_t threads);
/* Join the helpers; later workers_run calls run inline. */
void workers_stop(void);
/* Threads a workers_run job may use (1 without a pool). */
int workers_threads(void);

/* Run task(context, i, worker) for every i in [0, tasks) and return when all
 * are done.  worker in [0, workers_threads()) names the thread running it
 * (for per-thread scratch); a task must not depend on it for its result. */
void workers_run(int64_t tasks, void (*task)(void *context, int64_t i, int worker), void *context);

#endif
