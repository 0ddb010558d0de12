/* metrics_paths.c - the shortest-path metrics (metrics.h): the predicted
 * tree's pointers and paths, the predicted potentials' error and
 * feasibility. */
#include "metrics.h"
#include "die.h"
#include <math.h>
#include <stdlib.h>

void metric_pointer_correct(struct metric_mean *acc, const int32_t *pred, const int32_t *truth, int64_t n)
{
    for (int64_t v = 0; v < n; v++)
        acc->sum += pred[v] == truth[v];
    acc->count += n;
}

void metric_distance_abs_error(struct metric_mean *acc, const float *pred_d, const double *d,
                               const uint8_t *reached, int64_t n)
{
    for (int64_t v = 0; v < n; v++)
        if (reached[v]) {
            acc->sum += fabs((double)pred_d[v] - d[v]);
            acc->count++;
        }
}

void metric_feasible_edges(struct metric_mean *acc, const float *pred_d, const int32_t *src, const int32_t *dst,
                           const float *w, const uint8_t *reached, int64_t m, double tol)
{
    for (int64_t e = 0; e < m; e++) {
        int u = src[e], v = dst[e];
        if (!reached[u] || !reached[v])
            continue;
        double du = pred_d[u], dv = pred_d[v], we = w[e];
        acc->sum += dv <= du + we + tol && du <= dv + we + tol;
        acc->count++;
    }
}

/* The weight of the edge {u, v} from u's row of the adjacency (first[u]..
 * first[u+1] in nbr, wt), or NaN when there is none. */
static double edge_weight(const int64_t *first, const int32_t *nbr, const double *wt, int u, int v)
{
    for (int64_t k = first[u]; k < first[u + 1]; k++)
        if (nbr[k] == v)
            return wt[k];
    return NAN;
}

void metric_tree_paths(struct metric_mean *gap, struct metric_mean *optimal, const int32_t *pred_pi,
                       const double *d, const uint8_t *reached, const int32_t *src, const int32_t *dst,
                       const float *w, int64_t n, int64_t m, int s)
{
    int64_t *first = xcalloc((size_t)n + 2, sizeof *first);
    int32_t *nbr = xmalloc(sizeof *nbr * (size_t)(2 * m + 1));
    double *wt = xmalloc(sizeof *wt * (size_t)(2 * m + 1));
    for (int64_t e = 0; e < m; e++) {
        first[src[e] + 2]++;
        first[dst[e] + 2]++;
    }
    for (int64_t v = 0; v < n; v++)
        first[v + 2] += first[v + 1];
    for (int64_t e = 0; e < m; e++) {
        int64_t a = first[src[e] + 1]++, b = first[dst[e] + 1]++;
        nbr[a] = dst[e];
        wt[a] = w[e];
        nbr[b] = src[e];
        wt[b] = w[e];
    }
    for (int64_t v = 0; v < n; v++) {
        if (!reached[v] || v == s)
            continue;
        double length = 0;
        int u = (int)v;
        for (int64_t hop = 0; hop < n && u != s; hop++) {
            int next = pred_pi[u];
            double we = next >= 0 && next < n ? edge_weight(first, nbr, wt, u, next) : NAN;
            if (isnan(we)) {
                u = -1;
                break;
            }
            length += we;
            u = next;
        }
        bool arrived = u == s;
        if (arrived) {
            gap->sum += length - d[v];
            gap->count++;
        }
        optimal->sum += arrived && fabs(length - d[v]) <= 1e-9 * (1 + d[v]);
        optimal->count++;
    }
    free(first);
    free(nbr);
    free(wt);
}
