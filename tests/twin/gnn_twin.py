#!/usr/bin/python3
"""PyTorch twin of gnn-train's GCN / GraphSAGE model (common/graphnn/gnn.c), float64.

    gnn_twin.py dump.mp [--loss-rtol 1e-5] [--grad-rtol 1e-4] [--abs 1e-7] [-v]

Reads a gnn_dump record (the line graph as CSR, inputs, embeddings, labels,
row weights, the C model's parameters and dropout masks, its loss and
gradients), recomputes
the loss with torch sparse products and autograd from the same parameters,
and compares: loss |a-b| <= loss_rtol max(|a|,|b|) + abs; per gradient tensor
max|a-b| <= grad_rtol max(max|a|, max|b|) + abs.  Exits 1 on any failure.

Independent of the C code: the graph products are built as torch sparse
matrices from the adjacency (M = D^-1 A; Â = D̂^-1/2 (A + I) D̂^-1/2, the
benchmark's gcn_norm), layers written as PyG 1.7.2's SAGEConv / GCNConv, the
head as one nn.Linear on the concatenation [h ; e], the loss as
F.nll_loss(log_softmax, weight) restricted to the weighted rows.
"""
import argparse
import sys

import msgpack
import msgpack_numpy
import numpy as np
import torch
import torch.nn.functional as F


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dump")
    ap.add_argument("--loss-rtol", type=float, default=1e-5)
    ap.add_argument("--grad-rtol", type=float, default=1e-4)
    ap.add_argument("--abs", type=float, default=1e-7)
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    rec = next(iter(msgpack.Unpacker(open(a.dump, "rb"), object_hook=msgpack_numpy.decode, raw=False,
                                     max_buffer_size=0)))
    dt = torch.float64
    off = torch.from_numpy(np.array(rec["offsets"], dtype=np.int64))
    nb = torch.from_numpy(np.array(rec["neighbors"], dtype=np.int64))
    n = off.numel() - 1
    deg = (off[1:] - off[:-1]).to(dt)
    rows = torch.repeat_interleave(torch.arange(n), off[1:] - off[:-1])
    # the adjacency as given (rows = receivers); the twin does not assume it symmetric
    idx = torch.stack([rows, nb])
    M = torch.sparse_coo_tensor(idx, 1.0 / deg.clamp(min=1)[rows], (n, n), dtype=dt).coalesce()
    dhat = deg + 1
    loops = torch.arange(n)
    idx_hat = torch.cat([idx, torch.stack([loops, loops])], 1)
    val_hat = dhat[idx_hat[0]].rsqrt() * dhat[idx_hat[1]].rsqrt()
    A_hat = torch.sparse_coo_tensor(idx_hat, val_hat, (n, n), dtype=dt).coalesce()

    x = torch.from_numpy(np.array(rec["x"], dtype=np.float64))
    e = torch.from_numpy(np.array(rec["e"], dtype=np.float64))
    y = torch.from_numpy(np.array(rec["label"], dtype=np.int64))
    rw = torch.from_numpy(np.array(rec["row_weight"], dtype=np.float64))
    P = {k: torch.tensor(np.asarray(v, dtype=np.float64), requires_grad=True) for k, v in rec["params"].items()}
    L, conv = int(rec["layers"]), rec["conv"]

    h = x
    for l in range(1, L + 1):
        if conv == "sage":
            h = torch.sparse.mm(M, h) @ P["conv%d.lin_l.weight" % l].T + P["conv%d.lin_l.bias" % l] \
                + h @ P["conv%d.lin_r.weight" % l].T
        else:
            h = torch.sparse.mm(A_hat, h @ P["conv%d.weight" % l].T) + P["conv%d.bias" % l]
        # the C code's relu + dropout masks (kept units scaled by 1/(1-p))
        keep_mask = torch.from_numpy(np.array(rec["masks"][l - 1], dtype=np.float64))
        h = F.relu(h) * keep_mask / (1.0 - float(rec["dropout"]))
    if "head.weight_e" in P:
        W = torch.cat([P["head.weight_h"], P["head.weight_e"]], 1)
        z = torch.cat([h, e], 1) @ W.T + P["head.bias"]
    else:
        z = h @ P["head.weight_h"].T + P["head.bias"]
    # weighted NLL: the row weights are the class weights on counted rows
    keep = rw > 0
    classes = int(z.shape[1])
    cw = torch.zeros(classes, dtype=dt)
    for c in range(classes):
        sel = keep & (y == c)
        if sel.any():
            cw[c] = rw[sel][0]
    loss = F.nll_loss(F.log_softmax(z, -1)[keep], y[keep], weight=cw)
    loss.backward()

    ok = True
    c_loss = float(rec["loss"])
    err = abs(c_loss - loss.item())
    good = err <= a.loss_rtol * max(abs(c_loss), abs(loss.item())) + a.abs
    ok &= good
    print("%-4s loss C %.9g torch %.9g rel %.2e" % ("ok" if good else "BAD", c_loss, loss.item(),
                                                    err / max(abs(c_loss), 1e-30)))
    for k, p in P.items():
        g_c = np.asarray(rec["grads"][k], dtype=np.float64)
        g_t = p.grad.numpy()
        scale = max(np.abs(g_c).max(), np.abs(g_t).max())
        diff = np.abs(g_c - g_t).max()
        good = diff <= a.grad_rtol * scale + a.abs
        ok &= good
        if a.v or not good:
            print("%-4s %-22s max|diff| %.3g scale %.3g rel %.2e" % ("ok" if good else "BAD", k, diff, scale,
                                                                    diff / max(scale, 1e-30)))
    print("gnn twin: %s %d layers, %d parameter tensors, %d nodes: %s" % (conv, L, len(P), n,
                                                                      "match" if ok else "MISMATCH"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
