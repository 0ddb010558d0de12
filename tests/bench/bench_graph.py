#!/usr/bin/python3
"""Benchmark inputs that gen-graphs does not make: a random graph of N nodes
and M arcs (caps U{0..10}, s = 0, t = N-1, optionally 1000 extra s- and
t-arcs of capacity 10), as a graph record (for ff-trace) and as raw arrays
(for the Boost peer).  Usage: bench_graph.py N M EXTRA SEED out.mp out.bin"""
import sys, msgpack, msgpack_numpy as mn, numpy as np
n, m, extra, seed = (int(x) for x in sys.argv[1:5])
rng = np.random.default_rng(seed)
u = rng.integers(0, n, int(m * 1.05)); v = rng.integers(0, n, int(m * 1.05))
keep = u != v
key = np.unique(u[keep].astype(np.int64) * n + v[keep])[:m]      # distinct arcs
rng.shuffle(key)
src, dst = (key // n).astype(np.int32), (key % n).astype(np.int32)
cap = rng.integers(0, 11, len(src)).astype(np.int64)
if extra:
    a = rng.choice(np.arange(1, n - 1), extra, replace=False).astype(np.int32)
    b = rng.choice(np.arange(1, n - 1), extra, replace=False).astype(np.int32)
    pairs = set(zip(src.tolist(), dst.tolist()))
    add = [(0, x) for x in a if (0, x) not in pairs] + [(y, n - 1) for y in b if (y, n - 1) not in pairs]
    src = np.concatenate([src, np.array([p[0] for p in add], np.int32)])
    dst = np.concatenate([dst, np.array([p[1] for p in add], np.int32)])
    cap = np.concatenate([cap, np.full(len(add), 10, np.int64)])
m = len(src)
rec = {"kind": "graph", "id": 0, "family": "random", "n": n, "m": m, "directed": True, "s": 0, "t": n - 1,
       "src": src, "dst": dst, "cap": cap.astype(np.float32), "w": np.ones(m, np.float32), "cap_scale": 1}
open(sys.argv[5], "wb").write(msgpack.packb(rec, default=mn.encode))
with open(sys.argv[6], "wb") as f:
    f.write(np.array([n, m, 0, n - 1, 1], np.int32).tobytes())
    f.write(src.tobytes()); f.write(dst.tobytes()); f.write(cap.tobytes())
