/* progress.c - one line on stderr, redrawn in place with rate and time left;
 * plain lines in DAR_PROGRESS_FILE for a watcher (progress.h). */
#include "progress.h"
#include "die.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

enum progress_mode progress_mode_of(bool quiet, bool forced, bool worth)
{
    return quiet ? PROGRESS_OFF : forced ? PROGRESS_ON : worth ? PROGRESS_AUTO : PROGRESS_OFF;
}

static void status_write(struct progress *p, double now, int64_t done)
{
    p->status_last = now;
    p->status_done = done;
    fprintf(p->status, "%.1f\t%lld\t%lld\t%s\t%s\n", now - p->start, (long long)done, (long long)p->total,
            p->what, p->extra);
    /* a watcher reads the file while we run; a failed write only loses it */
    if (fflush(p->status) != 0) {
        fclose(p->status);
        p->status = NULL;
    }
}

void progress_begin(struct progress *p, enum progress_mode mode, const char *what, int64_t total)
{
    progress_begin_at(p, mode, what, total, 0);
}

void progress_begin_at(struct progress *p, enum progress_mode mode, const char *what, int64_t total,
                       int64_t first)
{
    memset(p, 0, sizeof *p);
    p->enabled = mode == PROGRESS_ON || (mode == PROGRESS_AUTO && isatty(STDERR_FILENO));
    p->what = what;
    p->total = total;
    p->first = first;
    p->start = now_seconds();
    p->status_done = -1;
    const char *path = getenv("DAR_PROGRESS_FILE");
    if (path && *path) {
        p->status = fopen(path, "a");
        if (!p->status)
            warn("cannot write progress to '%s' (DAR_PROGRESS_FILE): %s", path, strerror(errno));
        else
            status_write(p, p->start, first);
    }
}

static void format_duration(double s, char *buf, size_t cap)
{
    if (s < 0 || s > 1e7) { snprintf(buf, cap, "?"); return; }
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(buf, cap, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else if (t >= 60) snprintf(buf, cap, "%ldm%02lds", t / 60, t % 60);
    else snprintf(buf, cap, "%lds", t);
}

void progress_update(struct progress *p, int64_t done)
{
    if (!p->enabled && !p->status)
        return;
    double now = now_seconds();
    /* the first step is written at once: it shows the job is working */
    if (p->status && (p->status_done <= p->first || now - p->status_last >= 1.0 || done == p->total))
        status_write(p, now, done);
    if (!p->enabled)
        return;
    if (now - p->last < 0.1 && done != p->total)
        return;
    p->last = now;
    double elapsed = now - p->start, rate = elapsed > 0 ? (done - p->first) / elapsed : 0;
    char left[32] = "?";
    if (p->total > 0 && rate > 0)
        format_duration((p->total - done) / rate, left, sizeof left);
    if (p->total > 0)
        fprintf(stderr, "\r%s: %lld/%lld %s (%.1f/s, %s left) %s\033[K", dar_tool, (long long)done,
                (long long)p->total, p->what, rate, left, p->extra);
    else
        fprintf(stderr, "\r%s: %lld %s (%.1f/s) %s\033[K", dar_tool, (long long)done, p->what, rate, p->extra);
    fflush(stderr);
}

void progress_end(struct progress *p)
{
    if (p->enabled)
        fputc('\n', stderr);
    p->enabled = false;
    if (p->status) {
        fclose(p->status);
        p->status = NULL;
    }
}
