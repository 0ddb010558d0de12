#!/usr/bin/python3
"""algos_oracle - independent checks of common/algos/ on algo_trace's output.

    algos_oracle.py shortest-paths|matching|vertex-cover traced.mp MIN_GRAPHS
    algos_oracle.py matching-layers layered.mp MIN_GRAPHS [one-frame.mp]

Each check is written from the definitions, not from the C code: distances
from scipy's Dijkstra (networkx where a weight is 0, which scipy's sparse
graphs drop), the hints from a plain-Python synchronous Bellman-Ford with
the tie rule of bellman_ford.h; matchings from networkx's Hopcroft-Karp and
to_vertex_cover, and each search's reached set from a reachability of our
own in the residual network of the matching before it; the vertex-cover
trace from a Python implementation of the primal-dual rounds written from
their definition; the layered matching trace (ff-trace --bfs-layers) from
networkx's matching size and BFS layers of our own, each frame one layer,
and, given the one-frame trace of the same graphs, its augmentation frames
equal to that trace's searches; the vertex-cover
trace's optimum (algo_trace --exact) from two brute forces over
every subset, numpy's here (graphs of at most 16 nodes) and tests/tools/
vc_brute.c's (brute_weight, every record of at most 20 nodes must carry it
when the optimum is there), and from the bipartite min cut.  Prints one
summary line; exits 1 with the first disagreement.
"""
import sys
import msgpack
import msgpack_numpy
import numpy as np


def load(path):
    with open(path, "rb") as f:
        return list(msgpack.Unpacker(f, object_hook=msgpack_numpy.decode, raw=False, max_buffer_size=0))


def fail(index, message):
    print(f"record {index}: {message}")
    sys.exit(1)


def reference_distances(r):
    import scipy.sparse as sp
    from scipy.sparse.csgraph import dijkstra
    n, src, dst = r["n"], r["src"].astype(np.int64), r["dst"].astype(np.int64)
    w = r["w"].astype(np.float64)
    if (w == 0).any():
        import networkx as nx
        G = nx.Graph()
        G.add_nodes_from(range(n))
        G.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), w.tolist()))
        lengths = nx.single_source_dijkstra_path_length(G, int(r["s"]))
        return np.array([lengths.get(v, np.inf) for v in range(n)])
    A = sp.csr_matrix((w, (src, dst)), shape=(n, n))
    return dijkstra(A, directed=False, indices=int(r["s"]))


def bellman_ford_rounds(r):
    """Synchronous rounds from the frame before; strict improvement; ties
    between candidates to the smaller neighbour."""
    n, s = r["n"], int(r["s"])
    nbrs = [[] for _ in range(n)]
    for u, v, w in zip(r["src"].tolist(), r["dst"].tolist(), r["w"].astype(np.float64).tolist()):
        nbrs[u].append((v, w))
        nbrs[v].append((u, w))
    d, pi, reached = [0.0] * n, list(range(n)), [0] * n
    reached[s] = 1
    frames = [(list(d), list(pi), list(reached))]
    while True:
        nd, npi, nr, changed = list(d), list(pi), list(reached), False
        for v in range(n):
            best, best_u = None, None
            for u, w in nbrs[v]:
                if reached[u]:
                    c = d[u] + w
                    if best is None or c < best or (c == best and u < best_u):
                        best, best_u = c, u
            if best is not None and (not reached[v] or best < d[v]):
                nd[v], npi[v], nr[v], changed = best, best_u, 1, True
        d, pi, reached = nd, npi, nr
        frames.append((list(d), list(pi), list(reached)))
        if not changed:
            return frames


def shortest_paths(records, minimum):
    sizes, hints_checked = set(), 0
    for i, r in enumerate(records):
        n, s = r["n"], int(r["s"])
        sizes.add(n)
        d, pi, reached = r["d"], r["pi"], r["reached"].astype(bool)
        ref = reference_distances(r)
        if not np.array_equal(np.isfinite(ref), reached):
            fail(i, "reached set differs from Dijkstra's")
        if not np.allclose(d[reached], ref[reached], rtol=0, atol=1e-9):
            fail(i, f"distances differ from Dijkstra's by {np.abs(d[reached] - ref[reached]).max()}")
        if (d[~reached] != 0).any() or (pi[~reached] != np.arange(n)[~reached]).any():
            fail(i, "an unreached node has d != 0 or does not point to itself")
        weight = {}
        for u, v, w in zip(r["src"].tolist(), r["dst"].tolist(), r["w"].astype(np.float64).tolist()):
            weight[(u, v)] = weight[(v, u)] = w
        if pi[s] != s:
            fail(i, "pi[s] != s")
        for v in np.flatnonzero(reached):
            if v == s:
                continue
            p = int(pi[v])
            if (p, int(v)) not in weight or abs(ref[p] + weight[(p, int(v))] - ref[v]) > 1e-9:
                fail(i, f"pi[{v}] = {p} is not a shortest-path predecessor")
            x, hops = int(v), 0
            while x != s and hops <= n:
                x, hops = int(pi[x]), hops + 1
            if x != s:
                fail(i, f"the pointers from {v} do not lead to s")
        if not r["dual_ok"]:
            fail(i, "bellman_ford_check refused the tracer's own output")
        if "hint_d" in r:
            frames = bellman_ford_rounds(r)
            if r["steps"] != len(frames):
                fail(i, f"steps {r['steps']}, the Python rounds give {len(frames)}")
            for t, (fd, fpi, fr) in enumerate(frames):
                if not (np.array_equal(r["hint_d"][t], fd) and np.array_equal(r["hint_pi"][t], fpi)
                        and np.array_equal(r["hint_reached"][t], fr)):
                    fail(i, f"frame {t} differs from the Python rounds")
            hints_checked += 1
    if len(records) < minimum:
        fail(len(records), f"only {len(records)} graphs, expected at least {minimum}")
    print(f"shortest-paths: {len(records)} graphs (n in {sorted(sizes)}), distances and trees agree with "
          f"Dijkstra, {hints_checked} traces frame by frame with the Python rounds")


def residual_reachable(n, edges, side, matched):
    """Nodes reachable from s in the unit network's residual: free A nodes,
    then unmatched edges A->B and matched edges B->A."""
    mate = {}
    for (a, b), x in zip(edges, matched):
        if x:
            mate[a], mate[b] = b, a
    nbrs = [[] for _ in range(n)]
    for (a, b), x in zip(edges, matched):
        if not x:
            nbrs[a].append(b)
    seen = {v for v in range(n) if side[v] == 0 and v not in mate}
    todo = list(seen)
    while todo:
        u = todo.pop()
        nxt = nbrs[u] if side[u] == 0 else ([mate[u]] if u in mate else [])
        for x in nxt:
            if x not in seen:
                seen.add(x)
                todo.append(x)
    return np.array([v in seen for v in range(n)])


def matching(records, minimum):
    import networkx as nx
    from networkx.algorithms import bipartite
    shapes, imperfect = set(), 0
    for i, r in enumerate(records):
        n, side = r["n"], r["side"]
        a_nodes = [v for v in range(n) if side[v] == 0]
        shapes.add((len(a_nodes), n - len(a_nodes)))
        # edges oriented A -> B
        edges = [(int(u), int(v)) if side[u] == 0 else (int(v), int(u)) for u, v in zip(r["src"], r["dst"])]
        G = nx.Graph()
        G.add_nodes_from(range(n))
        G.add_edges_from(edges)
        M = bipartite.hopcroft_karp_matching(G, top_nodes=a_nodes)
        nu = len(M) // 2
        K = bipartite.to_vertex_cover(G, M, top_nodes=a_nodes)
        imperfect += nu < min(len(a_nodes), n - len(a_nodes))
        for name, match, size, cover in (("trace", r["match"], r["size"], r["cover"]),
                                         ("hopcroft-karp", r["hk_match"], r["hk_size"], r["hk_cover"])):
            used = np.zeros(n, int)
            for (a, b), x in zip(edges, match):
                used[a] += x
                used[b] += x
            if (used > 1).any() or match.sum() != size or size != nu:
                fail(i, f"{name}: a matching of {match.sum()} edges (size {size}), networkx's has {nu}")
            if any(not (cover[a] or cover[b]) for a, b in edges) or cover.sum() != nu:
                fail(i, f"{name}: the cover of {cover.sum()} nodes is invalid or not of size {nu}")
        if len(K) != nu:
            fail(i, "networkx's own cover is not of size nu")
        if not r["check_ok"]:
            fail(i, "matching_check refused the solvers' own output")
        if "hint_match" in r:
            T = r["steps"]
            if T != nu + 1:
                fail(i, f"{T} searches for a matching of {nu}")
            before = np.zeros(r["m"], np.uint8)
            index = {edge: e for e, edge in enumerate(edges)}
            for k in range(T):
                matched_at = np.zeros(n, bool)
                for (a, b), x in zip(edges, before):
                    if x:
                        matched_at[a] = matched_at[b] = True
                R = residual_reachable(n, edges, side, before)
                if not np.array_equal(R, r["hint_reached"][k].astype(bool)):
                    fail(i, f"search {k}: the reached set is not the residual reachability")
                pi = r["hint_pi"][k]
                for v in range(n):
                    p = int(pi[v])
                    if not R[v] or p == v:
                        if p != v or (R[v] and (side[v] == 1 or matched_at[v])):
                            fail(i, f"search {k}: node {v} points to itself but is not a free A node")
                        continue
                    e = index.get((p, v) if side[v] == 1 else (v, p))
                    if e is None or not R[p] or bool(before[e]) != (side[v] == 0):
                        fail(i, f"search {k}: pi[{v}] = {p} is not a residual arc")
                after = r["hint_match"][k]
                grew = int(after.sum()) - int(before.sum())
                if grew != (1 if k < T - 1 else 0):
                    fail(i, f"search {k}: the matching grew by {grew}")
                before = after
            last = r["hint_reached"][T - 1].astype(bool)
            want = np.where(side == 0, ~last, last).astype(np.uint8)
            if not np.array_equal(want, r["cover"]) or not np.array_equal(before, r["match"]):
                fail(i, "the outputs are not the last frame's matching and its (A \\ R) + (B & R)")
    if len(records) < minimum:
        fail(len(records), f"only {len(records)} graphs, expected at least {minimum}")
    print(f"matching: {len(records)} graphs ({len(shapes)} side shapes, {imperfect} without a perfect matching): "
          f"trace and Hopcroft-Karp agree with networkx, covers valid and of size nu, every search's reached set, "
          f"pointers and growth checked")


def residual_layers(n, edges, side, matched):
    """The BFS layers from s in the unit network's residual: layer 0 the free
    A nodes, layer l + 1 the nodes one residual arc (unmatched A->B,
    matched B->A) from layer l not in an earlier one."""
    mate = {}
    for (a, b), x in zip(edges, matched):
        if x:
            mate[a], mate[b] = b, a
    layer = {v: 0 for v in range(n) if side[v] == 0 and v not in mate}
    frontier = sorted(layer)
    layers = [set(frontier)]
    while frontier:
        nxt = set()
        for u in frontier:
            for (a, b), x in zip(edges, matched):
                if side[u] == 0 and a == u and not x and b not in layer:
                    nxt.add(b)
            if side[u] == 1 and u in mate and mate[u] not in layer:
                nxt.add(mate[u])
        for v in nxt:
            layer[v] = len(layers)
        frontier = sorted(nxt)
        if nxt:
            layers.append(nxt)
    return layer, layers


def matching_layers(records, minimum, one_frame=None):
    import networkx as nx
    from networkx.algorithms import bipartite
    frames_total = searches_total = 0
    for i, r in enumerate(records):
        n, side, m = r["n"], r["side"], r["m"]
        a_nodes = [v for v in range(n) if side[v] == 0]
        edges = [(int(u), int(v)) if side[u] == 0 else (int(v), int(u)) for u, v in zip(r["src"], r["dst"])]
        index = {edge: e for e, edge in enumerate(edges)}
        G = nx.Graph()
        G.add_nodes_from(range(n))
        G.add_edges_from(edges)
        nu = len(bipartite.hopcroft_karp_matching(G, top_nodes=a_nodes)) // 2
        match, cover = r["match"], r["cover"]
        used = np.zeros(n, int)
        for (a, b), x in zip(edges, match):
            used[a] += x
            used[b] += x
        if (used > 1).any() or match.sum() != nu or r["size"] != nu:
            fail(i, f"a matching of {match.sum()} edges (size {r['size']}), networkx's has {nu}")
        if any(not (cover[a] or cover[b]) for a, b in edges) or cover.sum() != nu:
            fail(i, f"the cover of {cover.sum()} nodes is invalid or not of size {nu}")
        T, phase = r["steps"], r["hint_phase"]
        if len(phase) != T or not set(phase.tolist()) <= {0, 1}:
            fail(i, "hint_phase is not one 0 or 1 a frame")
        before, t, k, augmentations = np.zeros(m, np.uint8), 0, 0, []
        while t < T:
            layer, layers = residual_layers(n, edges, side, before)
            for l in range(len(layers)):
                if t >= T or phase[t] != 0:
                    fail(i, f"search {k}: frame {t} is not its layer {l} (it has {len(layers)})")
                want = np.array([v in layer and layer[v] <= l for v in range(n)])
                if not np.array_equal(want, r["hint_reached"][t].astype(bool)):
                    fail(i, f"search {k}, frame {t}: the reached set is not layers 0..{l}")
                if not np.array_equal(r["hint_match"][t], before):
                    fail(i, f"search {k}, frame {t}: a search frame's matching is not the search's M_k")
                pi = r["hint_pi"][t]
                for v in range(n):
                    p = int(pi[v])
                    if not want[v] or layer[v] == 0:
                        if p != v:
                            fail(i, f"search {k}, frame {t}: node {v} unreached or free points to {p}")
                        continue
                    e = index.get((p, v) if side[v] == 1 else (v, p))
                    if e is None or layer.get(p) != layer[v] - 1 or bool(before[e]) != (side[v] == 0):
                        fail(i, f"search {k}, frame {t}: pi[{v}] = {p} is not an arc from the layer before")
                t += 1
            free_b = [v for v in layer if side[v] == 1 and not any(before[e] for e, (a, b) in enumerate(edges)
                                                                    if b == v)]
            if not free_b:
                break
            if t >= T or phase[t] != 1:
                fail(i, f"search {k}: a free B node reached, but frame {t} is not an augmentation")
            after = r["hint_match"][t]
            if not np.array_equal(r["hint_reached"][t], r["hint_reached"][t - 1]) or \
                    not np.array_equal(r["hint_pi"][t], r["hint_pi"][t - 1]):
                fail(i, f"search {k}, frame {t}: the augmentation moved the reached set or the pointers")
            flipped = [edges[e] for e in range(m) if after[e] != before[e]]
            if int(after.sum()) != int(before.sum()) + 1 or any(a not in layer or b not in layer for a, b in flipped):
                fail(i, f"search {k}, frame {t}: the augmentation is not a path of the search grown by one")
            augmentations.append(t)
            before, t, k = after, t + 1, k + 1
        if t != T or k != nu:
            fail(i, f"{T} frames, {k} augmentations: expected the searches to end at frame {t} after {nu}")
        last = r["hint_reached"][T - 1].astype(bool)
        if not np.array_equal(np.where(side == 0, ~last, last).astype(np.uint8), cover) or \
                not np.array_equal(before, match):
            fail(i, "the outputs are not the last frame's matching and its (A \\ R) + (B & R)")
        if one_frame is not None:
            o = one_frame[i]
            for key in ("hint_reached", "hint_pi", "hint_match"):
                if not np.array_equal(o[key], r[key][augmentations + [T - 1]]):
                    fail(i, f"{key}: the augmentation frames and the last are not the one-frame trace's frames")
        frames_total += T
        searches_total += nu + 1
    if len(records) < minimum:
        fail(len(records), f"only {len(records)} graphs, expected at least {minimum}")
    print(f"matching-layers: {len(records)} graphs, {searches_total} searches in {frames_total} frames: matchings "
          f"of networkx's size, covers valid and of size nu, every frame one BFS layer of our own, "
          f"augmentations by one" + (", the one-frame trace's frames matched" if one_frame is not None else ""))


EPSILON = 0.1


def primal_dual_rounds(n, edges, w):
    """Uniform increases: delta_e = min(r_u/d_u, r_v/d_v) on live edges, r_v
    pays the sum of its live edges' increments (in edge order), v joins when
    r_v <= eps w_v.  Returns the frames (r, in_cover, delta, live)."""
    m = len(edges)
    incident = [[] for _ in range(n)]
    for e, (u, v) in enumerate(edges):
        incident[u].append(e)
        incident[v].append(e)
    r, cover, live = list(w), [0] * n, [1] * m
    frames = [(list(r), list(cover), [0.0] * m, list(live))]
    while any(live):
        degree = [sum(live[e] for e in incident[v]) for v in range(n)]
        delta = [min(r[u] / degree[u], r[v] / degree[v]) if live[e] else 0.0 for e, (u, v) in enumerate(edges)]
        joining = []
        for v in range(n):
            if cover[v]:
                continue
            paid = 0.0
            for e in incident[v]:
                if live[e]:
                    paid += delta[e]
            r[v] -= paid
            if r[v] <= EPSILON * w[v]:
                joining.append(v)
        for v in joining:
            cover[v] = 1
        live = [int(live[e] and not (cover[u] or cover[v])) for e, (u, v) in enumerate(edges)]
        frames.append((list(r), list(cover), delta, list(live)))
    return frames


def brute_force_cover(n, edges, w):
    masks = np.arange(1 << n, dtype=np.int64)
    ok = np.ones(1 << n, bool)
    for u, v in edges:
        ok &= (((masks >> u) | (masks >> v)) & 1).astype(bool)
    bits = (masks[:, None] >> np.arange(n)) & 1
    weights = bits @ np.asarray(w, np.float64)
    return weights[ok].min()


def vertex_cover(records, minimum):
    traced = brute = brute_c = cut = ilp = 0
    largest = 0
    worst_ratio = 0.0
    for i, r in enumerate(records):
        n = r["n"]
        edges = list(zip(r["src"].tolist(), r["dst"].tolist()))
        w = r["node_w"].astype(np.float64).tolist()
        cover, y = r["cover"], r["packing"]
        frames = primal_dual_rounds(n, edges, w)
        fr, fc, fd, fl = frames[-1]
        if not np.array_equal(cover, fc):
            fail(i, "the cover differs from the Python rounds'")
        packed = [0.0] * len(edges)
        for f in frames:
            packed = [x + d for x, d in zip(packed, f[2])]
        if not np.array_equal(y, np.array(packed, np.float64)):
            fail(i, "the packing differs from the Python rounds' sums")
        if "hint_residual" in r:
            if r["steps"] != len(frames):
                fail(i, f"steps {r['steps']}, the Python rounds give {len(frames)}")
            for t, (fr, fc, fd, fl) in enumerate(frames):
                if not (np.array_equal(r["hint_residual"][t], fr) and np.array_equal(r["hint_in_cover"][t], fc)
                        and np.array_equal(r["hint_delta"][t].reshape(-1), np.array(fd, np.float64).reshape(-1))
                        and np.array_equal(r["hint_live"][t].reshape(-1), np.array(fl, np.uint8).reshape(-1))):
                    fail(i, f"frame {t} differs from the Python rounds")
            traced += 1
        # the certificate: a valid cover, a feasible packing, the 2/(1-eps) bound
        if any(not (cover[u] or cover[v]) for u, v in edges):
            fail(i, "the cover misses an edge")
        load = np.zeros(n)
        for (u, v), x in zip(edges, y):
            load[u] += x
            load[v] += x
        if (y < 0).any() or (load > np.asarray(w) + 1e-12).any():
            fail(i, "the packing is not feasible")
        weight, total = float(np.dot(cover, w)), float(y.sum())
        if weight > 2 / (1 - EPSILON) * total + 1e-12:
            fail(i, f"w(C) = {weight} exceeds 2/(1-eps) sum y = {2 / (1 - EPSILON) * total}")
        if total > 0:
            worst_ratio = max(worst_ratio, weight / total)
        if not r["check_ok"]:
            fail(i, "vertex_cover_check refused the tracer's own output")
        if "opt_weight" in r:
            opt = r["opt_weight"]
            if r["opt_status"] != "optimal":
                fail(i, f"the ILP ended {r['opt_status']}")
            if abs(float(np.dot(r["opt_cover"], w)) - opt) > 1e-12 or any(
                    not (r["opt_cover"][u] or r["opt_cover"][v]) for u, v in edges):
                fail(i, "the ILP's cover is invalid or not of its weight")
            if opt > weight + 1e-9 or opt < total - 1e-9:
                fail(i, f"the optimum {opt} is outside [sum y, w(C_alg)] = [{total}, {weight}]")
            ilp += 1
            if n <= 16:
                best = brute_force_cover(n, edges, w)
                if abs(best - opt) > 1e-6 * max(1.0, best):
                    fail(i, f"the ILP's optimum {opt}, a brute force's {best}")
                brute += 1
            if "brute_weight" in r:
                best = r["brute_weight"]
                if abs(float(np.dot(r["brute_cover"], w)) - best) > 1e-12 or any(
                        not (r["brute_cover"][u] or r["brute_cover"][v]) for u, v in edges):
                    fail(i, "vc_brute's cover is invalid or not of its weight")
                if abs(best - opt) > 1e-6 * max(1.0, best):
                    fail(i, f"the ILP's optimum {opt}, vc_brute's {best}")
                brute_c += 1
                largest = max(largest, n)
            elif n <= 20:
                fail(i, f"{n} nodes and no brute_weight (pipe the graphs of at most 20 nodes through vc_brute)")
            if "cut_weight" in r:
                if abs(r["cut_weight"] - opt) > 1e-6 * max(1.0, opt) or abs(
                        float(np.dot(r["cut_cover"], w)) - r["cut_weight"]) > 1e-12 or any(
                        not (r["cut_cover"][u] or r["cut_cover"][v]) for u, v in edges):
                    fail(i, f"the min cut's cover ({r['cut_weight']}) is invalid or not optimal ({opt})")
                cut += 1
    if len(records) < minimum:
        fail(len(records), f"only {len(records)} graphs, expected at least {minimum}")
    print(f"vertex-cover: {len(records)} graphs: covers and packings equal the Python rounds', {traced} traces "
          f"frame by frame; every cover valid, packing feasible, w(C) <= 2/(1-eps) sum y (worst {worst_ratio:.3f}); "
          f"ILP optimum checked on {ilp} (numpy's brute force on {brute}, vc_brute's on {brute_c} "
          f"of up to {largest} nodes, min cut on {cut})")


def main():
    what, path, minimum = sys.argv[1], sys.argv[2], int(sys.argv[3])
    records = load(path)
    if what == "matching-layers":
        matching_layers(records, minimum, load(sys.argv[4]) if len(sys.argv) > 4 else None)
        return
    {"shortest-paths": shortest_paths, "matching": matching, "vertex-cover": vertex_cover}[what](records, minimum)


if __name__ == "__main__":
    main()
