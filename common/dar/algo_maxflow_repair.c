/* algo_maxflow_repair.c - max-flow's repair op (flow-fix): a predicted flow
 * made feasible by the paper's corrective procedure (common/flow/flowfix.h).
 *
 * A predicted flow outside [-cap, cap] (or [0, cap] on a directed arc) is
 * first clamped into it: the model's F = C * tanh(.) never is, but a flow from
 * elsewhere may be, and Algorithm 2 starts from a flow within capacity. */
#include "algo_maxflow.h"
#include "die.h"
#include "flowfix.h"
#include "graph.h"
#include "tensor.h"
#include <math.h>
#include <stdlib.h>

const struct dar_repair_option maxflow_repair_options[MAXFLOW_REPAIR_OPTIONS] = {
    [MAXFLOW_REPAIR_KEY] = {.name = "key", .short_name = 'k', .type = CLI_TYPE_STRING, .arg = "NAME",
                            .help = "the key holding the predicted flow", .value.text = "pred_flow"},
};

static const char *const added_keys[] = {"fixed_flow", "fixed_value", "conservation_before", "conservation_after"};

void maxflow_repair(struct writer *w, const struct record *rec, const union dar_repair_value *options)
{
    const char *key = options[MAXFLOW_REPAIR_KEY].text;
    struct graph g;
    graph_read(&g, rec);
    const msgpack_object *o = record_find(rec, key);
    if (!o)
        record_die(rec, "missing key '%s' (the predicted flow; choose another with --key)", key);
    struct tensor t;
    char err[160];
    if (!tensor_decode(o, &t, err, sizeof err))
        record_die(rec, "'%s' %s", key, err);
    if (t.ndim != 1 || t.count != g.m || (t.dtype != DT_F32 && t.dtype != DT_F64)) {
        tensor_free(&t);
        record_die(rec, "'%s' must be a float vector of %d entries (one per edge)", key, g.m);
    }
    size_t m = (size_t)(g.m ? g.m : 1), n = (size_t)g.n;
    double *cap = xmalloc(sizeof *cap * m), *pred = xmalloc(sizeof *pred * m), *fixed = xmalloc(sizeof *fixed * m);
    double *before = xmalloc(sizeof *before * n), *after = xmalloc(sizeof *after * n);
    float *out = xmalloc(sizeof *out * m);
    for (int e = 0; e < g.m; e++) {
        double p = t.dtype == DT_F32 ? ((float *)t.data)[e] : ((double *)t.data)[e];
        if (!isfinite(p))
            record_die(rec, "'%s' entry %d is %g, expected a finite number", key, e, p);
        cap[e] = g.cap[e];
        double lo = g.directed ? 0 : -cap[e];
        pred[e] = fmin(fmax(p, lo), cap[e]);
    }
    tensor_free(&t);
    double value = flow_fix(g.n, g.m, g.s, g.t, g.directed, g.src, g.dst, cap, pred, fixed, before, after);
    for (int e = 0; e < g.m; e++)
        out[e] = (float)fixed[e];
    writer_begin_enriched(w, rec, added_keys, 4);
    mp_key(w, "fixed_flow");          mp_vector(w, DT_F32, g.m, out);
    mp_key(w, "fixed_value");         mp_double(w, value);
    mp_key(w, "conservation_before"); mp_vector(w, DT_F64, g.n, before);
    mp_key(w, "conservation_after");  mp_vector(w, DT_F64, g.n, after);
    free(cap); free(pred); free(fixed); free(before); free(after); free(out);
    graph_free(&g);
}
