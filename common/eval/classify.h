/* classify.h - what the per-edge classifiers of the brain-vessel study
 * (lc-train, gnn-train) share: the benchmark's random 80/10/10 split
 * (bvg.md §3), the inputs of a record read in place, their standardisation
 * on the train split, and the enriched output record that can leave keys
 * out.  Three classes: the labels 0, 1, 2 of formats/lc-train.md. */
#ifndef DAR_CLASSIFY_H
#define DAR_CLASSIFY_H
#include <stdint.h>

enum { LC_CLASSES = 3, LC_MAX_INPUTS = 32 };
enum { LC_TRAIN = 0, LC_VAL = 1, LC_TEST = 2 };

/* The random split: a Fisher-Yates permutation perm of 0..m-1 drawn from
 * rng stream ("lc-split", 0) of seed; perm[0, floor(0.8 m)) are train,
 * perm[floor(0.8 m), floor(0.9 m)) val, the rest test (the benchmark's
 * perm[:int(0.8*N)], perm[int(0.8*N):int(0.9*N)], perm[int(0.9*N):]).
 * split[e] = 0 train, 1 val, 2 test; sizes[3] receives the counts. */
void lc_split(uint8_t *split, int64_t m, uint64_t seed, int64_t sizes[3]);

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
    const char *source;                 /* the record's stream, for messages */
};

/* Per-column mean and population standard deviation (ddof 0, sklearn's
 * StandardScaler) over the rows with split[e] == 0, in float64, per fixed
 * block of rows about a shift (the first train row), blocks summed in
 * order; a zero or non-finite deviation becomes 1.  Dies (exit 65) on a
 * non-finite input value anywhere (any split), naming the key and entry. */
void lc_standardize_stats(double *mean, double *std, const struct lc_inputs *in,
                          const uint8_t *split, long record);

/* Rows rows[0..n) of the inputs, standardised in float32:
 * x[i, j] = (v - shift_j) * scale_j with shift = mean, scale = 1 / std. */
void lc_gather(float *x, const struct lc_inputs *in, const int64_t *rows, int64_t n,
               const float *shift, const float *scale);

/* The f32[m] or f32[m, d] tensor under key, read in place (*data points
 * into the record); returns d.  Dies (65) naming the key when it is absent,
 * not an f32 tensor, or not m rows. */
struct record;
int lc_input_view(const struct record *rec, const char *key, int64_t m, const unsigned char **data);

/* in = the inputs named by names, each read by lc_input_view.  Dies (65)
 * when names holds more than LC_MAX_INPUTS keys. */
struct cli_list;
void lc_inputs_view(struct lc_inputs *in, const struct record *rec, const struct cli_list *names, int64_t m);

/* writer_begin_enriched for the n_added keys the caller then packs, also
 * leaving out the keys of the comma-separated list drop (NULL or "": none):
 * an embedding of 3 GB need not travel on to metrics, whose reader stops at
 * 2 GiB. */
struct writer;
void lc_begin_output(struct writer *w, const struct record *rec, const char *const *added_keys, int n_added,
                     const char *drop);

#endif
