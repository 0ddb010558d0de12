/* cpus.h - how many threads "one per CPU" means for this process, and the
 * two primitives of a thread that spins briefly before it sleeps. */
#ifndef DAR_CPUS_H
#define DAR_CPUS_H
#include <stdint.h>

/* The CPUs this process may run on (its affinity: a Slurm job's CPUs, a
 * taskset), not the machine's; at least 1. */
int cpus_usable(void);

/* CLOCK_MONOTONIC in nanoseconds: a spin's deadline. */
int64_t clock_ns(void);

/* One iteration of a spin-wait loop (x86's PAUSE: yields the core's
 * pipeline to its sibling hyperthread). */
static inline void cpu_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

#endif
