#!/usr/bin/python3
"""PyTorch twin of the shortest-paths entry (common/dar/algo_shortest_paths*.c),
the oracle for its heads and schedule: the pointer heads (hint and output),
the node-scalar heads (the dual's potentials, hint and output) and the mask
head (reached), on dar_twin.py's processor (dense padded tensors, autograd).

    sp_twin.py check --batch batch.mp model.mp:teacher:c_grads.mp ...

One network steps through Bellman-Ford's rounds with h carried (and
differentiated) from round to round; the decoded hints feed the next round
as constants (reached binarised, pointers by argmax with the lowest index on
ties, potentials as values); the outputs come from a graph's last round.

The model record's options (entry_twin.Options): the edge pointer head
(every pointer head: the hint's and the output's), the layer-normalised and
gated node update and the triplet messages (dar_twin.Net), and soft hints: an unforced round after
the first reads the previous round's pointer softmax rows in the pointer
arc column, differentiated back into that round's pointer logits, and
sigmoid(reached logits) in the reached column as a constant; the potentials
as without.
Losses: per (graph, round) the node means of the hint terms, pooled over
the batch's rounds and averaged over the hint terms (2, the dual 3); the
outputs summed over nodes over the batch's nodes.  No-algo: one network on
the inputs for T - 1 steps, the tree from the last.

The training step (loss and every gradient) and the check against the C side
are entry_twin.py's, shared with the other one-network entries' twins.

Use /usr/bin/python3 (Debian's, with python3-torch).
"""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dar_twin import lay_out_arcs, argmax_low, teacher_list, BIG  # noqa: E402
import entry_twin  # noqa: E402

LOSS_KEYS = ("reached", "pi_hint", "d_hint", "pi", "d")


def network(variant):
    """(name, node features, arc features, decoders) in parameter order."""
    if variant == "primal":
        return "bf", ["pos", "s", "reached"], ["w", "ptr"], ["reached", "pi_hint", "pi"]
    if variant == "dual":
        return "bf", ["pos", "s", "reached", "dist"], ["w", "ptr"], ["reached", "pi_hint", "dist_hint", "pi", "d"]
    if variant == "no-algo":
        return "net", ["pos", "s"], ["w"], ["pi"]
    raise ValueError("shortest paths has no %r variant" % variant)


def param_names(variant, H, opts=entry_twin.PLAIN):
    name, nodef, arcf, decs = network(variant)
    p = name + "."
    out = [p + "enc." + f for f in ["pos", "s", "w", "reached", "dist", "ptr"] if f in nodef or f in arcf]
    out += entry_twin.proc_names(p, opts)
    for d in decs:
        if d in ("pi_hint", "pi"):
            out += entry_twin.pointer_names(p, d, opts)
        else:
            out += [p + "dec.%s.weight" % d, p + "dec.%s.bias" % d]
    return out


class Batch:
    def __init__(self, graphs, processor, dtype):
        self.B = B = len(graphs)
        self.N = N = max(int(g["n"]) for g in graphs)
        self.T = T = max(int(g["steps"]) for g in graphs)
        self.dtype = dtype
        n = np.array([int(g["n"]) for g in graphs])
        nmask = np.zeros((B, N), bool)
        pos = np.zeros((B, N)); s1 = np.zeros((B, N)); W = np.zeros((B, N, N))
        adj = np.zeros((B, N, N), bool); cand = np.zeros((B, N, N), bool)
        arcidx = np.full((B, N, N), BIG, np.int64)
        hr = np.zeros((B, T, N)); hpi = np.zeros((B, T, N), np.int64); hd = np.zeros((B, T, N))
        pi = np.zeros((B, N), np.int64); d = np.zeros((B, N))
        for b, g in enumerate(graphs):
            nb, Tb = n[b], int(g["steps"])
            src = np.asarray(g["src"], np.int64); dst = np.asarray(g["dst"], np.int64)
            nmask[b, :nb] = True
            pos[b, :nb] = np.arange(nb, dtype=np.float32) / np.float32(nb)
            s1[b, int(g["s"])] = 1
            w = np.asarray(g["w"], np.float32)
            W[b, src, dst] = w; W[b, dst, src] = w
            lay_out_arcs(adj, arcidx, b, nb, N, src, dst, processor)
            entry_twin.mark_candidates(cand, b, nb, src, dst)
            hr[b, :Tb, :nb] = np.asarray(g["hint_reached"]).reshape(Tb, nb)
            hpi[b, :Tb, :nb] = np.asarray(g["hint_pi"], np.int64).reshape(Tb, nb)
            # the model reads the f64 potentials as f32
            hd[b, :Tb, :nb] = np.asarray(g["hint_d"]).astype(np.float32).reshape(Tb, nb)
            pi[b, :nb] = np.asarray(g["pi"], np.int64)
            d[b, :nb] = np.asarray(g["d"]).astype(np.float32)
        tt = lambda a: torch.tensor(a, dtype=dtype)
        self.n = torch.tensor(n); self.nf = tt(n.astype(np.float64))
        self.Ts = torch.tensor([int(g["steps"]) for g in graphs])
        self.nmask = torch.tensor(nmask)
        self.pos, self.s1, self.W = tt(pos.astype(np.float32)), tt(s1), tt(W)
        self.adj = torch.tensor(adj); self.cand = torch.tensor(cand); self.arcidx = torch.tensor(arcidx)
        self.hr, self.hpi, self.hd = tt(hr), torch.tensor(hpi), tt(hd)
        self.pi, self.d = torch.tensor(pi), tt(d)
        self.deg = self.adj.sum(1).to(dtype)


def encode(net, g, nodef, arcf, reached=None, dist=None, ptr=None):
    """ptr: the pointer column [B, u, v] on the arc u->v (one-hot of the
    pointers, or soft hints' probabilities)."""
    vals = {"pos": g.pos, "s": g.s1, "reached": reached, "dist": dist}
    x = 0
    for f in nodef:
        x = x + vals[f][..., None] * net.w("enc." + f)[:, 0]
    e = 0
    for f in arcf:
        v = g.W if f == "w" else ptr
        e = e + v[..., None] * net.w("enc." + f)[:, 0]
    return x, e


def dec_scalar(net, which, hd):
    return net.lin("dec." + which, hd)[..., 0]


def forward_loss(P, model, g, teacher):
    variant, H, agg = model["variant"], int(model["hidden"]), model["agg"]
    opts = entry_twin.options(model)
    name, nodef, arcf, decs = network(variant)
    net = entry_twin.make_net(P, name, nodef, arcf, decs, H, agg, opts)
    dec_pointer = lambda which, hd, e: entry_twin.pointer_logits(net, g, which, hd, e, opts)
    one_hot = lambda pi: torch.nn.functional.one_hot(pi, N).to(dt)
    B, N, dt = g.B, g.N, g.dtype
    nsteps = g.T - 1
    tf = teacher_list(teacher, nsteps)
    nm = g.nmask.to(dt)
    ce = lambda logits, tgt: -torch.log_softmax(logits, -1).gather(-1, tgt[..., None])[..., 0]

    def node_mean(v):
        return torch.where(g.nmask, v, torch.zeros_like(v)).sum(1) / g.nf

    def node_sum(v):
        return torch.where(g.nmask, v, torch.zeros_like(v)).sum()

    def safe(logits):
        return torch.where(g.nmask[:, :, None], logits, torch.zeros_like(logits))

    h = torch.zeros(B, N, H, dtype=dt)
    losses = {k: None for k in LOSS_KEYS}
    if variant == "no-algo":
        x, e = encode(net, g, nodef, arcf)
        pi_out = torch.zeros(B, N, N, dtype=dt)
        for i in range(nsteps):
            h, hd = net.process(g, x, e, h)
            pi_out = torch.where((i + 2 == g.Ts)[:, None, None], dec_pointer("pi", hd, e), pi_out)
        losses["pi"] = node_sum(ce(safe(pi_out), g.pi)) / g.nf.sum()
        return losses["pi"], losses

    dual = variant == "dual"
    count = (g.Ts - 1).to(dt).sum()
    sums = {k: torch.zeros((), dtype=dt) for k in ("reached", "pi_hint", "d_hint", "pi", "d")}
    idx = torch.arange(N).expand(B, N)
    last_r = (idx == g.s1.argmax(1)[:, None]).to(dt)
    last_pi, last_d = idx.clone(), torch.zeros(B, N, dtype=dt)
    soft_r = soft_pi = None             # soft hints: the last round's probabilities
    for i in range(nsteps):
        if tf[i]:
            r, ptr, d = g.hr[:, i], one_hot(g.hpi[:, i]), g.hd[:, i]
        elif opts.soft_hints and soft_pi is not None:
            r, ptr, d = soft_r, soft_pi, last_d
        else:
            r, ptr, d = last_r, one_hot(last_pi), last_d
        x, e = encode(net, g, nodef, arcf, reached=r, dist=d if dual else None, ptr=ptr)
        h, hd = net.process(g, x, e, h)
        valid = (i + 1 < g.Ts)
        last = (i + 2 == g.Ts)
        rl = dec_scalar(net, "reached", hd)
        pl = dec_pointer("pi_hint", hd, e)
        sel = lambda v: torch.where(valid, v, torch.zeros_like(v)).sum()
        bce = torch.nn.functional.binary_cross_entropy_with_logits(rl, g.hr[:, i + 1], reduction="none")
        sums["reached"] = sums["reached"] + sel(node_mean(bce))
        sums["pi_hint"] = sums["pi_hint"] + sel(node_mean(ce(safe(pl), g.hpi[:, i + 1])))
        po = dec_pointer("pi", hd, e)
        lastsel = lambda v: torch.where(last, v, torch.zeros_like(v)).sum()
        sums["pi"] = sums["pi"] + lastsel(torch.where(g.nmask, ce(safe(po), g.pi), torch.zeros(B, N, dtype=dt)).sum(1))
        if dual:
            dl = dec_scalar(net, "dist_hint", hd)
            sums["d_hint"] = sums["d_hint"] + sel(node_mean((dl - g.hd[:, i + 1]) ** 2))
            do = dec_scalar(net, "d", hd)
            sums["d"] = sums["d"] + lastsel(torch.where(g.nmask, (do - g.d) ** 2, torch.zeros(B, N, dtype=dt)).sum(1))
            last_d = torch.where(valid[:, None], dl.detach(), last_d)
        last_r = torch.where(valid[:, None], (rl > 0).to(dt) * nm, last_r)
        last_pi = torch.where(valid[:, None], argmax_low(pl), last_pi)
        if opts.soft_hints:
            # a finished graph's later rounds count in no loss: no where needed
            soft_r = torch.sigmoid(rl).detach()
            soft_pi = torch.softmax(pl, -1)
    hints = ("reached", "pi_hint", "d_hint") if dual else ("reached", "pi_hint")
    for k in hints:
        losses[k] = sums[k] / count
    losses["pi"] = sums["pi"] / g.nf.sum()
    if dual:
        losses["d"] = sums["d"] / g.nf.sum()
    total = sum(losses[k] for k in hints) / len(hints) + losses["pi"]
    if dual:
        total = total + losses["d"]
    return total, losses


ENTRY = entry_twin.Entry("sp_twin", LOSS_KEYS, param_names, Batch, forward_loss, entry_twin.Options._fields)

if __name__ == "__main__":
    sys.exit(entry_twin.main(ENTRY, __doc__))
