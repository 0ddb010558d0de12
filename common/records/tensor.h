/* tensor.h - the tensor codec: n-dimensional arrays encoded exactly as the
 * Python package msgpack-numpy encodes an ndarray (formats/stream.md):
 *   { b"nd": true, b"type": "<f4", b"kind": b"", b"shape": [..], b"data": bin }
 * Keys are written as binary strings (what msgpack-numpy writes) and read as
 * either binary or ordinary strings.  Data is little-endian, C order. */
#ifndef DAR_TENSOR_H
#define DAR_TENSOR_H
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "stream.h"

enum dtype { DT_F32, DT_F64, DT_I32, DT_I64, DT_U8, DT_BOOL, DT_COUNT };

#define TENSOR_MAX_DIMS 8

struct tensor {
    enum dtype dtype;
    int ndim;
    int64_t shape[TENSOR_MAX_DIMS];
    int64_t count;          /* product of shape */
    void *data;             /* owned, 64-byte aligned; NULL when count == 0 */
};

const char *dtype_name(enum dtype dt);      /* numpy string: "<f4", "|u1", ... */
size_t dtype_size(enum dtype dt);
/* Parse a numpy dtype string; false if unknown. */
bool dtype_parse(const char *s, size_t len, enum dtype *dt);

/* Is o a tensor map (has the "nd" key)? */
bool tensor_is(const msgpack_object *o);
/* A tensor read in place: data points into the msgpack object (unaligned:
 * copy before reading numbers) and lives as long as it. */
struct tensor_view {
    enum dtype dtype;
    int ndim;
    int64_t shape[TENSOR_MAX_DIMS];
    const void *data;
    size_t bytes;
};
/* Check o as a tensor without copying its data.  On failure returns false
 * and writes a lowercase reason into err ("has 8 data bytes, expected 12
 * for shape and dtype <f4"), to follow the tensor's name. */
bool tensor_view(const msgpack_object *o, struct tensor_view *v, char *err, size_t errlen);
/* tensor_view() and a copy: decode o into t (allocates).  On failure
 * returns false and writes a lowercase reason into err; nothing is
 * allocated then. */
bool tensor_decode(const msgpack_object *o, struct tensor *t, char *err, size_t errlen);
/* Allocate a zeroed tensor. */
void tensor_alloc(struct tensor *t, enum dtype dt, int ndim, const int64_t *shape);
void tensor_free(struct tensor *t);

/* Read key of rec as a tensor of dtype dt with ndim dimensions; each
 * expect[i] >= 0 must match shape[i] (-1 accepts any).  Dies with exit 65
 * naming record and key otherwise ("'cap' has 12 entries, expected 31"). */
void record_tensor(const struct record *rec, const char *key, enum dtype dt,
                   int ndim, const int64_t *expect, struct tensor *t);
/* Shorthand for a 1-D tensor of exactly n entries; returns the owned data. */
void *record_vector(const struct record *rec, const char *key, enum dtype dt, int64_t n);

/* Write a tensor value (not the key). */
void mp_tensor(struct writer *w, enum dtype dt, int ndim, const int64_t *shape, const void *data);
/* Shorthand for a 1-D tensor of n entries. */
void mp_vector(struct writer *w, enum dtype dt, int64_t n, const void *data);
/* Repack o if it is a tensor map exactly as mp_tensor() writes one (the
 * five keys as bin and in order, a dtype by its own name as str, an empty
 * kind, at most TENSOR_MAX_DIMS non-negative sizes that fit the data): the
 * bytes msgpack_pack_object() would write, in two writes instead of a
 * dozen.  Returns false, having written nothing, for anything else. */
bool mp_tensor_object(struct writer *w, const msgpack_object *o);
/* mp_tensor() for data the caller writes in place: packs the header and
 * returns where the data bytes go (not aligned: write them as bytes, with
 * memcpy), to be filled before the next write; or,
 * having written nothing, NULL when w has no room for them (see
 * writer_reserve(): buffered writers only), and then the caller uses
 * mp_tensor(). */
void *mp_tensor_reserve(struct writer *w, enum dtype dt, int ndim, const int64_t *shape);

/* Begin an enriched copy of rec: writes the map header for the input's keys
 * minus those in add[0..n_add-1], plus n_add; then those input pairs, their
 * tensors repacked by mp_tensor_object() (the same bytes, fewer writes).
 * The caller then packs exactly n_add key/value pairs. */
void writer_begin_enriched(struct writer *w, const struct record *rec,
                           const char *const *add, int n_add);
/* writer_begin_enriched() that drops every input key in drop[0..n_drop-1]
 * and leaves the caller to pack n_add pairs (the first n_add of them): a
 * key a filter writes only sometimes must not survive from an earlier pass
 * (cost-fix's certificate, which it writes only with potentials). */
void writer_begin_replacing(struct writer *w, const struct record *rec, const char *const *drop, int n_drop,
                            int n_add);

#endif
