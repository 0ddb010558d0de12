#!/usr/bin/python3
"""The peer of lc-train: scikit-learn's LogisticRegression(class_weight='balanced')
on the same standardised inputs (StandardScaler fitted on the train edges) and
the same split (the `split` key lc-train wrote).  Prints one line:

    sklearn_seconds <fit + predict> balanced_accuracy <test> lc_balanced_accuracy <test, lc-train's pred_label>

Usage: lc-train.py CLASSIFIED.mp [INPUTS]   (INPUTS default: lc_model's inputs)
The record is read with a streaming unpacker; only the inputs, label, split and
pred_label are kept.
"""
import sys
import time

import msgpack
import msgpack_numpy
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score
from sklearn.preprocessing import StandardScaler


def main():
    path = sys.argv[1]
    with open(path, "rb") as f:
        rec = next(iter(msgpack.Unpacker(f, object_hook=msgpack_numpy.decode, raw=False, max_buffer_size=0)))
    names = sys.argv[2].split(",") if len(sys.argv) > 2 else list(rec["lc_model"]["inputs"])
    cols = [rec[k].reshape(len(rec["label"]), -1) for k in names]
    X = np.concatenate(cols, axis=1).astype(np.float64)
    y, split, ours = rec["label"], rec["split"], rec["pred_label"]
    del rec, cols
    tr, te = split == 0, split == 2
    t0 = time.perf_counter()
    scaler = StandardScaler().fit(X[tr])
    Xs = scaler.transform(X)
    clf = LogisticRegression(class_weight="balanced", max_iter=1000)
    clf.fit(Xs[tr], y[tr])
    pred = clf.predict(Xs[te])
    seconds = time.perf_counter() - t0
    print("sklearn_seconds %.3f balanced_accuracy %.4f lc_balanced_accuracy %.4f"
          % (seconds, balanced_accuracy_score(y[te], pred), balanced_accuracy_score(y[te], ours[te])))


if __name__ == "__main__":
    main()
