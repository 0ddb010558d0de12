#!/usr/bin/python3
"""Write graphs from Python that the tools read, and read their output back.

    examples/python-interop.py | ff-trace | mpcat --summary

A graph record is a dict of scalars and numpy arrays (formats/graph.md);
msgpack_numpy encodes the arrays exactly as the tools expect."""
import sys
import msgpack
import msgpack_numpy
import numpy as np

rng = np.random.default_rng(0)
for k in range(3):
    n = 10
    pairs = [(u, v) for u in range(n) for v in range(u + 1, n) if rng.random() < 0.4]
    src, dst = (np.array(x, dtype=np.int32) for x in zip(*pairs))
    record = {"kind": "graph", "id": k, "family": "python", "n": n, "m": len(pairs), "directed": False,
              "s": 0, "t": n - 1, "src": src, "dst": dst,
              "cap": rng.integers(1, 10, len(pairs)).astype(np.float32) / 10,
              "w": rng.random(len(pairs)).astype(np.float32), "cap_scale": 10}
    sys.stdout.buffer.write(msgpack.packb(record, default=msgpack_numpy.encode))
