#!/usr/bin/python3
"""PyTorch twin of the min-cost-flow entry (common/dar/algo_min_cost_flow*.c),
the oracle for its heads and its two-network schedule: per step (a round of
successive shortest paths) the search network "sp" (reached mask, distance
scalar, pointer) with h carried and differentiated from step to step, then
the flow network on the same inputs with h_prev = stopgrad(sp's h) (the
bounded antisymmetric flow heads, hint and output, and the dual's node
scalars: potentials, hint and output), on dar_twin.py's processor (dense
padded tensors, autograd).

    mcf_twin.py check --batch batch.mp model.mp:teacher:c_grads.mp ...

The decoded hints feed the next step: reached binarised, pointers by argmax
(lowest index on ties), distances and potentials as constants, the flow
hint with its gradient (as max-flow's).  Losses (the row's loss terms,
dar_loss.c): per (graph, step) the node means of the node hint terms and
the flow hint over its m + n/2 (dar_loss.c's count of a bounded
antisymmetric probe), pooled over the batch's steps and averaged
over the hint terms the variant decodes (4, the dual 5); the outputs at a
graph's last step summed over edges (nodes) over the batch's edges (nodes).
No-algo: one network on the inputs for T - 1 steps, the flow from the last.
Of the model options only soft hints are computed (an unforced step after
the first reads the search's pointer softmax rows in the pointer column,
differentiated back into that step's pointer logits, and sigmoid(reached
logits) as a constant; the others as without); a model with another option
is refused, not compared.

A phased model (model key "phased", trained on the rounds trace, ff-trace
--sp-rounds: a frame per relaxation round of each search and per
augmentation, its hint_phase) encodes two more node inputs a step in both
networks, on every node: start, the frame the step reaches a search's start
(the frame before it an augmentation), and augment, that frame an
augmentation; both networks run every step as without.  The batch's records
must all carry the rounds trace.

Use /usr/bin/python3 (Debian's, with python3-torch).
"""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dar_twin import lay_out_arcs, argmax_low, teacher_list  # noqa: E402
import entry_twin  # noqa: E402

LOSS_KEYS = ("reached", "distance_hint", "pi", "potential_hint", "flow_hint", "flow", "potential")
PHASES = ["start", "augment"]
ENCODERS = ("pos", "s", "t", "cap", "cost", "reached", "distance", "ptr", "potential", "flow", *PHASES)
ARC_FEATURES = ("cap", "cost", "ptr", "flow")


def networks(variant, phased=False):
    """[(name, encoders, decoders)] in parameter order."""
    hints = ["pos", "s", "t", "cap", "cost", "reached", "distance", "ptr", "flow"] + (PHASES if phased else [])
    if variant == "primal":
        return [("sp", hints, ["reached", "distance_hint", "pi"]), ("flow", hints, ["flow_hint", "flow"])]
    if variant == "dual":
        hints = hints + ["potential"]
        return [("sp", hints, ["reached", "distance_hint", "pi"]),
                ("flow", hints, ["potential_hint", "flow_hint", "flow", "potential"])]
    if variant == "no-algo":
        return [("net", ["pos", "s", "t", "cap", "cost"], ["flow"])]
    raise ValueError("min-cost flow has no %r variant" % variant)


def param_names(variant, H, opts=entry_twin.PLAIN):
    out = []
    for name, encs, decs in networks(variant, opts.phased):
        p = name + "."
        out += [p + "enc." + f for f in ENCODERS if f in encs]
        out += entry_twin.proc_names(p, opts)
        for d in decs:
            if d == "pi":
                out += entry_twin.pointer_names(p, d, opts)
            elif d in ("flow_hint", "flow"):
                out += [p + "dec.%s.%s.%s" % (d, q, k) for q in ("q1", "q2", "q3") for k in ("weight", "bias")]
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
        m = np.array([int(g["m"]) for g in graphs])
        nmask = np.zeros((B, N), bool)
        pos = np.zeros((B, N)); s1 = np.zeros((B, N)); t1 = np.zeros((B, N))
        C = np.zeros((B, N, N)); K = np.zeros((B, N, N)); E = np.zeros((B, N, N))
        adj = np.zeros((B, N, N), bool); cand = np.zeros((B, N, N), bool)
        arcidx = np.full((B, N, N), 0, np.int64)
        hr = np.zeros((B, T, N)); hpi = np.zeros((B, T, N), np.int64); hd = np.zeros((B, T, N))
        hpot = np.zeros((B, T, N)); hflow = np.zeros((B, T, N, N))
        fstar = np.zeros((B, N, N)); pot = np.zeros((B, N))
        # step i's kind (the rounds trace): the frame it reaches (i + 1) a search's start, an augmentation
        start = np.zeros((B, T)); augment = np.zeros((B, T))
        self.rounds = {"hint_phase" in g for g in graphs}
        for b, g in enumerate(graphs):
            nb, mb, Tb = n[b], m[b], int(g["steps"])
            src = np.asarray(g["src"], np.int64); dst = np.asarray(g["dst"], np.int64)
            if len({(min(u, v), max(u, v)) for u, v in zip(src.tolist(), dst.tolist())}) != mb:
                sys.exit("mcf_twin: graph %d has a pair joined twice; the dense twin needs a simple graph" % b)
            nmask[b, :nb] = True
            pos[b, :nb] = np.arange(nb, dtype=np.float32) / np.float32(nb)
            s1[b, int(g["s"])] = 1; t1[b, int(g["t"])] = 1
            cap = np.asarray(g["cap"], np.float32); cost = np.asarray(g["cost"], np.float32)
            C[b, src, dst] = cap; C[b, dst, src] = cap
            K[b, src, dst] = cost; K[b, dst, src] = cost
            E[b, src, dst] = 1
            lay_out_arcs(adj, arcidx, b, nb, N, src, dst, processor)
            entry_twin.mark_candidates(cand, b, nb, src, dst)
            hr[b, :Tb, :nb] = np.asarray(g["hint_reached"]).reshape(Tb, nb)
            hpi[b, :Tb, :nb] = np.asarray(g["hint_pi"], np.int64).reshape(Tb, nb)
            hd[b, :Tb, :nb] = np.asarray(g["hint_distance"], np.float32).reshape(Tb, nb)
            hpot[b, :Tb, :nb] = np.asarray(g["hint_potential"], np.float32).reshape(Tb, nb)
            hf = np.asarray(g["hint_flow"], np.float32).reshape(Tb, mb)
            hflow[b, :Tb, src, dst] = hf.T
            hflow[b, :Tb, dst, src] = -hf.T
            fl = np.asarray(g["flow"], np.float32)
            fstar[b, src, dst] = fl; fstar[b, dst, src] = -fl
            pot[b, :nb] = np.asarray(g["potential"], np.float32)
            if "hint_phase" in g:
                ph = np.asarray(g["hint_phase"], np.int64)
                for i in range(Tb - 1):
                    augment[b, i] = ph[i + 1] == 1
                    start[b, i] = ph[i + 1] == 0 and ph[i] == 1
        tt = lambda a: torch.tensor(a, dtype=dtype)
        self.n = torch.tensor(n); self.nf = tt(n.astype(np.float64)); self.mf = tt(m.astype(np.float64))
        # a bounded antisymmetric probe's normaliser counts the adjacency's 2m + n entries halved (dar_loss.c)
        self.bf = tt(m.astype(np.float64) + n.astype(np.float64) / 2)
        self.Ts = torch.tensor([int(g["steps"]) for g in graphs])
        self.nmask = torch.tensor(nmask)
        self.pos, self.s1, self.t1 = tt(pos.astype(np.float32)), tt(s1), tt(t1)
        self.C, self.K, self.E = tt(C), tt(K), tt(E)
        self.adj = torch.tensor(adj); self.cand = torch.tensor(cand); self.arcidx = torch.tensor(arcidx)
        self.hr, self.hpi, self.hd, self.hpot, self.hflow = tt(hr), torch.tensor(hpi), tt(hd), tt(hpot), tt(hflow)
        self.fstar, self.pot = tt(fstar), tt(pot)
        self.start, self.augment = tt(start), tt(augment)
        self.deg = self.adj.sum(1).to(dtype)


def encode(net, g, encs, state=None, step=None):
    """state: reached, distance, potential [B,N]; ptr [B,N] node indices;
    flow [B,N,N] antisymmetric; step: a phased model's step, whose kind it
    encodes."""
    vals = {"pos": g.pos, "s": g.s1, "t": g.t1}
    if state:
        vals.update(state)
    if step is not None:
        nm = g.nmask.to(g.dtype)
        vals["start"], vals["augment"] = g.start[:, step, None] * nm, g.augment[:, step, None] * nm
    x = e = 0
    for f in encs:
        if f in ARC_FEATURES:
            v = {"cap": g.C, "cost": g.K}.get(f)
            if f == "ptr":      # node indices, or soft hints' rows [B,u,v]
                v = vals["ptr"] if vals["ptr"].is_floating_point() else \
                    torch.nn.functional.one_hot(vals["ptr"], g.N).to(g.dtype)
            elif f == "flow":
                v = vals["flow"]
            e = e + v[..., None] * net.w("enc." + f)[:, 0]
        else:
            x = x + vals[f][..., None] * net.w("enc." + f)[:, 0]
    return x, e


def dec_flow(net, g, which, hd, e):
    k = "dec." + which
    P = (net.lin(k + ".q1", hd)[:, :, None, 0] + net.lin(k + ".q2", hd)[:, None, :, 0]
         + net.lin(k + ".q3", e)[..., 0])
    return g.C * torch.tanh(P - P.transpose(1, 2))


def forward_loss(P, model, g, teacher):
    variant, H, agg = model["variant"], int(model["hidden"]), model["agg"]
    opts = entry_twin.options(model)
    phased = opts.phased and variant != "no-algo"
    if g.rounds != {opts.phased}:
        sys.exit("mcf_twin: a %s model on a batch of %s records" % ("phased" if opts.phased else "one-frame",
                 " and ".join(sorted("rounds" if x else "one-frame" for x in g.rounds))))
    specs = networks(variant, phased)
    nets = [entry_twin.make_net(P, name, encs, [], decs, H, agg, opts) for name, encs, decs in specs]
    B, N, dt = g.B, g.N, g.dtype
    nsteps = g.T - 1
    tf = teacher_list(teacher, nsteps)
    nm = g.nmask.to(dt)
    ce = lambda logits, tgt: -torch.log_softmax(logits, -1).gather(-1, tgt[..., None])[..., 0]
    scalar = lambda net, which, hd: net.lin("dec." + which, hd)[..., 0]

    def node_mean(v):
        return torch.where(g.nmask, v, torch.zeros_like(v)).sum(1) / g.nf

    def edge_sum(F, target):
        return (((F - target) ** 2) * g.E).sum((1, 2))

    losses = {k: None for k in LOSS_KEYS}
    h = torch.zeros(B, N, H, dtype=dt)
    if variant == "no-algo":
        net, encs = nets[0], specs[0][1]
        x, e = encode(net, g, encs)
        F_out = torch.zeros(B, N, N, dtype=dt)
        for i in range(nsteps):
            h, hd = net.process(g, x, e, h)
            F_out = torch.where((i + 2 == g.Ts)[:, None, None], dec_flow(net, g, "flow", hd, e), F_out)
        losses["flow"] = edge_sum(F_out, g.fstar).sum() / g.bf.sum()
        return losses["flow"], losses

    dual = variant == "dual"
    sp, fl = nets
    count = (g.Ts - 1).to(dt).sum()
    hints = ["reached", "distance_hint", "pi", "flow_hint"] + (["potential_hint"] if dual else [])
    sums = {k: torch.zeros((), dtype=dt) for k in LOSS_KEYS}
    last = None
    soft_r = soft_pi = None             # soft hints: the last step's probabilities
    for i in range(nsteps):
        if tf[i] or last is None:
            state = {"reached": g.hr[:, i], "distance": g.hd[:, i], "ptr": g.hpi[:, i], "flow": g.hflow[:, i],
                     "potential": g.hpot[:, i]}
        else:
            state = last
        hard = state                    # what a finished graph keeps
        if opts.soft_hints and not tf[i] and soft_pi is not None:
            state = dict(last, reached=soft_r, ptr=soft_pi)
        valid, final = (i + 1 < g.Ts), (i + 2 == g.Ts)
        sel = lambda v: torch.where(valid, v, torch.zeros_like(v)).sum()
        at_end = lambda v: torch.where(final, v, torch.zeros_like(v)).sum()
        step = i if phased else None
        x, e = encode(sp, g, specs[0][1], state, step)
        h_new, hd = sp.process(g, x, e, h)
        rl, dl = scalar(sp, "reached", hd), scalar(sp, "distance_hint", hd)
        pl = entry_twin.pointer_logits(sp, g, "pi", hd, e, opts)
        x, e = encode(fl, g, specs[1][1], state, step)
        _, hf = fl.process(g, x, e, h_new.detach())
        F_h, F_o = dec_flow(fl, g, "flow_hint", hf, e), dec_flow(fl, g, "flow", hf, e)
        bce = torch.nn.functional.binary_cross_entropy_with_logits(rl, g.hr[:, i + 1], reduction="none")
        sums["reached"] = sums["reached"] + sel(node_mean(bce))
        sums["distance_hint"] = sums["distance_hint"] + sel(node_mean((dl - g.hd[:, i + 1]) ** 2))
        safe = torch.where(g.nmask[:, :, None], pl, torch.zeros_like(pl))
        sums["pi"] = sums["pi"] + sel(node_mean(ce(safe, g.hpi[:, i + 1])))
        sums["flow_hint"] = sums["flow_hint"] + sel(edge_sum(F_h, g.hflow[:, i + 1]) / g.bf)
        sums["flow"] = sums["flow"] + at_end(edge_sum(F_o, g.fstar))
        pot = state["potential"]
        if dual:
            ph, po = scalar(fl, "potential_hint", hf), scalar(fl, "potential", hf)
            sums["potential_hint"] = sums["potential_hint"] + sel(node_mean((ph - g.hpot[:, i + 1]) ** 2))
            masked = torch.where(g.nmask, (po - g.pot) ** 2, torch.zeros(B, N, dtype=dt))
            sums["potential"] = sums["potential"] + at_end(masked.sum(1))
            pot = torch.where(valid[:, None], ph.detach(), pot)
        v1, v2 = valid[:, None], valid[:, None, None]
        last = {"reached": torch.where(v1, (rl > 0).to(dt) * nm, hard["reached"]),
                "distance": torch.where(v1, dl.detach(), hard["distance"]),
                "ptr": torch.where(v1, argmax_low(pl), hard["ptr"]),
                "flow": torch.where(v2, F_h, hard["flow"]),
                "potential": pot}
        h = torch.where(v2, h_new, h)
        if opts.soft_hints:
            # a finished graph's later steps count in no loss: no where needed
            soft_r, soft_pi = torch.sigmoid(rl).detach(), torch.softmax(pl, -1)
    for k in hints:
        losses[k] = sums[k] / count
    losses["flow"] = sums["flow"] / g.bf.sum()
    total = sum(losses[k] for k in hints) / len(hints) + losses["flow"]
    if dual:
        losses["potential"] = sums["potential"] / g.nf.sum()
        total = total + losses["potential"]
    return total, losses


ENTRY = entry_twin.Entry("mcf_twin", LOSS_KEYS, param_names, Batch, forward_loss, ("soft_hints", "phased"))

if __name__ == "__main__":
    sys.exit(entry_twin.main(ENTRY, __doc__))
