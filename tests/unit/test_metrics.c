/* test_metrics.c - every metric against values computed by hand on tiny
 * inputs (the arithmetic is in the comments). */
#include "check.h"
#include "metrics.h"
#include "metrics_tool.h"
#include <stdlib.h>
#include <string.h>

static void test_masked_mae(void)
{
    /* truth 0 entries are skipped: |0.5-1| + |-1-(-0.5)| + |0.25-0| skipped + |2-1| = 0.5+0.5+1 = 2 over 3 */
    float pred[] = {0.5f, -1.0f, 0.25f, 2.0f}, truth[] = {1.0f, -0.5f, 0.0f, 1.0f};
    struct metric_mean acc = {0, 0};
    metric_masked_abs_error(&acc, pred, truth, 4);
    CHECK(acc.count == 3 && check_close(metric_mean_value(&acc), 2.0 / 3, 1e-15, 0), "masked MAE = 2/3 over 3 entries");
    /* pooling across graphs: a second graph with one entry error 1 -> 3/4 */
    float p2[] = {0.0f}, t2[] = {1.0f};
    metric_masked_abs_error(&acc, p2, t2, 1);
    CHECK(acc.count == 4 && metric_mean_value(&acc) == 0.75, "pooled over graphs: 3/4");
    struct metric_mean none = {0, 0};
    float z[] = {0, 0};
    metric_masked_abs_error(&none, pred, z, 2);
    CHECK(none.count == 0 && isnan(metric_mean_value(&none)), "no true flow: NaN with count 0");
}

static void test_hint_flow(void)
{
    /* T = 5, m = 2, phases 1 1 0 1 0 (frame 4 a flow frame but the last:
     * no step predicts from it).  Flow step i = 2 predicts frame 3:
     * truth[3] = (1, 0): only edge 0, |0.5 - 1| = 0.5.  Step score 0.5, graph 0.5. */
    uint8_t phase[] = {1, 1, 0, 1, 0};
    float truth[] = {0, 0, 0, 0, 1, 0, 1, 0, 2, 2};
    float pred[] = {9, 9, 9, 9, 9, 9, 0.5f, 7, 9, 9};
    int64_t steps;
    double s = metric_hint_flow_mae(pred, truth, phase, 5, 2, &steps);
    CHECK(steps == 1 && s == 0.5, "one flow step scored, MAE 0.5 (got %g over %lld)", s, (long long)steps);
    /* two flow steps: phases 1 0 1 0 1, frames 2 and 4 scored.
     * frame 2 truth (1, -1), pred (0, -1): 0.5; frame 4 truth (2, 0), pred (1, 5): 1 -> mean 0.75 */
    uint8_t ph2[] = {1, 0, 1, 0, 1};
    float t2[] = {0, 0, 1, -1, 1, -1, 2, 0, 2, 0};
    float p2[] = {0, 0, 9, 9, 0, -1, 9, 9, 1, 5};
    s = metric_hint_flow_mae(p2, t2, ph2, 5, 2, &steps);
    CHECK(steps == 2 && s == 0.75, "two flow steps: mean of 0.5 and 1 = 0.75 (got %g)", s);
    uint8_t ph3[] = {1, 1, 1};
    s = metric_hint_flow_mae(p2, t2, ph3, 3, 2, &steps);
    CHECK(steps == 0 && isnan(s), "no flow step: NaN");
}

static void test_cut(void)
{
    float pred[] = {0.1f, 0.5f, 0.51f, 0.9f, 0.2f};
    uint8_t cut[] = {0, 1, 1, 0, 0};
    /* predictions 0 0 1 1 0 against 0 1 1 0 0: right 0, 2, 4 -> 3/5 (0.5 is the source side) */
    struct metric_mean acc = {0, 0};
    metric_cut_correct(&acc, pred, cut, 5);
    CHECK(acc.count == 5 && acc.sum == 3, "cut accuracy 3/5, 0.5 counts as source side");
}

static void test_flow_value(void)
{
    /* s = 0, t = 3; edges 0-1 (f 1), 2-0 (f -0.5: 0.5 from 0 to 2), 1-3 (0.75), 3-2 (-0.25: 0.25 into 3)
     * net out of s = 1 + 0.5 = 1.5; into t = 0.75 + 0.25 = 1.0 -> value 1.5 */
    float f[] = {1.0f, -0.5f, 0.75f, -0.25f};
    int32_t src[] = {0, 2, 1, 3}, dst[] = {1, 0, 3, 2};
    CHECK(metric_flow_value(f, src, dst, 4, 0, 3) == 1.5, "value = max(|out of s| 1.5, |into t| 1.0)");
    float g[] = {-1.0f, 0.5f, 0.75f, -2.0f};
    /* out of s = -1 - 0.5 = -1.5 -> 1.5; into t = 0.75 + 2 = 2.75 */
    CHECK(metric_flow_value(g, src, dst, 4, 0, 3) == 2.75, "value = |into t| 2.75 when larger, signs by direction");
}

static void test_conservation(void)
{
    double c[] = {5, -0.5, 0.25, -7, 0};
    struct metric_mean acc = {0, 0};
    metric_conservation(&acc, c, 5, 0, 3);
    CHECK(acc.count == 3 && acc.sum == 0.75, "conservation: s and t left out, mean |c| of the rest 0.75/3");
}

static void test_classification(void)
{
    /* y    = 0 0 0 0 1 1 2 2
     * pred = 0 0 1 0 1 2 2 0
     * accuracy 5/8; recalls 3/4, 1/2, 1/2 -> balanced 7/12.
     * one-vs-rest on hard predictions:
     *   class 0: TPR 3/4, negatives 4 (1 1 2 2) predicted 0 once -> TNR 3/4 -> 0.75
     *   class 1: TPR 1/2, negatives 6, predicted 1 once (index 2) -> TNR 5/6 -> (1/2+5/6)/2 = 2/3
     *   class 2: TPR 1/2, negatives 6, predicted 2 once (index 5) -> 2/3
     *   macro (0.75 + 2/3 + 2/3)/3 = 25/36 */
    uint8_t y[] = {0, 0, 0, 0, 1, 1, 2, 2}, p[] = {0, 0, 1, 0, 1, 2, 2, 0};
    int64_t *cm = calloc(METRIC_CLASSES * METRIC_CLASSES, sizeof *cm);
    metric_confusion_add(cm, y, p, NULL, 8);
    int used;
    CHECK(metric_accuracy(cm) == 5.0 / 8, "accuracy 5/8");
    CHECK(check_close(metric_balanced_accuracy(cm), 7.0 / 12, 1e-15, 0), "balanced accuracy 7/12");
    CHECK(check_close(metric_roc_hard(cm, &used), 25.0 / 36, 1e-15, 0) && used == 3, "hard ROC 25/36 over 3 classes");
    /* a mask keeping entries 0, 4, 6, 7: y 0 1 2 2, p 0 1 2 0 -> accuracy 3/4, recalls 1 1 1/2 */
    uint8_t keep[] = {1, 0, 0, 0, 1, 0, 1, 1};
    memset(cm, 0, sizeof *cm * METRIC_CLASSES * METRIC_CLASSES);
    metric_confusion_add(cm, y, p, keep, 8);
    CHECK(metric_accuracy(cm) == 0.75, "masked accuracy 3/4");
    CHECK(check_close(metric_balanced_accuracy(cm), 2.5 / 3, 1e-15, 0), "masked balanced accuracy 5/6");
    /* a class predicted but absent from y: balanced accuracy ignores it, hard
     * ROC leaves out its constant column: y 0 0 1 1, p 0 2 1 1:
     * recalls 1/2, 1 -> 3/4; class 0: TPR 1/2 TNR 1 -> 3/4; class 1: TPR 1 TNR 1 -> 1; mean 7/8 */
    uint8_t y2[] = {0, 0, 1, 1}, p2[] = {0, 2, 1, 1};
    memset(cm, 0, sizeof *cm * METRIC_CLASSES * METRIC_CLASSES);
    metric_confusion_add(cm, y2, p2, NULL, 4);
    CHECK(metric_balanced_accuracy(cm) == 0.75, "balanced accuracy over the classes present in y");
    CHECK(metric_roc_hard(cm, &used) == 0.875 && used == 2, "hard ROC skips the class absent from y");
    memset(cm, 0, sizeof *cm * METRIC_CLASSES * METRIC_CLASSES);
    CHECK(isnan(metric_accuracy(cm)) && isnan(metric_balanced_accuracy(cm)) && isnan(metric_roc_hard(cm, &used)),
          "no entries: NaN");
    free(cm);
}

static void test_auc(void)
{
    /* scores 0.1 0.4 0.35 0.8, positives 0 0 1 1: pairs (pos, neg):
     * 0.35>0.1 yes, 0.35>0.4 no, 0.8>both yes -> 3/4 */
    double s[] = {0.1, 0.4, 0.35, 0.8};
    uint8_t pos[] = {0, 0, 1, 1};
    CHECK(metric_binary_auc(s, pos, 4) == 0.75, "binary AUC 3/4");
    /* ties: scores 0.5 0.5 0.5 1, positives 1 0 0 1: positive 0.5 ties two negatives (1/2 each),
     * positive 1 beats both: (1 + 2) / 4 = 0.75 */
    double t[] = {0.5, 0.5, 0.5, 1};
    uint8_t tp[] = {1, 0, 0, 1};
    CHECK(metric_binary_auc(t, tp, 4) == 0.75, "ties count one half");
    uint8_t allpos[] = {1, 1, 1, 1};
    CHECK(isnan(metric_binary_auc(s, allpos, 4)), "one class only: NaN");
    /* hard 0/1 scores give (TPR + TNR) / 2: TPR 1/2, TNR 2/3 -> 7/12 */
    double h[] = {1, 0, 1, 0, 0};
    uint8_t hp[] = {1, 1, 0, 0, 0};
    CHECK(check_close(metric_binary_auc(h, hp, 5), 7.0 / 12, 1e-15, 0), "0/1 scores: (TPR+TNR)/2");
    /* ovr: 3 classes, y = 0 1 2 0, proba rows
     *  (0.7 0.2 0.1) (0.2 0.5 0.3) (0.1 0.3 0.6) (0.2 0.5 0.3)
     * class 0: pos 0.7 0.2, neg 0.2 0.1 -> (1 + 1 + 0.5 + 1)/4 = 0.875;
     * class 1: pos 0.5, neg 0.2 0.3 0.5 -> 2.5/3; class 2: pos 0.6, neg 0.1 0.3 0.3 -> 1 */
    uint8_t y[] = {0, 1, 2, 0};
    double pr[] = {0.7, 0.2, 0.1, 0.2, 0.5, 0.3, 0.1, 0.3, 0.6, 0.2, 0.5, 0.3};
    int used;
    double auc = metric_roc_auc_ovr(y, pr, 4, 3, &used);
    CHECK(used == 3 && check_close(auc, (0.875 + 2.5 / 3 + 1) / 3, 1e-15, 0), "ovr macro AUC (got %.17g)", auc);
}

static void test_least_squares(void)
{
    /* y = 1 + 2 x0 - x1 exactly on 5 points */
    double X[] = {0, 0, 1, 0, 0, 1, 1, 1, 2, 3}, y[5];
    for (int i = 0; i < 5; i++)
        y[i] = 1 + 2 * X[2 * i] - X[2 * i + 1];
    double coef[2], ic;
    int rank = metric_least_squares(X, y, 5, 2, coef, &ic);
    CHECK(rank == 2 && check_close(coef[0], 2, 1e-12, 1e-12) && check_close(coef[1], -1, 1e-12, 1e-12) &&
          check_close(ic, 1, 1e-12, 1e-12), "exact fit: coef (2, -1), intercept 1 (got %g %g %g)", coef[0], coef[1], ic);
    /* a line through noisy points: x 0 1 2 3, y 1 3 2 5: slope = cov/var = (sum (x-1.5)(y-2.75))/5
     * = (-1.5*-1.75 + -0.5*0.25 + 0.5*-0.75 + 1.5*2.25)/5 = (2.625 - 0.125 - 0.375 + 3.375)/5 = 1.1,
     * intercept 2.75 - 1.1*1.5 = 1.1; predictions 1.1 2.2 3.3 4.4: SS_res 0.01+0.64+1.69+0.36 = 2.7,
     * SS_tot 3.0625+0.0625+0.5625+5.0625 = 8.75 -> R^2 = 1 - 2.7/8.75 */
    double x1[] = {0, 1, 2, 3}, y1[] = {1, 3, 2, 5};
    rank = metric_least_squares(x1, y1, 4, 1, coef, &ic);
    CHECK(check_close(coef[0], 1.1, 1e-13, 0) && check_close(ic, 1.1, 1e-13, 0), "simple regression: slope 1.1, intercept 1.1");
    double pred[4];
    for (int i = 0; i < 4; i++)
        pred[i] = ic + coef[0] * x1[i];
    CHECK(check_close(metric_r2(y1, pred, 4), 1 - 2.7 / 8.75, 1e-13, 0), "R^2 = 1 - 2.7/8.75");
    /* a duplicated column: the minimum-norm solution splits the weight evenly (y = 2 x -> 1, 1),
     * and a constant column gets 0 */
    double Xd[] = {0, 0, 5, 1, 1, 5, 2, 2, 5, 4, 4, 5}, yd[] = {0, 2, 4, 8};
    double cd[3];
    rank = metric_least_squares(Xd, yd, 4, 3, cd, &ic);
    CHECK(rank == 1 && check_close(cd[0], 1, 1e-12, 1e-12) && check_close(cd[1], 1, 1e-12, 1e-12) &&
          fabs(cd[2]) < 1e-12 && fabs(ic) < 1e-12, "rank-deficient: minimum norm (1, 1, 0), rank 1 (got %g %g %g, rank %d)",
          cd[0], cd[1], cd[2], rank);
    /* fewer rows than columns: 2 points, 3 columns: x (1,0,0) -> 1, (0,1,0) -> 3.  Centred: x ±(0.5,-0.5,0),
     * y ±(-1): minimum norm b = (-1, 1, 0), intercept 2 - (0.5*-1 + 0.5*1) = 2 */
    double Xw[] = {1, 0, 0, 0, 1, 0}, yw[] = {1, 3};
    rank = metric_least_squares(Xw, yw, 2, 3, cd, &ic);
    CHECK(rank == 1 && check_close(cd[0], -1, 1e-12, 1e-12) && check_close(cd[1], 1, 1e-12, 1e-12) &&
          fabs(cd[2]) < 1e-12 && check_close(ic, 2, 1e-12, 0), "N < d: minimum-norm solution");
    double yc[] = {2, 2, 2}, pc[] = {2, 2, 2}, pw[] = {2, 2, 3};
    CHECK(metric_r2(yc, pc, 3) == 1 && metric_r2(yc, pw, 3) == 0, "constant truth: 1 if perfect else 0 (sklearn)");
    CHECK(isnan(metric_r2(yc, pc, 0)), "R^2 of nothing: NaN");
}

static void test_names(void)
{
    int ok = 1;
    for (int q = 0; q < metric_quantity_count(); q++)
        ok &= metric_quantity_parse(metric_quantity_name(q)) == q;
    CHECK(ok && metric_quantity_parse("mae") == -1, "quantity names round-trip, unknown names rejected");
}

int main(void)
{
    check_file_name = "metrics";
    test_masked_mae();
    test_hint_flow();
    test_cut();
    test_flow_value();
    test_conservation();
    test_classification();
    test_auc();
    test_least_squares();
    test_names();
    return check_done();
}
