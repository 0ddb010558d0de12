/* Unit tests of what ff-trace's threads rely on in stream.h: record_copy()
 * outlives the reader and repacks to the same bytes, and a memory writer
 * packs the same bytes as a buffered one however big its output grows. */
#include "check.h"
#include "stream.h"
#include "tensor.h"
#include <stdlib.h>
#include <string.h>

/* Records of every msgpack type, nested, with a tensor of n floats. */
static void pack_records(struct writer *w, int records, int n)
{
    float *x = malloc(sizeof *x * (size_t)n);
    for (int k = 0; k < records; k++) {
        for (int i = 0; i < n; i++)
            x[i] = (float)(k + i) / 7.0f;
        mp_map(w, 7);
        mp_key(w, "id");     mp_int(w, k - 3);
        mp_key(w, "name");   mp_str(w, k % 2 ? "odd" : "");
        mp_key(w, "x");      mp_vector(w, DT_F32, n, x);
        mp_key(w, "nested"); mp_array(w, 3); mp_nil(w); mp_bool(w, k % 3 == 0);
                             mp_map(w, 1); mp_key(w, "deep"); mp_double(w, k * 0.25);
        mp_key(w, "f");      mp_float(w, 1.5f);
        mp_key(w, "empty");  mp_array(w, 0);
        mp_key(w, "big");    mp_int(w, (int64_t)1 << 40);
    }
    free(x);
}

/* The bytes of packing `records` records through a buffered writer. */
static char *packed_bytes(int records, int n, size_t *len)
{
    char *bytes;
    FILE *f = open_memstream(&bytes, len);
    struct writer w;
    writer_init_buffered(&w, f);
    pack_records(&w, records, n);
    writer_flush(&w);
    fclose(f);
    return bytes;
}

static void test_record_copy(void)
{
    size_t len, out_len;
    char *bytes = packed_bytes(200, 300, &len);
    FILE *in = fmemopen(bytes, len, "rb");
    struct reader rd;
    struct record rec, copies[200];
    msgpack_zone zone;
    msgpack_zone_init(&zone, 4096);
    reader_init(&rd, in, "<test>");
    int n = 0;
    while (n < 200 && reader_next(&rd, &rec))
        record_copy(&copies[n++], &rec, &zone);
    reader_free(&rd);
    fclose(in);
    /* the reader and its buffers are gone: repack the copies */
    char *out;
    FILE *f = open_memstream(&out, &out_len);
    struct writer w;
    writer_init_buffered(&w, f);
    for (int i = 0; i < n; i++)
        writer_copy(&w, &copies[i]);
    writer_flush(&w);
    fclose(f);
    CHECK(n == 200 && out_len == len && memcmp(out, bytes, len) == 0,
          "200 records copied, repacked after the reader is freed, same %zu bytes", len);
    CHECK(copies[199].index == 199, "the copy keeps the record index");
    msgpack_zone_destroy(&zone);
    free(out);
    free(bytes);
}

static void test_memory_writer(void)
{
    struct writer w;
    writer_init_memory(&w);
    for (int round = 0; round < 2; round++) {
        size_t len;
        int records = round ? 3 : 400, n = round ? 10 : 1000;   /* 1.6 MB: it grows */
        char *bytes = packed_bytes(records, n, &len);
        writer_rewind(&w);
        pack_records(&w, records, n);
        void *room = writer_reserve(&w, 3 << 20);
        CHECK(w.buffered == len + (3 << 20) && memcmp(w.buffer, bytes, len) == 0 && room == w.buffer + len,
              "memory writer: %d records, %zu bytes, as a buffered writer packs them; reserve always succeeds",
              records, len);
        free(bytes);
    }
    writer_flush(&w);
    CHECK(w.buffer == NULL, "memory writer: writer_flush frees it");
}

int main(void)
{
    check_file_name = "record_copy";
    test_record_copy();
    test_memory_writer();
    return check_done();
}
