/* cache.h - the content-hashed cache of DESIGN.md §3 (format: formats/cache.md).
 *
 * A tool describes what it is about to compute (tool name, version, build
 * id, canonical arguments, the bytes of every input); the XXH3-128 of that
 * description is the key.  On a hit the stored output is copied to the
 * tool's output and nothing is computed.  On a miss the tool computes into a
 * temporary file inside the cache, which is renamed into place only when
 * complete; the entry carries its length and an XXH3-64 checksum that is
 * verified on every read, so a corrupt or truncated entry is a miss (and is
 * replaced), never an error.  Failures are never stored (the temp file is
 * removed by the die/signal cleanup).
 *
 * Location: $DAR_CACHE, else $XDG_CACHE_HOME/dar, else $HOME/.cache/dar;
 * DAR_CACHE=off disables it.  A cache directory that cannot be written works
 * read-only (hits are served, misses compute straight to the output) with one
 * warning.  Layout: <dir>/v1/<2 hex>/<30 hex>.mp; a line per lookup is
 * appended to <dir>/log ("hit|miss tool key"), so pipelines can count hits.
 *
 * Typical use (a filter whose output depends on stdin):
 *
 *   struct cache c;
 *   cache_begin(&c, "ff-trace", cli_canonical_args(&spec), NULL, no_cache, verbose);
 *   FILE *in = cache_add_input(&c, stdin, "<stdin>");  // spools and hashes
 *   FILE *out = cache_lookup(&c, stdout);   // NULL: hit, already copied
 *   if (out) { compute(in, out); cache_commit(&c); }
 *   cache_end(&c);
 *   io_close_output(stdout);
 *
 * Ownership: the caller keeps (and closes) the streams it passed in; a spool
 * returned by cache_add_input and the temp file returned by cache_lookup
 * belong to the cache and must not be closed by the caller.  The compute
 * stream is only valid until cache_commit.  cache_commit copies the result
 * to out but does not flush or close it.
 */
#ifndef DAR_CACHE_H
#define DAR_CACHE_H
#include <stdio.h>
#include <stdbool.h>
#include <xxhash.h>

#define CACHE_MAX_SPOOLS 8

struct cache {
    const char *tool;
    bool enabled;            /* false: off, --no-cache, or no usable directory */
    bool writable;           /* false once a write into the cache failed */
    bool verbose;
    bool hit;
    char dir[4096];          /* cache root */
    XXH3_state_t *key_state;
    char key_hex[33];
    char entry_path[4200];
    char tmp_path[4200];
    FILE *tmp;               /* the miss's temporary output (a cookie over tmp_fd) */
    int tmp_fd;
    uint64_t tmp_length;     /* bytes in the temp file */
    bool diverted;           /* the cache's disk refused a write: output goes straight out */
    bool dropping;           /* abandoned: buffered bytes are thrown away */
    FILE *final_out;         /* where the result goes after commit */
    FILE *spools[CACHE_MAX_SPOOLS];
    int n_spools;
};

/* Start describing a computation.  build_id NULL means the XXH3-128 of this
 * executable's bytes (/proc/self/exe, hashed once per process).  disabled
 * (--no-cache) or DAR_CACHE=off turn every call below into a pass-through. */
void cache_begin(struct cache *c, const char *tool, const char *canonical_args,
                 const char *build_id, bool disabled, bool verbose);
/* Add extra key material (e.g. a seed not in the options table). */
void cache_add_key(struct cache *c, const char *name, const void *bytes, size_t len);
/* Hash an input stream completely.  Returns a readable stream positioned
 * where in was, holding the same bytes: in itself (rewound) when it is a
 * seekable regular file, else a spool in an unlinked temp file (owned by the
 * cache, closed by cache_end).  Only the bytes count, not the name (used in
 * messages), so `-i f` and `< f` and `cat f |` share entries.  With the cache
 * disabled returns in without reading it. */
FILE *cache_add_input(struct cache *c, FILE *in, const char *name);
/* An input read whole, for a tool that needs all of it in memory (dar-fit's
 * training set, validation set and model to resume): its bytes and their
 * XXH3-128, read and hashed once. */
struct input_bytes {
    const char *name;          /* for messages */
    char *bytes;               /* owned; NULL once consumed */
    size_t length;
    char hash[33];             /* XXH3-128, hex as hex_of_hash128 */
};
/* cache_add_input for an input read whole: the same key material (its
 * length and XXH3-128), and the bytes and digest handed back in b, so
 * nothing reads or hashes the input again.  Reads in whole even when the
 * cache is disabled. */
void cache_add_input_bytes(struct cache *c, FILE *in, const char *name, struct input_bytes *b);
/* cache_add_input_bytes in two steps, for a tool that reads an input
 * before its key is made (dar-fit: the records name the entry whose
 * defaults the arguments take): b read whole, then its key material. */
void input_bytes_read(struct input_bytes *b, FILE *in, const char *name);
void cache_add_read_bytes(struct cache *c, const struct input_bytes *b);
/* b over bytes (owned from now on) already in memory. */
void input_bytes_of(struct input_bytes *b, char *bytes, size_t length, const char *name);
void input_bytes_free(struct input_bytes *b);
/* Decide.  On a hit copies the entry to out and returns NULL.  On a miss
 * returns the stream to compute into (a temp file in the cache, or out
 * itself when the cache is disabled or read-only). */
FILE *cache_lookup(struct cache *c, FILE *out);
/* After a successful computation: seal the temp file (length + checksum),
 * fsync, rename into place, then copy it to out.  A no-op when the miss was
 * computed straight to out. */
void cache_commit(struct cache *c);
/* Release everything; an uncommitted temp file is removed. */
void cache_end(struct cache *c);

/* A side output rebuilt from the cached record on a hit (dar-fit's and
 * edge-embed's --log: the model record carries the curve).  Pass
 * cache_replay_begin's stream to cache_lookup: a temp file when wanted, else
 * out itself.  After a hit, rewind it and read the record back; after
 * cache_end, cache_replay_end copies it to out and closes it (a no-op when
 * it is out). */
FILE *cache_replay_begin(FILE *out, bool wanted);
void cache_replay_end(FILE *replay, FILE *out);

/* One cached run of a tool: the ritual every caching main shares (key from
 * the tool's canonical arguments, inputs, lookup, commit, end) and the
 * side output some rebuild from the output record (a --log: the record
 * carries the curve, so a hit writes the same log, without timings).
 *
 *   struct cached_run run = {.log_path = log_path, .write_log = write_curve};
 *   cached_run_begin(&run, &spec, no_cache, verbose);
 *   FILE *data = cached_run_input(&run, in, in_name);   // each input, in key order
 *   FILE *dest = cached_run_lookup(&run, out);          // NULL: a hit, copied to out
 *   if (dest)
 *       compute(data, dest);
 *   cached_run_end(&run);                               // commit, the log, release
 *
 * The caller keeps and closes out (cached_run_end copies to it but does not
 * close it); run.args holds the canonical arguments until cached_run_end. */
struct cli_spec;
typedef void cached_log_writer(FILE *record, const char *record_name, const char *log_path);

struct cached_run {
    /* set by the caller, before cached_run_begin */
    const char *log_path;           /* the side output, or NULL */
    cached_log_writer *write_log;   /* rebuilds it from the output record */
    bool log_after_miss;            /* rebuild it after a miss too: the computation does not write it */
    /* set by cached_run_begin */
    char *args;
    struct cache cache;
    FILE *out, *replay, *dest;
};

void cached_run_begin(struct cached_run *r, const struct cli_spec *spec, bool disabled, bool verbose);
FILE *cached_run_input(struct cached_run *r, FILE *in, const char *name);
void cached_run_input_bytes(struct cached_run *r, FILE *in, const char *name, struct input_bytes *b);
void cached_run_read_bytes(struct cached_run *r, const struct input_bytes *b);
FILE *cached_run_lookup(struct cached_run *r, FILE *out);
void cached_run_end(struct cached_run *r);

/* Lower level, for tests and tools: the key (32 hex) of the description so
 * far; "" when the cache is disabled (inputs are then not read). */
const char *cache_key_hex(struct cache *c);
/* The 32 lowercase hex digits of h, in XXH128's canonical (big-endian)
 * byte order, as cache keys and digests are written. */
void hex_of_hash128(char out[33], XXH128_hash_t h);
/* Resolve the cache root into buf; returns false when disabled (DAR_CACHE=off)
 * or when no location can be found (no usable HOME). */
bool cache_root(char *buf, size_t cap);

#endif
