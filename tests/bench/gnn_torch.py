#!/usr/bin/python3
"""The PyTorch peer of gnn-train's training epoch (tests/bench/gnn-train.sh):
the same model (SAGE 4 x 128 or GCN 3 x 256, dropout 0.4, linear head, the
weighted NLL, Adam) in float32 with torch.sparse.mm on CSR matrices (the
fastest torch-only path measured here, reference table3-baselines.md §7).

    gnn_torch.py CSR.mp --conv sage|gcn [--epochs N] [--threads T]

Prints "epoch_s S" (median over the epochs), "epoch_cpu_s" (the median
epoch's process CPU time, all threads) and the peak RSS.
"""
import argparse
import resource
import time
import warnings

import msgpack
import msgpack_numpy
import numpy as np
import torch
import torch.nn.functional as F


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csr")
    ap.add_argument("--conv", default="sage")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta")
    rec = msgpack.unpackb(open(a.csr, "rb").read(), object_hook=msgpack_numpy.decode, raw=False)
    off = torch.from_numpy(np.array(rec["offsets"], dtype=np.int64))
    nb = torch.from_numpy(np.array(rec["neighbors"], dtype=np.int64))
    n = off.numel() - 1
    deg = (off[1:] - off[:-1]).float()
    rows = torch.repeat_interleave(torch.arange(n), off[1:] - off[:-1])
    M = torch.sparse_csr_tensor(off, nb, (1.0 / deg.clamp(min=1))[rows], (n, n))
    # Â = D̂^-1/2 (A + I) D̂^-1/2 as CSR: self-loops inserted per row
    idx = torch.cat([torch.stack([rows, nb]), torch.arange(n).repeat(2, 1)], 1)
    dhat = deg + 1
    A_hat = torch.sparse_coo_tensor(idx, dhat[idx[0]].rsqrt() * dhat[idx[1]].rsqrt(), (n, n)).coalesce().to_sparse_csr()
    g = torch.Generator().manual_seed(1)
    x = torch.randn(n, 3, generator=g)
    y = (torch.rand(n, generator=g) > 0.95).long() + (torch.rand(n, generator=g) > 0.99).long()
    train = torch.rand(n, generator=g) < 0.8
    cw = n / torch.bincount(y, minlength=3).float().clamp(min=1)
    sage = a.conv == "sage"
    L, H = (4, 128) if sage else (3, 256)
    lins = []
    for l in range(L):
        C = 3 if l == 0 else H
        if sage:
            lins.append((torch.nn.Linear(C, H), torch.nn.Linear(C, H, bias=False)))
        else:
            lins.append((torch.nn.Linear(C, H),))
    head = torch.nn.Linear(H, 3)
    params = [p for ls in lins for lin in ls for p in lin.parameters()] + list(head.parameters())
    opt = torch.optim.Adam(params, lr=3e-3)
    times, cpu_times = [], []
    for _ in range(a.epochs):
        t0, c0 = time.perf_counter(), time.process_time()
        opt.zero_grad()
        h = x
        for ls in lins:
            if sage:
                h = ls[0](torch.sparse.mm(M, h)) + ls[1](h)
            else:
                h = torch.sparse.mm(A_hat, h @ ls[0].weight.T) + ls[0].bias
            h = F.dropout(F.relu(h), 0.4, True)
        loss = F.nll_loss(F.log_softmax(head(h), -1)[train], y[train], weight=cw)
        loss.backward()
        opt.step()
        times.append(time.perf_counter() - t0)
        cpu_times.append(time.process_time() - c0)
    print("epoch_s %.3f" % sorted(times)[len(times) // 2])
    print("epoch_cpu_s %.3f" % sorted(cpu_times)[len(cpu_times) // 2])
    print("peak_rss_mb %.0f" % (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


if __name__ == "__main__":
    main()
