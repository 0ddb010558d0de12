/* hint_bound.h - the memory bound of the tracers' hints.
 *
 * A tracer knows from n and m alone the most frames its trace can have, so
 * it refuses a graph whose hints could exceed the bound before allocating
 * anything: a valid record of a few bytes that declares a huge n fails with
 * one line instead of an allocation of gigabytes.  Without hints the
 * tracers need O(n + m) memory and no bound applies. */
#ifndef DAR_HINT_BOUND_H
#define DAR_HINT_BOUND_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The bound a tracer's caller passes unless it has a reason for another. */
#define HINT_BYTES_MAX ((size_t)1 << 30)

/* bytes is a double so that absurd sizes do not wrap around.  false with
 * the reason in err when they exceed max. */
static inline bool hint_bytes_fit(double bytes, size_t max, const char *what, char *err, size_t errlen)
{
    if (bytes <= (double)max)
        return true;
    snprintf(err, errlen, "the %s hints of this graph could take %.3g bytes, over the bound of %zu "
             "(trace it without hints)", what, bytes, max);
    return false;
}

#endif
