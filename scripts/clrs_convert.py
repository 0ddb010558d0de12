#!/usr/bin/python3
"""clrs_convert - Bellman-Ford samples between CLRS's layout and dar's streams.

    clrs_convert.py to-dar IN.npz [--trace] [--family NAME] > OUT.mp
    clrs_convert.py to-clrs [IN.mp] OUT.npz
    clrs_convert.py with-predictions IN.mp PRED.npy > OUT.mp

with-predictions puts a CLRS model's predicted tree (tests/bench/clrs_peer.py
--predictions: int32 [B,n], one row a record, in the stream's order) on each
record as `pred_pi`, the key dar-step writes, so that `metrics` scores the
peer's predictions as it scores dar's, graph by graph (--per-graph) for the
paired bootstrap.

numpy and msgpack only (no JAX, no dm-clrs), so that `make test` runs it.

The .npz holds one batch of CLRS's `bellman_ford` DataPoints as
`clrs.Feedback` carries them (google-deepmind/clrs, clrs/_src/samplers.py,
clrs/_src/algorithms/graphs.py `bellman_ford`), named as CLRS's dataset
builder names them (clrs/_src/dataset.py: input_/hint_/output_ prefixes):

    input_pos f[B,n]    i/n (or CLRS's random_pos)
    input_s   f[B,n]    one-hot source
    input_A   f[B,n,n]  the weight matrix (0 = no edge)
    input_adj f[B,n,n]  (A + I) != 0
    hint_pi_h f[T,B,n]  predecessor pointers, time-major, zero-padded past
    hint_d    f[T,B,n]  distances              lengths[b]
    hint_msk  f[T,B,n]  reached mask
    output_pi f[B,n]    the shortest-path tree
    lengths   f[B]      each sample's number of hint frames

to-clrs adds `dar_id` (the records' ids) and `dar_family` so that to-dar
gives the records back.  A graph's n must be the same for every record (CLRS
batches are dense).

Where the two traces differ (common/algos/bellman_ford.c against CLRS's
graphs.py): both run synchronous rounds from the frame before, take only a
strictly shorter candidate and break ties between candidates towards the
smaller neighbour, leave unreached nodes at d = 0 pointing to themselves and
root the source at itself; but CLRS stops recording at the first round that
changes nothing (T = rounds), where dar records that round too (steps =
rounds + 1, its last frame a copy of the one before).  So to-clrs drops
dar's last frame and to-dar repeats CLRS's last one.  CLRS's weights are
float64, dar's `w` float32: to-dar rounds them, and its trace keys carry
CLRS's own float64 distances.  CLRS's graphs keep self-loops (the diagonal
of A), which no shortest path uses and dar's records cannot hold: to-dar
drops them, to-clrs writes none.  A dar edge of weight exactly 0 has no
place in A (CLRS's graph is A's support): to-clrs refuses it.
"""
import argparse
import sys

import msgpack
import msgpack_numpy
import numpy as np

PROG = "clrs_convert"


def die(msg):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(1)


def read_records(f):
    return list(msgpack.Unpacker(f, object_hook=msgpack_numpy.decode, raw=False, max_buffer_size=0))


def write_record(out, rec):
    out.write(msgpack.packb(rec, default=msgpack_numpy.encode, use_bin_type=True))


def pointers(x, what):
    """CLRS keeps pointers as floats; dar as int32."""
    r = np.rint(x)
    if np.any(np.abs(x - r) > 1e-6):
        die(f"{what}: not integral pointers")
    return r.astype(np.int32)


def npz_to_records(data, trace, family):
    """CLRS's batch -> dar graph records (instance keys; the trace on ask)."""
    for key in ("input_s", "input_A"):
        if key not in data:
            die(f"to-dar: no {key} in the .npz")
    A = np.asarray(data["input_A"], dtype=np.float64)
    S = np.asarray(data["input_s"])
    if A.ndim != 3 or A.shape[1] != A.shape[2] or S.shape != A.shape[:2]:
        die(f"to-dar: input_A of shape {A.shape} and input_s of shape {S.shape} are not [B,n,n] and [B,n]")
    B, n = S.shape
    if trace:
        for key in ("hint_pi_h", "hint_d", "hint_msk", "output_pi", "lengths"):
            if key not in data:
                die(f"to-dar --trace: no {key} in the .npz")
    ids = np.asarray(data["dar_id"]) if "dar_id" in data else np.arange(B)
    if "dar_family" in data and family is None:
        family = str(data["dar_family"])
    family = family or "erdos-renyi"
    iu, ju = np.triu_indices(n, k=1)
    for b in range(B):
        a = A[b]
        if not np.array_equal(a, a.T):
            die(f"to-dar: sample {b}: A is not symmetric (dar's shortest-path graphs are undirected)")
        if np.count_nonzero(S[b]) != 1:
            die(f"to-dar: sample {b}: input_s is not one-hot")
        keep = a[iu, ju] != 0
        src, dst = iu[keep].astype(np.int32), ju[keep].astype(np.int32)
        rec = {"kind": "graph", "id": int(ids[b]), "family": family, "n": int(n), "m": int(src.size),
               "directed": False, "s": int(np.argmax(S[b])), "src": src, "dst": dst,
               "w": a[iu, ju][keep].astype(np.float32)}
        if trace:
            T = int(round(float(data["lengths"][b])))
            if T < 1 or T > data["hint_d"].shape[0]:
                die(f"to-dar: sample {b}: length {T} outside the {data['hint_d'].shape[0]} hint frames")
            # dar records the round that changes nothing as a frame of its own
            frames = list(range(T)) + [T - 1]
            hd = np.asarray(data["hint_d"][frames, b], dtype=np.float64)
            hp = pointers(np.asarray(data["hint_pi_h"][frames, b]), f"sample {b} hint_pi_h")
            hr = np.asarray(data["hint_msk"][frames, b]).astype(np.uint8)
            pi = pointers(np.asarray(data["output_pi"][b]), f"sample {b} output_pi")
            rec.update({"steps": T + 1, "hint_d": hd, "hint_pi": hp, "hint_reached": hr,
                        "d": hd[-1].copy(), "pi": pi, "reached": hr[-1].copy()})
        yield rec


def records_to_npz(recs):
    """dar shortest-path records with their trace -> CLRS's batch."""
    if not recs:
        die("to-clrs: no record on the input")
    n = recs[0].get("n")
    B = len(recs)
    for i, r in enumerate(recs):
        if r.get("kind") != "graph" or r.get("directed"):
            die(f"to-clrs: record {i}: not an undirected graph record")
        if r.get("n") != n:
            die(f"to-clrs: record {i}: {r.get('n')} nodes where the first has {n} (CLRS batches one size)")
        for key in ("s", "src", "dst", "w", "steps", "hint_d", "hint_pi", "hint_reached", "pi"):
            if key not in r:
                die(f"to-clrs: record {i}: no {key} (run ff-trace --algorithm shortest-paths first)")
        if np.any(np.asarray(r["w"]) == 0):
            die(f"to-clrs: record {i}: an edge of weight 0 has no place in CLRS's A")
    T = max(int(r["steps"]) - 1 for r in recs)
    out = {
        "input_pos": np.tile(np.arange(n, dtype=np.float64) / n, (B, 1)),
        "input_s": np.zeros((B, n)),
        "input_A": np.zeros((B, n, n)),
        "input_adj": np.zeros((B, n, n)),
        "hint_pi_h": np.zeros((T, B, n)),
        "hint_d": np.zeros((T, B, n)),
        "hint_msk": np.zeros((T, B, n)),
        "output_pi": np.zeros((B, n)),
        "lengths": np.zeros(B),
        "dar_id": np.array([int(r.get("id", i)) for i, r in enumerate(recs)], dtype=np.int64),
        "dar_family": np.array(recs[0].get("family", "erdos-renyi")),
    }
    for b, r in enumerate(recs):
        src, dst = np.asarray(r["src"], dtype=np.int64), np.asarray(r["dst"], dtype=np.int64)
        w = np.asarray(r["w"], dtype=np.float32).astype(np.float64)
        out["input_s"][b, int(r["s"])] = 1
        out["input_A"][b, src, dst] = w
        out["input_A"][b, dst, src] = w
        out["input_adj"][b] = ((out["input_A"][b] + np.eye(n)) != 0) * 1.0
        t = int(r["steps"]) - 1   # CLRS does not record dar's last, unchanged frame
        out["hint_pi_h"][:t, b] = np.asarray(r["hint_pi"])[:t]
        out["hint_d"][:t, b] = np.asarray(r["hint_d"])[:t]
        out["hint_msk"][:t, b] = np.asarray(r["hint_reached"])[:t]
        out["output_pi"][b] = np.asarray(r["pi"])
        out["lengths"][b] = t
    return out


def with_predictions(recs, pred, what):
    """Each record with its row of pred as pred_pi (checked pointers)."""
    if pred.ndim != 2 or pred.shape[0] != len(recs):
        die(f"with-predictions: {what}: shape {pred.shape} for {len(recs)} records (want [{len(recs)},n])")
    for i, r in enumerate(recs):
        n = r.get("n")
        if r.get("kind") != "graph" or not isinstance(n, int):
            die(f"with-predictions: record {i}: not a graph record")
        if pred.shape[1] != n:
            die(f"with-predictions: record {i}: {n} nodes, {what} has rows of {pred.shape[1]}")
        row = pointers(np.asarray(pred[i], dtype=np.float64), f"{what} row {i}")
        if np.any(row < 0) or np.any(row >= n):
            die(f"with-predictions: {what} row {i}: a pointer outside 0..{n - 1}")
        yield dict(r, pred_pi=row)


def main():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("to-dar")
    a.add_argument("npz")
    a.add_argument("--trace", action="store_true", help="also the trace keys, from CLRS's hints")
    a.add_argument("--family", default=None)
    c = sub.add_parser("to-clrs")
    c.add_argument("paths", nargs="+", metavar="[IN.mp] OUT.npz")
    w = sub.add_parser("with-predictions")
    w.add_argument("stream")
    w.add_argument("npy")
    args = ap.parse_args()
    if args.cmd == "with-predictions":
        try:
            with open(args.stream, "rb") as f:
                recs = read_records(f)
            pred = np.load(args.npy, allow_pickle=False)
        except (OSError, ValueError, msgpack.exceptions.ExtraData) as e:
            die(f"with-predictions: {e}")
        out = sys.stdout.buffer
        for rec in with_predictions(recs, pred, args.npy):
            write_record(out, rec)
    elif args.cmd == "to-dar":
        try:
            data = dict(np.load(args.npz, allow_pickle=False))
        except (OSError, ValueError) as e:
            die(f"to-dar: {args.npz}: {e}")
        out = sys.stdout.buffer
        for rec in npz_to_records(data, args.trace, args.family):
            write_record(out, rec)
    else:
        if len(args.paths) > 2:
            die("to-clrs: at most an input stream and an output .npz")
        try:
            if len(args.paths) == 2:
                with open(args.paths[0], "rb") as f:
                    recs = read_records(f)
            else:
                recs = read_records(sys.stdin.buffer)
        except (OSError, ValueError, msgpack.exceptions.ExtraData) as e:
            die(f"to-clrs: reading the stream: {e}")
        with open(args.paths[-1], "wb") as f:
            np.savez(f, **records_to_npz(recs))


if __name__ == "__main__":
    main()
