/* mincost_units.c - costs as exact integers (mincost_cost_units) and the
 * one-line form of an instance error (see mincost.h). */
#include "mincost.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

/* Costs beyond this many units leave too little room under mincost_check's
 * 2^58 bound on their sum. */
#define MAX_COST_UNITS 1099511627776.0   /* 2^40 */

void mincost_error_format(const struct mincost_error *err, char *buf, size_t size)
{
    if (err->key)
        snprintf(buf, size, "'%s' entry %lld %s", err->key, (long long)err->index, err->what);
    else
        snprintf(buf, size, "%s", err->what);
}

static bool fail(struct mincost_error *err, int64_t index, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(struct mincost_error *err, int64_t index, const char *fmt, ...)
{
    err->key = "cost";
    err->index = index;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->what, sizeof err->what, fmt, ap);
    va_end(ap);
    return false;
}

/* Whether every cost * scale is, within tolerance (relative, and absolute
 * under 1), an integer of at most 2^40; writes them to k when asked.  A
 * cost the scale would round to 0 does not fit: it would vanish. */
static bool scale_fits(int m, const float *cost, double scale, double tolerance, int64_t *k)
{
    for (int e = 0; e < m; e++) {
        double x = (double)cost[e] * scale, r = nearbyint(x), size = fabs(x);
        if (fabs(x - r) > tolerance * (size > 1.0 ? size : 1.0) || fabs(r) > MAX_COST_UNITS || (r == 0) != (x == 0))
            return false;
        if (k)
            k[e] = (int64_t)r;
    }
    return true;
}

bool mincost_cost_units(int m, const float *cost, int64_t scale_hint, int64_t *k, int64_t *units,
                        struct mincost_error *err)
{
    int largest = -1;
    for (int e = 0; e < m; e++) {
        if (!isfinite(cost[e]))
            return fail(err, e, "is %g, expected a finite cost", (double)cost[e]);
        if (largest < 0 || fabs(cost[e]) > fabs(cost[largest]))
            largest = e;
    }
    /* k/10 costs stored as float32 are off by ~6e-8 relative: 1e-5 accepts
     * them and nothing a smaller scale would not represent. */
    if (scale_hint > 0 && scale_fits(m, cost, (double)scale_hint, 1e-5, k)) {
        *units = scale_hint;
        return true;
    }
    for (int64_t scale = 1; scale <= 1000; scale++)
        if (scale_fits(m, cost, (double)scale, 1e-5, NULL)) {
            scale_fits(m, cost, (double)scale, 1e-5, k);
            *units = scale;
            return true;
        }
    /* Any float is an integer times a power of two: the finest cost sets
     * the power, and the largest must still fit. */
    int finest = 0, power = 0;
    for (int e = 0; e < m; e++)
        for (int p = power; nearbyint(ldexp((double)cost[e], p)) != ldexp((double)cost[e], p); p++) {
            power = p + 1;
            finest = e;
        }
    if (power > 62 || !scale_fits(m, cost, ldexp(1.0, power), 0.0, k))
        return fail(err, finest, "is %g and needs 2^%d units per 1.0 to be exact, which puts the largest cost "
                    "(%g, entry %d) past 2^40 units: costs span too many orders of magnitude for an exact scale",
                    (double)cost[finest], power, (double)cost[largest], largest);
    *units = (int64_t)1 << power;
    return true;
}
