/* algo_maxflow_graph.c - a graph record as the max-flow entry's model reads
 * it (its read_graph op): the core keys (graph_read) and, when present or
 * needed, the Ford-Fulkerson trace, into the graph's probe[]. */
#include "algo_maxflow.h"
#include "die.h"
#include "tensor.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void need_key(const struct record *rec, const char *key, bool needed, const char *why)
{
    if (needed && !record_has(rec, key))
        record_die(rec, "missing key '%s' (%s; run ff-trace first)", key, why);
}

static void check_flags(const struct record *rec, const char *key, const uint8_t *v, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        if (v[i] > 1)
            record_die(rec, "'%s' entry %lld is %d, expected 0 or 1", key, (long long)i, v[i]);
}

static void check_finite(const struct record *rec, const char *key, const float *v, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        if (!isfinite(v[i]))
            record_die(rec, "'%s' entry %lld is %g, expected a finite number", key, (long long)i, v[i]);
}

static void *take(struct tensor *t)
{
    void *p = t->data;
    t->data = NULL;
    return p;
}

void maxflow_read_graph(struct dar_graph *dg, const struct record *rec, int need)
{
    memset(dg, 0, sizeof *dg);
    long r = rec->index;
    dg->record = r;
    dg->source = rec->source;
    if (!record_has(rec, "w"))
        record_die(rec, "missing key 'w' (the model encodes the Bellman-Ford weights)");
    graph_read(&dg->g, rec);
    int64_t n = dg->g.n, m = dg->g.m;

    const char *phase_why = "the model follows the trace's phase flags and length";
    need_key(rec, "steps", need & DAR_NEED_PHASES, phase_why);
    need_key(rec, "hint_phase", need & DAR_NEED_PHASES, phase_why);
    bool has_phases = record_has(rec, "steps") || record_has(rec, "hint_phase");
    if (has_phases) {
        int64_t T = record_int(rec, "steps");
        if (T < 1 || T > 1000000000)
            record_die(rec, "'steps' is %lld, expected 1..1e9", (long long)T);
        dg->steps = (int)T;
        dg->phase = record_vector(rec, "hint_phase", DT_U8, T);
        check_flags(rec, "hint_phase", dg->phase, T);
    }
    int64_t T = dg->steps;

    const char *hint_why = "training scores the trace's hints";
    bool need_hints = need & DAR_NEED_HINTS;
    need_key(rec, "hint_mask", need_hints, hint_why);
    need_key(rec, "hint_pi", need_hints, hint_why);
    need_key(rec, "hint_flow", need_hints, hint_why);
    if (need_hints || record_has(rec, "hint_mask") || record_has(rec, "hint_pi") ||
        record_has(rec, "hint_flow")) {
        if (!has_phases)
            record_die(rec, "missing key 'steps' (the hints come with the trace's length)");
        struct tensor t;
        record_tensor(rec, "hint_mask", DT_U8, 2, (int64_t[]){T, n}, &t);
        dg->probe[MAXFLOW_MASK] = take(&t);
        check_flags(rec, "hint_mask", maxflow_hint_mask(dg), T * n);
        record_tensor(rec, "hint_pi", DT_I32, 2, (int64_t[]){T, n}, &t);
        dg->probe[MAXFLOW_PTR] = take(&t);
        for (int64_t i = 0; i < T * n; i++)
            if (maxflow_hint_pi(dg)[i] < 0 || maxflow_hint_pi(dg)[i] >= n)
                record_die(rec, "'hint_pi' entry %lld is %d, outside 0..%lld", (long long)i,
                           maxflow_hint_pi(dg)[i], (long long)n - 1);
        record_tensor(rec, "hint_flow", DT_F32, 2, (int64_t[]){T, m}, &t);
        dg->probe[MAXFLOW_FLOW] = take(&t);
        check_finite(rec, "hint_flow", maxflow_hint_flow(dg), T * m);
    }

    const char *solution_why = "training scores the max flow and min cut";
    need_key(rec, "flow", need & DAR_NEED_SOLUTION, solution_why);
    need_key(rec, "cut", need & DAR_NEED_SOLUTION, solution_why);
    if (record_has(rec, "flow")) {
        dg->probe[MAXFLOW_FLOW_OUT] = record_vector(rec, "flow", DT_F32, m);
        check_finite(rec, "flow", maxflow_flow(dg), m);
    }
    if (record_has(rec, "cut")) {
        dg->probe[MAXFLOW_CUT_OUT] = record_vector(rec, "cut", DT_U8, n);
        check_flags(rec, "cut", maxflow_cut(dg), n);
    }
}
