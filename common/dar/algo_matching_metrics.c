/* algo_matching_metrics.c - matching's metric rows (formats/metric.md):
 * the predicted matching against the trace's, and match-fix's repaired
 * matching and Konig cover. */
#include "algo_matching.h"
#include <stdlib.h>

static void match_f1(struct metric_mean *acc, const struct record *rec)
{
    int64_t m = metric_count(rec, "m");
    float *pred = metric_f32_vector(rec, "pred_match", m);
    uint8_t *truth = record_vector(rec, "match", DT_U8, m);
    metric_match_f1(acc, pred, truth, m);
    free(pred);
    free(truth);
}

static void match_ratio(struct metric_mean *acc, const struct record *rec)
{
    metric_size_ratio(acc, metric_count(rec, "fixed_match_size"), metric_count(rec, "size"));
}

static void cover_valid_before(struct metric_mean *acc, const struct record *rec)
{
    metric_share(acc, record_bool(rec, "cover_valid_before"));
}

static void cover_ratio(struct metric_mean *acc, const struct record *rec)
{
    metric_size_ratio(acc, metric_count(rec, "fixed_cover_size"), metric_count(rec, "size"));
}

/* A repaired matching and cover of one size certify each other. */
static void certified(struct metric_mean *acc, const struct record *rec)
{
    metric_share(acc, metric_count(rec, "fixed_match_size") == metric_count(rec, "fixed_cover_size"));
}

const struct metric_row matching_metrics[] = {
    {.name = "match_f1", .keys = {"m", "pred_match", "match"}, .mean = match_f1},
    {.name = "match_ratio", .keys = {"fixed_match_size", "size"}, .mean = match_ratio},
    {.name = "cover_valid_before", .keys = {"cover_valid_before"}, .mean = cover_valid_before},
    {.name = "cover_ratio", .keys = {"fixed_cover_size", "size"}, .mean = cover_ratio},
    {.name = "certified", .keys = {"fixed_match_size", "fixed_cover_size"}, .mean = certified},
    {0},
};
