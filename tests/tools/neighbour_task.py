#!/usr/bin/python3
"""A graph record whose vessel labels depend on the neighbours' features,
not the vessel's own (tests/720-gnn-train.bats, issue 15 acceptance 2).

    neighbour_task.py NODES EDGES SEED > task.mp

G: a random graph (no self-loops or parallel edges, edges sorted with
src < dst, as vessel records).  Each edge gets `length` ~ N(0, 1) and noise
`distance`, `curveness`; `neighbour_mean` is the mean `length` over its
line-graph neighbours (edges sharing an endpoint; 0 for none) and the label
bins it at its 70% and 90% quantiles (classes 0/1/2 about 70/20/10%).  A
per-edge classifier on length, distance, curveness sees nothing of the label;
one convolution's mean aggregation sees it all; `neighbour_mean` itself
determines it.
"""
import sys

import msgpack
import msgpack_numpy
import numpy as np


def main():
    nodes, edges, seed = (int(a) for a in sys.argv[1:4])
    rng = np.random.default_rng(seed)
    pairs = set()
    while len(pairs) < edges:
        u, v = rng.integers(0, nodes, 2)
        if u != v:
            pairs.add((min(u, v), max(u, v)))
    e = np.array(sorted(pairs), dtype=np.int32)
    src, dst = e[:, 0], e[:, 1]
    m = len(e)
    length = rng.normal(size=m).astype(np.float32)
    incident = [[] for _ in range(nodes)]
    for i, (u, v) in enumerate(e):
        incident[u].append(i)
        incident[v].append(i)
    mean = np.zeros(m, dtype=np.float32)
    for i, (u, v) in enumerate(e):
        nb = [j for j in incident[u] + incident[v] if j != i]
        mean[i] = np.mean(length[nb]) if nb else 0.0
    t1, t2 = np.quantile(mean, [0.7, 0.9])
    label = np.where(mean <= t1, 0, np.where(mean <= t2, 1, 2)).astype(np.uint8)
    rec = {"kind": "graph", "id": 0, "family": "neighbour-task", "n": nodes, "m": m, "directed": False,
           "src": src, "dst": dst, "length": length,
           "distance": rng.normal(size=m).astype(np.float32),
           "curveness": rng.normal(size=m).astype(np.float32),
           "neighbour_mean": mean, "label": label}
    sys.stdout.buffer.write(msgpack.packb(rec, default=msgpack_numpy.encode, use_bin_type=True))


if __name__ == "__main__":
    main()
