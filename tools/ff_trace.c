/* ff_trace.c - graph records -> traced records: the chosen algorithm's
 * tracer (algorithm.h) on every record, on several threads through
 * stream_map_parallel (the output does not depend on how many). */
#include "ff_trace.h"
#include "registry.h"
#include "cpus.h"
#include "die.h"
#include "stream.h"
#include "stream_parallel.h"
#include <stdlib.h>
#include <string.h>

/* A trace's hints are refused above this many bytes, before any is
 * allocated: a small record can declare a graph whose trace no machine
 * holds, and --no-hints solves such graphs without a trace. */
#define HINT_BYTES_LIMIT ((int64_t)1 << 30)

struct tracer {
    const struct ff_trace_options *o;
    struct dar_tracer_buffers buffers;
};

static void *tracer_begin(void *context)
{
    struct tracer *t = xcalloc(1, sizeof *t);
    t->o = context;
    t->buffers.flags = t->o->trace_flags;
    return t;
}

static void tracer_end(void *state)
{
    struct tracer *t = state;
    if (t->buffers.free)
        t->buffers.free(t->buffers.data);
    free(t);
}

static void trace_each(struct writer *w, const struct record *rec, void *state)
{
    struct tracer *t = state;
    dar_algorithm_refuse_other_trace(t->o->algorithm, rec);
    t->o->algorithm->trace(w, rec, t->o->hints, HINT_BYTES_LIMIT, &t->buffers);
}

struct one_thread {
    struct tracer *t;
    struct progress p;
};

static void trace_one(struct writer *w, const struct record *rec, void *context)
{
    struct one_thread *one = context;
    trace_each(w, rec, one->t);
    progress_update(&one->p, rec->index + 1);
}

void ff_trace_run(FILE *in, const char *in_name, FILE *out, const struct ff_trace_options *options)
{
    struct ff_trace_options local = *options;
    if (!local.algorithm)
        local.algorithm = dar_algorithm_default();
    if (local.threads < 1)
        local.threads = cpus_usable() > 8 ? 8 : cpus_usable();
    const struct ff_trace_options *o = &local;
    /* --no-hints is for huge graphs, where the solver and not the number of
     * records is the cost: one thread streams them with the least memory. */
    if (o->threads > 1 && o->hints) {
        struct stream_parallel sp = {
            .threads = (int)o->threads, .each = trace_each, .begin = tracer_begin, .end = tracer_end,
            .context = (void *)o, .progress = o->progress, .unit = "graphs",
        };
        stream_map_parallel(in, in_name, out, &sp);
        return;
    }
    struct one_thread one = {.t = tracer_begin((void *)o)};
    progress_begin(&one.p, o->progress, "graphs", 0);
    stream_map(in, in_name, out, &(struct stream_map){.each = trace_one, .context = &one, .buffered = true});
    progress_end(&one.p);
    tracer_end(one.t);
}

int ff_trace_flag_options(struct ff_trace_flags *f, struct cli_option *options)
{
    memset(f, 0, sizeof *f);
    for (int a = 0; a < dar_algorithm_count; a++) {
        const struct dar_algorithm *alg = dar_algorithms[a];
        if (alg->ntrace_flags > DAR_MAX_TRACE_FLAGS)
            die(EX_SOFTWARE, "BUG: %s has %d trace flags, at most %d", alg->name, alg->ntrace_flags,
                DAR_MAX_TRACE_FLAGS);
        for (int i = 0; i < alg->ntrace_flags; i++) {
            const struct dar_trace_flag *flag = &alg->trace_flags[i];
            int k = 0;
            while (k < f->count && strcmp(f->name[k], flag->name) != 0)
                k++;
            if (k < f->count)
                continue;
            if (f->count == (int)(sizeof f->name / sizeof *f->name))
                die(EX_SOFTWARE, "BUG: more than %d trace flags", f->count);
            f->name[k] = flag->name;
            /* in the cache key only when given: traces without it keep theirs */
            options[f->count++] = (struct cli_option)CLI_FLAG_KEY_IF_SET(flag->name, 0, f->given[k], flag->help);
        }
    }
    options[f->count] = (struct cli_option){0};
    return f->count;
}

uint32_t ff_trace_flags_of(const struct ff_trace_flags *f, const struct dar_algorithm *alg)
{
    uint32_t bits = 0;
    for (int k = 0; k < f->count; k++) {
        if (!f->given[k])
            continue;
        int i = 0;
        while (i < alg->ntrace_flags && strcmp(alg->trace_flags[i].name, f->name[k]) != 0)
            i++;
        if (i == alg->ntrace_flags)
            die(EX_USAGE, "--%s is not an option of the %s trace (see --help)", f->name[k], alg->name);
        bits |= 1u << i;
    }
    return bits;
}
