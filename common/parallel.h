/* parallel.h - split a range of rows over threads for kernels whose rows are
 * independent (each row written by one thread from data no thread writes),
 * so the result does not depend on the thread count or the split.
 *
 * Threads are started per call and joined before it returns: a call costs
 * tens of microseconds, nothing next to the row work it is meant for; below
 * `grain` rows per thread fewer threads are used (one for small ranges). */
#ifndef DAR_PARALLEL_H
#define DAR_PARALLEL_H
#include <stdint.h>

/* Run fn(ctx, lo, hi) on contiguous pieces [lo, hi) covering [0, n), on up
 * to `threads` threads (the caller's thread included). */
void parallel_rows(int threads, int64_t n, int64_t grain, void (*fn)(void *ctx, int64_t lo, int64_t hi), void *ctx);

#endif
