/* stream.c - the record reader and writer (formats/stream.md).
 *
 * The reader is msgpack-c's streaming unpacker fed by read(2)-sized chunks.
 * Three pitfalls decide its shape (style-anchors.md B1): a negative return of
 * msgpack_unpacker_next is an error and must never be looped on; NOMEM comes
 * from corrupt length headers and is bad data, not a bug; truncation shows
 * only as leftover bytes at end of input.  Record size is bounded so a bogus
 * 3 GB bin header cannot make us allocate without limit. */
#include "stream.h"
#include "die.h"
#include "io.h"
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "tensor data is little-endian; a big-endian host needs byte swapping");

#define READ_CHUNK (1 << 16)

void reader_init(struct reader *rd, FILE *f, const char *name)
{
    memset(rd, 0, sizeof *rd);
    rd->f = f;
    rd->name = name ? name : "<stdin>";
    rd->source = strcmp(rd->name, "<stdin>") == 0 ? NULL : rd->name;
    rd->index = -1;
    rd->max_record = STREAM_DEFAULT_MAX_RECORD;
    if (!msgpack_unpacker_init(&rd->u, MSGPACK_UNPACKER_INIT_BUFFER_SIZE))
        die(EX_SOFTWARE, "out of memory");
    msgpack_unpacked_init(&rd->r);
    rd->scan.left[0] = 1;
    rd->guard.depth = -1;
    msgpack_sbuffer_init(&rd->repacked);
}

void reader_expect_end(struct reader *rd)
{
    struct record rec;
    if (reader_next(rd, &rec))
        record_die(&rec, "more than one record, expected one");
}

void reader_free(struct reader *rd)
{
    msgpack_sbuffer_destroy(&rd->repacked);
    msgpack_unpacked_destroy(&rd->r);
    msgpack_unpacker_destroy(&rd->u);
}

/* Read one chunk into the unpacker; returns bytes read (0 at EOF). */
static size_t reader_fill(struct reader *rd, long next)
{
    size_t pending = msgpack_unpacker_message_size(&rd->u);
    if (pending > rd->max_record)
        die_record_in(rd->source, next, "record larger than the limit of %zu bytes", rd->max_record);
    if (!msgpack_unpacker_reserve_buffer(&rd->u, READ_CHUNK))
        die_record_in(rd->source, next, "corrupt or oversized record (cannot buffer it)");
    size_t want = msgpack_unpacker_buffer_capacity(&rd->u);
    if (rd->read_limit > 0 && want > rd->read_limit)
        want = rd->read_limit;
    size_t n = fread(msgpack_unpacker_buffer(&rd->u), 1, want, rd->f);
    if (n == 0 && ferror(rd->f))
        die(EX_IOERR, "read error on '%s':", rd->name);
    msgpack_unpacker_buffer_consumed(&rd->u, n);
    rd->fed += n;
    return n;
}

/* What reader_next() requires of a record once parsed. */
static void record_check(const msgpack_object *o, long index, const char *source)
{
    if (o->type != MSGPACK_OBJECT_MAP)
        die_record_in(source, index, "not a map (every record is a map with string keys)");
    for (uint32_t i = 0; i < o->via.map.size; i++) {
        msgpack_object_type kt = o->via.map.ptr[i].key.type;
        if (kt != MSGPACK_OBJECT_STR && kt != MSGPACK_OBJECT_BIN)
            die_record_in(source, index, "key %u is not a string", i);
    }
}

static uint64_t big_endian(const unsigned char *p, int bytes);
static const signed char header_sizes[];

/* The guard starts on the record msgpack-c parses next, at the first byte
 * it has not read (each reader_next() call begins on a record boundary). */
static void reader_guard_start(struct reader *rd)
{
    struct reader_guard *g = &rd->guard;
    g->start = g->pos = g->need = rd->fed - (rd->u.used - rd->u.off);
    g->depth = 0;
    g->left[0] = 1;
    g->inside_header = false;
}

/* Step the guard over the buffered bytes of that record (see struct
 * reader_guard).  A header is read once all of it is buffered; a string's
 * or bin's payload is stepped over, not read, so the cost is per msgpack
 * token.  Dies when a header asks for more items than a record of the
 * size limit holds, or nesting passes msgpack-c's limit.
 *
 * What the guard relies on: it reads only bytes msgpack-c has not parsed,
 * and msgpack-c keeps its unparsed bytes in order at the end of its buffer,
 * ending at used, whatever it does with the buffer at a fill (grows it in
 * place, or copies the unparsed tail to a new one).  Stream offset x is
 * then at buffer[used - fed + x] for every x it reads.  reader_next() makes
 * the first part true: it lets msgpack-c parse only when the guard has
 * stepped over every buffered byte of the record (pos >= fed) or its end,
 * so msgpack-c, which parses no further than fed, never runs ahead of the
 * guard.  A guard stopped inside a header that a fill cut (inside_header)
 * must not be overtaken: msgpack-c takes a header's type byte before the
 * rest of it arrives, and does not keep it when it copies its tail. */
static void reader_guard_scan(struct reader *rd, long index)
{
    struct reader_guard *g = &rd->guard;
    const unsigned char *base = (const unsigned char *)rd->u.buffer + rd->u.used - rd->fed;
    uint64_t pos = g->pos, fed = rd->fed;
    int depth = g->depth;
    g->inside_header = false;
    while (depth >= 0) {
        if (g->left[depth] == 0) {
            depth--;
            continue;
        }
        if (pos >= fed)
            break;
        unsigned b = base[pos];
        /* most tokens of a record: small ints and short keys */
        if (b <= 0x7f || b >= 0xe0) {
            pos++;
            g->left[depth]--;
            continue;
        }
        if (b >= 0xa0 && b <= 0xbf) {
            pos += 1 + (b & 0x1f);
            g->left[depth]--;
            continue;
        }
        int header = 0;
        uint64_t payload = 0, items = 0;
        if (b <= 0x8f) {
            items = 2 * (uint64_t)(b & 0x0f);
        } else if (b <= 0x9f) {
            items = b & 0x0f;
        } else if (b >= 0xc4) {
            header = header_sizes[b - 0xc4];
            if (pos + 1 + (uint64_t)header > fed) {
                g->inside_header = true;
                break;
            }
            uint64_t n = big_endian(base + pos + 1, header <= 4 ? header : 0);
            if ((b >= 0xc4 && b <= 0xc6) || (b >= 0xd9 && b <= 0xdb))
                payload = n;
            else if (b >= 0xc7 && b <= 0xc9)
                payload = n + 1;            /* the ext's type byte */
            else if (b >= 0xdc)
                items = b <= 0xdd ? n : 2 * n;
        }                                   /* else 0xc0..0xc3: nil, never used, false, true */
        pos += 1 + (uint64_t)header + payload;
        g->left[depth]--;
        if (items > 0) {
            /* every item takes at least a byte */
            uint64_t end = pos + items;
            bool map = b <= 0x8f || b >= 0xde;
            if (end - g->start > rd->max_record)
                die_record_in(rd->source, index,
                              "a length header asks for %llu %s, more than a record of at most %zu bytes holds",
                              (unsigned long long)(map ? items / 2 : items), map ? "keys" : "items", rd->max_record);
            if (end > g->need)
                g->need = end;
            if (depth == READER_MAX_DEPTH)
                die_record_in(rd->source, index, "containers nested more than %d deep", READER_MAX_DEPTH);
            g->left[++depth] = items;
        }
    }
    g->pos = pos;
    g->depth = depth;
}

bool reader_next(struct reader *rd, struct record *rec)
{
    long next = rd->index + 1;
    reader_guard_start(rd);
    for (;;) {
        /* msgpack-c reads the buffered bytes only once every container
         * header among them has the bytes its count promises (it allocates
         * a container's objects at the header), and only once the guard
         * has stepped over all of them (see reader_guard_scan) */
        reader_guard_scan(rd, next);
        if (rd->guard.need > rd->fed || rd->guard.inside_header) {
            if (rd->eof)
                die_record_in(rd->source, next, "truncated record at end of input");
            if (reader_fill(rd, next) == 0)
                rd->eof = true;
            continue;
        }
        /* Parsed even after the end of input: bytes that reader_next_raw()
         * hands over then are parsed here for the first time. */
        msgpack_unpack_return ret = msgpack_unpacker_next(&rd->u, &rd->r);
        if (ret == MSGPACK_UNPACK_SUCCESS) {
            /* the guard measured the record msgpack-c parsed: it was handed
             * every byte up to fed, so it has seen this record's end */
            if (rd->guard.depth >= 0 || rd->guard.pos != rd->fed - (rd->u.used - rd->u.off))
                die(EX_SOFTWARE, "BUG: record %ld: msgpack-c and the length guard disagree on where it ends", next);
            record_check(&rd->r.data, next, rd->source);
            rd->index = next;
            rec->map = &rd->r.data;
            rec->index = next;
            rec->source = rd->source;
            return true;
        }
        if (ret == MSGPACK_UNPACK_PARSE_ERROR)
            die_record_in(rd->source, next, "malformed msgpack");
        if (ret == MSGPACK_UNPACK_NOMEM_ERROR)
            die_record_in(rd->source, next, "corrupt or oversized record (a length header asks for too much memory)");
        if (rd->eof) {
            if (msgpack_unpacker_message_size(&rd->u) != 0)
                die_record_in(rd->source, next, "truncated record at end of input");
            return false;
        }
        if (reader_fill(rd, next) == 0)
            rd->eof = true;
    }
}

/* ---- raw records ---- */

/* Containers this big are not measured (nor nesting past RAW_MAX_DEPTH,
 * stream.h): a record's containers are a few keys and a tensor's shape. */
#define RAW_MAX_ITEMS 65535

/* Bytes after the type byte of 0xc4..0xdf: a length, or a fixed-size value. */
static const signed char header_sizes[] = {
    /* c4 bin8..c6 bin32 */ 1, 2, 4, /* c7 ext8..c9 ext32 */ 1, 2, 4,
    /* ca float32, cb float64 */ 4, 8, /* cc..cf uint */ 1, 2, 4, 8, /* d0..d3 int */ 1, 2, 4, 8,
    /* d4..d8 fixext */ 2, 3, 5, 9, 17, /* d9..db str */ 1, 2, 4,
    /* dc, dd array */ 2, 4, /* de, df map */ 2, 4};

static uint64_t big_endian(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v = v << 8 | p[i];
    return v;
}

/* Measure the msgpack object at p[0..avail) from where scan left off.
 * Returns its size once all of it is there, 0 while more bytes are needed
 * (scan remembers how far it got), -1 for what only msgpack-c should judge:
 * byte 0xc1 (never used), a container past RAW_MAX_ITEMS or RAW_MAX_DEPTH,
 * or a size past max.  A string or bin's payload is stepped over, not read. */
static int64_t raw_measure(struct raw_scan *sc, const unsigned char *p, size_t avail, size_t max)
{
    while (sc->depth >= 0) {
        if (sc->left[sc->depth] == 0) {
            sc->depth--;
            continue;
        }
        if (sc->pos >= avail)
            return 0;
        unsigned b = p[sc->pos];
        /* header bytes after the type byte, payload length, items opened */
        int header = 0;
        uint64_t payload = 0, items = 0;
        if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3) {
        } else if (b <= 0x8f) {
            items = 2 * (uint64_t)(b & 0x0f);
        } else if (b <= 0x9f) {
            items = b & 0x0f;
        } else if (b <= 0xbf) {
            payload = b & 0x1f;
        } else if (b == 0xc1) {
            return -1;
        } else {
            /* 0xc4..0xdf: a length or value of 1, 2, 4 or 8 bytes follows */
            header = header_sizes[b - 0xc4];
            if (sc->pos + 1 + (size_t)header > avail)
                return 0;
            uint64_t n = big_endian(p + sc->pos + 1, header <= 4 ? header : 0);
            if ((b >= 0xc4 && b <= 0xc6) || (b >= 0xd9 && b <= 0xdb))
                payload = n;
            else if (b >= 0xc7 && b <= 0xc9)
                payload = n + 1;            /* the ext's type byte */
            else if (b >= 0xdc && b <= 0xdf) {
                /* msgpack-c allocates a container's objects when it reads
                 * its header, and may fail there (NOMEM): big ones are its */
                if (n > RAW_MAX_ITEMS)
                    return -1;
                items = b <= 0xdd ? n : 2 * n;
            }
        }
        if (payload > max)
            return -1;
        sc->pos += 1 + (size_t)header + (size_t)payload;
        if (sc->pos > max)
            return -1;
        sc->left[sc->depth]--;
        if (items > 0) {
            if (sc->depth + 1 >= RAW_MAX_DEPTH)
                return -1;
            sc->left[++sc->depth] = items;
        }
    }
    if (sc->pos > avail)
        return 0;
    return (int64_t)sc->pos;
}

/* Before a fill: the start of a record left at the end of the buffer goes
 * back to its beginning, so that the next chunk is read into memory
 * already in use.  Left to msgpack-c, each fill would move to a new buffer
 * (its rule for a buffer whose objects may still be in use, which raw
 * records never are), of 128 KiB, which malloc maps afresh every time: the
 * page faults made each read cost about as much as tracing the batch it
 * brought.  Only a tail shorter than what was consumed is moved, so a record
 * bigger than the buffer is not copied at each fill (msgpack-c grows the
 * buffer in place for it).  The tail is saved aside as the unpacker
 * may move or reuse its buffer. */
static void raw_rewind(struct reader *rd)
{
    msgpack_unpacker *u = &rd->u;
    size_t tail = u->used - u->off;
    if (tail > u->off / 2)
        return;
    msgpack_sbuffer_clear(&rd->repacked);
    if (tail > 0 && msgpack_sbuffer_write(&rd->repacked, u->buffer + u->off, tail) != 0)
        die(EX_SOFTWARE, "out of memory");
    u->off = u->used;
    if (!msgpack_unpacker_reserve_buffer(u, tail + READ_CHUNK))
        die(EX_SOFTWARE, "out of memory");
    if (tail > 0) {
        memcpy(msgpack_unpacker_buffer(u), rd->repacked.data, tail);
        msgpack_unpacker_buffer_consumed(u, tail);
    }
}

bool reader_next_raw(struct reader *rd, const char **bytes, size_t *size)
{
    long next = rd->index + 1;
    msgpack_unpacker *u = &rd->u;
    while (!rd->parse_all) {
        size_t avail = u->used - u->off;
        struct raw_scan *sc = &rd->scan;
        int64_t measured = avail ? raw_measure(sc, (const unsigned char *)u->buffer + u->off, avail,
                                               rd->max_record / 2) : 0;
        if (measured > 0) {
            /* The unpacker has parsed nothing, so moving its offset past
             * the record consumes it. */
            *bytes = u->buffer + u->off;
            *size = (size_t)measured;
            u->off += (size_t)measured;
            *sc = (struct raw_scan){.left = {1}};
            rd->index = next;
            return true;
        }
        if (measured < 0 || (rd->eof && avail > 0))
            rd->parse_all = true;           /* msgpack-c has the last word */
        else if (rd->eof)
            return false;
        else {
            raw_rewind(rd);
            if (reader_fill(rd, next) == 0)
                rd->eof = true;
        }
    }
    struct record rec;
    if (!reader_next(rd, &rec))
        return false;
    msgpack_sbuffer_clear(&rd->repacked);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &rd->repacked, msgpack_sbuffer_write);
    if (msgpack_pack_object(&pk, *rec.map) != 0)
        die(EX_SOFTWARE, "out of memory repacking record %ld", rec.index);
    *bytes = rd->repacked.data;
    *size = rd->repacked.size;
    return true;
}

void record_parse(struct record *rec, const char *bytes, size_t size, long index, const char *source,
                  msgpack_zone *zone)
{
    msgpack_object *map = msgpack_zone_malloc(zone, sizeof *map);
    size_t off = 0;
    if (!map)
        die(EX_SOFTWARE, "out of memory parsing record %ld", index);
    msgpack_unpack_return ret = msgpack_unpack(bytes, size, &off, zone, map);
    if (ret == MSGPACK_UNPACK_NOMEM_ERROR)
        die(EX_SOFTWARE, "out of memory parsing record %ld", index);
    if (ret != MSGPACK_UNPACK_SUCCESS || off != size)
        die(EX_SOFTWARE, "BUG: record %ld: msgpack-c does not parse the bytes reader_next_raw() measured", index);
    record_check(map, index, source);
    rec->map = map;
    rec->index = index;
    rec->source = source;
}

/* ---- a filter's loop ---- */

long stream_map(FILE *in, const char *in_name, FILE *out, const struct stream_map *map)
{
    struct reader rd;
    struct record rec;
    struct writer w;
    reader_init(&rd, in, in_name);
    if (map->max_record)
        rd.max_record = map->max_record;
    if (map->buffered)
        writer_init_buffered(&w, out);
    else
        writer_init(&w, out);
    long records = 0;
    while (reader_next(&rd, &rec)) {
        map->each(&w, &rec, map->context);
        records++;
    }
    writer_flush(&w);
    reader_free(&rd);
    return records;
}

/* ---- key access ---- */

/* Does the str or bin object o hold the n bytes of s? */
static inline bool object_is_key(const msgpack_object *o, const char *s, size_t n)
{
    const char *p;
    size_t len;
    return mp_string_view(o, &p, &len) && len == n && memcmp(p, s, n) == 0;
}

bool mp_str_eq(const msgpack_object *o, const char *s) { return object_is_key(o, s, strlen(s)); }

/* The key's length once, not once per entry: readers look up a dozen keys
 * in every record. */
const msgpack_object *map_find(const msgpack_object *map, const char *key)
{
    const msgpack_object_map *m = &map->via.map;
    size_t n = strlen(key);
    for (uint32_t i = 0; i < m->size; i++)
        if (object_is_key(&m->ptr[i].key, key, n))
            return &m->ptr[i].val;
    return NULL;
}

const msgpack_object *record_find(const struct record *rec, const char *key) { return map_find(rec->map, key); }

void record_die(const struct record *rec, const char *fmt, ...)
{
                va_list ap;
    va_start(ap, fmt);
    vdie_record_in(rec->source, rec->index, fmt, ap);
}

bool record_has(const struct record *rec, const char *key) { return record_find(rec, key) != NULL; }

static const msgpack_object *record_need(const struct record *rec, const char *key)
{
    const msgpack_object *o = record_find(rec, key);
    if (!o)
        record_die(rec, "missing key '%s'", key);
    return o;
}

static bool object_int(const msgpack_object *o, int64_t *v)
{
    if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
        if (o->via.u64 > INT64_MAX)
            return false;
        *v = (int64_t)o->via.u64;
        return true;
    }
    if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
        *v = o->via.i64;
        return true;
    }
    return false;
}

int64_t record_int(const struct record *rec, const char *key)
{
    int64_t v;
    if (!object_int(record_need(rec, key), &v))
        record_die(rec, "'%s' is not an integer", key);
    return v;
}

int64_t record_int_or(const struct record *rec, const char *key, int64_t fallback)
{
    return record_has(rec, key) ? record_int(rec, key) : fallback;
}

double record_double(const struct record *rec, const char *key)
{
    const msgpack_object *o = record_need(rec, key);
    int64_t v;
    if (o->type == MSGPACK_OBJECT_FLOAT32 || o->type == MSGPACK_OBJECT_FLOAT64)
        return o->via.f64;
    if (object_int(o, &v))
        return (double)v;
    record_die(rec, "'%s' is not a number", key);
}

bool record_bool(const struct record *rec, const char *key)
{
    const msgpack_object *o = record_need(rec, key);
    if (o->type != MSGPACK_OBJECT_BOOLEAN)
        record_die(rec, "'%s' is not a boolean", key);
    return o->via.boolean;
}

bool record_bool_or(const struct record *rec, const char *key, bool fallback)
{
    return record_has(rec, key) ? record_bool(rec, key) : fallback;
}

const char *record_str(const struct record *rec, const char *key, char *buf, size_t cap)
{
    const msgpack_object *o = record_need(rec, key);
    const char *p;
    size_t n;
    if (!mp_string_view(o, &p, &n))
        record_die(rec, "'%s' is not a string", key);
    if (n >= cap)
        record_die(rec, "'%s' is longer than %zu bytes", key, cap - 1);
    memcpy(buf, p, n);
    buf[n] = 0;
    return buf;
}

void record_expect_kind(const struct record *rec, const char *want)
{
    char kind[64];
    if (strcmp(record_str(rec, "kind", kind, sizeof kind), want) != 0)
        record_die(rec, "'kind' is '%s', expected '%s'", kind, want);
}


/* ---- writing ---- */

static int writer_callback(void *data, const char *buf, size_t len)
{
    /* Our own callback: the stock msgpack_fbuffer_write fails on empty bodies. */
    io_write((FILE *)data, buf, len);
    return 0;
}

void writer_init(struct writer *w, FILE *f)
{
    memset(w, 0, sizeof *w);
    w->f = f;
    msgpack_packer_init(&w->pk, f, writer_callback);
}

/* Large enough that a pipe or file gets big writes, small enough to stay in
 * the CPU cache while it fills. */
#define WRITER_BUFFER_SIZE ((size_t)128 << 10)

static void writer_write_buffered(struct writer *w)
{
    io_write(w->f, w->buffer, w->buffered);
    w->buffered = 0;
}

/* Room for len more bytes: a memory writer (w->f NULL) grows to hold them,
 * a buffered one writes out what it holds (len may still not fit). */
static void writer_make_room(struct writer *w, size_t len)
{
    if (w->f) {
        writer_write_buffered(w);
        return;
    }
    size_t need = w->buffered + len;
    while (w->buffer_size < need)
        w->buffer_size *= 2;
    w->buffer = xrealloc(w->buffer, w->buffer_size);
}

static int buffered_callback(void *data, const char *buf, size_t len)
{
    struct writer *w = data;
    if (len <= 8 && len <= w->buffer_size - w->buffered) {
        /* most tokens: a byte loop beats a call to memcpy */
        char *out = w->buffer + w->buffered;
        for (size_t i = 0; i < len; i++)
            out[i] = buf[i];
        w->buffered += len;
        return 0;
    }
    if (len > w->buffer_size - w->buffered) {
        writer_make_room(w, len);
        if (w->f && len > w->buffer_size / 2) {   /* a big tensor: no point copying it first */
            io_write(w->f, buf, len);
            return 0;
        }
    }
    memcpy(w->buffer + w->buffered, buf, len);
    w->buffered += len;
    return 0;
}

void writer_init_buffered(struct writer *w, FILE *f)
{
    memset(w, 0, sizeof *w);
    w->f = f;
    w->buffer_size = WRITER_BUFFER_SIZE;
    w->buffer = xmalloc(w->buffer_size);
    msgpack_packer_init(&w->pk, w, buffered_callback);
}

/* Room for a few hundred small records from the start: pages never written
 * cost nothing, while growing copies everything into fresh ones. */
#define WRITER_MEMORY_SIZE ((size_t)1 << 20)

void writer_init_memory(struct writer *w)
{
    memset(w, 0, sizeof *w);
    w->buffer_size = WRITER_MEMORY_SIZE;
    w->buffer = xmalloc(w->buffer_size);
    msgpack_packer_init(&w->pk, w, buffered_callback);
}

void writer_rewind(struct writer *w) { w->buffered = 0; }

void *writer_reserve(struct writer *w, size_t len)
{
    if (!w->buffer || (w->f && len > w->buffer_size / 2))
        return NULL;
    if (len > w->buffer_size - w->buffered)
        writer_make_room(w, len);
    char *room = w->buffer + w->buffered;
    w->buffered += len;
    return room;
}

void writer_flush(struct writer *w)
{
    if (!w->buffer)
        return;
    if (w->f)
        writer_write_buffered(w);
    free(w->buffer);
    w->buffer = NULL;
    /* Anything packed after this goes straight to the file. */
    msgpack_packer_init(&w->pk, w->f, writer_callback);
}

void writer_copy(struct writer *w, const struct record *rec) { mp_object(w, rec->map); }

/* The packer callback dies on any write error, so return values need no check. */
void mp_map(struct writer *w, uint32_t n) { msgpack_pack_map(&w->pk, n); }
void mp_array(struct writer *w, uint32_t n) { msgpack_pack_array(&w->pk, n); }
void mp_key(struct writer *w, const char *key) { msgpack_pack_str_with_body(&w->pk, key, strlen(key)); }
void mp_str(struct writer *w, const char *s) { msgpack_pack_str_with_body(&w->pk, s, strlen(s)); }
void mp_int(struct writer *w, int64_t v) { msgpack_pack_int64(&w->pk, v); }
void mp_double(struct writer *w, double v) { msgpack_pack_double(&w->pk, v); }
void mp_float(struct writer *w, float v) { msgpack_pack_float(&w->pk, v); }
void mp_bool(struct writer *w, bool v) { v ? msgpack_pack_true(&w->pk) : msgpack_pack_false(&w->pk); }
void mp_nil(struct writer *w) { msgpack_pack_nil(&w->pk); }
void mp_object(struct writer *w, const msgpack_object *o) { msgpack_pack_object(&w->pk, *o); }
