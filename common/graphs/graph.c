/* graph.c - reading, validating and writing the core keys of a graph record. */
#include "graph.h"
#include "die.h"
#include "tensor.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The pair of edge e as one number, u*n + v, u < v when undirected. */
static uint64_t edge_pair(const struct graph *g, int e)
{
    int u = g->src[e], v = g->dst[e];
    if (!g->directed && u > v) {
        int x = u; u = v; v = x;
    }
    return (uint64_t)u * (uint64_t)g->n + (uint64_t)v;
}

/* Pairs joined twice, by sorting: dies naming the smallest such pair. */
static void check_duplicates_sorted(const struct graph *g, long rec)
{
    uint64_t *pairs = xmalloc(sizeof *pairs * (size_t)(g->m ? g->m : 1));
    for (int e = 0; e < g->m; e++)
        pairs[e] = edge_pair(g, e);
    qsort(pairs, (size_t)g->m, sizeof *pairs, compare_u64);
    for (int e = 1; e < g->m; e++)
        if (pairs[e] == pairs[e - 1]) {
            unsigned long long u = pairs[e] / (uint64_t)g->n, v = pairs[e] % (uint64_t)g->n;
            free(pairs);
            die_record(rec, "nodes %llu and %llu are joined by more than one edge", u, v);
        }
    free(pairs);
}

/* Graphs up to this many nodes are checked for duplicate pairs with a bitmap
 * of all n*n pairs (128 KiB at most) in one pass, instead of a sort. */
#define DUPLICATE_BITMAP_NODES 1024
#define DUPLICATE_BITMAP_ON_STACK 4096   /* bytes: n <= 181 */

/* Whether some pair is joined twice (a bitmap of pairs, n <= the limit). */
static bool has_duplicate_pair(const struct graph *g)
{
    size_t bytes = ((size_t)g->n * (size_t)g->n + 7) / 8;
    uint8_t stack_bits[DUPLICATE_BITMAP_ON_STACK];
    uint8_t *seen = bytes <= sizeof stack_bits ? stack_bits : xmalloc(bytes);
    memset(seen, 0, bytes);
    bool duplicate = false;
    for (int e = 0; e < g->m && !duplicate; e++) {
        uint64_t p = edge_pair(g, e);
        uint8_t bit = (uint8_t)(1u << (p & 7));
        duplicate = seen[p >> 3] & bit;
        seen[p >> 3] |= bit;
    }
    if (seen != stack_bits)
        free(seen);
    return duplicate;
}

/* Self-loops, endpoints out of range and pairs joined twice. */
static void check_edges(const struct graph *g, long rec)
{
    for (int e = 0; e < g->m; e++) {
        int u = g->src[e], v = g->dst[e];
        if (u < 0 || u >= g->n)
            die_record(rec, "'src' entry %d is %d, outside 0..%d", e, u, g->n - 1);
        if (v < 0 || v >= g->n)
            die_record(rec, "'dst' entry %d is %d, outside 0..%d", e, v, g->n - 1);
        if (u == v)
            die_record(rec, "edge %d is a self-loop on node %d", e, u);
    }
    /* The bitmap only says whether; the sort names the same pair as always. */
    if (g->n > DUPLICATE_BITMAP_NODES || has_duplicate_pair(g))
        check_duplicates_sorted(g, rec);
}

void graph_read(struct graph *g, const struct record *rec)
{
    memset(g, 0, sizeof *g);
    long r = rec->index;
    if (record_has(rec, "kind"))        /* optional in graph records (formats/graph.md) */
        record_expect_kind(rec, "graph");
    g->id = record_int_or(rec, "id", r);
    if (record_has(rec, "family"))
        record_str(rec, "family", g->family, sizeof g->family);
    int64_t n = record_int(rec, "n"), m = record_int(rec, "m");
    if (n < 2 || n > INT32_MAX)
        die_record(r, "'n' is %lld, expected at least 2", (long long)n);
    if (m < 0 || m > INT32_MAX)
        die_record(r, "'m' is %lld, out of range", (long long)m);
    g->n = (int)n;
    g->m = (int)m;
    g->directed = record_bool_or(rec, "directed", false);
    int64_t s = record_int(rec, "s"), t = record_int(rec, "t");
    if (s < 0 || s >= n)
        die_record(r, "'s' is %lld, outside 0..%lld", (long long)s, (long long)n - 1);
    if (t < 0 || t >= n)
        die_record(r, "'t' is %lld, outside 0..%lld", (long long)t, (long long)n - 1);
    if (s == t)
        die_record(r, "'s' and 't' are both %lld", (long long)s);
    g->s = (int)s;
    g->t = (int)t;
    g->src = record_vector(rec, "src", DT_I32, m);
    g->dst = record_vector(rec, "dst", DT_I32, m);
    g->cap = record_vector(rec, "cap", DT_F32, m);
    g->w = record_has(rec, "w") ? record_vector(rec, "w", DT_F32, m) : NULL;
    g->cap_scale = record_int_or(rec, "cap_scale", 0);
    if (g->cap_scale < 0)
        die_record(r, "'cap_scale' is negative");
    for (int e = 0; e < g->m; e++) {
        if (!isfinite(g->cap[e]) || g->cap[e] < 0)
            die_record(r, "'cap' entry %d is %g, expected a finite number >= 0", e, g->cap[e]);
        if (g->w && !(g->w[e] >= 0 && g->w[e] <= 1))
            die_record(r, "'w' entry %d is %g, expected a number in [0,1]", e, g->w[e]);
    }
    if (!g->w)   /* no weights given: Bellman-Ford on hop counts */
        for (g->w = xmalloc(sizeof *g->w * (size_t)(m ? m : 1)); m-- > 0;)
            g->w[m] = 1.0f;
    check_edges(g, r);
}

void graph_free(struct graph *g)
{
    free(g->src);
    free(g->dst);
    free(g->cap);
    free(g->w);
    memset(g, 0, sizeof *g);
}

void graph_write_core(struct writer *w, const struct graph *g)
{
    mp_key(w, "kind");     mp_str(w, "graph");
    mp_key(w, "id");       mp_int(w, g->id);
    mp_key(w, "family");   mp_str(w, g->family);
    mp_key(w, "n");        mp_int(w, g->n);
    mp_key(w, "m");        mp_int(w, g->m);
    mp_key(w, "directed"); mp_bool(w, g->directed);
    mp_key(w, "s");        mp_int(w, g->s);
    mp_key(w, "t");        mp_int(w, g->t);
    mp_key(w, "src");      mp_vector(w, DT_I32, g->m, g->src);
    mp_key(w, "dst");      mp_vector(w, DT_I32, g->m, g->dst);
    mp_key(w, "cap");      mp_vector(w, DT_F32, g->m, g->cap);
    mp_key(w, "w");        mp_vector(w, DT_F32, g->m, g->w);
    mp_key(w, "cap_scale"); mp_int(w, g->cap_scale);
}

static bool scale_fits(const struct graph *g, int64_t scale, int64_t *k)
{
    for (int e = 0; e < g->m; e++) {
        double x = (double)g->cap[e] * (double)scale, r = nearbyint(x), size = fabs(x);
        /* float32 storage of k/scale is off by at most ~6e-8 relative
         * (size > 1 ? size : 1 is fmax(1, size) for finite caps, inline) */
        if (fabs(x - r) > 1e-5 * (size > 1.0 ? size : 1.0) || r > 4e18)
            return false;
        if (k)
            k[e] = (int64_t)r;
    }
    return true;
}

double graph_capacity_units(const struct graph *g, int64_t *k)
{
    if (g->cap_scale > 0 && scale_fits(g, g->cap_scale, k))
        return (double)g->cap_scale;
    for (int64_t scale = 1; scale <= 1000; scale++)
        if (scale_fits(g, scale, NULL)) {
            scale_fits(g, scale, k);
            return (double)scale;
        }
    double top = 0;
    for (int e = 0; e < g->m; e++)
        top = fmax(top, g->cap[e]);
    double units = top > 0 ? 1099511627776.0 / top : 1.0;   /* 2^40 */
    for (int e = 0; e < g->m; e++)
        k[e] = llround(g->cap[e] * units);
    return units;
}
