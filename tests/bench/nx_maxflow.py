#!/usr/bin/python3
"""The networkx peer for ff-trace: edmonds_karp on every graph of a stream.
Prints two times for the whole set, each the best of R passes: the solver
alone (graphs built beforehand), and end to end (reading the stream with
msgpack, building the graphs, solving), which is what ff-trace's time covers.
Usage: nx_maxflow.py graphs.mp R -> "solver_seconds end_to_end_seconds"."""
import sys, time, msgpack, msgpack_numpy as mn, networkx as nx
from networkx.algorithms.flow import edmonds_karp


def build(r):
    G = nx.DiGraph() if r["directed"] else nx.Graph()
    G.add_nodes_from(range(r["n"]))
    for u, v, c in zip(r["src"].tolist(), r["dst"].tolist(), r["cap"].tolist()):
        G.add_edge(u, v, capacity=c)
    return G, r["s"], r["t"]


passes = int(sys.argv[2])
solver = end_to_end = float("inf")
for _ in range(passes):
    t0 = time.perf_counter()
    graphs = [build(r) for r in msgpack.Unpacker(open(sys.argv[1], "rb"), object_hook=mn.decode, raw=False)]
    t1 = time.perf_counter()
    for G, s, t in graphs:
        nx.maximum_flow_value(G, s, t, flow_func=edmonds_karp)
    t2 = time.perf_counter()
    solver = min(solver, t2 - t1)
    end_to_end = min(end_to_end, t2 - t0)
print(f"{solver:.6f} {end_to_end:.6f}")
