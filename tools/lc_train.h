/* lc_train.h - the linear classifier of the brain-vessel study (lc-train,
 * formats/lc-train.md): a 3-class softmax regression on chosen per-edge
 * inputs, standardised on the train split, trained with inverse-frequency
 * class weights by mini-batch Adam, early-stopped on the validation
 * balanced accuracy, on the benchmark's random 80/10/10 split (bvg.md §3).
 *
 * Every reduction (standardisation statistics, gradients, confusion counts)
 * is computed per fixed block of rows and summed in block order, so the
 * result does not depend on the number of threads. */
#ifndef DAR_LC_TRAIN_H
#define DAR_LC_TRAIN_H
#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>
#include "classify.h"
#include "progress.h"


struct lc_options {
    const char *inputs;       /* comma-separated keys, f32[m] or f32[m,d] */
    const char *drop;         /* comma-separated keys left out of the output, or NULL */
    int64_t split_seed;       /* the split's permutation (bvg.md: 12) */
    int64_t seed;             /* init and batch order: one trial */
    double lr;                /* Adam step size */
    double l2;                /* penalty l2/2 ||W||^2 on the mean loss (not on the bias) */
    int64_t batch;            /* rows per step; 0: auto (lc_batch_size) */
    int64_t max_epochs;
    int64_t patience;         /* epochs without a better val balanced accuracy */
    int threads;              /* 0: the CPU count */
    enum progress_mode progress;
};

/* Filter: every graph record of in, enriched with split, pred_label,
 * pred_proba and lc_model, to out. */
void lc_train_run(FILE *in, const char *in_name, FILE *out, const struct lc_options *o);

/* ---- building blocks (unit-tested) --------------------------------------- */

/* Auto batch size: n_train / 256 (at least 256 steps an epoch), between
 * 32 and 4096 rows. */
int64_t lc_batch_size(int64_t n_train);

/* Inverse-frequency class weights on the train rows (sklearn's
 * class_weight='balanced'): w_c = n_train / (K * count_c), 0 for a class
 * absent from train.  counts[K] receives the train counts. */
void lc_class_weights(double *weight, int64_t *counts, const uint8_t *label, const uint8_t *split, int64_t m);

/* Weighted softmax cross-entropy on a block of rows, and its gradient.
 *   logits  [n, K]   in; overwritten with the probabilities
 *   dlogits [n, K]   out: scale * w_y (p - onehot(y))
 *   label   [n], class_weight [K]
 * Returns sum_i w_{y_i} * -log p_{i,y_i} (float64, row order). */
double lc_softmax_ce_backward(float *dlogits, float *logits, const uint8_t *label,
                              const double *class_weight, int64_t n, float scale);

/* One block's gradient of the weighted CE (mean over `denominator` rows):
 *   x [n, q] standardised inputs, W [q, K], b [K], label [n]
 *   gW [q, K], gb [K] are OVERWRITTEN; work [2 n K] scratch
 * logits = x W + b by cblas_sgemm, gW = x^T dlogits by cblas_sgemm.
 * Returns the block's weighted CE sum (not divided). */
double lc_block_gradient(float *gW, float *gb, float *work, const float *x, const uint8_t *label,
                         const float *W, const float *b, const double *class_weight,
                         int64_t n, int q, int64_t denominator);
/* The same in plain loops (float64 accumulation), the specification. */
double lc_block_gradient_naive(float *gW, float *gb, const float *x, const uint8_t *label,
                               const float *W, const float *b, const double *class_weight,
                               int64_t n, int q, int64_t denominator);

#endif
