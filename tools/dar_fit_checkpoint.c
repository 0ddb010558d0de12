/* dar_fit_checkpoint.c - dar-fit's checkpoint beside its cache entry
 * (dar_fit_checkpoint.h).  Sealed like a cache entry so that a file cut
 * short by kill -9 or a full disk, or one left by another key, is never
 * resumed: only the bytes a completed checkpoint_save wrote for this key. */
#include "dar_fit_checkpoint.h"
#include "die.h"
#include "io.h"
#include "stream.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

static const char MAGIC[8] = {'D', 'A', 'R', 'C', 'K', 'P', 'T', '1'};
enum { TRAILER = 8 + 16 + 8 + 8 };

static void key_bytes(const char *hex, unsigned char out[16])
{
    for (int i = 0; i < 16; i++) {
        unsigned v = 0;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (unsigned char)v;
    }
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

int64_t checkpoint_verify(const unsigned char *bytes, size_t len, const char *key_hex)
{
    if (len < TRAILER)
        return -1;
    const unsigned char *t = bytes + len - TRAILER;
    unsigned char key[16];
    key_bytes(key_hex, key);
    uint64_t length = get_u64(t + 24);
    if (memcmp(t, MAGIC, 8) != 0 || memcmp(t + 8, key, 16) != 0 || length != len - TRAILER)
        return -1;
    if (XXH3_64bits(bytes, (size_t)length) != get_u64(t + 32))
        return -1;
    return (int64_t)length;
}

bool checkpoint_open(struct checkpoint *ck, struct cache *c, int64_t every)
{
    memset(ck, 0, sizeof *ck);
    if (!c->enabled || !c->writable || every <= 0)
        return false;
    ck->every = every;
    snprintf(ck->key_hex, sizeof ck->key_hex, "%s", cache_key_hex(c));
    snprintf(ck->path, sizeof ck->path, "%s/v1/%.2s/%s.ckpt", c->dir, ck->key_hex, ck->key_hex + 2);
    FILE *f = fopen(ck->path, "rb");
    if (!f)
        return true;
    size_t len;
    char *bytes = io_read_all(f, ck->path, &len);
    fclose(f);
    int64_t length = checkpoint_verify((const unsigned char *)bytes, len, ck->key_hex);
    if (length <= 0) {
        warn("checkpoint: ignoring '%.2s/%s.ckpt': not a complete checkpoint of this run", ck->key_hex, ck->key_hex + 2);
        free(bytes);
        return true;
    }
    ck->payload = bytes;
    ck->length = (size_t)length;
    return true;
}

bool checkpoint_take_resume(struct checkpoint *ck, struct input_bytes *b)
{
    if (!ck->payload)
        return false;
    input_bytes_of(b, ck->payload, ck->length, ck->path);
    ck->payload = NULL;
    return true;
}

bool checkpoint_due(const struct checkpoint *ck, int64_t done, int64_t iters)
{
    return ck && ck->every > 0 && !ck->failed && done % ck->every == 0 && done < iters;
}

static void save_failed(struct checkpoint *ck, const char *what)
{
    warn("checkpoint: not keeping checkpoints: %s '%s': %s", what, ck->tmp_path, strerror(errno));
    ck->failed = true;
    if (ck->tmp_path[0]) {
        unlink(ck->tmp_path);
        cleanup_forget(ck->tmp_path);
    }
}

void checkpoint_save(struct checkpoint *ck, const void *record, size_t length)
{
    const char *bytes = record;
    unsigned char trailer[TRAILER];
    memcpy(trailer, MAGIC, 8);
    key_bytes(ck->key_hex, trailer + 8);
    put_u64(trailer + 24, length);
    put_u64(trailer + 32, XXH3_64bits(bytes, length));

    snprintf(ck->tmp_path, sizeof ck->tmp_path, "%.*s.tmp.XXXXXX", (int)(strrchr(ck->path, '/') - ck->path + 1), ck->path);
    int fd = mkstemp(ck->tmp_path);
    if (fd < 0) {
        save_failed(ck, "cannot create");
        return;
    }
    cleanup_remember(ck->tmp_path);
    bool ok = true;
    for (size_t done = 0; ok && done < length;) {
        ssize_t n = write(fd, bytes + done, length - done);
        ok = n > 0 || (n < 0 && errno == EINTR);
        done += n > 0 ? (size_t)n : 0;
    }
    ok = ok && write(fd, trailer, TRAILER) == TRAILER && fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    if (!ok || rename(ck->tmp_path, ck->path) != 0) {
        save_failed(ck, "cannot write");
        return;
    }
    cleanup_forget(ck->tmp_path);
    ck->tmp_path[0] = 0;
}

void checkpoint_done(struct checkpoint *ck)
{
    if (ck->every > 0)
        unlink(ck->path);
}

void checkpoint_close(struct checkpoint *ck)
{
    free(ck->payload);
    ck->payload = NULL;
}
