/* stream.h - records in and out: a stream is a sequence of MessagePack maps
 * with string keys, one after another, no header (formats/stream.md).
 *
 * Reading: reader_next() hands out one record at a time.  The record's
 * msgpack objects point into the reader's buffer and stay valid only until
 * the next reader_next() call; copy out what must live longer (the record_*
 * getters below copy tensors).  Every malformed input is fatal with exit 65
 * and the record index: bad bytes, a record that is not a map, a non-string
 * key, a record larger than the size limit, a container header asking for
 * more items than the bytes that follow could hold (refused before
 * msgpack-c allocates them), nesting deeper than READER_MAX_DEPTH,
 * truncation at end of input (formats/stream.md, "Limits").
 *
 * Writing: a writer packs onto a FILE through io_write(), so a write error
 * never has to be checked by the caller: it is fatal.  Filters "enrich": they
 * call writer_begin_enriched() (tensor.h, as it repacks tensors through the
 * codec) with the keys they will add, which writes every
 * other key of the input record unchanged and in its original order, then
 * pack exactly those keys in their fixed order. */
#ifndef DAR_STREAM_H
#define DAR_STREAM_H
#include <msgpack.h>
#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>

#define STREAM_DEFAULT_MAX_RECORD ((size_t)2 << 30)   /* 2 GiB */

/* Where reader_next_raw() is in the record it is measuring: the bytes
 * looked at so far and, per open container, the items still to come. */
/* Nesting this deep (half msgpack-c's limit of 32) is not measured: a
 * record's containers are a few keys and a tensor's shape. */
#define RAW_MAX_DEPTH 16
struct raw_scan {
    size_t pos;
    int depth;
    uint64_t left[RAW_MAX_DEPTH];
};

/* What reader_next() has checked of the record msgpack-c parses next: every
 * container header up to pos (a stream offset) asks for no more items than
 * bytes follow it, need being the offset the largest such promise reaches
 * (msgpack-c allocates a container's objects when it reads the header);
 * inside_header: the scan stopped on a header whose last bytes are not yet
 * read (reader_guard_scan says why that matters). */
#define READER_MAX_DEPTH 32        /* msgpack-c's own limit of nesting */
struct reader_guard {
    uint64_t start, pos, need;
    int depth;                     /* -1: the record is complete */
    bool inside_header;
    uint64_t left[READER_MAX_DEPTH + 1];
};

struct reader {
    FILE *f;
    const char *name;          /* for messages: path or "<stdin>" */
    const char *source;        /* its records' source: name, NULL for stdin */
    msgpack_unpacker u;
    msgpack_unpacked r;
    long index;                /* index of the record last returned, -1 before */
    size_t max_record;         /* bytes; larger records are an error */
    size_t read_limit;         /* bytes a fill reads at most, 0: as many as fit; tests
                                * set it so that headers straddle fills */
    bool eof;
    struct raw_scan scan;      /* reader_next_raw() */
    bool parse_all;            /* reader_next_raw() hands every record to msgpack-c */
    msgpack_sbuffer repacked;  /* ... and repacks it here; before that, a read's
                                * scratch (the start of a record kept aside) */
    uint64_t fed;              /* bytes read into the unpacker so far */
    struct reader_guard guard; /* reader_next() */
};

struct record {
    const msgpack_object *map; /* a MSGPACK_OBJECT_MAP */
    long index;                /* position in its stream, for messages */
    const char *source;        /* the stream's name for messages (die_record_in),
                                * NULL for stdin */
};

void reader_init(struct reader *rd, FILE *f, const char *name);
/* Next record into *rec.  Returns true, or false at a clean end of input. */
bool reader_next(struct reader *rd, struct record *rec);
/* The next record's bytes, unparsed, for a tool that parses records on
 * other threads (record_parse() there): *bytes stays valid until the next
 * call; false at a clean end of input.  The bytes are measured, not parsed,
 * so a thread that only reads spends little per record.  Malformed input
 * dies as reader_next() would, with the same message and record index:
 * whatever the measuring does not accept outright (bytes msgpack never
 * uses, nesting of 16 or more, a container of more than 65535 items, a
 * record over half the size limit, truncation) is handed to msgpack-c, as
 * reader_next() does, from that record on; the records it accepts are then
 * repacked.  Whether a record is
 * a map with string keys is record_parse()'s to say. */
bool reader_next_raw(struct reader *rd, const char **bytes, size_t *size);
/* Parse the bytes of one record from reader_next_raw() into rec, its
 * objects in zone (msgpack_zone_init'ed) and pointing into bytes, both of
 * which must outlive rec; index is its position in the stream, source the
 * reader's.  Dies with reader_next()'s message if it is not a map with
 * string keys. */
void record_parse(struct record *rec, const char *bytes, size_t size, long index, const char *source,
                  msgpack_zone *zone);
/* For a file of exactly one record (a model): dies, naming the file, if
 * another record follows the one read. */
void reader_expect_end(struct reader *rd);
void reader_free(struct reader *rd);

/* die_record_in() naming rec's stream and index: "tool: 'val.mp': record
 * 17: message", or "tool: record 17: message" for stdin (exit 65). */
__attribute__((noreturn, format(printf, 2, 3)))
void record_die(const struct record *rec, const char *fmt, ...);

/* ---- reading keys of a record ---- */
/* The value of key (a str or bin key) in the msgpack map, or NULL if absent. */
const msgpack_object *map_find(const msgpack_object *map, const char *key);
/* map_find() in the record. */
const msgpack_object *record_find(const struct record *rec, const char *key);
bool record_has(const struct record *rec, const char *key);
/* Typed getters: record_die(...) naming the key if missing or of the wrong type. */
int64_t record_int(const struct record *rec, const char *key);
int64_t record_int_or(const struct record *rec, const char *key, int64_t fallback);
double record_double(const struct record *rec, const char *key);   /* int or float */
bool record_bool(const struct record *rec, const char *key);
bool record_bool_or(const struct record *rec, const char *key, bool fallback);
/* Copies the string into buf (NUL-terminated); dies if longer than cap-1. */
const char *record_str(const struct record *rec, const char *key, char *buf, size_t cap);
/* Dies unless rec's 'kind' is want (missing, not a string, another kind). */
void record_expect_kind(const struct record *rec, const char *want);
/* Compare a msgpack str/bin object with a C string. */
bool mp_str_eq(const msgpack_object *o, const char *s);
/* The bytes of a str or bin object (keys and names come as either, as
 * msgpack-numpy writes bin keys): true with *p and *n set, false for any
 * other type. */
static inline bool mp_string_view(const msgpack_object *o, const char **p, size_t *n)
{
    if (o->type == MSGPACK_OBJECT_STR) {
        *p = o->via.str.ptr;
        *n = o->via.str.size;
        return true;
    }
    if (o->type == MSGPACK_OBJECT_BIN) {
        *p = o->via.bin.ptr;
        *n = o->via.bin.size;
        return true;
    }
    return false;
}

/* ---- writing ---- */
struct writer {
    FILE *f;
    msgpack_packer pk;
    char *buffer;              /* writer_init_buffered(): bytes not yet written */
    size_t buffered, buffer_size;
};
void writer_init(struct writer *w, FILE *f);
/* A writer that packs into its own memory and hands f big blocks: a record
 * is hundreds of msgpack tokens, and one fwrite per token costs more than
 * the packing.  The packer points at *w, so w must not move; call
 * writer_flush() when the stream is complete (a tool that dies drops what
 * is still buffered, as it drops stdio's buffer). */
void writer_init_buffered(struct writer *w, FILE *f);
/* A writer that packs into memory only, growing it as needed, for output
 * that must wait its turn (a thread's share of a stream): the bytes packed
 * so far are w->buffer[0 .. w->buffered).  writer_rewind() starts it over,
 * keeping the memory; writer_flush() only frees it. */
void writer_init_memory(struct writer *w);
void writer_rewind(struct writer *w);
/* Write out what is buffered and free the buffer (no-op for writer_init). */
void writer_flush(struct writer *w);
/* Room for len bytes at the end of a buffered writer's output, for the
 * caller to fill before anything else is packed (saves building big data
 * elsewhere and copying it in); NULL when w is not buffered or len is too
 * big for its buffer (never for a memory writer): then pack the bytes as
 * usual. */
void *writer_reserve(struct writer *w, size_t len);
/* Re-emit rec unchanged. */
void writer_copy(struct writer *w, const struct record *rec);

/* Packing helpers (all write-or-die). */
void mp_map(struct writer *w, uint32_t n);
void mp_array(struct writer *w, uint32_t n);
void mp_key(struct writer *w, const char *key);
void mp_str(struct writer *w, const char *s);
void mp_int(struct writer *w, int64_t v);
void mp_double(struct writer *w, double v);
void mp_float(struct writer *w, float v);
void mp_bool(struct writer *w, bool v);
void mp_nil(struct writer *w);
void mp_object(struct writer *w, const msgpack_object *o);

/* ---- a filter's loop ---- */
/* What a filter does with each record: write its output on w (most often
 * writer_begin_enriched() and the keys it adds). */
typedef void stream_each_fn(struct writer *w, const struct record *rec, void *context);
struct stream_map {
    stream_each_fn *each;
    void *context;
    size_t max_record;         /* 0: STREAM_DEFAULT_MAX_RECORD */
    bool buffered;             /* writer_init_buffered(), not writer_init() */
};
/* Read every record of in (named in_name, as for reader_init) and hand it
 * to map->each with a writer on out; returns the number of records read. */
long stream_map(FILE *in, const char *in_name, FILE *out, const struct stream_map *map);

#endif
