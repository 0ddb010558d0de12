#!/usr/bin/python3
"""Read a stream into numpy and plot predicted against true flow.

    gen-graphs -n 64 -c 16 -s 3 | ff-trace | dar-step --model dual.mp > pred.mp
    examples/flow-scatter.py pred.mp flow.png

Any dar stream is a sequence of msgpack maps whose arrays decode with
msgpack_numpy into numpy arrays (formats/stream.md); this is all it takes."""
import sys
import msgpack
import msgpack_numpy
import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

stream, out = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "flow.png"
true, pred = [], []
with open(stream, "rb") as f:
    for record in msgpack.Unpacker(f, object_hook=msgpack_numpy.decode, raw=False, max_buffer_size=0):
        true.append(record["flow"])        # f32[m], exact max flow from ff-trace
        pred.append(record["pred_flow"])   # f32[m], the model's final flow
true, pred = np.concatenate(true), np.concatenate(pred)
nonzero = true != 0
print(f"{len(true)} edges, masked MAE {np.abs(pred - true)[nonzero].mean():.4f} "
      f"(over the {nonzero.sum()} edges with true flow), correlation {np.corrcoef(true, pred)[0, 1]:.3f}")
plt.figure(figsize=(5, 5))
plt.scatter(true, pred, s=3, alpha=0.3)
lim = max(np.abs(true).max(), np.abs(pred).max())
plt.plot([-lim, lim], [-lim, lim], "k--", lw=0.8)
plt.xlabel("true flow (ff-trace)")
plt.ylabel("predicted flow (dar-step)")
plt.title(stream)
plt.tight_layout()
plt.savefig(out, dpi=120)
print("wrote", out)
