#!/usr/bin/env bash
# Regenerate the seed corpora tests/fuzz/corpus/<harness>/ and the fixtures
# tests/fuzz/fixtures/ from the tools in bin/ (make all first): valid records
# of every kind, small, and the bad inputs the bats tests and the first fuzz
# sweep found.  Files are overwritten, never removed: seeds added by hand
# (inputs a fuzzing run found interesting) stay.  Inputs that crashed a
# harness are kept apart, in tests/fuzz/crashes/<harness>/.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PWD/bin:$PATH" DAR_CACHE=off OPENBLAS_NUM_THREADS=1
PY=/usr/bin/python3
C=tests/fuzz/corpus
F=tests/fuzz/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$F"
for h in record tensor graph-fftrace graph-repair graph-metrics graph-darstep graph-matching traced-darfit \
         model-load model-resume checkpoint metric-table jsonl vesselgraph-csv cache-entry; do
    mkdir -p "$C/$h"
done

# ---- valid records of every kind ----
gen-graphs --nodes 6 --count 2 --seed 1 > "$tmp/two-community.mp"
gen-graphs --nodes 6 --count 1 --seed 2 --family bipartite > "$tmp/bipartite.mp"
gen-graphs --nodes 5 --count 1 --seed 3 --family erdos-renyi --directed > "$tmp/directed.mp"
gen-graphs --nodes 6 --count 1 --seed 4 --capacity uniform-minmax > "$tmp/minmax.mp"
cat "$tmp"/two-community.mp "$tmp"/bipartite.mp "$tmp"/directed.mp "$tmp"/minmax.mp > "$tmp/graphs.mp"
ff-trace < "$tmp/graphs.mp" > "$tmp/traced.mp"
ff-trace --no-hints < "$tmp/two-community.mp" > "$tmp/solved.mp"
# shortest paths: an instance, its trace and its solution (the tools tell
# them from max-flow's records)
gen-graphs --instance shortest-paths --family erdos-renyi --nodes 6 --count 2 --seed 5 > "$tmp/sp-instance.mp"
ff-trace --algorithm shortest-paths < "$tmp/sp-instance.mp" > "$tmp/sp-traced.mp"
ff-trace --algorithm shortest-paths --no-hints < "$tmp/sp-instance.mp" > "$tmp/sp-solved.mp"
ff-trace < "$tmp/two-community.mp" > "$F/traced.mp"
dar-fit --variant dual --hidden 4 --iters 2 --batch 1 --optim adam --seed 1 -q < "$F/traced.mp" > "$tmp/model-dual.mp"
# the field's parts (issue 37): the edge pointer head, layer norm, gate, soft hints
dar-fit --variant dual --hidden 4 --iters 2 --batch 1 --optim adam --seed 1 -q --pointer-head edge --layer-norm --gate \
    --soft-hints --clip-norm 1 < "$F/traced.mp" > "$tmp/model-recipe.mp"
dar-fit --variant dual --hidden 4 --iters 2 --batch 1 --optim sgd --seed 1 -q < "$F/traced.mp" > "$tmp/model-dual-sgd.mp"
dar-fit --variant primal --hidden 3 --iters 1 --batch 1 --processor mpnn --agg mean -q < "$F/traced.mp" > "$tmp/model-primal.mp"
dar-fit --variant pipeline --hidden 3 --iters 1 --batch 1 -q < "$F/traced.mp" > "$tmp/model-pipeline.mp"
dar-fit --variant no-algo --hidden 3 --iters 1 --batch 1 --agg sum -q < "$F/traced.mp" > "$tmp/model-no-algo.mp"
dar-step --model "$tmp/model-dual.mp" --hints < "$tmp/traced.mp" > "$tmp/predicted.mp"
flow-fix < "$tmp/predicted.mp" > "$tmp/fixed.mp"
metrics < "$tmp/fixed.mp" > "$tmp/metrics.mp"
metrics --split val --label model=dual < "$tmp/fixed.mp" > "$tmp/metrics-labelled.mp"
"$PY" - "$tmp" <<'PYEOF'
import sys, msgpack, msgpack_numpy as mn, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(1)
m = 12
y = rng.choice(3, size=m).astype(np.uint8)
p = rng.random((m, 3)).astype(np.float32); p /= p.sum(1, keepdims=True)
r = {"kind": "graph", "id": 0, "family": "vessel", "n": m + 1, "m": m, "directed": False,
     "label": y, "pred_label": p.argmax(1).astype(np.uint8), "pred_proba": p,
     "split": rng.choice(3, size=m).astype(np.uint8)}
open(f"{d}/classes.mp", "wb").write(msgpack.packb(r, default=mn.encode))
# tensors of every dtype and a few shapes, one msgpack object each
for name, a in [("f4", np.arange(3, dtype="<f4")), ("f8", np.ones((2, 2), "<f8")),
                ("i4", np.array([-1, 7], "<i4")), ("i8", np.zeros((1, 0, 2), "<i8")),
                ("u1", np.array([[1, 2, 3]], "|u1")), ("b1", np.array([True, False])),
                ("scalar", np.array(2.5, "<f4"))]:
    open(f"{d}/tensor-{name}", "wb").write(msgpack.packb(a, default=mn.encode))
# the keys as str, as some writers spell them
open(f"{d}/tensor-str-keys", "wb").write(msgpack.packb(
    {"nd": True, "type": "<f4", "kind": "", "shape": [2], "data": b"\0\0\0?\0\0\x80?"}))
PYEOF

# ---- known bad inputs (bats tests, the first sweep) ----
"$PY" - "$tmp" <<'PYEOF'
import os, sys, msgpack, msgpack_numpy as mn
d = sys.argv[1]
def load(f, decode=True):
    kw = {"object_hook": mn.decode} if decode else {"strict_map_key": False}
    return list(msgpack.Unpacker(open(f"{d}/{f}", "rb"), raw=False, **kw))
def save(f, recs, decode=True):
    pack = (lambda r: msgpack.packb(r, default=mn.encode)) if decode else (lambda r: msgpack.packb(r, use_bin_type=True))
    open(f"{d}/bad-{f}", "wb").write(b"".join(pack(r) for r in recs))
g = load("fixed.mp")[:1]
for k, v in [("m", -1), ("n", -8), ("m", -2**63), ("maxflow", -1.0), ("s", 99), ("n", 2**40)]:
    h = [dict(r) for r in g]
    h[0][k] = v
    save(f"{k}-{v}", h)
h = [dict(r) for r in g]; h[0]["kind"] = "model"; save("kind-model", h)
h = [dict(r) for r in g]; del h[0]["cap"]; save("no-cap", h)
h = [dict(r) for r in g]; h[0]["src"] = h[0]["src"][:-1]; save("short-src", h)
raw = load("two-community.mp", decode=False)
raw[1]["src"][b"type"] = "<i\n4"; save("dtype-newline", raw, decode=False)
raw[1]["src"][b"type"] = "<i4"; raw[0]["kind"] = "gr\naph\x1b[31m"; save("kind-escape", raw, decode=False)
c = load("classes.mp"); c[0]["m"] = -2**63; save("classes-m", c)
m = load("model-dual.mp"); save("model-twice", m + m)
m = load("model-dual.mp"); m[0]["params"] = {}; save("model-no-params", m)
m = load("model-recipe.mp"); m[0]["pointer_head"] = "dotty"; save("model-pointer-head", m)
m = load("model-recipe.mp"); del m[0]["params"]["bf.dec.pi3.weight"]; save("model-recipe-no-d3", m)
# a checkpoint's train_state keeps the seconds spent (a valid seed and a bad one)
m = load("model-dual-sgd.mp"); m[0]["train_state"]["seconds"] = -1.0; save("seconds-negative", m)
m[0]["train_state"]["seconds"] = 12.5; save("seconds", m); os.rename(f"{d}/bad-seconds", f"{d}/checkpoint-seconds.mp")
PYEOF
head -c 100 "$tmp/traced.mp" > "$tmp/bad-truncated"
printf '\x93\x01\x02\x03' > "$tmp/bad-not-a-map"
printf '\x81\x01\x02' > "$tmp/bad-int-key"
printf '\xdd\xff\xff\xff\xff' > "$tmp/bad-array32-huge"
printf '\xdf\x7f\xff\xff\xff' > "$tmp/bad-map32-huge"
printf '\x81\xa1x\xc6\xff\xff\xff\xff' > "$tmp/bad-bin32-huge"
printf '\xc1' > "$tmp/bad-never-used"
: > "$tmp/empty"

put() {   # harness, files...
    local h=$1; shift
    for f in "$@"; do cp "$tmp/$f" "$C/$h/$f"; done
}
records="two-community.mp bipartite.mp directed.mp minmax.mp traced.mp solved.mp predicted.mp fixed.mp
         metrics.mp classes.mp model-dual.mp"
bad_streams="bad-truncated bad-not-a-map bad-int-key bad-array32-huge bad-map32-huge bad-bin32-huge
             bad-never-used empty bad-dtype-newline bad-kind-escape"
bad_graphs="bad-m--1 bad-n--8 bad-m--9223372036854775808 bad-maxflow--1.0 bad-s-99 bad-n-1099511627776
            bad-kind-model bad-no-cap bad-short-src bad-classes-m"
put record $records $bad_streams
put tensor tensor-f4 tensor-f8 tensor-i4 tensor-i8 tensor-u1 tensor-b1 tensor-scalar tensor-str-keys
for h in graph-fftrace graph-repair graph-metrics graph-darstep; do
    put $h two-community.mp bipartite.mp directed.mp traced.mp predicted.mp fixed.mp classes.mp \
        sp-instance.mp sp-traced.mp sp-solved.mp $bad_streams $bad_graphs
done
put traced-darfit traced.mp solved.mp two-community.mp sp-instance.mp sp-traced.mp sp-solved.mp \
    bad-truncated bad-short-src bad-kind-model empty
put model-load model-dual.mp model-primal.mp model-pipeline.mp model-no-algo.mp model-recipe.mp bad-model-pointer-head \
    bad-model-recipe-no-d3 bad-model-twice \
    bad-model-no-params bad-truncated bad-not-a-map empty two-community.mp
put model-resume model-dual.mp model-dual-sgd.mp model-primal.mp model-recipe.mp bad-model-twice bad-model-no-params empty
# checkpoints: model records, which the harness also tries sealed for its key
put checkpoint model-dual.mp model-dual-sgd.mp model-primal.mp bad-model-twice empty checkpoint-seconds.mp bad-seconds-negative
put metric-table metrics.mp metrics-labelled.mp bad-not-a-map empty fixed.mp
for f in graphs.mp metrics.mp classes.mp model-dual.mp; do
    # whole, then cut: head closing the pipe would kill mpcat (SIGPIPE, and pipefail)
    mpcat < "$tmp/$f" > "$tmp/${f%.mp}.jsonl"
    head -c 6000 "$tmp/${f%.mp}.jsonl" > "$C/jsonl/${f%.mp}.jsonl"
done
printf '{"kind": "x", "t": {"dtype": "<f4", "shape": [2], "data": [1, "nan"]}, "b": {"$bin": "00ff"}}\n' > "$C/jsonl/tensor-bin.jsonl"
printf '{"a": 1}\n[1, 2]\n' > "$C/jsonl/bad-not-object.jsonl"
printf '{"a": \n' > "$C/jsonl/bad-truncated.jsonl"

# vertex cover: instances with noisy predictions of a cover and a packing
# (and the keys metrics reads), their repair, and bad ones
{ gen-graphs --instance vertex-cover --family barabasi-albert --nodes 7 --count 2 --seed 1
  gen-graphs --instance vertex-cover --family star --nodes 5 --count 1 --seed 2; } > "$tmp/vc.mp"
"$PY" - "$tmp/vc.mp" "$C/graph-repair" <<'PYEOF'
import sys, msgpack, msgpack_numpy as mn, numpy as np
rng = np.random.default_rng(2)
recs = list(msgpack.Unpacker(open(sys.argv[1], "rb"), object_hook=mn.decode, raw=False))
for r in recs:
    r["pred_cover"] = rng.random(r["n"]).astype(np.float32)
    r["pred_packing"] = rng.normal(0.2, 0.3, r["m"]).astype(np.float32)
    r["cover"] = np.ones(r["n"], np.uint8)
    r["opt_weight"], r["opt_status"] = float(r["node_w"].sum()) / 2, "optimal"
def put(name, rs):
    open(f"{sys.argv[2]}/{name}", "wb").write(b"".join(msgpack.packb(x, default=mn.encode) for x in rs))
put("predicted-vc.mp", recs)
put("predicted-vc-u8.mp", [dict(recs[0], pred_cover=recs[0]["cover"], pred_packing=np.zeros(recs[0]["m"]))])
put("bad-vc-nan.mp", [dict(recs[0], pred_packing=np.full(recs[0]["m"], np.nan, np.float32))])
put("bad-vc-short.mp", [dict(recs[0], pred_cover=np.zeros(2, np.float32))])
put("bad-vc-status.mp", [dict(recs[0], opt_status="maybe")])
put("bad-vc-negative-w.mp", [dict(recs[0], node_w=-recs[0]["node_w"])])
put("bad-vc-no-w.mp", [{k: v for k, v in recs[0].items() if k != "node_w"}])
PYEOF
cover-fix < "$C/graph-repair/predicted-vc.mp" > "$C/graph-repair/fixed-vc.mp"
cp "$C/graph-repair/fixed-vc.mp" "$C/graph-metrics/fixed-vc.mp"

# min-cost flow: traced records of both sets (undirected, DAGs with
# negative costs), a --no-hints solution, a dar-step prediction of a small
# dual model, the random baseline's prediction repaired by cost-fix (with
# potentials, and without: no certificate), and bad ones
gen-graphs --instance min-cost-flow --family erdos-renyi --nodes 6 --count 2 --seed 1 > "$tmp/mcf-instance.mp"
gen-graphs --instance min-cost-flow --family two-community --nodes 6 --count 2 --seed 2 --directed > "$tmp/mcf-dag-instance.mp"
ff-trace --algorithm min-cost-flow < "$tmp/mcf-instance.mp" > "$tmp/mcf-traced.mp"
ff-trace --algorithm min-cost-flow < "$tmp/mcf-dag-instance.mp" > "$tmp/mcf-dag-traced.mp"
ff-trace --algorithm min-cost-flow --no-hints < "$tmp/mcf-dag-instance.mp" > "$tmp/mcf-solved.mp"
dar-fit --variant dual --hidden 4 --iters 1 --batch 1 --seed 1 -q < "$tmp/mcf-traced.mp" > "$tmp/mcf-model.mp"
dar-step --model "$tmp/mcf-model.mp" --hints < "$tmp/mcf-dag-traced.mp" > "$tmp/mcf-predicted.mp"
dar-step --baseline random --algorithm min-cost-flow --seed 1 < "$tmp/mcf-traced.mp" > "$tmp/mcf-random.mp"
cost-fix < "$tmp/mcf-random.mp" > "$tmp/mcf-fixed.mp"
cost-fix --potential-key none < "$tmp/mcf-random.mp" > "$tmp/mcf-fixed-primal.mp"
"$PY" - "$tmp" <<'PYEOF'
import sys, msgpack, msgpack_numpy as mn, numpy as np
d = sys.argv[1]
recs = list(msgpack.Unpacker(open(f"{d}/mcf-random.mp", "rb"), object_hook=mn.decode, raw=False))
def put(name, rs):
    open(f"{d}/{name}", "wb").write(b"".join(msgpack.packb(x, default=mn.encode) for x in rs))
r = recs[0]
put("bad-mcf-negative-cost-undirected.mp", [dict(r, cost=-r["cost"])])
put("bad-mcf-cost-overflow.mp", [dict(r, cap=np.full(r["m"], 1e7, np.float32), cost=np.full(r["m"], 1e12, np.float32))])
put("bad-mcf-cost-scale.mp", [dict(r, cost=r["cost"] + np.float32(1e-7))])
put("bad-mcf-no-path.mp", [dict(r, cap=np.zeros(r["m"], np.float32))])
put("bad-mcf-potential-huge.mp", [dict(r, pred_potential=np.full(r["n"], 1e30, np.float32))])
put("bad-mcf-no-cost.mp", [{k: v for k, v in r.items() if k != "cost"}])
PYEOF
mcf_bad="bad-mcf-negative-cost-undirected.mp bad-mcf-cost-overflow.mp bad-mcf-cost-scale.mp bad-mcf-no-path.mp
         bad-mcf-potential-huge.mp bad-mcf-no-cost.mp"
# the rounds trace (ff-trace --sp-rounds, hint_phase) and the phases its reader refuses
ff-trace --algorithm min-cost-flow --sp-rounds < "$tmp/mcf-instance.mp" > "$tmp/mcf-rounds.mp"
"$PY" tests/fuzz/bad_phases.py "$tmp/mcf-rounds.mp" "$tmp" bad-mcf-phase length value first last twice none steps
mcf_rounds="mcf-rounds.mp bad-mcf-phase-length bad-mcf-phase-value bad-mcf-phase-first bad-mcf-phase-last
            bad-mcf-phase-twice bad-mcf-phase-none bad-mcf-phase-steps"
put graph-fftrace mcf-instance.mp mcf-dag-instance.mp mcf-traced.mp mcf-rounds.mp $mcf_bad
put graph-darstep mcf-instance.mp mcf-traced.mp mcf-dag-traced.mp mcf-solved.mp $mcf_bad $mcf_rounds
put graph-repair mcf-predicted.mp mcf-random.mp mcf-fixed.mp $mcf_bad
put graph-metrics mcf-fixed.mp mcf-fixed-primal.mp
put traced-darfit mcf-traced.mp mcf-dag-traced.mp mcf-solved.mp bad-mcf-negative-cost-undirected.mp $mcf_rounds
put model-load mcf-model.mp

# the VesselGraph pair: nodes, a NUL byte, edges
cols="length;distance;curveness;volume;avgCrossSection;minRadiusAvg;minRadiusStd;avgRadiusAvg;avgRadiusStd;maxRadiusAvg;maxRadiusStd;roundnessAvg;roundnessStd"
{ printf 'pos_z;id;pos_y;extra;pos_x\n0;1;0;x;1\n0;0;0;y;0\n0;2;1;z;1\n0;3;0;w;2\n\0'
  echo "node2id;node1id;$cols"
  echo "1;0;1;1;1;1;1;2;0;3;0;4;0;0.5;0.1"
  echo "1;3;1;1;1;1;1;6;0;8;0;9;0;0.5;0.1"
  echo "2;1;1;1;1;1;1;14;0;16;0;18;0;0.5;0.1"; } > "$C/vesselgraph-csv/four-nodes"
{ printf 'id;pos_x;pos_y;pos_z\n0;0;0;0\n1;1;0;0\n2;2;0;0\n\0'
  echo "id;node1id;node2id;$cols"
  echo "0;0;1;1;1;1;1;1;2;0;3;0;4;0;0.5;0.1"
  echo "1;1;2;1;nan;1;1;1;2;0;3;0;4;0;0.5;0.1"; } > "$C/vesselgraph-csv/bad-nan"
{ printf 'id;pos_x;pos_y\n0;0;0\n\0'; echo "node1id;node2id"; } > "$C/vesselgraph-csv/bad-no-column"

# matching instances and traces (graph-matching): valid, solved, and the
# bad inputs 270-matching refuses
gen-graphs --instance matching --family bipartite-sides --sides 3,4 --p 0.5 --count 2 --seed 1 > "$C/graph-matching/instances"
ff-trace --algorithm matching < "$C/graph-matching/instances" > "$C/graph-matching/traced"
ff-trace --algorithm matching --no-hints < "$C/graph-matching/instances" > "$C/graph-matching/solved"
# and random predictions of them, with and without a cover, for match-fix (graph-repair)
dar-step --baseline random --algorithm matching --seed 1 < "$C/graph-matching/instances" > "$C/graph-repair/predicted-matching.mp"
"$PY" - "$C/graph-matching" <<'PYEOF'
import sys, msgpack, msgpack_numpy, numpy as np
d = sys.argv[1]
recs = list(msgpack.Unpacker(open(d + "/traced", "rb"), object_hook=msgpack_numpy.decode, raw=False))
def dump(name, r):
    open(d + "/" + name, "wb").write(msgpack.packb(r, default=msgpack_numpy.encode, use_bin_type=True))
r = dict(recs[0]); del r["side"]; dump("bad-no-side", r)
r = dict(recs[0]); r["side"] = r["side"].copy(); r["side"][1] = 1; dump("bad-inside", r)
r = dict(recs[0]); r["side"] = r["side"][:3].copy(); dump("bad-short-side", r)
r = dict(recs[0]); r["steps"] = 99; dump("bad-steps", r)
r = dict(recs[0]); r["hint_pi"] = r["hint_pi"].copy(); r["hint_pi"][0, 0] = 7; dump("bad-pointer", r)
r = dict(recs[0]); r["hint_match"] = r["hint_match"][:1].copy(); dump("bad-hint-shape", r)
r = dict(recs[0]); r["match"] = r["match"].copy(); r["match"][0] = 2; dump("bad-match-flag", r)
r = dict(recs[0]); r["n"] = 200000000; dump("bad-huge-n", r)
PYEOF
# the layered trace (ff-trace --bfs-layers, hint_phase) and the phases its reader refuses
ff-trace --algorithm matching --bfs-layers < "$C/graph-matching/instances" > "$C/graph-matching/layered"
"$PY" tests/fuzz/bad_phases.py "$C/graph-matching/layered" "$C/graph-matching" bad-phase length value first last twice steps

# cache entries: the harness's key, valid (written by the harness itself on
# a miss) and damaged ways
key_entry=$(FUZZ_KEEP_ENTRY="$tmp/entry" build/fuzz/fuzz/cache-entry "$C/record/empty" >/dev/null 2>&1; cat "$tmp/entry" 2>/dev/null | xxd -p | tr -d '\n')
if [ -n "$key_entry" ]; then
    cp "$tmp/entry" "$C/cache-entry/valid"
    head -c -1 "$tmp/entry" > "$C/cache-entry/bad-short"
    { printf 'X'; tail -c +2 "$tmp/entry"; } > "$C/cache-entry/bad-payload"
fi
cp "$tmp/empty" "$C/cache-entry/empty"
printf 'DARCACH1' > "$C/cache-entry/bad-magic-only"
printf 'DARCKPT1' > "$C/checkpoint/bad-magic-only"
echo "corpus: $(find "$C" -type f | wc -l) files, $(du -sh "$C" | cut -f1)"
