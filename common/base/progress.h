/* progress.h - the one progress line: on stderr, redrawn in place, only when
 * stderr is a terminal unless forced (--progress) or silenced (--quiet).
 * Shows done/total, rate and time left.  Redraws at most 10 times a second.
 *
 * With DAR_PROGRESS_FILE set in the environment, the same progress is also
 * appended to that file as plain lines, whatever the mode (the study's
 * recipes run the tools with --quiet): one when the work starts, one after
 * the first step, then at most one a second and one at the end, each
 *   SECONDS <TAB> DONE <TAB> TOTAL <TAB> WHAT <TAB> EXTRA
 * so that pipelines/progress.sh can show every running job of a make.
 *
 * A job that resumes earlier work (a training from its checkpoint) begins at
 * the count it resumes from: the line and the file's first line show that
 * count, and the rate and time left count only what this run did. */
#ifndef DAR_PROGRESS_H
#define DAR_PROGRESS_H
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>

enum progress_mode { PROGRESS_AUTO, PROGRESS_ON, PROGRESS_OFF };

struct progress {
    bool enabled;
    const char *what;        /* "training", "records", ... */
    int64_t total;           /* 0 if unknown */
    int64_t first;           /* the count this run began at (a resumed job) */
    double start, last;
    char extra[96];          /* free text shown at the end, e.g. "loss 0.123" */
    FILE *status;            /* DAR_PROGRESS_FILE, or NULL */
    double status_last;
    int64_t status_done;     /* the last count written there (-1: none yet) */
};

/* The mode the --quiet and --progress flags ask for; a job too small to be
 * worth a line (worth false) shows one only when forced. */
enum progress_mode progress_mode_of(bool quiet, bool forced, bool worth);
void progress_begin(struct progress *p, enum progress_mode mode, const char *what, int64_t total);
/* progress_begin for a job resuming at `first` of `total` done. */
void progress_begin_at(struct progress *p, enum progress_mode mode, const char *what, int64_t total,
                       int64_t first);
void progress_update(struct progress *p, int64_t done);
void progress_end(struct progress *p);
double now_seconds(void);    /* monotonic clock */

#endif
