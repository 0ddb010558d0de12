#!/usr/bin/env bats
# dar-fit and dar-step as tools: determinism, resume, cache, interrupts, bad input.
load test_helper

setup() {
    gen-graphs --nodes 8 --count 40 --seed 1 | ff-trace > "$T/train.mp"
    gen-graphs --nodes 8 --count 8 --seed 2 | ff-trace > "$T/val.mp"
}

fit() { dar-fit --hidden 8 --batch 4 --eval-every 5 --val "$T/val.mp" -q "$@" < "$T/train.mp"; }

@test "same data and seed: bit-identical model bytes, across runs and OPENBLAS_NUM_THREADS 1 and 2" {
    OPENBLAS_NUM_THREADS=1 fit --iters 12 --no-cache > "$T/a.mp"
    OPENBLAS_NUM_THREADS=1 fit --iters 12 --no-cache > "$T/b.mp"
    OPENBLAS_NUM_THREADS=2 fit --iters 12 --no-cache > "$T/c.mp"
    cmp "$T/a.mp" "$T/b.mp"
    cmp "$T/a.mp" "$T/c.mp"
    fit --iters 12 --no-cache --seed 1 > "$T/d.mp"
    ! cmp -s "$T/a.mp" "$T/d.mp"
}

@test "the model record: kind, configuration, parameters, provenance" {
    fit --iters 3 --variant primal --processor mpnn --agg mean > "$T/m.mp"
    run py_stream "$T/m.mp" '
r = recs[0]
assert r["kind"] == "model" and r["variant"] == "primal" and r["processor"] == "mpnn" and r["agg"] == "mean"
assert r["hidden"] == 8 and r["params"]["bf.proc.m1.weight"].shape == (8, 16)
assert "flow.dec.cut.weight" not in r["params"]
p = r["provenance"]
assert p["tool"] == "dar-fit" and p["iterations"] == 3 and p["train_graphs"] == 40 and len(p["train_hash"]) == 32
print("ok")'
    assert_success
}

@test "--resume continues bit-identically" {
    fit --iters 20 --no-cache > "$T/full.mp"
    fit --iters 10 --no-cache > "$T/half.mp"
    fit --iters 20 --no-cache --resume "$T/half.mp" > "$T/resumed.mp"
    cmp "$T/full.mp" "$T/resumed.mp"
    # also across a stop that is not a multiple of --eval-every, and with Adam
    fit --iters 20 --no-cache --optim adam --lr 0.001 > "$T/full-adam.mp"
    fit --iters 7 --no-cache --optim adam --lr 0.001 > "$T/part-adam.mp"
    fit --iters 20 --no-cache --optim adam --lr 0.001 --resume "$T/part-adam.mp" > "$T/resumed-adam.mp"
    cmp "$T/full-adam.mp" "$T/resumed-adam.mp"
    run --separate-stderr fit --iters 20 --variant primal --resume "$T/half.mp"
    [ "$status" -eq 64 ]
    [[ "$stderr" == "dar-fit: --resume model is dual pgn-max H=8, but the options ask for primal"* ]] || fail "$stderr"
}

@test "--lr-schedule cosine: other parameters than constant's, the same across a resume when --lr-horizon names the end; bad uses refused" {
    fit --iters 20 --no-cache --optim adam --lr 0.01 > "$T/constant.mp"
    fit --iters 20 --no-cache --optim adam --lr 0.01 --lr-schedule cosine > "$T/cosine.mp"
    fit --iters 20 --no-cache --optim adam --lr 0.01 --lr-schedule cosine --lr-horizon 20 > "$T/horizon.mp"
    fit --iters 8 --no-cache --optim adam --lr 0.01 --lr-schedule cosine --lr-horizon 20 > "$T/part.mp"
    fit --iters 20 --no-cache --optim adam --lr 0.01 --lr-schedule cosine --lr-horizon 20 --resume "$T/part.mp" > "$T/resumed.mp"
    cmp "$T/horizon.mp" "$T/resumed.mp"
    cat "$T/constant.mp" "$T/cosine.mp" "$T/horizon.mp" "$T/part.mp" > "$T/all.mp"
    run py_stream "$T/all.mp" '
import numpy as np
constant, cosine, horizon, part = recs
same = lambda a, b: all(np.array_equal(a[k], b[k]) for k in a)
assert same(cosine["params"], horizon["params"]), "--lr-horizon 0 is --iters"
assert not same(constant["params"], cosine["params"]), "cosine trained as constant"
print("ok")'
    assert_success
    # a schedule cut at 8 of 20 iterations is not the one that ends at 8
    fit --iters 8 --no-cache --optim adam --lr 0.01 --lr-schedule cosine > "$T/short.mp"
    ! cmp -s "$T/part.mp" "$T/short.mp"
    run --separate-stderr fit --iters 8 --lr-horizon 20
    [ "$status" -eq 64 ]
    [[ "$stderr" == "dar-fit: --lr-horizon applies to --lr-schedule cosine only"* ]] || fail "$stderr"
    run --separate-stderr fit --iters 8 --lr-schedule linear
    [ "$status" -eq 64 ]
}

@test "cached: a second identical run returns the stored model without training" {
    run --separate-stderr fit --iters 15 -v -o "$T/a.mp"
    [[ "$stderr" == *"cache miss"* ]]
    start=$(date +%s%N)
    run --separate-stderr fit --iters 15 -v -o "$T/b.mp"
    [[ "$stderr" == *"cache hit"* ]]
    cmp "$T/a.mp" "$T/b.mp"
    run --separate-stderr fit --iters 15 -v --lr 0.002 -o "$T/c.mp"
    [[ "$stderr" == *"cache miss"* ]]
    # the log comes back from the record on a hit: the same rows, without the timings
    run --separate-stderr fit --iters 16 -v --log "$T/miss.tsv" -o "$T/d.mp"
    [[ "$stderr" == *"cache miss"* ]]
    run --separate-stderr fit --iters 16 -v --log "$T/hit.tsv" -o "$T/e.mp"
    [[ "$stderr" == *"cache hit"* ]]
    cmp "$T/d.mp" "$T/e.mp"
    [ "$(wc -l < "$T/hit.tsv")" -eq 17 ]
    diff <(cut -f1-9 "$T/miss.tsv") <(cut -f1-9 "$T/hit.tsv")
    [ "$(awk -F'\t' 'NR > 1 && $9 != "" {n++} END {print n}' "$T/hit.tsv")" -eq 3 ]   # validated at 5, 10, 15
}

@test "SIGINT or SIGTERM during training leaves no output, no cache entry and no temp file" {
    gen-graphs --nodes 16 --count 100 --seed 3 | ff-trace > "$T/big.mp"
    entries=$(find "$DAR_CACHE" -name '*.mp' | wc -l)     # ff-trace's
    for sig in INT TERM; do
        dar-fit --iters 100000 --batch 32 -q -o "$T/out-$sig.mp" < "$T/big.mp" &
        pid=$!
        # the output's temp file appears once the handlers are installed and
        # the data are being read: interrupt during training, not start-up
        for _ in $(seq 200); do
            compgen -G "$T/out-$sig.mp.tmp.*" >/dev/null && break
            sleep 0.1
        done
        sleep 1
        kill -$sig $pid
        # wait in this shell: `run wait` would ask bats' subshell, which has no
        # such child, and return at once while dar-fit is still cleaning up
        rc=0; wait $pid || rc=$?
        want=$(( 128 + $(kill -l $sig) ))
        [ "$rc" -eq "$want" ] || fail "dar-fit ended with $rc, not $want (killed by SIG$sig)"
        [ ! -e "$T/out-$sig.mp" ] || fail "partial output left"
        [ -z "$(ls "$T" | grep -F "out-$sig.mp.tmp")" ] || fail "temp output left"
        [ "$(find "$DAR_CACHE" -name '*.mp' | wc -l)" -eq "$entries" ] || fail "cache entry left"
        [ -z "$(find "$DAR_CACHE" -name '.tmp*')" ] || fail "cache temp file left"
    done
}

@test "bad input: exit 65 with a message and no cache entry" {
    entries=$(find "$DAR_CACHE" -name '*.mp' | wc -l)     # ff-trace's
    gen-graphs --nodes 8 --count 4 --seed 1 > "$T/untraced.mp"
    run --separate-stderr dar-fit --iters 2 < "$T/untraced.mp"
    [ "$status" -eq 65 ]
    assert_one_line_error dar-fit
    [[ "$stderr" == "dar-fit: record 0: missing key 'steps'"* ]] || fail "$stderr"
    run --separate-stderr dar-fit --iters 2 < /dev/null
    [ "$status" -eq 65 ]
    [[ "$stderr" == "dar-fit: '<stdin>' holds no training graphs" ]] || fail "$stderr"
    mpcat "$T/train.mp" | head -3 | sed '2s/"cap":{"dtype":"<f4","shape":\[\([0-9]*\)\],"data":\[[^],]*/"cap":{"dtype":"<f4","shape":[\1],"data":["nan"/' | mpcat --to-msgpack > "$T/nan.mp"
    run --separate-stderr dar-fit --iters 2 < "$T/nan.mp"
    [ "$status" -eq 65 ]
    [[ "$stderr" == "dar-fit: record 1: 'cap' entry 0 is nan"* ]] || fail "$stderr"
    # a model record of the wrong kind or shape
    run --separate-stderr dar-step --model "$T/train.mp" < "$T/val.mp"
    [ "$status" -eq 65 ]
    [[ "$stderr" == "dar-step: '$T/train.mp': record 0: 'kind' is 'graph', expected 'model'"* ]] || fail "$stderr"
    fit --iters 1 > "$T/m.mp"
    mpcat "$T/m.mp" | sed 's/"hidden":8/"hidden":9/' | mpcat --to-msgpack > "$T/bad-model.mp"
    run --separate-stderr dar-step --model "$T/bad-model.mp" < "$T/val.mp"
    [ "$status" -eq 65 ]
    assert_one_line_error dar-step
    [[ "$stderr" == *"has shape"* ]] || fail "$stderr"
    [ -z "$(find "$DAR_CACHE" -name '.tmp*' 2>/dev/null)" ]
    [ "$(find "$DAR_CACHE" -name '*.mp' | wc -l)" -eq $((entries + 1)) ]     # only the good model
}

@test "bad input: a model file holding a second record is refused by dar-step, edge-embed and --resume" {
    # cat a.mp b.mp used to give a file whose second model was silently ignored
    fit --iters 2 > "$T/a.mp"
    fit --iters 2 --seed 1 > "$T/b.mp"
    cat "$T/a.mp" "$T/b.mp" > "$T/two.mp"
    run -65 --separate-stderr dar-step --model "$T/two.mp" < "$T/val.mp"
    assert_one_line_error dar-step
    [ "$stderr" = "dar-step: '$T/two.mp': record 1: more than one record, expected one" ] || fail "$stderr"
    gen-graphs --family vessel --edges 300 --seed 1 > "$T/v.mp"
    run -65 --separate-stderr edge-embed -m "$T/two.mp" -q < "$T/v.mp"
    assert_one_line_error edge-embed
    [ "$stderr" = "edge-embed: '$T/two.mp': record 1: more than one record, expected one" ] || fail "$stderr"
    run -65 --separate-stderr fit --iters 3 --resume "$T/two.mp"
    assert_one_line_error dar-fit
    [ "$stderr" = "dar-fit: '$T/two.mp': record 1: more than one record, expected one" ] || fail "$stderr"
    [ -z "$(find "$DAR_CACHE" -name '.tmp*' 2>/dev/null)" ]
}

@test "bad input: an error in a second input (--val) names its file; stdin's errors name none" {
    gen-graphs --nodes 8 --count 4 --seed 1 > "$T/untraced.mp"
    run -65 --separate-stderr dar-fit --iters 2 --val "$T/untraced.mp" -q < "$T/train.mp"
    assert_one_line_error dar-fit
    [[ "$stderr" == "dar-fit: '$T/untraced.mp': record 0: missing key 'steps' ("* ]] || fail "$stderr"
    run -65 --separate-stderr dar-fit --iters 2 --val "$T/val.mp" -q -i "$T/untraced.mp"
    [[ "$stderr" == "dar-fit: '$T/untraced.mp': record 0: missing key 'steps' ("* ]] || fail "$stderr"
    run -65 --separate-stderr dar-fit --iters 2 --val "$T/val.mp" -q < "$T/untraced.mp"
    [[ "$stderr" == "dar-fit: record 0: missing key 'steps' ("* ]] || fail "$stderr"
}

@test "dar-step: predictions for any n and m, hints, embeddings, untraced graphs, the random baseline" {
    fit --iters 3 > "$T/m.mp"
    { gen-graphs --nodes 12 --count 2 --seed 5; gen-graphs --family bipartite --nodes 9 --count 2 --seed 6; } > "$T/g.mp"
    ff-trace < "$T/g.mp" | dar-step --model "$T/m.mp" --hints --embed > "$T/p.mp"
    dar-step --model "$T/m.mp" < "$T/g.mp" > "$T/q.mp"
    dar-step --model "$T/m.mp" --embed --embed-step first < "$T/g.mp" > "$T/e.mp"
    dar-step --baseline random --seed 3 < "$T/g.mp" > "$T/r.mp"
    run "$PY" - "$T" <<'PYEOF'
import sys, msgpack, msgpack_numpy as mn, numpy as np
load = lambda f: list(msgpack.Unpacker(open(f"{sys.argv[1]}/{f}", "rb"), object_hook=mn.decode, raw=False))
p, q, e, r = load("p.mp"), load("q.mp"), load("e.mp"), load("r.mp")
for a, b, c, d in zip(p, q, e, r):
    n, m, T = a["n"], a["m"], a["steps"]
    assert a["pred_flow"].shape == (m,) and np.all(np.abs(a["pred_flow"]) <= a["cap"] + 1e-6)
    assert a["pred_cut"].shape == (n,) and np.all((a["pred_cut"] >= 0) & (a["pred_cut"] <= 1))
    assert a["pred_pi"].shape == (T, n) and a["pred_hint_flow"].shape == (T, m)
    assert a["embed"].shape == (n, 24)
    # an untraced graph gets the same phases from the algorithm, so the same prediction
    assert np.array_equal(b["pred_flow"], a["pred_flow"]) and "steps" not in b
    assert c["embed"].shape == (n, 24) and "pred_flow" not in c
    assert np.all(np.abs(d["pred_flow"]) <= d["cap"] + 1e-6) and d["pred_cut"].shape == (n,)
print("ok")
PYEOF
    assert_success
    assert_output ok
}

@test "the model record names its algorithm; a record without the key reads as max-flow, an unknown one is refused" {
    fit --iters 3 --variant dual > "$T/m.mp"
    run py_stream "$T/m.mp" '
import msgpack
r = recs[0]
assert r["algorithm"] == "max-flow" and list(r)[:4] == ["kind", "format", "algorithm", "variant"]
raw = msgpack.unpackb(open(sys.argv[1], "rb").read(), raw=False, strict_map_key=False)
old = {k: v for k, v in raw.items() if k != "algorithm"}
open(sys.argv[1] + ".old", "wb").write(msgpack.packb(old, use_bin_type=True))
bad = dict(raw, algorithm="no-such")
open(sys.argv[1] + ".bad", "wb").write(msgpack.packb(bad, use_bin_type=True))
print("ok")'
    assert_success
    dar-step --no-cache --hints --model "$T/m.mp" < "$T/val.mp" > "$T/new.out"
    dar-step --no-cache --hints --model "$T/m.mp.old" < "$T/val.mp" > "$T/old.out"
    cmp "$T/new.out" "$T/old.out"
    run --separate-stderr dar-step --no-cache --model "$T/m.mp.bad" < "$T/val.mp"
    [ "$status" -eq 65 ] || fail "status $status: $stderr"
    assert_one_line_error dar-step
    [[ "$stderr" == *"'algorithm' is 'no-such', expected one of $(registry_names ', ')" ]] || fail "$stderr"
}

@test "the field's recipe (--pointer-head edge, --layer-norm, --gate, --soft-hints, --clip-norm): recorded, read back, pointers only to neighbours; absent, the key and provenance keep their bytes" {
    gen-graphs --instance shortest-paths --family erdos-renyi --sizes 4,7,11 --law clrs --count 30 --seed 1 \
        | ff-trace --algorithm shortest-paths -q > "$T/sp.mp"
    gen-graphs --instance shortest-paths --family erdos-renyi --nodes 12 --law clrs --count 6 --seed 2 \
        | ff-trace --algorithm shortest-paths -q > "$T/spv.mp"
    recipe=(--pointer-head edge --layer-norm --gate --soft-hints --clip-norm 1 --tf-decay 0 --optim adam --lr 0.001)
    dar-fit --hidden 8 --batch 4 --eval-every 5 --iters 10 --no-cache --val "$T/spv.mp" -q "${recipe[@]}" \
        < "$T/sp.mp" > "$T/m.mp"
    dar-fit --hidden 8 --batch 4 --eval-every 5 --iters 10 --no-cache --val "$T/spv.mp" -q "${recipe[@]}" --threads 2 \
        < "$T/sp.mp" > "$T/m2.mp"
    cmp "$T/m.mp" "$T/m2.mp"
    dar-step --hints --model "$T/m.mp" < "$T/spv.mp" > "$T/pred.mp"
    run py_stream "$T/m.mp" '
r = recs[0]
assert r["pointer_head"] == "edge" and r["layer_norm"] and r["gated"] and r["soft_hints"], r.keys()
p = r["params"]
assert p["bf.dec.pi3.weight"].shape == (8, 8) and p["bf.dec.pi4.weight"].shape == (1, 8)
assert p["bf.proc.ln.scale"].shape == (8,) and p["bf.proc.g3.bias"].shape == (8,)
assert "pointer-head=edge" in r["provenance"]["args"] and "clip-norm=1" in r["provenance"]["args"]
print("ok")'
    assert_success
    # every predicted parent is the node itself or a neighbour
    run py_stream "$T/pred.mp" '
for r in recs:
    adj = {(int(u), int(v)) for u, v in zip(r["src"], r["dst"])}
    for u, v in enumerate(r["pred_pi"]):
        assert u == v or (u, int(v)) in adj or (int(v), u) in adj, (u, v)
print("ok")'
    assert_success
    # without the options the arguments in the key are those of before them
    dar-fit --hidden 8 --batch 4 --iters 2 --no-cache --val "$T/spv.mp" -q < "$T/sp.mp" > "$T/plain.mp"
    run py_stream "$T/plain.mp" '
a = recs[0]["provenance"]["args"]
assert "pointer-head" not in a and "clip-norm" not in a and "layer-norm" not in a and "soft-hints" not in a, a
assert "pointer_head" not in recs[0] and "layer_norm" not in recs[0]
print("ok")'
    assert_success
    # a model record with an unknown pointer head is refused by dar-step
    py_stream "$T/m.mp" '
r = recs[0]; r["pointer_head"] = "dotty"
sys.stdout.buffer.write(msgpack.packb(r, default=msgpack_numpy.encode))' > "$T/bad.mp"
    run dar-step --model "$T/bad.mp" < "$T/spv.mp"
    assert_failure 65
    assert_output --partial "'pointer_head' is 'dotty', expected dot or edge"
}

@test "--keep last: the last iteration's parameters (train_state's), also from a finished run resumed; --keep best writes the bytes of no --keep" {
    fit --iters 30 --lr 0.5 --no-cache > "$T/best.mp"
    fit --iters 30 --lr 0.5 --no-cache --keep last > "$T/last.mp"
    fit --iters 30 --lr 0.5 --no-cache --keep last --resume "$T/best.mp" > "$T/resumed.mp"
    fit --iters 30 --lr 0.5 --no-cache --keep best > "$T/best2.mp"
    cmp "$T/best.mp" "$T/best2.mp"
    cat "$T/best.mp" "$T/last.mp" "$T/resumed.mp" > "$T/three.mp"
    run py_stream "$T/three.mp" '
import numpy as np
best, last, resumed = recs
same = lambda a, b: all(np.array_equal(a[k], b[k]) for k in a) and a.keys() == b.keys()
assert same(last["params"], last["train_state"]["params"])
assert same(resumed["params"], best["train_state"]["params"])
assert same(best["params"], best["train_state"]["best_params"])
assert best["train_state"]["best_iteration"] < 30 and not same(best["params"], last["params"])
assert last["train_state"]["iteration"] == 30 and last["train_state"]["best_iteration"] == best["train_state"]["best_iteration"]
'
    assert_success
    run --separate-stderr fit --iters 3 --keep worst
    [ "$status" -eq 64 ]
}
