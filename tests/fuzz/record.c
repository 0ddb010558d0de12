/* record: the record reader (common/records/stream.c) both ways a tool reads.
 *
 * reader_next() (every tool) and reader_next_raw() + record_parse()
 * (ff-trace's threads) must hand out the same records and die at the same
 * record with the same message; every record is also repacked as a filter
 * passes it on (writer_begin_enriched, which repacks tensors through the
 * codec) and the repacked bytes must equal what msgpack-c packs. */
#include "harness.h"
#include "stream.h"
#include "tensor.h"

/* What a pass saw: a hash of the records' bytes, their count, how it ended. */
struct outcome {
    uint64_t hash;
    long records;
    int code;
    char message[sizeof harness_caught.message];
};

struct pass {
    const uint8_t *data;
    size_t size;
    struct outcome *out;
};

static int hash_bytes(void *data, const char *buf, size_t len)
{
    uint64_t *h = data;
    for (size_t i = 0; i < len; i++)
        *h = (*h ^ (unsigned char)buf[i]) * 0x100000001b3ull;
    return 0;
}

static uint64_t hash_record(const struct record *rec, bool enriched)
{
    uint64_t h = 0xcbf29ce484222325ull;
    struct writer w;
    writer_init(&w, NULL);
    msgpack_packer_init(&w.pk, &h, hash_bytes);
    if (enriched)
        writer_begin_enriched(&w, rec, NULL, 0);
    else
        writer_copy(&w, rec);
    return h;
}

static void account(struct outcome *out, const struct record *rec)
{
    uint64_t plain = hash_record(rec, false);
    if (hash_record(rec, true) != plain) {
        fprintf(harness_report, "record %ld: repacked through the tensor codec, the bytes differ\n", rec->index);
        abort();
    }
    out->hash = out->hash * 31 + plain;
    out->records++;
}

static void read_records(void *ctx)
{
    struct pass *p = ctx;
    FILE *in = harness_input(p->data, p->size);
    struct reader rd;
    struct record rec;
    reader_init(&rd, in, "<fuzz>");
    while (reader_next(&rd, &rec))
        account(p->out, &rec);
    reader_free(&rd);
    fclose(in);
}

static void read_raw(void *ctx)
{
    struct pass *p = ctx;
    FILE *in = harness_input(p->data, p->size);
    struct reader rd;
    const char *bytes;
    size_t size;
    reader_init(&rd, in, "<fuzz>");
    while (reader_next_raw(&rd, &bytes, &size)) {
        msgpack_zone zone;
        msgpack_zone_init(&zone, 2048);
        struct record rec;
        record_parse(&rec, bytes, size, rd.index, &zone);
        account(p->out, &rec);
        msgpack_zone_destroy(&zone);
    }
    reader_free(&rd);
    fclose(in);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    harness_quiet();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct outcome a = {0}, b = {0};
    struct pass pa = {data, size, &a}, pb = {data, size, &b};
    a.code = harness_run(read_records, &pa);
    snprintf(a.message, sizeof a.message, "%s", a.code ? harness_caught.message : "");
    harness_expect(a.code, 0);
    b.code = harness_run(read_raw, &pb);
    snprintf(b.message, sizeof b.message, "%s", b.code ? harness_caught.message : "");
    harness_expect(b.code, 0);
    if (a.code != b.code || a.records != b.records || a.hash != b.hash || strcmp(a.message, b.message)) {
        fprintf(harness_report, "reader_next: %ld records, exit %d '%s'; reader_next_raw: %ld records, exit %d '%s'%s\n",
                a.records, a.code, a.message, b.records, b.code, b.message,
                a.hash != b.hash ? " (and the records differ)" : "");
        abort();
    }
    return 0;
}
