/* walk.c - node2vec walks: a uniform fast path and exact rejection sampling
 * (walk.h).  A walk depends only on its rng, so walks drawn on different
 * threads from per-walk streams are the same at any thread count. */
#include "walk.h"
#include <math.h>

/* Uniform in [0, n) from the top bits of a 64-bit draw (multiply-shift):
 * the bias is n / 2^64, far below anything a walk can show. */
static inline int64_t draw_below(struct rng *r, int64_t n)
{
    return (int64_t)(((unsigned __int128)rng_u64(r) * (uint64_t)n) >> 64);
}

void walk_bias_init(struct walk_bias *b, double p, double q)
{
    double top = fmax(fmax(1.0 / p, 1.0), 1.0 / q);
    b->uniform = p == 1.0 && q == 1.0;
    b->accept_return = 1.0 / p / top;
    b->accept_neighbor = 1.0 / top;
    b->accept_far = 1.0 / q / top;
}

bool walk_adjacent(const struct line_graph *g, int32_t t, int32_t x)
{
    int64_t lo = g->offsets[t], hi = g->offsets[t + 1];
    /* rows of the vessel line graph hold about 4 entries: a scan is faster
     * than bisection there, and bisection bounds the long rows */
    if (hi - lo <= 16) {
        for (int64_t i = lo; i < hi; i++)
            if (g->neighbors[i] >= x)
                return g->neighbors[i] == x;
        return false;
    }
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (g->neighbors[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->offsets[t + 1] && g->neighbors[lo] == x;
}

void walk_sample(int32_t *walk, int length, int32_t start, const struct line_graph *g,
                 const struct walk_bias *b, struct rng *r)
{
    const int64_t *offsets = g->offsets;
    const int32_t *neighbors = g->neighbors;
    int32_t prev = -1, cur = start;
    walk[0] = start;
    for (int l = 1; l < length; l++) {
        int64_t row = offsets[cur], degree = offsets[cur + 1] - row;
        int32_t next;
        if (degree == 0)
            next = cur;
        else if (b->uniform || prev < 0 || degree == 1)
            next = neighbors[row + draw_below(r, degree)];
        else
            for (;;) {
                next = neighbors[row + draw_below(r, degree)];
                double u = rng_uniform(r);
                double accept = next == prev ? b->accept_return
                              : walk_adjacent(g, prev, next) ? b->accept_neighbor
                              : b->accept_far;
                if (u < accept)
                    break;
            }
        walk[l] = next;
        prev = cur;
        cur = next;
    }
}

void walk_transition_probabilities(double *prob, const struct line_graph *g, int32_t prev, int32_t cur,
                                   double p, double q)
{
    int64_t row = g->offsets[cur], degree = g->offsets[cur + 1] - row;
    double total = 0;
    for (int64_t i = 0; i < degree; i++) {
        int32_t x = g->neighbors[row + i];
        double w = 1.0;
        if (prev >= 0) {
            bool adjacent = false;
            for (int64_t k = g->offsets[prev]; k < g->offsets[prev + 1]; k++)
                adjacent = adjacent || g->neighbors[k] == x;
            w = x == prev ? 1.0 / p : adjacent ? 1.0 : 1.0 / q;
        }
        prob[i] = w;
        total += w;
    }
    for (int64_t i = 0; i < degree; i++)
        prob[i] /= total;
}
