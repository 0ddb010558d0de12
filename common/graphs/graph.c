/* graph.c - reading, validating and writing the core keys of a graph record. */
#include "graph.h"
#include "die.h"
#include "tensor.h"
#include <math.h>
#include <stdio.h>
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
static void check_duplicates_sorted(const struct graph *g, const struct record *rec)
{
    uint64_t *pairs = xmalloc(sizeof *pairs * (size_t)(g->m ? g->m : 1));
    for (int e = 0; e < g->m; e++)
        pairs[e] = edge_pair(g, e);
    qsort(pairs, (size_t)g->m, sizeof *pairs, compare_u64);
    for (int e = 1; e < g->m; e++)
        if (pairs[e] == pairs[e - 1]) {
            unsigned long long u = pairs[e] / (uint64_t)g->n, v = pairs[e] % (uint64_t)g->n;
            free(pairs);
            record_die(rec, "nodes %llu and %llu are joined by more than one edge", u, v);
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
static void check_edges(const struct graph *g, const struct record *rec)
{
    for (int e = 0; e < g->m; e++) {
        int u = g->src[e], v = g->dst[e];
        if (u < 0 || u >= g->n)
            record_die(rec, "'src' entry %d is %d, outside 0..%d", e, u, g->n - 1);
        if (v < 0 || v >= g->n)
            record_die(rec, "'dst' entry %d is %d, outside 0..%d", e, v, g->n - 1);
        if (u == v)
            record_die(rec, "edge %d is a self-loop on node %d", e, u);
    }
    /* The bitmap only says whether; the sort names the same pair as always. */
    if (g->n > DUPLICATE_BITMAP_NODES || has_duplicate_pair(g))
        check_duplicates_sorted(g, rec);
}

/* The reader behind graph_read and graph_read_instance.  A key in needs is
 * read with the getters that die "missing key" (graph_read's messages); any
 * other optional key only when present.  fill_w: an absent w reads as 1. */
static void read_graph(struct graph *g, const struct record *rec, unsigned needs, bool fill_w)
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
        record_die(rec, "'n' is %lld, expected at least 2", (long long)n);
    if (m < 0 || m > INT32_MAX)
        record_die(rec, "'m' is %lld, out of range", (long long)m);
    g->n = (int)n;
    g->m = (int)m;
    g->directed = record_bool_or(rec, "directed", false);
    bool has_s = (needs & GRAPH_NEED_S) || record_has(rec, "s");
    bool has_t = (needs & GRAPH_NEED_T) || record_has(rec, "t");
    int64_t s = has_s ? record_int(rec, "s") : -1, t = has_t ? record_int(rec, "t") : -1;
    if (has_s && (s < 0 || s >= n))
        record_die(rec, "'s' is %lld, outside 0..%lld", (long long)s, (long long)n - 1);
    if (has_t && (t < 0 || t >= n))
        record_die(rec, "'t' is %lld, outside 0..%lld", (long long)t, (long long)n - 1);
    if ((needs & GRAPH_NEED_T) && s == t)
        record_die(rec, "'s' and 't' are both %lld", (long long)s);
    g->s = (int)s;
    g->t = (int)t;
    g->src = record_vector(rec, "src", DT_I32, m);
    g->dst = record_vector(rec, "dst", DT_I32, m);
    bool has_cap = (needs & GRAPH_NEED_CAP) || record_has(rec, "cap");
    g->cap = has_cap ? record_vector(rec, "cap", DT_F32, m) : NULL;
    bool has_w = (needs & GRAPH_NEED_W) || record_has(rec, "w");
    g->w = has_w ? record_vector(rec, "w", DT_F32, m) : NULL;
    g->cap_scale = record_int_or(rec, "cap_scale", 0);
    if (g->cap_scale < 0)
        record_die(rec, "'cap_scale' is negative");
    for (int e = 0; e < g->m; e++) {
        if (g->cap && (!isfinite(g->cap[e]) || g->cap[e] < 0))
            record_die(rec, "'cap' entry %d is %g, expected a finite number >= 0", e, g->cap[e]);
        /* no upper bound: CLRS's weights √(u·u′ + 10⁻³) reach 1.0005 */
        if (g->w && (!isfinite(g->w[e]) || g->w[e] < 0))
            record_die(rec, "'w' entry %d is %g, expected a finite number >= 0", e, g->w[e]);
    }
    if (!g->w && fill_w)   /* no weights given: Bellman-Ford on hop counts */
        for (g->w = xmalloc(sizeof *g->w * (size_t)(m ? m : 1)); m-- > 0;)
            g->w[m] = 1.0f;
    if ((needs & GRAPH_NEED_NODE_W) || record_has(rec, "node_w")) {
        g->node_w = record_vector(rec, "node_w", DT_F32, n);
        for (int v = 0; v < g->n; v++)
            if (!isfinite(g->node_w[v]) || g->node_w[v] < 0)
                record_die(rec, "'node_w' entry %d is %g, expected a finite number >= 0", v, g->node_w[v]);
    }
    if ((needs & GRAPH_NEED_SIDE) || record_has(rec, "side")) {
        g->side = record_vector(rec, "side", DT_U8, n);
        for (int v = 0; v < g->n; v++)
            if (g->side[v] > 1)
                record_die(rec, "'side' entry %d is %d, expected 0 (side A) or 1 (side B)", v, g->side[v]);
    }
    check_edges(g, rec);
}

void graph_read(struct graph *g, const struct record *rec)
{
    read_graph(g, rec, GRAPH_NEEDS_MAX_FLOW, true);
}

/* A missing key dies from graph_require with the algorithm's name, so the
 * reader is asked for the needs only once the key is known to be there. */
void graph_read_instance(struct graph *g, const struct record *rec, unsigned needs, const char *algorithm)
{
    read_graph(g, rec, 0, false);
    graph_require(g, needs, algorithm, rec);
}

static const struct { unsigned need; const char *key; } need_keys[] = {
    {GRAPH_NEED_S, "s"}, {GRAPH_NEED_T, "t"}, {GRAPH_NEED_CAP, "cap"},
    {GRAPH_NEED_W, "w"}, {GRAPH_NEED_NODE_W, "node_w"}, {GRAPH_NEED_SIDE, "side"},
};

const char *graph_missing_key(const struct record *rec, unsigned needs)
{
    for (size_t i = 0; i < sizeof need_keys / sizeof *need_keys; i++)
        if ((needs & need_keys[i].need) && !record_has(rec, need_keys[i].key))
            return need_keys[i].key;
    return NULL;
}

const char *graph_needs_keys(unsigned needs, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof need_keys / sizeof *need_keys && len < size; i++)
        if (needs & need_keys[i].need)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? " " : "", need_keys[i].key);
    return buf;
}

bool graph_check_needs(const struct graph *g, unsigned needs, const char *algorithm, char *err, size_t errlen)
{
    const char *who = algorithm ? algorithm : "the algorithm";
    if ((needs & GRAPH_NEED_S) && g->s < 0) {
        snprintf(err, errlen, "'s' is missing (%s needs a source)", who);
        return false;
    }
    if ((needs & GRAPH_NEED_T) && g->t < 0) {
        snprintf(err, errlen, "'t' is missing (%s needs a sink)", who);
        return false;
    }
    if ((needs & GRAPH_NEED_T) && (needs & GRAPH_NEED_S) && g->s == g->t) {
        snprintf(err, errlen, "'s' and 't' are both %d", g->s);
        return false;
    }
    if ((needs & GRAPH_NEED_CAP) && !g->cap) {
        snprintf(err, errlen, "'cap' is missing (%s needs capacities)", who);
        return false;
    }
    if ((needs & GRAPH_NEED_W) && !g->w) {
        snprintf(err, errlen, "'w' is missing (%s needs edge weights)", who);
        return false;
    }
    if ((needs & GRAPH_NEED_NODE_W) && !g->node_w) {
        snprintf(err, errlen, "'node_w' is missing (%s needs node weights)", who);
        return false;
    }
    if (needs & GRAPH_NEED_SIDE) {
        if (!g->side) {
            snprintf(err, errlen, "'side' is missing (%s needs a side per node)", who);
            return false;
        }
        for (int e = 0; e < g->m; e++) {
            int u = g->src[e], v = g->dst[e];
            if (g->side[u] == g->side[v]) {
                snprintf(err, errlen, "edge %d joins nodes %d and %d, both on side %c (%s needs every edge "
                         "between A and B)", e, u, v, g->side[u] ? 'B' : 'A', who);
                return false;
            }
            if (g->directed && g->side[u] == 1) {
                snprintf(err, errlen, "arc %d runs from node %d on side B to node %d on side A (%s needs arcs "
                         "A->B)", e, u, v, who);
                return false;
            }
        }
    }
    return true;
}

void graph_require(const struct graph *g, unsigned needs, const char *algorithm, const struct record *rec)
{
    char err[256];
    if (!graph_check_needs(g, needs, algorithm, err, sizeof err))
        record_die(rec, "%s", err);
}

void graph_free(struct graph *g)
{
    free(g->src);
    free(g->dst);
    free(g->cap);
    free(g->w);
    free(g->node_w);
    free(g->side);
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

int graph_instance_keys(const struct graph *g)
{
    return 8 + (g->s >= 0) + (g->t >= 0) + 2 * (g->cap != NULL) + (g->w != NULL) + (g->node_w != NULL) +
           (g->side != NULL);
}

void graph_write_instance(struct writer *w, const struct graph *g)
{
    mp_key(w, "kind");     mp_str(w, "graph");
    mp_key(w, "id");       mp_int(w, g->id);
    mp_key(w, "family");   mp_str(w, g->family);
    mp_key(w, "n");        mp_int(w, g->n);
    mp_key(w, "m");        mp_int(w, g->m);
    mp_key(w, "directed"); mp_bool(w, g->directed);
    if (g->s >= 0) { mp_key(w, "s"); mp_int(w, g->s); }
    if (g->t >= 0) { mp_key(w, "t"); mp_int(w, g->t); }
    mp_key(w, "src");      mp_vector(w, DT_I32, g->m, g->src);
    mp_key(w, "dst");      mp_vector(w, DT_I32, g->m, g->dst);
    if (g->cap) { mp_key(w, "cap"); mp_vector(w, DT_F32, g->m, g->cap); }
    if (g->w) { mp_key(w, "w"); mp_vector(w, DT_F32, g->m, g->w); }
    if (g->cap) { mp_key(w, "cap_scale"); mp_int(w, g->cap_scale); }
    if (g->node_w) { mp_key(w, "node_w"); mp_vector(w, DT_F32, g->n, g->node_w); }
    if (g->side) { mp_key(w, "side"); mp_vector(w, DT_U8, g->n, g->side); }
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

double graph_capacity_units_exact(const struct record *rec, const struct graph *g, int64_t *k)
{
    double units = graph_capacity_units(g, k);
    for (int e = 0; e < g->m; e++)
        if (g->cap[e] > 0 && k[e] == 0)
            record_die(rec, "'cap' entry %d is %g, under 2^-41 of the largest (%g): capacities spanning more "
                       "than twelve orders of magnitude cannot be traced exactly", e, (double)g->cap[e],
                       1099511627776.0 / units);   /* units = 2^40 / the largest */
    return units;
}
