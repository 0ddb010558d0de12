"""What the twins of the one-network entries (sp_twin.py, match_twin.py,
vc_twin.py) share: the training step as dar_dump runs it (the loss of a
batch at float64 and every parameter's gradient by autograd), its
comparison with the C side's loss terms and gradients, and the command line
`<twin> check --batch batch.mp model.mp:teacher:c_grads.mp ...` (and
`<twin> jitter model.mp > model2.mp`, cmd_jitter).

An entry is described by an `Entry`: its name (in messages), its loss terms
in the C side's order, param_names(variant, H, opts) in the model's order,
its Batch(graphs, processor, dtype), forward_loss(P, model, g, teacher) ->
(total, {term: value or None}) and the model options (`Options`) its twin
computes; a model with any other is refused, not compared.

The options' shared pieces are here: their parameters' names (proc_names,
pointer_names), the node update's (dar_twin.Net, through make_net) and the
pointer decoder, dot or edge (pointer_logits, over the candidates that
mark_candidates lays out).

Use /usr/bin/python3 (Debian's, with python3-torch).
"""
import argparse
import math
import os
import sys
from collections import namedtuple

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dar_twin import Net, read_model, read_stream  # noqa: E402

Entry = namedtuple("Entry", "name loss_keys param_names batch forward_loss supports", defaults=((),))

# The model options a record may carry (keys written only when set):
# "pointer_head": "edge", "layer_norm", "gated", "soft_hints", "triplets",
# "phased" (a model of phased traces: matching's layered trace, min-cost
# flow's rounds trace).
Options = namedtuple("Options", "edge_pointer layer_norm gated soft_hints triplets phased", defaults=(False,))
PLAIN = Options(False, False, False, False, False)

# A non-candidate's logit in the edge pointer head: finite, so a row of
# padding takes no NaN through a softmax, and low enough to take no
# probability.
MASKED = -1.0e9


def options(model):
    head = model.get("pointer_head", "dot")
    if head not in ("dot", "edge"):
        sys.exit("model record: pointer_head %r, expected dot or edge" % head)
    return Options(head == "edge", bool(model.get("layer_norm", False)), bool(model.get("gated", False)),
                   bool(model.get("soft_hints", False)), bool(model.get("triplets", False)),
                   bool(model.get("phased", False)))


def option_tag(opts):
    on = [k for k in Options._fields if getattr(opts, k)]
    return " +" + " +".join(on) if on else ""


def proc_names(p, opts):
    """The processor's parameters of network prefix p ("bf."), in the model's order."""
    out = []
    for lin in ["m1", "m2", "me", "l1", "l2", "o1", "o2"]:
        out += [p + "proc.%s.weight" % lin, p + "proc.%s.bias" % lin]
    if opts.layer_norm:
        out += [p + "proc.ln.scale", p + "proc.ln.offset"]
    if opts.gated:
        for lin in ["g1", "g2", "g3"]:
            out += [p + "proc.%s.weight" % lin, p + "proc.%s.bias" % lin]
    if opts.triplets:
        for lin in ["t1", "t2", "t3"]:
            out += [p + "proc.%s.weight" % lin, p + "proc.%s.bias" % lin]
        out += [p + "proc.te%d.weight" % i for i in (1, 2, 3)]
        out += [p + "proc.o3.weight", p + "proc.o3.bias"]
    return out


def pointer_names(p, d, opts):
    """A pointer decoder's parameters: d1, d2 (3H -> H); the edge head's d3
    (H -> H on the arc's encoded inputs, no bias) and d4 (H -> 1)."""
    out = []
    for k in ("1", "2"):
        out += [p + "dec.%s%s.weight" % (d, k), p + "dec.%s%s.bias" % (d, k)]
    if opts.edge_pointer:
        out += [p + "dec.%s3.weight" % d, p + "dec.%s4.weight" % d, p + "dec.%s4.bias" % d]
    return out


def make_net(P, name, nodef, arcf, decs, H, agg, opts):
    return Net(P, name, nodef, arcf, decs, H, agg, layer_norm=opts.layer_norm, gated=opts.gated,
               triplets=opts.triplets)


def mark_candidates(cand, b, nb, src, dst):
    """The edge pointer's candidates of graph b, whatever the processor's
    arcs: u's neighbours and u itself."""
    cand[b, src, dst] = True
    cand[b, dst, src] = True
    cand[b, np.arange(nb), np.arange(nb)] = True


def pointer_logits(net, g, which, hd, e, opts):
    """Pointer decoder `which`: logits [B, u, v] of v as u's pointer.
    Dot: p1_u . p2_v over the real nodes (padded v at -inf).  Edge (CLRS's
    decoder over the graph's arcs): d4 . max(p1_u, p2_v + d3 e_uv) + b4 over
    g.cand, MASKED elsewhere, e [B, u, v, H] the arc u->v's encoded inputs;
    a tie of the max goes to p1."""
    a = net.lin("dec.%s1" % which, hd)
    b = net.lin("dec.%s2" % which, hd)
    if not opts.edge_pointer:
        return (a @ b.transpose(1, 2)).masked_fill(~g.nmask[:, None, :], -math.inf)
    if not torch.is_tensor(e):
        e = torch.zeros(g.B, g.N, g.N, net.H, dtype=g.dtype)
    cand = b[:, None, :, :] + torch.nn.functional.linear(e, net.w("dec.%s3.weight" % which))
    own = a[:, :, None, :].expand_as(cand)
    top = torch.where(own >= cand, own, cand)
    logits = net.lin("dec.%s4" % which, top)[..., 0]
    return logits.masked_fill(~g.cand, MASKED)


def edge_arcs(g, x):
    """An edge value [B,M] on both arcs of its edge, dense [B,N,N]."""
    A = torch.zeros(g.B, g.N, g.N, dtype=g.dtype)
    x = torch.where(g.emask, x, torch.zeros_like(x))
    A = A.index_put((g.bidx, g.src, g.dst), x, accumulate=True)
    return A.index_put((g.bidx, g.dst, g.src), x, accumulate=True)


def compute_grads(entry, model, graphs, teacher, dtype=torch.float32):
    """The batch's total loss, its terms (None: not scored, as 0) and the
    gradient of every parameter (zeros where the loss does not reach it)."""
    opts = options(model)
    missing = [k for k in Options._fields if getattr(opts, k) and k not in entry.supports]
    if missing:
        sys.exit("%s: the model has %s, which this twin does not compute" % (entry.name, ", ".join(missing)))
    names = entry.param_names(model["variant"], int(model["hidden"]), opts)
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
        if list(c["grads"]) != entry.param_names(model["variant"], int(model["hidden"]), options(model)):
            bad.append("gradient names %s" % list(c["grads"]))
        for k, gt in grads.items():
            gc = np.asarray(c["grads"][k], np.float64)
            scale = max(np.abs(gt).max(), np.abs(gc).max())
            err = np.abs(gt - gc).max()
            if err > 1e-4 * scale + 1e-7:
                bad.append("grad %s: max|diff| %.3g of scale %.3g" % (k, err, scale))
        tag = "%s %s %s%s teacher=%s" % (model["variant"], model["processor"], model["agg"],
                                          option_tag(options(model)), teacher)
        if bad:
            print("%s: DIFFERS\n  %s" % (tag, "\n  ".join(bad)))
        else:
            ok += 1
            print("%s: agrees (loss %.6g, %d gradients)" % (tag, total, len(grads)))
    print("%d of %d cases agree" % (ok, len(a.cases)))
    return 0 if ok == len(a.cases) else 1


def cmd_jitter(a):
    """The model record of a.model with its layer norm's scale and offset and
    its gate's G3 bias moved off their initial values (1, 0, -3): there a
    wrong offset, a scale left out or a gate read the wrong way round would
    change no loss and few gradients."""
    import msgpack
    import msgpack_numpy
    recs = read_stream(a.model)
    rng = np.random.default_rng(a.seed)
    for r in recs:
        if r.get("kind") != "model":
            continue
        for k, v in r["params"].items():
            if k.endswith((".proc.ln.scale", ".proc.ln.offset", ".proc.g3.bias")):
                r["params"][k] = (v + rng.uniform(-0.5, 0.5, v.shape) * (4 if k.endswith("g3.bias") else 1)
                                  ).astype(v.dtype)
    for r in recs:
        sys.stdout.buffer.write(msgpack.packb(r, default=msgpack_numpy.encode))
    return 0


def main(entry, doc, argv=None):
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("check", help="compare dar_dump's loss and gradients with the twin's")
    s.add_argument("--batch", required=True)
    s.add_argument("cases", nargs="+", help="model.mp:teacher:c_grads.mp")
    s = sub.add_parser("jitter", help="a model record with the options' parameters off their initial values")
    s.add_argument("model")
    s.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    return cmd_jitter(a) if a.cmd == "jitter" else cmd_check(entry, a)
