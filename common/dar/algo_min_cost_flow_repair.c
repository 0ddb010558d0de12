/* algo_min_cost_flow_repair.c - min-cost flow's repair op (cost-fix): a
 * predicted flow made a feasible flow of the maximum value, and certified
 * against the predicted potentials by mincost_certify (common/flow/mincost.h).
 *
 * Three moves, all in integer units so that the certificate is exact:
 *   1. clamp: each edge's prediction into its box ([0, cap] on a directed
 *      arc, [-cap, cap] on an undirected edge), rounded to capacity units;
 *   2. conserve: the largest s-t flow inside the clamped prediction (a max
 *      flow on its support, capacities the predicted amounts: maxflow.c).
 *      Like flow-fix it only lowers predicted amounts, but it keeps no
 *      circulation and no flow from t back to s, which here could only add
 *      cost (mincost_check refuses cycles of negative cost), and it is
 *      exact where flow-fix's tolerance is relative to the largest capacity;
 *   3. augment: a max flow on the residual graph of that sub-flow, added to
 *      it, so the value is the maximum.
 * The augmentation is blind to cost on purpose: the repair does not optimise,
 * so the cost ratio and the certified share measure the prediction (a
 * cheapest-path augmentation from the zero flow would be the exact solver
 * itself).  An undirected edge that ends with flow on both of its arcs is
 * netted out, which lowers its cost and changes no balance.
 *
 * The certificate: with `pred_potential` (the dual variant's prediction,
 * real cost units, rounded to cost units) certified means the repaired flow
 * and the predicted potentials leave no residual arc of negative reduced
 * cost, a proof of optimality that needs no solver; gap is the duality gap
 * cost - D(pi), which bounds the excess over the optimum.  Without it there
 * is no certificate: a flow without a dual proves nothing, and the exact
 * solver's potentials would make `certified` mean "optimal", another
 * quantity (the metric row mcf_optimal measures that against the trace's
 * mincost), so cost-fix writes neither `certified` nor `gap`. */
#include "algo_min_cost_flow.h"
#include "die.h"
#include "maxflow.h"
#include "tensor.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

const struct dar_repair_option mcf_repair_options[MCF_REPAIR_OPTIONS] = {
    [MCF_REPAIR_KEY] = {.name = "key", .short_name = 'k', .type = CLI_TYPE_STRING, .arg = "NAME",
                        .help = "the key holding the predicted flow", .value.text = "pred_flow"},
    [MCF_REPAIR_POTENTIAL_KEY] = {.name = "potential-key", .type = CLI_TYPE_STRING, .arg = "NAME",
                                  .help = "the predicted potentials the repaired flow is certified against "
                                          "(a record without them gets no certified and no gap)",
                                  .value.text = "pred_potential"},
};

/* Potentials past this many cost units leave no room for the reduced costs
 * mincost_certify forms. */
#define MCF_MAX_POTENTIAL 4611686018427387904.0   /* 2^62 */

/* A float vector of count finite numbers (f32 or f64) as doubles. */
static double *prediction(const struct record *rec, const char *key, int64_t count, const char *what,
                          const char *option)
{
    const msgpack_object *o = record_find(rec, key);
    if (!o)
        record_die(rec, "missing key '%s' (%s; choose another with --%s)", key, what, option);
    struct tensor_view t;
    char err[160];
    if (!tensor_view(o, &t, err, sizeof err))
        record_die(rec, "'%s' %s", key, err);
    if (t.ndim != 1 || t.shape[0] != count || (t.dtype != DT_F32 && t.dtype != DT_F64))
        record_die(rec, "'%s' must be a float vector of %lld entries: %s", key, (long long)count, what);
    double *a = xmalloc(sizeof *a * (size_t)(count + 1));
    for (int64_t i = 0; i < count; i++) {
        if (t.dtype == DT_F32) {
            float f;
            memcpy(&f, (const char *)t.data + 4 * i, 4);
            a[i] = f;
        } else {
            memcpy(&a[i], (const char *)t.data + 8 * i, 8);
        }
        if (!isfinite(a[i]))
            record_die(rec, "'%s' entry %lld is %g, expected a finite number", key, (long long)i, a[i]);
    }
    return a;
}

/* The max flow of a network of arcs (maxflow.c), into flow. */
static void max_flow(int n, int s, int t, int arcs, const int32_t *src, const int32_t *dst, const int64_t *cap,
                     int64_t *flow)
{
    struct flownet fn = {.n = n, .m = arcs, .s = s, .t = t, .directed = true, .src = src, .dst = dst, .cap = cap};
    uint8_t *cut = xmalloc((size_t)n);
    maxflow_fast(&fn, flow, cut);
    free(cut);
}

/* Steps 2 and 3 of the header: f, within capacity, becomes a feasible flow
 * of the maximum value. */
static void conserve_and_augment(const struct mincost_net *g, int64_t *f)
{
    size_t a1 = (size_t)g->m + 1, r1 = 2 * (size_t)g->m + 1;
    int64_t *sub = xmalloc(sizeof *sub * a1);
    max_flow(g->n, g->s, g->t, g->m, g->src, g->dst, f, sub);
    int32_t *src = xmalloc(sizeof *src * r1), *dst = xmalloc(sizeof *dst * r1);
    int64_t *residual = xmalloc(sizeof *residual * r1), *more = xmalloc(sizeof *more * r1);
    for (int a = 0; a < g->m; a++) {
        src[2 * a] = dst[2 * a + 1] = g->src[a];
        dst[2 * a] = src[2 * a + 1] = g->dst[a];
        residual[2 * a] = g->cap[a] - sub[a];
        residual[2 * a + 1] = sub[a];
    }
    max_flow(g->n, g->s, g->t, 2 * g->m, src, dst, residual, more);
    for (int a = 0; a < g->m; a++)
        f[a] = sub[a] + more[2 * a] - more[2 * a + 1];
    free(sub); free(src); free(dst); free(residual); free(more);
}

/* The record's potentials, in cost units. */
static int64_t *potentials(const struct record *rec, const struct mcf_instance *in, const char *key)
{
    int n = in->g.n;
    int64_t *pi = xmalloc(sizeof *pi * (size_t)n);
    double *p = prediction(rec, key, n, "the predicted potentials", "potential-key");
    for (int v = 0; v < n; v++) {
        double x = nearbyint(p[v] * (double)in->cost_units);
        if (fabs(x) >= MCF_MAX_POTENTIAL)
            record_die(rec, "'%s' entry %d is %g, beyond 2^62 units of cost (%lld in 1.0)", key, v, p[v],
                       (long long)in->cost_units);
        pi[v] = (int64_t)x;
    }
    free(p);
    return pi;
}

static const char *const added_keys[] = {"fixed_flow", "fixed_value", "fixed_cost", "certified", "gap"};

void mcf_repair(struct writer *w, const struct record *rec, const union dar_repair_value *options)
{
    const char *key = options[MCF_REPAIR_KEY].text, *potential_key = options[MCF_REPAIR_POTENTIAL_KEY].text;
    struct mcf_instance in;
    mcf_instance_read(&in, rec);
    int m = in.g.m;
    double *pred = prediction(rec, key, m, "the predicted flow", "key");
    int64_t *f = xmalloc(sizeof *f * ((size_t)in.net.m + 1));
    mcf_flow_arcs(&in, pred, f);
    conserve_and_augment(&in.net, f);
    for (int e = 0; !in.g.directed && e < m; e++) {
        int64_t net = f[e] - f[m + e];
        f[e] = net > 0 ? net : 0;
        f[m + e] = net < 0 ? -net : 0;
    }
    /* without potentials, zeros: the certificate's feasibility, value and
     * cost do not depend on them, and its optimality is not written */
    bool dual = record_has(rec, potential_key);
    int64_t *pi = dual ? potentials(rec, &in, potential_key) : xcalloc((size_t)in.g.n, sizeof *pi);
    struct mincost_certificate c;
    struct mincost_error err;
    if (!mincost_certify(&in.net, f, pi, &c, &err))
        mcf_instance_die(rec->source, rec->index, &in, err, potential_key);
    if (!c.feasible || !c.maximum)
        die(EX_SOFTWARE, "BUG: cost-fix: record %ld: the repaired flow is %s", rec->index,
            c.feasible ? "not maximum" : "not feasible");
    float *out = xmalloc(sizeof *out * ((size_t)m + 1));
    for (int e = 0; e < m; e++)
        out[e] = (float)((double)(f[e] - (in.g.directed ? 0 : f[m + e])) / in.cap_units);
    double cost_units = in.cap_units * (double)in.cost_units;
    writer_begin_replacing(w, rec, added_keys, 5, dual ? 5 : 3);
    mp_key(w, "fixed_flow");  mp_vector(w, DT_F32, m, out);
    mp_key(w, "fixed_value"); mp_double(w, (double)c.value / in.cap_units);
    mp_key(w, "fixed_cost");  mp_double(w, (double)c.cost / cost_units);
    if (dual) {
        mp_key(w, "certified"); mp_bool(w, c.optimal);
        mp_key(w, "gap");       mp_double(w, (double)c.gap / cost_units);
    }
    free(pred); free(f); free(pi); free(out);
    mcf_instance_free(&in);
}
