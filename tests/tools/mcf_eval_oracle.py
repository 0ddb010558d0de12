#!/usr/bin/python3
"""mcf_eval_oracle - min-cost flow records with predictions, and the checks
of the repair's (cost-fix) and the metric rows' (metrics --per-graph)
answers on them against networkx.

    mcf_eval_oracle.py make SEED > predicted.mp
    mcf_eval_oracle.py dual fixed.mp > dual.mp
    mcf_eval_oracle.py check fixed.mp graphs.mp dual-graphs.mp MIN_GRAPHS

dual keeps the records that have pred_potential: `metrics` scores a quantity
on every record or none, so the rows that need potentials (mcf_certified,
mcf_potential_feasible) are scored on those alone (dual-graphs.mp, by
metrics --per-graph), the others on every record (graphs.mp).

make writes graph records as the min-cost-flow entry's trace leaves them
(n, m, directed, s, t, src, dst, cap f32, cost f32, flow f32 the optimal flow
signed along src->dst, mincost, maxflow), directed ones (negative costs on
some, which are DAGs) and undirected ones, capacities and costs integers or
tenths, with networkx's optimum (max_flow_min_cost on integer units, its cost
checked by network_simplex at that demand).  Each carries a prediction of a
kind (pred_kind): the optimal flow with the optimum's potentials (from a
Bellman-Ford of our own on its residual graph) or without potentials, the
optimal flow with noise on the flow and the potentials, the zero flow, a
flow over the capacities, a random flow in the capacities.

check holds every fixed record to: fixed_flow within capacity (>= 0 on a
directed arc) and conserved at every node but s and t; its value networkx's
maximum, and fixed_value that; fixed_cost the cost of fixed_flow, at least
the optimum, and the optimum for the optimal predictions; without
potentials no certified and no gap (no certificate); with them gap >=
fixed_cost - optimum, certified iff gap is 0, and with the optimum's own
potentials certified iff the cost is the optimum (so for the optimal
prediction certified).  And every metric
graph's share of every metric row to this file's own computation of its
definition (formats/metric.md).  Prints one summary line; exits 1 with the first
disagreement.
"""
import sys
import msgpack
import msgpack_numpy
import numpy as np
import networkx as nx

KINDS = ("optimal", "optimal-no-potential", "noisy", "zero", "over", "random")


def graph_of(rng):
    """A graph without duplicate pairs (graph records refuse them)."""
    n = int(rng.integers(3, 11))
    directed = bool(rng.random() < 0.6)
    negative = directed and rng.random() < 0.4
    order = rng.permutation(n)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    density = rng.uniform(0.25, 0.7)
    pairs = []
    for u in range(n):
        for v in range(n):
            if u == v or rng.random() >= density:
                continue
            if negative and rank[u] > rank[v]:
                continue
            if not directed and u > v:
                continue
            pairs.append((u, v) if directed or rng.random() < 0.5 else (v, u))
    rng.shuffle(pairs)
    if negative:
        s, t = int(order[0]), int(order[-1])
    else:
        s, t = (int(x) for x in rng.choice(n, 2, replace=False))
    return n, directed, negative, pairs, s, t


def arcs_of(directed, src, dst, cap, cost):
    """(u, v, cap, cost, edge, sign) of every arc: an undirected edge is two."""
    arcs = [(int(u), int(v), int(c), int(w), e, 1) for e, (u, v, c, w) in enumerate(zip(src, dst, cap, cost))]
    if not directed:
        arcs += [(int(v), int(u), int(c), int(w), e, -1) for e, (u, v, c, w) in enumerate(zip(src, dst, cap, cost))]
    return arcs


def nx_solve(n, s, t, arcs, m):
    """networkx's optimum in integer units: value, cost, signed flow per edge."""
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    for u, v, c, w, e, sign in arcs:
        G.add_edge(u, v, capacity=c, weight=w)
    flow = nx.max_flow_min_cost(G, s, t)
    value = sum(flow[s].values()) - sum(flow[u][s] for u in G.predecessors(s))
    total = nx.cost_of_flow(G, flow)
    if value > 0:
        H = G.copy()
        H.nodes[s]["demand"], H.nodes[t]["demand"] = -value, value
        simplex_cost, _ = nx.network_simplex(H)
        assert simplex_cost == total, (simplex_cost, total)
    signed = np.zeros(m, dtype=np.int64)
    for u, v, c, w, e, sign in arcs:
        signed[e] += sign * flow[u][v]
    return value, total, signed


def residual(arcs, signed):
    """(tail, head, cost) of the residual arcs of a signed flow, netted onto
    the arc of its sign."""
    out = []
    for u, v, c, w, e, sign in arcs:
        f = max(sign * int(signed[e]), 0)
        if c - f > 0:
            out.append((u, v, w))
        if f > 0:
            out.append((v, u, -w))
    return out


def potentials(n, arcs, signed):
    """Bellman-Ford from every node at 0 over the residual arcs (optimal:
    no negative cycle), as the optimum's dual."""
    pi = [0] * n
    res = residual(arcs, signed)
    for _ in range(n + 1):
        changed = False
        for u, v, w in res:
            if pi[u] + w < pi[v]:
                pi[v], changed = pi[u] + w, True
        if not changed:
            return np.array(pi, dtype=np.int64)
    raise AssertionError("the optimal flow's residual graph has a negative cycle")


def make(seed):
    rng = np.random.default_rng(seed)
    out = sys.stdout.buffer
    for index in range(180):
        n, directed, negative, pairs, s, t = graph_of(rng)
        m = len(pairs)
        src = np.array([p[0] for p in pairs], dtype=np.int32)
        dst = np.array([p[1] for p in pairs], dtype=np.int32)
        cap_scale = int(rng.choice([1, 10]))
        cost_scale = int(rng.choice([1, 10]))
        cap = rng.integers(0, 4 * cap_scale + 1, m)
        cost = rng.integers(-5 * cost_scale, 5 * cost_scale + 1, m) if negative else rng.integers(0, 9 * cost_scale, m)
        arcs = arcs_of(directed, src, dst, cap, cost)
        value, total, signed = nx_solve(n, s, t, arcs, m)
        pi = potentials(n, arcs, signed)
        units = cap_scale * cost_scale
        flow = (signed / cap_scale).astype(np.float32)
        realcap = (cap / cap_scale).astype(np.float32)
        rec = {"kind": "graph", "id": index, "family": "oracle", "n": n, "m": m, "directed": directed, "s": s,
               "t": t, "src": src, "dst": dst, "cap": realcap, "cost": (cost / cost_scale).astype(np.float32),
               "flow": flow, "mincost": total / units, "maxflow": value / cap_scale,
               "potential": (pi / cost_scale).astype(np.float32)}
        if cap_scale > 1 and rng.random() < 0.5:
            rec["cap_scale"] = cap_scale
        if cost_scale > 1 and rng.random() < 0.5:
            rec["cost_scale"] = cost_scale
        kind = KINDS[index % len(KINDS)]
        rec["pred_kind"] = kind
        lo = np.zeros(m) if directed else -realcap
        if kind in ("optimal", "optimal-no-potential"):
            rec["pred_flow"] = flow
        elif kind == "noisy":
            rec["pred_flow"] = (flow + rng.normal(0, 0.3, m) * realcap).astype(np.float32)
        elif kind == "zero":
            rec["pred_flow"] = np.zeros(m, dtype=np.float32)
        elif kind == "over":
            rec["pred_flow"] = (2 * flow + rng.uniform(-3, 3, m) * (realcap + 1)).astype(np.float32)
        else:
            rec["pred_flow"] = rng.uniform(lo, realcap).astype(np.float32)
        if kind in ("optimal", "noisy", "zero"):
            noise = rng.normal(0, 0.5, n) if kind == "noisy" else np.zeros(n)
            rec["pred_potential"] = (pi / cost_scale + noise).astype(np.float32)
        out.write(msgpack.packb(rec, default=msgpack_numpy.encode, use_bin_type=True))


def fail(index, message):
    print(f"record {index}: {message}")
    sys.exit(1)


def read(path):
    with open(path, "rb") as f:
        return list(msgpack.Unpacker(f, object_hook=msgpack_numpy.decode, raw=False, max_buffer_size=0))


def check_repair(r, rec):
    n, m, s, t, directed = rec["n"], rec["m"], rec["s"], rec["t"], rec["directed"]
    cap, cost = rec["cap"].astype(np.float64), rec["cost"].astype(np.float64)
    F = rec["fixed_flow"].astype(np.float64)
    tol = 1e-5 * (1 + cap.max(initial=0))
    if (np.abs(F) > cap + tol).any() or directed and (F < -tol).any():
        fail(r, "fixed_flow leaves its capacities")
    balance = np.zeros(n)
    np.add.at(balance, rec["src"], -F)
    np.add.at(balance, rec["dst"], F)
    inner = np.ones(n, dtype=bool)
    inner[[s, t]] = False
    if (np.abs(balance[inner]) > tol * n).any():
        fail(r, f"fixed_flow is not conserved: {balance}")
    if abs(-balance[s] - rec["maxflow"]) > tol * n or abs(rec["fixed_value"] - rec["maxflow"]) > 1e-9:
        fail(r, f"value {-balance[s]} (fixed_value {rec['fixed_value']}), networkx's maximum {rec['maxflow']}")
    paid = float((cost * (F if directed else np.abs(F))).sum())
    best, fixed = rec["mincost"], rec["fixed_cost"]
    eps = 1e-6 * (1 + abs(best))
    if abs(paid - fixed) > 1e-4 * (1 + abs(paid)):
        fail(r, f"fixed_cost {fixed}, but fixed_flow costs {paid}")
    if fixed < best - eps:
        fail(r, f"fixed_cost {fixed} is below the optimum {best}")
    kind = rec["pred_kind"]
    if kind.startswith("optimal") and abs(fixed - best) > eps:
        fail(r, f"{kind}: the optimal flow repaired costs {fixed}, not the optimum {best}")
    # a flow without potentials carries no certificate
    if "pred_potential" not in rec:
        if "certified" in rec or "gap" in rec:
            fail(r, f"{kind}: certified or gap without potentials")
        return
    gap = rec["gap"]
    if gap < fixed - best - eps:
        fail(r, f"gap {gap} does not bound the excess {fixed - best}")
    if rec["certified"] != (gap == 0):
        fail(r, f"certified {rec['certified']} with gap {gap}")
    # the optimum's own potentials (the optimal and zero kinds carry them)
    # certify exactly the optimal flows
    if kind in ("optimal", "zero") and rec["certified"] != (abs(fixed - best) <= eps):
        fail(r, f"{kind}: certified {rec['certified']} with cost {fixed}, optimum {best}")
    if kind == "optimal" and not rec["certified"]:
        fail(r, f"{kind}: the optimal flow is not certified")


def expected_metrics(rec):
    """Each metric row's (sum, count) on one record, from its definition."""
    m, cost, flow = rec["m"], rec["cost"].astype(np.float64), rec["flow"].astype(np.float64)
    best, fixed = rec["mincost"], rec["fixed_cost"]
    out = {"mcf_optimal": (float(abs(fixed - best) <= 1e-12 * max(1.0, abs(best))), 1)}
    if "certified" in rec:
        out["mcf_certified"] = (float(rec["certified"]), 1)
    out["mcf_cost_ratio"] = (fixed / best, 1) if best > 0 else (0.0, 0)
    mass = float((np.abs(cost) * np.abs(flow)).sum())
    out["mcf_cost_excess"] = ((fixed - best) / mass, 1) if mass > 0 else (0.0, 0)
    out["mcf_flow_mae"] = (float(np.abs(rec["pred_flow"].astype(np.float64) - flow).sum()), m)
    if "pred_potential" in rec:
        pi = rec["pred_potential"].astype(np.float64)
        cap = rec["cap"].astype(np.float64)
        tol = 1e-3 * max(1.0, float(np.abs(cost).max(initial=0)))
        good = count = 0
        for e in range(m):
            u, v = int(rec["src"][e]), int(rec["dst"][e])
            for a, b, sign in ((u, v, 1), (v, u, -1)) if not rec["directed"] else ((u, v, 1),):
                f = max(sign * flow[e], 0.0)
                reduced = cost[e] + pi[a] - pi[b]
                for live, rc in ((cap[e] - f > 1e-6, reduced), (f > 1e-6, -reduced)):
                    if live:
                        good += rc >= -tol
                        count += 1
        out["mcf_potential_feasible"] = (float(good), count)
    return out


def per_graph(path, graphs):
    """{graph: {name: (sum, count)}} of metrics --per-graph records, the
    graph indices mapped through graphs (the records' own indices)."""
    out = {}
    for g in read(path):
        assert g["kind"] == "graph_metric", g
        out.setdefault(graphs[g["graph"]], {})[g["name"]] = (g["sum"], g["count"])
    return out


def check(fixed_path, graphs_path, dual_path, minimum):
    fixed = read(fixed_path)
    dual = [r for r, rec in enumerate(fixed) if "pred_potential" in rec]
    scores = per_graph(graphs_path, list(range(len(fixed))))
    for r, rows in per_graph(dual_path, dual).items():
        if set(rows) & set(scores.get(r, {})):
            fail(r, f"rows {sorted(rows)} scored twice")
        scores.setdefault(r, {}).update(rows)
    kinds = {}
    for r, rec in enumerate(fixed):
        got = scores.get(r, {})
        check_repair(r, rec)
        k = rec["pred_kind"]
        kinds[k] = kinds.get(k, [0, 0, 0])
        kinds[k][0] += 1
        kinds[k][1] += abs(rec["fixed_cost"] - rec["mincost"]) <= 1e-12 * max(1.0, abs(rec["mincost"]))
        kinds[k][2] += bool(rec.get("certified", False))
        want = expected_metrics(rec)
        names = sorted(got)
        if names != sorted(want):
            fail(r, f"metric rows {names}, expected {sorted(want)}")
        for name, (total, count) in want.items():
            g_total, g_count = got[name]
            if g_count != count or abs(g_total - total) > 1e-6 * (1 + abs(total)):
                fail(r, f"{name}: ({g_total}, {g_count}), expected ({total}, {count})")
    if len(fixed) < minimum:
        fail(len(fixed), f"only {len(fixed)} records, expected at least {minimum}")
    print(f"{len(fixed)} graphs repaired to networkx's maximum, costs and certificates checked, metric rows agree; "
          "optimal per kind: " + ", ".join(f"{k} {o}/{t}" for k, (t, o, c) in sorted(kinds.items())) +
          "; certified per kind (with potentials): " +
          ", ".join(f"{k} {c}/{t}" for k, (t, o, c) in sorted(kinds.items()) if k != "optimal-no-potential"))


def keep_dual(path):
    out = sys.stdout.buffer
    for rec in read(path):
        if "pred_potential" in rec:
            out.write(msgpack.packb(rec, default=msgpack_numpy.encode, use_bin_type=True))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(int(sys.argv[2]))
    elif sys.argv[1] == "dual":
        keep_dual(sys.argv[2])
    else:
        check(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
