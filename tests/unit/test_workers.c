/* test_workers - the process-wide task pool: every task of every job runs
 * exactly once, also when jobs follow each other faster than the helpers
 * wake (a helper late for one job must not take an index of the next). */
#include "check.h"
#include "workers.h"
#include <stdatomic.h>
#include <string.h>

enum { MAX_TASKS = 16, JOBS = 20000 };

struct job {
    _Atomic int runs[MAX_TASKS];
    int tag;                       /* which job the task belongs to */
    _Atomic int wrong_job;
};

static struct job *current;

static void count_task(void *context, int64_t i, int worker)
{
    struct job *j = context;
    if (j != current)
        atomic_fetch_add(&j->wrong_job, 1);
    atomic_fetch_add(&j->runs[i], 1);
}

static void test_every_task_once(int threads)
{
    workers_start(threads);
    static struct job jobs[2];
    int bad = 0, wrong = 0;
    for (int k = 0; k < JOBS; k++) {
        struct job *j = &jobs[k % 2];
        memset(j, 0, sizeof *j);
        current = j;
        int tasks = 2 + k % (MAX_TASKS - 1);
        workers_run(tasks, count_task, j);
        for (int i = 0; i < MAX_TASKS; i++)
            if (atomic_load(&j->runs[i]) != (i < tasks))
                bad++;
        wrong += atomic_load(&j->wrong_job);
    }
    workers_stop();
    CHECK(bad == 0 && wrong == 0, "%d threads: %d jobs back to back, every task once (%d miscounted, %d run late)",
          threads, JOBS, bad, wrong);
}

int main(void)
{
    check_file_name = "workers";
    test_every_task_once(2);
    test_every_task_once(3);
    return check_done();
}
