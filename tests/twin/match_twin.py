#!/usr/bin/python3
"""PyTorch twin of the matching entry (common/dar/algo_matching*.c), the
oracle for the symmetric edge head (the matching so far, a hint, and the
maximum matching, an output: edge masks), the edge-mask input, the node
mask heads (reached, the dual's cover hint and cover) and the pointer head,
on dar_twin.py's processor (dense padded tensors, autograd).

    match_twin.py check --batch batch.mp model.mp:teacher:c_grads.mp ...

The model's frames: frame 0 the state before any search (A reached, pointers
to themselves, nothing matched), frame k + 1 the trace's frame k; a graph of
T searches runs T steps.  One network steps through them with h carried
(and differentiated); the decoded hints feed the next step as constants
(reached, matching and the dual's cover binarised, pointers by argmax with
the lowest index on ties; with the model's soft_hints, after the first step,
the probabilities: the pointer softmax rows differentiated back into the
previous step's pointer logits, sigmoid(logits) of reached, the matching
and the cover as constants); the cover hint is never teacher-forced (the
model's own, zero at step 0) and its target is the final cover.  The edge
head: V_uv = q1(hd_u) + q1(hd_v) + q3(e_uv + e_vu).  Losses: per (graph,
step) the node (edge) means of the hint terms, pooled over the batch's
steps and averaged over the hint terms (3, the dual 4); the outputs summed
over edges (nodes) over the batch's edges (nodes).  No-algo: one network on
the inputs for T steps, the matching from the last.

A phased model (model key "phased", trained on the layered trace,
ff-trace --bfs-layers: a frame per BFS layer and per augmentation, its
hint_phase) encodes two more node inputs a step, on every node: start, the
step's frame a layer after an augmentation or the first frame, and augment,
the frame an augmentation; the batch's records must all be layered.

The training step (loss and every gradient) and the check against the C side
are entry_twin.py's, shared with the other one-network entries' twins.

Use /usr/bin/python3 (Debian's, with python3-torch).
"""
import math
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dar_twin import Net, lay_out_arcs, argmax_low, teacher_list, BIG  # noqa: E402
import entry_twin  # noqa: E402

LOSS_KEYS = ("reached", "pi_hint", "match_hint", "cover_hint", "match", "cover")


PHASES = ["start", "augment"]


def network(variant, phased=False):
    """(name, node features, arc features, decoders) in parameter order."""
    kinds = PHASES if phased else []
    if variant == "primal":
        return ("match", ["pos", "side", "reached"] + kinds, ["ptr", "matched"],
                ["reached", "pi_hint", "match_hint", "match"])
    if variant == "dual":
        return ("match", ["pos", "side", "reached", "covered"] + kinds, ["ptr", "matched"],
                ["reached", "pi_hint", "match_hint", "cover_hint", "match", "cover"])
    if variant == "no-algo":
        return "net", ["pos", "side"], [], ["match"]
    raise ValueError("matching has no %r variant" % variant)


def param_names(variant, H, opts=entry_twin.PLAIN):
    name, nodef, arcf, decs = network(variant, opts.phased)
    p = name + "."
    out = [p + "enc." + f for f in ["pos", "side", "reached", "covered", "ptr", "matched"] + PHASES
           if f in nodef or f in arcf]
    for lin in ["m1", "m2", "me", "l1", "l2", "o1", "o2"]:
        out += [p + "proc.%s.weight" % lin, p + "proc.%s.bias" % lin]
    for d in decs:
        if d == "pi_hint":
            for k in ("1", "2"):
                out += [p + "dec.%s%s.weight" % (d, k), p + "dec.%s%s.bias" % (d, k)]
        elif d in ("match_hint", "match"):
            out += [p + "dec.%s.q1.weight" % d, p + "dec.%s.q1.bias" % d, p + "dec.%s.q3.weight" % d]
        else:
            out += [p + "dec.%s.weight" % d, p + "dec.%s.bias" % d]
    return out


class Batch:
    def __init__(self, graphs, processor, dtype):
        self.B = B = len(graphs)
        self.N = N = max(int(g["n"]) for g in graphs)
        self.M = M = max(max(int(g["m"]) for g in graphs), 1)
        self.T = T = max(int(g["steps"]) + 1 for g in graphs)
        self.dtype = dtype
        n = np.array([int(g["n"]) for g in graphs]); m = np.array([int(g["m"]) for g in graphs])
        nmask = np.zeros((B, N), bool); emask = np.zeros((B, M), bool)
        pos = np.zeros((B, N)); side = np.zeros((B, N))
        src = np.zeros((B, M), np.int64); dst = np.zeros((B, M), np.int64)
        adj = np.zeros((B, N, N), bool)
        arcidx = np.full((B, N, N), BIG, np.int64)
        hr = np.zeros((B, T, N)); hpi = np.zeros((B, T, N), np.int64); hm = np.zeros((B, T, M))
        match = np.zeros((B, M)); cover = np.zeros((B, N))
        # step i's kind (the layered trace): its frame i a search's layer 0, an augmentation
        start = np.zeros((B, T)); augment = np.zeros((B, T))
        self.layered = {"hint_phase" in g for g in graphs}
        for b, g in enumerate(graphs):
            nb, mb, Tb = n[b], m[b], int(g["steps"])
            s = np.asarray(g["src"], np.int64); d = np.asarray(g["dst"], np.int64)
            nmask[b, :nb] = True; emask[b, :mb] = True
            src[b, :mb] = s; dst[b, :mb] = d
            pos[b, :nb] = np.arange(nb, dtype=np.float32) / np.float32(nb)
            sd = np.asarray(g["side"], np.float64)
            side[b, :nb] = sd
            lay_out_arcs(adj, arcidx, b, nb, N, s, d, processor)
            hr[b, 0, :nb] = 1 - sd
            hpi[b, 0, :nb] = np.arange(nb)
            hr[b, 1:Tb + 1, :nb] = np.asarray(g["hint_reached"]).reshape(Tb, nb)
            hpi[b, 1:Tb + 1, :nb] = np.asarray(g["hint_pi"], np.int64).reshape(Tb, nb)
            hm[b, 1:Tb + 1, :mb] = np.asarray(g["hint_match"]).reshape(Tb, mb)
            match[b, :mb] = np.asarray(g["match"]); cover[b, :nb] = np.asarray(g["cover"])
            if "hint_phase" in g:
                ph = np.asarray(g["hint_phase"], np.int64)
                for i in range(Tb):
                    augment[b, i] = ph[i] == 1
                    start[b, i] = ph[i] == 0 and (i == 0 or ph[i - 1] == 1)
        tt = lambda a: torch.tensor(a, dtype=dtype)
        self.n = torch.tensor(n); self.nf = tt(n.astype(np.float64)); self.mf = tt(m.astype(np.float64))
        self.Ts = torch.tensor([int(g["steps"]) + 1 for g in graphs])
        self.nmask = torch.tensor(nmask); self.emask = torch.tensor(emask)
        self.pos, self.side = tt(pos.astype(np.float32)), tt(side)
        self.src, self.dst = torch.tensor(src), torch.tensor(dst)
        self.adj = torch.tensor(adj); self.arcidx = torch.tensor(arcidx)
        self.hr, self.hpi, self.hm = tt(hr), torch.tensor(hpi), tt(hm)
        self.match, self.cover = tt(match), tt(cover)
        self.start, self.augment = tt(start), tt(augment)
        self.deg = self.adj.sum(1).to(dtype)
        self.bidx = torch.arange(B)[:, None].expand(B, M)


def encode(net, g, nodef, arcf, reached=None, covered=None, pi=None, matched=None, ptr=None, step=None):
    """ptr: the pointer column [B, u, v] on the arc u->v when soft (the
    probabilities), else the one-hot of the pointers pi; step: a phased
    model's step, whose kind it encodes."""
    vals = {"pos": g.pos, "side": g.side, "reached": reached, "covered": covered}
    if step is not None:
        nm = g.nmask.to(g.dtype)
        vals["start"], vals["augment"] = g.start[:, step, None] * nm, g.augment[:, step, None] * nm
    x = 0
    for f in nodef:
        if vals[f] is not None:
            x = x + vals[f][..., None] * net.w("enc." + f)[:, 0]
    e = torch.zeros(g.B, g.N, g.N, net.H, dtype=g.dtype)
    for f in arcf:
        if f == "ptr":
            v = ptr if ptr is not None else torch.nn.functional.one_hot(pi, g.N).to(g.dtype)
        else:
            v = entry_twin.edge_arcs(g, matched)
        e = e + v[..., None] * net.w("enc." + f)[:, 0]
    return x, e


def dec_pointer(net, g, which, hd):
    a = net.lin("dec.%s1" % which, hd); b = net.lin("dec.%s2" % which, hd)
    return (a @ b.transpose(1, 2)).masked_fill(~g.nmask[:, None, :], -math.inf)


def dec_mask(net, which, hd):
    return net.lin("dec." + which, hd)[..., 0]


def dec_edge(net, g, which, hd, e):
    """The symmetric edge head, [B,M]."""
    p = net.lin("dec.%s.q1" % which, hd)[..., 0]                       # [B,N]
    q = torch.nn.functional.linear(e, net.w("dec.%s.q3.weight" % which))[..., 0]   # [B,N,N]
    pu = p.gather(1, g.src); pv = p.gather(1, g.dst)
    return pu + pv + q[g.bidx, g.src, g.dst] + q[g.bidx, g.dst, g.src]


def forward_loss(P, model, g, teacher):
    variant, H, agg = model["variant"], int(model["hidden"]), model["agg"]
    opts = entry_twin.options(model)
    phased = opts.phased
    if g.layered != {phased}:
        sys.exit("match_twin: a %s model on a batch of %s records" % ("phased" if phased else "one-frame",
                 " and ".join(sorted("layered" if x else "one-frame" for x in g.layered))))
    name, nodef, arcf, decs = network(variant, phased)
    net = Net(P, name, nodef, arcf, decs, H, agg)
    B, N, M, dt = g.B, g.N, g.M, g.dtype
    nsteps = g.T - 1
    tf = teacher_list(teacher, nsteps)
    nm = g.nmask.to(dt)
    ce = lambda logits, tgt: -torch.log_softmax(logits, -1).gather(-1, tgt[..., None])[..., 0]
    bce = lambda l, t: torch.nn.functional.binary_cross_entropy_with_logits(l, t, reduction="none")
    zn = torch.zeros(B, N, dtype=dt); ze = torch.zeros(B, M, dtype=dt)

    def node_sum(v):
        return torch.where(g.nmask, v, zn).sum(1)

    def edge_sum(v):
        return torch.where(g.emask, v, ze).sum(1)

    def safe(logits):
        return torch.where(g.nmask[:, :, None], logits, torch.zeros_like(logits))

    h = torch.zeros(B, N, H, dtype=dt)
    losses = {k: None for k in LOSS_KEYS}
    mden = g.mf.sum()
    if variant == "no-algo":
        x, e = encode(net, g, nodef, arcf)
        out = torch.zeros(B, M, dtype=dt)
        for i in range(nsteps):
            h, hd = net.process(g, x, e, h)
            out = torch.where((i + 2 == g.Ts)[:, None], dec_edge(net, g, "match", hd, e), out)
        losses["match"] = edge_sum(bce(out, g.match)).sum() / mden
        return losses["match"], losses

    dual = variant == "dual"
    count = (g.Ts - 1).to(dt).sum()
    sums = {k: torch.zeros((), dtype=dt) for k in LOSS_KEYS}
    idx = torch.arange(N).expand(B, N)
    last_r, last_pi, last_m = g.hr[:, 0].clone(), idx.clone(), torch.zeros(B, M, dtype=dt)
    last_c = None
    soft_r = soft_pi = soft_m = soft_c = None     # soft hints: the last step's probabilities
    safe_m = torch.where(g.mf > 0, g.mf, torch.ones_like(g.mf))
    for i in range(nsteps):
        ptr = None
        if tf[i]:
            r, pi, mt = g.hr[:, i], g.hpi[:, i], g.hm[:, i]
        elif soft_pi is not None:
            r, pi, mt, ptr = soft_r, None, soft_m, soft_pi
        else:
            r, pi, mt = last_r, last_pi, last_m
        c = soft_c if soft_c is not None else last_c
        x, e = encode(net, g, nodef, arcf, reached=r, covered=c if dual else None, pi=pi, matched=mt, ptr=ptr,
                      step=i if phased else None)
        h, hd = net.process(g, x, e, h)
        valid = (i + 1 < g.Ts)
        last = (i + 2 == g.Ts)
        sel = lambda v: torch.where(valid, v, torch.zeros_like(v)).sum()
        lastsel = lambda v: torch.where(last, v, torch.zeros_like(v)).sum()
        rl = dec_mask(net, "reached", hd)
        pl = dec_pointer(net, g, "pi_hint", hd)
        ml = dec_edge(net, g, "match_hint", hd, e)
        sums["reached"] = sums["reached"] + sel(node_sum(bce(rl, g.hr[:, i + 1])) / g.nf)
        sums["pi_hint"] = sums["pi_hint"] + sel(node_sum(ce(safe(pl), g.hpi[:, i + 1])) / g.nf)
        sums["match_hint"] = sums["match_hint"] + sel(edge_sum(bce(ml, g.hm[:, i + 1])) / safe_m)
        mo = dec_edge(net, g, "match", hd, e)
        sums["match"] = sums["match"] + lastsel(edge_sum(bce(mo, g.match)))
        if dual:
            cl = dec_mask(net, "cover_hint", hd)
            sums["cover_hint"] = sums["cover_hint"] + sel(node_sum(bce(cl, g.cover)) / g.nf)
            co = dec_mask(net, "cover", hd)
            sums["cover"] = sums["cover"] + lastsel(node_sum(bce(co, g.cover)))
            cbin = (cl > 0).to(dt) * nm
            last_c = cbin if last_c is None else torch.where(valid[:, None], cbin, last_c)
        last_r = torch.where(valid[:, None], (rl > 0).to(dt) * nm, last_r)
        last_pi = torch.where(valid[:, None], argmax_low(pl), last_pi)
        last_m = torch.where(valid[:, None], (ml > 0).to(dt), last_m)
        if opts.soft_hints:
            # a finished graph's later steps count in no loss: no where needed
            soft_r, soft_pi, soft_m = torch.sigmoid(rl).detach(), torch.softmax(pl, -1), torch.sigmoid(ml).detach()
            if dual:
                soft_c = torch.sigmoid(cl).detach()
    hints = ("reached", "pi_hint", "match_hint", "cover_hint") if dual else ("reached", "pi_hint", "match_hint")
    for k in hints:
        losses[k] = sums[k] / count
    losses["match"] = sums["match"] / mden
    total = sum(losses[k] for k in hints) / len(hints) + losses["match"]
    if dual:
        losses["cover"] = sums["cover"] / g.nf.sum()
        total = total + losses["cover"]
    return total, losses


ENTRY = entry_twin.Entry("match_twin", LOSS_KEYS, param_names, Batch, forward_loss, ("soft_hints", "phased"))

if __name__ == "__main__":
    sys.exit(entry_twin.main(ENTRY, __doc__))
