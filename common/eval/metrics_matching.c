/* metrics_matching.c - the bipartite matching metrics (metrics.h): the
 * predicted matching against the trace's, the repaired matching's and
 * cover's sizes against nu, shares of graphs. */
#include "metrics.h"

void metric_match_f1(struct metric_mean *acc, const float *pred, const uint8_t *truth, int64_t m)
{
    int64_t tp = 0, fp = 0, fn = 0;
    for (int64_t e = 0; e < m; e++) {
        bool guess = pred[e] >= 0.5f;
        tp += guess && truth[e];
        fp += guess && !truth[e];
        fn += !guess && truth[e];
    }
    acc->sum += tp + fp + fn ? 2.0 * (double)tp / (double)(2 * tp + fp + fn) : 1.0;
    acc->count++;
}

void metric_size_ratio(struct metric_mean *acc, int64_t size, int64_t nu)
{
    if (nu <= 0)
        return;
    acc->sum += (double)size / (double)nu;
    acc->count++;
}

void metric_share(struct metric_mean *acc, bool yes)
{
    acc->sum += yes;
    acc->count++;
}
