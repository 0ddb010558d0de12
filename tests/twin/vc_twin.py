#!/usr/bin/python3
"""PyTorch twin of the vertex-cover entry (common/dar/algo_vertex_cover*.c),
the oracle for its schedule and the symmetric edge head as an edge scalar
(the dual's increments, a hint, and the packing, an output), the edge-mask
and edge-scalar inputs (live edges, increments), the node scalar and mask
heads (residuals, in-cover, the cover) and the "+opt" term, on
dar_twin.py's processor (dense padded tensors, autograd).

    vc_twin.py check --batch batch.mp model.mp:teacher:c_grads.mp ...

Frames: the trace's, frame 0 the start (r = w, nothing in the cover, every
edge live, increments 0); a graph of T frames runs T - 1 steps.  One network
steps through them with h carried (and differentiated); the decoded hints
feed the next step as constants: the residuals and the dual's increments as
values, in-cover binarised, live = neither end in the cover.  With the
model's soft_hints an unforced step after the first reads sigmoid(in-cover
logits) in the in-cover column, as a constant (live still from the
binarised flags; the values as without).  Losses: per
(graph, step) the node means of the residual (squared error) and in-cover
(BCE) terms, pooled over the batch's steps and averaged over the two; the
dual's increments summed over edges over the batch's edge-steps; the cover
(and "+opt" against opt_cover, when present) summed over nodes over the
batch's nodes, the packing over edges over the batch's edges.  No-algo:
one network on the weights for T - 1 steps, the cover from the last.

The training step (loss and every gradient) and the check against the C side
are entry_twin.py's, shared with the other one-network entries' twins.

Use /usr/bin/python3 (Debian's, with python3-torch).
"""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dar_twin import Net, lay_out_arcs, BIG, teacher_list  # noqa: E402
import entry_twin  # noqa: E402

LOSS_KEYS = ("residual", "in_cover", "delta", "cover", "packing", "opt")
EDGE_HEADS = ("delta", "packing")


def network(variant):
    """(name, node features, arc features, decoders) in parameter order."""
    if variant == "primal":
        return "vc", ["w", "residual", "in_cover"], ["live"], ["residual", "in_cover", "cover"]
    if variant == "dual":
        return "vc", ["w", "residual", "in_cover"], ["live", "delta"], ["residual", "in_cover", "delta", "cover",
                                                                          "packing"]
    if variant == "no-algo":
        return "net", ["w"], [], ["cover"]
    raise ValueError("vertex cover has no %r variant" % variant)


def param_names(variant, H, opts=None):
    name, nodef, arcf, decs = network(variant)
    p = name + "."
    out = [p + "enc." + f for f in nodef + arcf]
    for lin in ["m1", "m2", "me", "l1", "l2", "o1", "o2"]:
        out += [p + "proc.%s.weight" % lin, p + "proc.%s.bias" % lin]
    for d in decs:
        if d in EDGE_HEADS:
            out += [p + "dec.%s.q1.weight" % d, p + "dec.%s.q1.bias" % d, p + "dec.%s.q3.weight" % d]
        else:
            out += [p + "dec.%s.weight" % d, p + "dec.%s.bias" % d]
    return out


class Batch:
    def __init__(self, graphs, processor, dtype):
        self.B = B = len(graphs)
        self.N = N = max(int(g["n"]) for g in graphs)
        self.M = M = max(max(int(g["m"]) for g in graphs), 1)
        self.T = T = max(int(g["steps"]) for g in graphs)
        self.dtype = dtype
        n = np.array([int(g["n"]) for g in graphs]); m = np.array([int(g["m"]) for g in graphs])
        nmask = np.zeros((B, N), bool); emask = np.zeros((B, M), bool)
        w = np.zeros((B, N))
        src = np.zeros((B, M), np.int64); dst = np.zeros((B, M), np.int64)
        adj = np.zeros((B, N, N), bool)
        arcidx = np.full((B, N, N), BIG, np.int64)
        hr = np.zeros((B, T, N)); hc = np.zeros((B, T, N)); hl = np.zeros((B, T, M)); hd = np.zeros((B, T, M))
        cover = np.zeros((B, N)); opt = np.zeros((B, N)); packing = np.zeros((B, M))
        self.has_opt = np.zeros(B, bool)
        f32 = lambda a: np.asarray(a, np.float64).astype(np.float32).astype(np.float64)
        for b, g in enumerate(graphs):
            nb, mb, Tb = n[b], m[b], int(g["steps"])
            s = np.asarray(g["src"], np.int64); d = np.asarray(g["dst"], np.int64)
            nmask[b, :nb] = True; emask[b, :mb] = True
            src[b, :mb] = s; dst[b, :mb] = d
            w[b, :nb] = np.asarray(g["node_w"], np.float32)
            lay_out_arcs(adj, arcidx, b, nb, N, s, d, processor)
            hr[b, :Tb, :nb] = f32(g["hint_residual"]).reshape(Tb, nb)
            hc[b, :Tb, :nb] = np.asarray(g["hint_in_cover"]).reshape(Tb, nb)
            hl[b, :Tb, :mb] = np.asarray(g["hint_live"]).reshape(Tb, mb)
            hd[b, :Tb, :mb] = f32(g["hint_delta"]).reshape(Tb, mb)
            cover[b, :nb] = np.asarray(g["cover"]); packing[b, :mb] = f32(g["packing"])
            if "opt_cover" in g:
                self.has_opt[b] = True
                opt[b, :nb] = np.asarray(g["opt_cover"])
        tt = lambda a: torch.tensor(a, dtype=dtype)
        self.nf = tt(n.astype(np.float64)); self.mf = tt(m.astype(np.float64))
        self.Ts = torch.tensor([int(g["steps"]) for g in graphs])
        self.nmask = torch.tensor(nmask); self.emask = torch.tensor(emask)
        self.w = tt(w)
        self.src, self.dst = torch.tensor(src), torch.tensor(dst)
        self.adj = torch.tensor(adj); self.arcidx = torch.tensor(arcidx)
        self.hr, self.hc, self.hl, self.hd = tt(hr), tt(hc), tt(hl), tt(hd)
        self.cover, self.opt, self.packing = tt(cover), tt(opt), tt(packing)
        self.has_opt = torch.tensor(self.has_opt)
        self.deg = self.adj.sum(1).to(dtype)
        self.bidx = torch.arange(B)[:, None].expand(B, M)


def encode(net, g, nodef, arcf, vals):
    x = 0
    for f in nodef:
        x = x + vals[f][..., None] * net.w("enc." + f)[:, 0]
    e = torch.zeros(g.B, g.N, g.N, net.H, dtype=g.dtype)
    for f in arcf:
        e = e + entry_twin.edge_arcs(g, vals[f])[..., None] * net.w("enc." + f)[:, 0]
    return x, e


def dec_node(net, which, hd):
    return net.lin("dec." + which, hd)[..., 0]


def dec_edge(net, g, which, hd, e):
    """The symmetric edge head, [B,M]."""
    p = net.lin("dec.%s.q1" % which, hd)[..., 0]
    q = torch.nn.functional.linear(e, net.w("dec.%s.q3.weight" % which))[..., 0]
    return p.gather(1, g.src) + p.gather(1, g.dst) + q[g.bidx, g.src, g.dst] + q[g.bidx, g.dst, g.src]


def forward_loss(P, model, g, teacher):
    variant, H, agg = model["variant"], int(model["hidden"]), model["agg"]
    opts = entry_twin.options(model)
    name, nodef, arcf, decs = network(variant)
    net = Net(P, name, nodef, arcf, decs, H, agg)
    B, N, M, dt = g.B, g.N, g.M, g.dtype
    nsteps = g.T - 1
    tf = teacher_list(teacher, nsteps)
    bce = lambda l, t: torch.nn.functional.binary_cross_entropy_with_logits(l, t, reduction="none")
    se = lambda p, t: (p - t) ** 2
    zn = torch.zeros(B, N, dtype=dt); ze = torch.zeros(B, M, dtype=dt)
    node_sum = lambda v: torch.where(g.nmask, v, zn).sum(1)
    edge_sum = lambda v: torch.where(g.emask, v, ze).sum(1)
    nden, mden = g.nf.sum(), g.mf.sum()
    h = torch.zeros(B, N, H, dtype=dt)
    sums = {k: torch.zeros((), dtype=dt) for k in LOSS_KEYS}

    def outputs(hd, e, last):
        lastsel = lambda v: torch.where(last, v, torch.zeros_like(v)).sum()
        co = dec_node(net, "cover", hd)
        sums["cover"] = sums["cover"] + lastsel(node_sum(bce(co, g.cover)))
        sums["opt"] = sums["opt"] + lastsel(torch.where(g.has_opt, node_sum(bce(co, g.opt)), torch.zeros(B, dtype=dt)))
        if "packing" in decs:
            sums["packing"] = sums["packing"] + lastsel(edge_sum(se(dec_edge(net, g, "packing", hd, e), g.packing)))

    if variant == "no-algo":
        x, e = encode(net, g, nodef, arcf, {"w": g.w})
        for i in range(nsteps):
            h, hd = net.process(g, x, e, h)
            outputs(hd, e, i + 2 == g.Ts)
    else:
        dual = variant == "dual"
        count = (g.Ts - 1).to(dt).sum()
        edge_count = (g.mf * (g.Ts - 1).to(dt)).sum()
        last_r, last_c = g.w.clone(), torch.zeros(B, N, dtype=dt)
        last_l, last_d = g.emask.to(dt), torch.zeros(B, M, dtype=dt)
        soft_c = None                   # soft hints: the last step's P(in the cover)
        for i in range(nsteps):
            if tf[i] and i > 0:
                vals = {"w": g.w, "residual": g.hr[:, i], "in_cover": g.hc[:, i], "live": g.hl[:, i],
                        "delta": g.hd[:, i]}
            else:
                vals = {"w": g.w, "residual": last_r, "in_cover": last_c, "live": last_l, "delta": last_d}
                if soft_c is not None:
                    vals["in_cover"] = soft_c
            x, e = encode(net, g, nodef, arcf, vals)
            h, hd = net.process(g, x, e, h)
            valid = i + 1 < g.Ts
            sel = lambda v: torch.where(valid, v, torch.zeros_like(v)).sum()
            rl = dec_node(net, "residual", hd)
            cl = dec_node(net, "in_cover", hd)
            sums["residual"] = sums["residual"] + sel(node_sum(se(rl, g.hr[:, i + 1])) / g.nf)
            sums["in_cover"] = sums["in_cover"] + sel(node_sum(bce(cl, g.hc[:, i + 1])) / g.nf)
            if dual:
                dl = dec_edge(net, g, "delta", hd, e)
                sums["delta"] = sums["delta"] + sel(edge_sum(se(dl, g.hd[:, i + 1])))
                last_d = torch.where(valid[:, None], dl.detach(), last_d)
            outputs(hd, e, i + 2 == g.Ts)
            last_r = torch.where(valid[:, None], rl.detach(), last_r)
            cbin = (cl.detach() > 0).to(dt) * g.nmask.to(dt)
            last_c = torch.where(valid[:, None], cbin, last_c)
            lb = ((1 - cbin.gather(1, g.src)) * (1 - cbin.gather(1, g.dst))) * g.emask.to(dt)
            last_l = torch.where(valid[:, None], lb, last_l)
            if opts.soft_hints:
                # a finished graph's later steps count in no loss: no where needed
                soft_c = torch.sigmoid(cl).detach()
        sums["residual"] = sums["residual"] / count / 2
        sums["in_cover"] = sums["in_cover"] / count / 2
        if dual:
            sums["delta"] = sums["delta"] / edge_count
    sums["cover"] = sums["cover"] / nden
    sums["opt"] = sums["opt"] / nden
    sums["packing"] = sums["packing"] / mden
    total = sum(sums.values())
    losses = {k: float(sums[k]) * (2 if k in ("residual", "in_cover") else 1) for k in LOSS_KEYS}
    return total, losses


ENTRY = entry_twin.Entry("vc_twin", LOSS_KEYS, param_names, Batch, forward_loss, ("soft_hints",))

if __name__ == "__main__":
    sys.exit(entry_twin.main(ENTRY, __doc__))
