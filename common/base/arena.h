/* arena.h - one call's memory, reused across calls: a bump allocator over a
 * list of chunks, 64-byte aligned.  arena_mark/arena_release give stack
 * discipline (the temporaries of one run, one step of a prediction);
 * arena_reset frees nothing and makes every chunk reusable, so a workspace
 * that lives across calls stops allocating once it has seen its largest. */
#ifndef DAR_ARENA_H
#define DAR_ARENA_H
#include <stddef.h>
#include <stdint.h>

struct arena_chunk { char *base; size_t size; };
struct arena {
    struct arena_chunk *chunks;
    int nchunks, room;
    int current;                /* chunk in use */
    size_t used;                /* bytes used in it */
    size_t bytes;               /* sum of chunk sizes */
};
struct arena_mark { int current; size_t used; };

void *arena_alloc(struct arena *a, size_t bytes);
/* count floats (at least one), uninitialised / zeroed */
float *arena_floats(struct arena *a, int64_t count);
float *arena_zero_floats(struct arena *a, int64_t count);
/* bytes (at least one), zeroed */
void *arena_zero(struct arena *a, size_t bytes);

struct arena_mark arena_mark(const struct arena *a);
void arena_release(struct arena *a, struct arena_mark mark);
void arena_reset(struct arena *a);
void arena_free(struct arena *a);

#endif
