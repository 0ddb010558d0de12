/* stream-valid: the record reader accepts every valid stream (issue 22).
 *
 * The fuzz input is not the stream: it is a recipe for one.  A valid stream
 * is built from it with msgpack-c's packer (maps with str and bin keys,
 * integers and floats of every header size, str and bin of lengths around
 * each header boundary with payloads that read as huge container headers,
 * nested arrays and maps, tensors) and read back in fills of a size the
 * input picks, by reader_next() and by reader_next_raw() + record_parse().
 * Both must hand out every record, each repacking to its own bytes (msgpack-c
 * packs every header at its smallest size, so the stream is canonical).  A
 * refusal of any kind is a finding: the property, not just "no crash". */
#include "harness.h"
#include "stream.h"

/* The recipe: bytes taken one at a time, 0 once it is used up. */
struct recipe {
    const uint8_t *data;
    size_t size, pos;
};

static unsigned take(struct recipe *r)
{
    return r->pos < r->size ? r->data[r->pos++] : 0;
}

static unsigned take16(struct recipe *r)
{
    unsigned hi = take(r);
    return hi << 8 | take(r);
}

/* Lengths at and around each boundary of msgpack's header sizes. */
static const uint32_t lengths[] = {0, 1, 5, 31, 32, 33, 255, 256, 257, 65535, 65536, 65537, 70000};
/* Fill sizes: a few bytes, around a page, around the reader's 64 KiB. */
static const size_t fills[] = {0, 1, 2, 3, 5, 7, 13, 64, 4095, 4096, 4097, 65535, 65536, 65537};

#define MAX_STREAM (1u << 20)

static void payload(struct recipe *r, char *buf, uint32_t n)
{
    static const unsigned char hostile[] = {0xdd, 0xff, 0xff, 0xff, 0xff, 0xdf, 0xff, 0xff, 0xff, 0xff};
    unsigned how = take(r) % 3;
    for (uint32_t i = 0; i < n; i++)
        buf[i] = how == 0 ? (char)hostile[i % sizeof hostile] : how == 1 ? (char)('a' + i % 26) : (char)(i * 131);
}

static void pack_value(msgpack_packer *pk, struct recipe *r, int depth, msgpack_sbuffer *sb);

static void pack_str_or_bin(msgpack_packer *pk, struct recipe *r, bool bin, msgpack_sbuffer *sb)
{
    uint32_t n = lengths[take(r) % (sizeof lengths / sizeof *lengths)];
    if (sb->size + n > MAX_STREAM)
        n = 3;
    char *buf = malloc(n ? n : 1);
    payload(r, buf, n);
    if (bin)
        msgpack_pack_bin_with_body(pk, buf, n);
    else {
        for (uint32_t i = 0; i < n; i++)
            buf[i] = (char)('a' + (unsigned char)buf[i] % 26);  /* valid UTF-8 */
        msgpack_pack_str_with_body(pk, buf, n);
    }
    free(buf);
}

/* A tensor as msgpack-numpy writes it: bin keys, |u1 data. */
static void pack_tensor(msgpack_packer *pk, struct recipe *r, msgpack_sbuffer *sb)
{
    uint32_t n = lengths[take(r) % (sizeof lengths / sizeof *lengths)];
    if (sb->size + n > MAX_STREAM)
        n = 2;
    char *buf = malloc(n ? n : 1);
    payload(r, buf, n);
    msgpack_pack_map(pk, 5);
    msgpack_pack_bin_with_body(pk, "nd", 2);
    msgpack_pack_true(pk);
    msgpack_pack_bin_with_body(pk, "type", 4);
    msgpack_pack_str_with_body(pk, "|u1", 3);
    msgpack_pack_bin_with_body(pk, "kind", 4);
    msgpack_pack_bin_with_body(pk, "", 0);
    msgpack_pack_bin_with_body(pk, "shape", 5);
    msgpack_pack_array(pk, 1);
    msgpack_pack_uint32(pk, n);
    msgpack_pack_bin_with_body(pk, "data", 4);
    msgpack_pack_bin_with_body(pk, buf, n);
    free(buf);
}

static void pack_key(msgpack_packer *pk, struct recipe *r, unsigned k)
{
    char key[16];
    int len = snprintf(key, sizeof key, "k%u", k);
    if (take(r) & 1)
        msgpack_pack_bin_with_body(pk, key, (size_t)len);
    else
        msgpack_pack_str_with_body(pk, key, (size_t)len);
}

static void pack_value(msgpack_packer *pk, struct recipe *r, int depth, msgpack_sbuffer *sb)
{
    unsigned op = take(r) % (depth < 6 ? 16 : 12);
    switch (op) {
    case 0: msgpack_pack_int(pk, (int)(take(r) % 128)); break;
    case 1: msgpack_pack_uint16(pk, (uint16_t)(256 + take16(r))); break;
    case 2: msgpack_pack_uint32(pk, 65536u + take16(r) * 65536u); break;
    case 3: msgpack_pack_uint64(pk, ((uint64_t)take16(r) << 48) | 0xffffffffull); break;
    case 4: msgpack_pack_int64(pk, -(int64_t)take16(r) * 1000003 - 33); break;
    case 5: msgpack_pack_float(pk, (float)take16(r) / 7.0f); break;
    case 6: msgpack_pack_double(pk, (double)take16(r) / 3.0); break;
    case 7: take(r) & 1 ? msgpack_pack_nil(pk) : msgpack_pack_true(pk); break;
    case 8: pack_str_or_bin(pk, r, false, sb); break;
    case 9: pack_str_or_bin(pk, r, true, sb); break;
    case 10: pack_tensor(pk, r, sb); break;
    case 11: msgpack_pack_false(pk); break;
    case 12: case 13: {
        /* an array: 15, 16 and 17 items cross fixarray/array16 */
        unsigned n = take(r) % 18;
        msgpack_pack_array(pk, n);
        for (unsigned i = 0; i < n; i++)
            pack_value(pk, r, depth + 1, sb);
        break;
    }
    default: {
        unsigned n = take(r) % 18;
        msgpack_pack_map(pk, n);
        for (unsigned i = 0; i < n; i++) {
            pack_key(pk, r, i);
            pack_value(pk, r, depth + 1, sb);
        }
        break;
    }
    }
}

struct pass {
    const msgpack_sbuffer *stream;
    size_t fill;
    bool raw;
    msgpack_sbuffer *out;
};

static void read_back(void *ctx)
{
    struct pass *p = ctx;
    FILE *in = harness_input((const uint8_t *)p->stream->data, p->stream->size);
    struct reader rd;
    msgpack_packer pk;
    msgpack_packer_init(&pk, p->out, msgpack_sbuffer_write);
    reader_init(&rd, in, "<fuzz>");
    rd.read_limit = p->fill;
    if (p->raw) {
        const char *bytes;
        size_t size;
        while (reader_next_raw(&rd, &bytes, &size)) {
            msgpack_zone zone;
            struct record rec;
            msgpack_zone_init(&zone, 2048);
            record_parse(&rec, bytes, size, rd.index, rd.source, &zone);
            msgpack_pack_object(&pk, *rec.map);
            msgpack_zone_destroy(&zone);
        }
    } else {
        struct record rec;
        while (reader_next(&rd, &rec))
            msgpack_pack_object(&pk, *rec.map);
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
    struct recipe r = {data, size, 0};
    size_t fill = fills[take(&r) % (sizeof fills / sizeof *fills)];
    msgpack_sbuffer stream;
    msgpack_sbuffer_init(&stream);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &stream, msgpack_sbuffer_write);
    /* records until the recipe runs out: each a map of up to 17 keys */
    while (r.pos < r.size && stream.size < MAX_STREAM) {
        unsigned keys = take(&r) % 18;
        msgpack_pack_map(&pk, keys);
        for (unsigned k = 0; k < keys; k++) {
            pack_key(&pk, &r, k);
            pack_value(&pk, &r, 1, &stream);
        }
    }
    for (int raw = 0; raw < 2; raw++) {
        msgpack_sbuffer out;
        msgpack_sbuffer_init(&out);
        struct pass p = {&stream, fill, raw, &out};
        int code = harness_run(read_back, &p);
        if (code != 0) {
            fprintf(harness_report, "a valid stream of %zu bytes read in fills of %zu bytes by %s: exit %d: %s\n",
                    stream.size, fill, raw ? "reader_next_raw" : "reader_next", code, harness_caught.message);
            abort();
        }
        if (out.size != stream.size || (stream.size > 0 && memcmp(out.data, stream.data, stream.size) != 0)) {
            fprintf(harness_report, "a valid stream of %zu bytes read in fills of %zu bytes by %s: the records differ\n",
                    stream.size, fill, raw ? "reader_next_raw" : "reader_next");
            abort();
        }
        msgpack_sbuffer_destroy(&out);
    }
    msgpack_sbuffer_destroy(&stream);
    return 0;
}
