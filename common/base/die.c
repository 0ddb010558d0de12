/* die.c - error reporting, exit codes and the cleanup of half-written files. */
#include "die.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *dar_tool = "dar";

/* Paths removed on die() and on fatal signals.  A fixed table: the signal
 * handler must not allocate, and a tool holds at most a few temp files. */
#define CLEANUP_MAX 16
static char cleanup_paths[CLEANUP_MAX][4200];
static volatile sig_atomic_t cleanup_used[CLEANUP_MAX];

void cleanup_remember(const char *path)
{
    for (int i = 0; i < CLEANUP_MAX; i++)
        if (!cleanup_used[i]) {
            snprintf(cleanup_paths[i], sizeof cleanup_paths[i], "%s", path);
            cleanup_used[i] = 1;
            return;
        }
    die(EX_SOFTWARE, "BUG: too many temporary files");
}

void cleanup_forget(const char *path)
{
    for (int i = 0; i < CLEANUP_MAX; i++)
        if (cleanup_used[i] && strcmp(cleanup_paths[i], path) == 0) {
            cleanup_used[i] = 0;
            return;
        }
}

static void cleanup_run(void)
{
    for (int i = 0; i < CLEANUP_MAX; i++)
        if (cleanup_used[i]) {
            unlink(cleanup_paths[i]);
            cleanup_used[i] = 0;
        }
}

static void on_fatal_signal(int sig)
{
    cleanup_run();
    signal(sig, SIG_DFL);
    raise(sig);
}

void cleanup_install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

/* "prefix" + the message, on one line: a string quoted from the input may
 * hold any byte, and a newline or an escape sequence would break it.  A
 * format that ends in ':' gets strerror(saved_errno). */
static void vformat(char *out, size_t size, const char *prefix, int saved_errno, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    for (char *c = msg; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    size_t len = strlen(msg);
    if (len && msg[len - 1] == ':')
        snprintf(out, size, "%s%s %s", prefix, msg, strerror(saved_errno));
    else
        snprintf(out, size, "%s%s", prefix, msg);
}

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
    char line[1100];
    vformat(line, sizeof line, prefix, errno, fmt, ap);
    fprintf(stderr, "%s: %s\n", dar_tool, line);
}

/* A failing tool ends with _exit: its buffered output is a partial result
 * nobody should read, its temp files are gone (cleanup_run), and the buffers
 * alive at the moment of failure are not leaks (LeakSanitizer would report
 * each of them from atexit).  Successful runs end through exit() and are
 * leak-checked as usual. */
static void __attribute__((noreturn)) die_exit(int code)
{
    cleanup_run();
    fflush(stderr);
    _exit(code);
}

static _Thread_local struct die_catch *catcher;

void die_catch_begin(struct die_catch *c) { catcher = c; }
void die_catch_end(void) { catcher = NULL; }

void die_caught(const struct die_catch *c)
{
    fprintf(stderr, "%s: %s\n", dar_tool, c->message);
    die_exit(c->code);
}

/* die() and die_record(): exit, or hand the error to the thread's catcher. */
static void __attribute__((noreturn)) vdie(int code, const char *prefix, const char *fmt, va_list ap)
{
    struct die_catch *c = catcher;
    if (c) {
        catcher = NULL;
        c->code = code;
        vformat(c->message, sizeof c->message, prefix, errno, fmt, ap);
        longjmp(c->at, 1);
    }
    vreport(prefix, fmt, ap);
    die_exit(code);
}

void die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdie(code, "", fmt, ap);
}

void die_record(long record, const char *fmt, ...)
{
    char prefix[48];
    snprintf(prefix, sizeof prefix, "record %ld: ", record);
    va_list ap;
    va_start(ap, fmt);
    vdie(EX_DATAERR, prefix, fmt, ap);
}

void warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport("warning: ", fmt, ap);
    va_end(ap);
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) die(EX_SOFTWARE, "out of memory allocating %zu bytes", n);
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) die(EX_SOFTWARE, "out of memory allocating %zu x %zu bytes", count, size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) die(EX_SOFTWARE, "out of memory allocating %zu bytes", n);
    return q;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = xmalloc(n);
    memcpy(p, s, n);
    return p;
}
