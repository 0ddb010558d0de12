#!/usr/bin/python3
"""The peer of lc-train: scikit-learn's LogisticRegression(class_weight='balanced')
on the same standardised inputs (StandardScaler fitted on the train edges) and
the same split (the `split` key lc-train wrote).  Prints one line:

    sklearn_seconds <fit + predict> balanced_accuracy <test> lc_balanced_accuracy <test, lc-train's pred_label> <lc-train's epochs>

With --lc-only, only lc-train's test balanced accuracy and epochs (no sklearn).

Usage: lc-train.py CLASSIFIED.mp [INPUTS]   (INPUTS default: lc_model's inputs)
The record is read with a streaming unpacker; only the inputs, label, split and
pred_label are kept.

       lc-train.py --simulate-embed D IN.mp OUT.mp
stands in for edge-embed in the benchmark: copies the one vessel record of IN
adding `edge_embed` f32[m, D] (random projections of the standardised log
features plus noise), streamed in chunks so memory stays O(chunk) whatever the
size (5.8M x 185 floats is 4.3 GB; msgpack's bin32 caps a tensor at 4 GiB, so
D <= 185 at CD1-E-1's size).
"""
import shutil
import struct
import sys
import time

import msgpack
import msgpack_numpy
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score
from sklearn.preprocessing import StandardScaler


def simulate_embed(d, src, dst):
    with open(src, "rb") as f:
        head = f.read(5)
        if 0x80 <= head[0] <= 0x8F:
            n, skip = head[0] & 0x0F, 1
        elif head[0] == 0xDE:
            n, skip = struct.unpack(">H", head[1:3])[0], 3
        elif head[0] == 0xDF:
            n, skip = struct.unpack(">I", head[1:5])[0], 5
        else:
            sys.exit("not a map record")
        f.seek(0)
        rec = next(iter(msgpack.Unpacker(f, object_hook=msgpack_numpy.decode, raw=False, max_buffer_size=0)))
        m = rec["m"]
        feats = np.stack([np.log(rec["length"]), np.log(rec["distance"]), np.log(rec["curveness"] - 0.999)], 1)
        feats = (feats - feats.mean(0)) / feats.std(0)
        del rec
        rng = np.random.default_rng(1)
        proj = rng.normal(0, 1, (3, d)).astype(np.float32)
        with open(dst, "wb") as out:
            out.write(b"\xde" + struct.pack(">H", n + 1))
            f.seek(skip)
            shutil.copyfileobj(f, out, 1 << 24)
            out.write(msgpack.packb("edge_embed"))
            out.write(b"\x85")
            for k, v in ((b"nd", True), (b"type", "<f4"), (b"kind", b""), (b"shape", [m, d])):
                out.write(msgpack.packb(k, use_bin_type=True) + msgpack.packb(v, use_bin_type=True))
            nbytes = m * d * 4
            assert nbytes < 1 << 32, "a tensor of %d bytes does not fit msgpack's bin32" % nbytes
            out.write(msgpack.packb(b"data", use_bin_type=True) + b"\xc6" + struct.pack(">I", nbytes))
            for lo in range(0, m, 1 << 18):
                x = feats[lo:lo + (1 << 18)].astype(np.float32)
                e = np.tanh(x @ proj) + rng.normal(0, 0.5, (len(x), d)).astype(np.float32)
                out.write(e.astype("<f4").tobytes())


def main():
    if sys.argv[1] == "--simulate-embed":
        simulate_embed(int(sys.argv[2]), sys.argv[3], sys.argv[4])
        return
    path = sys.argv[1]
    with open(path, "rb") as f:
        rec = next(iter(msgpack.Unpacker(f, object_hook=msgpack_numpy.decode, raw=False, max_buffer_size=0)))
    args = [a for a in sys.argv[2:] if not a.startswith("--")]
    names = args[0].split(",") if args else list(rec["lc_model"]["inputs"])
    y, split, ours = rec["label"], rec["split"], rec["pred_label"]
    mo = rec["lc_model"]
    run = "%d epochs (best %d), batch %d" % (mo["epochs"], mo["best_epoch"], mo["batch"])
    tr, te = split == 0, split == 2
    if "--lc-only" in sys.argv:
        print("lc_balanced_accuracy %.4f %s" % (balanced_accuracy_score(y[te], ours[te]), run))
        return
    cols = [rec[k].reshape(len(rec["label"]), -1) for k in names]
    X = np.concatenate(cols, axis=1).astype(np.float64)
    del rec, cols
    t0 = time.perf_counter()
    scaler = StandardScaler().fit(X[tr])
    Xs = scaler.transform(X)
    clf = LogisticRegression(class_weight="balanced", max_iter=1000)
    clf.fit(Xs[tr], y[tr])
    pred = clf.predict(Xs[te])
    seconds = time.perf_counter() - t0
    print("sklearn_seconds %.3f balanced_accuracy %.4f lc_balanced_accuracy %.4f %s"
          % (seconds, balanced_accuracy_score(y[te], pred), balanced_accuracy_score(y[te], ours[te]), run))


if __name__ == "__main__":
    main()
