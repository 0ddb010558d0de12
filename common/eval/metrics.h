/* metrics.h - the evaluation metrics of the paper (formats/metric.md), as
 * plain functions on arrays; the `metrics` tool is tools/metrics_tool.h.
 *
 * Every number is computed in float64 from the stored float32/float64
 * inputs, in a fixed order, so equal inputs give equal bits.  Pooled means
 * are kept as a (sum, count) pair so they can be accumulated record by
 * record and graph by graph; a mean of nothing is NaN. */
#ifndef DAR_METRICS_H
#define DAR_METRICS_H
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>

/* ---- pooled means ------------------------------------------------------- */

struct metric_mean {
    double sum;
    int64_t count;
};
/* sum / count, NaN when count == 0. */
double metric_mean_value(const struct metric_mean *a);

/* ---- flow regression -------------------------------------------------- */

/* Masked absolute error (dar-reference §5, the code's masked_mae): adds
 * |pred[i] - truth[i]| for every i with truth[i] != 0 to acc.  Pooled over
 * the edges of every graph of a split this is the paper's "MAE on F".  An
 * undirected edge stands for both orientations (u,v) and (v,u) of the code's
 * n x n matrix, whose errors are equal, so the per-edge mean is the same. */
void metric_masked_abs_error(struct metric_mean *acc, const float *pred, const float *truth, int64_t count);

/* Intermediate-flow MAE of one graph (the reference's §5 proposal, aligned
 * with the model: model.md §4, step i predicts frame i+1).  pred and truth
 * are [T*m] (pred_hint_flow and hint_flow), phase is hint_phase [T].
 *   flow steps:  every i with phase[i] == 0 and i + 1 < T (frame i is an
 *                augmentation frame, so i >= 1; step i is where the flow
 *                network predicts the flow);
 *   step score:  masked MAE of pred[i+1] against truth[i+1] over the edges
 *                with truth[i+1] != 0 (a step with no such edge is skipped);
 *   graph score: mean of the step scores.
 * Returns the graph score, NaN if no step was scored; *steps (if not NULL)
 * is the number of steps scored.  The metric is then the mean over graphs
 * of the graph scores that are not NaN. */
double metric_hint_flow_mae(const float *pred, const float *truth, const uint8_t *phase,
                            int64_t T, int64_t m, int64_t *steps);

/* Cut accuracy: adds, for each of the n nodes, 1 if (pred_cut[v] > 0.5) ==
 * cut[v] (pred_cut is P(sink side); exactly 0.5 counts as the source side,
 * like the code's argmax over two logits), else 0.  Pooled over every node of
 * every graph, s and t included (dar-reference §5). */
void metric_cut_correct(struct metric_mean *acc, const float *pred_cut, const uint8_t *cut, int64_t n);

/* The value of a (possibly infeasible) flow: max(|net out of s|, |net into t|)
 * with net out of v = sum of flow[e] over edges with src[e] == v minus the
 * sum over edges with dst[e] == v (flow is the net flow src->dst). */
double metric_flow_value(const float *flow, const int32_t *src, const int32_t *dst,
                         int64_t m, int s, int t);

/* Conservation error: adds |c[v]| for every node v other than s and t. */
void metric_conservation(struct metric_mean *acc, const double *c, int64_t n, int s, int t);

/* ---- selected edges against the trace's --------------------------------- */

/* The F1 score of one graph's predicted edge set (the edges with
 * pred >= 1/2) against the trace's, added to acc as one graph; a graph
 * where both are empty scores 1. */
void metric_match_f1(struct metric_mean *acc, const float *pred, const uint8_t *truth, int64_t m);
/* size / nu added to acc as one graph, unless nu == 0 (no edge to match). */
void metric_size_ratio(struct metric_mean *acc, int64_t size, int64_t nu);
/* 1 or 0 added to acc as one graph. */
void metric_share(struct metric_mean *acc, bool yes);

/* ---- shortest paths (metrics_paths.c) ------------------------------------ */

/* The tolerance of metric_feasible_edges: an absolute slack on weights in
 * [0,1], above float32 round-off of sums of a few dozen weights, far below
 * one weight. */
#define METRIC_FEASIBLE_TOL 1e-3

/* Pointer accuracy (CLRS's score for Bellman-Ford): adds, for each of the n
 * nodes, 1 if pred[v] == truth[v], else 0 (s and unreached nodes, whose
 * pointer is themselves, included). */
void metric_pointer_correct(struct metric_mean *acc, const int32_t *pred, const int32_t *truth, int64_t n);
/* Adds |pred_d[v] - d[v]| for every reached node (s included). */
void metric_distance_abs_error(struct metric_mean *acc, const float *pred_d, const double *d,
                               const uint8_t *reached, int64_t n);
/* Adds, for each edge whose ends are reached, 1 if the predicted potentials
 * are feasible on it both ways (d_v <= d_u + w_uv + tol and d_u <= d_v +
 * w_uv + tol), else 0. */
void metric_feasible_edges(struct metric_mean *acc, const float *pred_d, const int32_t *src, const int32_t *dst,
                           const float *w, const uint8_t *reached, int64_t m, double tol);
/* The predicted tree's paths: for every reached node v != s, pred_pi is
 * followed from v (each step along an edge of the graph, at most n steps);
 * when it arrives at s, its length L (the sum of the weights, in float64)
 * adds L - d[v] to gap; optimal gets 1 when the path arrives at s with L
 * within 1e-9 (1 + d[v]) of d[v], else 0 (also when it does not arrive:
 * a pointer off the graph's edges, a cycle). */
void metric_tree_paths(struct metric_mean *gap, struct metric_mean *optimal, const int32_t *pred_pi,
                       const double *d, const uint8_t *reached, const int32_t *src, const int32_t *dst,
                       const float *w, int64_t n, int64_t m, int s);

/* ---- vertex cover (metrics_cover.c) -------------------------------------- */

/* Adds fixed_weight / w(cover), the repaired cover's weight over the
 * algorithm's cover (PDNAR's final_weight_ratio, per graph), when w(cover)
 * > 0 (a graph without edges has the empty cover and is not scored). */
void metric_cover_weight_ratio(struct metric_mean *acc, double fixed_weight, const float *node_w,
                               const uint8_t *cover, int64_t n);
/* Adds 1 to unproven when opt_status is not "optimal" (else 0), and
 * fixed_weight / opt_weight to ratio only when it is and opt_weight > 0: a
 * cover the node budget left unproven is no optimum to divide by. */
void metric_cover_opt_ratio(struct metric_mean *ratio, struct metric_mean *unproven, double fixed_weight,
                            double opt_weight, const char *opt_status);
/* Adds excess / sum(node_w), flow-fix's packing_excess (the predicted
 * packing's overload sum_v max(0, load_v - w_v)) relative to the weights,
 * when the weights sum to more than 0. */
void metric_packing_excess(struct metric_mean *acc, double excess, const float *node_w, int64_t n);
/* For a graph with cover_weight > 0: adds to uncertified 1 when the
 * repaired packing is empty (sum y = 0, nothing certified), else 0, and to
 * gap w(C) / sum y when sum y > 0: by weak duality sum y <= OPT, so the
 * cover is within this factor of the optimum. */
void metric_certified_gap(struct metric_mean *gap, struct metric_mean *uncertified, double cover_weight,
                          double packing_value);

/* ---- classification ----------------------------------------------------- */

/* Labels are bytes, so a confusion matrix is METRIC_CLASSES x METRIC_CLASSES
 * counts, row = true class, column = predicted class. */
enum { METRIC_CLASSES = 256 };

/* Adds label/pred pairs to confusion[label * 256 + pred], only the entries
 * with keep[i] != 0 when keep is not NULL. */
void metric_confusion_add(int64_t *confusion, const uint8_t *label, const uint8_t *pred,
                          const uint8_t *keep, int64_t count);
/* Fraction of correct predictions (sklearn accuracy_score). NaN if empty. */
double metric_accuracy(const int64_t *confusion);
/* Mean over the classes present in the true labels of the recall
 * correct_c / support_c (sklearn balanced_accuracy_score, adjusted=False). */
double metric_balanced_accuracy(const int64_t *confusion);
/* The vessel benchmark's "ROC" (bvg.md §3): its code label-binarizes the hard
 * predictions and the labels and calls roc_auc_score on the indicators, i.e.
 * for each class c the binary AUC of the 0/1 score [pred == c] against
 * [label == c], which is (TPR_c + TNR_c) / 2, macro-averaged.  Classes whose
 * indicator column is constant (absent from the labels, or every label) have
 * no AUC (sklearn raises) and are left out of the mean; NaN if none is left.
 * *classes (if not NULL) is the number of classes averaged. */
double metric_roc_hard(const int64_t *confusion, int *classes);

/* Binary ROC AUC of scores against 0/1 truth: the probability that a random
 * positive scores above a random negative, ties counting one half (equal to
 * the trapezoidal area under sklearn's roc_curve, and to the Mann-Whitney U
 * with average ranks).  Exact: the numerator is an integer count.  NaN when
 * there are no positives or no negatives.  O(N log N), allocates N entries. */
double metric_binary_auc(const double *score, const uint8_t *positive, int64_t N);
/* One-vs-rest macro ROC AUC from probabilities (sklearn roc_auc_score(y,
 * proba, multi_class="ovr", average="macro")): proba is [N*K] row-major, the
 * class-c AUC scores column c against [label == c]; the mean is over the
 * classes c < K whose column has both positives and negatives (sklearn
 * raises unless every class of 0..K-1 occurs).  Labels >= K count as negatives
 * everywhere (the caller rejects them).  *classes as metric_roc_hard. */
double metric_roc_auc_ovr(const uint8_t *label, const double *proba, int64_t N, int K, int *classes);

/* ---- linear decoding (R^2) -------------------------------------------- */

/* Ordinary least squares with an intercept, as sklearn LinearRegression:
 * X [N*d] row-major and y [N] are centred by their means, the minimum-norm
 * solution of min |Xc b - yc| is taken, and intercept = mean(y) - mean(X) . b.
 * Singular values at most eps * max(N, d) * the largest count as zero
 * (numpy.linalg.lstsq's rcond; sklearn's scipy lstsq uses eps alone, which
 * differs only where singular values are rounding noise), so constant and
 * duplicate columns, and N <= d, are handled.  Solved in float64: Householder
 * QR of Xc when N > d, then a one-sided Jacobi SVD of R (of Xc^T when
 * N <= d).  coef gets d entries.
 * Returns the numerical rank. */
int metric_least_squares(const double *X, const double *y, int64_t N, int d,
                         double *coef, double *intercept);
/* Coefficient of determination 1 - SS_res / SS_tot, SS_tot about the mean of
 * y (sklearn r2_score); when SS_tot == 0: 1 if SS_res == 0, else 0 (sklearn's
 * force_finite).  NaN when N == 0. */
double metric_r2(const double *y, const double *pred, int64_t N);

#endif
