#!/usr/bin/python3
"""algos_oracle - independent checks of common/algos/ on algo_trace's output.

    algos_oracle.py shortest-paths traced.mp MIN_GRAPHS

Each check is written from the definitions, not from the C code: distances
from scipy's Dijkstra (networkx where a weight is 0, which scipy's sparse
graphs drop), the hints from a plain-Python synchronous Bellman-Ford with
the tie rule of bellman_ford.h.  Prints one summary line; exits 1 with the
first disagreement.
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


def main():
    what, path, minimum = sys.argv[1], sys.argv[2], int(sys.argv[3])
    records = load(path)
    {"shortest-paths": shortest_paths}[what](records, minimum)


if __name__ == "__main__":
    main()
