/* cpus.c - the CPUs a tool's default thread count is made of. */
#define _GNU_SOURCE     /* sched_getaffinity, CPU_COUNT */
#include "cpus.h"
#include <sched.h>
#include <unistd.h>

int cpus_usable(void)
{
    cpu_set_t set;
    long n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (int)n;
}
