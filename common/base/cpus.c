/* cpus.c - the CPUs a tool's default thread count is made of, and the clock of a spin. */
#define _GNU_SOURCE     /* sched_getaffinity, CPU_COUNT */
#include "cpus.h"
#include <time.h>
#include <sched.h>
#include <unistd.h>

int cpus_usable(void)
{
    cpu_set_t set;
    long n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (int)n;
}

int64_t clock_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}
