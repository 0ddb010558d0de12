/* Unit tests of what ff-trace's threads rely on in stream.h: the raw
 * records of reader_next_raw(), parsed by record_parse() after the reader
 * is gone, are the records reader_next() reads (msgpack of every kind,
 * nesting that sends the reader to msgpack-c, payloads that arrive over
 * many reads); and a memory writer packs the same bytes as a buffered one
 * however big its output grows. */
#include "check.h"
#include "stream.h"
#include "tensor.h"
#include <stdio.h>
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

/* A record that goes down `levels` arrays, an ext8 and a fixext4, a bin32
 * of 100,000 bytes (several of the reader's 64 KiB reads), a bin16, a
 * str16, integers of every width and a map16. */
static void pack_odd_record(struct writer *w, int levels, int k)
{
    static char payload[100000];
    for (size_t i = 0; i < sizeof payload; i++)
        payload[i] = (char)(i * 7 + k);
    mp_map(w, 8);
    mp_key(w, "ints");
    static const int64_t ints[] = {-1, -100, -1000, -100000, -((int64_t)1 << 40), 200, 1000, 100000, (int64_t)1 << 40};
    mp_array(w, 9);
    for (int i = 0; i < 9; i++)
        mp_int(w, ints[i]);
    mp_key(w, "fixext");
    msgpack_pack_ext(&w->pk, 4, 9);
    msgpack_pack_ext_body(&w->pk, "abcd", 4);
    mp_key(w, "bin16");
    msgpack_pack_bin(&w->pk, 300);
    msgpack_pack_bin_body(&w->pk, payload, 300);
    mp_key(w, "map16");
    mp_map(w, 17);
    for (int i = 0; i < 17; i++) {
        char key[16];
        snprintf(key, sizeof key, "k%d", i);
        mp_key(w, key);
        mp_int(w, i);
    }
    mp_key(w, "deep");
    for (int i = 0; i < levels; i++)
        mp_array(w, 1);
    mp_int(w, k);
    mp_key(w, "ext");
    msgpack_pack_ext(&w->pk, 3, 5);
    msgpack_pack_ext_body(&w->pk, "abc", 3);
    mp_key(w, "bin");
    msgpack_pack_bin(&w->pk, sizeof payload);
    msgpack_pack_bin_body(&w->pk, payload, sizeof payload);
    mp_key(w, "str");
    msgpack_pack_str(&w->pk, 300);
    msgpack_pack_str_body(&w->pk, payload, 300);
}

/* Stream: plain records, odd ones of shallow nesting (measured), then one
 * nested 20 deep (msgpack-c takes over from there), then more of each. */
static char *raw_test_stream(size_t *len)
{
    char *bytes;
    FILE *f = open_memstream(&bytes, len);
    struct writer w;
    writer_init_buffered(&w, f);
    pack_records(&w, 50, 300);
    for (int k = 0; k < 5; k++)
        pack_odd_record(&w, 3, k);
    pack_records(&w, 20, 30);
    pack_odd_record(&w, 20, 99);
    pack_records(&w, 20, 3000);
    pack_odd_record(&w, 2, 100);
    writer_flush(&w);
    fclose(f);
    return bytes;
}

#define RAW_RECORDS 97

static void test_raw_records(void)
{
    size_t len, out_len;
    char *bytes = raw_test_stream(&len);
    /* what reader_next() reads, repacked */
    char *expected;
    size_t expected_len;
    FILE *in = fmemopen(bytes, len, "rb"), *f = open_memstream(&expected, &expected_len);
    struct reader rd;
    struct record rec;
    struct writer w;
    reader_init(&rd, in, "<test>");
    writer_init_buffered(&w, f);
    int n = 0;
    while (reader_next(&rd, &rec))
        writer_copy(&w, &rec), n++;
    writer_flush(&w);
    fclose(f);
    reader_free(&rd);
    fclose(in);

    /* the raw records, kept after the reader is gone, parsed, repacked */
    char *copies[RAW_RECORDS];
    size_t sizes[RAW_RECORDS];
    long indexes[RAW_RECORDS];
    int raw = 0;
    const char *p;
    size_t size;
    in = fmemopen(bytes, len, "rb");
    reader_init(&rd, in, "<test>");
    bool measured = false;    /* records 0..74 (nesting 3 at most) measured, not parsed */
    while (raw < RAW_RECORDS && reader_next_raw(&rd, &p, &size)) {
        if (raw == 74)
            measured = !rd.parse_all;
        copies[raw] = malloc(size);
        memcpy(copies[raw], p, size);
        sizes[raw] = size;
        indexes[raw++] = rd.index;
    }
    bool ended = !reader_next_raw(&rd, &p, &size), handed_over = rd.parse_all;
    reader_free(&rd);
    fclose(in);
    char *out;
    msgpack_zone zone;
    msgpack_zone_init(&zone, 4096);
    f = open_memstream(&out, &out_len);
    writer_init_buffered(&w, f);
    bool indexes_right = true;
    for (int i = 0; i < raw; i++) {
        record_parse(&rec, copies[i], sizes[i], indexes[i], rd.source, &zone);
        indexes_right &= rec.index == i && indexes[i] == i;
        writer_copy(&w, &rec);
    }
    writer_flush(&w);
    fclose(f);
    CHECK(n == RAW_RECORDS && raw == n && ended, "reader_next_raw: %d records, as many as reader_next reads (%d)",
          raw, n);
    CHECK(out_len == expected_len && memcmp(out, expected, expected_len) == 0 && indexes_right,
          "reader_next_raw: parsed after the reader is freed, the same %zu bytes as reader_next's records, "
          "the same indexes", expected_len);
    CHECK(measured, "reader_next_raw: records of every kind, payloads over several reads, measured");
    CHECK(handed_over, "reader_next_raw: the record nested 20 deep went to msgpack-c, and the rest with it");
    for (int i = 0; i < raw; i++)
        free(copies[i]);
    msgpack_zone_destroy(&zone);
    free(out);
    free(expected);
    free(bytes);
}

/* Records that end anywhere in a read leave the start of the next at the
 * end of the buffer: it moves back to the beginning, and the reads go on
 * into the same memory (a new buffer per read costs page faults). */
static void test_buffer_reused(void)
{
    size_t len;
    char *bytes = packed_bytes(3000, 300, &len);     /* 3.7 MB, 1.2 KB a record */
    FILE *in = fmemopen(bytes, len, "rb");
    struct reader rd;
    const char *p;
    size_t size;
    reader_init(&rd, in, "<test>");
    int records = 0, moves = 0;
    size_t total = 0;
    const char *buffer = NULL;
    while (reader_next_raw(&rd, &p, &size)) {
        if (rd.u.buffer != buffer)
            moves++, buffer = rd.u.buffer;
        total += size;
        records++;
    }
    CHECK(records == 3000 && total == len && !rd.parse_all && moves <= 2,
          "reader_next_raw: %d records, %zu of %zu bytes, read into %d buffer(s), 2 at most", records, total, len,
          moves);
    reader_free(&rd);
    fclose(in);
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
    check_file_name = "raw_records";
    test_raw_records();
    test_buffer_reused();
    test_memory_writer();
    return check_done();
}
