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
#include "progress.h"

enum { LC_CLASSES = 3, LC_MAX_INPUTS = 32 };
enum { LC_TRAIN = 0, LC_VAL = 1, LC_TEST = 2 };

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

/* The random split: a Fisher-Yates permutation perm of 0..m-1 drawn from
 * rng stream ("lc-split", 0) of seed; perm[0, floor(0.8 m)) are train,
 * perm[floor(0.8 m), floor(0.9 m)) val, the rest test (the benchmark's
 * perm[:int(0.8*N)], perm[int(0.8*N):int(0.9*N)], perm[int(0.9*N):]).
 * split[e] = 0 train, 1 val, 2 test; sizes[3] receives the counts. */
void lc_split(uint8_t *split, int64_t m, uint64_t seed, int64_t sizes[3]);

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

/* The inputs of one record: column j of the design matrix comes from
 * input k = col_input[j], dimension col_dim[j].  Data pointers point into
 * the record (msgpack payloads are unaligned: read with memcpy). */
struct lc_inputs {
    int count;                          /* inputs */
    const char *name[LC_MAX_INPUTS];
    const unsigned char *data[LC_MAX_INPUTS];   /* f32[m, dim[k]], little-endian */
    int dim[LC_MAX_INPUTS];
    int q;                              /* columns: sum of dim */
    int64_t m;
};

/* Per-column mean and population standard deviation (ddof 0, sklearn's
 * StandardScaler) over the rows with split[e] == 0, in float64, per fixed
 * block of rows about a shift (the first train row), blocks summed in
 * order; a zero or non-finite deviation becomes 1.  Dies (exit 65) on a
 * non-finite input value anywhere (any split), naming the key and entry. */
void lc_standardize_stats(double *mean, double *std, const struct lc_inputs *in,
                          const uint8_t *split, long record, int threads);

/* Rows rows[0..n) of the inputs, standardised in float32:
 * x[i, j] = (v - shift_j) * scale_j with shift = mean, scale = 1 / std. */
void lc_gather(float *x, const struct lc_inputs *in, const int64_t *rows, int64_t n,
               const float *shift, const float *scale);

/* The f32[m] or f32[m, d] tensor under key, read in place (*data points
 * into the record); returns d.  Dies (65) naming the key when it is absent,
 * not an f32 tensor, or not m rows. */
struct record;
int lc_input_view(const struct record *rec, const char *key, int64_t m, const unsigned char **data);

/* writer_begin_enriched for the n_added keys the caller then packs, also
 * leaving out the keys of the comma-separated list drop (NULL or "": none):
 * an embedding of 3 GB need not travel on to metrics, whose reader stops at
 * 2 GiB. */
struct writer;
void lc_begin_output(struct writer *w, const struct record *rec, const char *const *added_keys, int n_added,
                     const char *drop);

#endif
