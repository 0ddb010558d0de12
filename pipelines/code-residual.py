#!/usr/bin/python3
"""code-residual.py FILE... - the authors' residual test against ours.

The authors' Ford-Fulkerson trace (dar-reference.md §2) lets a Bellman-Ford
round cross an edge only if C - |F| > 0, so an edge saturated in one
direction is blocked in both, and the final flow can fall short of the
maximum.  ff-trace uses the true residual C - F > 0.  For every traced graph
record of each FILE (ff-trace output) this re-runs the code's trace in exact
integer arithmetic (capacities times cap_scale) and compares its flow value
with the record's maxflow and its length with the record's steps.

Prints a TSV: file, family, nodes, graphs, the share of graphs whose code
flow is below the maximum, the mean shortfall over the maximum, the mean
trace length T of the code's rule and of ours.
"""
import os
import sys

import msgpack
import msgpack_numpy
import numpy as np


def code_trace(record):
    """(flow value, frames) of the code's Ford-Fulkerson on one graph."""
    n, s, t = record["n"], record["s"], record["t"]
    src, dst = np.asarray(record["src"]), np.asarray(record["dst"])
    scale = record.get("cap_scale") or 1
    cap = np.rint(np.asarray(record["cap"], dtype=np.float64) * scale).astype(np.int64)
    C = np.zeros((n, n), dtype=np.int64)
    W = np.zeros((n, n))
    adj = np.zeros((n, n), dtype=bool)
    C[src, dst] = cap
    W[src, dst] = record["w"]
    adj[src, dst] = True
    if not record.get("directed", False):
        C[dst, src] = cap
        W[dst, src] = record["w"]
        adj[dst, src] = True
    F = np.zeros((n, n), dtype=np.int64)
    frames = 1
    while True:
        d = np.zeros(n)
        reached = np.zeros(n, dtype=bool)
        reached[s] = True
        pi = np.arange(n)
        for _ in range(n):
            valid = reached[:, None] & adj & (C - np.abs(F) > 0)
            candidate = np.where(valid, d[:, None] + W, np.inf)
            u = np.argmin(candidate, axis=0)                    # lowest u on ties
            best = candidate[u, np.arange(n)]
            update = np.isfinite(best) & (~reached | (best < d))
            new_d = np.where(update, best, d)
            pi = np.where(update, u, pi)
            reached = reached | np.isfinite(best)
            frames += 1
            if np.array_equal(new_d, d):
                break
            d = new_d
        if pi[t] == t:
            break
        path, v = [], t
        while v != s:
            path.append((pi[v], v))
            v = pi[v]
        delta = min(C[a, b] - F[a, b] for a, b in path)
        for a, b in path:
            F[a, b] += delta
            F[b, a] -= delta
        frames += 1
    return F[s].sum() / scale, frames


def main():
    print("file\tfamily\tnodes\tgraphs\tshort_share\tmean_shortfall\tcode_T\tour_T")
    for path in sys.argv[1:]:
        rows = []
        with open(path, "rb") as f:
            for record in msgpack.Unpacker(f, object_hook=msgpack_numpy.decode, raw=False):
                value, frames = code_trace(record)
                rows.append((record["family"], record["n"], value, record["maxflow"], frames, record["steps"]))
        short = [max(0.0, m - v) / m if m > 0 else 0.0 for _, _, v, m, _, _ in rows]
        print("\t".join([os.path.basename(path), rows[0][0], str(rows[0][1]), str(len(rows)),
                         f"{sum(x > 1e-9 for x in short) / len(rows):.6f}", f"{sum(short) / len(rows):.6f}",
                         f"{sum(r[4] for r in rows) / len(rows):.2f}", f"{sum(r[5] for r in rows) / len(rows):.2f}"]))


if __name__ == "__main__":
    main()
