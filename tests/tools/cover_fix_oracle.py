"""Independent checks of cover-fix (tests/310).

  perturb IN OUT SEED   add pred_cover (the cover's 0/1 plus noise, a few
                        nodes flipped off) and pred_packing (the packing times
                        U(0.3, 3) plus noise, some entries negative) to traced
                        records with their optimum
  check FILE N MODE     FILE is flow-fix's output on them: the cover equals a
                        plain re-implementation of the completion (MODE ratio:
                        PDNAR's loop, argmin of w/d over all nodes each time;
                        score: per edge), covers every edge, the packing is the
                        formula's, feasible in exact sums, and weighs at most
                        the optimum (weak duality); at least N records
"""
import math
import sys

import msgpack
import msgpack_numpy
import numpy as np


def records(path):
    with open(path, "rb") as f:
        yield from msgpack.Unpacker(f, object_hook=msgpack_numpy.decode, raw=False, max_buffer_size=0)


def perturb(src, dst, seed):
    rng = np.random.default_rng(int(seed))
    with open(dst, "wb") as out:
        for r in records(src):
            n, m = r["n"], r["m"]
            cover = np.asarray(r["cover"], dtype=np.float64)
            score = cover * rng.uniform(0.3, 1.0, n) + rng.normal(0, 0.3, n)
            score[rng.random(n) < 0.3] = 0.0
            y = np.asarray(r["packing"]) * rng.uniform(0.3, 3.0, m) + rng.normal(0, 0.05, m)
            r["pred_cover"] = score.astype(np.float32)
            r["pred_packing"] = y.astype(np.float32)
            out.write(msgpack.packb(r, default=msgpack_numpy.encode, use_bin_type=True))


def complete_ratio(n, src, dst, w, cover):
    covered = [cover[a] or cover[b] for a, b in zip(src, dst)]
    while not all(covered):
        degree = [0] * n
        for e, (a, b) in enumerate(zip(src, dst)):
            if not covered[e]:
                degree[a] += 1
                degree[b] += 1
        ratio = [w[v] / degree[v] if degree[v] else math.inf for v in range(n)]
        v = min(range(n), key=lambda u: (ratio[u], u))
        cover[v] = 1
        for e, (a, b) in enumerate(zip(src, dst)):
            if a == v or b == v:
                covered[e] = True
    return cover


def complete_score(src, dst, score, cover):
    for a, b in zip(src, dst):
        if not (cover[a] or cover[b]):
            pick = b if score[b] > score[a] or (score[b] == score[a] and b < a) else a
            cover[pick] = 1
    return cover


def check(path, want, mode):
    count = 0
    for r in records(path):
        n, m = r["n"], r["m"]
        src, dst = [int(x) for x in r["src"]], [int(x) for x in r["dst"]]
        w = [float(x) for x in np.asarray(r["node_w"], dtype=np.float32)]
        score = np.asarray(r["pred_cover"], dtype=np.float32)
        start = [int(s > np.float32(0.5)) for s in score]
        want_cover = (complete_ratio(n, src, dst, w, list(start)) if mode == "ratio"
                      else complete_score(src, dst, [float(s) for s in score], list(start)))
        got = [int(x) for x in r["fixed_cover"]]
        assert got == want_cover, f"record {count}: cover {got} != {want_cover}"
        assert all(got[a] or got[b] for a, b in zip(src, dst)), f"record {count}: an edge is uncovered"
        assert r["cover_added"] == sum(want_cover) - sum(start), f"record {count}: cover_added"
        weight = math.fsum(w[v] for v in range(n) if got[v])
        assert abs(r["fixed_cover_weight"] - weight) <= 1e-12 * (1 + weight), f"record {count}: weight"
        pred = np.maximum(np.asarray(r["pred_packing"], dtype=np.float32).astype(np.float64), 0.0)
        load = np.zeros(n)
        np.add.at(load, src, pred)
        np.add.at(load, dst, pred)
        scale = np.where(load > np.asarray(w), np.asarray(w) / np.where(load > 0, load, 1), 1.0)
        want_y = pred * np.minimum(scale[src], scale[dst]) if m else pred
        y = np.asarray(r["fixed_packing"], dtype=np.float64)
        assert np.allclose(y, want_y, rtol=1e-8, atol=0), f"record {count}: packing differs from the formula"
        assert (y >= 0).all(), f"record {count}: a negative packing entry"
        for v in range(n):
            exact = math.fsum(y[e] for e in range(m) if src[e] == v or dst[e] == v)
            assert exact <= w[v], f"record {count}: node {v} loaded {exact!r} over {w[v]!r}"
        excess = math.fsum(max(l - wv, 0.0) for l, wv in zip(load, w))
        assert abs(r["packing_excess"] - excess) <= 1e-9 * (1 + excess), f"record {count}: packing_excess"
        value = math.fsum(y)
        assert abs(r["packing_value"] - value) <= 1e-9 * (1 + value), f"record {count}: packing_value"
        if r.get("opt_status") == "optimal":
            assert value <= r["opt_weight"] * (1 + 1e-7) + 1e-12, f"record {count}: packing over the optimum"
            assert weight >= r["opt_weight"] * (1 - 1e-7) - 1e-12, f"record {count}: cover under the optimum"
        count += 1
    assert count >= int(want), f"only {count} records, expected at least {want}"
    print(f"{count} repaired covers and packings agree with the oracle ({mode})")


if __name__ == "__main__":
    {"perturb": perturb, "check": check}[sys.argv[1]](*sys.argv[2:])
