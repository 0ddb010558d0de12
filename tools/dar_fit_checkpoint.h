/* dar_fit_checkpoint.h - dar-fit's checkpoint: the model record a training
 * would write if it stopped now (with its train_state, so --resume continues
 * it bit-identically), kept beside the cache entry it will become:
 * <root>/v1/<k0k1>/<k2...k31>.ckpt, written every N iterations to a temp file
 * renamed into place, and sealed like an entry (formats/cache.md): payload,
 * "DARCKPT1", the key, the length, the XXH3-64 of the payload.  A rerun of
 * the same command (the same key) resumes from it; a checkpoint that does not
 * verify is ignored with a warning; the run's success removes it. */
#ifndef DAR_DAR_FIT_CHECKPOINT_H
#define DAR_DAR_FIT_CHECKPOINT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "cache.h"

struct checkpoint {
    int64_t every;             /* iterations between checkpoints */
    char key_hex[33];
    char path[4200];           /* the checkpoint */
    char tmp_path[4200];       /* one being written */
    char *payload;             /* a valid checkpoint's record, read by checkpoint_open */
    size_t length;
    bool failed;               /* a write failed: no more checkpoints this run */
};

/* The checkpoint of a cached run's miss, every `every` iterations; false
 * (and nothing is kept) when the cache is off or every is 0.  Reads an
 * existing checkpoint: a valid one is then ck->resume. */
bool checkpoint_open(struct checkpoint *ck, struct cache *c, int64_t every);
/* Hand the valid checkpoint's record over as b (its bytes b's from now
 * on); false when checkpoint_open found none. */
bool checkpoint_take_resume(struct checkpoint *ck, struct input_bytes *b);
/* After iteration `done` of `iters`: time for a checkpoint? */
bool checkpoint_due(const struct checkpoint *ck, int64_t done, int64_t iters);
/* Keep the record's length bytes as the checkpoint, atomically.  A failure
 * to write warns once and stops checkpointing; the training goes on. */
void checkpoint_save(struct checkpoint *ck, const void *record, size_t length);
/* The run succeeded (its entry is committed): remove the checkpoint. */
void checkpoint_done(struct checkpoint *ck);
void checkpoint_close(struct checkpoint *ck);

/* A checkpoint file's bytes: the payload's length when they are sealed for
 * key_hex (32 hex digits), else -1 (the payload is then the first bytes). */
int64_t checkpoint_verify(const unsigned char *bytes, size_t len, const char *key_hex);

#endif
