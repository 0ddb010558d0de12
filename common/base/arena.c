/* arena.c - the bump allocator of arena.h. */
#include "arena.h"
#include "die.h"
#include <stdlib.h>
#include <string.h>

#define ARENA_CHUNK ((size_t)32 << 20)

/* A new chunk of at least `bytes` in *chunk; ARENA_CHUNK unless more is asked. */
static void chunk_allocate(struct arena *a, struct arena_chunk *chunk, size_t bytes)
{
    chunk->size = bytes > ARENA_CHUNK ? bytes : ARENA_CHUNK;
    chunk->base = aligned_alloc(64, chunk->size);
    if (!chunk->base)
        die(EX_SOFTWARE, "out of memory allocating %zu bytes", chunk->size);
    a->bytes += chunk->size;
}

void *arena_alloc(struct arena *a, size_t bytes)
{
    bytes = (bytes + 63) & ~(size_t)63;
    if (!bytes)
        bytes = 64;
    for (;;) {
        if (a->current < a->nchunks) {
            struct arena_chunk *c = &a->chunks[a->current];
            if (a->used + bytes <= c->size) {
                void *p = c->base + a->used;
                a->used += bytes;
                return p;
            }
            if (a->used == 0) {     /* an unused chunk too small: replace it */
                a->bytes -= c->size;
                free(c->base);
                chunk_allocate(a, c, bytes);
                continue;
            }
            a->current++;
            a->used = 0;
            continue;
        }
        if (a->nchunks == a->room) {
            a->room = a->room ? 2 * a->room : 8;
            a->chunks = xrealloc(a->chunks, sizeof *a->chunks * (size_t)a->room);
        }
        chunk_allocate(a, &a->chunks[a->nchunks++], bytes);
        a->current = a->nchunks - 1;
        a->used = 0;
    }
}

float *arena_floats(struct arena *a, int64_t count)
{
    return arena_alloc(a, sizeof(float) * (size_t)(count > 0 ? count : 1));
}

float *arena_zero_floats(struct arena *a, int64_t count)
{
    float *p = arena_floats(a, count);
    memset(p, 0, sizeof(float) * (size_t)(count > 0 ? count : 1));
    return p;
}

void *arena_zero(struct arena *a, size_t bytes)
{
    void *p = arena_alloc(a, bytes ? bytes : 1);
    memset(p, 0, bytes ? bytes : 1);
    return p;
}

struct arena_mark arena_mark(const struct arena *a) { return (struct arena_mark){a->current, a->used}; }
void arena_release(struct arena *a, struct arena_mark mark) { a->current = mark.current; a->used = mark.used; }
void arena_reset(struct arena *a) { a->current = 0; a->used = 0; }

void arena_free(struct arena *a)
{
    for (int i = 0; i < a->nchunks; i++)
        free(a->chunks[i].base);
    free(a->chunks);
    memset(a, 0, sizeof *a);
}
