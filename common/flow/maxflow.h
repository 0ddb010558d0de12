/* maxflow.h - maximum flow: the Ford-Fulkerson trace the model learns, a fast
 * exact solver for big graphs, and an independent oracle for tests.
 *
 * All three work on integer capacities (struct flownet), so they are exact:
 * no float round-off, no zero-size augmentation, the flow is always maximum.
 * Callers turn float capacities into integers with graph_capacity_units().
 *
 * Residuals, per node pair: for an undirected edge e={u,v} carrying net flow
 * f (u->v), residual u->v is cap-f and v->u is cap+f.  For a directed arc
 * (u,v): residual u->v is cap-f and v->u is f.  Pair residual r(u,v) sums
 * over the edges joining u and v. */
#ifndef DAR_MAXFLOW_H
#define DAR_MAXFLOW_H
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

struct flownet {
    int n, m, s, t;
    bool directed;
    const int32_t *src, *dst;   /* [m] */
    const int64_t *cap;         /* [m] integer capacities >= 0 */
    const float *w;             /* [m] Bellman-Ford weights (trace only) */
};

/* The Ford-Fulkerson trace (dar-reference.md §2 with the true residual):
 * frame 0 is (mask = e_s, pi = identity, flow 0, phase 1); each synchronous
 * Bellman-Ford round adds a frame (phase 1) and each phase ends with its "no
 * change" frame; each augmentation adds a flow frame (mask e_s, pi identity,
 * phase 0).  The trace ends with the BF phase that does not reach t.
 *
 * The flow changes only at flow frames, so it is kept once per change:
 * flows[j*m ..] is the flow after j augmentations, and frame k shows flows[j]
 * for j = the number of flow frames among frames 0..k. */
struct trace {
    int steps;                  /* T */
    int capacity;               /* frames held (== steps) */
    int n, m;
    uint8_t *phase;             /* [T]    1 = Bellman-Ford round, 0 = flow */
    uint8_t *mask;              /* [T*n]  reached set */
    int32_t *pi;                /* [T*n]  predecessor pointers */
    int64_t *flow;              /* [T*m]  net flow per edge after the frame (maxflow_trace only) */
    int flow_count;             /* F = 1 + augmentations */
    int64_t *flows;             /* [F*m]  the distinct flows, in order */
    /* allocation sizes in bytes, and the algorithm's work memory, so that
     * maxflow_trace_frames() can reuse a trace without allocating */
    size_t phase_bytes, mask_bytes, pi_bytes, flows_bytes, work_bytes;
    void *work;
};
void trace_free(struct trace *tr);

/* Run the trace.  Fills tr, the final flow[m] and cut[n] (source-maximal min
 * cut, 0 = source side); returns the max-flow value (integer units).
 * tr is an output: whatever it held is ignored (trace_free() an earlier
 * trace before reusing the struct), and it owns fresh arrays afterwards. */
int64_t maxflow_trace(const struct flownet *g, struct trace *tr, int64_t *flow, uint8_t *cut);

/* The same trace without the T*m flow array (tr->flow stays NULL; read the
 * flows through tr->flows).  For a stream of graphs: tr must start as {0}
 * or hold an earlier maxflow_trace_frames() result, whose memory it reuses;
 * trace_free() it at the end. */
int64_t maxflow_trace_frames(const struct flownet *g, struct trace *tr, int64_t *flow, uint8_t *cut);

/* How the trace's Bellman-Ford rounds relax, for the test that checks the
 * two ways against each other (the frames must not depend on it): graphs of
 * at most 64 nodes relax dense rows where the CPU has AVX2, the others
 * their pair lists.  Set it before any trace runs. */
enum maxflow_relax { RELAX_AUTO, RELAX_PAIR_LISTS };
extern enum maxflow_relax maxflow_relax;

/* The fast exact solver for graphs with millions of edges (no trace). */
int64_t maxflow_fast(const struct flownet *g, int64_t *flow, uint8_t *cut);

/* An independent exact algorithm, written separately, used only as a test
 * oracle (value only). */
int64_t maxflow_oracle(const struct flownet *g);

/* The source-maximal minimum cut of a maximum flow: cut[v] = 1 iff v can
 * still reach t in the residual graph. */
void mincut_from_flow(const struct flownet *g, const int64_t *flow, uint8_t *cut);

/* Checks used by tools and tests: capacity and conservation of flow.
 * Returns true when flow is feasible; value receives the net flow out of s. */
bool flow_feasible(const struct flownet *g, const int64_t *flow, int64_t *value);

#endif
