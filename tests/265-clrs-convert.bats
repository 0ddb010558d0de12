#!/usr/bin/env bats
# scripts/clrs_convert.py, Bellman-Ford samples between CLRS's DataPoints
# (.npz) and dar's streams: dar -> clrs -> dar gives the same bytes, ff-trace
# on CLRS's own graphs gives CLRS's own trace, and pipelines/data's CLRS-30
# test split is what ff-trace can score on.  numpy and msgpack only: no venv.
load test_helper

CONVERT() { "$PY" "$ROOT/scripts/clrs_convert.py" "$@"; }

dar_graphs() {
    # p 0.05 leaves unreached nodes and isolated sources; 0.5 dense graphs
    for p in 0.05 0.25 0.5; do
        gen-graphs --instance shortest-paths --family erdos-renyi --nodes 16 --p $p --count 6 --seed 11
    done | ff-trace --algorithm shortest-paths -q
}

@test "clrs_convert: dar -> clrs -> dar is byte-identical, with the trace and re-traced by ff-trace" {
    dar_graphs > "$T/d.mp"
    CONVERT to-clrs "$T/d.mp" "$T/d.npz"
    CONVERT to-dar "$T/d.npz" --trace | cmp - "$T/d.mp"
    CONVERT to-dar "$T/d.npz" | ff-trace --algorithm shortest-paths -q | cmp - "$T/d.mp"
    # from stdin too; CLRS's layout: hints time-major, one frame fewer than dar's
    CONVERT to-clrs "$T/d2.npz" < "$T/d.mp"
    "$PY" - "$T/d2.npz" "$T/d.mp" <<'EOF'
import sys, msgpack, msgpack_numpy, numpy as np
d = np.load(sys.argv[1])
recs = list(msgpack.Unpacker(open(sys.argv[2], "rb"), object_hook=msgpack_numpy.decode, raw=False))
B, n = d["input_s"].shape
assert (B, n) == (18, 16) and d["input_A"].shape == (B, n, n) and d["hint_d"].shape[1:] == (B, n)
assert list(d["lengths"]) == [r["steps"] - 1 for r in recs]
assert np.array_equal(d["input_adj"], ((d["input_A"] + np.eye(n)) != 0) * 1.0)
assert np.array_equal(d["input_pos"][0], np.arange(n) / n)
EOF
}

@test "clrs_convert: ff-trace on CLRS's own Bellman-Ford samples gives CLRS's pi and trace" {
    # tests/fixtures/clrs-bellman-ford-p04.npz: dm-clrs 2.0.3's sampler
    # (clrs_peer.py sample --seed 7 --count 8 --length 16 --p 0.4), with
    # unreached nodes
    F="$ROOT/tests/fixtures/clrs-bellman-ford-p04.npz"
    CONVERT to-dar "$F" | ff-trace --algorithm shortest-paths -q > "$T/ours.mp"
    CONVERT to-dar "$F" --trace > "$T/theirs.mp"
    "$PY" - "$T/ours.mp" "$T/theirs.mp" "$F" <<'EOF'
import sys, msgpack, msgpack_numpy, numpy as np
load = lambda p: list(msgpack.Unpacker(open(p, "rb"), object_hook=msgpack_numpy.decode, raw=False))
ours, theirs, d = load(sys.argv[1]), load(sys.argv[2]), np.load(sys.argv[3])
assert len(ours) == len(theirs) == 8
unreached = 0
for b, (o, t) in enumerate(zip(ours, theirs)):
    assert list(o) == list(t), (list(o), list(t))   # ff-trace's keys, in its order
    assert np.array_equal(o["pi"], np.rint(d["output_pi"][b]).astype(np.int32)), b
    for k in ("steps", "n", "m", "s", "src", "dst", "w", "hint_pi", "hint_reached", "pi", "reached"):
        assert np.array_equal(np.asarray(o[k]), np.asarray(t[k])), (b, k)
    # CLRS adds float64 weights, dar their float32 roundings
    for k in ("d", "hint_d"):
        assert np.abs(o[k] - t[k]).max() < 1e-6, (b, k)
    unreached += int((o["reached"] == 0).sum())
assert unreached > 0
EOF
}

@test "pipelines/data/clrs30-bellman-ford-test.mp: CLRS-30's test split, 32 graphs of 64 nodes, instance keys only" {
    D="$ROOT/pipelines/data/clrs30-bellman-ford-test.mp"
    ff-trace --algorithm shortest-paths -q < "$D" > "$T/t.mp"
    py_stream "$T/t.mp" '
assert len(recs) == 32 and all(r["n"] == 64 for r in recs)
assert [r["id"] for r in recs] == list(range(32))
assert list(recs[0])[:10] == ["kind", "id", "family", "n", "m", "directed", "s", "src", "dst", "w"]
# CLRS stops one frame earlier: 6.375 frames on average there
assert sum(r["steps"] for r in recs) == 236, sum(r["steps"] for r in recs)
w = np.concatenate([r["w"] for r in recs])
assert w.min() > 0.0316 and w.max() < 1.0002   # sqrt(u u'"'"' + 1e-3)
'
    py_stream "$D" 'assert all("steps" not in r for r in recs)'
}

@test "clrs_convert: refusals are one line and a non-zero exit" {
    dar_graphs > "$T/d.mp"
    gen-graphs --instance shortest-paths --family erdos-renyi --nodes 16 --count 2 --seed 1 > "$T/plain.mp"
    run --separate-stderr CONVERT to-clrs "$T/plain.mp" "$T/x.npz"
    [ "$status" -ne 0 ]
    assert_one_line_error clrs_convert
    gen-graphs --instance shortest-paths --family erdos-renyi --nodes 12 --count 1 --seed 1 |
        ff-trace --algorithm shortest-paths -q | cat "$T/d.mp" - > "$T/mixed.mp"
    run --separate-stderr CONVERT to-clrs "$T/mixed.mp" "$T/x.npz"
    [ "$status" -ne 0 ]
    assert_one_line_error clrs_convert
    run --separate-stderr CONVERT to-dar "$T/missing.npz"
    [ "$status" -ne 0 ]
    assert_one_line_error clrs_convert
}

@test "clrs_convert with-predictions: a peer's trees scored by metrics as dar's (the true tree 100 %, a shifted one what it is)" {
    dar_graphs > "$T/d.mp"
    # the true trees as CLRS's --predictions rows, and the same with node 0's pointer moved
    "$PY" - "$T/d.mp" "$T" <<'PY'
import sys, msgpack, msgpack_numpy, numpy as np
recs = list(msgpack.Unpacker(open(sys.argv[1], "rb"), object_hook=msgpack_numpy.decode, raw=False))
pi = np.stack([r["pi"] for r in recs]).astype(np.int32)
np.save(sys.argv[2] + "/true.npy", pi)
bad = pi.copy(); bad[:, 0] = (bad[:, 0] + 1) % bad.shape[1]
np.save(sys.argv[2] + "/moved.npy", bad)
np.save(sys.argv[2] + "/short.npy", pi[:-1])
PY
    CONVERT with-predictions "$T/d.mp" "$T/true.npy" | metrics --quantity pointer_accuracy | mpcat > "$T/true.json"
    run jq -r .value "$T/true.json"
    assert_output 1
    # 18 graphs of 16 nodes, one wrong pointer in each: 1 - 18/288
    CONVERT with-predictions "$T/d.mp" "$T/moved.npy" | metrics --quantity pointer_accuracy | mpcat > "$T/moved.json"
    run jq -r .value "$T/moved.json"
    assert_output 0.9375
    run --separate-stderr CONVERT with-predictions "$T/d.mp" "$T/short.npy"
    [ "$status" -ne 0 ]
    assert_one_line_error clrs_convert
}

@test "clrs_peer: without --cpus a seed's run is pinned to its own CPU (seed * threads on), not every run to CPU 0; a seed past the last CPU takes any" {
    [ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
    for case in 0:1:0 1:1:1 2:1:0,1 3:1:0,1 0:2:0,1 1:2:0,1; do
        IFS=: read -r seed k want <<< "$case"
        run taskset -c 0,1 /usr/bin/python3 -c "
import os, sys
sys.path.insert(0, '$ROOT/tests/bench')
import clrs_peer
clrs_peer.pin_threads($k, None, $seed)
print(','.join(map(str, sorted(os.sched_getaffinity(0)))), os.environ['XLA_FLAGS'])"
        assert_success
        assert_output "$want --xla_cpu_multi_thread_eigen=$([ "$k" = 1 ] && echo false || echo true) intra_op_parallelism_threads=$k --xla_cpu_use_thunk_runtime=false"
    done
}

@test "clrs_peer: --cpus may name more CPUs than threads (the kernel shares them out: three seeds on two CPUs); fewer, repeated or foreign ones are refused in one line" {
    [ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
    for case in 1:0,1:0,1 1:1:1 2:0,1:0,1; do
        IFS=: read -r k cpus want <<< "$case"
        run taskset -c 0,1 /usr/bin/python3 -c "
import os, sys
sys.path.insert(0, '$ROOT/tests/bench')
import clrs_peer
clrs_peer.pin_threads($k, '$cpus', 5)
print(','.join(map(str, sorted(os.sched_getaffinity(0)))), os.environ['XLA_FLAGS'].split()[1])"
        assert_success
        assert_output "$want intra_op_parallelism_threads=$k"
    done
    for case in 2:1 1:0,0 1:0,7 1:x; do
        IFS=: read -r k cpus <<< "$case"
        run --separate-stderr taskset -c 0,1 /usr/bin/python3 -c "
import sys
sys.path.insert(0, '$ROOT/tests/bench')
import clrs_peer
clrs_peer.pin_threads($k, '$cpus', 0)"
        [ "$status" -ne 0 ]
        assert_one_line_error clrs_peer
    done
}
