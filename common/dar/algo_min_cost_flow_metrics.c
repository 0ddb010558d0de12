/* algo_min_cost_flow_metrics.c - min-cost flow's metric rows
 * (formats/metric.md): the repaired flow's cost against the optimum, the
 * share whose cost is the optimum, the share its potentials certify
 * optimal, the predicted flow's error and the predicted potentials'
 * feasibility on the optimal flow's residual graph.  Their order is the
 * order `metrics` writes them in. */
#include "algo_min_cost_flow.h"
#include "die.h"
#include <math.h>
#include <stdlib.h>

/* Only graphs of positive optimal cost have a ratio: a zero-cost optimum
 * (no s-t path, zero costs) has none, and a negative one (negative costs on
 * a DAG) would turn the ratio's order around.  mcf_cost_excess scores them. */
static void cost_ratio(struct metric_mean *acc, const struct record *rec)
{
    double fixed = metric_finite(rec, "fixed_cost"), best = metric_finite(rec, "mincost");
    if (best > 0) {
        acc->sum += fixed / best;
        acc->count++;
    }
}

/* The excess over the optimum per unit of the optimal flow's cost mass
 * sum_e |cost_e| |flow_e|: defined whatever the sign of the costs, and
 * ratio - 1 where they are all >= 0.  Graphs of no mass are left out. */
static void cost_excess(struct metric_mean *acc, const struct record *rec)
{
    int64_t m = metric_count(rec, "m");
    float *cost = metric_f32_vector(rec, "cost", m), *flow = metric_f32_vector(rec, "flow", m);
    double mass = 0;
    for (int64_t e = 0; e < m; e++)
        mass += fabs((double)cost[e]) * fabs((double)flow[e]);
    if (mass > 0) {
        acc->sum += (metric_finite(rec, "fixed_cost") - metric_finite(rec, "mincost")) / mass;
        acc->count++;
    }
    free(cost);
    free(flow);
}

/* Whether the repaired cost is the optimum.  Both are exact integers over
 * the same capacity and cost units (cost-fix and the tracer read the
 * instance alike), divided alike: equal costs are equal doubles.  The
 * tolerance, 1e-12 of the optimum's size (of 1 when smaller), admits only
 * the round-off of an optimum computed over other units (a record of
 * another tool) and stays below one unit of cost, 1 / (cap units x cost
 * units), for optima up to 1e6 at the generator's scales (units <= 1000). */
static void optimal(struct metric_mean *acc, const struct record *rec)
{
    double fixed = metric_finite(rec, "fixed_cost"), best = metric_finite(rec, "mincost");
    metric_share(acc, fabs(fixed - best) <= 1e-12 * fmax(1, fabs(best)));
}

/* Only records with a certificate have the key: cost-fix writes it when the
 * record has potentials (the dual's, the random baseline's, the algorithm's). */
static void certified(struct metric_mean *acc, const struct record *rec)
{
    metric_share(acc, record_bool(rec, "certified"));
}

/* Every edge, zero-flow ones too: a flow predicted on an edge the optimum
 * leaves empty is an error of its own here (max-flow's mae_flow masks
 * them, after the paper).  The row lists `cost`, which it does not read,
 * so that max-flow's records, which have the other keys, do not select it. */
static void flow_mae(struct metric_mean *acc, const struct record *rec)
{
    int64_t m = metric_count(rec, "m");
    float *pred = metric_f32_vector(rec, "pred_flow", m), *flow = metric_f32_vector(rec, "flow", m);
    for (int64_t e = 0; e < m; e++)
        acc->sum += fabs((double)pred[e] - (double)flow[e]);
    acc->count += m;
    free(pred);
    free(flow);
}

/* The share of the optimal flow's residual arcs whose reduced cost under
 * the predicted potentials, c(u,v) + pi(u) - pi(v) in real cost units, is
 * at least -1e-3 of the largest |cost| (of 1 when the costs are smaller):
 * the condition that makes pi a certificate, scored arc by arc. */
static void potential_feasible(struct metric_mean *acc, const struct record *rec)
{
    struct mcf_instance in;
    mcf_instance_read(&in, rec);
    int m = in.g.m, n = in.g.n;
    float *flow = metric_f32_vector(rec, "flow", m), *pi = metric_f32_vector(rec, "pred_potential", n);
    const float *real = in.g.cost;
    double *signed_flow = xmalloc(sizeof *signed_flow * ((size_t)m + 1)), largest = 1;
    int64_t *f = xmalloc(sizeof *f * ((size_t)in.net.m + 1));
    for (int e = 0; e < m; e++) {
        signed_flow[e] = flow[e];
        largest = fmax(largest, fabs((double)real[e]));
    }
    if (mcf_flow_arcs(&in, signed_flow, f))
        record_die(rec, "'flow' is outside the capacities (the optimal flow of the trace, within 'cap')");
    double tolerance = 1e-3 * largest;
    for (int a = 0; a < in.net.m; a++) {
        double c = real[a < m ? a : a - m], reduced = c + (double)pi[in.src[a]] - (double)pi[in.dst[a]];
        if (in.cap[a] - f[a] > 0) {
            acc->sum += reduced >= -tolerance;
            acc->count++;
        }
        if (f[a] > 0) {
            acc->sum += -reduced >= -tolerance;
            acc->count++;
        }
    }
    free(flow); free(pi); free(signed_flow); free(f);
    mcf_instance_free(&in);
}

const struct metric_row mcf_metrics[] = {
    {.name = "mcf_cost_ratio", .keys = {"fixed_cost", "mincost"}, .mean = cost_ratio},
    {.name = "mcf_cost_excess", .keys = {"m", "cost", "flow", "fixed_cost", "mincost"}, .mean = cost_excess},
    {.name = "mcf_optimal", .keys = {"fixed_cost", "mincost"}, .mean = optimal},
    {.name = "mcf_certified", .keys = {"certified"}, .mean = certified},
    {.name = "mcf_flow_mae", .keys = {"m", "pred_flow", "flow", "cost"}, .mean = flow_mae},
    {.name = "mcf_potential_feasible", .keys = {"n", "m", "s", "t", "cap", "cost", "flow", "pred_potential"},
     .mean = potential_feasible},
    {0},
};
