/* mincost.h - minimum-cost maximum flow by successive shortest paths with
 * node potentials: the exact tracer a min-cost-flow entry learns from, and
 * the certificate that proves a flow optimal without a ground truth.
 *
 * Why the *maximum* flow and not a flow of a given demand: the instance is
 * then max-flow's (s, t, cap) plus a cost per arc, with no demand key to
 * generate, validate or make feasible, and the required value is the one
 * the max-flow tracer already computes.  The pair has max-flow's shape with
 * its dual changed: the flow is the primal output as before, and the min
 * cut is replaced by the node potentials pi, whose reduced costs
 * c(u,v) + pi(u) - pi(v) certify the cost as the cut certified the value.
 *
 * Everything is in integers, as maxflow.h: capacities in the units of
 * graph_capacity_units(), costs in the units of mincost_cost_units(), so
 * every augmentation moves whole units, no distance is lost to round-off and
 * the returned flow is exactly optimal.  Costs may be negative where the
 * arcs of positive capacity have no cycle of negative cost (a DAG has none):
 * the potentials then start from Bellman-Ford, and every round after that
 * is Dijkstra on non-negative reduced costs.
 *
 * Arcs are directed: arc e runs src[e] -> dst[e], carries 0 <= f[e] <=
 * cap[e] and costs cost[e] per unit.  An undirected edge of cost c is two
 * antiparallel arcs of cost c each.  Parallel and antiparallel arcs are
 * allowed.  Residual arcs are numbered 2e (src -> dst, cap - f, cost c) and
 * 2e+1 (dst -> src, f, cost -c). */
#ifndef DAR_MINCOST_H
#define DAR_MINCOST_H
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

struct mincost_net {
    int n, m, s, t;
    const int32_t *src, *dst;   /* [m] arc tail and head */
    const int64_t *cap;         /* [m] integer capacities >= 0 */
    const int64_t *cost;        /* [m] integer cost per unit of flow, any sign */
};

/* What is wrong with an instance, for the caller to report naming its
 * record: key is the record key at fault ("cap", "cost", "potential") or
 * NULL when the graph as a whole is (a trace over the size limit), index
 * the entry of that key (arc or node) or -1. */
struct mincost_error {
    const char *key;
    int64_t index;
    char what[256];
};
/* "'cost' entry 3 <what>" (what reads on: "is -1, expected ..."), or what
 * alone when there is no key. */
void mincost_error_format(const struct mincost_error *err, char *buf, size_t size);

/* Float costs as exact integers: k[e] = cost[e] * units, and *units the
 * scale (real costs are k / units).  The scale is the first that makes every
 * cost an integer: scale_hint when > 0 (the record's own, as cap_scale),
 * else the smallest of 1..1000 within 1e-5 relative (k/10 costs stored as
 * float32), else the smallest power of two, which makes any float exact.
 * Fails naming the 'cost' entry when a cost is not finite or needs more
 * than 2^40 units (costs spanning more than 2^40 have no exact scale that
 * leaves room for the sums the algorithm forms). */
bool mincost_cost_units(int m, const float *cost, int64_t scale_hint, int64_t *k, int64_t *units,
                        struct mincost_error *err);

/* The instance checks every entry point makes: capacities >= 0 and summing
 * within int64, sum |cost| * cap within int64 (so the cost of any feasible
 * flow fits), sum |cost| over arcs of positive capacity within 2^58 (so the
 * potentials, distances and reduced costs the rounds form fit: each is a
 * few such sums, see mincost.c), and no cycle of negative cost among the
 * arcs of positive capacity.  The shape (n >= 2, s != t, endpoints in range, no self-loop)
 * is the caller's to guarantee: a bad one dies with EX_SOFTWARE. */
bool mincost_check(const struct mincost_net *g, struct mincost_error *err);

#define MINCOST_UNREACHED INT64_MAX

/* The trace, one frame per round.  Round r runs Dijkstra from s on the
 * reduced costs of the potentials before it; if t is reached, the round
 * updates the potentials and augments along the shortest path; the last
 * round does not reach t and changes nothing.  So R = 1 +
 * augmentations, and the trace of a graph without an s-t path is one round.
 *
 * Pointers: pointer[v] is the node before v on its shortest path from s,
 * and pointer_arc[v] the residual arc it arrives by (2e or 2e+1, since two
 * antiparallel arcs join the same nodes); s and unreached nodes point to
 * themselves with arc -1.  The tie rule: each step settles the labelled
 * node of smallest distance, then smallest index, and relaxes its residual
 * arcs in increasing order; a label changes only on a strict improvement,
 * so a node points to the first settled of its tight predecessors, over the
 * lower of their arcs. */
struct mincost_trace {
    int rounds;                 /* R >= 1 (the rounds trace: its frames) */
    int capacity;               /* rounds the arrays have room for */
    int n, m;
    int64_t *distance;          /* [R*n] reduced distance from s, MINCOST_UNREACHED where not reached */
    int32_t *pointer;           /* [R*n] */
    int32_t *pointer_arc;       /* [R*n] */
    int64_t *potential;         /* [(R+1)*n] pi before round 0 (Bellman-Ford's), then after each round */
    int64_t *flow;              /* [R*m] flow per arc after the round (the last round: the final flow) */
    int64_t *amount;            /* [R] units pushed in the round (0 in the last) */
    uint8_t *phase;             /* [R] the rounds trace's frame kinds (MINCOST_PHASE_*), else NULL */
};
void mincost_trace_free(struct mincost_trace *tr);

/* The rounds trace (mincost_flow_as with rounds): the same successive
 * shortest paths, each search written as synchronous relaxation rounds on
 * the reduced costs, so that each frame is one hop (one round of messages)
 * from the one before.  Its entries are frames, not rounds: search r writes
 * a frame before any relaxation (only s reached, at distance 0, every node
 * its own pointer; search 0's is the state before the first round), then
 * one after each relaxation round that changes a label: every reached node
 * u offers d(u) + c(a) + pi(u) - pi(v) along each residual arc a = u->v
 * left, from the distances of the round before, and v takes the least
 * offer when it is strictly below its label.  When a round changes nothing
 * the labels are the shortest distances (Dijkstra's).  A search that
 * reaches t then writes an augmentation frame: its distances and pointers,
 * the potentials raised and the flow after the augmentation along the
 * pointers; the last search writes none.  phase holds each frame's kind;
 * potential holds pi before the first frame, then after each frame (a
 * search frame leaves it as it was), flow the flow after each frame.
 *
 * The rounds' tie rule is Bellman-Ford's, not Dijkstra's: a label changes
 * only on a strict improvement, and among the offers of a round of equal
 * least distance the one of the smallest tail, then the lowest arc, wins;
 * so a node points to the tight predecessor whose offer first gave it its
 * shortest distance (of that round's, the smallest tail).  Where a node has
 * two tight predecessors (two shortest paths of equal cost, common with
 * costs of a few units), Dijkstra's may be the other, and no rule local to
 * a round can always end on Dijkstra's: it points to the first of them
 * settled, and the order in which Dijkstra settles the nodes of one
 * distance is a sequential search over the arcs of zero reduced cost (the
 * labelled node of smallest index next), which no round of offers sees;
 * so the simplest rule is kept.  The augmentation follows the rounds' own
 * pointers, so that the path pushed is the one the frames show; the flow
 * is then of the same value and cost as mincost_flow's but, where shortest
 * paths tie, not always the same flow, and the frames agree with the
 * one-frame trace's up to the first search whose pointers differ. */
enum { MINCOST_PHASE_SEARCH = 0, MINCOST_PHASE_AUGMENT = 1 };

/* The result: the flow per arc, its value (net flow out of s, the maximum)
 * and cost, and potentials for which no residual arc has negative reduced
 * cost (the certificate of mincost_certify). */
struct mincost_solution {
    int64_t value, cost;
    int rounds;
    int64_t *flow;              /* [m] */
    int64_t *potential;         /* [n] */
};
void mincost_solution_free(struct mincost_solution *sol);

/* Solve g.  tr may be NULL (no trace kept); otherwise it is an output
 * holding fresh arrays afterwards, refused (false, err) once it would pass
 * max_trace_bytes (0: no limit).  Returns false with err when
 * mincost_check() refuses g; sol and tr then own nothing. */
bool mincost_flow(const struct mincost_net *g, struct mincost_solution *sol, struct mincost_trace *tr,
                  size_t max_trace_bytes, struct mincost_error *err);
/* The same, by relaxation rounds when rounds (the rounds trace above;
 * false: mincost_flow).  sol->rounds counts the searches either way. */
bool mincost_flow_as(const struct mincost_net *g, struct mincost_solution *sol, struct mincost_trace *tr,
                     bool rounds, size_t max_trace_bytes, struct mincost_error *err);

/* The certificate, which needs no ground truth.  A feasible flow f of value
 * v and any potentials pi give the dual bound
 *     D(pi) = v (pi(t) - pi(s)) - sum_e cap_e max(0, -(c_e + pi(u) - pi(v))),
 * no more than the cost of any flow of value v (LP duality), and
 *     cost(f) - D(pi) = sum over residual arcs a of r(a) * max(0, -c_pi(a)),
 * so f is of minimum cost among flows of its value iff some pi leaves no
 * residual arc of negative reduced cost, and otherwise the gap bounds how far
 * it is from the optimum.  maximum adds that f is a maximum flow (t cannot
 * be reached from s in the residual graph): certified then means a minimum-
 * cost maximum flow. */
struct mincost_certificate {
    bool feasible;              /* 0 <= f <= cap, conservation at every node but s and t */
    bool maximum;               /* feasible and no residual s-t path */
    bool optimal;               /* feasible and gap == 0 */
    int64_t value, cost;        /* net flow out of s; sum cost * f (0 when not feasible) */
    int64_t gap;                /* cost - D(pi) >= 0 (0 when not feasible) */
    int negative_arcs;          /* residual arcs of negative reduced cost */
    int32_t worst_arc;          /* the most negative one (residual numbering), or -1 */
    int64_t worst_reduced;      /* its reduced cost */
};
/* Fails (err naming 'potential' and the node) only when pi is so large
 * that a reduced cost or the gap leaves int64; mincost_flow's never do. */
bool mincost_certify(const struct mincost_net *g, const int64_t *flow, const int64_t *potential,
                     struct mincost_certificate *c, struct mincost_error *err);

#endif
