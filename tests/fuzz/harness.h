/* harness.h - what every libFuzzer harness of tests/fuzz/ shares.
 *
 * A harness hands its input to the library functions a tool calls, as the
 * tool would, with die() turned into a return (die_catch_begin, die.h):
 * harness_run(body, ctx) returns 0, or the exit code the tool would have
 * exited with.  An exit code a harness does not expect (70, "BUG", out of
 * memory) is a finding: harness_expect() aborts with the message, and
 * libFuzzer saves the input.
 *
 * A tool that dies leaves its memory to the exit; a harness goes on to the
 * next input, and LeakSanitizer would take every buffer alive at the die()
 * for a leak.  So while a body runs, every allocation is remembered (the
 * sanitizer's malloc hooks), and after a caught die() what is still
 * allocated is released: the streams the body opened closed first (a FILE
 * freed behind stdio's back would stay on its list of open files), then
 * the rest freed.  A body that returns normally is not helped: what it
 * leaks, LeakSanitizer reports. */
#ifndef DAR_FUZZ_HARNESS_H
#define DAR_FUZZ_HARNESS_H
#include "die.h"
#include <sanitizer/allocator_interface.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- allocations of one run ---------------------------------------------- */

/* Open addressing with linear probing, deletion by backward shift; the
 * slots an input filled are listed so that clearing costs what it used. */
#define HARNESS_SLOTS (1u << 20)
static const void *harness_table[HARNESS_SLOTS];
static uint32_t harness_filled[HARNESS_SLOTS];
static size_t harness_filled_count;
static volatile int harness_tracking;     /* 1: remember allocations */
static bool harness_overflow;             /* too many to remember: nothing is released */
static int harness_lock;

static inline uint32_t harness_slot(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(x >> 44) & (HARNESS_SLOTS - 1);
}

/* Only the fuzzing thread's blocks are the body's: another thread (libFuzzer's
 * RSS monitor, a library's idle pool) may allocate meanwhile, and freeing its
 * blocks after a caught die() would pull memory from under it. */
static __thread bool harness_this_thread;

static inline void harness_malloc_hook(const volatile void *ptr, size_t size)
{
    (void)size;
    if (!harness_tracking || !harness_this_thread || !ptr)
        return;
    while (__atomic_exchange_n(&harness_lock, 1, __ATOMIC_ACQUIRE))
        ;
    if (harness_filled_count >= HARNESS_SLOTS / 2)
        harness_overflow = true;
    else {
        uint32_t i = harness_slot((const void *)ptr);
        while (harness_table[i])
            i = (i + 1) & (HARNESS_SLOTS - 1);
        harness_table[i] = (const void *)ptr;
        harness_filled[harness_filled_count++] = i;
    }
    __atomic_store_n(&harness_lock, 0, __ATOMIC_RELEASE);
}

/* Called before a free: forget ptr if remembered. */
static inline void harness_free_hook(const volatile void *ptr)
{
    if (!harness_tracking || !harness_this_thread || !ptr)
        return;
    while (__atomic_exchange_n(&harness_lock, 1, __ATOMIC_ACQUIRE))
        ;
    uint32_t i = harness_slot((const void *)ptr);
    while (harness_table[i] && harness_table[i] != (const void *)ptr)
        i = (i + 1) & (HARNESS_SLOTS - 1);
    if (harness_table[i]) {
        /* backward shift: move up every entry the hole would hide */
        uint32_t j = i;
        for (;;) {
            j = (j + 1) & (HARNESS_SLOTS - 1);
            if (!harness_table[j])
                break;
            uint32_t k = harness_slot(harness_table[j]);
            bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
            if (stays)
                continue;
            harness_table[i] = harness_table[j];
            i = j;
        }
        harness_table[i] = NULL;
    }
    __atomic_store_n(&harness_lock, 0, __ATOMIC_RELEASE);
}

static inline bool harness_remembered(const void *p)
{
    uint32_t i = harness_slot(p);
    while (harness_table[i] && harness_table[i] != p)
        i = (i + 1) & (HARNESS_SLOTS - 1);
    return harness_table[i] != NULL;
}

static inline void harness_track_begin(void)
{
    static bool installed;
    if (!installed) {
        __sanitizer_install_malloc_and_free_hooks(harness_malloc_hook, harness_free_hook);
        installed = true;
    }
    harness_overflow = false;
    harness_this_thread = true;
    harness_tracking = 1;
}

static inline void harness_track_clear(void)
{
    for (size_t n = 0; n < harness_filled_count; n++)
        harness_table[harness_filled[n]] = NULL;
    harness_filled_count = 0;
}

static inline void harness_track_end(void)
{
    harness_tracking = 0;
    harness_track_clear();
}

/* glibc's list of open streams (struct _IO_FILE's _chain links them). */
extern FILE *_IO_list_all;

/* After a caught die(): close the streams the body opened, free the rest. */
static inline void harness_track_release(void)
{
    if (harness_overflow) {
        harness_track_end();
        return;
    }
    for (bool again = true; again;) {
        again = false;
        for (FILE *f = _IO_list_all; f; f = f->_chain)
            if (harness_remembered(f)) {
                fclose(f);
                again = true;
                break;
            }
    }
    harness_tracking = 0;
    /* a slot listed twice (filled, emptied, filled again) is emptied the
     * first time: each pointer is taken once */
    static void *pointers[HARNESS_SLOTS / 2];
    size_t n = 0;
    for (size_t k = 0; k < harness_filled_count; k++) {
        uint32_t i = harness_filled[k];
        if (harness_table[i])
            pointers[n++] = (void *)harness_table[i];
        harness_table[i] = NULL;
    }
    harness_filled_count = 0;
    for (size_t k = 0; k < n; k++)
        free(pointers[k]);
}

/* ---- die() as a return ------------------------------------------------------ */

static struct die_catch harness_caught;

/* Run body(ctx) as a tool's main would; 0, or the exit code of its die(). */
static inline int harness_run(void (*body)(void *ctx), void *ctx)
{
    harness_track_begin();
    if (setjmp(harness_caught.at) == 0) {
        die_catch_begin(&harness_caught);
        body(ctx);
        die_catch_end();
        harness_track_end();
        return 0;
    }
    harness_track_release();
    if (getenv("HARNESS_VERBOSE"))
        fprintf(stderr, "harness: exit %d: %s\n", harness_caught.code, harness_caught.message);
    return harness_caught.code;
}

/* The exit codes bad input may give: 65 always; 64 or 66 where a harness
 * says so (the bit of that code in also).  Anything else is a finding. */
#define HARNESS_ALSO(code) (1u << ((code) - 64))
static FILE *harness_report;
static inline void harness_expect(int code, unsigned also)
{
    if (code == 0 || code == 65 || (code >= 64 && code < 96 && (also & HARNESS_ALSO(code))))
        return;
    fprintf(harness_report ? harness_report : stderr, "harness: unexpected exit %d: %s\n",
            code, harness_caught.message);
    abort();
}

/* The input as a stream, and somewhere to write output: memory, so that a
 * write error is never the input's doing. */
/* A copy of the input in memory a body's callee owns (struct input_bytes). */
static inline char *harness_copy(const uint8_t *data, size_t size)
{
    char *copy = xmalloc(size ? size : 1);
    memcpy(copy, data, size);
    return copy;
}

static inline FILE *harness_input(const uint8_t *data, size_t size)
{
    /* fmemopen refuses a size of 0 */
    static const uint8_t empty[1];
    FILE *f = fmemopen((void *)(size ? data : empty), size ? size : 1, "rb");
    if (!f)
        abort();
    if (!size)
        fgetc(f);          /* at its end: an empty stream */
    return f;
}

/* Where a tool's output goes: /dev/null through a buffer of our own (stdio
 * would allocate one inside a run, and a caught die() would free it). */
static inline FILE *harness_sink(void)
{
    static FILE *sink;
    static char buffer[1 << 16];
    if (!sink) {
        sink = fopen("/dev/null", "w");
        if (!sink || setvbuf(sink, buffer, _IOFBF, sizeof buffer) != 0)
            abort();
    }
    return sink;
}

/* A file of tests/fuzz/fixtures read whole (the harnesses run from the
 * repository's top, as make runs them). */
static inline uint8_t *harness_fixture(const char *name, size_t *size)
{
    char path[256];
    snprintf(path, sizeof path, "tests/fuzz/fixtures/%s", name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "harness: cannot open %s (run from the repository's top)\n", path);
        abort();
    }
    uint8_t *bytes = NULL;
    size_t n = 0, cap = 0, got;
    do {
        if (n == cap)
            bytes = realloc(bytes, cap = cap ? 2 * cap : 4096);
        got = fread(bytes + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    fclose(f);
    *size = n;
    return bytes;
}

/* Messages from warn() are noise in a fuzzing run; libFuzzer and the
 * sanitizers write to file descriptor 2 through their own streams. */
static inline void harness_quiet(void)
{
    harness_report = stderr;
    harness_sink();          /* opened outside any run: a caught die() never closes it */
    if (getenv("HARNESS_VERBOSE"))
        return;
    FILE *null = fopen("/dev/null", "w");
    if (null)
        stderr = null;
}

#endif
