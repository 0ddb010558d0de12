"""What the twins of the one-network entries (sp_twin.py, match_twin.py,
vc_twin.py) share: the training step as dar_dump runs it (the loss of a
batch at float64 and every parameter's gradient by autograd), its
comparison with the C side's loss terms and gradients, and the command line
`<twin> check --batch batch.mp model.mp:teacher:c_grads.mp ...`.

An entry is described by an `Entry`: its name (in messages), its loss terms
in the C side's order, param_names(variant, H) in the model's order, its
Batch(graphs, processor, dtype) and forward_loss(P, model, g, teacher) ->
(total, {term: value or None}).

Use /usr/bin/python3 (Debian's, with python3-torch).
"""
import argparse
import os
import sys
from collections import namedtuple

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dar_twin import read_model, read_stream  # noqa: E402

Entry = namedtuple("Entry", "name loss_keys param_names batch forward_loss")


def edge_arcs(g, x):
    """An edge value [B,M] on both arcs of its edge, dense [B,N,N]."""
    A = torch.zeros(g.B, g.N, g.N, dtype=g.dtype)
    x = torch.where(g.emask, x, torch.zeros_like(x))
    A = A.index_put((g.bidx, g.src, g.dst), x, accumulate=True)
    return A.index_put((g.bidx, g.dst, g.src), x, accumulate=True)


def compute_grads(entry, model, graphs, teacher, dtype=torch.float32):
    """The batch's total loss, its terms (None: not scored, as 0) and the
    gradient of every parameter (zeros where the loss does not reach it)."""
    names = entry.param_names(model["variant"], int(model["hidden"]))
    mp = model["params"]
    if sorted(names) != sorted(mp):
        sys.exit("%s: model params %s, expected %s" % (entry.name, list(mp), names))
    P = {k: torch.tensor(np.asarray(mp[k]).astype(np.float64), dtype=dtype, requires_grad=True) for k in names}
    g = entry.batch(graphs, model["processor"], dtype)
    total, losses = entry.forward_loss(P, model, g, teacher)
    total.backward()
    grads = {k: (P[k].grad if P[k].grad is not None else torch.zeros_like(P[k])).detach().numpy() for k in names}
    return float(total), {k: (0.0 if v is None else float(v)) for k, v in losses.items()}, grads


def cmd_check(entry, a):
    graphs = read_stream(a.batch)
    ok = 0
    for case in a.cases:
        mpath, teacher, cpath = case.split(":")
        model = read_model(mpath)
        c = read_stream(cpath)[0]
        total, lv, grads = compute_grads(entry, model, graphs, teacher, torch.float64)
        bad = []
        if abs(total - c["loss"]) > 1e-5 * max(abs(total), 1e-12):
            bad.append("loss %r vs C %r" % (total, c["loss"]))
        for k in entry.loss_keys:
            if abs(lv[k] - c["losses"][k]) > 1e-5 * max(abs(lv[k]), 1e-9):
                bad.append("loss term %s %r vs C %r" % (k, lv[k], c["losses"][k]))
        if list(c["grads"]) != entry.param_names(model["variant"], int(model["hidden"])):
            bad.append("gradient names %s" % list(c["grads"]))
        for k, gt in grads.items():
            gc = np.asarray(c["grads"][k], np.float64)
            scale = max(np.abs(gt).max(), np.abs(gc).max())
            err = np.abs(gt - gc).max()
            if err > 1e-4 * scale + 1e-7:
                bad.append("grad %s: max|diff| %.3g of scale %.3g" % (k, err, scale))
        tag = "%s %s %s teacher=%s" % (model["variant"], model["processor"], model["agg"], teacher)
        if bad:
            print("%s: DIFFERS\n  %s" % (tag, "\n  ".join(bad)))
        else:
            ok += 1
            print("%s: agrees (loss %.6g, %d gradients)" % (tag, total, len(grads)))
    print("%d of %d cases agree" % (ok, len(a.cases)))
    return 0 if ok == len(a.cases) else 1


def main(entry, doc, argv=None):
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("check", help="compare dar_dump's loss and gradients with the twin's")
    s.add_argument("--batch", required=True)
    s.add_argument("cases", nargs="+", help="model.mp:teacher:c_grads.mp")
    a = ap.parse_args(argv)
    return cmd_check(entry, a)
