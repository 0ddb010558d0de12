#!/usr/bin/env bats
# ff-trace: the Ford-Fulkerson trace, against networkx, the reference's worked
# example, the paper's trajectory statistics, bad input and the cache.
load test_helper

@test "maxflow, flow and cut agree with networkx on every family, directed and undirected" {
    {
        gen-graphs --family two-community --nodes 16 --count 60 --seed 11
        gen-graphs --family two-community --nodes 12 --count 30 --seed 12 --directed
        gen-graphs --family two-community --nodes 10 --count 30 --seed 13 --capacity uniform-minmax --density 0.3
        gen-graphs --family bipartite --nodes 16 --count 40 --seed 14
        gen-graphs --family bipartite --nodes 9 --count 20 --seed 15 --directed
        gen-graphs --family erdos-renyi --nodes 20 --count 60 --seed 16 --density 0.12
        gen-graphs --family erdos-renyi --nodes 14 --count 40 --seed 17 --density 0.2 --directed
    } > "$T/g.mp"
    ff-trace < "$T/g.mp" > "$T/t.mp"
    ff-trace --no-hints < "$T/g.mp" > "$T/f.mp"
    run "$PY" - "$T/t.mp" "$T/f.mp" <<'PYEOF'
import sys, msgpack, msgpack_numpy as mn, numpy as np, networkx as nx
def load(p): return list(msgpack.Unpacker(open(p, "rb"), object_hook=mn.decode, raw=False))
traced, fast = load(sys.argv[1]), load(sys.argv[2])
assert len(traced) == len(fast) == 280, len(traced)
disconnected = 0
for r, q in zip(traced, fast):
    n, s, t, sc = r["n"], r["s"], r["t"], r["cap_scale"]
    cap = np.rint(r["cap"].astype(np.float64) * sc).astype(np.int64)
    G = nx.DiGraph() if r["directed"] else nx.Graph()
    G.add_nodes_from(range(n))
    for u, v, c in zip(r["src"], r["dst"], cap):
        G.add_edge(int(u), int(v), capacity=int(c))
    value, (S, Tside) = nx.minimum_cut(G, s, t)
    assert abs(r["maxflow"] * sc - value) < 1e-9, (r["id"], r["maxflow"], value)
    assert abs(q["maxflow"] - r["maxflow"]) < 1e-12
    disconnected += value == 0
    for rec in (r, q):
        f = np.rint(rec["flow"].astype(np.float64) * sc).astype(np.int64)
        assert np.all(np.abs(f) <= cap) and (not r["directed"] or np.all(f >= 0))
        net = np.zeros(n, np.int64)
        np.add.at(net, r["src"], -f); np.add.at(net, r["dst"], f)
        assert all(net[v] == 0 for v in range(n) if v not in (s, t)), net
        assert -net[s] == value
        cut = rec["cut"]
        assert set(np.flatnonzero(cut == 0)) == set(S), (r["id"], cut, S)
    hf = r["hint_flow"]
    assert hf.shape == (r["steps"], r["m"]) and r["hint_mask"].shape == (r["steps"], n)
    assert np.array_equal(hf[-1], r["flow"]) and r["hint_phase"][-1] == 1 and r["hint_phase"][0] == 1
assert disconnected > 0, "no disconnected s-t pair was exercised"
print("ok", len(traced), "graphs,", disconnected, "with s and t disconnected")
PYEOF
    assert_success
    assert_output --partial "ok 280 graphs"
}

@test "the reference's worked 5-node example: T = 17, flow frames 5, 10, 15 with 0.4, 0.1, 0.3" {
    cat > "$T/ex.jsonl" <<'JSON'
{"kind":"graph","id":0,"family":"example","n":5,"m":7,"directed":false,"s":0,"t":4,"src":{"dtype":"<i4","shape":[7],"data":[0,0,1,1,2,3,2]},"dst":{"dtype":"<i4","shape":[7],"data":[1,2,2,3,3,4,4]},"cap":{"dtype":"<f4","shape":[7],"data":[0.5,0.3,0.2,0.4,0.6,0.9,0.1]},"w":{"dtype":"<f4","shape":[7],"data":[0.1,0.5,0.3,0.2,0.4,0.3,0.6]},"cap_scale":10}
JSON
    mpcat --to-msgpack < "$T/ex.jsonl" | ff-trace > "$T/ex.mp"
    run py_stream "$T/ex.mp" '
r = recs[0]
assert r["steps"] == 17, r["steps"]
flow_frames = [i for i, p in enumerate(r["hint_phase"]) if p == 0]
assert flow_frames == [5, 10, 15], flow_frames
hf = r["hint_flow"].astype(np.float64)
value = lambda f: f[0] + f[1]          # edges 0-1 and 0-2 leave s
inc = [round(value(hf[i]) - value(hf[i - 1]), 6) for i in flow_frames]
assert inc == [0.4, 0.1, 0.3], inc
assert abs(r["maxflow"] - 0.8) < 1e-12
assert list(r["cut"]) == [0, 1, 1, 1, 1], r["cut"]
print("ok")'
    assert_success
}

@test "trajectory statistics of the paper's splits lie near the reference's table" {
    # Paper splits (dar-reference.md 1.1): train 1000 x 16, test 128 x 64, bipartite 128 x 64.
    gen-graphs --family two-community --nodes 16 --count 1000 --seed 1 | ff-trace --no-cache > "$T/c16.mp"
    gen-graphs --family two-community --nodes 64 --count 128 --seed 4 | ff-trace --no-cache > "$T/c64.mp"
    gen-graphs --family bipartite --nodes 16 --count 1000 --seed 5 | ff-trace --no-cache > "$T/b16.mp"
    gen-graphs --family bipartite --nodes 64 --count 128 --seed 6 | ff-trace --no-cache > "$T/b64.mp"
    run "$PY" - "$T" <<'PYEOF'
import sys, msgpack, msgpack_numpy as mn, numpy as np
ref = {"c16": (48.1, None), "c64": (587, None), "b16": (40.0, 7.0), "b64": (189, 31)}
out = []
for name in ["c16", "c64", "b16", "b64"]:
    T, aug = [], []
    for r in msgpack.Unpacker(open(f"{sys.argv[1]}/{name}.mp", "rb"), object_hook=mn.decode, raw=False):
        T.append(r["steps"]); aug.append(int((r["hint_phase"] == 0).sum()))
    T, aug = np.array(T), np.array(aug)
    print(f"# {name}: T mean {T.mean():.1f} median {np.median(T):.0f} max {T.max()}, augmentations mean {aug.mean():.1f} max {aug.max()} (reference T mean {ref[name][0]})")
    out.append((name, T.mean(), aug.mean()))
d = dict((n, t) for n, t, _ in out)
assert 44 <= d["c16"] <= 53, d      # exact arithmetic: ~48 (float64 traces: 50.3)
assert 520 <= d["c64"] <= 650, d    # exact: ~587
assert 35 <= d["b16"] <= 45 and 170 <= d["b64"] <= 230, d   # reference 40 and 189
PYEOF
    echo "$output" | grep '^#' >&3 || true
    assert_success
}

bad_graph() { # name, then a jq-free JSON line
    printf '%s\n' "$2" | mpcat --to-msgpack > "$T/$1.mp"
}

G='"kind":"graph","n":3,"m":2,"directed":false'
E='"src":{"dtype":"<i4","shape":[2],"data":[0,1]},"dst":{"dtype":"<i4","shape":[2],"data":[1,2]}'
C='"cap":{"dtype":"<f4","shape":[2],"data":[0.5,0.5]}'

@test "bad graphs: exit 65 naming the record and the key, nothing cached" {
    ok="{$G,\"s\":0,\"t\":2,$E,$C}"
    cases=(
        "s-equals-t|{$G,\"s\":1,\"t\":1,$E,$C}|'s' and 't' are both 1"
        "s-range|{$G,\"s\":7,\"t\":2,$E,$C}|'s' is 7, outside 0..2"
        "t-range|{$G,\"s\":0,\"t\":-1,$E,$C}|'t' is -1, outside 0..2"
        "neg-cap|{$G,\"s\":0,\"t\":2,$E,\"cap\":{\"dtype\":\"<f4\",\"shape\":[2],\"data\":[0.5,-1]}}|'cap' entry 1 is -1"
        "nan-cap|{$G,\"s\":0,\"t\":2,$E,\"cap\":{\"dtype\":\"<f4\",\"shape\":[2],\"data\":[\"nan\",1]}}|'cap' entry 0 is nan"
        "endpoint|{$G,\"s\":0,\"t\":2,\"src\":{\"dtype\":\"<i4\",\"shape\":[2],\"data\":[0,1]},\"dst\":{\"dtype\":\"<i4\",\"shape\":[2],\"data\":[1,5]},$C}|'dst' entry 1 is 5, outside 0..2"
        "short-cap|{$G,\"s\":0,\"t\":2,$E,\"cap\":{\"dtype\":\"<f4\",\"shape\":[1],\"data\":[0.5]}}|'cap' has 1 entries, expected 2"
        "wrong-dtype|{$G,\"s\":0,\"t\":2,\"src\":{\"dtype\":\"<f4\",\"shape\":[2],\"data\":[0,1]},\"dst\":{\"dtype\":\"<i4\",\"shape\":[2],\"data\":[1,2]},$C}|'src' has dtype <f4, expected <i4"
        "self-loop|{$G,\"s\":0,\"t\":2,\"src\":{\"dtype\":\"<i4\",\"shape\":[2],\"data\":[0,1]},\"dst\":{\"dtype\":\"<i4\",\"shape\":[2],\"data\":[1,1]},$C}|edge 1 is a self-loop on node 1"
        "duplicate|{$G,\"s\":0,\"t\":2,\"src\":{\"dtype\":\"<i4\",\"shape\":[2],\"data\":[0,1]},\"dst\":{\"dtype\":\"<i4\",\"shape\":[2],\"data\":[1,0]},$C}|nodes 0 and 1 are joined by more than one edge"
        "vanished-cap|{$G,\"s\":0,\"t\":2,$E,\"cap\":{\"dtype\":\"<f4\",\"shape\":[2],\"data\":[1e30,5]}}|'cap' entry 1 is 5, under 2^-41 of the largest (1e+30)"
        "missing-s|{$G,\"t\":2,$E,$C}|missing key 's'"
        "missing-cap|{$G,\"s\":0,\"t\":2,$E}|missing key 'cap'"
        "wrong-kind|{\"kind\":\"model\",\"n\":3,\"m\":2,\"s\":0,\"t\":2,$E,$C}|'kind' is 'model', expected 'graph'"
    )
    for c in "${cases[@]}"; do
        IFS='|' read -r name json msg <<<"$c"
        { printf '%s\n' "$ok"; printf '%s\n' "$json"; } | mpcat --to-msgpack > "$T/$name.mp"
        run --separate-stderr ff-trace -i "$T/$name.mp" -o "$T/$name.out"
        [ "$status" -eq 65 ] || fail "$name: status $status: $stderr"
        assert_one_line_error ff-trace
        [[ "$stderr" == "ff-trace: '$T/$name.mp': record 1: $msg"* ]] || fail "$name: $stderr"
        run --separate-stderr ff-trace --no-hints -i "$T/$name.mp" -o /dev/null
        [ "$status" -eq 65 ] || fail "$name (--no-hints): status $status"
    done
    # no failure was ever cached: only complete entries, none of them for these inputs
    [ -z "$(find "$DAR_CACHE" -name '*.mp' 2>/dev/null)" ] || fail "a cache entry was written"
    [ -z "$(find "$DAR_CACHE" -name '.tmp*' 2>/dev/null)" ] || fail "a temp file was left"
}

@test "a second run is a cache hit with identical bytes; a changed input byte is a miss" {
    gen-graphs --count 50 --seed 3 > "$T/g.mp"
    run --separate-stderr ff-trace -v -i "$T/g.mp" -o "$T/a.mp"
    assert_success
    [[ "$stderr" == *"cache miss"* ]]
    run --separate-stderr ff-trace -v -o "$T/b.mp" < "$T/g.mp"
    [[ "$stderr" == *"cache hit"* ]]
    cmp "$T/a.mp" "$T/b.mp"
    cat "$T/g.mp" | ff-trace --no-cache | cmp - "$T/a.mp"
    gen-graphs --count 50 --seed 4 > "$T/g2.mp"
    run --separate-stderr ff-trace -v -i "$T/g2.mp" -o /dev/null
    [[ "$stderr" == *"cache miss"* ]]
    run --separate-stderr ff-trace -v --no-hints -i "$T/g.mp" -o /dev/null
    [[ "$stderr" == *"cache miss"* ]]
    [ "$(grep -c '^hit ff-trace' "$DAR_CACHE/log")" -eq 1 ]
}

@test "ff-trace passes unknown keys through and re-tracing replaces its own keys" {
    gen-graphs --count 3 --seed 9 | ff-trace > "$T/a.mp"
    ff-trace < "$T/a.mp" > "$T/b.mp"
    cmp "$T/a.mp" "$T/b.mp"
    mpcat "$T/a.mp" | sed 's/"kind":"graph",/"kind":"graph","note":"keep me",/' | mpcat --to-msgpack | ff-trace --no-hints | mpcat > "$T/c.jsonl"
    [ "$(grep -c '"note":"keep me"' "$T/c.jsonl")" -eq 3 ]
}

# A few thousand graphs of every family, small and large, directed and not,
# interleaved so that batches mix them.
mixed_graphs() {
    local k
    for k in 1 2 3; do
        gen-graphs --family two-community --nodes 16 --count 500 --seed "$k"
        gen-graphs --family two-community --nodes 64 --count 4 --seed "$k" --directed
        gen-graphs --family bipartite --nodes 4 --count 100 --seed "$k"
        gen-graphs --family bipartite --nodes 33 --count 60 --seed "$k" --directed
        gen-graphs --family erdos-renyi --nodes 7 --count 200 --seed "$k" --density 0.4
        gen-graphs --family erdos-renyi --nodes 48 --count 30 --seed "$k" --density 0.1 --directed
        gen-graphs --family two-community --nodes 6 --count 150 --seed "$k" --capacity uniform-minmax
    done
}

@test "--threads: the same bytes at every thread count" {
    mixed_graphs > "$T/g.mp"
    ff-trace --no-cache --threads 1 < "$T/g.mp" > "$T/t1.mp"
    [ "$(mpcat --summary "$T/t1.mp" | wc -l)" -eq 3132 ]
    for j in 2 3 8; do
        ff-trace --no-cache --threads "$j" < "$T/g.mp" | cmp - "$T/t1.mp"
    done
    ff-trace --no-cache < "$T/g.mp" | cmp - "$T/t1.mp"
    ff-trace --no-cache --no-hints --threads 1 < "$T/g.mp" > "$T/f1.mp"
    ff-trace --no-cache --no-hints --threads 2 < "$T/g.mp" | cmp - "$T/f1.mp"
}

@test "--threads: the first bad record in input order is the one named, at every thread count" {
    ok='"kind":"graph","n":3,"m":2,"directed":false,"src":{"dtype":"<i4","shape":[2],"data":[0,1]},"dst":{"dtype":"<i4","shape":[2],"data":[1,2]},"cap":{"dtype":"<f4","shape":[2],"data":[0.5,0.5]}'
    printf '{%s,"s":1,"t":1}\n' "$ok" | mpcat --to-msgpack > "$T/s-equals-t.mp"
    printf '{%s,"s":0,"t":9}\n' "$ok" | mpcat --to-msgpack > "$T/t-range.mp"
    # record 500 is bad, and so are 501 (not even a map) and 700
    { gen-graphs --count 500 --seed 7; cat "$T/s-equals-t.mp"; printf '\x01'
      gen-graphs --count 198 --seed 8; cat "$T/t-range.mp"; gen-graphs --count 299 --seed 9; } > "$T/bad.mp"
    # and the first bad record a reader error, late: record 900 is truncated
    { gen-graphs --count 900 --seed 7; gen-graphs --count 1 --seed 8 | head -c 100; } > "$T/cut.mp"
    for j in 1 2 3 0; do
        run --separate-stderr ff-trace --no-cache --threads "$j" -i "$T/bad.mp" -o /dev/null
        [ "$status" -eq 65 ] || fail "--threads $j: status $status: $stderr"
        assert_one_line_error ff-trace
        [ "$stderr" = "ff-trace: '$T/bad.mp': record 500: 's' and 't' are both 1" ] || fail "--threads $j: $stderr"
        run --separate-stderr ff-trace --no-cache --threads "$j" -i "$T/cut.mp" -o /dev/null
        [ "$status" -eq 65 ] || fail "--threads $j (truncated): status $status: $stderr"
        [ "$stderr" = "ff-trace: '$T/cut.mp': record 900: truncated record at end of input" ] || fail "--threads $j: $stderr"
    done
}

@test "--threads: a bad record just before a read error, and a read error first, are named as with one thread" {
    ok='"kind":"graph","n":3,"m":2,"directed":false,"src":{"dtype":"<i4","shape":[2],"data":[0,1]},"dst":{"dtype":"<i4","shape":[2],"data":[1,2]},"cap":{"dtype":"<f4","shape":[2],"data":[0.5,0.5]}'
    printf '{%s,"s":1,"t":1}\n' "$ok" | mpcat --to-msgpack > "$T/s-equals-t.mp"
    # the workers validate what the reader already read past: record 3 is
    # invalid and record 5 is not msgpack, both in the first batch
    { gen-graphs --count 3 --seed 7; cat "$T/s-equals-t.mp"; gen-graphs --count 1 --seed 8; printf '\xc1'
      gen-graphs --count 50 --seed 9; } > "$T/near.mp"
    { printf '\x01'; gen-graphs --count 50 --seed 9; } > "$T/first.mp"
    # a key that is not a string (found when the record is parsed), after a
    # graph with a key nested 20 deep (the reader hands the rest to msgpack-c)
    gen-graphs --count 1 --seed 5 | /usr/bin/python3 -c 'import msgpack, sys
g = msgpack.unpackb(sys.stdin.buffer.read())
deep = 0
for _ in range(20): deep = [deep]
g["deep"] = deep
sys.stdout.buffer.write(msgpack.packb(g))' > "$T/deep.mp"
    printf '\x82\xa4kind\xa5graph\x07\x01' > "$T/int-key.mp"     # {"kind": "graph", 7: 1}
    cat "$T/deep.mp" "$T/int-key.mp" > "$T/odd.mp"
    { gen-graphs --count 20 --seed 7; cat "$T/deep.mp"; gen-graphs --count 20 --seed 8; } > "$T/deep-ok.mp"
    ff-trace --no-cache --threads 1 < "$T/deep-ok.mp" > "$T/deep1.mp"
    [ "$(mpcat --summary "$T/deep1.mp" | wc -l)" -eq 41 ]
    for j in 2 8; do ff-trace --no-cache --threads "$j" < "$T/deep-ok.mp" | cmp - "$T/deep1.mp"; done
    { gen-graphs --count 20 --seed 7; cat "$T/odd.mp"; gen-graphs --count 20 --seed 8; } > "$T/key.mp"
    { gen-graphs --count 20 --seed 7; printf '\xc6\x00\x10\x00\x00abc'; } > "$T/bin.mp"   # a bin32 of 1 MiB, 3 bytes of it
    for j in 1 2 3 8; do
        for case in "key.mp:record 21: key 1 is not a string" "bin.mp:record 20: truncated record at end of input" \
                    "near.mp:record 3: 's' and 't' are both 1" \
                    "first.mp:record 0: not a map (every record is a map with string keys)"; do
            run --separate-stderr ff-trace --no-cache --threads "$j" -i "$T/${case%%:*}" -o /dev/null
            [ "$status" -eq 65 ] || fail "--threads $j, ${case%%:*}: status $status: $stderr"
            [ "$stderr" = "ff-trace: '$T/${case%%:*}': ${case#*:}" ] || fail "--threads $j, ${case%%:*}: $stderr"
        done
    done
}

@test "--threads: 200 mutated streams end the same way at 1, 2 and 3 threads (status, message, output)" {
    { gen-graphs --count 30 --seed 3; gen-graphs --family bipartite --nodes 20 --count 8 --seed 4; } > "$T/base.mp"
    mkdir "$T/m"
    # truncated, bytes changed, junk inserted, a span deleted: every kind of
    # error (malformed msgpack, huge length headers, truncation, non-string
    # keys, bad tensors, bad graphs), in the reader and in the workers
    /usr/bin/python3 - "$T/base.mp" "$T/m" <<'PY'
import random, sys
src = open(sys.argv[1], "rb").read()
r = random.Random(11)
for i in range(200):
    b = bytearray(src)
    p = r.randrange(len(b))
    kind = i % 4
    if kind == 0:
        del b[p:]
    elif kind == 1:
        for _ in range(r.randrange(1, 4)):
            b[r.randrange(len(b))] = r.randrange(256)
    elif kind == 2:
        b[p:p] = bytes(r.randrange(256) for _ in range(r.randrange(1, 6)))
    else:
        del b[p:p + r.randrange(1, 40)]
    open(f"{sys.argv[2]}/{i}.mp", "wb").write(b)
PY
    local failed=0 i j
    for i in $(seq 0 199); do
        for j in 1 2 3; do
            ff-trace --no-cache --threads "$j" -i "$T/m/$i.mp" -o "$T/out$j.mp" 2> "$T/err$j.txt" && echo 0 > "$T/rc$j" || echo $? > "$T/rc$j"
            [ -s "$T/out$j.mp" ] || : > "$T/out$j.mp"
        done
        for j in 2 3; do
            if ! cmp -s "$T/rc1" "$T/rc$j" || ! cmp -s "$T/err1.txt" "$T/err$j.txt" ||
               { [ "$(cat "$T/rc1")" = 0 ] && ! cmp -s "$T/out1.mp" "$T/out$j.mp"; }; then
                echo "# stream $i, --threads $j: $(cat "$T/rc$j") $(cat "$T/err$j.txt"); one thread: $(cat "$T/rc1") $(cat "$T/err1.txt")" >&3
                failed=$((failed + 1))
            fi
        done
    done
    [ "$failed" -eq 0 ]
}

@test "--threads is not part of the cache key" {
    gen-graphs --count 200 --seed 3 > "$T/g.mp"
    run --separate-stderr ff-trace -v --threads 1 -i "$T/g.mp" -o "$T/a.mp"
    assert_success
    [[ "$stderr" == *"cache miss"* ]]
    run --separate-stderr ff-trace -v --threads 2 -i "$T/g.mp" -o "$T/b.mp"
    assert_success
    [[ "$stderr" == *"cache hit"* ]]
    cmp "$T/a.mp" "$T/b.mp"
}

@test "a trace whose hints would pass the memory bound is refused before it is allocated, exit 65" {
    # 185 bytes declaring 200 million nodes: the trace would need gigabytes
    big="{\"kind\":\"graph\",\"n\":200000000,\"m\":1,\"directed\":false,\"s\":0,\"t\":1,$(printf '%s' \
        '"src":{"dtype":"<i4","shape":[1],"data":[0]},"dst":{"dtype":"<i4","shape":[1],"data":[1]},' \
        '"cap":{"dtype":"<f4","shape":[1],"data":[1]}')}"
    printf '%s\n' "{$G,\"s\":0,\"t\":2,$E,$C}" "$big" | mpcat --to-msgpack > "$T/big.mp"
    # a bound on the address space: an attempt to allocate fails loudly (exit 70);
    # not under AddressSanitizer, whose shadow memory needs more than the bound
    limit="ulimit -v 2000000;"
    [ -n "${DAR_ASAN:-}" ] && limit=""
    for j in 1 2; do
        run --separate-stderr bash -c "$limit ff-trace -j $j --no-cache -i '$T/big.mp' -o /dev/null"
        [ "$status" -eq 65 ] || fail "-j $j: status $status: $stderr"
        assert_one_line_error ff-trace
        [[ "$stderr" == "ff-trace: '$T/big.mp': record 1: the trace's hints would take at least 1.86 GiB"*"over the bound of 1 GiB; --no-hints"* ]] || fail "$stderr"
    done
}

@test "--algorithm names a registered algorithm; max-flow is the default and its trace" {
    gen-graphs --nodes 8 --count 3 --seed 4 > "$T/g.mp"
    ff-trace --no-cache < "$T/g.mp" > "$T/default.mp"
    ff-trace --no-cache --algorithm max-flow < "$T/g.mp" > "$T/named.mp"
    cmp "$T/default.mp" "$T/named.mp"
    run --separate-stderr ff-trace --algorithm no-such < "$T/g.mp"
    [ "$status" -eq 64 ] || fail "status $status"
    [[ "$stderr" == "ff-trace: option '--algorithm' must be one of $(registry_names '|'), got 'no-such'"* ]] || fail "$stderr"
}
