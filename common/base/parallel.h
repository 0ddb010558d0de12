/* parallel.h - split a range of rows over threads for kernels whose rows are
 * independent (each row written by one thread from data no thread writes),
 * so the result does not depend on the thread count or the split.
 *
 * The threads are one process-wide set of workers (workers.h), kept between
 * calls; below `grain` rows a piece fewer pieces are made (one, run on the
 * caller's thread, for small ranges).  Calls must not overlap (one calling
 * thread at a time).
 */
#ifndef DAR_PARALLEL_H
#define DAR_PARALLEL_H
#include <stdint.h>

/* Run fn(ctx, lo, hi) on contiguous pieces [lo, hi) covering [0, n), on up
 * to `threads` threads (the caller's thread included). */
void parallel_rows(int threads, int64_t n, int64_t grain, void (*fn)(void *ctx, int64_t lo, int64_t hi), void *ctx);

#endif
