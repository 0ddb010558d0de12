/* flowfix.c - the corrective procedure (paper appendix A.2, Algorithm 2).
 *
 * What it does
 * ------------
 * A predicted flow respects the capacities (F = C * tanh(P - P^T) does so by
 * construction) but not conservation: some inner nodes keep flow (in > out,
 * the paper's "negative" nodes i-, here "excess") and some emit more than they
 * receive (out > in, the paper's i+, here "deficit").  flow_fix() returns a
 * feasible flow: within capacity and conserved at every node but s and t.
 *
 * The paper's Algorithm 2 first sends each excess back to s and lowers each
 * deficit towards t "without considering edge-capacities", then repairs the
 * capacity violations it made, starting from s, until there are none; how
 * paths are found, and what happens on flow cycles or nodes with no path to s,
 * is left open, and the authors' code has no implementation (reference §7).
 * We keep the paper's two moves and their directions but do them so that the
 * capacity repair is never needed: a move only ever LOWERS the flow on an edge
 * that already carries flow in the direction of the walk.  Lowering |f| never
 * leaves [-cap, cap] (or [0, cap]), so the flow stays within capacity at every
 * step, and the result is a sub-flow of the (clamped) prediction: every edge
 * keeps its sign and 0 <= fixed/pred <= 1.  An excess node can always shed
 * its excess this way, since its excess is at most its in-flow (likewise a
 * deficit is at most the out-flow).  Because the result is a feasible s-t flow its value
 * (net out of s) is at most the maximum flow.
 *
 * The algorithm
 * -------------
 * Orient each edge along its predicted flow (an arc tail -> head carrying
 * amount |f| > 0; edges with no flow play no part and never regain any).
 * "Inner" nodes are all but s and t; s and t absorb any imbalance.
 *
 *  0. Clean and accept.  Non-numbers become 0; each value is clamped to its
 *     box, [-cap, cap] for an undirected edge and [0, cap] for a directed arc
 *     (so a directed prediction slightly below 0 is accepted and becomes 0);
 *     a negative or NaN capacity counts as 0.  If nothing needed clamping and
 *     every inner node already balances to 1e-6 of the largest capacity (the
 *     output contract), the input is returned as it is, bit for bit, with
 *     conservation_after = conservation_before.  So the exact max flow, any
 *     feasible flow, and flow_fix's own output (idempotence) pass unchanged,
 *     and a float32 max flow is not disturbed by its round-off (unless a node
 *     has so much throughput that float32 rounding passes 1e-6).  Otherwise
 *     every inner node is brought to balance up to double round-off (below).
 *
 *  1. Excess, walking upstream (the paper's "send back to s").  Let B be the
 *     inner nodes from which an excess node can be reached through inner
 *     nodes along flow.  Cancel the flow cycles inside B (below), which leaves
 *     B acyclic, and visit B in reverse topological order, so a node comes
 *     after every inner node it sends flow to.  At node v with excess x, lower
 *     v's in-flow by x, taking arcs u -> v in this order of preference, each
 *     class in edge-index order:
 *       a. u an inner node with a deficit, by at most that deficit: the two
 *          errors cancel, no flow is lost from s to t, and u needs no work
 *          in step 2;
 *       b. u = t: flow running backwards from t, which costs no value;
 *       c. u another inner node: the excess moves upstream to u, which is in
 *          B and comes later in the order, and may meet a deficit there;
 *       d. u = s: the excess is returned to s, lowering the value.
 *     Lowering u -> v only raises u's in-minus-out, so step 1 makes no new
 *     deficit and never touches a node again after its turn; at the end no
 *     inner node has an excess.
 *
 *  2. Deficit, walking downstream (the paper's "lower the out-flow towards
 *     t").  The mirror image: D is the inner nodes reachable from a deficit
 *     node along flow, its cycles are cancelled, and it is visited in
 *     topological order; a deficit node lowers its out-flow, preferring arcs
 *     to an inner node with an excess (only round-off is left after step 1),
 *     then to s (backward flow into s), then to other inner nodes, then to t.
 *     This makes no excess, so after it every inner node balances.
 *
 *  3. The paper's capacity repair has nothing left to do: capacities held
 *     throughout.  conservation_after is recomputed from the output.
 *
 * Calling
 * -------
 * conservation_before and conservation_after may be NULL; fixed may be the
 * same array as pred.  conservation_before is computed on pred as given
 * (before any cleaning), in edge-index order, so a NaN shows there.
 * Capacities are expected finite; a bad node index is a bug (die, exit 70).
 *
 * Rules for the cases the paper leaves open
 * -----------------------------------------
 *  - Flow cycles.  A circulation through inner nodes changes no imbalance
 *    and no value, but a walk could go round it many times, shaving a little
 *    each lap.  Cycles inside B (step 1) or D (step 2) are cancelled, i.e.
 *    lowered by their smallest arc amount until that arc is empty, during a
 *    depth-first search that also yields the topological order (Goldberg's
 *    second phase of push-relabel, which turns a preflow into a flow, works
 *    the same way).  Cycles elsewhere are kept: a part of the prediction that
 *    conserves flow and is not upstream of an excess or downstream of a
 *    deficit is returned unchanged.  Cycles through s or t are not cycles of
 *    the inner graph; they are treated like any other flow through s or t.
 *    Self-loops (not expected) are cycles of one arc and are cancelled there.
 *  - Nodes with no path back to s.  Nothing special: the upstream walk takes
 *    in-flow from wherever it comes.  In the acyclic inner graph every chain
 *    of in-flow ends at s, at t or at a node with no in-flow, and a node with
 *    no in-flow has no excess, so every excess ends at s, at t, or cancelled
 *    against a deficit (likewise downstream).
 *  - s and t.  Their conservation is 0 by definition (reported as 0) and they
 *    absorb whatever arrives.  A prediction that mostly sends flow from t to
 *    s keeps doing so: the value may come out negative (it is still at most
 *    the max flow); we do not reverse flow, which would not be a sub-flow.
 *  - An accepted input (step 0) keeps its small imbalances, so its value can
 *    exceed the max flow by at most their sum (at most n * 1e-6 of the
 *    largest capacity); every other output balances to round-off and its
 *    value is at most the max flow up to round-off.
 *  - The result is not the best sub-flow (that would be a max-flow problem
 *    on the prediction's support); the order of preference above is the
 *    greedy choice that loses value only where an error cannot cancel
 *    against another.
 *
 * Tolerance, termination, cost
 * ----------------------------
 * Acceptance (step 0) uses 1e-6 of the largest finite capacity, the output
 * contract.  Inside steps 1 and 2 an imbalance counts as zero below 1e-12 of
 * the largest capacity, which only skips work on round-off.  An arc is
 * emptied by assigning 0, never by a subtraction that could leave a residue,
 * and an arc is lowered by at most its amount, so amounts stay >= 0.
 * Termination does not depend on tolerances: each step visits each node of
 * B or D once, and each cycle cancellation empties at least one arc for good
 * (amounts never grow), so the search cancels at most m cycles.  Cost:
 * O(n + m) for building, orienting and the two visits, plus O(length) per
 * cancelled cycle, so O(n m) in the worst case and O(n + m) when the
 * prediction has few cycles upstream of its errors.  Work never depends on
 * the size of the errors (no per-unit loops).  Round-off: each node ends
 * balanced to within a few ulps of the flow through it; the last step that
 * touches a node recomputes its imbalance from its arcs, so errors do not
 * accumulate along walks.
 *
 * Determinism: nodes in index order, arcs in edge-index order, no
 * randomness, so equal inputs give equal bytes. */
#include "flowfix.h"
#include "die.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The prediction oriented along its flow, with the scratch of one step. */
struct fixer {
    int n, s, t;
    int32_t *tail, *head;       /* [m] arc orientation (along the flow) */
    double *amount;             /* [m] |flow| >= 0, only ever lowered */
    double *imbalance;          /* [n] in-flow minus out-flow */
    int32_t *out_start, *out_arcs;  /* arcs by tail, edge-index order */
    int32_t *in_start, *in_arcs;    /* arcs by head, edge-index order */
    double zero;                /* imbalances below this are round-off */
    /* depth-first search */
    uint8_t *state;
    int32_t *cursor, *stack, *stack_arc, *position, *order;
};

enum { WHITE, GREY, BLACK };

static bool inner(const struct fixer *fx, int v) { return v != fx->s && v != fx->t; }

/* Lower arc e by up to want (never below 0); returns the amount taken. */
static double lower_arc(struct fixer *fx, int e, double want)
{
    double taken;
    if (want >= fx->amount[e]) {
        taken = fx->amount[e];
        fx->amount[e] = 0;
    } else {
        taken = want;
        fx->amount[e] -= want;
    }
    fx->imbalance[fx->head[e]] -= taken;
    fx->imbalance[fx->tail[e]] += taken;
    return taken;
}

/* A cycle keeps every node's imbalance, so only the amounts change. */
static void lower_cycle_arc(struct fixer *fx, int e, double delta)
{
    fx->amount[e] = fx->amount[e] <= delta ? 0 : fx->amount[e] - delta;
}

static void recompute_imbalance(struct fixer *fx, int m)
{
    memset(fx->imbalance, 0, (size_t)fx->n * sizeof *fx->imbalance);
    for (int e = 0; e < m; e++) {
        fx->imbalance[fx->head[e]] += fx->amount[e];
        fx->imbalance[fx->tail[e]] -= fx->amount[e];
    }
}

/* Depth-first search from the roots along the walk's direction (upstream:
 * against the flow, through in-arcs; downstream: through out-arcs), over
 * inner nodes, cancelling every cycle it closes.  Fills fx->order with the
 * visited nodes in postorder and returns their number: every remaining arc
 * between two visited nodes leads, in the walk's direction, from a later
 * node to an earlier one, so walking the order backwards visits a node
 * before every node its error can move to. */
static int search_and_cancel(struct fixer *fx, bool upstream, const bool *root)
{
    const int32_t *start = upstream ? fx->in_start : fx->out_start;
    const int32_t *arcs = upstream ? fx->in_arcs : fx->out_arcs;
    const int32_t *next_node = upstream ? fx->tail : fx->head;
    int n = fx->n, visited = 0;

    memset(fx->state, WHITE, (size_t)n);
    for (int v = 0; v < n; v++)
        fx->cursor[v] = start[v];
    for (int r = 0; r < n; r++) {
        if (!root[r] || fx->state[r] != WHITE)
            continue;
        int top = 0;
        fx->stack[0] = r;
        fx->position[r] = 0;
        fx->state[r] = GREY;
        while (top >= 0) {
            int x = fx->stack[top];
            if (fx->cursor[x] == start[x + 1]) {
                fx->state[x] = BLACK;
                fx->order[visited++] = x;
                top--;
                continue;
            }
            int e = arcs[fx->cursor[x]];
            int y = next_node[e];
            if (fx->amount[e] == 0 || !inner(fx, y) || fx->state[y] == BLACK) {
                fx->cursor[x]++;
                continue;
            }
            if (fx->state[y] == WHITE) {
                /* The cursor stays on e while y is on the stack. */
                fx->state[y] = GREY;
                fx->position[y] = ++top;
                fx->stack[top] = y;
                fx->stack_arc[top] = e;
                continue;
            }
            /* y is on the stack: stack[p..top] and e close a cycle. */
            int p = fx->position[y];
            double delta = fx->amount[e];
            for (int i = p + 1; i <= top; i++)
                delta = fmin(delta, fx->amount[fx->stack_arc[i]]);
            for (int i = p + 1; i <= top; i++)
                lower_cycle_arc(fx, fx->stack_arc[i], delta);
            lower_cycle_arc(fx, e, delta);
            /* Resume from the lowest node whose arc on the cycle emptied;
             * the nodes above it leave the stack unfinished (white again,
             * their cursors kept: the arcs they passed lead to finished
             * nodes or are empty, and both stay so). */
            int q = top;
            for (int i = p; i < top; i++)
                if (fx->amount[fx->stack_arc[i + 1]] == 0) {
                    q = i;
                    break;
                }
            for (int i = q + 1; i <= top; i++)
                fx->state[fx->stack[i]] = WHITE;
            top = q;
        }
    }
    return visited;
}

/* One step: upstream removes every excess (step 1), downstream every
 * deficit (step 2).  sign turns the step's error into a positive number. */
static void settle(struct fixer *fx, int m, bool upstream, bool *root)
{
    const int32_t *start = upstream ? fx->in_start : fx->out_start;
    const int32_t *arcs = upstream ? fx->in_arcs : fx->out_arcs;
    const int32_t *next_node = upstream ? fx->tail : fx->head;
    const double sign = upstream ? 1.0 : -1.0;
    const int near = upstream ? fx->t : fx->s;   /* costs no value */
    const int far = upstream ? fx->s : fx->t;    /* the paper's destination */
    int n = fx->n;

    recompute_imbalance(fx, m);
    bool any = false;
    for (int v = 0; v < n; v++) {
        root[v] = inner(fx, v) && sign * fx->imbalance[v] > fx->zero;
        any |= root[v];
    }
    if (!any)
        return;
    int visited = search_and_cancel(fx, upstream, root);

    for (int k = visited - 1; k >= 0; k--) {
        int v = fx->order[k];
        /* Fresh from the arcs, so round-off does not build up along walks. */
        double in = 0, out = 0;
        for (int i = fx->in_start[v]; i < fx->in_start[v + 1]; i++)
            in += fx->amount[fx->in_arcs[i]];
        for (int i = fx->out_start[v]; i < fx->out_start[v + 1]; i++)
            out += fx->amount[fx->out_arcs[i]];
        fx->imbalance[v] = in - out;
        double error = upstream ? in - out : out - in;
        if (!(error > fx->zero))
            continue;
        for (int preference = 0; preference < 4 && error > 0; preference++)
            for (int i = start[v]; i < start[v + 1] && error > 0; i++) {
                int e = arcs[i];
                int u = next_node[e];
                if (fx->amount[e] == 0 || u == v)
                    continue;
                double want = error;
                if (preference == 0) {
                    /* an opposite error next door: cancel the two */
                    if (!inner(fx, u) || !(-sign * fx->imbalance[u] > fx->zero))
                        continue;
                    want = fmin(want, -sign * fx->imbalance[u]);
                } else if (preference == 1) {
                    if (u != near || u == far)
                        continue;
                } else if (preference == 2) {
                    if (!inner(fx, u))
                        continue;
                } else if (u != far) {
                    continue;
                }
                error -= lower_arc(fx, e, want);
            }
    }
}

/* Counting sort of the arcs with flow by one end; edge-index order kept. */
static void build_index(int n, int m, const int32_t *end, const double *amount,
                        int32_t *start, int32_t *arcs)
{
    memset(start, 0, (size_t)(n + 1) * sizeof *start);
    for (int e = 0; e < m; e++)
        if (amount[e] > 0)
            start[end[e] + 1]++;
    for (int v = 0; v < n; v++)
        start[v + 1] += start[v];
    int32_t *fill = xmalloc((size_t)(n + 1) * sizeof *fill);
    memcpy(fill, start, (size_t)(n + 1) * sizeof *fill);
    for (int e = 0; e < m; e++)
        if (amount[e] > 0)
            arcs[fill[end[e]]++] = e;
    free(fill);
}

/* In-flow minus out-flow per node (0 at s and t), in edge-index order. */
static void conservation(int n, int m, int s, int t, const int32_t *src, const int32_t *dst,
                         const double *flow, double *out)
{
    memset(out, 0, (size_t)n * sizeof *out);
    for (int e = 0; e < m; e++) {
        out[dst[e]] += flow[e];
        out[src[e]] -= flow[e];
    }
    out[s] = 0;
    out[t] = 0;
}

static double value_out_of(int m, int s, const int32_t *src, const int32_t *dst, const double *flow)
{
    double value = 0;
    for (int e = 0; e < m; e++) {
        if (src[e] == s)
            value += flow[e];
        if (dst[e] == s)
            value -= flow[e];
    }
    return value;
}

double flow_fix(int n, int m, int s, int t, bool directed,
                const int32_t *src, const int32_t *dst, const double *cap,
                const double *pred, double *fixed,
                double *conservation_before, double *conservation_after)
{
    if (n <= 0 || m < 0 || s < 0 || s >= n || t < 0 || t >= n)
        die(EX_SOFTWARE, "BUG: flow_fix: n %d, m %d, s %d, t %d", n, m, s, t);
    for (int e = 0; e < m; e++)
        if (src[e] < 0 || src[e] >= n || dst[e] < 0 || dst[e] >= n)
            die(EX_SOFTWARE, "BUG: flow_fix: edge %d joins %d and %d, n is %d",
                e, (int)src[e], (int)dst[e], n);

    double largest_cap = 0;
    for (int e = 0; e < m; e++)
        if (isfinite(cap[e]) && cap[e] > largest_cap)
            largest_cap = cap[e];

    double *before = xmalloc((size_t)n * sizeof *before);
    conservation(n, m, s, t, src, dst, pred, before);
    if (conservation_before)
        memcpy(conservation_before, before, (size_t)n * sizeof *before);

    /* Step 0: clean, then accept a flow that is already feasible. */
    double *clean = xmalloc((size_t)(m ? m : 1) * sizeof *clean);
    bool feasible = true;
    for (int e = 0; e < m; e++) {
        double c = cap[e] > 0 ? cap[e] : 0;
        double f = isnan(pred[e]) ? 0 : pred[e];
        f = fmin(f, c);
        f = fmax(f, directed ? 0 : -c);
        clean[e] = f;
        if (!(f == pred[e]))
            feasible = false;
    }
    for (int v = 0; v < n && feasible; v++)
        if (!(fabs(before[v]) <= 1e-6 * largest_cap))
            feasible = false;
    if (feasible) {
        if (m)
            memmove(fixed, pred, (size_t)m * sizeof *fixed);
        if (conservation_after)
            memcpy(conservation_after, before, (size_t)n * sizeof *before);
        free(clean);
        free(before);
        return value_out_of(m, s, src, dst, fixed);
    }

    struct fixer fx = { .n = n, .s = s, .t = t, .zero = 1e-12 * largest_cap };
    size_t mm = (size_t)(m ? m : 1), nn = (size_t)n;
    fx.tail = xmalloc(mm * sizeof *fx.tail);
    fx.head = xmalloc(mm * sizeof *fx.head);
    fx.amount = xmalloc(mm * sizeof *fx.amount);
    fx.imbalance = xmalloc(nn * sizeof *fx.imbalance);
    fx.out_start = xmalloc((nn + 1) * sizeof *fx.out_start);
    fx.in_start = xmalloc((nn + 1) * sizeof *fx.in_start);
    fx.out_arcs = xmalloc(mm * sizeof *fx.out_arcs);
    fx.in_arcs = xmalloc(mm * sizeof *fx.in_arcs);
    fx.state = xmalloc(nn);
    fx.cursor = xmalloc(nn * sizeof *fx.cursor);
    fx.stack = xmalloc(nn * sizeof *fx.stack);
    fx.stack_arc = xmalloc(nn * sizeof *fx.stack_arc);
    fx.position = xmalloc(nn * sizeof *fx.position);
    fx.order = xmalloc(nn * sizeof *fx.order);
    bool *root = xmalloc(nn * sizeof *root);

    for (int e = 0; e < m; e++) {
        bool forward = clean[e] >= 0;
        fx.tail[e] = forward ? src[e] : dst[e];
        fx.head[e] = forward ? dst[e] : src[e];
        fx.amount[e] = fabs(clean[e]);
    }
    build_index(n, m, fx.tail, fx.amount, fx.out_start, fx.out_arcs);
    build_index(n, m, fx.head, fx.amount, fx.in_start, fx.in_arcs);

    settle(&fx, m, true, root);
    settle(&fx, m, false, root);

    /* Back to signed flows; copysign keeps the sign of the cleaned value
     * (also of a -0), so untouched edges come out as they went in. */
    for (int e = 0; e < m; e++)
        fixed[e] = copysign(fx.amount[e], clean[e]);
    if (conservation_after)
        conservation(n, m, s, t, src, dst, fixed, conservation_after);
    double value = value_out_of(m, s, src, dst, fixed);

    free(root);
    free(fx.order); free(fx.position); free(fx.stack_arc); free(fx.stack);
    free(fx.cursor); free(fx.state);
    free(fx.in_arcs); free(fx.out_arcs); free(fx.in_start); free(fx.out_start);
    free(fx.imbalance); free(fx.amount); free(fx.head); free(fx.tail);
    free(clean);
    free(before);
    return value;
}
