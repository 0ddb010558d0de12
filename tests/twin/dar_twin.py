#!/usr/bin/python3
"""PyTorch twin of the dar model (formats/model.md), the oracle for the C model.

Written the way the authors' code computes it: dense n x n tensors per graph,
a batch padded to its largest n and its longest trajectory, padded nodes and
steps masked out.  It computes exactly what formats/model.md says (where the
authors' code differs, model.md wins).  With the model's soft_hints an
unforced step after the first reads the last mask probabilities and
pointer softmax rows (differentiated back into P_BF's pointer logits; the
identity after a flow step), and the dual's cut hint as its softmax once
a flow step predicted it (under teacher forcing too, as its argmax is).

    dar_twin.py grads --model model.mp --batch batch.mp [--teacher all|none|0101..] > out.mp
    dar_twin.py bench --hidden 65 --batch-size 32 --iters 3 < train.mp
    dar_twin.py init --variant dual --processor pgn --agg max --hidden 8 --seed 3 > model.mp
    dar_twin.py fdcheck --model model.mp --batch batch.mp [--teacher ...]

Use /usr/bin/python3 (Debian's, with python3-torch).
"""
import argparse
import math
import os
import sys
import time

import msgpack
import msgpack_numpy
import numpy as np
import torch

VARIANTS = ("primal", "dual", "pipeline", "no-algo")
PROCESSORS = ("pgn", "mpnn")
AGGS = ("max", "mean", "sum")
LOSS_KEYS = ("mask", "pi", "flow_hint", "cut_hint", "flow", "cut")
BIG = 1 << 40


# --------------------------------------------------------------------------
# Networks and parameters (model.md §3, §6)

def network_specs(variant):
    """[(name, node features, arc features, decoders)] in §6 order."""
    allarc = ["cap", "w", "flow", "ptr"]
    if variant == "primal":
        return [("bf", ["pos", "s", "t", "mask"], allarc, ["mask", "pi"]),
                ("flow", ["pos", "s", "t", "mask"], allarc, ["mask", "flow_hint", "flow"])]
    if variant == "dual":
        return [("bf", ["pos", "s", "t", "mask"], allarc, ["mask", "pi"]),
                ("flow", ["pos", "s", "t", "mask", "cut"], allarc,
                 ["mask", "flow_hint", "cut_hint", "flow", "cut"])]
    if variant == "pipeline":
        return [("mincut", ["pos", "s", "t"], ["cap", "w"], ["cut"]),
                ("bf", ["pos", "s", "t", "mask", "cut"], allarc, ["mask", "pi"]),
                ("flow", ["pos", "s", "t", "mask", "cut"], allarc, ["mask", "flow_hint", "flow"])]
    if variant == "no-algo":
        return [("net", ["pos", "s", "t"], ["cap", "w"], ["flow"])]
    raise ValueError("unknown variant %r" % variant)


def param_shapes(variant, H):
    """Ordered list of (name, shape) per model.md §6."""
    out = []
    for net, nodef, arcf, decs in network_specs(variant):
        p = net + "."
        for f in ["pos", "s", "t", "mask", "cut", "cap", "w", "flow", "ptr"]:
            if f in nodef or f in arcf:
                out.append((p + "enc." + f, (H, 2) if f == "cut" else (H, 1)))
        for lin, fin in [("m1", 2 * H), ("m2", 2 * H), ("me", H), ("l1", H), ("l2", H),
                         ("o1", 2 * H), ("o2", H)]:
            out.append((p + "proc.%s.weight" % lin, (H, fin)))
            out.append((p + "proc.%s.bias" % lin, (H,)))
        for d in ["mask", "pi", "flow_hint", "cut_hint", "flow", "cut"]:
            if d not in decs:
                continue
            q = p + "dec." + d
            if d == "mask":
                out += [(q + ".weight", (1, 3 * H)), (q + ".bias", (1,))]
            elif d == "pi":
                for k in ("pi1", "pi2"):
                    out += [(p + "dec.%s.weight" % k, (H, 3 * H)), (p + "dec.%s.bias" % k, (H,))]
            elif d in ("flow_hint", "flow"):
                out += [(q + ".q1.weight", (1, 3 * H)), (q + ".q1.bias", (1,)),
                        (q + ".q2.weight", (1, 3 * H)), (q + ".q2.bias", (1,)),
                        (q + ".q3.weight", (1, H)), (q + ".q3.bias", (1,))]
            else:  # cut_hint, cut
                out += [(q + ".weight", (2, 3 * H)), (q + ".bias", (2,))]
    return out


def random_params(variant, H, seed):
    """Self-made parameters (not the C init): U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    rng = np.random.default_rng(seed)
    params = {}
    for name, shape in param_shapes(variant, H):
        fan_in = shape[1] if len(shape) == 2 else None
        if fan_in is None:  # bias: fan_in of its weight
            fan_in = params[name[:-len("bias")] + "weight"].shape[1]
        b = 1.0 / math.sqrt(fan_in)
        params[name] = rng.uniform(-b, b, shape).astype(np.float32)
    return params


# --------------------------------------------------------------------------
# Streams

def lay_out_arcs(adj, arcidx, b, nb, N, src, dst, processor):
    """Graph b's arcs as the C side lays them out: PGN the edges' arcs (edge
    e's src->dst at 2e, dst->src at 2e + 1) and a self-loop per node after
    them, MPNN every pair (u·n + v); padded nodes get a self-loop so nothing
    is empty (they never reach real nodes)."""
    mb = len(src)
    if processor == "pgn":
        adj[b, src, dst] = True; adj[b, dst, src] = True
        adj[b, np.arange(nb), np.arange(nb)] = True
        arcidx[b, src, dst] = 2 * np.arange(mb)
        arcidx[b, dst, src] = 2 * np.arange(mb) + 1
        arcidx[b, np.arange(nb), np.arange(nb)] = 2 * mb + np.arange(nb)
    else:
        adj[b, :nb, :nb] = True
        arcidx[b, :nb, :nb] = np.arange(nb)[:, None] * nb + np.arange(nb)[None, :]
    adj[b, np.arange(nb, N), np.arange(nb, N)] = True
    arcidx[b, np.arange(nb, N), np.arange(nb, N)] = 0


def read_stream(path_or_file):
    f = open(path_or_file, "rb") if isinstance(path_or_file, str) else path_or_file
    return list(msgpack.Unpacker(f, object_hook=msgpack_numpy.decode, raw=False,
                                 max_buffer_size=0))


def read_model(path):
    for r in read_stream(path):
        if r.get("kind") == "model":
            return r
    sys.exit("dar_twin: no model record in %s" % path)


# --------------------------------------------------------------------------
# The batch as dense padded tensors

class Batch:
    def __init__(self, graphs, processor, dtype=torch.float32):
        self.B = B = len(graphs)
        if B == 0:
            sys.exit("dar_twin: empty batch")
        self.N = N = max(int(g["n"]) for g in graphs)
        self.T = T = max(int(g["steps"]) for g in graphs)
        self.dtype = dtype
        n = np.array([int(g["n"]) for g in graphs])
        m = np.array([int(g["m"]) for g in graphs])
        Ts = np.array([int(g["steps"]) for g in graphs])
        nmask = np.zeros((B, N), bool)
        pos = np.zeros((B, N)); s1 = np.zeros((B, N)); t1 = np.zeros((B, N))
        C = np.zeros((B, N, N)); W = np.zeros((B, N, N))
        adj = np.zeros((B, N, N), bool)
        arcidx = np.full((B, N, N), BIG, np.int64)
        hmask = np.zeros((B, T, N)); hpi = np.zeros((B, T, N), np.int64)
        hflow = np.zeros((B, T, N, N)); phase = np.zeros((B, T), np.int64)
        fstar = np.zeros((B, N, N)); cut = np.zeros((B, N), np.int64)
        for b, g in enumerate(graphs):
            nb, mb = n[b], m[b]
            src = np.asarray(g["src"], np.int64); dst = np.asarray(g["dst"], np.int64)
            pairs = set()
            for e in range(mb):
                u, v = int(src[e]), int(dst[e])
                if u == v or (min(u, v), max(u, v)) in pairs:
                    sys.exit("dar_twin: graph %d: edge %d (%d,%d) is a self-loop or a duplicate "
                             "pair; the dense twin needs a simple graph" % (b, e, u, v))
                pairs.add((min(u, v), max(u, v)))
            nmask[b, :nb] = True
            pos[b, :nb] = np.arange(nb, dtype=np.float32) / np.float32(nb)
            s1[b, int(g["s"])] = 1; t1[b, int(g["t"])] = 1
            cap = np.asarray(g["cap"], np.float32); w = np.asarray(g["w"], np.float32)
            C[b, src, dst] = cap; C[b, dst, src] = cap
            W[b, src, dst] = w; W[b, dst, src] = w
            lay_out_arcs(adj, arcidx, b, nb, N, src, dst, processor)
            Tb = Ts[b]
            phase[b, :Tb] = np.asarray(g["hint_phase"], np.int64)
            hmask[b, :Tb, :nb] = np.asarray(g["hint_mask"]).reshape(Tb, nb)
            hpi[b, :Tb, :nb] = np.asarray(g["hint_pi"], np.int64).reshape(Tb, nb)
            hf = np.asarray(g["hint_flow"], np.float32).reshape(Tb, mb)
            hflow[b, :Tb, src, dst] = hf.T
            hflow[b, :Tb, dst, src] = -hf.T
            fl = np.asarray(g["flow"], np.float32)
            fstar[b, src, dst] = fl; fstar[b, dst, src] = -fl
            cut[b, :nb] = np.asarray(g["cut"], np.int64)
        tt = lambda a: torch.tensor(a, dtype=dtype)
        self.n = torch.tensor(n); self.m = torch.tensor(m); self.Ts = torch.tensor(Ts)
        self.nf = tt(n.astype(np.float64))
        self.nmask = torch.tensor(nmask)
        self.pos, self.s1, self.t1 = tt(pos.astype(np.float32)), tt(s1), tt(t1)
        self.C, self.W = tt(C), tt(W)
        self.adj = torch.tensor(adj)
        self.arcidx = torch.tensor(arcidx)
        self.hmask, self.hpi, self.hflow = tt(hmask), torch.tensor(hpi), tt(hflow)
        self.phase = torch.tensor(phase)
        self.fstar, self.cut = tt(fstar), torch.tensor(cut)
        self.cut1 = torch.nn.functional.one_hot(self.cut, 2).to(dtype) * self.nmask[..., None].to(dtype)
        self.ident = torch.arange(N).expand(B, N)
        self.deg = self.adj.sum(1).to(dtype)  # arcs into v (PGN: deg+1, MPNN: n)
        self.den = (2 * self.m + self.n).to(dtype)  # 2m + n per graph
        self.hflow_zero = (self.hflow.abs().sum((2, 3)) == 0)  # [B,T] frame's true flow == 0


# --------------------------------------------------------------------------
# One encode-process-decode network

class Net:
    """layer_norm, gated: the node update's options (the model record's keys
    "layer_norm" and "gated"); triplets: Triplet-GMPNN's triplet messages
    (key "triplets"); the max-flow twin's models have none of them."""
    def __init__(self, P, name, nodef, arcf, decs, H, agg, layer_norm=False, gated=False, triplets=False):
        self.P, self.p, self.nodef, self.arcf, self.decs = P, name + ".", nodef, arcf, decs
        self.H, self.agg = H, agg
        self.layer_norm, self.gated, self.triplets = layer_norm, gated, triplets

    def w(self, k):
        return self.P[self.p + k]

    def lin(self, k, x):
        return torch.nn.functional.linear(x, self.w(k + ".weight"), self.w(k + ".bias"))

    def encode(self, g, mask=None, cut1=None, flow=None, pi=None, ptr=None):
        """ptr: the pointer column [B,u,v] when soft (the probabilities),
        else the one-hot of the pointers pi."""
        x = 0
        for f in self.nodef:
            if f == "cut":
                x = x + cut1 @ self.w("enc.cut").t()
            else:
                v = {"pos": g.pos, "s": g.s1, "t": g.t1, "mask": mask}[f]
                x = x + v[..., None] * self.w("enc." + f)[:, 0]
        e = 0
        for f in self.arcf:
            if f == "ptr":
                v = ptr if ptr is not None else \
                    torch.nn.functional.one_hot(pi, g.N).to(g.dtype)  # [b,u,v] = 1[pi(u)=v]
            else:
                v = {"cap": g.C, "w": g.W, "flow": flow}[f]
            e = e + v[..., None] * self.w("enc." + f)[:, 0]
        return x, e

    def process(self, g, x, e, hprev):
        z = torch.cat([x, hprev], -1)                           # [B,N,2H]
        recv = self.lin("proc.m1", z)                           # z_v
        send = self.lin("proc.m2", z)                           # z_u
        pre = recv[:, None, :, :] + send[:, :, None, :] + self.lin("proc.me", e)  # [B,u,v,H]
        if self.triplets:
            pre = pre + self.triplet_messages(g, z, e)
        msg = torch.relu(self.lin("proc.l2", torch.relu(self.lin("proc.l1", torch.relu(pre)))))
        adj = g.adj[..., None]
        if self.agg == "max":
            with torch.no_grad():                               # which arc wins, per channel
                vals = torch.where(adj, msg, torch.full_like(msg, -math.inf))
                mx = vals.max(1, keepdim=True).values
                key = torch.where(vals == mx, g.arcidx[..., None],
                                  torch.full_like(g.arcidx[..., None], BIG))
                sel = key.argmin(1, keepdim=True)               # lowest arc index on ties
                del vals, mx, key
            agg = msg.gather(1, sel)[:, 0]                      # the winner is always an arc
        else:
            ssum = torch.where(adj, msg, torch.zeros_like(msg)).sum(1)
            agg = ssum / g.deg[..., None] if self.agg == "mean" else ssum
        h = torch.relu(self.lin("proc.o1", z) + self.lin("proc.o2", agg))
        if self.layer_norm:                                     # Haiku's LayerNorm: biased variance
            mu = h.mean(-1, keepdim=True)
            var = ((h - mu) ** 2).mean(-1, keepdim=True)
            h = (h - mu) / torch.sqrt(var + 1e-5) * self.w("proc.ln.scale") + self.w("proc.ln.offset")
        if self.gated:                                          # CLRS's gated processors
            gate = torch.sigmoid(self.lin("proc.g3", torch.relu(self.lin("proc.g1", z) + self.lin("proc.g2", agg))))
            h = h * gate + hprev * (1 - gate)
        return h, torch.cat([x, hprev, h], -1)

    def triplet_messages(self, g, z, e):
        """relu(O3 max_x t_xst + b3) [B,s,t,H], t_xst = T1 z_x + T2 z_s + T3 z_t
        + E1 e_xs + E2 e_xt + E3 e_st (8 features), x over the graph's real
        nodes, e of a pair that is no arc zero (dar_triplet.c)."""
        if not torch.is_tensor(e):
            e = torch.zeros(g.B, g.N, g.N, self.H, dtype=g.dtype)
        e = torch.where(g.adj[..., None], e, torch.zeros_like(e))
        t1, t2, t3 = (self.lin("proc.t%d" % i, z) for i in (1, 2, 3))                  # [B,N,8]
        e1, e2, e3 = (torch.nn.functional.linear(e, self.w("proc.te%d.weight" % i)) for i in (1, 2, 3))
        t = (t1[:, :, None, None] + t2[:, None, :, None] + t3[:, None, None, :]
             + e1[:, :, :, None] + e2[:, :, None, :] + e3[:, None, :, :])               # [B,x,s,t,8]
        t = t.masked_fill(~g.nmask[:, :, None, None, None], -math.inf)
        return torch.relu(self.lin("proc.o3", t.max(1).values))

    def dec_mask(self, hd):
        return self.lin("dec.mask", hd)[..., 0]

    def dec_pi(self, g, hd):
        a = self.lin("dec.pi1", hd); b = self.lin("dec.pi2", hd)
        l = a @ b.transpose(1, 2)                               # [B,u,v]
        return l.masked_fill(~g.nmask[:, None, :], -math.inf)   # padded v excluded

    def dec_flow(self, g, which, hd, e):
        k = "dec." + which
        P = (self.lin(k + ".q1", hd)[:, :, None, 0] + self.lin(k + ".q2", hd)[:, None, :, 0]
             + self.lin(k + ".q3", e)[..., 0])                  # [B,u,v]
        return g.C * torch.tanh(P - P.transpose(1, 2))

    def dec_cut(self, which, hd):
        return self.lin("dec." + which, hd)                     # [B,N,2]


# --------------------------------------------------------------------------
# Forward pass and loss (model.md §4, §5)

def argmax_low(x):
    """argmax over the last axis keeping the lowest index on ties."""
    mx = x.max(-1, keepdim=True).values
    idx = torch.arange(x.shape[-1]).expand_as(x)
    key = torch.where(x == mx, idx, torch.full_like(idx, BIG))
    return key.argmin(-1)


def teacher_list(spec, nsteps):
    """Per step index i (0..nsteps-1): True = teacher-forced.  Step 0 always frame 0."""
    if spec in ("all", None):
        tf = [True] * nsteps
    elif spec == "none":
        tf = [False] * nsteps
    else:
        if any(c not in "01" for c in spec):
            sys.exit("dar_twin: --teacher must be all, none or a string of 0/1")
        tf = [c == "1" for c in spec[:nsteps]] + [False] * max(0, nsteps - len(spec))
    if nsteps:
        tf[0] = True
    return tf


def forward_loss(P, model, g, teacher, stopgrad=True, checkpoint=False):
    """Return (total, {loss term: tensor or None}).  stopgrad=False only for fdcheck;
    checkpoint=True recomputes each network step in the backward pass (same
    numbers, much less memory: the dense [B, n, n, H] messages are not kept)."""
    if checkpoint:
        import torch.utils.checkpoint as tuc
        ckpt = lambda fn, *args: tuc.checkpoint(fn, *args, use_reentrant=False)
    else:
        ckpt = lambda fn, *args: fn(*args)
    variant, H, agg = model["variant"], int(model["hidden"]), model["agg"]
    leak = bool(model.get("leak_cut", False))
    soft = bool(model.get("soft_hints", False))
    nets = {name: Net(P, name, nf, af, d, H, agg) for name, nf, af, d in network_specs(variant)}
    B, N, T, dt = g.B, g.N, g.T, g.dtype
    nsteps = T - 1
    tf = teacher_list(teacher, nsteps)
    nm = g.nmask.to(dt)
    zeros_h = torch.zeros(B, N, H, dtype=dt)
    F_out = torch.zeros(B, N, N, dtype=dt)
    sums = {k: torch.zeros((), dtype=dt) for k in LOSS_KEYS}
    counts = {k: torch.zeros((), dtype=dt) for k in LOSS_KEYS}
    ce = lambda logits, tgt: -torch.log_softmax(logits, -1).gather(-1, tgt[..., None])[..., 0]

    def node_mean(v):  # mean over real nodes, per graph
        return (torch.where(g.nmask, v, torch.zeros_like(v))).sum(1) / g.nf

    def score(key, val, sel):  # pooled over (graph, step) pairs where sel
        sums[key] = sums[key] + torch.where(sel, val, torch.zeros_like(val)).sum()
        counts[key] = counts[key] + sel.to(dt).sum()

    def lf_sum(F):  # 2 sum_e (F_e - F*_e)^2 = sum over both orientations
        return ((F - g.fstar) ** 2).sum((1, 2))

    if variant == "no-algo":
        net = nets["net"]
        x, e = net.encode(g)
        h = zeros_h
        def run_net(h):
            h, hd = net.process(g, x, e, h)
            return h, net.dec_flow(g, "flow", hd, e)
        for i in range(nsteps):
            h, F = ckpt(run_net, h)
            last = (i + 2 == g.Ts)                      # F_out from the last step
            F_out = torch.where(last[:, None, None], F, F_out)
        L_f = lf_sum(F_out).sum() / g.den.sum()
        losses = {k: None for k in LOSS_KEYS}
        losses["flow"] = L_f
        return L_f, losses

    mincut_logits = None
    if variant == "pipeline":
        net = nets["mincut"]
        x, e = net.encode(g)
        h = zeros_h
        mincut_logits = torch.zeros(B, N, 2, dtype=dt)
        def run_mc(h):
            h, hd = net.process(g, x, e, h)
            return h, net.dec_cut("cut", hd)
        for j in range(N + 1):                           # n_b + 1 steps per graph
            h, lg = ckpt(run_mc, h)
            mincut_logits = torch.where((g.n == j)[:, None, None], lg, mincut_logits)
        cut_pipe = torch.nn.functional.one_hot(argmax_low(mincut_logits), 2).to(dt) * nm[..., None]

    bf, fl = nets["bf"], nets["flow"]
    dual = variant == "dual"

    def run_bf(mask, cut1, flow, pi, ptr, hprev):
        x, e = bf.encode(g, mask=mask, cut1=cut1, flow=flow, pi=pi, ptr=ptr)
        h, hd = bf.process(g, x, e, hprev)
        return h, bf.dec_mask(hd), bf.dec_pi(g, hd)

    def run_fl(mask, cut1, flow, pi, ptr, hprev):
        x, e = fl.encode(g, mask=mask, cut1=cut1, flow=flow, pi=pi, ptr=ptr)
        _, hd = fl.process(g, x, e, hprev)
        out = (fl.dec_mask(hd), fl.dec_flow(g, "flow_hint", hd, e), fl.dec_flow(g, "flow", hd, e))
        if dual:
            out += (fl.dec_cut("cut_hint", hd), fl.dec_cut("cut", hd))
        return out
    # "last valid" predictions
    last_mask = g.hmask[:, 0]
    last_pi = g.hpi[:, 0]
    last_flow = g.hflow[:, 0]
    last_cut = g.cut1 if leak else torch.zeros(B, N, 2, dtype=dt)
    c_out = torch.zeros(B, N, 2, dtype=dt)
    h_bf = zeros_h
    # soft hints: the last step's mask probabilities and pointer rows (one-hot
    # identity after a flow step), and the cut fed as the model's own: its
    # probabilities once a flow step predicted them
    soft_mask = soft_pi = None
    soft_cut = last_cut
    for i in range(nsteps):
        ptr = None
        own_cut = soft_cut if soft else last_cut
        if tf[i]:
            mask, pi, flow = g.hmask[:, i], g.hpi[:, i], g.hflow[:, i]
            if dual and leak:
                cut1 = torch.where(g.hflow_zero[:, i, None, None], g.cut1, torch.zeros_like(g.cut1))
            else:
                cut1 = own_cut
        else:
            mask, pi, flow, cut1 = last_mask, last_pi, last_flow, own_cut
            if soft and soft_pi is not None:
                mask, ptr = soft_mask, soft_pi
        if variant == "pipeline":
            cut1 = cut_pipe
        valid = (i + 1 < g.Ts)
        isbf = (g.phase[:, i] == 1)
        isfl = ~isbf
        # P_BF
        hbf_new, mlog_b, pil = ckpt(run_bf, mask, cut1, flow, pi, ptr, h_bf)
        # P_F with h_prev = stopgrad(hbf')
        outs = ckpt(run_fl, mask, cut1, flow, pi, ptr, hbf_new.detach() if stopgrad else hbf_new)
        mlog_f, F_h, F_o = outs[:3]
        if dual:
            ch, co = outs[3:]
        elif variant == "pipeline":
            ch = mincut_logits
        # predictions and losses
        mlog = torch.where(isbf[:, None], mlog_b, mlog_f)
        tgt = i + 1
        bce = torch.nn.functional.binary_cross_entropy_with_logits(
            mlog, g.hmask[:, tgt], reduction="none")
        score("mask", node_mean(bce), valid)
        pil_safe = torch.where(g.nmask[:, :, None], pil, torch.zeros_like(pil))
        score("pi", node_mean(ce(pil_safe, g.hpi[:, tgt])), valid & isbf)
        score("flow_hint", ((F_h - g.hflow[:, tgt]) ** 2).sum((1, 2)) / g.den, valid & isfl)
        if variant != "primal":
            score("cut_hint", node_mean(ce(ch, g.cut)), valid & isfl)
        upd = (valid & isfl)[:, None, None]
        F_out = torch.where(upd, F_o, F_out)
        if dual:
            c_out = torch.where(upd, co, c_out)
        # last valid
        last_mask = (mlog > 0).to(dt) * nm
        last_pi = torch.where(isbf[:, None], argmax_low(pil), g.ident)
        last_flow = torch.where(isfl[:, None, None], F_h, last_flow)
        if dual:
            pc = torch.nn.functional.one_hot(argmax_low(ch), 2).to(dt) * nm[..., None]
            last_cut = torch.where(isfl[:, None, None], pc, last_cut)
        h_bf = torch.where(isbf[:, None, None], zeros_h, hbf_new)
        if soft:
            # a finished graph's later steps count in no loss: no where needed
            soft_mask = torch.sigmoid(mlog).detach()
            soft_pi = torch.where(isbf[:, None, None], torch.softmax(pil, -1),
                                  torch.nn.functional.one_hot(g.ident, N).to(dt))
            if dual:
                soft_cut = torch.where(isfl[:, None, None], torch.softmax(ch, -1).detach(), soft_cut)

    losses = {}
    for k in ("mask", "pi", "flow_hint", "cut_hint"):
        if k == "cut_hint" and variant == "primal":
            losses[k] = None
        else:
            losses[k] = torch.where(counts[k] > 0, sums[k] / counts[k].clamp(min=1), sums[k] * 0)
    losses["flow"] = lf_sum(F_out).sum() / g.den.sum()
    losses["cut"] = None
    if variant in ("dual", "pipeline"):
        co = c_out if dual else mincut_logits
        losses["cut"] = torch.where(g.nmask, ce(co, g.cut), torch.zeros(B, N, dtype=dt)).sum() / g.nf.sum()
    hints = [losses[k] for k in ("mask", "pi", "flow_hint", "cut_hint") if losses[k] is not None]
    total = sum(hints) / len(hints) + losses["flow"]
    if losses["cut"] is not None:
        total = total + losses["cut"]
    return total, losses


def make_params(model, dtype=torch.float32):
    names = [k for k, _ in param_shapes(model["variant"], int(model["hidden"]))]
    mp = model["params"]
    missing = [k for k in names if k not in mp]
    extra = [k for k in mp if k not in names]
    if missing or extra:
        sys.exit("dar_twin: model params disagree with model.md §6: missing %s, extra %s"
                 % (missing, extra))
    P = {}
    for k, shp in param_shapes(model["variant"], int(model["hidden"])):
        a = np.asarray(mp[k])
        if tuple(a.shape) != tuple(shp):
            sys.exit("dar_twin: param %s has shape %s, expected %s" % (k, a.shape, shp))
        P[k] = torch.tensor(a.astype(np.float64), dtype=dtype, requires_grad=True)
    return names, P


def compute_grads(model, graphs, teacher, dtype=torch.float32, checkpoint=False):
    names, P = make_params(model, dtype)
    g = Batch(graphs, model["processor"], dtype)
    total, losses = forward_loss(P, model, g, teacher, checkpoint=checkpoint)
    total.backward()
    grads = {k: (P[k].grad if P[k].grad is not None else torch.zeros_like(P[k])).detach()
             .numpy().astype(np.float32) for k in names}
    lv = {k: (0.0 if losses[k] is None else float(losses[k])) for k in LOSS_KEYS}
    return float(total), lv, grads


# --------------------------------------------------------------------------
# Commands

def cmd_grads(a):
    model = read_model(a.model)
    graphs = [r for r in read_stream(a.batch) if r.get("kind") == "graph"]
    dtype = torch.float64 if a.float64 else torch.float32
    loss, lv, grads = compute_grads(model, graphs, a.teacher, dtype, a.checkpoint)
    rec = {"kind": "gradients", "loss": loss, "losses": lv, "grads": grads}
    sys.stdout.buffer.write(msgpack.packb(rec, default=msgpack_numpy.encode))


def cmd_check(a):
    """Twin gradients for several (model, teacher, C gradients) cases in one process."""
    import os
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import compare
    graphs = [r for r in read_stream(a.batch) if r.get("kind") == "graph"]
    nbad = 0
    for case in a.cases:
        mpath, teacher, cpath = case.split(":")
        model = read_model(mpath)
        loss, lv, grads = compute_grads(model, graphs, teacher)
        mine = {"kind": "gradients", "loss": loss, "losses": lv, "grads": grads}
        ok, out, worst = compare.compare(compare.load(cpath), mine, a.loss_rtol, a.grad_rtol, a.abs)
        tag = "%s %s %s leak_cut=%s soft_hints=%s teacher=%s" % (
            model["variant"], model["processor"], model["agg"], bool(model.get("leak_cut")),
            bool(model.get("soft_hints")), teacher)
        print("%s %s: %s" % ("ok " if ok else "BAD", tag, worst))
        for line in out:
            print("    " + line)
        nbad += not ok
    print("%d of %d cases agree" % (len(a.cases) - nbad, len(a.cases)))
    sys.exit(1 if nbad else 0)


def cmd_init(a):
    params = random_params(a.variant, a.hidden, a.seed)
    rec = {"kind": "model", "format": 1, "variant": a.variant, "processor": a.processor,
           "agg": a.agg, "hidden": a.hidden, "leak_cut": a.leak_cut,
           "params": {k: params[k] for k, _ in param_shapes(a.variant, a.hidden)}}
    sys.stdout.buffer.write(msgpack.packb(rec, default=msgpack_numpy.encode))


def cmd_fdcheck(a):
    """Central finite differences in float64 against autograd, on random coordinates.

    The stop-gradient between P_BF and P_F is lifted here (finite differences see
    through it), so this checks the rest of the autograd graph."""
    model = read_model(a.model)
    graphs = [r for r in read_stream(a.batch) if r.get("kind") == "graph"]
    names, P = make_params(model, torch.float64)
    g = Batch(graphs, model["processor"], torch.float64)
    total, _ = forward_loss(P, model, g, a.teacher, stopgrad=False)
    total.backward()
    rng = np.random.default_rng(0)
    worst = 0.0
    eps = a.eps
    for k in names:
        p = P[k]
        flat = p.detach().view(-1)
        idx = rng.choice(flat.numel(), min(a.coords, flat.numel()), replace=False)
        gn = p.grad.abs().max().item() if p.grad is not None else 0.0
        for j in idx:
            old = flat[j].item()
            with torch.no_grad():
                flat[j] = old + eps
                lp = float(forward_loss(P, model, g, a.teacher, stopgrad=False)[0])
                flat[j] = old - eps
                lm = float(forward_loss(P, model, g, a.teacher, stopgrad=False)[0])
                flat[j] = old
            fd = (lp - lm) / (2 * eps)
            ad = p.grad.view(-1)[j].item() if p.grad is not None else 0.0
            err = abs(fd - ad) / max(abs(fd), abs(ad), gn * 1e-2, 1e-5)
            if err > worst:
                worst = err
            if err > a.tol:
                print("FD MISMATCH %s[%d]: autograd %.9g fd %.9g" % (k, j, ad, fd))
    print("fdcheck worst relative error %.3g over %d params" % (worst, len(names)))
    sys.exit(0 if worst <= a.tol else 1)


def cmd_bench(a):
    torch.manual_seed(a.seed)
    graphs = [r for r in read_stream(sys.stdin.buffer) if r.get("kind") == "graph"]
    if not graphs:
        sys.exit("dar_twin: bench: no graphs on stdin")
    params = random_params(a.variant, a.hidden, a.seed)
    model = {"variant": a.variant, "processor": a.processor, "agg": a.agg, "hidden": a.hidden,
             "leak_cut": False, "params": params}
    names, P = make_params(model, torch.float32)
    rng = np.random.default_rng(a.seed)
    times, cpu = [], []
    for k in range(a.iters + a.warmup):
        idx = rng.integers(0, len(graphs), a.batch_size)
        t0 = time.perf_counter()
        c0 = time.process_time()
        g = Batch([graphs[j] for j in idx], a.processor, torch.float32)
        total, _ = forward_loss(P, model, g, a.teacher, checkpoint=a.checkpoint)
        for p in P.values():
            p.grad = None
        total.backward()
        with torch.no_grad():
            for p in P.values():
                p -= a.lr * (p.grad + a.wd * p)
        dt = time.perf_counter() - t0
        dc = time.process_time() - c0
        if k >= a.warmup:
            times.append(dt); cpu.append(dc)
        print("iter %d: B %d T_max %d loss %.6f  %.3f s wall, %.3f s cpu"
              % (k, g.B, g.T, float(total), dt, dc), file=sys.stderr)
    print("mean over %d iterations: %.4f s wall, %.4f s cpu (%d thread)"
          % (len(times), sum(times) / len(times), sum(cpu) / len(cpu), torch.get_num_threads()),
          file=sys.stderr)
    print("%.4f" % (sum(times) / len(times)))


def main(argv=None):
    ap = argparse.ArgumentParser(prog="dar_twin.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=1)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("grads", help="loss and gradients of one batch")
    s.add_argument("--model", required=True)
    s.add_argument("--batch", required=True)
    s.add_argument("--teacher", default="all")
    s.add_argument("--float64", action="store_true", help="compute in float64 (debugging)")
    s.add_argument("--checkpoint", action="store_true", help="recompute steps in backward (less memory)")
    s.set_defaults(fn=cmd_grads)
    s = sub.add_parser("check", help="compare C gradients records with the twin, many cases")
    s.add_argument("--batch", required=True)
    s.add_argument("--loss-rtol", type=float, default=1e-5)
    s.add_argument("--grad-rtol", type=float, default=1e-4)
    s.add_argument("--abs", type=float, default=1e-7)
    s.add_argument("cases", nargs="+", help="MODEL.mp:TEACHER:C_GRADS.mp")
    s.set_defaults(fn=cmd_check)
    s = sub.add_parser("init", help="a self-made model record with random params")
    s.add_argument("--variant", default="dual", choices=VARIANTS)
    s.add_argument("--processor", default="pgn", choices=PROCESSORS)
    s.add_argument("--agg", default="max", choices=AGGS)
    s.add_argument("--hidden", type=int, default=8)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--leak-cut", action="store_true")
    s.set_defaults(fn=cmd_init)
    s = sub.add_parser("fdcheck", help="finite differences against autograd (float64)")
    s.add_argument("--model", required=True)
    s.add_argument("--batch", required=True)
    s.add_argument("--teacher", default="all")
    s.add_argument("--coords", type=int, default=3)
    s.add_argument("--eps", type=float, default=1e-6)
    s.add_argument("--tol", type=float, default=1e-4)
    s.set_defaults(fn=cmd_fdcheck)
    s = sub.add_parser("bench", help="seconds per training iteration (graphs on stdin)")
    s.add_argument("--variant", default="dual", choices=VARIANTS)
    s.add_argument("--processor", default="pgn", choices=PROCESSORS)
    s.add_argument("--agg", default="max", choices=AGGS)
    s.add_argument("--hidden", type=int, default=65)
    s.add_argument("--batch-size", type=int, default=32)
    s.add_argument("--iters", type=int, default=3)
    s.add_argument("--warmup", type=int, default=0)
    s.add_argument("--teacher", default="none")
    s.add_argument("--lr", type=float, default=0.009868199084919982)
    s.add_argument("--wd", type=float, default=0.0017345516681916279)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--checkpoint", action="store_true",
                   help="recompute each step in the backward pass (memory O(B n^2 H) instead of O(T B n^2 H))")
    s.set_defaults(fn=cmd_bench)
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    if not os.environ.get("DAR_TWIN_NO_MALLOPT"):
        # a fixed mmap threshold: the [B, n, n, H] buffers otherwise fragment the heap
        # (measured 2.5x the memory, 5x with --checkpoint); costs page faults (system time)
        try:
            import ctypes
            ctypes.CDLL("libc.so.6").mallopt(-3, 1 << 17)   # M_MMAP_THRESHOLD
        except OSError:
            pass
    a.fn(a)


if __name__ == "__main__":
    main()
