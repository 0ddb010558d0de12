/* dar_fit.h - dar-fit's training loop (formats/model.md §5): batches drawn with
 * replacement, teacher forcing that decays, SGD or Adam, validation every
 * few iterations keeping the best checkpoint, a TSV log, and a model record
 * that carries what --resume needs to continue bit-identically. */
#ifndef DAR_DAR_FIT_H
#define DAR_DAR_FIT_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "cache.h"
#include "dar.h"
#include "optim.h"
#include "progress.h"

struct checkpoint;

struct dar_fit_options {
    struct dar_config config;  /* its algorithm is the training records' (config.algorithm unread) */
    double lr, weight_decay;
    int64_t batch, iters, eval_every;
    bool adam;
    uint64_t seed;
    double tf_decay;
    bool tf_per_step;          /* the code's schedule: decay^kappa, kappa per pass and step */
    const char *log_path;      /* NULL: no log */
    enum progress_mode progress;
    const char *canonical_args;/* for the provenance */
    struct checkpoint *checkpoint;  /* or NULL: the run's state kept every few iterations */
    int64_t threads;           /* the pool dar_fit_run starts (0: one per CPU) */
    double clip_norm;          /* the gradients' global L2 norm clipped to this (0: not) */
    bool keep_last;            /* write the last iteration's parameters, not the best validated */
    /* the learning rate's schedule over iterations 0 .. lr_horizon (0: iters) */
    enum lr_schedule lr_schedule;
    int64_t lr_horizon;
};

/* Train on the records of train (all loaded), validate on val (may be NULL:
 * then the last parameters are kept), continue from resume (a model record,
 * may be NULL), and write one model record to out.  Each input's bytes are
 * freed once read; the stored digests of train and val are the provenance's
 * train_hash and val_hash. */
void dar_fit_run(struct input_bytes *train, struct input_bytes *val, struct input_bytes *resume, FILE *out,
                 const struct dar_fit_options *o);

/* The entry the training records are for: their first record's (dying,
 * exit 65, as dar_fit_run would on it), the default entry when there is
 * none.  dar-fit's hyperparameter defaults are that entry's. */
const struct dar_algorithm *dar_fit_records_entry(const struct input_bytes *train);

/* Write the TSV log of a model record's training curve (for a cache hit:
 * the seconds column is then empty). */
void train_write_log_from_model(FILE *model, const char *name, const char *log_path);

#endif
