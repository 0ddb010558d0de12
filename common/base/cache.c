/* cache.c - the content-hashed cache of DESIGN.md §3; the on-disk format is
 * formats/cache.md.
 *
 * Correctness rests on three rules:
 *  - an entry only ever appears by rename() of a complete, fsync'ed file, so
 *    readers (and concurrent writers of the same key) see whole files;
 *  - every entry ends in a trailer (magic, key, length, XXH3-64 of the
 *    payload) that is checked in full before a single payload byte is copied
 *    out, so a damaged entry is a miss, never a wrong answer;
 *  - the temp file of a miss is registered with cleanup_remember(), so a
 *    computation that dies leaves nothing behind.
 */
#define _GNU_SOURCE
#include "cache.h"
#include "cli.h"
#include "die.h"
#include "io.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef DAR_VERSION
#define DAR_VERSION "unknown"
#endif

/* Bump when the key recipe changes (formats/cache.md lists it). */
#define CACHE_SCHEMA "1"
#define CACHE_MAGIC "DARCACH1"
/* magic[8] key[16] payload_length u64le checksum u64le */
#define TRAILER_SIZE 40
#define COPY_CHUNK (1 << 16)

/* One warning per process when the cache cannot be written. */
static bool warned_unwritable;

static void put_u64le(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64le(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

void hex_of_hash128(char out[33], XXH128_hash_t h)
{
    XXH128_canonical_t canon;
    XXH128_canonicalFromHash(&canon, h);
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", canon.digest[i]);
}

/* Every field of the description is length-prefixed (u64 LE), so no two
 * different descriptions hash the same byte sequence. */
static void key_field(struct cache *c, const void *bytes, size_t len)
{
    unsigned char prefix[8];
    put_u64le(prefix, len);
    XXH3_128bits_update(c->key_state, prefix, sizeof prefix);
    if (len)
        XXH3_128bits_update(c->key_state, bytes, len);
}

static void key_string(struct cache *c, const char *s)
{
    key_field(c, s, strlen(s));
}

/* The XXH3-128 hex of this executable: a different build of the code that
 * computes a result is a different key.  Hashed once per process. */
static const char *self_build_id(void)
{
    static char hex[33];
    if (hex[0])
        return hex;
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    XXH3_state_t *st = XXH3_createState();
    if (!st)
        die(EX_SOFTWARE, "out of memory");
    XXH3_128bits_reset(st);
    char *buf = xmalloc(1 << 20);
    ssize_t n;
    while ((n = read(fd, buf, 1 << 20)) != 0) {
        if (n < 0) {
            if (errno == EINTR)
                continue;
            free(buf);
            XXH3_freeState(st);
            close(fd);
            return NULL;
        }
        XXH3_128bits_update(st, buf, (size_t)n);
    }
    free(buf);
    close(fd);
    hex_of_hash128(hex, XXH3_128bits_digest(st));
    XXH3_freeState(st);
    return hex;
}

bool cache_root(char *buf, size_t cap)
{
    const char *env = getenv("DAR_CACHE");
    int n;
    if (env && *env) {
        if (strcmp(env, "off") == 0)
            return false;
        n = snprintf(buf, cap, "%s", env);
    } else {
        /* XDG: an empty or relative XDG_CACHE_HOME is ignored. */
        const char *xdg = getenv("XDG_CACHE_HOME");
        const char *home = getenv("HOME");
        if (xdg && xdg[0] == '/')
            n = snprintf(buf, cap, "%s/dar", xdg);
        else if (home && *home)
            n = snprintf(buf, cap, "%s/.cache/dar", home);
        else
            return false;
    }
    return n > 0 && (size_t)n < cap;
}

void cache_begin(struct cache *c, const char *tool, const char *canonical_args,
                 const char *build_id, bool disabled, bool verbose)
{
    memset(c, 0, sizeof *c);
    c->tool = tool;
    c->verbose = verbose;
    c->writable = true;
    c->enabled = !disabled && cache_root(c->dir, sizeof c->dir);
    if (!c->enabled)
        return;
    if (!build_id && !(build_id = self_build_id())) {
        /* Without a build id a rebuilt tool could be served stale results. */
        warn("cache: cannot read '/proc/self/exe', caching disabled:");
        c->enabled = false;
        return;
    }
    c->key_state = XXH3_createState();
    if (!c->key_state)
        die(EX_SOFTWARE, "out of memory");
    XXH3_128bits_reset(c->key_state);
    key_string(c, "dar-cache");
    key_string(c, CACHE_SCHEMA);
    key_string(c, tool);
    key_string(c, DAR_VERSION);
    key_string(c, build_id);
    key_string(c, canonical_args ? canonical_args : "");
}

void cache_add_key(struct cache *c, const char *name, const void *bytes, size_t len)
{
    if (!c->enabled)
        return;
    key_string(c, "key");
    key_string(c, name);
    key_field(c, bytes, len);
}

/* mkdir -p; concurrent creators are fine (EEXIST).  0 or -1 with errno. */
static int make_directories(const char *path)
{
    char buf[4200];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        if (buf[i - 1] == '/')
            continue;
        char saved = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -1;
        buf[i] = saved;
    }
    return 0;
}

/* Between creating a temp file and registering it for cleanup a signal
 * would leave it behind: hold off the signals the cleanup handles. */
static void block_fatal_signals(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, old);
}

/* An anonymous read-write file: O_TMPFILE in dir when the filesystem has it,
 * else mkstemp + unlink.  -1 on failure. */
static int anonymous_file(const char *dir)
{
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
    char path[4200];
    if ((size_t)snprintf(path, sizeof path, "%s/.spool.XXXXXX", dir) >= sizeof path)
        return -1;
    sigset_t old;
    block_fatal_signals(&old);
    fd = mkstemp(path);
    if (fd >= 0)
        unlink(path);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return fd;
}

static FILE *open_spool(struct cache *c, const char *name)
{
    int fd = -1;
    if (make_directories(c->dir) == 0)
        fd = anonymous_file(c->dir);
    if (fd < 0) {
        const char *tmpdir = getenv("TMPDIR");
        fd = anonymous_file(tmpdir && tmpdir[0] == '/' ? tmpdir : "/tmp");
    }
    if (fd < 0)
        die(EX_CANTCREAT, "cache: cannot create a temporary file to spool '%s':", name);
    FILE *f = fdopen(fd, "w+b");
    if (!f)
        die(EX_CANTCREAT, "cache: cannot open a temporary file to spool '%s':", name);
    return f;
}

/* The key sees the input's length and XXH3-128 (what xxh128sum prints),
 * the same whether it came from a file or a pipe, or was read whole. */
static void key_input(struct cache *c, uint64_t length, XXH128_hash_t hash)
{
    unsigned char material[8 + 16];
    XXH128_canonical_t canon;
    XXH128_canonicalFromHash(&canon, hash);
    put_u64le(material, length);
    memcpy(material + 8, canon.digest, 16);
    key_string(c, "input");
    key_field(c, material, sizeof material);
}

void input_bytes_of(struct input_bytes *b, char *bytes, size_t length, const char *name)
{
    b->name = name;
    b->bytes = bytes;
    b->length = length;
    hex_of_hash128(b->hash, XXH3_128bits(bytes, length));
}

void input_bytes_free(struct input_bytes *b)
{
    free(b->bytes);
    b->bytes = NULL;
}

void cache_add_input_bytes(struct cache *c, FILE *in, const char *name, struct input_bytes *b)
{
    size_t length;
    char *bytes = io_read_all(in, name, &length);
    b->name = name;
    b->bytes = bytes;
    b->length = length;
    XXH128_hash_t hash = XXH3_128bits(bytes, length);
    hex_of_hash128(b->hash, hash);
    if (c->enabled)
        key_input(c, length, hash);
}

void input_bytes_read(struct input_bytes *b, FILE *in, const char *name)
{
    size_t length;
    char *bytes = io_read_all(in, name, &length);
    input_bytes_of(b, bytes, length, name);
}

void cache_add_read_bytes(struct cache *c, const struct input_bytes *b)
{
    if (c->enabled)
        key_input(c, b->length, XXH3_128bits(b->bytes, b->length));
}

FILE *cache_add_input(struct cache *c, FILE *in, const char *name)
{
    if (!c->enabled)
        return in;
    struct stat st;
    off_t start = -1;
    if (fstat(fileno(in), &st) == 0 && S_ISREG(st.st_mode))
        start = ftello(in);
    FILE *spool = NULL;
    if (start < 0) {
        if (c->n_spools == CACHE_MAX_SPOOLS)
            die(EX_SOFTWARE, "BUG: cache: more than %d spooled inputs", CACHE_MAX_SPOOLS);
        spool = open_spool(c, name);
        c->spools[c->n_spools++] = spool;
    }

    XXH3_state_t *st_in = XXH3_createState();
    if (!st_in)
        die(EX_SOFTWARE, "out of memory");
    XXH3_128bits_reset(st_in);
    char *buf = xmalloc(COPY_CHUNK);
    uint64_t length = 0;
    size_t n;
    while ((n = fread(buf, 1, COPY_CHUNK, in)) > 0) {
        XXH3_128bits_update(st_in, buf, n);
        length += n;
        if (spool && fwrite(buf, 1, n, spool) != n)
            die(EX_IOERR, "cache: cannot spool '%s':", name);
    }
    if (ferror(in))
        die(EX_IOERR, "cannot read '%s':", name);
    free(buf);

    key_input(c, length, XXH3_128bits_digest(st_in));
    XXH3_freeState(st_in);

    if (spool) {
        if (fflush(spool) != 0 || ferror(spool))
            die(EX_IOERR, "cache: cannot spool '%s':", name);
        rewind(spool);
        return spool;
    }
    clearerr(in);
    if (fseeko(in, start, SEEK_SET) != 0)
        die(EX_IOERR, "cannot rewind '%s':", name);
    return in;
}

const char *cache_key_hex(struct cache *c)
{
    if (!c->enabled)
        return "";
    hex_of_hash128(c->key_hex, XXH3_128bits_digest(c->key_state));
    return c->key_hex;
}

/* pread exactly n bytes at off; false on error or end of file. */
static bool read_exact(int fd, void *buf, size_t n, off_t off)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = pread(fd, p, n, off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        p += r;
        n -= (size_t)r;
        off += r;
    }
    return true;
}

/* The first length bytes of fd, handed to each in pieces of at most
 * COPY_CHUNK bytes, in order; false if fd ended early or a read failed. */
static bool read_chunks(int fd, uint64_t length, void (*each)(const char *buf, size_t n, void *context), void *context)
{
    char *buf = xmalloc(COPY_CHUNK);
    bool ok = true;
    for (uint64_t done = 0; done < length;) {
        size_t n = length - done < COPY_CHUNK ? (size_t)(length - done) : COPY_CHUNK;
        if (!read_exact(fd, buf, n, (off_t)done)) {
            ok = false;
            break;
        }
        each(buf, n, context);
        done += n;
    }
    free(buf);
    return ok;
}

static void hash_chunk(const char *buf, size_t n, void *state) { XXH3_64bits_update(state, buf, n); }

/* XXH3-64 of the first length bytes of fd; false on a read error. */
static bool hash_payload(int fd, uint64_t length, XXH64_hash_t *out)
{
    XXH3_state_t *st = XXH3_createState();
    if (!st)
        die(EX_SOFTWARE, "out of memory");
    XXH3_64bits_reset(st);
    bool ok = read_chunks(fd, length, hash_chunk, st);
    *out = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    return ok;
}

/* All n bytes at off, or false with errno set (a short write is retried, so
 * a full disk reports itself). */
static bool write_at(int fd, const void *buf, size_t n, off_t off)
{
    for (size_t done = 0; done < n;) {
        ssize_t k = pwrite(fd, (const char *)buf + done, n - done, off + (off_t)done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        done += (size_t)k;
    }
    return true;
}

static void write_chunk(const char *buf, size_t n, void *out) { io_write(out, buf, n); }

/* Copy the first length bytes of fd to out; false if fd ended early. */
static bool copy_payload(int fd, uint64_t length, FILE *out)
{
    return read_chunks(fd, length, write_chunk, out);
}

static void key_bytes(const char *hex, unsigned char out[16])
{
    for (int i = 0; i < 16; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (unsigned char)v;
    }
}

/* Check an open entry completely; on success *length is its payload length. */
static bool entry_is_valid(struct cache *c, int fd, uint64_t *length)
{
    struct stat st;
    unsigned char trailer[TRAILER_SIZE], key[16];
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < TRAILER_SIZE)
        return false;
    if (!read_exact(fd, trailer, TRAILER_SIZE, st.st_size - TRAILER_SIZE))
        return false;
    key_bytes(c->key_hex, key);
    if (memcmp(trailer, CACHE_MAGIC, 8) != 0 || memcmp(trailer + 8, key, 16) != 0)
        return false;
    *length = get_u64le(trailer + 24);
    if (*length != (uint64_t)st.st_size - TRAILER_SIZE)
        return false;
    XXH64_hash_t sum;
    return hash_payload(fd, *length, &sum) && sum == get_u64le(trailer + 32);
}

static void log_lookup(struct cache *c, const char *what)
{
    char path[4200], line[256];
    if ((size_t)snprintf(path, sizeof path, "%s/log", c->dir) >= sizeof path)
        return;
    int len = snprintf(line, sizeof line, "%s %s %s\n", what, c->tool, c->key_hex);
    if (len <= 0 || (size_t)len >= sizeof line)
        return;
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        return;
    /* One write() with O_APPEND: lines of concurrent tools do not interleave. */
    ssize_t ignored = write(fd, line, (size_t)len);
    (void)ignored;
    close(fd);
}

static void report(struct cache *c, const char *what)
{
    if (c->verbose)
        fprintf(stderr, "%s: cache %s %s\n", c->tool, what, c->key_hex);
    log_lookup(c, what);
}

static void write_cachedir_tag(const char *root)
{
    static const char tag[] =
        "Signature: 8a477f597d28d172789f06886806bc55\n"
        "# This file is a cache directory tag created by dar.\n"
        "# For information about cache directory tags, see https://bford.info/cachedir/\n";
    char path[4200];
    if ((size_t)snprintf(path, sizeof path, "%s/CACHEDIR.TAG", root) >= sizeof path)
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0)
        return;
    ssize_t ignored = write(fd, tag, sizeof tag - 1);
    (void)ignored;
    close(fd);
}

static void cannot_store(struct cache *c, const char *path)
{
    c->writable = false;
    if (!warned_unwritable)
        warn("cache: not storing results: cannot write in '%s':", path);
    warned_unwritable = true;
}

/* Make a rename() in path's directory durable (a crash after it then keeps
 * the entry).  Best effort: a directory that cannot be opened or fsync'ed
 * (EINVAL on some filesystems) only loses that durability, and NFS commits a
 * rename on the server before it returns anyway. */
static void fsync_parent(const char *path)
{
    char dir[4200];
    const char *slash = strrchr(path, '/');
    if (!slash || (size_t)(slash - path) >= sizeof dir)
        return;
    memcpy(dir, path, (size_t)(slash - path));
    dir[slash - path] = '\0';
    int fd = open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    if (fsync(fd) != 0) {
        /* harmless, see above */
    }
    close(fd);
}

/* The miss's temp file is written through this cookie: while the cache's
 * disk takes the bytes they go to the file; the first write it refuses (a
 * full disk, a quota, a file-size limit, an I/O error) diverts the stream:
 * what the file holds so far is copied to the tool's output, then this write
 * and every later one go there too, and the entry is never published.  So a
 * cache that fills while the tool computes costs the cache, not the run. */
static ssize_t temp_write(void *cookie, const char *buf, size_t size)
{
    struct cache *c = cookie;
    size_t want = size;
    if (c->dropping)
        return (ssize_t)want;
    if (!c->diverted) {
        size_t done = 0;
        while (done < size) {
            ssize_t n = write(c->tmp_fd, buf + done, size - done);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            done += (size_t)n;
            c->tmp_length += (uint64_t)n;
        }
        if (done == size)
            return (ssize_t)want;
        int refused = errno;
        c->diverted = true;
        if (!copy_payload(c->tmp_fd, c->tmp_length, c->final_out))
            die(EX_IOERR, "cache: cannot read back '%s':", c->tmp_path);
        io_write(c->final_out, buf + done, size - done);
        /* An output on the same full disk fails here, with its one error
         * line; only an output that takes the bytes earns the warning. */
        if (fflush(c->final_out) != 0)
            io_write_failed();
        errno = refused;
        cannot_store(c, c->tmp_path);
        return (ssize_t)want;
    }
    io_write(c->final_out, buf, size);
    return (ssize_t)want;
}

/* The miss's temp file, beside the final entry so rename() is atomic. */
static FILE *open_temp(struct cache *c)
{
    char dir[sizeof c->dir + 16];
    snprintf(dir, sizeof dir, "%s/v1/%.2s", c->dir, c->key_hex);
    if (make_directories(dir) != 0) {
        cannot_store(c, dir);
        return NULL;
    }
    write_cachedir_tag(c->dir);
    snprintf(c->tmp_path, sizeof c->tmp_path, "%s/.tmp.XXXXXX", dir);
    sigset_t old;
    block_fatal_signals(&old);
    int fd = mkstemp(c->tmp_path);
    if (fd >= 0)
        cleanup_remember(c->tmp_path);
    int saved = errno;
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (fd < 0) {
        errno = saved;
        cannot_store(c, dir);
        return NULL;
    }
    /* mkstemp makes 0600; a shared cache wants the umask's choice. */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0) {
        /* harmless: the entry is still readable by its owner */
    }
    c->tmp_fd = fd;
    c->tmp_length = 0;
    c->diverted = c->dropping = false;
    FILE *f = fopencookie(c, "wb", (cookie_io_functions_t){.write = temp_write});
    if (!f)
        die(EX_SOFTWARE, "out of memory");
    return f;
}

FILE *cache_lookup(struct cache *c, FILE *out)
{
    c->final_out = out;
    if (!c->enabled)
        return out;
    cache_key_hex(c);
    snprintf(c->entry_path, sizeof c->entry_path, "%s/v1/%.2s/%s.mp",
             c->dir, c->key_hex, c->key_hex + 2);

    int fd = open(c->entry_path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        uint64_t length;
        if (entry_is_valid(c, fd, &length)) {
            report(c, "hit");
            c->hit = true;
            futimens(fd, NULL);    /* mtime = last use, for eviction; may fail read-only */
            if (!copy_payload(fd, length, out))
                die(EX_IOERR, "cache: entry '%.2s/%s' changed while being read",
                    c->key_hex, c->key_hex + 2);
            close(fd);
            return NULL;
        }
        warn("cache: discarding corrupt entry '%.2s/%s'", c->key_hex, c->key_hex + 2);
        /* Unlink only what we examined: a concurrent writer may already have
         * renamed a good entry over it. */
        struct stat ours, now;
        if (fstat(fd, &ours) == 0 && stat(c->entry_path, &now) == 0 &&
            ours.st_dev == now.st_dev && ours.st_ino == now.st_ino)
            unlink(c->entry_path);
        close(fd);
    }

    c->tmp = c->writable ? open_temp(c) : NULL;
    report(c, "miss");
    return c->tmp ? c->tmp : out;
}

void cache_commit(struct cache *c)
{
    if (!c->tmp)
        return;
    FILE *f = c->tmp;
    c->tmp = NULL;
    errno = 0;
    if (fflush(f) != 0 || ferror(f))
        die(EX_IOERR, "cache: write error on '%s':", c->tmp_path);
    fclose(f);
    int fd = c->tmp_fd;
    if (c->diverted) {
        /* the output went out as it was made (temp_write): nothing to store */
        close(fd);
        unlink(c->tmp_path);
        cleanup_forget(c->tmp_path);
        return;
    }
    uint64_t length = c->tmp_length;
    XXH64_hash_t sum;
    if (!hash_payload(fd, length, &sum))
        die(EX_IOERR, "cache: cannot read back '%s':", c->tmp_path);

    unsigned char trailer[TRAILER_SIZE];
    memcpy(trailer, CACHE_MAGIC, 8);
    key_bytes(c->key_hex, trailer + 8);
    put_u64le(trailer + 24, length);
    put_u64le(trailer + 32, sum);

    /* A duplicate fd lets us copy our own bytes out after the rename, even if
     * another writer renames its entry over ours meanwhile. */
    int keep = dup(fd);
    if (keep < 0)
        die(EX_SOFTWARE, "cache: dup:");
    bool sealed = write_at(fd, trailer, TRAILER_SIZE, (off_t)length) && fsync(fd) == 0;
    int saved = errno;
    if (close(fd) != 0 && sealed) {
        sealed = false;
        saved = errno;
    }
    if (sealed && rename(c->tmp_path, c->entry_path) != 0) {
        sealed = false;
        saved = errno;
    }
    if (sealed)
        fsync_parent(c->entry_path);
    if (!sealed) {
        /* The payload is complete, only storing it failed (e.g. a full
         * disk): the caller still gets its output. */
        unlink(c->tmp_path);
        errno = saved;
        cannot_store(c, c->tmp_path);
    }
    cleanup_forget(c->tmp_path);
    /* Output after a miss is the entry's payload, byte for byte what a later
     * hit copies. */
    if (!copy_payload(keep, length, c->final_out))
        die(EX_IOERR, "cache: cannot read back '%s':", c->tmp_path);
    close(keep);
}

void cache_end(struct cache *c)
{
    if (c->tmp) {
        /* Never committed: the computation gave up without dying. */
        c->dropping = true;      /* what is still buffered is dropped, not written out */
        fclose(c->tmp);
        close(c->tmp_fd);
        unlink(c->tmp_path);
        cleanup_forget(c->tmp_path);
        c->tmp = NULL;
    }
    for (int i = 0; i < c->n_spools; i++)
        fclose(c->spools[i]);
    c->n_spools = 0;
    if (c->key_state)
        XXH3_freeState(c->key_state);
    c->key_state = NULL;
}

FILE *cache_replay_begin(FILE *out, bool wanted)
{
    if (!wanted)
        return out;
    FILE *f = tmpfile();
    if (!f)
        die(EX_CANTCREAT, "cannot create a temporary file:");
    return f;
}

void cache_replay_end(FILE *replay, FILE *out)
{
    if (replay == out)
        return;
    rewind(replay);
    io_copy(replay, out);
    fclose(replay);
}

void cached_run_begin(struct cached_run *r, const struct cli_spec *spec, bool disabled, bool verbose)
{
    r->args = cli_canonical_args(spec);
    cache_begin(&r->cache, spec->tool, r->args, NULL, disabled, verbose);
}

FILE *cached_run_input(struct cached_run *r, FILE *in, const char *name)
{
    return cache_add_input(&r->cache, in, name);
}

void cached_run_input_bytes(struct cached_run *r, FILE *in, const char *name, struct input_bytes *b)
{
    cache_add_input_bytes(&r->cache, in, name, b);
}

void cached_run_read_bytes(struct cached_run *r, const struct input_bytes *b)
{
    cache_add_read_bytes(&r->cache, b);
}

FILE *cached_run_lookup(struct cached_run *r, FILE *out)
{
    r->out = out;
    r->replay = cache_replay_begin(out, r->log_path != NULL);
    r->dest = cache_lookup(&r->cache, r->replay);
    return r->dest;
}

void cached_run_end(struct cached_run *r)
{
    bool hit = !r->dest;
    if (!hit)
        cache_commit(&r->cache);
    if (r->replay != r->out && (hit || r->log_after_miss)) {
        rewind(r->replay);
        r->write_log(r->replay, hit ? "<cache>" : "<output>", r->log_path);
    }
    cache_end(&r->cache);
    cache_replay_end(r->replay, r->out);
    free(r->args);
    r->args = NULL;
}
