/* io.c - opening streams and write-or-die (git's write_or_die + check_pipe). */
#include "io.h"
#include "die.h"
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static int is_stdio(const char *path) { return !path || strcmp(path, "-") == 0; }

FILE *io_open_input(const char *path)
{
    if (is_stdio(path))
        return stdin;
    FILE *f = fopen(path, "rb");
    if (!f)
        die(EX_NOINPUT, "cannot open '%s':", path);
    return f;
}

FILE *io_open_output(const char *path, int binary, int force)
{
    FILE *f;
    if (is_stdio(path))
        f = stdout;
    else if (!(f = fopen(path, "wb")))
        die(EX_CANTCREAT, "cannot create '%s':", path);
    if (binary && !force && isatty(fileno(f)))
        die(EX_USAGE, "refusing to write binary msgpack to a terminal (use -f, or pipe into mpcat)");
    setvbuf(f, NULL, _IOFBF, 1 << 16);
    return f;
}

void io_write_failed(void)
{
    if (errno == EPIPE) {
        /* The reader went away: die of SIGPIPE like any Unix filter, even if a
         * parent left SIGPIPE ignored. */
        signal(SIGPIPE, SIG_DFL);
        raise(SIGPIPE);
    }
    die(EX_IOERR, "write error:");
}

void io_write(FILE *f, const void *buf, size_t len)
{
    if (len == 0)
        return;
    if (fwrite(buf, 1, len, f) != len)
        io_write_failed();
}

void io_close_output(FILE *f)
{
    errno = 0;
    if (fflush(f) != 0 || ferror(f))
        io_write_failed();
    if (fclose(f) != 0)
        io_write_failed();
}

size_t io_copy(FILE *in, FILE *out)
{
    char buf[1 << 16];
    size_t total = 0, n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
        io_write(out, buf, n);
        total += n;
    }
    if (ferror(in))
        die(EX_IOERR, "read error:");
    return total;
}
