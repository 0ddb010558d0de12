/* line_graph.c - L(G) as CSR (line_graph.h).
 *
 * Row i of L(G) is the union of the edges incident to the two endpoints of
 * edge i, without i itself.  Incidence lists are built in edge order, so each
 * is sorted; a row is one merge of two sorted lists, which yields it sorted
 * and drops the only possible duplicates (edges parallel to i, present in
 * both lists).  Two passes (count, then fill) keep the memory at the CSR
 * plus the incidence lists. */
#include "line_graph.h"
#include "die.h"
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(struct line_graph *lg, char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen)
        vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    line_graph_free(lg);
    return -1;
}

/* Sizes and endpoints both builds check the same way. */
static int check_input(struct line_graph *lg, int64_t nodes, int64_t m, const int32_t *src, const int32_t *dst,
                       char *err, size_t errlen)
{
    memset(lg, 0, sizeof *lg);
    if (m < 0 || nodes < 0)
        return fail(lg, err, errlen, "negative size (%lld nodes, %lld edges)", (long long)nodes, (long long)m);
    if (m > INT32_MAX)
        return fail(lg, err, errlen, "%lld edges: the line graph has more than %d nodes, too many for int32 indices",
                    (long long)m, INT32_MAX);
    if (nodes > INT32_MAX)
        return fail(lg, err, errlen, "%lld nodes: more than %d", (long long)nodes, INT32_MAX);
    for (int64_t e = 0; e < m; e++)
        if (src[e] < 0 || src[e] >= nodes || dst[e] < 0 || dst[e] >= nodes)
            return fail(lg, err, errlen, "edge %lld (%d, %d) has an endpoint outside [0, %lld)", (long long)e,
                        src[e], dst[e], (long long)nodes);
    return 0;
}

/* Merge sorted a[0..na) and b[0..nb) into out (if not NULL), skipping `self`
 * and repeats; returns the count. */
static int64_t merge_row(int32_t *out, const int32_t *a, int64_t na, const int32_t *b, int64_t nb, int32_t self)
{
    int64_t i = 0, j = 0, k = 0;
    int32_t last = -1;
    while (i < na || j < nb) {
        int32_t x;
        if (j >= nb || (i < na && a[i] <= b[j]))
            x = a[i++];
        else
            x = b[j++];
        if (x == self || x == last)
            continue;
        last = x;
        if (out)
            out[k] = x;
        k++;
    }
    return k;
}

int line_graph_build(struct line_graph *lg, int64_t nodes, int64_t m, const int32_t *src, const int32_t *dst,
                     char *err, size_t errlen)
{
    if (check_input(lg, nodes, m, src, dst, err, errlen))
        return -1;
    /* incidence lists: edge e at src[e] and, unless a self-loop, at dst[e] */
    int64_t *inc_off = xcalloc((size_t)nodes + 1, sizeof *inc_off);
    for (int64_t e = 0; e < m; e++) {
        inc_off[src[e] + 1]++;
        if (dst[e] != src[e])
            inc_off[dst[e] + 1]++;
    }
    for (int64_t v = 0; v < nodes; v++)
        inc_off[v + 1] += inc_off[v];
    int32_t *inc = xmalloc(sizeof *inc * (size_t)(inc_off[nodes] ? inc_off[nodes] : 1));
    int64_t *fill = xmalloc(sizeof *fill * (size_t)(nodes ? nodes : 1));
    memcpy(fill, inc_off, sizeof *fill * (size_t)nodes);
    for (int64_t e = 0; e < m; e++) {
        inc[fill[src[e]]++] = (int32_t)e;
        if (dst[e] != src[e])
            inc[fill[dst[e]]++] = (int32_t)e;
    }
    free(fill);

    lg->n = m;
    lg->offsets = xmalloc(sizeof *lg->offsets * (size_t)(m + 1));
    lg->offsets[0] = 0;
    for (int64_t e = 0; e < m; e++) {
        int32_t u = src[e], v = dst[e];
        int64_t nv = u == v ? 0 : inc_off[v + 1] - inc_off[v];
        lg->offsets[e + 1] = lg->offsets[e] + merge_row(NULL, inc + inc_off[u], inc_off[u + 1] - inc_off[u],
                                                        inc + inc_off[v], nv, (int32_t)e);
    }
    lg->neighbors = xmalloc(sizeof *lg->neighbors * (size_t)(lg->offsets[m] ? lg->offsets[m] : 1));
    for (int64_t e = 0; e < m; e++) {
        int32_t u = src[e], v = dst[e];
        int64_t nv = u == v ? 0 : inc_off[v + 1] - inc_off[v];
        merge_row(lg->neighbors + lg->offsets[e], inc + inc_off[u], inc_off[u + 1] - inc_off[u], inc + inc_off[v],
                  nv, (int32_t)e);
    }
    free(inc);
    free(inc_off);
    return 0;
}

int line_graph_build_naive(struct line_graph *lg, int64_t nodes, int64_t m, const int32_t *src,
                           const int32_t *dst, char *err, size_t errlen)
{
    if (check_input(lg, nodes, m, src, dst, err, errlen))
        return -1;
    lg->n = m;
    lg->offsets = xcalloc((size_t)m + 1, sizeof *lg->offsets);
    for (int pass = 0; pass < 2; pass++) {
        if (pass)
            lg->neighbors = xmalloc(sizeof *lg->neighbors * (size_t)(lg->offsets[m] ? lg->offsets[m] : 1));
        for (int64_t i = 0; i < m; i++) {
            int64_t k = 0;
            for (int64_t j = 0; j < m; j++) {
                bool share = j != i && (src[i] == src[j] || src[i] == dst[j] || dst[i] == src[j] || dst[i] == dst[j]);
                if (!share)
                    continue;
                if (pass)
                    lg->neighbors[lg->offsets[i] + k] = (int32_t)j;
                k++;
            }
            if (!pass)
                lg->offsets[i + 1] = lg->offsets[i] + k;
        }
    }
    return 0;
}

void line_graph_free(struct line_graph *lg)
{
    free(lg->offsets);
    free(lg->neighbors);
    memset(lg, 0, sizeof *lg);
}
