/* matching_fix.c - greedy repairs of a predicted matching and cover. */
#define _GNU_SOURCE     /* qsort_r */
#include "matching_fix.h"
#include "die.h"
#include <stdlib.h>

/* Higher score first, then lower edge index: a total order, so the
 * result does not depend on qsort's algorithm. */
static int by_score(const void *a, const void *b, void *scores)
{
    const float *score = scores;
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    float sx = score[x], sy = score[y];
    if (sx != sy)
        return sx > sy ? -1 : 1;
    return (x > y) - (x < y);
}

int matching_fix(int n, int m, const int32_t *src, const int32_t *dst, const float *score, float min_score,
                 uint8_t *match)
{
    int32_t *order = xmalloc(sizeof *order * ((size_t)m + 1));
    uint8_t *used = xcalloc((size_t)n + 1, 1);
    int count = 0, size = 0;
    for (int e = 0; e < m; e++)
        if (score[e] >= min_score)
            order[count++] = e;
    qsort_r(order, (size_t)count, sizeof *order, by_score, (void *)score);
    for (int e = 0; e < m; e++)
        match[e] = 0;
    for (int k = 0; k < count; k++) {
        int e = order[k];
        if (used[src[e]] || used[dst[e]])
            continue;
        used[src[e]] = used[dst[e]] = 1;
        match[e] = 1;
        size++;
    }
    free(order);
    free(used);
    return size;
}

int cover_fix(int n, int m, const int32_t *src, const int32_t *dst, const uint8_t *side, const float *score,
              uint8_t *cover)
{
    int size = 0;
    for (int v = 0; v < n; v++) {
        cover[v] = score[v] >= 0.5f;
        size += cover[v];
    }
    for (int e = 0; e < m; e++) {
        int u = src[e], v = dst[e];
        if (cover[u] || cover[v])
            continue;
        int pick;
        if (score[u] != score[v])
            pick = score[u] > score[v] ? u : v;
        else if (side && side[u] != side[v])
            pick = side[u] ? u : v;
        else
            pick = u < v ? u : v;
        cover[pick] = 1;
        size++;
    }
    return size;
}

int cover_valid(int m, const int32_t *src, const int32_t *dst, const float *score)
{
    for (int e = 0; e < m; e++)
        if (score[src[e]] < 0.5f && score[dst[e]] < 0.5f)
            return 0;
    return 1;
}
