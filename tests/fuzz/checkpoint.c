/* checkpoint: dar-fit's checkpoint file as a rerun finds it beside its
 * cache entry (checkpoint_open, then dar_fit_run resuming from it and
 * keeping checkpoints).  Each input is tried twice: as the file itself, which
 * must be resumed exactly when it is sealed for the key (DARCKPT1, key,
 * length, checksum: dar_fit_checkpoint.h) and ignored otherwise, and as the
 * payload of a correctly sealed file, so that any bytes reach the resume.
 * The options are model-resume's (tests/fuzz/corpus.sh wrote its seed
 * models with them); another configuration or seed is a usage error (64). */
#include "harness.h"
#include "cache.h"
#include "dar_fit.h"
#include "dar_fit_checkpoint.h"
#include <sys/stat.h>
#include <xxhash.h>

static char root[256];
static uint8_t *graphs;
static size_t graphs_size;

struct attempt {
    struct cache *cache;
    bool resumed;
    size_t length;
};

static void run(void *ctx)
{
    struct attempt *a = ctx;
    struct checkpoint ck;
    if (!checkpoint_open(&ck, a->cache, 1))
        abort();
    a->length = ck.length;
    struct input_bytes train, resume;
    a->resumed = checkpoint_take_resume(&ck, &resume);
    input_bytes_of(&train, harness_copy(graphs, graphs_size), graphs_size, "<train>");
    struct dar_fit_options o = {0};
    o.config = (struct dar_config){DAR_DUAL, DAR_PGN, DAR_AGG_MAX, 4, false, false};
    o.lr = 0.01;
    o.threads = 1;             /* no pool: a caught die() would free its threads' memory */
    o.batch = 1;
    o.iters = 2;
    o.eval_every = 1;
    o.adam = true;
    o.seed = 1;
    o.tf_decay = 0.999;
    o.progress = PROGRESS_OFF;
    o.canonical_args = "fuzz";
    o.checkpoint = &ck;
    dar_fit_run(&train, NULL, a->resumed ? &resume : NULL, harness_sink(), &o);
    checkpoint_done(&ck);
    checkpoint_close(&ck);
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Write bytes as the key's checkpoint and run; abort unless it was resumed
 * exactly when `sealed` (the format, checked here on its own terms). */
static void attempt(struct cache *c, const char *key, const uint8_t *bytes, size_t size, bool sealed)
{
    char path[400];
    snprintf(path, sizeof path, "%s/v1/%.2s", root, key);
    mkdir(root, 0700);
    char v1[300];
    snprintf(v1, sizeof v1, "%s/v1", root);
    mkdir(v1, 0700);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/v1/%.2s/%s.ckpt", root, key, key + 2);
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(bytes, 1, size, f) != size) || fclose(f) != 0)
        abort();
    struct attempt a = {c, false, 0};
    harness_expect(harness_run(run, &a), HARNESS_ALSO(64));
    if (a.resumed != (sealed && size > 40) || (a.resumed && a.length != size - 40)) {
        fprintf(harness_report, "checkpoint: a %s file of %zu bytes was %s\n", sealed ? "sealed" : "unsealed", size,
                a.resumed ? "resumed" : "ignored");
        abort();
    }
    unlink(path);
}

static bool is_sealed(const uint8_t *data, size_t size, const char *key)
{
    if (size < 40 || memcmp(data + size - 40, "DARCKPT1", 8) != 0)
        return false;
    for (int i = 0; i < 16; i++) {
        unsigned byte;
        sscanf(key + 2 * i, "%2x", &byte);
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
    graphs = harness_fixture("traced.mp", &graphs_size);
    struct stat st;
    const char *base = stat("/dev/shm", &st) == 0 ? "/dev/shm" : "/tmp";
    snprintf(root, sizeof root, "%s/dar-fuzz-checkpoint.%d", base, (int)getpid());
    setenv("DAR_CACHE", root, 1);
    atexit(remove_cache);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cache c;
    cache_begin(&c, "dar-fit", "fuzz", "fuzz-build", false, false);
    char key[33];
    snprintf(key, sizeof key, "%s", cache_key_hex(&c));
    attempt(&c, key, data, size, is_sealed(data, size, key));

    uint8_t *sealed = malloc(size + 40);
    if (!sealed)
        abort();
    if (size)
        memcpy(sealed, data, size);
    memcpy(sealed + size, "DARCKPT1", 8);
    for (int i = 0; i < 16; i++) {
        unsigned byte;
        sscanf(key + 2 * i, "%2x", &byte);
        sealed[size + 8 + i] = (uint8_t)byte;
    }
    put_u64(sealed + size + 24, size);
    put_u64(sealed + size + 32, XXH3_64bits(data, size));
    attempt(&c, key, sealed, size + 40, true);
    free(sealed);
    cache_end(&c);
    return 0;
}
