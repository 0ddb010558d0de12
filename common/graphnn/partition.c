/* partition.c - METIS k-way partition and induced subgraphs (partition.h). */
#include "partition.h"
#include "die.h"
#include <metis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *metis_status(int rc)
{
    switch (rc) {
    case METIS_ERROR_INPUT: return "METIS_ERROR_INPUT";
    case METIS_ERROR_MEMORY: return "METIS_ERROR_MEMORY";
    default: return "METIS_ERROR";
    }
}

int partition_metis(int32_t *part, const struct line_graph *g, int parts, int64_t *edge_cut, char *err,
                    size_t errlen)
{
    if (edge_cut)
        *edge_cut = 0;
    if (parts < 1) {
        snprintf(err, errlen, "%d parts, expected at least 1", parts);
        return -1;
    }
    if (parts == 1 || g->n == 0) {
        for (int64_t i = 0; i < g->n; i++)
            part[i] = 0;
        return 0;
    }
    if (g->offsets[g->n] > INT32_MAX) {
        snprintf(err, errlen, "%lld adjacency entries: more than METIS's 32-bit indices hold",
                 (long long)g->offsets[g->n]);
        return -1;
    }
    idx_t nvtxs = (idx_t)g->n, ncon = 1, nparts = parts, cut = 0;
    idx_t *xadj = xmalloc(sizeof *xadj * (size_t)(g->n + 1));
    for (int64_t i = 0; i <= g->n; i++)
        xadj[i] = (idx_t)g->offsets[i];
    /* METIS takes non-const pointers but does not write the graph */
    int rc = METIS_PartGraphKway(&nvtxs, &ncon, xadj, (idx_t *)g->neighbors, NULL, NULL, NULL, &nparts, NULL, NULL,
                                 NULL, &cut, (idx_t *)part);
    free(xadj);
    if (rc != METIS_OK) {
        snprintf(err, errlen, "METIS_PartGraphKway failed (%s) on %lld nodes, %d parts", metis_status(rc),
                 (long long)g->n, parts);
        return -1;
    }
    for (int64_t i = 0; i < g->n; i++)
        if (part[i] < 0 || part[i] >= parts) {
            snprintf(err, errlen, "METIS_PartGraphKway put node %lld in part %d of %d", (long long)i, part[i], parts);
            return -1;
        }
    if (edge_cut)
        *edge_cut = cut;
    return 0;
}

static int compare_int32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

void line_graph_induced(struct line_graph *sub, const struct line_graph *g, const int32_t *nodes, int64_t k,
                        int32_t *local)
{
    for (int64_t i = 0; i < k; i++)
        local[nodes[i]] = (int32_t)i;
    sub->n = k;
    sub->offsets = xmalloc(sizeof *sub->offsets * (size_t)(k + 1));
    sub->offsets[0] = 0;
    for (int64_t i = 0; i < k; i++) {
        int64_t count = 0;
        for (int64_t e = g->offsets[nodes[i]]; e < g->offsets[nodes[i] + 1]; e++)
            count += local[g->neighbors[e]] >= 0;
        sub->offsets[i + 1] = sub->offsets[i] + count;
    }
    sub->neighbors = xmalloc(sizeof *sub->neighbors * (size_t)(sub->offsets[k] ? sub->offsets[k] : 1));
    for (int64_t i = 0; i < k; i++) {
        int32_t *row = sub->neighbors + sub->offsets[i];
        int64_t count = 0;
        for (int64_t e = g->offsets[nodes[i]]; e < g->offsets[nodes[i] + 1]; e++)
            if (local[g->neighbors[e]] >= 0)
                row[count++] = local[g->neighbors[e]];
        qsort(row, (size_t)count, sizeof *row, compare_int32);
    }
    for (int64_t i = 0; i < k; i++)
        local[nodes[i]] = -1;
}
