#!/usr/bin/python3
"""Write a vessel record (gen-graphs --family vessel) as the VesselGraph
benchmark's processed CSV pair, DIR/NAME_nodes_processed.csv and
DIR/NAME_edges_processed.csv (';'-separated, header row, columns as
bvg.md §1).  Floats are printed with 9 significant digits, which read back
to the same float32, so `gen-graphs --from-vesselgraph DIR` gives back the
same record (same --seed for w).

Columns not in the record are derived as the benchmark defines them:
degree, node1_degree, node2_degree from the edges; num_voxels =
round(0.75 * length); isAtSampleBorder = node within 3 voxels of the
bounding box of all positions; hasNodeAtSampleBorder = either endpoint is.

usage: vessel-csv.py RECORD.mp DIR [NAME]      (RECORD.mp may be - for stdin)
"""
import os
import sys

import msgpack
import msgpack_numpy
import numpy as np

ATTRS = ["length", "distance", "curveness", "volume", "avgCrossSection",
         "minRadiusAvg", "minRadiusStd", "avgRadiusAvg", "avgRadiusStd",
         "maxRadiusAvg", "maxRadiusStd", "roundnessAvg", "roundnessStd"]


def fmt_float(a):
    return np.char.mod("%.9g", np.asarray(a, dtype=np.float32).astype(np.float64))


def fmt_int(a):
    return np.asarray(a, dtype=np.int64).astype(str)


def write(path, header, cols):
    rows = np.stack(cols, axis=1) if cols else np.empty((0, 0), dtype=str)
    with open(path, "w") as f:
        f.write(";".join(header) + "\n")
        for start in range(0, len(rows), 200000):
            chunk = rows[start:start + 200000]
            f.write("".join(";".join(r) + "\n" for r in chunk.tolist()))


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__.strip().splitlines()[-1])
    src, out = sys.argv[1], sys.argv[2]
    name = sys.argv[3] if len(sys.argv) == 4 else "vessel"
    f = sys.stdin.buffer if src == "-" else open(src, "rb")
    rec = next(iter(msgpack.Unpacker(f, object_hook=msgpack_numpy.decode, raw=False, max_buffer_size=0)))
    n, m = rec["n"], rec["m"]
    s, d = rec["src"].astype(np.int64), rec["dst"].astype(np.int64)
    pos = rec["pos"].reshape(n, 3)
    deg = np.bincount(np.concatenate([s, d]), minlength=n)
    lo, hi = pos.min(axis=0), pos.max(axis=0)
    border = (((pos - lo) < 3) | ((hi - pos) < 3)).any(axis=1).astype(np.int64)
    os.makedirs(out, exist_ok=True)
    write(os.path.join(out, name + "_nodes_processed.csv"),
          ["id", "pos_x", "pos_y", "pos_z", "degree", "isAtSampleBorder"],
          [fmt_int(np.arange(n)), fmt_float(pos[:, 0]), fmt_float(pos[:, 1]), fmt_float(pos[:, 2]),
           fmt_int(deg), fmt_int(border)])
    num_voxels = np.rint(0.75 * rec["length"].astype(np.float64))
    write(os.path.join(out, name + "_edges_processed.csv"),
          ["id", "node1id", "node2id"] + ATTRS +
          ["node1_degree", "node2_degree", "num_voxels", "hasNodeAtSampleBorder"],
          [fmt_int(np.arange(m)), fmt_int(s), fmt_int(d)] + [fmt_float(rec[k]) for k in ATTRS] +
          [fmt_int(deg[s]), fmt_int(deg[d]), fmt_int(num_voxels), fmt_int(border[s] | border[d])])


if __name__ == "__main__":
    main()
