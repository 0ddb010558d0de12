#!/usr/bin/python3
"""The Python peers of common/algos/'s tracers, for tests/bench/algos.sh.

    algos_peers.py shortest-paths|matching|vertex-cover graphs.mp PASSES

shortest-paths: a numpy tracer of the same synchronous Bellman-Ford frames
(d, pi, reached per round, ties to the smaller neighbour), vectorised per
round; matching: networkx's hopcroft_karp_matching + to_vertex_cover (no
hints: networkx has no traced matching); vertex-cover: the plain-Python
primal-dual rounds of tests/tools/algos_oracle.py, which trace the same
hints as PDNAR's own (loops over the graph, as its code does).
Prints the best time of PASSES for the whole set, reading the stream
included: "seconds"."""
import os
import sys
import time
import msgpack
import msgpack_numpy as mn
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))


def bellman_ford_frames(r):
    n, s = r["n"], int(r["s"])
    u = np.concatenate([r["src"], r["dst"]]).astype(np.int64)
    v = np.concatenate([r["dst"], r["src"]]).astype(np.int64)
    w = np.concatenate([r["w"], r["w"]]).astype(np.float64)
    d, pi, reached = np.zeros(n), np.arange(n), np.zeros(n, bool)
    reached[s] = True
    frames = [(d.copy(), pi.copy(), reached.copy())]
    if len(u) == 0:
        return frames + frames
    while True:
        cand = np.where(reached[u], d[u] + w, np.inf)
        order = np.lexsort((u, cand, v))           # per target: least candidate, then least neighbour
        first = order[np.r_[True, v[order][1:] != v[order][:-1]]]
        targets, best, frm = v[first], cand[first], u[first]
        better = np.isfinite(best) & (~reached[targets] | (best < d[targets]))
        if not better.any():
            frames.append((d.copy(), pi.copy(), reached.copy()))
            return frames
        d, pi, reached = d.copy(), pi.copy(), reached.copy()
        t = targets[better]
        d[t], pi[t], reached[t] = best[better], frm[better], True
        frames.append((d.copy(), pi.copy(), reached.copy()))


def matching(r):
    import networkx as nx
    from networkx.algorithms import bipartite
    G = nx.Graph()
    G.add_nodes_from(range(r["n"]))
    G.add_edges_from(zip(r["src"].tolist(), r["dst"].tolist()))
    top = [v for v in range(r["n"]) if r["side"][v] == 0]
    M = bipartite.hopcroft_karp_matching(G, top_nodes=top)
    return bipartite.to_vertex_cover(G, M, top_nodes=top)


def vertex_cover(r):
    from algos_oracle import primal_dual_rounds
    return primal_dual_rounds(r["n"], list(zip(r["src"].tolist(), r["dst"].tolist())),
                              r["node_w"].astype(np.float64).tolist())


def main():
    what, path, passes = sys.argv[1], sys.argv[2], int(sys.argv[3])
    run = {"shortest-paths": bellman_ford_frames, "matching": matching, "vertex-cover": vertex_cover}[what]
    best = float("inf")
    for _ in range(passes):
        t0 = time.perf_counter()
        with open(path, "rb") as f:
            for r in msgpack.Unpacker(f, object_hook=mn.decode, raw=False, max_buffer_size=0):
                run(r)
        best = min(best, time.perf_counter() - t0)
    print(f"{best:.6f}")


if __name__ == "__main__":
    main()
