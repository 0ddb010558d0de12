/* tensor.c - the msgpack-numpy tensor codec (formats/stream.md).
 *
 * msgpack-numpy writes {b"nd": True, b"type": "<f4", b"kind": b"",
 * b"shape": [..], b"data": b"..."}: keys as bin, the dtype as str.  We write
 * the same bytes so Python reads our streams with msgpack_numpy.decode and
 * equal tensors are equal bytes. */
#include "tensor.h"
#include "die.h"
#include <stdlib.h>
#include <string.h>

static const struct { const char *name; size_t size; } dtypes[DT_COUNT] = {
    [DT_F32] = {"<f4", 4}, [DT_F64] = {"<f8", 8}, [DT_I32] = {"<i4", 4},
    [DT_I64] = {"<i8", 8}, [DT_U8] = {"|u1", 1},  [DT_BOOL] = {"|b1", 1},
};

const char *dtype_name(enum dtype dt) { return dtypes[dt].name; }
size_t dtype_size(enum dtype dt) { return dtypes[dt].size; }

/* Every name in the table is three characters. */
bool dtype_parse(const char *s, size_t len, enum dtype *dt)
{
    if (len != 3)
        return false;
    for (int i = 0; i < DT_COUNT; i++) {
        const char *name = dtypes[i].name;
        /* numpy also spells single-byte types with '<' or '=' on some paths. */
        if ((s[0] == name[0] && s[1] == name[1] && s[2] == name[2]) ||
            (dtypes[i].size == 1 && (s[0] == '<' || s[0] == '=') && s[1] == name[1] && s[2] == name[2])) {
            *dt = (enum dtype)i;
            return true;
        }
    }
    return false;
}

bool tensor_is(const msgpack_object *o)
{
    return o->type == MSGPACK_OBJECT_MAP && map_find(o, "nd") != NULL;
}

/* Tensor data: cache-line aligned when big (the model's matrices, for
 * OpenBLAS), malloc's own 16 bytes when small: glibc's aligned_alloc
 * splits chunks around the alignment and costs several times malloc, which
 * shows when a stream of small graphs reads four vectors per record.
 * Nothing relies on more than 16 bytes. */
#define TENSOR_ALIGN_FROM 4096
static void *tensor_data_alloc(size_t bytes)
{
    size_t rounded = (bytes + 63) & ~(size_t)63;
    void *p = bytes < TENSOR_ALIGN_FROM ? malloc(bytes ? bytes : 1) : aligned_alloc(64, rounded);
    if (!p)
        die(EX_SOFTWARE, "out of memory allocating %zu bytes", bytes);
    return p;
}

/* The tensor's fields and uninitialised data. */
static void tensor_alloc_uninitialised(struct tensor *t, enum dtype dt, int ndim, const int64_t *shape)
{
    memset(t, 0, sizeof *t);
    t->dtype = dt;
    t->ndim = ndim;
    t->count = 1;
    for (int i = 0; i < ndim; i++) {
        t->shape[i] = shape[i];
        t->count *= shape[i];
    }
    t->data = tensor_data_alloc((size_t)t->count * dtype_size(dt));
}

void tensor_alloc(struct tensor *t, enum dtype dt, int ndim, const int64_t *shape)
{
    tensor_alloc_uninitialised(t, dt, ndim, shape);
    memset(t->data, 0, (size_t)t->count * dtype_size(dt));
}

void tensor_free(struct tensor *t)
{
    free(t->data);
    t->data = NULL;
    t->count = 0;
}

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return false; } while (0)

/* The checks of tensor_view() on the values of a tensor map's four keys,
 * found by key (tensor_view) or by position (mp_tensor_object). */
static bool view_values(const msgpack_object *nd, const msgpack_object *type, const msgpack_object *shape,
                        const msgpack_object *data, struct tensor_view *v, char *err, size_t errlen)
{
    if (nd->type != MSGPACK_OBJECT_BOOLEAN || !nd->via.boolean)
        FAIL("is not an ndarray ('nd' is not true)");
    const char *ts;
    size_t tl;
    if (type->type == MSGPACK_OBJECT_STR) { ts = type->via.str.ptr; tl = type->via.str.size; }
    else if (type->type == MSGPACK_OBJECT_BIN) { ts = type->via.bin.ptr; tl = type->via.bin.size; }
    else FAIL("has a dtype that is not a string");
    if (!dtype_parse(ts, tl, &v->dtype))
        FAIL("has unsupported dtype '%.*s'", (int)(tl < 16 ? tl : 16), ts);
    if (shape->type != MSGPACK_OBJECT_ARRAY || shape->via.array.size > TENSOR_MAX_DIMS)
        FAIL("has a bad shape (an array of at most %d integers)", TENSOR_MAX_DIMS);
    if (data->type != MSGPACK_OBJECT_BIN && data->type != MSGPACK_OBJECT_STR)
        FAIL("has data that is not binary");
    v->data = data->type == MSGPACK_OBJECT_BIN ? data->via.bin.ptr : data->via.str.ptr;
    v->bytes = data->type == MSGPACK_OBJECT_BIN ? data->via.bin.size : data->via.str.size;

    int64_t count = 1;
    v->ndim = (int)shape->via.array.size;
    for (int i = 0; i < v->ndim; i++) {
        const msgpack_object *d = &shape->via.array.ptr[i];
        if (d->type != MSGPACK_OBJECT_POSITIVE_INTEGER || d->via.u64 > ((uint64_t)1 << 40))
            FAIL("has a bad shape entry");
        v->shape[i] = (int64_t)d->via.u64;
        count *= v->shape[i];
        if (count > ((int64_t)1 << 40))
            FAIL("is too large");
    }
    if ((uint64_t)count * dtype_size(v->dtype) != v->bytes)
        FAIL("has %zu data bytes, expected %lld for shape and dtype %s",
             v->bytes, (long long)count * (long long)dtype_size(v->dtype), dtype_name(v->dtype));
    return true;
}

bool tensor_view(const msgpack_object *o, struct tensor_view *v, char *err, size_t errlen)
{
    if (o->type != MSGPACK_OBJECT_MAP)
        FAIL("is not a tensor (expected a msgpack-numpy map)");
    const msgpack_object *nd = map_find(o, "nd"), *type = map_find(o, "type"),
                         *shape = map_find(o, "shape"), *data = map_find(o, "data");
    if (!nd || !type || !shape || !data)
        FAIL("is not a tensor (needs keys nd, type, shape, data)");
    return view_values(nd, type, shape, data, v, err, errlen);
}

bool tensor_decode(const msgpack_object *o, struct tensor *t, char *err, size_t errlen)
{
    struct tensor_view v;
    if (!tensor_view(o, &v, err, errlen))
        return false;
    tensor_alloc_uninitialised(t, v.dtype, v.ndim, v.shape);
    memcpy(t->data, v.data, v.bytes);   /* bin payloads are unaligned: copy, never cast */
    return true;
}

void record_tensor(const struct record *rec, const char *key, enum dtype dt,
                   int ndim, const int64_t *expect, struct tensor *t)
{
    const msgpack_object *o = record_find(rec, key);
    char err[160];
    if (!o)
        record_die(rec, "missing key '%s'", key);
    if (!tensor_decode(o, t, err, sizeof err))
        record_die(rec, "'%s' %s", key, err);
    if (t->dtype != dt) {
        enum dtype got = t->dtype;
        tensor_free(t);
        record_die(rec, "'%s' has dtype %s, expected %s", key, dtype_name(got), dtype_name(dt));
    }
    if (t->ndim != ndim) {
        int got = t->ndim;
        tensor_free(t);
        record_die(rec, "'%s' has %d dimensions, expected %d", key, got, ndim);
    }
    for (int i = 0; i < ndim; i++)
        if (expect && expect[i] >= 0 && t->shape[i] != expect[i]) {
            long long got = (long long)t->shape[i];
            tensor_free(t);
            if (ndim == 1)
                record_die(rec, "'%s' has %lld entries, expected %lld", key, got, (long long)expect[i]);
            record_die(rec, "'%s' has %lld entries in dimension %d, expected %lld",
                       key, got, i, (long long)expect[i]);
        }
}

void *record_vector(const struct record *rec, const char *key, enum dtype dt, int64_t n)
{
    struct tensor t;
    record_tensor(rec, key, dt, 1, &n, &t);
    return t.data;
}

/* The tensor's header (everything before the data) is built in a local
 * buffer and handed to the writer in one piece: a dozen callbacks per tensor
 * into the writer cost more than the header is worth.  Its fixed parts are
 * spelled out below exactly as msgpack-c packs them (a fixmap of 5, bin8
 * keys, true, a fixstr dtype, an empty bin8, a fixarray of at most 8
 * dimensions); the shape's integers and the data's bin header, whose
 * encodings depend on their values, are packed by msgpack-c itself. */
struct tensor_header {
    msgpack_packer pk;
    size_t length;
    char bytes[160];        /* 31 bytes + at most TENSOR_MAX_DIMS 9-byte ints + 11 */
};

static int tensor_header_append(void *data, const char *buf, size_t len)
{
    struct tensor_header *h = data;
    memcpy(h->bytes + h->length, buf, len);
    h->length += len;
    return 0;
}

static void tensor_header_put(struct tensor_header *h, const void *bytes, size_t len)
{
    memcpy(h->bytes + h->length, bytes, len);
    h->length += len;
}

/* Packs the header of a tensor into h; returns the size of its data. */
static size_t tensor_header_pack(struct tensor_header *h, enum dtype dt, int ndim, const int64_t *shape)
{
    if (ndim < 0 || ndim > TENSOR_MAX_DIMS)
        die(EX_SOFTWARE, "mp_tensor: %d dimensions, at most %d", ndim, TENSOR_MAX_DIMS);
    int64_t count = 1;
    for (int i = 0; i < ndim; i++)
        count *= shape[i];
    const char *type = dtype_name(dt);
    size_t nbytes = (size_t)count * dtype_size(dt), type_length = strlen(type);
    h->length = 0;
    msgpack_packer_init(&h->pk, h, tensor_header_append);
    /* {b"nd": true, b"type": */
    tensor_header_put(h, "\x85\xc4\x02nd\xc3\xc4\x04type", 12);
    /* a fixstr: dtype names are 3 characters */
    h->bytes[h->length++] = (char)(0xa0 | type_length);
    tensor_header_put(h, type, type_length);
    /* b"kind": b"", b"shape": [ */
    tensor_header_put(h, "\xc4\x04kind\xc4\x00\xc4\x05shape", 15);
    h->bytes[h->length++] = (char)(0x90 | ndim);
    for (int i = 0; i < ndim; i++) {
        if (shape[i] >= 0 && shape[i] < 128)        /* positive fixint, msgpack-c's own choice */
            h->bytes[h->length++] = (char)shape[i];
        else
            msgpack_pack_int64(&h->pk, shape[i]);
    }
    /* b"data": bin header */
    tensor_header_put(h, "\xc4\x04" "data", 6);
    msgpack_pack_bin(&h->pk, nbytes);
    return nbytes;
}

void mp_tensor(struct writer *w, enum dtype dt, int ndim, const int64_t *shape, const void *data)
{
    struct tensor_header h;
    size_t nbytes = tensor_header_pack(&h, dt, ndim, shape);
    w->pk.callback(w->pk.data, h.bytes, h.length);
    msgpack_pack_bin_body(&w->pk, data, nbytes);
}

/* Is o a bin object holding exactly the bytes of key? */
static bool bin_is(const msgpack_object *o, const char *key)
{
    return o->type == MSGPACK_OBJECT_BIN && mp_str_eq(o, key);
}

bool mp_tensor_object(struct writer *w, const msgpack_object *o)
{
    if (o->type != MSGPACK_OBJECT_MAP || o->via.map.size != 5)
        return false;
    const msgpack_object_kv *kv = o->via.map.ptr;
    if (!bin_is(&kv[0].key, "nd") || !bin_is(&kv[1].key, "type") || kv[1].val.type != MSGPACK_OBJECT_STR ||
        !bin_is(&kv[2].key, "kind") || kv[2].val.type != MSGPACK_OBJECT_BIN || kv[2].val.via.bin.size != 0 ||
        !bin_is(&kv[3].key, "shape") || !bin_is(&kv[4].key, "data") || kv[4].val.type != MSGPACK_OBJECT_BIN)
        return false;
    struct tensor_view v;
    char err[160];
    if (!view_values(&kv[0].val, &kv[1].val, &kv[3].val, &kv[4].val, &v, err, sizeof err))
        return false;
    /* only the name mp_tensor writes: "<u1" reads as |u1 but would repack differently */
    if (!mp_str_eq(&kv[1].val, dtype_name(v.dtype)))
        return false;
    mp_tensor(w, v.dtype, v.ndim, v.shape, v.data);
    return true;
}

void *mp_tensor_reserve(struct writer *w, enum dtype dt, int ndim, const int64_t *shape)
{
    struct tensor_header h;
    size_t nbytes = tensor_header_pack(&h, dt, ndim, shape);
    char *room = writer_reserve(w, h.length + nbytes);
    if (!room)
        return NULL;
    memcpy(room, h.bytes, h.length);
    return room + h.length;
}

void mp_vector(struct writer *w, enum dtype dt, int64_t n, const void *data)
{
    mp_tensor(w, dt, 1, &n, data);
}

/* ---- enriched records ---- */

/* Keys lengths computed once per record, not once per comparison. */
static bool key_in(const msgpack_object *key, const char *const *add, const size_t *add_length, int n_add)
{
    const char *p;
    size_t n;
    if (!mp_string_view(key, &p, &n))
        return false;
    for (int i = 0; i < n_add; i++)
        if (add_length[i] == n && memcmp(p, add[i], n) == 0)
            return true;
    return false;
}

void writer_begin_enriched(struct writer *w, const struct record *rec,
                           const char *const *add, int n_add)
{
    writer_begin_replacing(w, rec, add, n_add, n_add);
}

void writer_begin_replacing(struct writer *w, const struct record *rec, const char *const *drop, int n_drop,
                            int n_add)
{
    const msgpack_object_map *m = &rec->map->via.map;
    size_t drop_length[n_drop > 0 ? n_drop : 1];
    for (int i = 0; i < n_drop; i++)
        drop_length[i] = strlen(drop[i]);
    /* Which keys stay, remembered for the first few (every real record) so
     * the second pass need not compare them again. */
    bool keep[64];
    uint32_t kept = 0;
    for (uint32_t i = 0; i < m->size; i++) {
        bool k = !key_in(&m->ptr[i].key, drop, drop_length, n_drop);
        if (i < 64)
            keep[i] = k;
        kept += k;
    }
    mp_map(w, kept + (uint32_t)n_add);
    for (uint32_t i = 0; i < m->size; i++)
        if (i < 64 ? keep[i] : !key_in(&m->ptr[i].key, drop, drop_length, n_drop)) {
            mp_object(w, &m->ptr[i].key);
            /* tensors, most of a record, by the tensor codec: same bytes */
            if (!mp_tensor_object(w, &m->ptr[i].val))
                mp_object(w, &m->ptr[i].val);
        }
}
