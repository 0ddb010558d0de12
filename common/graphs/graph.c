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

/* The reader behind graph_read and graph_read_instance.  flow_network:
 * s, t and cap are read with the getters that die "missing key" (graph_read's
 * messages), s != t, and an absent w reads as 1; otherwise any optional key
 * only when present. */
static void read_graph(struct graph *g, const struct record *rec, bool flow_network)
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
    bool has_s = flow_network || record_has(rec, "s");
    bool has_t = flow_network || record_has(rec, "t");
    int64_t s = has_s ? record_int(rec, "s") : -1, t = has_t ? record_int(rec, "t") : -1;
    if (has_s && (s < 0 || s >= n))
        record_die(rec, "'s' is %lld, outside 0..%lld", (long long)s, (long long)n - 1);
    if (has_t && (t < 0 || t >= n))
        record_die(rec, "'t' is %lld, outside 0..%lld", (long long)t, (long long)n - 1);
    if (flow_network && s == t)
        record_die(rec, "'s' and 't' are both %lld", (long long)s);
    g->s = (int)s;
    g->t = (int)t;
    g->src = record_vector(rec, "src", DT_I32, m);
    g->dst = record_vector(rec, "dst", DT_I32, m);
    bool has_cap = flow_network || record_has(rec, "cap");
    g->cap = has_cap ? record_vector(rec, "cap", DT_F32, m) : NULL;
    g->w = record_has(rec, "w") ? record_vector(rec, "w", DT_F32, m) : NULL;
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
    if (!g->w && flow_network)   /* no weights given: Bellman-Ford on hop counts */
        for (g->w = xmalloc(sizeof *g->w * (size_t)(m ? m : 1)); m-- > 0;)
            g->w[m] = 1.0f;
    if (record_has(rec, "node_w")) {
        g->node_w = record_vector(rec, "node_w", DT_F32, n);
        for (int v = 0; v < g->n; v++)
            if (!isfinite(g->node_w[v]) || g->node_w[v] < 0)
                record_die(rec, "'node_w' entry %d is %g, expected a finite number >= 0", v, g->node_w[v]);
    }
    if (record_has(rec, "side")) {
        g->side = record_vector(rec, "side", DT_U8, n);
        for (int v = 0; v < g->n; v++)
            if (g->side[v] > 1)
                record_die(rec, "'side' entry %d is %d, expected 0 (side A) or 1 (side B)", v, g->side[v]);
    }
    if (record_has(rec, "cost")) {
        g->cost = record_vector(rec, "cost", DT_F32, g->m);
        for (int e = 0; e < g->m; e++)
            if (!isfinite(g->cost[e]))
                record_die(rec, "'cost' entry %d is %g, expected a finite number", e, g->cost[e]);
    }
    check_edges(g, rec);
}

void graph_read(struct graph *g, const struct record *rec)
{
    read_graph(g, rec, true);
}

/* A missing key dies from graph_require with the algorithm's name, so the
 * reader is asked for the keys only once they are known to be there. */
void graph_read_instance(struct graph *g, const struct record *rec, const struct graph_key *keys, int nkeys,
                         const char *algorithm)
{
    read_graph(g, rec, false);
    graph_require(g, keys, nkeys, algorithm, rec);
}

/* The optional keys the reader knows, as it reads them: a row of an
 * instance names one of these with the same type and location. */
enum known_key { KEY_S, KEY_T, KEY_CAP, KEY_W, KEY_NODE_W, KEY_SIDE, KEY_COST, KNOWN_KEYS };
static const struct { const char *key; enum dtype dtype; enum graph_location location; } known[KNOWN_KEYS] = {
    [KEY_S] = {"s", DT_I64, GRAPH_AT_GRAPH},
    [KEY_T] = {"t", DT_I64, GRAPH_AT_GRAPH},
    [KEY_CAP] = {"cap", DT_F32, GRAPH_AT_EDGE},
    [KEY_W] = {"w", DT_F32, GRAPH_AT_EDGE},
    [KEY_NODE_W] = {"node_w", DT_F32, GRAPH_AT_NODE},
    [KEY_SIDE] = {"side", DT_U8, GRAPH_AT_NODE},
    [KEY_COST] = {"cost", DT_F32, GRAPH_AT_EDGE},
};

static enum known_key known_key(const struct graph_key *k)
{
    for (int i = 0; i < KNOWN_KEYS; i++)
        if (!strcmp(k->key, known[i].key)) {
            if (k->dtype != known[i].dtype || k->location != known[i].location)
                die(EX_SOFTWARE, "instance key '%s': the row's type or location is not the graph record's", k->key);
            return (enum known_key)i;
        }
    die(EX_SOFTWARE, "instance key '%s' is not a graph record key the reader knows", k->key);
}

static bool has_key(const struct graph *g, enum known_key key)
{
    switch (key) {
    case KEY_S:      return g->s >= 0;
    case KEY_T:      return g->t >= 0;
    case KEY_CAP:    return g->cap;
    case KEY_W:      return g->w;
    case KEY_NODE_W: return g->node_w;
    case KEY_COST:   return g->cost;
    default:         return g->side;
    }
}

static bool lists(const struct graph_key *keys, int nkeys, const char *key)
{
    for (int i = 0; i < nkeys; i++)
        if (!strcmp(keys[i].key, key))
            return true;
    return false;
}

const char *graph_missing_key(const struct record *rec, const struct graph_key *keys, int nkeys)
{
    for (int i = 0; i < nkeys; i++)
        if (!record_has(rec, keys[i].key))
            return keys[i].key;
    return NULL;
}

const char *graph_keys_list(const struct graph_key *keys, int nkeys, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < nkeys && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? " " : "", keys[i].key);
    return buf;
}

/* Every edge joins side A to side B, an arc runs A->B. */
static bool check_sides(const struct graph *g, const char *who, char *err, size_t errlen)
{
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
    return true;
}

bool graph_check_keys(const struct graph *g, const struct graph_key *keys, int nkeys, const char *algorithm,
                      char *err, size_t errlen)
{
    const char *who = algorithm ? algorithm : "the algorithm";
    for (int i = 0; i < nkeys; i++) {
        const struct graph_key *k = &keys[i];
        if (!has_key(g, known_key(k))) {
            snprintf(err, errlen, "'%s' is missing (%s needs %s)", k->key, who, k->what);
            return false;
        }
        if (k->check == GRAPH_CHECK_NOT_S && lists(keys, nkeys, "s") && g->s == g->t) {
            snprintf(err, errlen, "'s' and '%s' are both %d", k->key, g->s);
            return false;
        }
        if (k->check == GRAPH_CHECK_SIDES && !check_sides(g, who, err, errlen))
            return false;
    }
    return true;
}

void graph_require(const struct graph *g, const struct graph_key *keys, int nkeys, const char *algorithm,
                   const struct record *rec)
{
    char err[256];
    if (!graph_check_keys(g, keys, nkeys, algorithm, err, sizeof err))
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
    free(g->cost);
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
           (g->side != NULL) + (g->cost != NULL);
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
    if (g->cost) { mp_key(w, "cost"); mp_vector(w, DT_F32, g->m, g->cost); }
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
