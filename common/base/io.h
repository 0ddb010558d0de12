/* io.h - opening the streams a tool reads and writes, and write-or-die.
 *
 * Every write goes through io_write(): on EPIPE the process dies quietly of
 * SIGPIPE (as `tool | head` expects), on any other error it dies with exit 74
 * "write error".  Inputs that cannot be opened exit 66, outputs 73. */
#ifndef DAR_IO_H
#define DAR_IO_H
#include <stdio.h>
#include <stddef.h>

/* "-" or NULL means stdin. */
FILE *io_open_input(const char *path);
/* The input's name in messages: path, or "<stdin>" for "-" or NULL. */
const char *io_input_name(const char *path);
/* "-" or NULL means stdout.  binary: refuse a terminal unless force (exit 64). */
FILE *io_open_output(const char *path, int binary, int force);
/* Write all of buf or die. */
void io_write(FILE *f, const void *buf, size_t len);
/* fflush + ferror + fclose, dying on failure.  For stdout too. */
void io_close_output(FILE *f);
/* Called when a write fails with errno: dies of SIGPIPE on EPIPE, else exit 74. */
__attribute__((noreturn)) void io_write_failed(void);
/* Read all of f into a malloc'ed buffer (NUL-terminated for convenience);
 * *len receives its length.  Dies with exit 74 on a read error. */
char *io_read_all(FILE *f, const char *name, size_t *len);
/* Copy everything from in to out (write-or-die); returns bytes copied. */
size_t io_copy(FILE *in, FILE *out);

#endif
