/* tensor: the tensor codec (common/records/tensor.c) on one msgpack object, read
 * as a tool reads it: the value of a key of a record, through the record
 * reader (the input is that value's bytes).
 *
 * tensor_decode() must accept exactly what it documents; what it accepts
 * is packed again by mp_tensor() and must decode to the same tensor, and
 * mp_tensor_object() must either write nothing or the very bytes msgpack-c
 * would; record_tensor() checks dtype and shape as every tool does. */
#include "harness.h"
#include "stream.h"
#include "tensor.h"

struct bytes {
    char data[1 << 16];
    size_t length;
    bool overflow;
};

static int append(void *ctx, const char *buf, size_t len)
{
    struct bytes *b = ctx;
    if (len > sizeof b->data - b->length) {
        b->overflow = true;
        return 0;
    }
    memcpy(b->data + b->length, buf, len);
    b->length += len;
    return 0;
}

static void bytes_writer(struct writer *w, struct bytes *b)
{
    b->length = 0;
    b->overflow = false;
    writer_init(w, NULL);
    msgpack_packer_init(&w->pk, b, append);
}

static struct bytes packed, repacked;

struct input {
    const msgpack_object *object;
    enum dtype dtype;
};

/* As a tool reads a key: the record {"x": object}. */
static void read_as_record(void *ctx)
{
    struct input *in = ctx;
    msgpack_object_kv kv = {.key = {.type = MSGPACK_OBJECT_STR, .via.str = {1, "x"}}, .val = *in->object};
    msgpack_object map = {.type = MSGPACK_OBJECT_MAP, .via.map = {1, &kv}};
    struct record rec = {&map, 0};
    struct tensor t;
    record_tensor(&rec, "x", in->dtype, 1, NULL, &t);
    tensor_free(&t);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    harness_quiet();
    return 0;
}

/* The record {"x": input} read by the record reader; its value in *o. */
struct wrapped {
    const uint8_t *data;
    size_t size;
    struct reader rd;
    FILE *in;
    msgpack_object o;
};

static uint8_t record_bytes[1 << 20];

static void read_wrapped(void *ctx)
{
    struct wrapped *wr = ctx;
    struct record rec;
    wr->in = harness_input(record_bytes, wr->size + 3);
    reader_init(&wr->rd, wr->in, "<fuzz>");
    if (!reader_next(&wr->rd, &rec) || rec.map->via.map.size != 1)
        die(EX_DATAERR, "not one value");
    wr->o = rec.map->via.map.ptr[0].val;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size + 3 > sizeof record_bytes)
        return 0;
    memcpy(record_bytes, "\x81\xa1x", 3);
    memcpy(record_bytes + 3, data, size);
    struct wrapped wr = {data, size};
    int code = harness_run(read_wrapped, &wr);
    harness_expect(code, 0);
    if (code)
        return 0;                 /* the reader refused it (its own harness is record) */
    const msgpack_object o = wr.o;
    struct tensor t;
    char err[160];
    if (tensor_decode(&o, &t, err, sizeof err)) {
        if (!tensor_is(&o))
            abort();
        struct writer w;
        bytes_writer(&w, &packed);
        mp_tensor(&w, t.dtype, t.ndim, t.shape, t.data);
        if (!packed.overflow) {
            msgpack_zone z2;
            msgpack_zone_init(&z2, 2048);
            msgpack_object back;
            size_t off2 = 0;
            struct tensor u;
            if (msgpack_unpack(packed.data, packed.length, &off2, &z2, &back) != MSGPACK_UNPACK_SUCCESS ||
                off2 != packed.length || !tensor_decode(&back, &u, err, sizeof err))
                abort();
            size_t bytes = (size_t)t.count * dtype_size(t.dtype);
            if (u.dtype != t.dtype || u.ndim != t.ndim || u.count != t.count ||
                memcmp(u.shape, t.shape, sizeof t.shape[0] * (size_t)t.ndim) ||
                (bytes && memcmp(u.data, t.data, bytes)))
                abort();
            tensor_free(&u);
            msgpack_zone_destroy(&z2);
        }
        tensor_free(&t);
    }
    /* the repacking shortcut: nothing, or msgpack-c's own bytes */
    struct writer w;
    bytes_writer(&w, &repacked);
    if (mp_tensor_object(&w, &o)) {
        bytes_writer(&w, &packed);
        mp_object(&w, &o);
        if (!packed.overflow && !repacked.overflow &&
            (packed.length != repacked.length || memcmp(packed.data, repacked.data, packed.length))) {
            fprintf(harness_report, "mp_tensor_object wrote other bytes than msgpack-c\n");
            abort();
        }
    } else if (repacked.length)
        abort();
    struct input in = {&o, size ? (enum dtype)(data[size - 1] % DT_COUNT) : DT_F32};
    harness_expect(harness_run(read_as_record, &in), 0);
    reader_free(&wr.rd);
    fclose(wr.in);
    return 0;
}
