/* stream_parallel.c - a filter's records mapped on several threads, the
 * output byte for byte what one thread writes (stream_parallel.h).
 *
 * ff-trace's tracers run through it; tests/bench/ff-trace.sh measures it. */
#define _GNU_SOURCE     /* sched_getcpu, pthread_attr_setaffinity_np */
#include "stream_parallel.h"
#include "cpus.h"
#include "die.h"
#include "io.h"
#include "workers.h"
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The records go through batches, each in one of a ring of slots.  Every
 * thread runs the same loop: take the reader (one thread at a time, in
 * input order), read a batch, let the reader go, then map that same batch
 * into a memory writer of its own, and write out, in input order, every
 * mapped batch that is next in line.  A thread works on what it read
 * itself, so the records, what it allocates and frees for them and the
 * output stay in one core's cache.  Reading only measures the records'
 * bytes (reader_next_raw); the thread that maps them parses them, so the
 * serial part is a small share of a record's cost.
 *
 * Errors keep their order: a bad record dies with the message one thread
 * gives, naming the first bad record in input order.  Reading and mapping
 * catch their error (die_catch) into the batch instead of exiting; the
 * reader stops at a read error, and the batches are written out in order,
 * so the first batch with an error that comes up for writing holds the
 * first error of the input: all before it are written, and it dies there.
 * Within a batch, a mapping error comes before the read error that ended
 * the batch (it is at an earlier record).
 *
 * The costs that decide the shape are not the locking but fresh memory (a
 * page fault costs as much as mapping a few small records) and sleeping (a
 * core of a virtual machine that goes idle takes long to wake): the ring is
 * a few batches per thread, memory is reused hot, and a thread with nothing
 * to do polls for up to a millisecond before it sleeps. */

/* A batch ends at this many records (few enough that the last batches keep
 * every core busy and its output stays in cache), or when its records'
 * bytes reach BATCH_BYTES: a trace's output grows faster than its record
 * (T frames of n and m entries, T growing with n), so a large graph travels
 * alone and what is held in memory stays small. */
#define BATCH_RECORDS 8
#define BATCH_BYTES ((size_t)12 << 10)
/* Batches in flight (read, not yet written) per thread: one being mapped
 * and room for a few done but waiting for an earlier one. */
#define SLOTS_PER_THREAD 4
/* How long a thread with nothing to do polls before it sleeps, in
 * nanoseconds.  Its waits (for the reader, for room in the ring) last up to
 * a batch's time; a thread that sleeps instead leaves its virtual core
 * idle, and waking that takes longer than the wait (tests/bench/ff-trace.sh
 * measures the choice).  Polling yields the core between checks, so a busy
 * machine loses little. */
#define SPIN_NS 1000000L
/* Pause instructions between two checks of the clock. */
#define SPIN_PAUSES 16
/* The first chunk of a thread's parsed records, kept from batch to batch. */
#define BATCH_ZONE_BYTES ((size_t)16 << 10)

/* What a thread keeps to itself, so that what it writes stays in its own
 * core's cache: the mapping's state, the bytes of the records it read and
 * their parsed objects, and the memory writers it maps into (a writer
 * last filled on another core would have to be fetched from there, line by
 * line, to be refilled). */
struct worker {
    void *state;                        /* the mapping's per-thread state (begin) */
    char *bytes;                        /* its batch's records, one after another */
    size_t bytes_used, bytes_size;
    msgpack_zone records;
    struct writer **spare;              /* not in use, the last returned first */
    int spare_count;
};

struct batch {
    int count;
    long first_index, last_index;       /* of its first and last records */
    const char *source;                 /* their stream's name (struct record) */
    size_t end[BATCH_RECORDS];          /* where each record's bytes end in worker->bytes */
    struct worker *worker;              /* the thread that read and mapped it */
    struct writer *out;                 /* its output, once mapped */
    bool failed;                        /* error holds the batch's first error */
    struct die_catch error;
};

struct pool {
    const struct stream_parallel *sp;
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
        wk->bytes = xreserve(wk->bytes, &wk->bytes_size, wk->bytes_used + size);
        memcpy(wk->bytes + wk->bytes_used, bytes, size);
        wk->bytes_used += size;
        bt->end[bt->count++] = wk->bytes_used;
        bt->last_index = rd->index;
        if (bt->count == 1) {
            bt->first_index = rd->index;
            bt->source = rd->source;
        }
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

/* Parse bt's records and map them into w; a bad record ends the batch, its
 * error replacing any read error (which comes after it). */
static void batch_map(struct batch *bt, struct writer *w, const struct stream_parallel *sp)
{
    struct worker *wk = bt->worker;
    writer_rewind(w);
    if (setjmp(bt->error.at) == 0) {
        die_catch_begin(&bt->error);
        for (int i = 0; i < bt->count; i++) {
            struct record rec;
            size_t start = i ? bt->end[i - 1] : 0;
            record_parse(&rec, wk->bytes + start, bt->end[i] - start, bt->first_index + i, bt->source,
                         &wk->records);
            sp->each(w, &rec, wk->state);
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

/* Write out every mapped batch next in line, unless another thread is at
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

/* Read the next batch, map it and write what is due (lock held on entry
 * and return). */
static void pool_read_and_map(struct pool *pl, struct worker *wk)
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
    batch_map(bt, w, pl->sp);
    pthread_mutex_lock(&pl->lock);
    bt->out = w;
    pool_write(pl);
}

struct thread_start {
    struct pool *pl;
    struct worker *wk;
    const cpu_set_t *cpus;              /* the process's, once the thread runs */
};

/* Every thread: read and map until the input ends; the thread that
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
            pool_read_and_map(pl, start->wk);
        else
            pool_wait(pl);
    }
    pthread_mutex_unlock(&pl->lock);
    return NULL;
}

void stream_map_parallel(FILE *in, const char *in_name, FILE *out, const struct stream_parallel *sp)
{
    struct pool pl = {.sp = sp, .threads = sp->threads, .slot_count = SLOTS_PER_THREAD * sp->threads, .out = out};
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
        workers[i].state = sp->begin ? sp->begin(sp->context) : sp->context;
        starts[i] = (struct thread_start){&pl, &workers[i], NULL};
    }
    progress_begin(&pl.progress, sp->progress, sp->unit, 0);
    /* This thread works too: threads - 1 more.  A new thread may be queued
     * behind its busy creator, on its core, until the scheduler moves it,
     * long enough on a small machine to be a good share of a short run
     * (tests/bench/ff-trace.sh, part 1), and far longer than starting on
     * another core.  So each starts
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
        if (sp->end)
            sp->end(wk->state);
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

/* A 5.8M-edge graph with an embedding (or two: records may carry other
 * embeddings already) is larger than the default limit; msgpack's bin32
 * bounds each tensor to 4 GiB anyway. */
void stream_map_graphs(FILE *in, const char *in_name, FILE *out, stream_each_fn *each, void *context, int64_t threads)
{
    workers_start_option(threads);
    long records = stream_map(in, in_name, out, &(struct stream_map){.each = each, .context = context,
                                                                    .max_record = STREAM_GRAPH_MAX_RECORD});
    workers_stop();
    if (records == 0)
        die(EX_DATAERR, "no graph records in the input");
}
