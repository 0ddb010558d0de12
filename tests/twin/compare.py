#!/usr/bin/python3
"""Compare two `gradients` records (the C model's dar_dump and the twin).

    compare.py c.mp p.mp [--loss-rtol 1e-5] [--grad-rtol 1e-4] [--abs 1e-7] [-v]

Loss terms: |a - b| <= loss_rtol * max(|a|, |b|) + abs.  Gradients, per
tensor: max|a - b| <= grad_rtol * max(max|a|, max|b|) + abs.  Prints the worst
tensors and exits 1 on any failure.
"""
import argparse
import sys

import msgpack
import msgpack_numpy
import numpy as np


def load(path):
    recs = list(msgpack.Unpacker(open(path, "rb"), object_hook=msgpack_numpy.decode,
                                 raw=False, max_buffer_size=0))
    recs = [r for r in recs if r.get("kind") == "gradients"]
    if len(recs) != 1:
        sys.exit("compare: %s: expected one gradients record, got %d" % (path, len(recs)))
    return recs[0]


def compare(A, B, loss_rtol=1e-5, grad_rtol=1e-4, abs_tol=1e-7, verbose=False):
    """Return (ok, report lines, worst summary)."""
    out, bad = [], []
    terms = [("loss", A["loss"], B["loss"])]
    for k in ("mask", "pi", "flow_hint", "cut_hint", "flow", "cut"):
        terms.append(("losses." + k, A["losses"].get(k, 0.0), B["losses"].get(k, 0.0)))
    for name, x, y in terms:
        x, y = float(x), float(y)
        err = abs(x - y)
        ok = err <= loss_rtol * max(abs(x), abs(y)) + abs_tol
        if not ok or verbose:
            out.append("%-4s %-20s %.9g vs %.9g  rel %.3g" % ("ok" if ok else "BAD", name, x, y,
                                                             err / max(abs(x), abs(y), 1e-30)))
        if not ok:
            bad.append(name)
    ga, gb = A["grads"], B["grads"]
    if list(ga) != list(gb):
        out.append("BAD  parameter names/order differ:\n  %s\n  %s" % (list(ga), list(gb)))
        bad.append("names")
    rows = []
    for k in ga:
        if k not in gb:
            continue
        x = np.asarray(ga[k], np.float64); y = np.asarray(gb[k], np.float64)
        if x.shape != y.shape:
            out.append("BAD  %s shape %s vs %s" % (k, x.shape, y.shape)); bad.append(k); continue
        d = np.abs(x - y).max() if x.size else 0.0
        sc = max(np.abs(x).max() if x.size else 0.0, np.abs(y).max() if y.size else 0.0)
        rel = d / sc if sc > 0 else 0.0
        ok = bool(d <= grad_rtol * sc + abs_tol and np.all(np.isfinite(x)) and np.all(np.isfinite(y)))
        rows.append((d / (grad_rtol * sc + abs_tol), rel, k, d, sc, ok))
        if not ok:
            bad.append(k)
    rows.sort(reverse=True)
    for _, rel, k, d, sc, ok in (rows if verbose else [r for r in rows if not r[5]][:10]):
        out.append("%-4s %-34s max|diff| %.3g  scale %.3g  rel %.3g" % ("ok" if ok else "BAD", k, d, sc, rel))
    worst = ""
    if rows:
        use, rel, k, d, sc, _ = rows[0]
        worst = ("worst gradient %s rel %.3g (max|diff| %.3g, scale %.3g, %.2f of tolerance); "
                 "loss %.9g vs %.9g" % (k, rel, d, sc, use, float(A["loss"]), float(B["loss"])))
    if bad:
        out.append("FAILED: %s" % ", ".join(bad[:20]))
    return not bad, out, worst


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a"); ap.add_argument("b")
    ap.add_argument("--loss-rtol", type=float, default=1e-5)
    ap.add_argument("--grad-rtol", type=float, default=1e-4)
    ap.add_argument("--abs", type=float, default=1e-7)
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    ok, out, worst = compare(load(a.a), load(a.b), a.loss_rtol, a.grad_rtol, a.abs, a.verbose)
    for line in out:
        print(line)
    print(worst)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
