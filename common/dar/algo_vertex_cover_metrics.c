/* algo_vertex_cover_metrics.c - vertex cover's metric rows
 * (formats/metric.md), on cover-fix's keys: the repaired cover against the
 * algorithm's and the optimum, and the repaired packing's certificate. */
#include "algo_vertex_cover.h"
#include <stdlib.h>
#include <string.h>

/* node_w [n], each a weight >= 0. */
static float *node_weights(const struct record *rec, int64_t n)
{
    float *node_w = metric_f32_vector(rec, "node_w", n);
    for (int64_t v = 0; v < n; v++)
        if (node_w[v] < 0)
            record_die(rec, "'node_w' entry %lld is %g, expected a weight >= 0", (long long)v, (double)node_w[v]);
    return node_w;
}

static void cover_weight_ratio(struct metric_mean *acc, const struct record *rec)
{
    int64_t n = metric_count(rec, "n");
    float *node_w = node_weights(rec, n);
    uint8_t *cover = metric_node_vector(rec, "cover", DT_U8, n);
    metric_cover_weight_ratio(acc, metric_finite(rec, "fixed_cover_weight"), node_w, cover, n);
    free(cover);
    free(node_w);
}

static void packing_excess(struct metric_mean *acc, const struct record *rec)
{
    int64_t n = metric_count(rec, "n");
    float *node_w = node_weights(rec, n);
    metric_packing_excess(acc, metric_finite(rec, "packing_excess"), node_w, n);
    free(node_w);
}

/* The ratio to the optimum and the share left unproven (one of them a
 * scratch mean: metric_cover_opt_ratio computes both). */
static void opt_ratio(struct metric_mean *ratio, struct metric_mean *unproven, const struct record *rec)
{
    char status[32];
    record_str(rec, "opt_status", status, sizeof status);
    if (strcmp(status, "optimal") && strcmp(status, "feasible") && strcmp(status, "unsolved"))
        record_die(rec, "'opt_status' is '%s', expected optimal, feasible or unsolved", status);
    metric_cover_opt_ratio(ratio, unproven, metric_finite(rec, "fixed_cover_weight"),
                           metric_finite(rec, "opt_weight"), status);
}

static void cover_opt_ratio(struct metric_mean *acc, const struct record *rec)
{
    struct metric_mean unproven = {0};
    opt_ratio(acc, &unproven, rec);
}

static void opt_unproven(struct metric_mean *acc, const struct record *rec)
{
    struct metric_mean ratio = {0};
    opt_ratio(&ratio, acc, rec);
}

static void certified_gap(struct metric_mean *acc, const struct record *rec)
{
    struct metric_mean uncertified = {0};
    metric_certified_gap(acc, &uncertified, metric_finite(rec, "fixed_cover_weight"),
                         metric_finite(rec, "packing_value"));
}

static void uncertified(struct metric_mean *acc, const struct record *rec)
{
    struct metric_mean gap = {0};
    metric_certified_gap(&gap, acc, metric_finite(rec, "fixed_cover_weight"), metric_finite(rec, "packing_value"));
}

const struct metric_row vertex_cover_metrics[] = {
    {.name = "cover_weight_ratio", .keys = {"n", "node_w", "cover", "fixed_cover_weight"},
     .mean = cover_weight_ratio},
    {.name = "cover_opt_ratio", .keys = {"fixed_cover_weight", "opt_weight", "opt_status"}, .mean = cover_opt_ratio},
    {.name = "opt_unproven", .keys = {"fixed_cover_weight", "opt_weight", "opt_status"}, .mean = opt_unproven},
    {.name = "packing_excess", .keys = {"n", "node_w", "packing_excess"}, .mean = packing_excess},
    {.name = "certified_gap", .keys = {"fixed_cover_weight", "packing_value"}, .mean = certified_gap},
    {.name = "uncertified", .keys = {"fixed_cover_weight", "packing_value"}, .mean = uncertified},
    {0},
};
