/* metrics_cover.c - the vertex-cover metrics (metrics.h): the repaired
 * cover's weight against the algorithm's and the optimum, the predicted
 * packing's overload, and the gap the repaired pair certifies. */
#include "metrics.h"
#include <math.h>
#include <string.h>

static void add_ratio(struct metric_mean *acc, double numerator, double denominator)
{
    if (denominator > 0) {
        acc->sum += numerator / denominator;
        acc->count++;
    }
}

void metric_cover_weight_ratio(struct metric_mean *acc, double fixed_weight, const float *node_w,
                               const uint8_t *cover, int64_t n)
{
    double reference = 0;
    for (int64_t v = 0; v < n; v++)
        if (cover[v])
            reference += node_w[v];
    add_ratio(acc, fixed_weight, reference);
}

void metric_cover_opt_ratio(struct metric_mean *ratio, struct metric_mean *unproven, double fixed_weight,
                            double opt_weight, const char *opt_status)
{
    bool optimal = strcmp(opt_status, "optimal") == 0;
    unproven->sum += !optimal;
    unproven->count++;
    if (optimal)
        add_ratio(ratio, fixed_weight, opt_weight);
}

void metric_packing_excess(struct metric_mean *acc, double excess, const float *node_w, int64_t n)
{
    double total = 0;
    for (int64_t v = 0; v < n; v++)
        total += node_w[v];
    add_ratio(acc, excess, total);
}

void metric_certified_gap(struct metric_mean *gap, struct metric_mean *uncertified, double cover_weight,
                          double packing_value)
{
    if (!(cover_weight > 0))
        return;
    uncertified->sum += !(packing_value > 0);
    uncertified->count++;
    add_ratio(gap, cover_weight, packing_value);
}
