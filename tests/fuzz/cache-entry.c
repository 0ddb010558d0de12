/* cache-entry: a cache entry read back from disk (cache_lookup, as every
 * caching tool calls it).  The input is the file found under the key's
 * name.  A hit must copy exactly the payload of an entry that is valid by
 * formats/cache.md (size, magic, key, length, checksum); anything else
 * must be a miss that computes, stores and then hits its own entry. */
#include "harness.h"
#include "cache.h"
#include <sys/stat.h>
#include <xxhash.h>

static char root[256];
static char output[1 << 16];

struct lookup {
    FILE *out;
    bool hit;
    bool store;              /* on a miss, compute "computed\n" and commit */
};

static void run(void *ctx)
{
    struct lookup *l = ctx;
    struct cache c;
    cache_begin(&c, "fuzz", "n=1\n", "fuzz-build", false, false);
    FILE *dest = cache_lookup(&c, l->out);
    l->hit = !dest;
    if (dest && l->store) {
        fputs("computed\n", dest);
        cache_commit(&c);
    }
    cache_end(&c);
}

/* Output of one lookup, into output[]; its length. */
static size_t lookup(bool store, bool *hit)
{
    FILE *out = fmemopen(output, sizeof output, "wb");
    if (!out || setvbuf(out, NULL, _IONBF, 0) != 0)
        abort();
    struct lookup l = {out, false, store};
    harness_expect(harness_run(run, &l), 0);
    long length = ftell(out);
    fclose(out);
    *hit = l.hit;
    return (size_t)length;
}

/* Is data a valid entry for key (formats/cache.md), by the format alone? */
static bool valid_entry(const uint8_t *data, size_t size, const char *key_hex)
{
    if (size < 40 || memcmp(data + size - 40, "DARCACH1", 8) != 0)
        return false;
    for (int i = 0; i < 16; i++) {
        unsigned byte;
        sscanf(key_hex + 2 * i, "%2x", &byte);
        if (data[size - 32 + i] != byte)
            return false;
    }
    uint64_t length = 0, sum = 0;
    for (int i = 7; i >= 0; i--) {
        length = length << 8 | data[size - 16 + i];
        sum = sum << 8 | data[size - 8 + i];
    }
    return length == size - 40 && sum == XXH3_64bits(data, size - 40);
}

static void remove_cache(void)
{
    char command[400];
    snprintf(command, sizeof command, "rm -rf '%s'", root);
    if (system(command) != 0) {
        /* a directory left in /dev/shm or /tmp is harmless */
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    harness_quiet();
    struct stat st;
    const char *base = stat("/dev/shm", &st) == 0 ? "/dev/shm" : "/tmp";
    snprintf(root, sizeof root, "%s/dar-fuzz-cache.%d", base, (int)getpid());
    setenv("DAR_CACHE", root, 1);
    atexit(remove_cache);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cache c;
    cache_begin(&c, "fuzz", "n=1\n", "fuzz-build", false, false);
    char key[33], dir[400], path[400];
    snprintf(key, sizeof key, "%s", cache_key_hex(&c));
    cache_end(&c);
    snprintf(dir, sizeof dir, "%s/v1/%.2s", root, key);
    snprintf(path, sizeof path, "%s/%s.mp", dir, key + 2);
    char log[300];
    snprintf(log, sizeof log, "%s/log", root);
    unlink(log);
    mkdir(root, 0700);
    snprintf(log, sizeof log, "%s/v1", root);
    mkdir(log, 0700);
    mkdir(dir, 0700);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();

    bool hit, valid = valid_entry(data, size, key);
    size_t length = lookup(true, &hit);
    if (hit != valid) {
        fprintf(harness_report, "cache: a %s entry was a %s\n", valid ? "valid" : "corrupt", hit ? "hit" : "miss");
        abort();
    }
    if (hit ? length != size - 40 || memcmp(output, data, length) : length != 9 || memcmp(output, "computed\n", 9)) {
        fprintf(harness_report, "cache: the %s copied %zu bytes that are not the %s\n", hit ? "hit" : "miss",
                length, hit ? "payload" : "computed output");
        abort();
    }
    if (!hit) {
        length = lookup(false, &hit);
        if (!hit || length != 9 || memcmp(output, "computed\n", 9)) {
            fprintf(harness_report, "cache: the entry just stored is not served\n");
            abort();
        }
        /* tests/fuzz/corpus.sh keeps it as the valid seed */
        const char *keep = getenv("FUZZ_KEEP_ENTRY");
        if (keep) {
            char command[1200];
            snprintf(command, sizeof command, "cp '%s' '%s'", path, keep);
            if (system(command) != 0)
                abort();
        }
    }
    unlink(path);
    return 0;
}
