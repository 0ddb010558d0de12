/* fftrace.c - graph records -> traced records.
 *
 * The algorithms work in exact integers (maxflow.h); graph_capacity_units()
 * turns the capacities into integers (exactly for the paper's families). */
#include "fftrace.h"
#include "die.h"
#include "graph.h"
#include "maxflow.h"
#include "stream.h"
#include "tensor.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const trace_keys[] = {"steps", "hint_phase", "hint_mask", "hint_pi", "hint_flow",
                                         "flow", "maxflow", "cut"};
static const char *const solution_keys[] = {"flow", "maxflow", "cut"};

/* Real values are k / units (a division, so 27 units of 1/10 print as 2.7,
 * not 2.7000000000000002). */
static void write_flow(struct writer *w, const int64_t *flow, int64_t count, double units, float *buf)
{
    for (int64_t i = 0; i < count; i++)
        buf[i] = (float)((double)flow[i] / units);
    mp_vector(w, DT_F32, count, buf);
}

static void trace_record(struct writer *w, const struct record *rec, const struct fftrace_options *o)
{
    struct graph g;
    graph_read(&g, rec);
    int64_t *cap = xmalloc(sizeof *cap * (size_t)(g.m ? g.m : 1));
    int64_t *flow = xmalloc(sizeof *flow * (size_t)(g.m ? g.m : 1));
    uint8_t *cut = xmalloc((size_t)g.n);
    double units = graph_capacity_units(&g, cap);
    struct flownet net = {g.n, g.m, g.s, g.t, g.directed, g.src, g.dst, cap, g.w};
    float *fbuf;

    if (o->hints) {
        struct trace tr = {0};
        int64_t value = maxflow_trace(&net, &tr, flow, cut);
        int64_t T = tr.steps;
        fbuf = xmalloc(sizeof *fbuf * (size_t)(T * g.m + g.m + 1));
        writer_begin_enriched(w, rec, trace_keys, 8);
        mp_key(w, "steps");      mp_int(w, T);
        mp_key(w, "hint_phase"); mp_vector(w, DT_U8, T, tr.phase);
        mp_key(w, "hint_mask");  mp_tensor(w, DT_U8, 2, (int64_t[]){T, g.n}, tr.mask);
        mp_key(w, "hint_pi");    mp_tensor(w, DT_I32, 2, (int64_t[]){T, g.n}, tr.pi);
        mp_key(w, "hint_flow");
        for (int64_t i = 0; i < T * g.m; i++)
            fbuf[i] = (float)((double)tr.flow[i] / units);
        mp_tensor(w, DT_F32, 2, (int64_t[]){T, g.m}, fbuf);
        mp_key(w, "flow");       write_flow(w, flow, g.m, units, fbuf);
        mp_key(w, "maxflow");    mp_double(w, (double)value / units);
        mp_key(w, "cut");        mp_vector(w, DT_U8, g.n, cut);
        trace_free(&tr);
    } else {
        int64_t value = maxflow_fast(&net, flow, cut);
        fbuf = xmalloc(sizeof *fbuf * (size_t)(g.m + 1));
        writer_begin_enriched(w, rec, solution_keys, 3);
        mp_key(w, "flow");       write_flow(w, flow, g.m, units, fbuf);
        mp_key(w, "maxflow");    mp_double(w, (double)value / units);
        mp_key(w, "cut");        mp_vector(w, DT_U8, g.n, cut);
    }
    free(fbuf);
    free(cap);
    free(flow);
    free(cut);
    graph_free(&g);
}

void fftrace_stream(FILE *in, const char *in_name, FILE *out, const struct fftrace_options *o)
{
    struct reader rd;
    struct record rec;
    struct writer w;
    struct progress p;
    reader_init(&rd, in, in_name);
    writer_init(&w, out);
    progress_begin(&p, o->progress, "graphs", 0);
    while (reader_next(&rd, &rec)) {
        trace_record(&w, &rec, o);
        progress_update(&p, rec.index + 1);
    }
    progress_end(&p);
    reader_free(&rd);
}
