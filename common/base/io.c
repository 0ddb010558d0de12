/* io.c - opening streams and write-or-die (git's write_or_die + check_pipe). */
#include "io.h"
#include "die.h"
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static mode_t current_umask(void)
{
    mode_t m = umask(0);
    umask(m);
    return m;
}

static int is_stdio(const char *path) { return !path || strcmp(path, "-") == 0; }

/* Outputs named by -o are written to a temporary file beside them and renamed
 * into place by io_close_output, so an interrupted or failed run never leaves
 * a half-written file where a finished one is expected (make would take it
 * for a result).  Devices and pipes (/dev/full, /dev/stdout) are written in
 * place. */
#define IO_MAX_OUTPUTS 4
static struct { FILE *f; char tmp[4200], path[4096]; } outputs[IO_MAX_OUTPUTS];

static FILE *open_via_temp(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return fopen(path, "wb");
    for (int i = 0; i < IO_MAX_OUTPUTS; i++) {
        if (outputs[i].f)
            continue;
        if (strlen(path) >= sizeof outputs[i].path) {
            errno = ENAMETOOLONG;
            return NULL;
        }
        snprintf(outputs[i].tmp, sizeof outputs[i].tmp, "%s.tmp.XXXXXX", path);
        int fd = mkstemp(outputs[i].tmp);
        if (fd < 0)
            return NULL;
        cleanup_remember(outputs[i].tmp);
        fchmod(fd, 0666 & ~current_umask());
        snprintf(outputs[i].path, sizeof outputs[i].path, "%s", path);
        outputs[i].f = fdopen(fd, "wb");
        return outputs[i].f;
    }
    die(EX_SOFTWARE, "BUG: too many output files");
}

FILE *io_open_input(const char *path)
{
    if (is_stdio(path))
        return stdin;
    FILE *f = fopen(path, "rb");
    if (!f)
        die(EX_NOINPUT, "cannot open '%s':", path);
    return f;
}

const char *io_input_name(const char *path)
{
    return is_stdio(path) ? "<stdin>" : path;
}

FILE *io_open_output(const char *path, int binary, int force)
{
    /* A file-size limit (ulimit -f) fails the write, as a full disk does
     * (exit 74, temp files removed), instead of killing the process by
     * SIGXFSZ with a partial output and cache temp file left behind. */
    signal(SIGXFSZ, SIG_IGN);
    FILE *f;
    if (is_stdio(path))
        f = stdout;
    else if (!(f = open_via_temp(path)))
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
    /* unlocked: every tool writes a stream from one thread, and a record is
     * many small writes (one per msgpack token) */
    if (fwrite_unlocked(buf, 1, len, f) != len)
        io_write_failed();
}

void io_close_output(FILE *f)
{
    errno = 0;
    if (fflush(f) != 0 || ferror(f))
        io_write_failed();
    if (fclose(f) != 0)
        io_write_failed();
    for (int i = 0; i < IO_MAX_OUTPUTS; i++)
        if (outputs[i].f == f) {
            outputs[i].f = NULL;
            if (rename(outputs[i].tmp, outputs[i].path) != 0)
                die(EX_CANTCREAT, "cannot create '%s':", outputs[i].path);
            cleanup_forget(outputs[i].tmp);
        }
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

char *io_read_all(FILE *f, const char *name, size_t *len)
{
    size_t cap = 1 << 16, n = 0, got;
    char *buf = xmalloc(cap);
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n - 1 == 0)
            buf = xrealloc(buf, cap *= 2);
    }
    if (ferror(f))
        die(EX_IOERR, "read error on '%s':", name);
    buf[n] = 0;
    *len = n;
    return buf;
}
