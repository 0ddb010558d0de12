#!/usr/bin/python3
"""The networkx peer for ff-trace: edmonds_karp on every graph of a stream,
solver time only (graph construction excluded), best of R passes.
Usage: nx_maxflow.py graphs.mp R -> prints seconds for the whole set."""
import sys, time, msgpack, msgpack_numpy as mn, networkx as nx
from networkx.algorithms.flow import edmonds_karp
recs = list(msgpack.Unpacker(open(sys.argv[1], "rb"), object_hook=mn.decode, raw=False))
graphs = []
for r in recs:
    G = nx.DiGraph() if r["directed"] else nx.Graph()
    G.add_nodes_from(range(r["n"]))
    for u, v, c in zip(r["src"].tolist(), r["dst"].tolist(), r["cap"].tolist()):
        G.add_edge(u, v, capacity=c)
    graphs.append((G, r["s"], r["t"]))
best = float("inf")
for _ in range(int(sys.argv[2])):
    t0 = time.perf_counter()
    for G, s, t in graphs:
        nx.maximum_flow_value(G, s, t, flow_func=edmonds_karp)
    best = min(best, time.perf_counter() - t0)
print(f"{best:.6f}")
