/* fftrace.c - graph records -> traced records.
 *
 * The algorithms work in exact integers (maxflow.h); graph_capacity_units()
 * turns the capacities into integers (exactly for the paper's families).
 *
 * A training set is thousands of small graphs, so the per-record costs
 * matter as much as the algorithm: the arrays are reused from one record to
 * the next, the output is packed into memory and written in big blocks, and
 * the flow of the T x m hint_flow tensor is converted to float once per
 * augmentation, not once per frame. */
#include "fftrace.h"
#include "die.h"
#include "graph.h"
#include "maxflow.h"
#include "stream.h"
#include "tensor.h"
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

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

static void trace_record(struct writer *w, const struct record *rec, const struct fftrace_options *o,
                         struct fftrace_buffers *b)
{
    struct graph g;
    graph_read(&g, rec);
    size_t edges = (size_t)g.m + 1;
    b->cap = reuse(b->cap, &b->cap_bytes, sizeof *b->cap * edges);
    b->flow = reuse(b->flow, &b->flow_bytes, sizeof *b->flow * edges);
    b->cut = reuse(b->cut, &b->cut_bytes, (size_t)g.n);
    double units = graph_capacity_units(&g, b->cap);
    struct flownet net = {g.n, g.m, g.s, g.t, g.directed, g.src, g.dst, b->cap, g.w};
    if (o->hints)
        write_trace(w, rec, &g, &net, units, b);
    else
        write_solution(w, rec, &g, &net, units, b);
    graph_free(&g);
}

void fftrace_stream(FILE *in, const char *in_name, FILE *out, const struct fftrace_options *o)
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
