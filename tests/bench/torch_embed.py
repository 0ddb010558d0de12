#!/usr/bin/python3
"""The peer of `edge-embed` for `make bench`: the same one-step computation
(formats/edge-embed.md §2) written the PyTorch way, with index_select for the
sender/receiver halves of the messages and scatter_reduce('amax') for the
aggregation, on the same graph and weights.  Arcs go in chunks (all A x H
messages at once would not fit: 15.4M arcs x 65 floats x 4 bytes per tensor).

usage: torch_embed.py GRAPH.mp MODEL.mp [--threads N] [--chunk ARCS] [--check EMBEDDED.mp]
Prints 'torch_seconds S' (the computation, reading excluded) and, with
--check, the largest difference to edge-embed's `edge_embed` (small graphs).
Supports what edge-embed supports: primal/dual PGN max models with capacity
or vessel edge inputs, node embedding [h_BF; h_F]."""
import sys, time, argparse, warnings
warnings.filterwarnings("ignore")
import msgpack, msgpack_numpy, numpy as np, torch

ap = argparse.ArgumentParser()
ap.add_argument("graph"); ap.add_argument("model")
ap.add_argument("--threads", type=int, default=1)
ap.add_argument("--chunk", type=int, default=1 << 20)
ap.add_argument("--check")
a = ap.parse_args()
torch.set_num_threads(a.threads)

def first(path):
    with open(path, "rb") as f:
        return next(iter(msgpack.Unpacker(f, object_hook=msgpack_numpy.decode, raw=False,
                                          max_buffer_size=0)))

g, m = first(a.graph), first(a.model)
P = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in m["params"].items()}
H = m["hidden"]
assert m["agg"] == "max" and m["processor"] == "pgn"
vessel = m.get("edge_inputs") == "vessel"
n, E = g["n"], g["m"]
src = torch.from_numpy(g["src"].astype(np.int64)); dst = torch.from_numpy(g["dst"].astype(np.int64))

def minmax(x):
    x = x.astype(np.float64); lo, hi = x.min(), x.max()
    return (x - lo) / (hi - lo) if hi > lo else np.zeros_like(x)

def double_sweep():
    """BFS hop distances (scipy), farthest node with the lowest id, twice."""
    import scipy.sparse as sp, scipy.sparse.csgraph as cg
    A = sp.coo_matrix((np.ones(E), (g["src"], g["dst"])), shape=(n, n)).tocsr()
    A = (A + A.T).tocsr()
    _, lab = cg.connected_components(A, directed=False)
    start = int(np.flatnonzero(lab == np.bincount(lab).argmax())[0])
    def farthest(x):
        d = cg.shortest_path(A, unweighted=True, indices=x)
        d[~np.isfinite(d)] = -1
        return int(np.flatnonzero(d == d.max())[0])
    s = farthest(start)
    return s, farthest(s)

t0 = time.time()
s, t = double_sweep()
feats = {"cap": g["cap"], "w": g["w"]}
if vessel:
    for k in ("length", "distance", "curveness"):
        feats[k] = minmax(g[k]).astype(np.float32)
feats = {k: torch.from_numpy(np.asarray(v, np.float32)) for k, v in feats.items()}
t_setup = time.time() - t0

# arcs: u->v and v->u for every edge, then the self-loops; receiver = index 1
send = torch.cat([src, dst, torch.arange(n)]); recv = torch.cat([dst, src, torch.arange(n)])
A = send.numel()

def node_x(net):
    pos = torch.arange(n, dtype=torch.float32) / n
    x = pos[:, None] * P[f"{net}.enc.pos"][:, 0][None, :]
    x[s] += P[f"{net}.enc.s"][:, 0] + P[f"{net}.enc.mask"][:, 0]
    x[t] += P[f"{net}.enc.t"][:, 0]
    return x

def run(net, hprev):
    z = torch.cat([node_x(net), hprev], 1)
    lin = lambda name, x: torch.nn.functional.linear(x, P[f"{net}.{name}.weight"], P[f"{net}.{name}.bias"])
    An, Bn = lin("proc.m1", z), lin("proc.m2", z)
    names = ["w"] + (["length", "distance", "curveness"] if vessel else ["cap"])
    Me = P[f"{net}.proc.me.weight"]
    agg = torch.full((n, H), -float("inf"))
    for a0 in range(0, A, a.chunk):
        a1 = min(A, a0 + a.chunk)
        snd, rcv = send[a0:a1], recv[a0:a1]
        e = torch.zeros(a1 - a0, H)
        edge = torch.arange(a0, a1)
        on_edge = edge < 2 * E
        eid = torch.where(on_edge, edge % max(E, 1), torch.zeros_like(edge))
        for k in names:
            e += (feats[k][eid] * on_edge)[:, None] * P[f"{net}.enc.{k}"][:, 0][None, :]
        e += (~on_edge).float()[:, None] * P[f"{net}.enc.ptr"][:, 0][None, :]
        pre = An.index_select(0, rcv) + Bn.index_select(0, snd) + torch.nn.functional.linear(e, Me, P[f"{net}.proc.me.bias"])
        msg = torch.relu(lin("proc.l2", torch.relu(lin("proc.l1", torch.relu(pre)))))
        agg.scatter_reduce_(0, rcv[:, None].expand(-1, H), msg, reduce="amax", include_self=True)
    return torch.relu(lin("proc.o1", z) + lin("proc.o2", agg))

with torch.no_grad():
    t1 = time.time()
    hbf = run("bf", torch.zeros(n, H))
    hf = run("flow", hbf)
    node = torch.cat([hbf, hf], 1)
    edge_embed = node.index_select(0, src) + node.index_select(0, dst)
    secs = time.time() - t1
print(f"torch_seconds {secs + t_setup:.2f} (s,t {s},{t}; {A} arcs, H {H}, {a.threads} thread(s))")
if a.check:
    ours = first(a.check)["edge_embed"]
    diff = np.abs(ours - edge_embed.numpy()).max()
    print(f"max_abs_diff {diff:.3g} (scale {np.abs(ours).max():.3g})")
