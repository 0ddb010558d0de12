/* algo_min_cost_flow_instance.c - a min-cost-flow record's instance in the
 * exact integers of common/flow/mincost.h: the one reading that the tracer
 * (ff-trace, dar-step's untraced rounds), the repair (cost-fix) and the
 * metric rows share, so that the three see the same arcs, capacities and
 * costs in the same units, and refuse a bad record with the same words. */
#include "algo_min_cost_flow.h"
#include "algo_record.h"
#include "die.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void mcf_instance_die(const char *source, long index, const struct mcf_instance *in, struct mincost_error err,
                      const char *potential_key)
{
    char line[320];
    if (potential_key && err.key && strcmp(err.key, "potential") == 0)
        err.key = potential_key;
    else if (err.key && err.index >= in->g.m)
        err.index -= in->g.m;
    mincost_error_format(&err, line, sizeof line);
    die_record_in(source, index, "%s", line);
}

bool mcf_instance_exact(struct mcf_instance *in, const struct record *rec, struct mincost_error *err)
{
    const struct graph *g = &in->g;
    int m = g->m, arcs = g->directed ? m : 2 * m;
    size_t room = (size_t)arcs + 1;
    in->src = xmalloc(sizeof *in->src * room);
    in->dst = xmalloc(sizeof *in->dst * room);
    in->cap = xmalloc(sizeof *in->cap * room);
    in->cost = xmalloc(sizeof *in->cost * room);
    in->cap_units = rec ? graph_capacity_units_exact(rec, g, in->cap) : graph_capacity_units(g, in->cap);
    int64_t scale = rec ? record_int_or(rec, "cost_scale", 0) : 0;
    if (scale < 0)
        record_die(rec, "'cost_scale' is %lld, expected a scale >= 1 (or 0: not known)", (long long)scale);
    memcpy(in->src, g->src, sizeof *in->src * (size_t)m);
    memcpy(in->dst, g->dst, sizeof *in->dst * (size_t)m);
    in->net = (struct mincost_net){.n = g->n, .m = arcs, .s = g->s, .t = g->t, .src = in->src, .dst = in->dst,
                                   .cap = in->cap, .cost = in->cost};
    if (!mincost_cost_units(m, g->cost, scale, in->cost, &in->cost_units, err))
        return false;
    if (!g->directed) {
        memcpy(in->src + m, g->dst, sizeof *in->src * (size_t)m);
        memcpy(in->dst + m, g->src, sizeof *in->dst * (size_t)m);
        memcpy(in->cap + m, in->cap, sizeof *in->cap * (size_t)m);
        memcpy(in->cost + m, in->cost, sizeof *in->cost * (size_t)m);
    }
    return true;
}

void mcf_instance_read(struct mcf_instance *in, const struct record *rec)
{
    memset(in, 0, sizeof *in);
    algo_read_instance(&dar_algorithm_min_cost_flow, &in->g, rec);
    int m = in->g.m;
    int64_t arcs = in->g.directed ? m : 2 * (int64_t)m;
    /* the repair's max flow on the residual network has two arcs per arc
     * (maxflow.c's limit) */
    if (arcs > INT32_MAX / 4)
        record_die(rec, "'m' is %d: the residual network of %lld arcs would pass %d", m, 2 * (long long)arcs,
                   INT32_MAX / 2);
    struct mincost_error err;
    if (!mcf_instance_exact(in, rec, &err) || !mincost_check(&in->net, &err))
        mcf_instance_die(rec->source, rec->index, in, err, NULL);
}

void mcf_instance_free_arcs(struct mcf_instance *in)
{
    free(in->src);
    free(in->dst);
    free(in->cap);
    free(in->cost);
}

void mcf_instance_free(struct mcf_instance *in)
{
    mcf_instance_free_arcs(in);
    graph_free(&in->g);
}

int mcf_flow_arcs(const struct mcf_instance *in, const double *flow, int64_t *arcs)
{
    int m = in->g.m, moved = 0;
    for (int e = 0; e < m; e++) {
        double x = flow[e] * in->cap_units, hi = (double)in->cap[e], lo = in->g.directed ? 0 : -hi;
        double clamped = fmin(fmax(x, lo), hi);
        moved += fabs(clamped - x) > 0.5;
        int64_t k = (int64_t)nearbyint(clamped);
        arcs[e] = k > 0 ? k : 0;
        if (!in->g.directed)
            arcs[m + e] = k < 0 ? -k : 0;
    }
    return moved;
}
