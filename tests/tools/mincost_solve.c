/* mincost_solve - a test helper around common/flow/mincost.h: solves every
 * min-cost flow record and adds the solution, the trace and the
 * certificates, for the networkx oracle of tests/280-mincost.bats
 * (tests/tools/mincost_oracle.py).
 *
 *   mincost_solve [--max-trace-bytes B] < instances.mp > solved.mp
 *
 * A record holds n, m, s, t, src, dst (i32[m]), cap (i64[m], integer units)
 * and the cost either as i64[m] 'cost' (units) or f32[m] 'cost_real', which
 * mincost_cost_units() scales (optionally by 'cost_scale').  Parallel arcs
 * are allowed, unlike in graph records.  It adds value, cost, cost_units,
 * rounds, flow, potential, the trace (hint_distance with -1 for unreached,
 * hint_pointer, hint_pointer_arc, hint_potential, hint_flow) and the
 * certificate of the solution (cert_optimal, cert_maximum, cert_gap); a
 * record that carries check_flow (i64[m]) and check_potential (i64[n]) gets
 * their certificate too (check_feasible, check_maximum, check_gap,
 * check_negative_arcs).  An instance mincost refuses is one line naming the
 * record and key, exit 65. */
#include "mincost.h"
#include "cli.h"
#include "die.h"
#include "io.h"
#include "stream.h"
#include "tensor.h"
#include <stdlib.h>
#include <string.h>

static const char *input = "-", *output = "-";
static bool force;
static int64_t max_trace_bytes = 0;

static const struct cli_option options[] = {
    CLI_INT("max-trace-bytes", 0, max_trace_bytes, "B", "refuse graphs whose trace would pass B bytes (0: any)", 0,
            9.2e18),
    CLI_INPUT(input),
    CLI_OUTPUT(output),
    CLI_FORCE(force),
    {0},
};

static const struct cli_spec spec = {
    "mincost_solve", "[options] < instances.mp > solved.mp",
    "Test helper: exact min-cost maximum flow (common/flow/mincost.h) on instance records.",
    "python3 tests/tools/mincost_oracle.py make 100 1 | mincost_solve",
    options,
    NULL,
};

struct instance {
    struct mincost_net net;
    int32_t *src, *dst;
    int64_t *cap, *cost, units;
};

static void instance_read(struct instance *in, const struct record *rec)
{
    struct mincost_net *g = &in->net;
    g->n = (int)record_int(rec, "n");
    g->m = (int)record_int(rec, "m");
    g->s = (int)record_int(rec, "s");
    g->t = (int)record_int(rec, "t");
    if (g->n < 2 || g->m < 0 || g->s < 0 || g->s >= g->n || g->t < 0 || g->t >= g->n || g->s == g->t)
        record_die(rec, "n %d, m %d, s %d, t %d are out of range", g->n, g->m, g->s, g->t);
    g->src = in->src = record_vector(rec, "src", DT_I32, g->m);
    g->dst = in->dst = record_vector(rec, "dst", DT_I32, g->m);
    for (int e = 0; e < g->m; e++)
        if (in->src[e] < 0 || in->src[e] >= g->n || in->dst[e] < 0 || in->dst[e] >= g->n || in->src[e] == in->dst[e])
            record_die(rec, "arc %d joins %d and %d in %d nodes", e, (int)in->src[e], (int)in->dst[e], g->n);
    g->cap = in->cap = record_vector(rec, "cap", DT_I64, g->m);
    in->units = 1;
    if (record_has(rec, "cost_real")) {
        float *real = record_vector(rec, "cost_real", DT_F32, g->m);
        struct mincost_error err;
        char line[320];
        in->cost = xmalloc(((size_t)g->m + 1) * sizeof *in->cost);
        if (!mincost_cost_units(g->m, real, record_int_or(rec, "cost_scale", 0), in->cost, &in->units, &err)) {
            mincost_error_format(&err, line, sizeof line);
            record_die(rec, "%s", line);
        }
        free(real);
    } else {
        in->cost = record_vector(rec, "cost", DT_I64, g->m);
    }
    g->cost = in->cost;
}

static void tensor2(struct writer *w, enum dtype dt, int64_t rows, int64_t cols, const void *data)
{
    int64_t shape[2] = {rows, cols};
    mp_tensor(w, dt, 2, shape, data);
}

static void write_trace(struct writer *w, const struct mincost_trace *tr)
{
    size_t cells = (size_t)tr->rounds * tr->n;
    int64_t *distance = xmalloc(cells * sizeof *distance);
    for (size_t i = 0; i < cells; i++)
        distance[i] = tr->distance[i] == MINCOST_UNREACHED ? -1 : tr->distance[i];
    mp_key(w, "hint_distance");    tensor2(w, DT_I64, tr->rounds, tr->n, distance);
    mp_key(w, "hint_pointer");     tensor2(w, DT_I32, tr->rounds, tr->n, tr->pointer);
    mp_key(w, "hint_pointer_arc"); tensor2(w, DT_I32, tr->rounds, tr->n, tr->pointer_arc);
    mp_key(w, "hint_potential");   tensor2(w, DT_I64, tr->rounds + 1, tr->n, tr->potential);
    mp_key(w, "hint_flow");        tensor2(w, DT_I64, tr->rounds, tr->m, tr->flow);
    free(distance);
}

/* The certificate of the record's own flow and potentials, if it has them. */
static int check_given(const struct record *rec, const struct instance *in, struct mincost_certificate *c)
{
    if (!record_has(rec, "check_flow"))
        return 0;
    int64_t *flow = record_vector(rec, "check_flow", DT_I64, in->net.m);
    int64_t *potential = record_vector(rec, "check_potential", DT_I64, in->net.n);
    struct mincost_error err;
    char line[320];
    if (!mincost_certify(&in->net, flow, potential, c, &err)) {
        mincost_error_format(&err, line, sizeof line);
        record_die(rec, "%s", line);
    }
    free(flow);
    free(potential);
    return 4;
}

static void each(struct writer *w, const struct record *rec, void *context)
{
    struct instance in;
    instance_read(&in, rec);
    struct mincost_solution sol;
    struct mincost_trace tr;
    struct mincost_certificate cert, given;
    struct mincost_error err;
    char line[320];
    if (!mincost_flow(&in.net, &sol, &tr, (size_t)max_trace_bytes, &err) ||
        !mincost_certify(&in.net, sol.flow, sol.potential, &cert, &err)) {
        mincost_error_format(&err, line, sizeof line);
        record_die(rec, "%s", line);
    }
    static const char *const keys[] = {"value", "cost_total", "cost_units", "rounds", "flow", "potential",
                                       "hint_distance", "hint_pointer", "hint_pointer_arc", "hint_potential",
                                       "hint_flow", "cert_optimal", "cert_maximum", "cert_gap", "check_feasible",
                                       "check_maximum", "check_gap", "check_negative_arcs"};
    int given_keys = check_given(rec, &in, &given);
    writer_begin_enriched(w, rec, keys, 14 + given_keys);
    mp_key(w, "value");        mp_int(w, sol.value);
    mp_key(w, "cost_total");   mp_int(w, sol.cost);
    mp_key(w, "cost_units");   mp_int(w, in.units);
    mp_key(w, "rounds");       mp_int(w, sol.rounds);
    mp_key(w, "flow");         mp_vector(w, DT_I64, in.net.m, sol.flow);
    mp_key(w, "potential");    mp_vector(w, DT_I64, in.net.n, sol.potential);
    write_trace(w, &tr);
    mp_key(w, "cert_optimal"); mp_bool(w, cert.optimal);
    mp_key(w, "cert_maximum"); mp_bool(w, cert.maximum);
    mp_key(w, "cert_gap");     mp_int(w, cert.gap);
    if (given_keys) {
        mp_key(w, "check_feasible");      mp_bool(w, given.feasible);
        mp_key(w, "check_maximum");       mp_bool(w, given.maximum);
        mp_key(w, "check_gap");           mp_int(w, given.gap);
        mp_key(w, "check_negative_arcs"); mp_int(w, given.negative_arcs);
    }
    mincost_solution_free(&sol);
    mincost_trace_free(&tr);
    free(in.src);
    free(in.dst);
    free(in.cap);
    free(in.cost);
}

int main(int argc, char **argv)
{
    cli_no_operand(&spec, argc, argv, cli_parse(&spec, argc, argv));
    FILE *in = io_open_input(input);
    FILE *out = io_open_output(output, 1, force);
    struct stream_map map = {.each = each};
    stream_map(in, strcmp(input, "-") ? input : NULL, out, &map);
    io_close_output(out);
    return 0;
}
