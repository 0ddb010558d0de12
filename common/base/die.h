/* die.h - the one way a dar tool reports an error and exits.
 *
 * Messages follow git's rules: lowercase, no full stop, the subject quoted,
 * "tool: record 17: 'cap' has 12 entries, expected 31".  A format that ends
 * in ':' gets ": strerror(errno)" appended (sbase's eprintf rule).
 * Nothing else in common/ calls exit(). */
#ifndef DAR_DIE_H
#define DAR_DIE_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sysexits.h>   /* EX_USAGE 64, EX_DATAERR 65, EX_NOINPUT 66, EX_SOFTWARE 70, EX_CANTCREAT 73, EX_IOERR 74 */

extern const char *dar_tool;          /* set once by cli_parse (argv[0] basename) */

/* Print "tool: message" and exit with status code. */
__attribute__((noreturn, format(printf, 2, 3)))
void die(int code, const char *fmt, ...);

/* die() with the record index prefixed: "tool: record 17: message" (exit 65). */
__attribute__((noreturn, format(printf, 2, 3)))
void die_record(long record, const char *fmt, ...);

/* A thread that must report its errors in an order of its own (ff-trace's
 * workers: the first bad record in input order is the one named) catches
 * them: while die_catch_begin(c) is in force on a thread, die() and
 * die_record() on that thread store the message and exit code in c and
 * longjmp to c->at instead of exiting; die_caught(c) reports it later.
 *
 *     struct die_catch c;
 *     if (setjmp(c.at) == 0) { die_catch_begin(&c); work(); die_catch_end(); }
 *     else { ... c.message holds the error; die_catch_end() already done ... }
 *
 * What the work allocated is not freed on the jump: the process is on its
 * way to die_caught(). */
struct die_catch {
    jmp_buf at;
    int code;
    char message[1100];
};
void die_catch_begin(struct die_catch *c);
void die_catch_end(void);
/* Print c's message and exit with its code, as die() would have. */
__attribute__((noreturn))
void die_caught(const struct die_catch *c);

/* "tool: warning: message"; never exits. */
__attribute__((format(printf, 1, 2)))
void warn(const char *fmt, ...);

/* Files to unlink if the process dies or is interrupted (SIGINT/SIGTERM/
 * SIGHUP) before they are complete: half-written outputs and cache temp files.
 * cleanup_forget() once the file is renamed into place. */
void cleanup_remember(const char *path);
void cleanup_forget(const char *path);
/* Install the signal handlers that run the cleanup then re-raise. */
void cleanup_install_signals(void);

/* Allocation that dies (exit 70) instead of returning NULL. */
void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

#endif
