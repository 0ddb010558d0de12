#!/usr/bin/python3
"""mincost_oracle - fresh min-cost flow instances, and the checks of
tests/tools/mincost_solve's answers on them against networkx.

    mincost_oracle.py make SEED > instances.mp
    mincost_oracle.py check solved.mp MIN_GRAPHS
    mincost_oracle.py traced traced.mp MIN_GRAPHS
    mincost_oracle.py rounds rounds.mp MIN_GRAPHS [one-frame.mp]

make writes graphs of several sizes, densities, capacity and cost laws
(non-negative costs, zero costs, wide costs, negative costs on a DAG),
with parallel and antiparallel arcs and zero capacities, each with
networkx's optimum (max_flow_min_cost, its cost checked by network_simplex
at that demand) as nx_value and nx_cost.  Most records also carry a flow
and potentials to certify (check_flow, check_potential, check_kind):
networkx's own optimal flow with potentials from a Bellman-Ford of our own
("optimal"), that flow with one unit pushed round a residual cycle of
positive cost ("costlier"), with one arc's flow moved by one unit
("infeasible"), or with one unit taken off an s-t path ("smaller").

check holds each solved record to: value and cost equal networkx's; the
solver's certificate optimal and maximum with gap 0; every round of the
trace checked from the definitions (the potentials before it leave no
residual arc of negative reduced cost; the reached set and the distances are
Bellman-Ford's true residual distances shifted by the potentials; every
pointer is a tight residual arc, and a search of our own following the
tie rule mincost.h states gives the same pointers; the augmentation pushes the bottleneck of
the pointer path and nothing else; the last round does not reach t); and
the certificates of the given flows as their kind requires.  Prints one
summary line; exits 1 with the first disagreement.

rounds holds ff-trace --sp-rounds's records to traced's checks of the
solution, then replays the whole trace from the definitions in exact
units: the starting potentials a Bellman-Ford of our own, each search's
frames synchronous relaxation rounds on the reduced costs (a node takes the
least offer d(u) + c(a) + pi(u) - pi(v) of the round before when strictly
below its label, of equal offers the smallest tail, then the lowest
residual arc) until a round changes nothing, its distances then those of
tie_rule_search (Dijkstra's), the augmentation frame the potentials raised
by min(d, d(t)) and the bottleneck pushed along the rounds' pointers.
Given the one-frame trace of the same graphs, the frames agree with it up
to the first search whose pointers differ from Dijkstra's (the tie rules
differ, mincost.h), and the count of such searches is printed.
"""
import sys
import msgpack
import msgpack_numpy
import numpy as np
import networkx as nx

SIZES = (4, 7, 12, 20, 32)
COST_LAWS = ("uniform", "zero", "wide", "dag-negative", "unit")


def arcs_of(rng, n, law):
    """Arc list (u, v) with duplicates (parallel arcs) and antiparallel pairs."""
    density = rng.uniform(0.15, 0.7)
    order = rng.permutation(n) if law == "dag-negative" else None
    rank = np.empty(n, dtype=np.int64)
    if order is not None:
        rank[order] = np.arange(n)
    arcs = []
    for u in range(n):
        for v in range(n):
            if u == v or rng.random() >= density:
                continue
            if order is not None and rank[u] > rank[v]:
                continue
            arcs.append((u, v))
            if rng.random() < 0.1:
                arcs.append((u, v))          # a parallel arc
    rng.shuffle(arcs)
    if order is not None:
        return arcs, int(order[0]), int(order[-1])
    s, t = (int(x) for x in rng.choice(n, 2, replace=False))
    return arcs, s, t


def costs_of(rng, m, law):
    if law == "uniform":
        return rng.integers(0, 10, m)
    if law == "zero":
        return np.zeros(m, dtype=np.int64)
    if law == "wide":
        return rng.integers(0, 1_000_000, m)
    if law == "dag-negative":
        return rng.integers(-20, 21, m)
    return np.ones(m, dtype=np.int64)


def nx_solve(n, s, t, src, dst, cap, cost):
    """networkx's optimum; every arc through a midpoint node of its own, as
    DiGraph has no parallel arcs."""
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    for e, (u, v) in enumerate(zip(src.tolist(), dst.tolist())):
        G.add_edge(u, ("mid", e), capacity=int(cap[e]), weight=int(cost[e]))
        G.add_edge(("mid", e), v, capacity=int(cap[e]), weight=0)
    flow = nx.max_flow_min_cost(G, s, t)
    value = sum(flow[s].values()) - sum(flow[u][s] for u in G.predecessors(s))
    total = nx.cost_of_flow(G, flow)
    if value > 0:
        H = G.copy()
        H.nodes[s]["demand"], H.nodes[t]["demand"] = -value, value
        simplex_cost, _ = nx.network_simplex(H)
        assert simplex_cost == total, (simplex_cost, total)
    arc_flow = np.array([flow[u][("mid", e)] for e, u in enumerate(src.tolist())], dtype=np.int64)
    return value, total, arc_flow


def residual_arcs(src, dst, cap, cost, flow):
    """(tail, head, residual, cost, arc) of every residual arc 2e, 2e+1."""
    m = len(src)
    tail = np.empty(2 * m, dtype=np.int64)
    head = np.empty(2 * m, dtype=np.int64)
    tail[0::2], head[0::2], tail[1::2], head[1::2] = src, dst, dst, src
    r = np.empty(2 * m, dtype=np.int64)
    r[0::2], r[1::2] = cap - flow, flow
    c = np.empty(2 * m, dtype=np.int64)
    c[0::2], c[1::2] = cost, -cost
    return tail, head, r, c


def bellman_ford(n, tail, head, c, sources):
    """Distances over the given arcs from every node in sources at 0 (None:
    unreached is a large number); raises on a negative cycle."""
    big = np.int64(1) << 60
    d = np.full(n, big, dtype=np.int64)
    d[list(sources)] = 0
    for _ in range(n + 1):
        live = d[tail] < big
        candidate = np.full(n, big, dtype=np.int64)
        np.minimum.at(candidate, head[live], d[tail[live]] + c[live])
        new = np.minimum(d, candidate)
        if (new == d).all():
            return d, big
        d = new
    raise AssertionError("negative cycle in a residual graph")


def potentials_for(n, src, dst, cap, cost, flow):
    tail, head, r, c = residual_arcs(src, dst, cap, cost, flow)
    live = r > 0
    d, _ = bellman_ford(n, tail[live], head[live], c[live], range(n))
    return d


def cycle_of_positive_cost(n, src, dst, cap, cost, flow):
    """Arcs (residual numbering) of a residual cycle of positive cost, or None."""
    tail, head, r, c = residual_arcs(src, dst, cap, cost, flow)
    for a in np.flatnonzero(r > 0).tolist()[:20]:
        # a path back from head(a) to tail(a), breadth first
        previous = {int(head[a]): None}
        queue = [int(head[a])]
        for x in queue:
            for b in np.flatnonzero((tail == x) & (r > 0)).tolist():
                if b ^ 1 == a or int(head[b]) in previous:
                    continue
                previous[int(head[b])] = b
                queue.append(int(head[b]))
        if int(tail[a]) not in previous:
            continue
        cycle, x = [a], int(tail[a])
        while previous[x] is not None:
            cycle.append(previous[x])
            x = int(tail[previous[x]])
        if sum(int(c[b]) for b in cycle) > 0:
            return cycle
    return None


def push(flow, arcs, amount):
    out = flow.copy()
    for a in arcs:
        out[a >> 1] += -amount if a & 1 else amount
    return out


def attach_check(rng, rec, n, s, t, src, dst, cap, cost, flow):
    kind = ("optimal", "costlier", "infeasible", "smaller", None)[int(rng.integers(0, 5))]
    given = flow
    if kind == "costlier":
        cycle = cycle_of_positive_cost(n, src, dst, cap, cost, flow)
        if cycle is None:
            kind = "optimal"
        else:
            given = push(flow, cycle, 1)
            rec["check_extra"] = int(sum(cost[a >> 1] * (-1 if a & 1 else 1) for a in cycle))
    elif kind == "infeasible":
        e = int(rng.integers(0, len(src))) if len(src) else None
        if e is None or src[e] in (s, t) and dst[e] in (s, t):
            kind = "optimal"
        else:
            given = flow.copy()
            given[e] += 1 if flow[e] < cap[e] else -1
            if given[e] < 0:
                kind, given = "optimal", flow
    elif kind == "smaller":
        path = flow_path(n, s, t, src, dst, flow)
        if path is None:
            kind = "optimal"
        else:
            given = flow.copy()
            given[path] -= 1
    if kind is None:
        return
    rec["check_kind"] = kind
    rec["check_flow"] = given.astype(np.int64)
    rec["check_potential"] = potentials_for(n, src, dst, cap, cost, flow).astype(np.int64)


def flow_path(n, s, t, src, dst, flow):
    """Arcs of an s-t path carrying flow, or None."""
    previous = {s: None}
    queue = [s]
    for x in queue:
        for e in np.flatnonzero((src == x) & (flow > 0)).tolist():
            if int(dst[e]) not in previous:
                previous[int(dst[e])] = e
                queue.append(int(dst[e]))
    if t not in previous:
        return None
    path, x = [], t
    while previous[x] is not None:
        path.append(previous[x])
        x = int(src[previous[x]])
    return path


def make(seed):
    rng = np.random.default_rng(seed)
    out = sys.stdout.buffer
    index = 0
    for n in SIZES:
        for law in COST_LAWS:
            for _ in range(14):
                arcs, s, t = arcs_of(rng, n, law)
                m = len(arcs)
                src = np.array([a[0] for a in arcs], dtype=np.int32)
                dst = np.array([a[1] for a in arcs], dtype=np.int32)
                top = int(rng.choice([3, 10, 1000]))
                cap = rng.integers(0, top + 1, m).astype(np.int64)
                cost = costs_of(rng, m, law).astype(np.int64)
                value, total, flow = nx_solve(n, s, t, src.astype(np.int64), dst.astype(np.int64), cap, cost)
                rec = {"kind": "graph", "id": index, "family": law, "n": n, "m": m, "s": s, "t": t,
                       "src": src, "dst": dst, "cap": cap, "cost": cost, "nx_value": int(value),
                       "nx_cost": int(total)}
                attach_check(rng, rec, n, s, t, src.astype(np.int64), dst.astype(np.int64), cap, cost, flow)
                out.write(msgpack.packb(rec, default=msgpack_numpy.encode, use_bin_type=True))
                index += 1


def fail(index, message):
    print(f"record {index}: {message}")
    sys.exit(1)


def tie_rule_search(n, s, tail, head, res, reduced):
    """mincost.h's search as its header states the rule: settle the labelled
    node of smallest distance, then smallest index; relax its residual arcs
    in increasing order, a label changing only on a strict improvement."""
    d, pointer, arc = np.full(n, -1, dtype=np.int64), np.arange(n), np.full(n, -1, dtype=np.int64)
    d[s], settled = 0, np.zeros(n, dtype=bool)
    while True:
        labelled = [v for v in range(n) if d[v] >= 0 and not settled[v]]
        if not labelled:
            return d, pointer, arc
        u = min(labelled, key=lambda v: (d[v], v))
        settled[u] = True
        for a in np.flatnonzero((tail == u) & (res > 0)).tolist():
            v = int(head[a])
            if not settled[v] and (d[v] < 0 or d[u] + reduced[a] < d[v]):
                d[v], pointer[v], arc[v] = d[u] + reduced[a], u, a


def check_round(r, rec, k):
    """Round k of the trace against the definitions."""
    n, s, t = rec["n"], rec["s"], rec["t"]
    src, dst = rec["src"].astype(np.int64), rec["dst"].astype(np.int64)
    before = rec["hint_flow"][k - 1] if k else np.zeros(rec["m"], dtype=np.int64)
    after, pi = rec["hint_flow"][k], rec["hint_potential"][k]
    tail, head, res, c = residual_arcs(src, dst, rec["cap"], rec["cost"], before)
    live = res > 0
    reduced = c + pi[tail] - pi[head]
    if (reduced[live] < 0).any():
        fail(r, f"round {k}: a residual arc has negative reduced cost before the round")
    true, big = bellman_ford(n, tail[live], head[live], c[live], [s])
    distance, pointer, arc = rec["hint_distance"][k], rec["hint_pointer"][k], rec["hint_pointer_arc"][k]
    if not ((distance >= 0) == (true < big)).all():
        fail(r, f"round {k}: the reached set is not the residual graph's")
    reached = true < big
    if (distance[reached] != true[reached] - pi[reached] + pi[s]).any():
        fail(r, f"round {k}: distances are not the true residual distances shifted by the potentials")
    for v in np.flatnonzero(reached).tolist():
        if v == s:
            continue
        a = int(arc[v])
        if a < 0 or tail[a] != pointer[v] or head[a] != v or res[a] <= 0 or \
                distance[pointer[v]] + reduced[a] != distance[v]:
            fail(r, f"round {k}: the pointer of node {v} is not a tight residual arc")
    ours = tie_rule_search(n, s, tail, head, res, reduced)
    if any((ours[i] != h).any() for i, h in enumerate((np.where(distance < 0, -1, distance), pointer, arc))):
        fail(r, f"round {k}: the pointers do not follow mincost.h's tie rule")
    last = k == rec["rounds"] - 1
    if last != (distance[t] < 0):
        fail(r, f"round {k}: t is {'reached' if distance[t] >= 0 else 'unreached'} in round {k} of {rec['rounds']}")
    path, x = [], t
    while not last and x != s:
        path.append(int(arc[x]))
        x = int(pointer[x])
    amount = min((int(res[a]) for a in path), default=0)
    if (after != push(before, path, amount)).any() or last and (after != before).any():
        fail(r, f"round {k}: the flow after the round is not the bottleneck pushed along the pointers")


def check_given(r, rec):
    kind = rec["check_kind"]
    feasible, maximum, gap = rec["check_feasible"], rec["check_maximum"], rec["check_gap"]
    expect = {"optimal": (True, True), "costlier": (True, True), "infeasible": (False, False),
              "smaller": (True, False)}[kind]
    if (feasible, maximum) != expect:
        fail(r, f"{kind} flow: feasible {feasible}, maximum {maximum}, expected {expect}")
    if kind == "optimal" and (gap != 0 or rec["check_negative_arcs"] != 0):
        fail(r, f"networkx's optimal flow: gap {gap} with its potentials, expected 0")
    if kind == "costlier" and (gap < rec["check_extra"] or rec["check_negative_arcs"] == 0):
        fail(r, f"flow made costlier by {rec['check_extra']}: gap {gap} does not bound it")


def check(path, minimum):
    with open(path, "rb") as f:
        records = list(msgpack.Unpacker(f, object_hook=msgpack_numpy.decode, raw=False, max_buffer_size=0))
    kinds, rounds = {}, 0
    for r, rec in enumerate(records):
        if (rec["value"], rec["cost_total"]) != (rec["nx_value"], rec["nx_cost"]):
            fail(r, f"value {rec['value']} cost {rec['cost_total']}, networkx {rec['nx_value']} {rec['nx_cost']}")
        if not (rec["cert_optimal"] and rec["cert_maximum"] and rec["cert_gap"] == 0):
            fail(r, "the solver's own flow and potentials are not certified optimal and maximum")
        if (rec["hint_flow"][-1] != rec["flow"]).any() or (rec["hint_potential"][-1] != rec["potential"]).any():
            fail(r, "the trace's last round is not the solution")
        for k in range(rec["rounds"]):
            check_round(r, rec, k)
        rounds += rec["rounds"]
        if "check_kind" in rec:
            check_given(r, rec)
            kinds[rec["check_kind"]] = kinds.get(rec["check_kind"], 0) + 1
    if len(records) < minimum:
        fail(len(records), f"only {len(records)} records, expected at least {minimum}")
    print(f"{len(records)} graphs, {rounds} rounds agree with networkx; certificates checked: "
          + ", ".join(f"{v} {k}" for k, v in sorted(kinds.items())))


def scale_of(values):
    """The smallest of 1..1000 that makes every value an integer (within
    1e-5 relative, as mincost_cost_units and graph_capacity_units)."""
    for k in range(1, 1001):
        x = values.astype(np.float64) * k
        if (np.abs(x - np.rint(x)) <= 1e-5 * np.maximum(1.0, np.abs(x))).all():
            return k
    raise ValueError("no scale in 1..1000")


def exact(values, scale, what, r):
    x = np.asarray(values, dtype=np.float64) * scale
    k = np.rint(x).astype(np.int64)
    if (np.abs(x - k) > 1e-3).any():
        fail(r, f"{what} is not a whole number of units of 1/{scale}")
    return k


def traced(path, minimum):
    """ff-trace --algorithm min-cost-flow's records (gen-graphs --instance
    min-cost-flow): value and cost equal networkx's optimum; the flow
    feasible (bounds, conservation), of that value and cost (optimal flows
    are not unique, so the flow is held to what makes it optimal, not to
    networkx's); the potentials leave no residual arc of negative reduced
    cost; the trace's first frame empty and its last the solution."""
    records = load(path)
    directed = negative = 0
    for r, rec in enumerate(records):
        d, neg = check_solution(r, rec)
        directed += d
        negative += neg
    if len(records) < minimum:
        fail(len(records), f"only {len(records)} records, expected at least {minimum}")
    print(f"{len(records)} traced graphs agree with networkx ({directed} directed, {negative} with negative costs)")


def load(path):
    with open(path, "rb") as f:
        return list(msgpack.Unpacker(f, object_hook=msgpack_numpy.decode, raw=False, max_buffer_size=0))


def units_of(r, rec):
    """The record's arcs as mincost takes them (an undirected edge e also
    arc m + e, dst -> src) in exact units, and the two scales."""
    src, dst = np.asarray(rec["src"], dtype=np.int64), np.asarray(rec["dst"], dtype=np.int64)
    cu = rec.get("cap_scale") or scale_of(rec["cap"])
    ku = scale_of(rec["cost"])
    cap, cost = exact(rec["cap"], cu, "'cap'", r), exact(rec["cost"], ku, "'cost'", r)
    if rec["directed"]:
        return src, dst, cap, cost, src, dst, cap, cost, cu, ku
    return (src, dst, cap, cost, np.concatenate([src, dst]), np.concatenate([dst, src]),
            np.concatenate([cap, cap]), np.concatenate([cost, cost]), cu, ku)


def check_solution(r, rec):
    """traced's checks of one record; returns (directed, negative costs)."""
    n, s, t = rec["n"], rec["s"], rec["t"]
    src, dst, cap, cost, asrc, adst, acap, acost, cu, ku = units_of(r, rec)
    value, total, _ = nx_solve(n, s, t, asrc, adst, acap, acost)
    if (exact(rec["maxflow"], cu, "'maxflow'", r), exact(rec["mincost"], cu * ku, "'mincost'", r)) != (value, total):
        fail(r, f"maxflow {rec['maxflow']} mincost {rec['mincost']}, networkx {value / cu} {total / (cu * ku)}")
    F = exact(rec["flow"], cu, "'flow'", r)
    low = np.zeros_like(cap) if rec["directed"] else -cap
    if (F < low).any() or (F > cap).any():
        fail(r, "'flow' leaves its bounds")
    net = np.zeros(n, dtype=np.int64)
    np.add.at(net, src, F)
    np.subtract.at(net, dst, F)
    inner = np.ones(n, dtype=bool)
    inner[[s, t]] = False
    if net[inner].any() or net[s] != value:
        fail(r, f"'flow' does not conserve, or its value {net[s]} is not {value}")
    if int((cost * np.abs(F)).sum()) != total:
        fail(r, f"'flow' costs {(cost * np.abs(F)).sum()}, not the optimum {total}")
    pi = exact(rec["potential"], ku, "'potential'", r)
    # the cheapest residual arc each way: forward where F < cap (an
    # undirected edge's flow dst->src is first cancelled, at -cost),
    # backward where F > its lower bound (cancelling src->dst flow)
    for e in range(len(src)):
        u, v, c = src[e], dst[e], cost[e]
        forward = -c if F[e] < 0 else c
        backward = -c if F[e] > 0 else c
        if F[e] < cap[e] and forward + pi[u] - pi[v] < 0:
            fail(r, f"residual arc {u}->{v} (edge {e}) has negative reduced cost")
        if F[e] > low[e] and backward + pi[v] - pi[u] < 0:
            fail(r, f"residual arc {v}->{u} (edge {e}) has negative reduced cost")
    T = rec["steps"]
    if T < 3 or rec["hint_flow"].shape != (T, len(src)) or rec["hint_potential"].shape != (T, n):
        fail(r, f"the trace's shapes do not follow 'steps' {T}")
    if rec["hint_flow"][0].any() or (rec["hint_pi"][0] != np.arange(n)).any() or rec["hint_reached"][0].sum() != 1:
        fail(r, "the trace's first frame is not the state before the first round")
    if (rec["hint_flow"][-1] != rec["flow"]).any() or (rec["hint_potential"][-1] != rec["potential"]).any():
        fail(r, "the trace's last frame is not the solution")
    return bool(rec["directed"]), bool((cost < 0).any())


def relaxation_round(n, tail, head, res, c, pi, d):
    """One synchronous round from the labels d (-1 unreached): the least
    offer of each node, of equal offers the smallest (tail, arc); returns the
    new labels and, where the offer was strictly below the label, the
    (tail, arc) that made it."""
    best = {}
    for a in range(len(tail)):
        u, v = int(tail[a]), int(head[a])
        if res[a] <= 0 or d[u] < 0:
            continue
        key = (int(d[u] + c[a] + pi[u] - pi[v]), u, a)
        if v not in best or key < best[v]:
            best[v] = key
    new, moved = d.copy(), {}
    for v, (offer, u, a) in best.items():
        if d[v] < 0 or offer < d[v]:
            new[v], moved[v] = offer, (u, a)
    return new, moved


def rounds(path, minimum, one_frame_path=None):
    records = load(path)
    one_frame = load(one_frame_path) if one_frame_path else None
    frames_total = searches_total = same_graphs = tie_searches = 0
    for r, rec in enumerate(records):
        check_solution(r, rec)
        n, s, t, T = rec["n"], rec["s"], rec["t"], int(rec["steps"])
        src, dst, cap, cost, asrc, adst, acap, acost, cu, ku = units_of(r, rec)
        m, am = len(src), len(asrc)
        phase = rec["hint_phase"]
        if len(phase) != T or not set(phase.tolist()) <= {0, 1}:
            fail(r, "hint_phase is not one 0 or 1 a frame")
        tail, head = np.empty(2 * am, np.int64), np.empty(2 * am, np.int64)
        tail[0::2], head[0::2], tail[1::2], head[1::2] = asrc, adst, adst, asrc
        c = np.empty(2 * am, np.int64)
        c[0::2], c[1::2] = acost, -acost
        live = acap > 0
        pi, _ = bellman_ford(n, asrc[live], adst[live], acost[live], range(n))
        flow = np.zeros(am, np.int64)
        hint = {key: rec[key] for key in ("hint_reached", "hint_distance", "hint_pi", "hint_potential", "hint_flow")}

        def frame_check(i, what, kind, d, pointer):
            if i >= T or phase[i] != kind:
                fail(r, f"{what}: frame {i} is not {'an augmentation' if kind else 'a search round'} "
                        f"(the trace has {T} frames)")
            reached = d >= 0
            edge_flow = flow[:m] if rec["directed"] else flow[:m] - flow[m:]
            if not np.array_equal(hint["hint_reached"][i].astype(bool), reached) or \
                    not np.array_equal(exact(hint["hint_distance"][i], ku, "hint_distance", r), np.where(reached, d, 0)):
                fail(r, f"{what}, frame {i}: the reached set or the distances are not the relaxation rounds'")
            if not np.array_equal(hint["hint_pi"][i], pointer):
                fail(r, f"{what}, frame {i}: pointers {hint['hint_pi'][i].tolist()}, the rounds' {pointer.tolist()}")
            if not np.array_equal(exact(hint["hint_potential"][i], ku, "hint_potential", r), pi) or \
                    not np.array_equal(exact(hint["hint_flow"][i], cu, "hint_flow", r), edge_flow):
                fail(r, f"{what}, frame {i}: the potentials or the flow are not those after the frame")

        i = k = 0
        same = one_frame is not None
        while True:
            res = np.empty(2 * am, np.int64)
            res[0::2], res[1::2] = acap - flow, flow
            d = np.full(n, -1, np.int64)
            d[s] = 0
            pointer, arc = np.arange(n), np.full(n, -1, np.int64)
            frame_check(i, f"search {k} round 0", 0, d, pointer)
            i, l = i + 1, 0
            while True:
                d_new, moved = relaxation_round(n, tail, head, res, c, pi, d)
                if np.array_equal(d_new, d):
                    break
                d, l = d_new, l + 1
                for v, (u, a) in moved.items():
                    pointer[v], arc[v] = u, a
                frame_check(i, f"search {k} round {l}", 0, d, pointer)
                i += 1
            reduced = c + pi[tail] - pi[head]
            dd, dp, _ = tie_rule_search(n, s, tail, head, res, reduced)
            if not np.array_equal(dd, d):
                fail(r, f"search {k}: the rounds end on distances {d.tolist()}, Dijkstra's are {dd.tolist()}")
            tie = not np.array_equal(dp, pointer)
            tie_searches += tie
            if d[t] >= 0:
                pi = pi + np.where((d >= 0) & (d < d[t]), d, d[t])
                path, v = [], t
                while v != s:
                    path.append(int(arc[v]))
                    v = int(tail[arc[v]])
                    if len(path) > n:
                        fail(r, f"search {k}: the rounds' pointers do not lead back to s")
                amount = min(res[a] for a in path)
                for a in path:
                    flow[a >> 1] += amount if a % 2 == 0 else -amount
                frame_check(i, f"search {k} augmentation", 1, d, pointer)
            if same:
                o = one_frame[r]
                for key in hint:
                    if not np.array_equal(o[key][k + 1], hint[key][i if d[t] >= 0 else i - 1]):
                        if key in ("hint_pi", "hint_flow") and tie:
                            same = False
                            break
                        fail(r, f"search {k}: {key} is not the one-frame trace's frame {k + 1} "
                                f"(the pointers {'differ' if tie else 'agree'})")
            k += 1
            if d[t] < 0:
                break
            i += 1
        if i != T:
            fail(r, f"{T} frames, the searches end at frame {i}")
        if same and len(one_frame[r]["hint_pi"]) != k + 1:
            fail(r, f"{k} searches, the one-frame trace has {len(one_frame[r]['hint_pi']) - 1}")
        same_graphs += same
        frames_total += T
        searches_total += k
    if len(records) < minimum:
        fail(len(records), f"only {len(records)} records, expected at least {minimum}")
    print(f"rounds: {len(records)} graphs, {searches_total} searches in {frames_total} frames, every frame a "
          f"relaxation round or an augmentation of our own, the solutions networkx's"
          + (f"; {same_graphs} graphs the one-frame trace's frames throughout, {tie_searches} searches end on "
             f"pointers other than Dijkstra's" if one_frame is not None else ""))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(int(sys.argv[2]))
    elif sys.argv[1] == "traced":
        traced(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "rounds":
        rounds(sys.argv[2], int(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else None)
    else:
        check(sys.argv[2], int(sys.argv[3]))
