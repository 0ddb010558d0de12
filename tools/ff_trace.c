/* ff_trace.c - graph records -> traced records.
 *
 * The algorithms work in exact integers (maxflow.h); graph_capacity_units()
 * turns the capacities into integers (exactly for the paper's families).
 *
 * A training set is thousands of small graphs, so the per-record costs
 * matter as much as the algorithm: the arrays are reused from one record to
 * the next, the output is packed into memory and written in big blocks, and
 * the flow of the T x m hint_flow tensor is converted to float once per
 * augmentation, not once per frame. */
#define _GNU_SOURCE     /* sched_getcpu, pthread_attr_setaffinity_np */
#include "ff_trace.h"
#include "die.h"
#include "graph.h"
#include "io.h"
#include "maxflow.h"
#include "stream.h"
#include "tensor.h"
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const trace_keys[] = {"steps", "hint_phase", "hint_mask", "hint_pi", "hint_flow",
                                         "flow", "maxflow", "cut"};
static const char *const solution_keys[] = {"flow", "maxflow", "cut"};

/* What one record needs, kept for the next; sizes in bytes. */
struct fftrace_buffers {
    struct trace tr;
    int64_t *cap, *flow;
    uint8_t *cut;
    float *values;
    size_t cap_bytes, flow_bytes, cut_bytes, values_bytes;
};

static void *reuse(void *p, size_t *have, size_t bytes)
{
    if (bytes <= *have)
        return p;
    *have = 2 * bytes;
    return xrealloc(p, *have);
}

static void buffers_free(struct fftrace_buffers *b)
{
    trace_free(&b->tr);
    free(b->cap);
    free(b->flow);
    free(b->cut);
    free(b->values);
}

/* Real values are k / units (a division, so 27 units of 1/10 print as 2.7,
 * not 2.7000000000000002). */
static float flow_value(int64_t k, double units) { return (float)((double)k / units); }

/* The values of flow[m] into out as float32 bytes: out may be inside the
 * writer's buffer, unaligned, hence the byte copies (single stores). */
static void flow_to_values(unsigned char *out, const int64_t *flow, int m, double units)
{
    for (int e = 0; e < m; e++) {
        float x = flow_value(flow[e], units);
        memcpy(out + (size_t)e * sizeof x, &x, sizeof x);
    }
}

/* The T x m hint_flow values into out (float32 bytes, maybe unaligned).
 * Frame 0 converts the zero flow; every other frame repeats the row
 * before, except that a flow frame converts the entries its augmentation
 * changed (the path's edges). */
static void hint_flow_values(unsigned char *out, const struct trace *tr, int m, double units)
{
    size_t row = (size_t)m * sizeof(float);
    flow_to_values(out, tr->flows, m, units);
    const int64_t *flow = tr->flows;
    for (int k = 1; k < tr->steps; k++) {
        out += row;
        memcpy(out, out - row, row);
        if (tr->phase[k] == 0) {
            flow += m;
            for (int e = 0; e < m; e++)
                if (flow[e] != flow[e - m]) {
                    float x = flow_value(flow[e], units);
                    memcpy(out + (size_t)e * sizeof x, &x, sizeof x);
                }
        }
    }
}

/* hint_flow, straight into the writer's buffer when it fits (it is most of
 * the record); leaves the final flow, its last row, in b->values. */
static void write_hint_flow(struct writer *w, struct fftrace_buffers *b, int m, double units)
{
    const struct trace *tr = &b->tr;
    int64_t T = tr->steps;
    size_t row = sizeof *b->values * (size_t)m, last = (size_t)(T - 1) * row;
    unsigned char *out = mp_tensor_reserve(w, DT_F32, 2, (int64_t[]){T, m});
    if (out) {
        hint_flow_values(out, tr, m, units);
        b->values = reuse(b->values, &b->values_bytes, row + 1);
        memcpy(b->values, out + last, row);
    } else {
        b->values = reuse(b->values, &b->values_bytes, (size_t)T * row + 1);
        hint_flow_values((unsigned char *)b->values, tr, m, units);
        mp_tensor(w, DT_F32, 2, (int64_t[]){T, m}, b->values);
        memmove(b->values, (unsigned char *)b->values + last, row);
    }
}

static void write_trace(struct writer *w, const struct record *rec, const struct graph *g,
                        const struct flownet *net, double units, struct fftrace_buffers *b)
{
    const struct trace *tr = &b->tr;
    int64_t value = maxflow_trace_frames(net, &b->tr, b->flow, b->cut);
    int64_t T = tr->steps;
    writer_begin_enriched(w, rec, trace_keys, 8);
    mp_key(w, "steps");      mp_int(w, T);
    mp_key(w, "hint_phase"); mp_vector(w, DT_U8, T, tr->phase);
    mp_key(w, "hint_mask");  mp_tensor(w, DT_U8, 2, (int64_t[]){T, g->n}, tr->mask);
    mp_key(w, "hint_pi");    mp_tensor(w, DT_I32, 2, (int64_t[]){T, g->n}, tr->pi);
    mp_key(w, "hint_flow");  write_hint_flow(w, b, g->m, units);
    /* The last frame shows the final flow. */
    mp_key(w, "flow");       mp_vector(w, DT_F32, g->m, b->values);
    mp_key(w, "maxflow");    mp_double(w, (double)value / units);
    mp_key(w, "cut");        mp_vector(w, DT_U8, g->n, b->cut);
}

static void write_solution(struct writer *w, const struct record *rec, const struct graph *g,
                           const struct flownet *net, double units, struct fftrace_buffers *b)
{
    int64_t value = maxflow_fast(net, b->flow, b->cut);
    b->values = reuse(b->values, &b->values_bytes, sizeof *b->values * ((size_t)g->m + 1));
    flow_to_values((unsigned char *)b->values, b->flow, g->m, units);
    writer_begin_enriched(w, rec, solution_keys, 3);
    mp_key(w, "flow");       mp_vector(w, DT_F32, g->m, b->values);
    mp_key(w, "maxflow");    mp_double(w, (double)value / units);
    mp_key(w, "cut");        mp_vector(w, DT_U8, g->n, b->cut);
}

/* The trace or solution of a validated graph, as an enriched copy of rec. */
static void trace_graph(struct writer *w, const struct record *rec, const struct graph *g,
                        const struct ff_trace_options *o, struct fftrace_buffers *b)
{
    size_t edges = (size_t)g->m + 1;
    b->cap = reuse(b->cap, &b->cap_bytes, sizeof *b->cap * edges);
    b->flow = reuse(b->flow, &b->flow_bytes, sizeof *b->flow * edges);
    b->cut = reuse(b->cut, &b->cut_bytes, (size_t)g->n);
    double units = graph_capacity_units(g, b->cap);
    struct flownet net = {g->n, g->m, g->s, g->t, g->directed, g->src, g->dst, b->cap, g->w};
    if (o->hints)
        write_trace(w, rec, g, &net, units, b);
    else
        write_solution(w, rec, g, &net, units, b);
}

static void trace_record(struct writer *w, const struct record *rec, const struct ff_trace_options *o,
                         struct fftrace_buffers *b)
{
    struct graph g;
    graph_read(&g, rec);
    trace_graph(w, rec, &g, o, b);
    graph_free(&g);
}

static void stream_one_thread(FILE *in, const char *in_name, FILE *out, const struct ff_trace_options *o)
{
    struct reader rd;
    struct record rec;
    struct writer w;
    struct progress p;
    struct fftrace_buffers b = {0};
    reader_init(&rd, in, in_name);
    writer_init_buffered(&w, out);
    progress_begin(&p, o->progress, "graphs", 0);
    while (reader_next(&rd, &rec)) {
        trace_record(&w, &rec, o, &b);
        progress_update(&p, rec.index + 1);
    }
    writer_flush(&w);
    progress_end(&p);
    buffers_free(&b);
    reader_free(&rd);
}

/* ---- several threads ----
 *
 * The records go through batches, each in one of a ring of slots.  Every
 * thread runs the same loop: take the reader (one thread at a time, in
 * input order), read a batch, let the reader go, then validate and trace
 * that same batch into a memory writer of its own, and write out, in input
 * order, every traced batch that is next in line.  A thread works on what
 * it read itself, so the records, the graphs it allocates and frees and the
 * output stay in one core's cache.  Reading only measures the records'
 * bytes (reader_next_raw); the thread that traces them parses them, so the
 * serial part is about a tenth of a record's cost.
 *
 * Errors keep their order: a bad record dies with the message one thread
 * gives, naming the first bad record in input order.  Reading and
 * validating catch their error (die_catch) into the batch instead of
 * exiting; the reader stops at a read error, and the batches are written
 * out in order, so the first batch with an error that comes up for writing
 * holds the first error of the input: all before it are written, and it
 * dies there.  Within a batch, a validation error comes before the read
 * error that ended the batch (it is at an earlier record).
 *
 * The costs that decide the shape are not the locking but fresh memory (a
 * page fault costs as much as tracing a few records) and sleeping (a core
 * of a virtual machine that goes idle takes long to wake): the ring is a
 * few batches per thread, memory is reused hot, and a thread with nothing
 * to do polls for up to a millisecond before it sleeps. */

/* A batch ends at this many records (few enough that the last batches keep
 * every core busy and its output stays in cache), or when its records'
 * bytes reach BATCH_BYTES: a trace's output grows faster than its record
 * (T frames of n and m entries, T growing with n), so a graph of 64 nodes
 * travels alone (about 13 KB; a 16-node one is 1.1 KB) and what is held in
 * memory stays small. */
#define BATCH_RECORDS 8
#define BATCH_BYTES ((size_t)12 << 10)
/* Batches in flight (read, not yet written) per thread: one being traced
 * and room for a few done but waiting for an earlier one. */
#define SLOTS_PER_THREAD 4
/* How long a thread with nothing to do polls before it sleeps, in
 * nanoseconds.  Its waits (for the reader, for room in the ring) last up to
 * a batch's time, some 100 us; a thread that sleeps instead leaves its
 * virtual core idle, and waking that takes longer than the wait: with 12 us
 * of polling, two threads were no faster than one on the 1000 training
 * graphs, with 1 ms they are 1.5x on whole runs and 1.7x less the
 * start (tests/bench/ff-trace.sh).  Polling
 * yields the core between checks, so a busy machine loses little. */
#define SPIN_NS 1000000L
/* Pause instructions between two checks of the clock (12 ns each on this
 * project's machines, 40 on some others). */
#define SPIN_PAUSES 16
/* The first chunk of a thread's parsed records, kept from batch to batch. */
#define BATCH_ZONE_BYTES ((size_t)16 << 10)

/* What a thread keeps to itself, so that what it writes stays in its own
 * core's cache: the memory of a trace, the bytes of the records it read and
 * their parsed objects, and the memory writers it traces into (a writer
 * last filled on another core would have to be fetched from there, line by
 * line, to be refilled). */
struct worker {
    struct fftrace_buffers b;
    char *bytes;                        /* its batch's records, one after another */
    size_t bytes_used, bytes_size;
    msgpack_zone records;
    struct writer **spare;              /* not in use, the last returned first */
    int spare_count;
};

struct batch {
    int count;
    long first_index, last_index;       /* of its first and last records */
    size_t end[BATCH_RECORDS];          /* where each record's bytes end in worker->bytes */
    struct worker *worker;              /* the thread that read and traced it */
    struct writer *out;                 /* its output, once traced */
    bool failed;                        /* error holds the batch's first error */
    struct die_catch error;
};

struct pool {
    const struct ff_trace_options *o;
    int threads;
    pthread_mutex_t lock;               /* everything below but rd */
    pthread_cond_t changed;             /* a batch was read or written out */
    _Atomic unsigned long changes;      /* ... counted, for the threads that spin */
    struct reader rd;                   /* the reading thread's alone */
    bool reading, writing, eof;
    struct batch *slots;                /* batch k lives in slots[k % slot_count] */
    int slot_count;
    long next_read, next_write;         /* batches read, written */
    struct worker *workers;             /* [threads] */
    FILE *out;
    struct progress progress;
};

static struct batch *slot(struct pool *pl, long k) { return &pl->slots[k % pl->slot_count]; }

static int64_t clock_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static inline void cpu_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Something a waiting thread may wait for happened (lock held). */
static void pool_changed(struct pool *pl)
{
    atomic_fetch_add_explicit(&pl->changes, 1, memory_order_release);
    pthread_cond_broadcast(&pl->changed);
}

/* Wait for pool_changed() (lock held on entry and return). */
static void pool_wait(struct pool *pl)
{
    unsigned long seen = atomic_load_explicit(&pl->changes, memory_order_relaxed);
    pthread_mutex_unlock(&pl->lock);
    int64_t deadline = clock_ns() + SPIN_NS;
    while (atomic_load_explicit(&pl->changes, memory_order_acquire) == seen && clock_ns() < deadline) {
        for (int i = 0; i < SPIN_PAUSES; i++)
            cpu_pause();
        sched_yield();
    }
    pthread_mutex_lock(&pl->lock);
    while (atomic_load_explicit(&pl->changes, memory_order_relaxed) == seen)
        pthread_cond_wait(&pl->changed, &pl->lock);
}

/* The bytes of the next records into bt's worker, unparsed; false at end
 * of input. */
static bool batch_read_records(struct reader *rd, struct batch *bt)
{
    struct worker *wk = bt->worker;
    const char *bytes;
    size_t size;
    wk->bytes_used = 0;
    while (bt->count < BATCH_RECORDS && wk->bytes_used < BATCH_BYTES) {
        if (!reader_next_raw(rd, &bytes, &size))
            return false;
        if (size > wk->bytes_size - wk->bytes_used) {
            wk->bytes_size = 2 * (wk->bytes_used + size);
            wk->bytes = xrealloc(wk->bytes, wk->bytes_size);
        }
        memcpy(wk->bytes + wk->bytes_used, bytes, size);
        wk->bytes_used += size;
        bt->end[bt->count++] = wk->bytes_used;
        bt->last_index = rd->index;
        if (bt->count == 1)
            bt->first_index = rd->index;
    }
    return true;
}

/* batch_read_records(), false also at a read error, which bt then holds
 * after its records. */
static bool batch_read(struct reader *rd, struct batch *bt)
{
    bt->count = 0;
    bt->failed = false;
    if (setjmp(bt->error.at) != 0) {
        bt->failed = true;
        return false;
    }
    die_catch_begin(&bt->error);
    bool more = batch_read_records(rd, bt);
    die_catch_end();
    return more;
}

/* Parse, validate and trace bt's records into w; a bad record ends the
 * batch, its error replacing any read error (which comes after it). */
static void batch_trace(struct batch *bt, struct writer *w, const struct ff_trace_options *o)
{
    struct worker *wk = bt->worker;
    writer_rewind(w);
    if (setjmp(bt->error.at) == 0) {
        die_catch_begin(&bt->error);
        for (int i = 0; i < bt->count; i++) {
            struct record rec;
            size_t start = i ? bt->end[i - 1] : 0;
            record_parse(&rec, wk->bytes + start, bt->end[i] - start, bt->first_index + i, &wk->records);
            trace_record(w, &rec, o, &wk->b);
        }
        die_catch_end();
    } else {
        bt->failed = true;
    }
    msgpack_zone_clear(&wk->records);
}

/* A memory writer for wk (lock held: other threads return them): one of
 * its own if it has one spare, else another thread's (a writer is big and
 * its first filling faults every page in, so no more are made than there
 * are batches in flight), else a new one. */
static struct writer *spare_writer(struct pool *pl, struct worker *wk)
{
    for (int i = -1; i < pl->threads; i++) {
        struct worker *from = i < 0 ? wk : &pl->workers[i];
        if (from->spare_count > 0)
            return from->spare[--from->spare_count];
    }
    struct writer *w = xmalloc(sizeof *w);
    writer_init_memory(w);
    return w;
}

/* Write out every traced batch next in line, unless another thread is at
 * it (lock held; released while writing); the first batch with an error
 * dies there.  One thread writes at a time, and the lock orders one
 * writer's io_write() before the next one's, so the unlocked stdio calls
 * inside are safe. */
static void pool_write(struct pool *pl)
{
    if (pl->writing)
        return;
    pl->writing = true;
    struct batch *bt;
    while (pl->next_write < pl->next_read && (bt = slot(pl, pl->next_write))->out) {
        pthread_mutex_unlock(&pl->lock);
        if (bt->failed)
            die_caught(&bt->error);
        io_write(pl->out, bt->out->buffer, bt->out->buffered);
        progress_update(&pl->progress, bt->last_index + 1);
        pthread_mutex_lock(&pl->lock);
        bt->worker->spare[bt->worker->spare_count++] = bt->out;
        bt->out = NULL;
        pl->next_write++;
        pool_changed(pl);
    }
    pl->writing = false;
}

/* Read the next batch, trace it and write what is due (lock held on entry
 * and return). */
static void pool_read_and_trace(struct pool *pl, struct worker *wk)
{
    struct batch *bt = slot(pl, pl->next_read);
    bt->worker = wk;
    pl->reading = true;
    pthread_mutex_unlock(&pl->lock);
    bool more = batch_read(&pl->rd, bt);
    pthread_mutex_lock(&pl->lock);
    pl->reading = false;
    pl->eof = !more;
    if (bt->count == 0 && !bt->failed) {
        pool_changed(pl);
        return;
    }
    pl->next_read++;
    struct writer *w = spare_writer(pl, wk);
    pool_changed(pl);
    pthread_mutex_unlock(&pl->lock);
    batch_trace(bt, w, pl->o);
    pthread_mutex_lock(&pl->lock);
    bt->out = w;
    pool_write(pl);
}

struct thread_start {
    struct pool *pl;
    struct worker *wk;
    const cpu_set_t *cpus;              /* the process's, once the thread runs */
};

/* Every thread: read and trace until the input ends; the thread that
 * finishes the last batch in line writes it and all after it. */
static void *pool_work(void *arg)
{
    struct thread_start *start = arg;
    struct pool *pl = start->pl;
    if (start->cpus)
        pthread_setaffinity_np(pthread_self(), sizeof *start->cpus, start->cpus);
    pthread_mutex_lock(&pl->lock);
    while (!pl->eof) {
        bool room = pl->next_read - pl->next_write < pl->slot_count;
        if (!pl->reading && room)
            pool_read_and_trace(pl, start->wk);
        else
            pool_wait(pl);
    }
    pthread_mutex_unlock(&pl->lock);
    return NULL;
}

static void stream_threads(FILE *in, const char *in_name, FILE *out, const struct ff_trace_options *o)
{
    struct pool pl = {.o = o, .threads = o->threads, .slot_count = SLOTS_PER_THREAD * o->threads, .out = out};
    /* The lock is only ever held for a few instructions: spinning for it
     * beats sleeping. */
    pthread_mutexattr_t spinning;
    pthread_mutexattr_init(&spinning);
    pthread_mutexattr_settype(&spinning, PTHREAD_MUTEX_ADAPTIVE_NP);
    pthread_mutex_init(&pl.lock, &spinning);
    pthread_mutexattr_destroy(&spinning);
    pthread_cond_init(&pl.changed, NULL);
    reader_init(&pl.rd, in, in_name);
    pl.slots = xcalloc((size_t)pl.slot_count, sizeof *pl.slots);
    struct worker *workers = pl.workers = xcalloc((size_t)pl.threads, sizeof *workers);
    struct thread_start *starts = xmalloc(sizeof *starts * (size_t)pl.threads);
    for (int i = 0; i < pl.threads; i++) {
        if (!msgpack_zone_init(&workers[i].records, BATCH_ZONE_BYTES))
            die(EX_SOFTWARE, "out of memory");
        /* room for every writer there will be (one per batch in flight at
         * most) to come back to this worker */
        workers[i].spare = xmalloc(sizeof *workers[i].spare * (size_t)pl.slot_count);
        starts[i] = (struct thread_start){&pl, &workers[i], NULL};
    }
    progress_begin(&pl.progress, o->progress, "graphs", 0);
    /* This thread works too: threads - 1 more.  A new thread may be queued
     * behind its busy creator, on its core, until the scheduler moves it:
     * 1 to 4 ms on this project's 2-core VMs (a fifth of a 1000-graph run),
     * against a few hundred microseconds on another core.  So each starts
     * on the CPUs this one is not on, and is free to go anywhere the
     * process may once it runs. */
    pthread_t *tid = xmalloc(sizeof *tid * (size_t)pl.threads);
    cpu_set_t cpus, others;
    int here = sched_getcpu();
    bool place = here >= 0 && sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_ISSET(here, &cpus) &&
                 CPU_COUNT(&cpus) > 1;
    if (place) {
        others = cpus;
        CPU_CLR(here, &others);
    }
    for (int i = 1; i < pl.threads; i++) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        if (place) {
            pthread_attr_setaffinity_np(&attr, sizeof others, &others);
            starts[i].cpus = &cpus;
        }
        if (pthread_create(&tid[i], &attr, pool_work, &starts[i]) != 0)
            die(EX_OSERR, "cannot start a thread:");
        pthread_attr_destroy(&attr);
    }
    pool_work(&starts[0]);
    for (int i = 1; i < pl.threads; i++)
        pthread_join(tid[i], NULL);
    free(tid);
    progress_end(&pl.progress);
    for (int i = 0; i < pl.threads; i++) {
        struct worker *wk = &workers[i];
        msgpack_zone_destroy(&wk->records);
        free(wk->bytes);
        buffers_free(&wk->b);
        for (int j = 0; j < wk->spare_count; j++) {
            writer_flush(wk->spare[j]);
            free(wk->spare[j]);
        }
        free(wk->spare);
    }
    free(workers);
    free(starts);
    free(pl.slots);
    reader_free(&pl.rd);
    pthread_cond_destroy(&pl.changed);
    pthread_mutex_destroy(&pl.lock);
}

void ff_trace_run(FILE *in, const char *in_name, FILE *out, const struct ff_trace_options *o)
{
    /* --no-hints is for huge graphs, where the solver and not the number of
     * records is the cost: one thread streams them with the least memory. */
    if (o->threads > 1 && o->hints)
        stream_threads(in, in_name, out, o);
    else
        stream_one_thread(in, in_name, out, o);
}
