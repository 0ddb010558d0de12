/* cpus.h - how many threads "one per CPU" means for this process. */
#ifndef DAR_CPUS_H
#define DAR_CPUS_H

/* The CPUs this process may run on (its affinity: a Slurm job's CPUs, a
 * taskset), not the machine's; at least 1. */
int cpus_usable(void);

#endif
