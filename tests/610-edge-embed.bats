#!/usr/bin/env bats
# edge-embed: algorithm reconstruction on a vessel graph, one-step edge
# embeddings (formats/edge-embed.md).
load test_helper

setup() {
    gen-graphs --nodes 8 --count 40 --seed 1 | ff-trace | dar-fit --iters 3 --hidden 8 --batch 4 -q > "$T/m.mp"
    gen-graphs --family vessel --edges 3234 --seed 1 > "$T/v.mp"
}

recon() { # a few reconstruction iterations on the first frames of the trace
    edge-embed --reconstruct -m "$T/m.mp" --iters 3 --max-steps 4 --lr 0.01 --tf-decay 1 "$@" < "$T/v.mp"
}

@test "reconstruction: the loss decreases, only the new encoders change, capacity is no input" {
    recon --log "$T/log.tsv" > "$T/r.mp"
    head -1 "$T/log.tsv" | grep -q $'^iteration\tmask\tpi\tflow_hint\tcut_hint\tflow\tcut\ttotal\tseconds$'
    [ "$(wc -l < "$T/log.tsv")" -eq 4 ]
    awk -F'\t' 'NR == 2 {a = $8} END {if (!($8 < a)) {print "total " a " -> " $8; exit 1}}' "$T/log.tsv"
    "$PY" - "$T/m.mp" "$T/r.mp" <<'EOF'
import sys, msgpack
m, r = (msgpack.unpackb(open(f, "rb").read(), raw=False) for f in sys.argv[1:])
assert r["kind"] == "model" and r["edge_inputs"] == "vessel", r.get("edge_inputs")
pm, pr = m["params"], r["params"]
new = {f"{net}.enc.{k}" for net in ("bf", "flow") for k in ("length", "distance", "curveness")}
assert set(pr) == (set(pm) - {"bf.enc.cap", "flow.enc.cap"}) | new, set(pr) ^ set(pm)
for k in pm:
    if k in pr:
        assert pr[k] == pm[k], f"{k} changed"
for k in new:
    assert pr[k][b"shape"] == [8, 1], pr[k][b"shape"]
p = r["provenance"]
assert p["mode"] == "reconstruct" and p["steps"] == 4 and p["trace_steps"] > 4 and p["augmentations"] >= 1, p
assert p["capacity"] == "cross-section" and p["iterations"] == 3
EOF
}

@test "reconstruction: same input, same bytes; the cache serves a hit with the same log" {
    recon --no-cache > "$T/a.mp"
    recon --log "$T/l1.tsv" > "$T/b.mp"
    cmp "$T/a.mp" "$T/b.mp"
    run -0 --separate-stderr edge-embed --reconstruct -m "$T/m.mp" --iters 3 --max-steps 4 --lr 0.01 --tf-decay 1 \
        -v --log "$T/l2.tsv" -i "$T/v.mp" -o "$T/c.mp"
    [[ "$stderr" == *hit* ]]
    cmp "$T/a.mp" "$T/c.mp"
    diff <(cut -f1-8 "$T/l1.tsv") <(cut -f1-8 "$T/l2.tsv")
    recon --seed 2 --no-cache > "$T/d.mp"
    ! cmp -s "$T/a.mp" "$T/d.mp"
}

@test "embedding: chunks and threads do not change a bit; one record per graph, every key passed through" {
    edge-embed -m "$T/m.mp" < "$T/v.mp" > "$T/e1.mp"
    edge-embed -m "$T/m.mp" --chunk 1000 -j 1 --no-cache < "$T/v.mp" > "$T/e2.mp"
    edge-embed -m "$T/m.mp" --chunk 7 -j 2 --no-cache < "$T/v.mp" > "$T/e3.mp"
    cmp "$T/e1.mp" "$T/e2.mp"
    cmp "$T/e1.mp" "$T/e3.mp"
    py_stream "$T/e1.mp" '
import msgpack
src = list(msgpack.Unpacker(open(sys.argv[1].replace("e1.mp", "v.mp"), "rb"), raw=False, max_buffer_size=0))[0]
r = recs[0]
assert len(recs) == 1 and r["edge_embed"].shape == (3234, 16) and r["edge_embed"].dtype == np.float32
assert list(r)[:-1] == list(src), "keys"
assert np.isfinite(r["edge_embed"]).all() and np.abs(r["edge_embed"]).max() > 0'
}

@test "embedding: equals the sum of dar-step's one-step node states at the endpoints" {
    edge-embed -m "$T/m.mp" < "$T/v.mp" > "$T/e.mp"
    edge-embed -m "$T/m.mp" --node hd < "$T/v.mp" > "$T/hd.mp"
    edge-embed -m "$T/m.mp" --node flow < "$T/v.mp" > "$T/f.mp"
    dar-step -m "$T/m.mp" --embed --embed-step first < "$T/v.mp" > "$T/d.mp"
    "$PY" - "$T" <<'EOF'
import sys, msgpack, msgpack_numpy, numpy as np
rd = lambda f: next(iter(msgpack.Unpacker(open(f"{sys.argv[1]}/{f}", "rb"), object_hook=msgpack_numpy.decode, raw=False, max_buffer_size=0)))
d, H = rd("d.mp"), 8
node = d["embed"]                                     # [x_F; h_BF; h_F], 3H, s and t of the record = double sweep
s, t = d["src"], d["dst"]
for f, cols in (("e.mp", slice(H, 3 * H)), ("hd.mp", slice(0, 3 * H)), ("f.mp", slice(2 * H, 3 * H))):
    E = rd(f)["edge_embed"]
    ref = node[s, cols] + node[t, cols]
    assert E.shape == ref.shape, (f, E.shape)
    assert np.allclose(E, ref, rtol=1e-5, atol=1e-6), (f, np.abs(E - ref).max())
EOF
}

@test "embedding with a reconstructed model: vessel inputs, equal to a PyTorch recomputation" {
    recon > "$T/r.mp"
    edge-embed -m "$T/r.mp" -j 2 < "$T/v.mp" > "$T/e.mp"
    edge-embed -m "$T/m.mp" < "$T/v.mp" > "$T/p.mp"
    ! cmp -s "$T/e.mp" "$T/p.mp"
    run -0 "$PY" "$ROOT/tests/bench/torch_embed.py" "$T/v.mp" "$T/r.mp" --check "$T/e.mp"
    diff=$(awk '/^max_abs_diff/{print $2}' <<< "$output")
    awk -v d="$diff" 'BEGIN {exit !(d < 1e-5)}'
}

@test "bad input: exit 65 with one line, nothing cached" {
    # a model of the wrong kind
    run -65 --separate-stderr edge-embed -m "$T/v.mp" -i "$T/v.mp"
    assert_one_line_error edge-embed
    [[ "$stderr" == *"'kind' is 'graph', expected 'model'"* ]]
    # a no-algo model
    gen-graphs --nodes 8 --count 8 --seed 1 | ff-trace | dar-fit --variant no-algo --iters 1 --hidden 4 --batch 2 -q > "$T/na.mp"
    run -65 --separate-stderr edge-embed -m "$T/na.mp" -i "$T/v.mp"
    assert_one_line_error edge-embed
    [[ "$stderr" == *"no-algo"* ]]
    # a model with CLRS's node update (layer norm, gate), which edge-embed's own pass has not
    gen-graphs --nodes 8 --count 8 --seed 1 | ff-trace | dar-fit --iters 1 --hidden 4 --batch 2 --gate -q > "$T/gate.mp"
    run -65 --separate-stderr edge-embed -m "$T/gate.mp" -i "$T/v.mp"
    assert_one_line_error edge-embed
    [[ "$stderr" == *"gated node update"* ]]
    # a model with triplet messages, which edge-embed's own pass has not either
    gen-graphs --nodes 8 --count 8 --seed 1 | ff-trace | dar-fit --iters 1 --hidden 4 --batch 2 --triplets -q > "$T/tri.mp"
    run -65 --separate-stderr edge-embed -m "$T/tri.mp" -i "$T/v.mp"
    assert_one_line_error edge-embed
    [[ "$stderr" == *"triplet messages"* ]]
    # --reconstruct on a graph without vessel features
    gen-graphs --nodes 8 --count 1 --seed 1 > "$T/g.mp"
    run -65 --separate-stderr edge-embed --reconstruct -m "$T/m.mp" --iters 1 -i "$T/g.mp"
    assert_one_line_error edge-embed
    [[ "$stderr" == *"missing key 'length'"* ]]
    # a reconstructed model on a graph without them, and reconstructing it again
    recon > "$T/r.mp"
    run -65 --separate-stderr edge-embed -m "$T/r.mp" -i "$T/g.mp"
    assert_one_line_error edge-embed
    [[ "$stderr" == *"missing key 'length'"*"vessel"* ]]
    run -65 --separate-stderr edge-embed --reconstruct -m "$T/r.mp" --iters 1 -i "$T/v.mp"
    assert_one_line_error edge-embed
    [[ "$stderr" == *"already vessel features"* ]]
    # no path from s to t: a vessel record without edges; a radius of 0
    "$PY" - "$T" <<'EOF'
import sys, msgpack, msgpack_numpy, numpy as np
d = sys.argv[1]
r = next(iter(msgpack.Unpacker(open(f"{d}/v.mp", "rb"), object_hook=msgpack_numpy.decode, raw=False)))
e = {k: (v[:0] if isinstance(v, np.ndarray) and v.shape[:1] == (r["m"],) else v) for k, v in r.items()}
e["m"] = 0
open(f"{d}/empty.mp", "wb").write(msgpack.packb(e, default=msgpack_numpy.encode))
r["avgRadiusAvg"] = r["avgRadiusAvg"].copy(); r["avgRadiusAvg"][5] = 0
open(f"{d}/zero.mp", "wb").write(msgpack.packb(r, default=msgpack_numpy.encode))
r["avgRadiusAvg"][5] = r["avgRadiusAvg"].max() * 1e-7
open(f"{d}/tiny.mp", "wb").write(msgpack.packb(r, default=msgpack_numpy.encode))
open(f"{d}/two.mp", "wb").write(open(f"{d}/v.mp", "rb").read() * 2)
EOF
    run -65 --separate-stderr edge-embed --reconstruct -m "$T/m.mp" --iters 1 -i "$T/empty.mp"
    assert_one_line_error edge-embed
    [[ "$stderr" == *"no source and sink"* ]]
    run -65 --separate-stderr edge-embed -m "$T/m.mp" -i "$T/empty.mp"
    assert_one_line_error edge-embed
    run -65 --separate-stderr edge-embed --reconstruct -m "$T/m.mp" --iters 1 -i "$T/zero.mp"
    assert_one_line_error edge-embed
    [[ "$stderr" == *"'avgRadiusAvg' entry 5 is 0"* ]]
    # a capacity that would round to 0 units of the largest (a radius 1e-7 of the widest)
    run -65 --separate-stderr edge-embed --reconstruct -m "$T/m.mp" --iters 1 -i "$T/tiny.mp"
    assert_one_line_error edge-embed
    [[ "$stderr" == *"record 0: 'cap' entry 5 is "*", under 2^-41 of the largest"* ]] || fail "$stderr"
    run -65 --separate-stderr edge-embed --reconstruct -m "$T/m.mp" --iters 1 --max-steps 2 -i "$T/two.mp"
    assert_one_line_error edge-embed
    [[ "$stderr" == *"record 1: a second graph record"* ]]
    # usage
    run -64 --separate-stderr edge-embed -i "$T/v.mp"
    run -64 --separate-stderr edge-embed -m "$T/m.mp" --capacity wide -i "$T/v.mp"
    # failures are never cached
    [ -z "$(find "$DAR_CACHE" -name '*.mp' -newer "$T/r.mp" 2>/dev/null)" ]
}

@test "capacity rules: each gives its own trace; unit capacity is integral" {
    for c in cross-section poiseuille unit; do
        edge-embed --reconstruct -m "$T/m.mp" --iters 1 --max-steps 2 --capacity $c < "$T/v.mp" > "$T/$c.mp"
    done
    "$PY" - "$T" <<'EOF'
import sys, msgpack
p = {c: msgpack.unpackb(open(f"{sys.argv[1]}/{c}.mp", "rb").read(), raw=False)["provenance"]
     for c in ("cross-section", "poiseuille", "unit")}
assert p["unit"]["maxflow"] == round(p["unit"]["maxflow"]) >= 1, p["unit"]["maxflow"]
assert 0 < p["poiseuille"]["maxflow"] <= p["cross-section"]["maxflow"] <= p["unit"]["maxflow"], p
assert len({q["s"] for q in p.values()}) == 1
EOF
}
