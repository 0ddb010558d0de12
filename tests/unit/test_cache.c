/* test_cache.c - the content-hashed cache (common/base/cache.c, formats/cache.md):
 * miss then hit, what changes the key, corrupt and truncated entries,
 * concurrent writers, DAR_CACHE=off, unwritable caches, and a computation
 * that dies half way.  Every test uses a fresh directory as DAR_CACHE. */
#define _GNU_SOURCE
#include "check.h"
#include "cache.h"
#include "die.h"
#include "io.h"
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef DAR_VERSION
#define DAR_VERSION "unknown"   /* the same fallback as cache.c */
#endif

static char scratch[256];    /* the test's private temp directory */
static int dir_counter;

/* ---- small file helpers ---------------------------------------------------- */

static void write_file(const char *path, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(bytes, 1, n, f) != n || fclose(f) != 0)
        die(EX_CANTCREAT, "test: cannot write '%s':", path);
}

/* malloc'ed contents (NUL-terminated for convenience), NULL if missing. */
static char *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0, r;
    char *buf = xmalloc(cap + 1);
    while ((r = fread(buf + len, 1, cap - len, f)) > 0) {
        len += r;
        if (len == cap)
            buf = xrealloc(buf, (cap *= 2) + 1);
    }
    fclose(f);
    buf[len] = '\0';
    if (n)
        *n = len;
    return buf;
}

static bool file_equals(const char *path, const void *bytes, size_t n)
{
    size_t len;
    char *got = read_file(path, &len);
    bool same = got && len == n && memcmp(got, bytes, n) == 0;
    free(got);
    return same;
}

/* A fresh directory name under scratch (created only when make is true). */
static void fresh_dir(char *buf, size_t cap, const char *what, bool make)
{
    snprintf(buf, cap, "%s/%s%d", scratch, what, ++dir_counter);
    if (make && mkdir(buf, 0777) != 0)
        die(EX_CANTCREAT, "test: mkdir '%s':", buf);
}

/* Files under a cache root, by kind. */
static int count_entries, count_temps, count_other;
static int count_visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    const char *base = path + ftw->base;
    if (type != FTW_F)
        return 0;
    if (strncmp(base, ".tmp.", 5) == 0 || strncmp(base, ".spool.", 7) == 0)
        count_temps++;
    else if (strlen(base) == 33 && strcmp(base + 30, ".mp") == 0)
        count_entries++;
    else
        count_other++;
    return 0;
}
static void count_files(const char *root)
{
    count_entries = count_temps = count_other = 0;
    nftw(root, count_visit, 16, FTW_PHYS);
}

static void entry_path_of(char *buf, size_t cap, const char *root, const char *key)
{
    snprintf(buf, cap, "%s/v1/%.2s/%s.mp", root, key, key + 2);
}

/* ---- capturing stderr (warnings, -v lines) ----------------------------------- */

static int saved_stderr = -1;
static char capture_path[300];

static void capture_begin(void)
{
    snprintf(capture_path, sizeof capture_path, "%s/stderr%d", scratch, ++dir_counter);
    fflush(stderr);
    saved_stderr = dup(2);
    int fd = open(capture_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    dup2(fd, 2);
    close(fd);
}

/* The captured text (malloc'ed). */
static char *capture_end(void)
{
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    char *text = read_file(capture_path, NULL);
    return text ? text : xstrdup("");
}

static int count_substrings(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* ---- one run of a pretend tool ------------------------------------------------- */

enum input_mode { INPUT_FILE, INPUT_PIPE };

struct run {
    const char *tool, *args, *build;   /* build NULL: hash of this executable */
    const unsigned char *input;
    size_t n;
    enum input_mode mode;
    bool disabled, verbose;
    unsigned delay_us;                 /* between output chunks (concurrency test) */
    bool die_midway;                   /* compute writes half then die()s */
    /* results */
    bool computed, input_ok;
    char key[33];
};

/* What the pretend tool writes: depends on args and every input byte, and
 * is long enough to span several copy chunks. */
static unsigned char *expected_output(const char *args, const unsigned char *in, size_t n,
                                      size_t *len)
{
    char head[256];
    int h = snprintf(head, sizeof head, "pretend output args=%s n=%zu\n", args, n);
    *len = (size_t)h + 200000;
    unsigned char *out = xmalloc(*len);
    memcpy(out, head, (size_t)h);
    for (size_t i = 0; i < 200000; i++)
        out[h + i] = (unsigned char)((n ? in[i % n] : 0) + i * 7 + (i >> 9));
    return out;
}

static FILE *open_input(struct run *r)
{
    if (r->mode == INPUT_FILE) {
        char path[300];
        snprintf(path, sizeof path, "%s/input%d.%d", scratch, (int)getpid(), ++dir_counter);
        write_file(path, r->input, r->n);
        FILE *f = fopen(path, "rb");
        unlink(path);
        return f;
    }
    /* A pipe fed by a child, so inputs larger than the pipe buffer work. */
    int fds[2];
    if (pipe(fds) != 0)
        die(EX_OSERR, "test: pipe:");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        size_t done = 0;
        while (done < r->n) {
            ssize_t w = write(fds[1], r->input + done, r->n - done);
            if (w <= 0)
                _exit(1);
            done += (size_t)w;
        }
        _exit(0);
    }
    close(fds[1]);
    return fdopen(fds[0], "rb");
}

static void compute(struct run *r, FILE *in, FILE *out)
{
    /* The stream the cache hands back must hold exactly the input. */
    size_t len;
    unsigned char *got = xmalloc(r->n + 1);
    size_t n = fread(got, 1, r->n + 1, in);
    r->input_ok = n == r->n && memcmp(got, r->input, r->n) == 0;
    free(got);
    unsigned char *bytes = expected_output(r->args, r->input, r->n, &len);
    for (size_t done = 0; done < len; done += 20000) {
        size_t chunk = len - done < 20000 ? len - done : 20000;
        if (r->die_midway && done >= len / 2) {
            fflush(out);
            die(EX_DATAERR, "record 3: pretend failure");
        }
        io_write(out, bytes + done, chunk);
        if (r->delay_us)
            usleep(r->delay_us);
    }
    free(bytes);
    r->computed = true;
}

/* The typical-use flow of cache.h, output to out_path. */
static void run(struct run *r, const char *out_path)
{
    struct cache c;
    r->computed = false;
    r->input_ok = false;
    FILE *raw = open_input(r);
    FILE *out = fopen(out_path, "wb");
    if (!raw || !out)
        die(EX_CANTCREAT, "test: cannot open streams:");
    cache_begin(&c, r->tool, r->args, r->build, r->disabled, r->verbose);
    FILE *in = cache_add_input(&c, raw, "<input>");
    snprintf(r->key, sizeof r->key, "%s", cache_key_hex(&c));
    FILE *dest = cache_lookup(&c, out);
    if (dest) {
        compute(r, in, dest);
        cache_commit(&c);
    }
    cache_end(&c);
    io_close_output(out);
    fclose(raw);
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
}

static struct run basic_run(const unsigned char *input, size_t n)
{
    struct run r = { .tool = "pretend", .args = "alpha=1\nbeta=two\n", .build = "build-A",
                     .input = input, .n = n, .mode = INPUT_FILE };
    return r;
}

static unsigned char input[5000];

static void use_cache(const char *root)
{
    setenv("DAR_CACHE", root, 1);
}

/* ---- tests ---------------------------------------------------------------- */

static void test_miss_then_hit(void)
{
    char root[300], out1[300], out2[300], out3[300], entry[400], path[400];
    fresh_dir(root, sizeof root, "root", false);   /* the cache creates it */
    use_cache(root);
    snprintf(out1, sizeof out1, "%s/out1", scratch);
    snprintf(out2, sizeof out2, "%s/out2", scratch);
    snprintf(out3, sizeof out3, "%s/out3", scratch);
    size_t len;
    struct run r = basic_run(input, sizeof input);
    unsigned char *want = expected_output(r.args, input, sizeof input, &len);

    run(&r, out1);
    CHECK(r.computed && r.input_ok, "first run is a miss and computes from the input's bytes");
    CHECK(file_equals(out1, want, len), "miss: output is the computed result (%zu bytes)", len);
    CHECK(strlen(r.key) == 32 && strspn(r.key, "0123456789abcdef") == 32,
          "key is 32 lowercase hex: %s", r.key);
    entry_path_of(entry, sizeof entry, root, r.key);
    struct stat st;
    CHECK(stat(entry, &st) == 0 && (size_t)st.st_size == len + 40,
          "entry stored at v1/%.2s/%s.mp with a 40-byte trailer", r.key, r.key + 2);
    snprintf(path, sizeof path, "%s/CACHEDIR.TAG", root);
    char *tag = read_file(path, NULL);
    CHECK(tag && strncmp(tag, "Signature: 8a477f597d28d172789f06886806bc55", 43) == 0,
          "CACHEDIR.TAG at the root");
    free(tag);

    char first_key[33];
    memcpy(first_key, r.key, 33);
    run(&r, out2);
    CHECK(!r.computed, "second run is a hit: cache_lookup returned NULL, nothing computed");
    CHECK(file_equals(out2, want, len), "hit: output bit-identical to the miss's");
    CHECK(strcmp(r.key, first_key) == 0, "same description, same key");

    /* The same bytes through a pipe: spooled, same key, same hit. */
    r.mode = INPUT_PIPE;
    capture_begin();
    r.verbose = true;
    run(&r, out3);
    char *err = capture_end();
    CHECK(!r.computed && strcmp(r.key, first_key) == 0,
          "same input from a pipe: same key, a hit");
    CHECK(file_equals(out3, want, len), "hit from piped input: identical output");
    char line[128];
    snprintf(line, sizeof line, "pretend: cache hit %s\n", first_key);
    CHECK(strcmp(err, line) == 0, "-v prints 'pretend: cache hit <key>'");
    free(err);

    snprintf(path, sizeof path, "%s/log", root);
    char *log = read_file(path, NULL);
    char want_log[512];
    snprintf(want_log, sizeof want_log, "miss pretend %s\nhit pretend %s\nhit pretend %s\n",
             first_key, first_key, first_key);
    CHECK(log && strcmp(log, want_log) == 0, "log has one 'hit|miss tool key' line per lookup");
    free(log);
    count_files(root);
    CHECK(count_entries == 1 && count_temps == 0, "one entry, no temp files left");
    free(want);
}

/* Verbose miss message and a big (multi-chunk) piped input spooled intact. */
static void test_pipe_spool_and_verbose_miss(void)
{
    char root[300], out[300], out_file[300];
    fresh_dir(root, sizeof root, "root", false);
    use_cache(root);
    snprintf(out, sizeof out, "%s/spool-out", scratch);
    snprintf(out_file, sizeof out_file, "%s/spool-out2", scratch);
    size_t big_n = 300000, len;
    unsigned char *big = xmalloc(big_n);
    for (size_t i = 0; i < big_n; i++)
        big[i] = (unsigned char)(i * 2654435761u >> 13);
    struct run r = basic_run(big, big_n);
    r.mode = INPUT_PIPE;
    r.verbose = true;
    capture_begin();
    run(&r, out);
    char *err = capture_end();
    char line[128];
    snprintf(line, sizeof line, "pretend: cache miss %s\n", r.key);
    CHECK(r.computed && r.input_ok, "a 300 kB pipe is spooled and read back intact");
    CHECK(strcmp(err, line) == 0, "-v prints 'pretend: cache miss <key>'");
    free(err);
    unsigned char *want = expected_output(r.args, big, big_n, &len);
    CHECK(file_equals(out, want, len), "miss from a pipe: output correct");
    r.mode = INPUT_FILE;
    r.verbose = false;
    run(&r, out_file);
    CHECK(!r.computed && file_equals(out_file, want, len),
          "the same bytes from a file hit the piped run's entry");
    count_files(root);
    CHECK(count_temps == 0, "spools leave no files in the cache");
    free(want);
    free(big);
}

/* A seekable input not at offset 0: hashed from where it is, put back there. */
static void test_seekable_offset(void)
{
    char root[300], path[300];
    fresh_dir(root, sizeof root, "root", false);
    use_cache(root);
    snprintf(path, sizeof path, "%s/offset-input", scratch);
    unsigned char bytes[4 + sizeof input];
    memcpy(bytes, "JUNK", 4);
    memcpy(bytes + 4, input, sizeof input);
    write_file(path, bytes, sizeof bytes);
    FILE *f = fopen(path, "rb");
    fseeko(f, 4, SEEK_SET);
    struct cache c, d;
    cache_begin(&c, "pretend", "x", "b", false, false);
    FILE *in = cache_add_input(&c, f, path);
    CHECK(in == f && ftello(in) == 4, "a regular file is returned itself, back at its offset");
    char key_c[33];
    snprintf(key_c, sizeof key_c, "%s", cache_key_hex(&c));
    fclose(f);

    f = fmemopen(input, sizeof input, "rb");   /* not a file descriptor: spooled */
    cache_begin(&d, "pretend", "x", "b", false, false);
    FILE *spool = cache_add_input(&d, f, "<memory>");
    unsigned char back[sizeof input];
    CHECK(spool != f && fread(back, 1, sizeof back, spool) == sizeof back &&
          memcmp(back, input, sizeof back) == 0 && fgetc(spool) == EOF,
          "a stream without a file is spooled and read back identical");
    CHECK(strcmp(key_c, cache_key_hex(&d)) == 0, "the key depends on the bytes only");
    cache_end(&c);
    cache_end(&d);
    fclose(f);
}

static void field(XXH3_state_t *st, const void *bytes, size_t n)
{
    unsigned char p[8];
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)((uint64_t)n >> (8 * i));
    XXH3_128bits_update(st, p, 8);
    XXH3_128bits_update(st, bytes, n);
}

/* The key recipe of formats/cache.md, computed independently. */
static void reference_key(char out[33], const char *tool, const char *args, const char *build,
                          const void *in, size_t n)
{
    XXH3_state_t *st = XXH3_createState();
    XXH3_128bits_reset(st);
    field(st, "dar-cache", 9);
    field(st, "1", 1);
    field(st, tool, strlen(tool));
    field(st, DAR_VERSION, strlen(DAR_VERSION));
    field(st, build, strlen(build));
    field(st, args, strlen(args));
    field(st, "input", 5);
    unsigned char material[24];
    for (int i = 0; i < 8; i++)
        material[i] = (unsigned char)((uint64_t)n >> (8 * i));
    XXH128_canonical_t canon;
    XXH128_canonicalFromHash(&canon, XXH3_128bits(in, n));
    memcpy(material + 8, canon.digest, 16);
    field(st, material, 24);
    XXH128_canonicalFromHash(&canon, XXH3_128bits_digest(st));
    XXH3_freeState(st);
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", canon.digest[i]);
}

static void key_of(char out[33], const char *tool, const char *args, const char *build,
                   const char *extra_name, const char *extra, const char *in1, const char *in2)
{
    struct cache c;
    cache_begin(&c, tool, args, build, false, false);
    if (extra_name)
        cache_add_key(&c, extra_name, extra, strlen(extra));
    const char *ins[2] = { in1, in2 };
    FILE *files[2] = { NULL, NULL };
    for (int i = 0; i < 2; i++)
        if (ins[i]) {
            /* fmemopen refuses size 0; /dev/null is an empty non-file */
            files[i] = *ins[i] ? fmemopen((void *)ins[i], strlen(ins[i]), "rb")
                               : fopen("/dev/null", "rb");
            cache_add_input(&c, files[i], "<memory>");
        }
    snprintf(out, 33, "%s", cache_key_hex(&c));
    cache_end(&c);
    for (int i = 0; i < 2; i++)
        if (files[i])
            fclose(files[i]);
}

static void test_key_recipe(void)
{
    char root[300], a[33], b[33], ref[33];
    fresh_dir(root, sizeof root, "root", false);
    use_cache(root);
    key_of(a, "pretend", "n=3\n", "build-A", NULL, NULL, "hello", NULL);
    reference_key(ref, "pretend", "n=3\n", "build-A", "hello", 5);
    CHECK(strcmp(a, ref) == 0, "key matches the recipe in formats/cache.md (%s)", a);

    /* build id NULL: the XXH3-128 hex of /proc/self/exe, as xxh128sum prints it */
    size_t exe_n;
    char *exe = read_file("/proc/self/exe", &exe_n);
    XXH128_canonical_t canon;
    XXH128_canonicalFromHash(&canon, XXH3_128bits(exe, exe_n));
    char exe_hex[33];
    for (int i = 0; i < 16; i++)
        snprintf(exe_hex + 2 * i, 3, "%02x", canon.digest[i]);
    free(exe);
    key_of(a, "pretend", "n=3\n", NULL, NULL, NULL, "hello", NULL);
    key_of(b, "pretend", "n=3\n", NULL, NULL, NULL, "hello", NULL);
    reference_key(ref, "pretend", "n=3\n", exe_hex, "hello", 5);
    CHECK(strcmp(a, ref) == 0 && strcmp(a, b) == 0,
          "build id NULL is the hash of this executable, stable across calls");

    key_of(a, "pretend", "ab", "B", "seed", "c", NULL, NULL);
    key_of(b, "pretend", "a", "B", "seed", "bc", NULL, NULL);
    CHECK(strcmp(a, b) != 0, "length prefixes: args 'ab'+key 'c' != args 'a'+key 'bc'");
    key_of(a, "pretend", "", "B", NULL, NULL, "ab", "c");
    key_of(b, "pretend", "", "B", NULL, NULL, "a", "bc");
    CHECK(strcmp(a, b) != 0, "length prefixes: inputs 'ab','c' != inputs 'a','bc'");
    key_of(a, "pretend", "", "B", NULL, NULL, "", NULL);
    key_of(b, "pretend", "", "B", NULL, NULL, NULL, NULL);
    CHECK(strcmp(a, b) != 0, "an empty input is not the same as no input");
    key_of(a, "pretend", "x", "B", NULL, NULL, NULL, NULL);
    key_of(b, "other", "x", "B", NULL, NULL, NULL, NULL);
    CHECK(strcmp(a, b) != 0, "the tool name is part of the key");
    key_of(a, "pretend", "x", "B", "seed", "1", NULL, NULL);
    key_of(b, "pretend", "x", "B", "seed", "2", NULL, NULL);
    CHECK(strcmp(a, b) != 0, "cache_add_key material is part of the key");
}

/* Each change is a different key, so a miss that computes. */
static void test_changes_miss(void)
{
    char root[300], out[300];
    fresh_dir(root, sizeof root, "root", false);
    use_cache(root);
    snprintf(out, sizeof out, "%s/changes-out", scratch);
    struct run base = basic_run(input, sizeof input);
    run(&base, out);
    struct run again = base;
    run(&again, out);
    CHECK(base.computed && !again.computed, "baseline: miss then hit");

    struct run r = base;
    r.args = "alpha=1\nbeta=three\n";
    run(&r, out);
    size_t len;
    unsigned char *want = expected_output(r.args, input, sizeof input, &len);
    CHECK(r.computed && strcmp(r.key, base.key) != 0 && file_equals(out, want, len),
          "changed argument string: new key, miss, right output");
    free(want);

    unsigned char changed[sizeof input];
    memcpy(changed, input, sizeof input);
    changed[4321] ^= 1;
    r = base;
    r.input = changed;
    run(&r, out);
    CHECK(r.computed && strcmp(r.key, base.key) != 0, "one changed input bit: new key, miss");

    r = base;
    r.build = "build-B";
    run(&r, out);
    CHECK(r.computed && strcmp(r.key, base.key) != 0, "changed build id: new key, miss");

    r = base;
    run(&r, out);
    CHECK(!r.computed, "the original description still hits");
}

/* Damage an entry in place, then check it is discarded, recomputed, replaced. */
static void check_damage(const char *what, void (*damage)(const char *path, size_t len))
{
    char root[300], out[300], entry[400];
    fresh_dir(root, sizeof root, "root", false);
    use_cache(root);
    snprintf(out, sizeof out, "%s/damage-out", scratch);
    size_t len;
    struct run r = basic_run(input, sizeof input);
    unsigned char *want = expected_output(r.args, input, sizeof input, &len);
    run(&r, out);
    entry_path_of(entry, sizeof entry, root, r.key);
    damage(entry, len);

    capture_begin();
    run(&r, out);
    char *err = capture_end();
    char msg[128];
    snprintf(msg, sizeof msg, "cache: discarding corrupt entry '%.2s/%s'\n", r.key, r.key + 2);
    CHECK(r.computed, "%s: treated as a miss", what);
    CHECK(strstr(err, msg) != NULL, "%s: warns \"%.*s\"", what, (int)strlen(msg) - 1, msg);
    CHECK(file_equals(out, want, len), "%s: output is the recomputed result, no damaged bytes",
          what);
    struct stat st;
    CHECK(stat(entry, &st) == 0 && (size_t)st.st_size == len + 40,
          "%s: replaced by a complete entry", what);
    free(err);
    run(&r, out);
    CHECK(!r.computed && file_equals(out, want, len), "%s: the replacement hits", what);
    count_files(root);
    CHECK(count_entries == 1 && count_temps == 0, "%s: no temp files left", what);
    free(want);
}

static void flip_byte_at(const char *path, off_t where)
{
    int fd = open(path, O_RDWR);
    unsigned char b;
    if (fd < 0 || pread(fd, &b, 1, where) != 1)
        die(EX_IOERR, "test: cannot read '%s':", path);
    b ^= 0x20;
    if (pwrite(fd, &b, 1, where) != 1)
        die(EX_IOERR, "test: cannot write '%s':", path);
    close(fd);
}
static void damage_payload(const char *path, size_t len) { flip_byte_at(path, 100000); }
static void damage_first(const char *path, size_t len) { flip_byte_at(path, 0); }
static void damage_checksum(const char *path, size_t len) { flip_byte_at(path, len + 39); }
static void damage_magic(const char *path, size_t len) { flip_byte_at(path, len + 1); }
static void damage_truncate(const char *path, size_t len)
{
    if (truncate(path, (off_t)len / 2) != 0)
        die(EX_IOERR, "test: truncate:");
}
static void damage_trailer_cut(const char *path, size_t len)
{
    if (truncate(path, (off_t)len + 39) != 0)
        die(EX_IOERR, "test: truncate:");
}
static void damage_empty(const char *path, size_t len)
{
    if (truncate(path, 0) != 0)
        die(EX_IOERR, "test: truncate:");
}
/* An entry of another key under this name: complete and self-consistent. */
static void damage_wrong_key(const char *path, size_t len)
{
    size_t n;
    char *bytes = read_file(path, &n);
    bytes[n - 40 + 8] ^= 1;
    write_file(path, bytes, n);
    free(bytes);
}

static void test_corruption(void)
{
    check_damage("a flipped payload byte", damage_payload);
    check_damage("a flipped first byte", damage_first);
    check_damage("a flipped checksum byte", damage_checksum);
    check_damage("a flipped magic byte", damage_magic);
    check_damage("an entry truncated to half", damage_truncate);
    check_damage("an entry missing its last byte", damage_trailer_cut);
    check_damage("an empty entry", damage_empty);
    check_damage("an entry of another key", damage_wrong_key);
}

/* 8 processes compute the same thing at the same time. */
static void test_concurrent_writers(void)
{
    enum { WRITERS = 8 };
    char root[300], out[WRITERS][300];
    fresh_dir(root, sizeof root, "root", false);
    use_cache(root);
    int gate[2];
    if (pipe(gate) != 0)
        die(EX_OSERR, "test: pipe:");
    pid_t pids[WRITERS];
    for (int i = 0; i < WRITERS; i++) {
        snprintf(out[i], sizeof out[i], "%s/concurrent-out%d", scratch, i);
        fflush(NULL);
        pids[i] = fork();
        if (pids[i] == 0) {
            close(gate[1]);
            char c;
            if (read(gate[0], &c, 1) != 0)   /* wait for the gate to open (EOF) */
                _exit(3);
            struct run r = basic_run(input, sizeof input);
            r.delay_us = 1000;
            run(&r, out[i]);
            exit(r.computed ? (r.input_ok ? 0 : 2) : 1);   /* 0 computed, 1 hit */
        }
    }
    close(gate[0]);
    close(gate[1]);   /* all start together */
    int ok = 0, computed = 0;
    for (int i = 0; i < WRITERS; i++) {
        int status;
        waitpid(pids[i], &status, 0);
        if (WIFEXITED(status) && WEXITSTATUS(status) <= 1) {
            ok++;
            computed += WEXITSTATUS(status) == 0;
        }
    }
    CHECK(ok == WRITERS, "8 concurrent runs all succeed (%d computed, %d hit)",
          computed, WRITERS - computed);
    size_t len;
    struct run r = basic_run(input, sizeof input);
    unsigned char *want = expected_output(r.args, input, sizeof input, &len);
    int same = 0;
    for (int i = 0; i < WRITERS; i++)
        same += file_equals(out[i], want, len);
    CHECK(same == WRITERS, "8 identical, correct outputs (%d)", same);
    count_files(root);
    CHECK(count_entries == 1 && count_temps == 0,
          "exactly one entry and no temp files (%d entries, %d temps)",
          count_entries, count_temps);
    run(&r, out[0]);
    CHECK(!r.computed && file_equals(out[0], want, len), "the surviving entry is valid: a hit");
    char path[400];
    snprintf(path, sizeof path, "%s/log", root);
    char *log = read_file(path, NULL);
    CHECK(log && count_substrings(log, "\n") == WRITERS + 1 &&
          count_substrings(log, "miss pretend ") + count_substrings(log, "hit pretend ") ==
              WRITERS + 1,
          "the log has one whole line per lookup");
    free(log);
    free(want);
}

static void test_off(void)
{
    char xdg[300], out[300];
    fresh_dir(xdg, sizeof xdg, "xdg", true);
    snprintf(out, sizeof out, "%s/off-out", scratch);
    setenv("DAR_CACHE", "off", 1);
    setenv("XDG_CACHE_HOME", xdg, 1);

    /* A pipe is not read at all when the cache is off. */
    struct run r = basic_run(input, sizeof input);
    r.mode = INPUT_PIPE;
    FILE *raw = open_input(&r);
    FILE *o = fopen(out, "wb");
    struct cache c;
    cache_begin(&c, "pretend", r.args, NULL, false, true);
    FILE *in = cache_add_input(&c, raw, "<stdin>");
    CHECK(in == raw, "off: cache_add_input returns the input itself");
    CHECK(strcmp(cache_key_hex(&c), "") == 0, "off: no key");
    capture_begin();
    FILE *dest = cache_lookup(&c, o);
    CHECK(dest == o, "off: cache_lookup returns out itself");
    compute(&r, in, dest);
    cache_commit(&c);
    cache_end(&c);
    char *err = capture_end();
    CHECK(r.input_ok, "off: the input was left unread for the computation");
    CHECK(err[0] == '\0', "off: nothing on stderr even with -v");
    free(err);
    io_close_output(o);
    fclose(raw);
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
    size_t len;
    unsigned char *want = expected_output(r.args, input, sizeof input, &len);
    CHECK(file_equals(out, want, len), "off: output correct");
    char path[400];
    snprintf(path, sizeof path, "%s/dar", xdg);
    CHECK(access(path, F_OK) != 0, "off: no cache directory created");
    unsetenv("XDG_CACHE_HOME");

    /* --no-cache with a real cache directory: nothing read or written there. */
    char root[300];
    fresh_dir(root, sizeof root, "root", false);
    use_cache(root);
    r = basic_run(input, sizeof input);
    run(&r, out);       /* warms it */
    r.disabled = true;
    run(&r, out);
    CHECK(r.computed && file_equals(out, want, len), "--no-cache: computes even with an entry");
    snprintf(path, sizeof path, "%s/log", root);
    char *log = read_file(path, NULL);
    CHECK(log && count_substrings(log, "\n") == 1, "--no-cache: nothing logged");
    free(log);
    free(want);
}

static void test_root_resolution(void)
{
    char buf[4096];
    char *keep_home = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL;
    setenv("DAR_CACHE", "/some/where", 1);
    CHECK(cache_root(buf, sizeof buf) && strcmp(buf, "/some/where") == 0, "root: $DAR_CACHE");
    setenv("DAR_CACHE", "off", 1);
    CHECK(!cache_root(buf, sizeof buf), "root: DAR_CACHE=off disables");
    unsetenv("DAR_CACHE");
    setenv("HOME", "/home/u", 1);
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    CHECK(cache_root(buf, sizeof buf) && strcmp(buf, "/xdg/dar") == 0, "root: $XDG_CACHE_HOME/dar");
    setenv("XDG_CACHE_HOME", "", 1);
    CHECK(cache_root(buf, sizeof buf) && strcmp(buf, "/home/u/.cache/dar") == 0,
          "root: empty XDG_CACHE_HOME is ignored");
    setenv("XDG_CACHE_HOME", "rel/dir", 1);
    CHECK(cache_root(buf, sizeof buf) && strcmp(buf, "/home/u/.cache/dar") == 0,
          "root: relative XDG_CACHE_HOME is ignored");
    unsetenv("XDG_CACHE_HOME");
    CHECK(cache_root(buf, sizeof buf) && strcmp(buf, "/home/u/.cache/dar") == 0,
          "root: $HOME/.cache/dar");
    unsetenv("HOME");
    CHECK(!cache_root(buf, sizeof buf), "root: no HOME, no cache");
    if (keep_home)
        setenv("HOME", keep_home, 1);
    free(keep_home);
}

/* Runs in a child (the unwritable warning is once per process): a hit of
 * key A, then two misses of key B that cannot be stored.  Writes "AB1B2"
 * computed flags to result. */
static void unwritable_child(const char *root, const char *result, const char *outs)
{
    use_cache(root);
    struct run a = basic_run(input, sizeof input), b = a;
    b.args = "this=misses\n";
    char out[400];
    snprintf(out, sizeof out, "%s-a", outs);
    run(&a, out);
    snprintf(out, sizeof out, "%s-b1", outs);
    run(&b, out);
    bool b1 = b.computed;
    snprintf(out, sizeof out, "%s-b2", outs);
    run(&b, out);
    char flags[8];
    snprintf(flags, sizeof flags, "%d%d%d", a.computed, b1, b.computed);
    write_file(result, flags, 3);
    exit(0);
}

/* Fork the child above with stderr captured; returns its exit status. */
static int run_unwritable(const char *root, char *flags, char **err, const char *outs)
{
    char result[300];
    snprintf(result, sizeof result, "%s/result%d", scratch, ++dir_counter);
    capture_begin();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        unwritable_child(root, result, outs);
    int status;
    waitpid(pid, &status, 0);
    *err = capture_end();
    char *text = read_file(result, NULL);
    snprintf(flags, 4, "%s", text ? text : "???");
    free(text);
    return status;
}

static void check_unwritable(const char *what, const char *root, bool entry_a_exists)
{
    char flags[4], outs[300], out[400], *err;
    snprintf(outs, sizeof outs, "%s/unwritable-out%d", scratch, ++dir_counter);
    int status = run_unwritable(root, flags, &err, outs);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: exit 0", what);
    CHECK(strcmp(flags, entry_a_exists ? "011" : "111") == 0,
          "%s: %smisses computed straight to the output (%s)", what,
          entry_a_exists ? "hit served, " : "", flags);
    CHECK(count_substrings(err, "warning: cache: not storing results: cannot write in '") == 1 &&
              count_substrings(err, "\n") == 1,
          "%s: exactly one warning", what);
    size_t len;
    unsigned char *want = expected_output("alpha=1\nbeta=two\n", input, sizeof input, &len);
    snprintf(out, sizeof out, "%s-a", outs);
    bool ok = file_equals(out, want, len);
    free(want);
    want = expected_output("this=misses\n", input, sizeof input, &len);
    snprintf(out, sizeof out, "%s-b1", outs);
    ok = ok && file_equals(out, want, len);
    snprintf(out, sizeof out, "%s-b2", outs);
    ok = ok && file_equals(out, want, len);
    CHECK(ok, "%s: every output correct", what);
    free(want);
    free(err);
}

static void test_unwritable(void)
{
    /* A root that cannot even be created: nothing to hit, everything computes. */
    check_unwritable("cache root under /dev/null", "/dev/null/dar-cache", false);

    /* A warm cache whose directories cannot be written.  Root ignores
     * permissions, so there the entry's directory of the missing key is made
     * a regular file instead, which no one can create files in. */
    char root[300], out[300];
    fresh_dir(root, sizeof root, "root", false);
    use_cache(root);
    snprintf(out, sizeof out, "%s/warm-out", scratch);
    struct run a = basic_run(input, sizeof input), b = a;
    run(&a, out);
    b.args = "this=misses\n";
    char key_b[33], dir_b[400], dir_a[400], v1[400];
    {
        struct cache c;
        FILE *f = fmemopen(input, sizeof input, "rb");
        cache_begin(&c, "pretend", b.args, b.build, false, false);
        cache_add_input(&c, f, "<memory>");
        snprintf(key_b, sizeof key_b, "%s", cache_key_hex(&c));
        cache_end(&c);
        fclose(f);
    }
    snprintf(dir_a, sizeof dir_a, "%s/v1/%.2s", root, a.key);
    snprintf(dir_b, sizeof dir_b, "%s/v1/%.2s", root, key_b);
    snprintf(v1, sizeof v1, "%s/v1", root);
    if (geteuid() != 0) {
        chmod(dir_a, 0555);
        chmod(v1, 0555);
        chmod(root, 0555);
        check_unwritable("read-only cache (chmod 0555)", root, true);
        chmod(root, 0755);
        chmod(v1, 0755);
        chmod(dir_a, 0755);
    } else if (strcmp(dir_a, dir_b) != 0) {
        write_file(dir_b, "not a directory", 15);
        check_unwritable("unwritable entry directory (running as root)", root, true);
        unlink(dir_b);
    } else {
        CHECK(0, "test setup: keys share a directory, pick other arguments");
    }
    count_files(root);
    CHECK(count_entries == 1 && count_temps == 0, "unwritable: nothing added to the cache");
}

/* A computation that dies half way, or is killed by SIGTERM, leaves nothing. */
static void test_interrupted(void)
{
    char root[300], out[300];
    fresh_dir(root, sizeof root, "root", false);
    use_cache(root);
    snprintf(out, sizeof out, "%s/die-out", scratch);

    capture_begin();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        struct run r = basic_run(input, sizeof input);
        r.die_midway = true;
        run(&r, out);
        _exit(0);   /* not reached */
    }
    int status;
    waitpid(pid, &status, 0);
    char *err = capture_end();
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == EX_DATAERR,
          "die() mid-compute exits 65");
    CHECK(strstr(err, "record 3: pretend failure") != NULL, "die() message printed");
    free(err);
    count_files(root);
    CHECK(count_entries == 0 && count_temps == 0,
          "die() mid-compute leaves no temp file and no entry (%d, %d)",
          count_entries, count_temps);

    /* SIGTERM while computing, with the tool's signal handlers installed. */
    int ready[2];
    if (pipe(ready) != 0)
        die(EX_OSERR, "test: pipe:");
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        close(ready[0]);
        cleanup_install_signals();
        struct cache c;
        FILE *raw = fmemopen(input, sizeof input, "rb");
        FILE *o = fopen(out, "wb");
        cache_begin(&c, "pretend", "sigterm", "b", false, false);
        cache_add_input(&c, raw, "<memory>");
        FILE *dest = cache_lookup(&c, o);
        io_write(dest, "half an answer", 14);
        fflush(dest);
        if (write(ready[1], "x", 1) != 1)
            _exit(2);
        for (;;)
            pause();
    }
    close(ready[1]);
    char x;
    bool started = read(ready[0], &x, 1) == 1;
    count_files(root);
    int temps_during = count_temps;
    kill(pid, SIGTERM);
    waitpid(pid, &status, 0);
    close(ready[0]);
    CHECK(started && temps_during == 1, "while computing, one temp file exists");
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "SIGTERM ends the computation");
    count_files(root);
    CHECK(count_entries == 0 && count_temps == 0, "SIGTERM leaves no temp file and no entry");

    /* A computation that gives up without dying: cache_end removes the temp. */
    struct cache c;
    FILE *raw = fmemopen(input, sizeof input, "rb");
    FILE *o = fopen(out, "wb");
    cache_begin(&c, "pretend", "abandoned", "b", false, false);
    cache_add_input(&c, raw, "<memory>");
    FILE *dest = cache_lookup(&c, o);
    io_write(dest, "partial", 7);
    cache_end(&c);
    fclose(o);
    fclose(raw);
    count_files(root);
    CHECK(count_entries == 0 && count_temps == 0, "an uncommitted miss leaves nothing");
}

static int remove_visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    if (type == FTW_DP)
        chmod(path, 0755), rmdir(path);
    else
        unlink(path);
    return 0;
}

int main(void)
{
    check_file_name = "cache";
    dar_tool = "test_cache";
    const char *tmp = getenv("TMPDIR");
    snprintf(scratch, sizeof scratch, "%s/dar-test-cache.XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
    if (!mkdtemp(scratch))
        die(EX_CANTCREAT, "test: mkdtemp:");
    for (size_t i = 0; i < sizeof input; i++)
        input[i] = (unsigned char)(i * 131 + (i >> 8));

    test_root_resolution();
    test_key_recipe();
    test_miss_then_hit();
    test_pipe_spool_and_verbose_miss();
    test_seekable_offset();
    test_changes_miss();
    test_corruption();
    test_concurrent_writers();
    test_off();
    test_unwritable();
    test_interrupted();

    nftw(scratch, remove_visit, 16, FTW_DEPTH | FTW_PHYS);
    return check_done();
}
