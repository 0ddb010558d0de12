/* matching.c - the BFS Ford-Fulkerson trace on the unit network, the Konig
 * cover of a maximum matching, and the check of a matching and a cover. */
#include "matching.h"
#include "die.h"
#include "graph_bfs.h"
#include "hint_bound.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The work of one trace: mate_edge[v] is the matched edge at v or -1; the
 * BFS queue's entries [head, tail) are those not yet expanded. */
struct search {
    struct adjacency adj;
    const uint8_t *side;
    int32_t *mate_edge, *queue, *pi, *via;   /* [n] */
    uint8_t *reached;                         /* [n] */
    int head, tail, target;                   /* target: the first free B node reached, or -1 */
};

/* A BFS from s in the residual network, its layer 0: the free A nodes. */
static void search_begin(struct search *w, int n)
{
    w->head = w->tail = 0;
    w->target = -1;
    memset(w->reached, 0, (size_t)n);
    for (int v = 0; v < n; v++) {
        w->pi[v] = v;
        w->via[v] = -1;
        if (w->side[v] == 0 && w->mate_edge[v] < 0) {
            w->reached[v] = 1;
            w->queue[w->tail++] = v;
        }
    }
}

/* The next layer: the nodes queued so far expanded, in queue order (so the
 * layers, run to the end, are the whole BFS and its tree); returns whether
 * it reached any node. */
static bool search_layer(struct search *w, const int32_t *src, const int32_t *dst)
{
    int end = w->tail;
    for (; w->head < end; w->head++) {
        int u = w->queue[w->head];
        if (w->side[u] == 0) {
            for (int64_t i = w->adj.off[u]; i < w->adj.off[u + 1]; i++) {
                int b = w->adj.nbr[i], e = w->adj.edge_of[i];
                if (w->reached[b] || w->mate_edge[u] == e)
                    continue;
                w->reached[b] = 1;
                w->pi[b] = u;
                w->via[b] = e;
                w->queue[w->tail++] = b;
                if (w->target < 0 && w->mate_edge[b] < 0)
                    w->target = b;
            }
        } else if (w->mate_edge[u] >= 0) {
            int e = w->mate_edge[u], a = src[e] == u ? dst[e] : src[e];
            if (!w->reached[a]) {
                w->reached[a] = 1;
                w->pi[a] = u;
                w->queue[w->tail++] = a;
            }
        }
    }
    return w->tail > end;
}

/* Flip the edges of the path to b: its B->A steps were matched, its A->B
 * steps were not. */
static void augment(struct search *w, uint8_t *match, int b)
{
    while (b >= 0) {
        int e = w->via[b], a = w->pi[b];
        int previous = w->pi[a] != a ? w->pi[a] : -1;   /* the B node a was reached from, via its mate */
        if (previous >= 0)
            match[w->mate_edge[a]] = 0;
        match[e] = 1;
        w->mate_edge[a] = e;
        w->mate_edge[b] = e;
        b = previous;
    }
}

/* The frames a trace writes into mt's hints, or only counts (no hints allocated). */
struct frames {
    struct matching *mt;
    int count;
    bool layered;
};

static void frame(struct frames *f, const struct search *w, int phase)
{
    struct matching *mt = f->mt;
    int n = mt->n, m = mt->m, k = f->count++;
    if (!mt->hint_reached)
        return;
    memcpy(mt->hint_reached + (size_t)k * n, w->reached, (size_t)n);
    memcpy(mt->hint_pi + (size_t)k * n, w->pi, sizeof *w->pi * (size_t)n);
    memcpy(mt->hint_match + (size_t)k * m, mt->match, (size_t)m);
    if (f->layered)
        mt->hint_phase[k] = (uint8_t)phase;
}

/* The searches, into mt's match, size and cover, and the frames into f:
 * one a search after its augmentation, or (layered) one a BFS layer and
 * one an augmentation. */
static void searches(struct search *w, struct frames *f, int most_searches, const int32_t *src,
                     const int32_t *dst)
{
    struct matching *mt = f->mt;
    int n = mt->n;
    memset(mt->match, 0, (size_t)(mt->m ? mt->m : 1));
    mt->size = 0;
    for (int v = 0; v < n; v++)
        w->mate_edge[v] = -1;
    for (int k = 0;; k++) {
        if (k >= most_searches)   /* each search but the last grows the matching */
            die(EX_SOFTWARE, "BUG: matching needs more than %d searches", most_searches);
        search_begin(w, n);
        if (f->layered)
            frame(f, w, MATCHING_PHASE_SEARCH);
        while (search_layer(w, src, dst))
            if (f->layered)
                frame(f, w, MATCHING_PHASE_SEARCH);
        if (w->target >= 0) {
            augment(w, mt->match, w->target);
            mt->size++;
        }
        if (!f->layered || w->target >= 0)
            frame(f, w, MATCHING_PHASE_AUGMENT);
        if (w->target < 0)
            break;
    }
    mt->steps = f->count;
    for (int v = 0; v < n; v++)
        mt->cover[v] = w->side[v] == 0 ? !w->reached[v] : w->reached[v];
}

bool matching_trace_as(struct matching *mt, int n, int m, const int32_t *src, const int32_t *dst,
                       const uint8_t *side, bool hints, bool layered, size_t max_hint_bytes, char *err,
                       size_t errlen)
{
    memset(mt, 0, sizeof *mt);
    int a_count = 0;
    for (int v = 0; v < n; v++)
        a_count += side[v] == 0;
    int most_searches = (a_count < n - a_count ? a_count : n - a_count) + 1;
    mt->n = n;
    mt->m = m;
    mt->match = xcalloc((size_t)(m ? m : 1), 1);
    mt->cover = xmalloc((size_t)n);
    struct search w = {.side = side};
    adjacency_build(&w.adj, n, m, src, dst);
    w.mate_edge = xmalloc(sizeof *w.mate_edge * ((size_t)n + 1));
    w.queue = xmalloc(sizeof *w.queue * ((size_t)n + 1));
    w.pi = xmalloc(sizeof *w.pi * ((size_t)n + 1));
    w.via = xmalloc(sizeof *w.via * ((size_t)n + 1));
    w.reached = xmalloc((size_t)n + 1);
    struct frames f = {.mt = mt, .layered = layered};
    /* a layered trace's length is known once run: the searches are run
     * twice, counting the frames, then writing them */
    int frames = most_searches;
    if (hints && layered) {
        searches(&w, &f, most_searches, src, dst);
        frames = f.count;
        f.count = 0;
    }
    bool fit = !hints || hint_bytes_fit((double)frames * (5.0 * n + m + layered), max_hint_bytes, "matching", err,
                                        errlen);
    if (fit) {
        if (hints) {
            mt->hint_reached = xmalloc((size_t)frames * (size_t)n + 1);
            mt->hint_pi = xmalloc(sizeof *mt->hint_pi * ((size_t)frames * (size_t)n + 1));
            mt->hint_match = xmalloc((size_t)frames * (size_t)(m ? m : 1));
            if (layered)
                mt->hint_phase = xmalloc((size_t)frames);
        }
        searches(&w, &f, most_searches, src, dst);
    }
    adjacency_free(&w.adj);
    free(w.mate_edge);
    free(w.queue);
    free(w.pi);
    free(w.via);
    free(w.reached);
    if (!fit)
        matching_free(mt);
    return fit;
}

bool matching_trace(struct matching *mt, int n, int m, const int32_t *src, const int32_t *dst, const uint8_t *side,
                    bool hints, size_t max_hint_bytes, char *err, size_t errlen)
{
    return matching_trace_as(mt, n, m, src, dst, side, hints, false, max_hint_bytes, err, errlen);
}

void matching_free(struct matching *mt)
{
    free(mt->hint_reached);
    free(mt->hint_pi);
    free(mt->hint_match);
    free(mt->hint_phase);
    free(mt->match);
    free(mt->cover);
    memset(mt, 0, sizeof *mt);
}

int matching_konig_cover(int n, int m, const int32_t *src, const int32_t *dst, const uint8_t *side,
                         const uint8_t *match, uint8_t *cover)
{
    int32_t *mate = xmalloc(sizeof *mate * (size_t)n), *queue = xmalloc(sizeof *queue * (size_t)n);
    uint8_t *seen = xcalloc((size_t)n, 1);
    for (int v = 0; v < n; v++)
        mate[v] = -1;
    for (int e = 0; e < m; e++)
        if (match[e]) {
            mate[src[e]] = dst[e];
            mate[dst[e]] = src[e];
        }
    struct adjacency adj;
    adjacency_build(&adj, n, m, src, dst);
    int head = 0, tail = 0;
    for (int v = 0; v < n; v++)
        if (side[v] == 0 && mate[v] < 0) {
            seen[v] = 1;
            queue[tail++] = v;
        }
    while (head < tail) {
        int a = queue[head++];
        for (int64_t i = adj.off[a]; i < adj.off[a + 1]; i++) {
            int b = adj.nbr[i];
            if (match[adj.edge_of[i]] || seen[b])
                continue;
            seen[b] = 1;
            if (mate[b] >= 0 && !seen[mate[b]]) {
                seen[mate[b]] = 1;
                queue[tail++] = mate[b];
            }
        }
    }
    int size = 0;
    for (int v = 0; v < n; v++) {
        cover[v] = side[v] == 0 ? !seen[v] : seen[v];
        size += cover[v];
    }
    adjacency_free(&adj);
    free(mate);
    free(queue);
    free(seen);
    return size;
}

bool matching_check(int n, int m, const int32_t *src, const int32_t *dst, const uint8_t *match, const uint8_t *cover,
                    char *err, size_t errlen)
{
    int32_t *used = xmalloc(sizeof *used * (size_t)n);
    for (int v = 0; v < n; v++)
        used[v] = -1;
    bool ok = true;
    for (int e = 0; e < m && ok; e++) {
        int u = src[e], v = dst[e];
        if (!cover[u] && !cover[v])
            snprintf(err, errlen, "edge %d (%d-%d) is not covered", e, u, v), ok = false;
        else if (match[e] && (used[u] >= 0 || used[v] >= 0))
            snprintf(err, errlen, "edges %d and %d of the matching share a node", used[u] >= 0 ? used[u] : used[v], e),
                ok = false;
        else if (match[e])
            used[u] = used[v] = e;
    }
    free(used);
    return ok;
}
