#!/usr/bin/env bats
# gen-graphs: options, determinism, prefix property, Python interop of every
# family, the terminal refusal and the cache for large outputs.
# Binary output always goes to files: $output drops NUL bytes.
load test_helper

@test "gen-graphs --help lists every option with its default, --version answers" {
    run --separate-stderr gen-graphs --help
    assert_success
    for opt in --family --nodes --count --seed --density --inter-density --directed \
               --capacity --output --force --no-cache --verbose --quiet --progress; do
        assert_output --partial -- "$opt"
    done
    assert_output --partial "two-community|bipartite|erdos-renyi"
    assert_output --partial "max-of-two|uniform-minmax"
    assert_output --partial "(default: 0.75)"
    run --separate-stderr gen-graphs --version
    assert_success
    assert_output --regexp '^gen-graphs \(dar\) [0-9.]+$'
}

@test "bad options and values are usage errors (exit 64)" {
    run --separate-stderr gen-graphs --bogus
    [ "$status" -eq 64 ]
    [[ "$stderr" == "gen-graphs: unknown option '--bogus'"* ]]
    for args in "--family triangle" "--capacity gauss" "--density 1.5" "--inter-density -0.1" \
                "--nodes 1" "--nodes abc" "--count -1" "--quiet --progress" "extra-operand"; do
        run --separate-stderr gen-graphs $args -o "$T/x.mp"
        [ "$status" -eq 64 ] || fail "'$args' exited $status: $stderr"
        [[ "$stderr" == "gen-graphs: "* ]] || fail "'$args': $stderr"
    done
}

@test "--nodes 15 --family two-community is a usage error saying n must be even" {
    run --separate-stderr gen-graphs --nodes 15 --family two-community -o "$T/odd.mp"
    [ "$status" -eq 64 ]
    [[ "$stderr" == "gen-graphs: family 'two-community' needs an even number of nodes"*"got 15"* ]] || fail "$stderr"
    assert_file_not_exists "$T/odd.mp"
    # an odd bipartite or erdos-renyi graph is fine
    gen-graphs --nodes 15 --family bipartite > "$T/b.mp"
    gen-graphs --nodes 15 --family erdos-renyi > "$T/e.mp"
}

@test "same seed twice is bit-identical; another seed differs" {
    gen-graphs --count 50 --seed 7 > "$T/a.mp"
    gen-graphs --count 50 --seed 7 > "$T/b.mp"
    gen-graphs --count 50 --seed 8 > "$T/c.mp"
    cmp "$T/a.mp" "$T/b.mp"
    ! cmp -s "$T/a.mp" "$T/c.mp" || fail "seeds 7 and 8 gave the same output"
    # -o FILE writes the same bytes as stdout
    gen-graphs --count 50 --seed 7 -o "$T/d.mp"
    cmp "$T/a.mp" "$T/d.mp"
}

@test "--count 10 is a byte prefix of --count 100, for every family" {
    for fam in two-community bipartite erdos-renyi; do
        gen-graphs --family "$fam" --count 10 --seed 3 > "$T/10.mp"
        gen-graphs --family "$fam" --count 100 --seed 3 > "$T/100.mp"
        size=$(stat -c %s "$T/10.mp")
        [ "$size" -gt 0 ]
        head -c "$size" "$T/100.mp" | cmp - "$T/10.mp" || fail "$fam: not a prefix"
        [ "$(stat -c %s "$T/100.mp")" -gt "$size" ]
    done
    gen-graphs --count 0 > "$T/0.mp"
    assert_file_empty "$T/0.mp"
}

@test "every family and option decodes in Python with the documented keys, dtypes and shapes" {
    for fam in two-community bipartite erdos-renyi; do
        for extra in "" "--directed" "--capacity uniform-minmax" "--nodes 64"; do
            gen-graphs --family "$fam" --count 20 --seed 1 $extra > "$T/g.mp"
            directed=False; [[ "$extra" == --directed ]] && directed=True
            n=16; [[ "$extra" == "--nodes 64" ]] && n=64
            py_stream "$T/g.mp" "
fam, directed, n = '$fam', $directed, $n
assert len(recs) == 20, len(recs)
for k, r in enumerate(recs):
    assert list(r) == ['kind','id','family','n','m','directed','s','t','src','dst','cap','w','cap_scale'], list(r)
    assert r['kind'] == 'graph' and r['id'] == k and r['family'] == fam and r['n'] == n
    assert r['directed'] is directed
    m = r['m']
    for key, dt in (('src', np.int32), ('dst', np.int32), ('cap', np.float32), ('w', np.float32)):
        a = r[key]
        assert isinstance(a, np.ndarray) and a.dtype == dt and a.shape == (m,), (key, a.dtype, a.shape)
    src, dst = r['src'].astype(np.int64), r['dst'].astype(np.int64)
    assert ((src >= 0) & (src < n) & (dst >= 0) & (dst < n) & (src != dst)).all()
    key = src * n + dst
    assert (np.diff(key) > 0).all(), 'edges not sorted by (src,dst) or repeated'
    if not directed:
        assert (src < dst).all()
    assert ((r['w'] >= 0) & (r['w'] < 1)).all()
    assert ((r['cap'] >= 0) & (r['cap'] <= 1)).all()
    k_int = r['cap'].astype(np.float64) * r['cap_scale']
    assert np.allclose(k_int, np.round(k_int), atol=1e-5), 'cap * cap_scale not integral'
    assert r['s'] != r['t'] and 0 <= r['s'] < n and 0 <= r['t'] < n
"
        done
    done
}

@test "two-community: s in the first community, t beyond node h, an inter-community edge, density ~ 0.9375" {
    gen-graphs --count 300 --seed 2 > "$T/g.mp"
    py_stream "$T/g.mp" '
within = pairs = 0
for r in recs:
    n = r["n"]; h = n // 2
    assert 0 <= r["s"] < h and h < r["t"] < n, (r["s"], r["t"])
    a, b = r["src"] < h, r["dst"] < h
    assert (a != b).any(), "no inter-community edge"
    within += int((a == b).sum()); pairs += 2 * h * (h - 1) // 2
    c10 = r["cap"].astype(np.float64) * 10
    assert r["cap_scale"] == 10 and (np.abs(c10 - np.round(c10)) < 1e-5).all()
    assert 1 <= np.round(c10).min() and np.round(c10).max() <= 9
d = within / pairs
assert abs(d - 0.9375) < 0.01, d
'
}

@test "bipartite: s=0, t=n-1, s-A and B-t complete, only A-B otherwise, every B covered, unit capacities" {
    for n in 16 64; do
        gen-graphs --family bipartite --nodes $n --count 50 > "$T/b.mp"
        py_stream "$T/b.mp" "
n = $n
m2 = (n - 2) // 2
A = set(range(1, m2 + 1)); B = set(range(m2 + 1, n - 1))
for r in recs:
    assert r['s'] == 0 and r['t'] == n - 1 and r['cap_scale'] == 1
    assert (r['cap'] == 1).all()
    E = set(zip(r['src'].tolist(), r['dst'].tolist()))
    assert {(0, a) for a in A} <= E and {(b, n - 1) for b in B} <= E
    ab = E - {(0, a) for a in A} - {(b, n - 1) for b in B}
    assert all(u in A and v in B for u, v in ab), ab
    assert {v for _, v in ab} == B
"
    done
}

@test "the maximum flow of generated graphs is positive (networkx)" {
    gen-graphs --count 30 --seed 4 > "$T/g.mp"
    gen-graphs --family bipartite --count 10 --seed 4 >> "$T/g.mp"
    py_stream "$T/g.mp" '
import networkx as nx
for r in recs:
    G = nx.Graph()
    G.add_nodes_from(range(r["n"]))
    for u, v, c in zip(r["src"].tolist(), r["dst"].tolist(), r["cap"].tolist()):
        G.add_edge(u, v, capacity=c)
    assert nx.maximum_flow_value(G, r["s"], r["t"]) > 0, r["id"]
'
}

@test "changing --capacity keeps structure, weights, s and t" {
    gen-graphs --count 20 > "$T/a.mp"
    gen-graphs --count 20 --capacity uniform-minmax > "$T/b.mp"
    "$PY" - "$T/a.mp" "$T/b.mp" <<'PYEOF'
import sys, msgpack, msgpack_numpy, numpy as np
load = lambda p: list(msgpack.Unpacker(open(p, "rb"), object_hook=msgpack_numpy.decode, raw=False))
for a, b in zip(load(sys.argv[1]), load(sys.argv[2])):
    for k in ("m", "s", "t"): assert a[k] == b[k]
    for k in ("src", "dst", "w"): assert (a[k] == b[k]).all()
    assert b["cap"].min() == 0 and b["cap"].max() == 1
PYEOF
}

@test "--capacity zero-one: bipartite's edges 0 or 1 (the paper's text), the same graphs otherwise; other families refuse it" {
    gen-graphs --family bipartite --nodes 64 --count 16 --seed 104 > "$T/ones.mp"
    gen-graphs --family bipartite --nodes 64 --count 16 --seed 104 --capacity zero-one > "$T/zo.mp"
    "$PY" - "$T/ones.mp" "$T/zo.mp" <<'PYEOF'
import sys, msgpack, msgpack_numpy, numpy as np, networkx as nx
load = lambda p: list(msgpack.Unpacker(open(p, "rb"), object_hook=msgpack_numpy.decode, raw=False))
flows = set()
for a, b in zip(load(sys.argv[1]), load(sys.argv[2])):
    for k in ("m", "s", "t"): assert a[k] == b[k]
    for k in ("src", "dst", "w"): assert (a[k] == b[k]).all()
    assert (a["cap"] == 1).all()
    assert set(np.unique(b["cap"]).tolist()) == {0.0, 1.0}, np.unique(b["cap"])
    G = nx.DiGraph()
    for u, v, c in zip(b["src"].tolist(), b["dst"].tolist(), b["cap"].tolist()):
        G.add_edge(u, v, capacity=c); G.add_edge(v, u, capacity=c)
    flows.add(nx.maximum_flow_value(G, b["s"], b["t"]))
# all ones: the max flow of a 64-node graph is 31 on every one; 0 or 1: it varies
assert len(flows) > 3, flows
PYEOF
    run --separate-stderr gen-graphs --family two-community --capacity zero-one -o "$T/x.mp"
    [ "$status" -eq 64 ]
    [[ "$stderr" == "gen-graphs: capacity law 'zero-one' is the bipartite family's, not 'two-community''s"* ]] || fail "$stderr"
    [ ! -e "$T/x.mp" ]
}

@test "refuses to write msgpack to a terminal; -f overrides" {
    command -v script >/dev/null || skip "script(1) not installed"
    run script -qec "$DAR_BIN/gen-graphs" /dev/null
    [ "$status" -eq 64 ] || fail "exit $status: $output"
    assert_output --partial "refusing to write binary msgpack to a terminal"
    run script -qec "$DAR_BIN/gen-graphs -f --count 1" /dev/null
    assert_success
}

@test "a closed pipe ends gen-graphs quietly" {
    run --separate-stderr bash -c 'gen-graphs --count 200000 --no-cache | head -c 100 > /dev/null'
    assert_success
    [ -z "$stderr" ] || fail "stderr: $stderr"
}

@test "large outputs are cached (miss then hit, same bytes); small ones and --no-cache are not" {
    # 4096^2 node pairs is above the cache threshold; the output itself is small.
    big="--family erdos-renyi --nodes 4096 --density 0.0005"
    run --separate-stderr gen-graphs $big -v -o "$T/a.mp"
    assert_success
    [[ "$stderr" == *"cache miss"* ]] || fail "$stderr"
    run --separate-stderr gen-graphs $big -v -o "$T/b.mp"
    assert_success
    [[ "$stderr" == *"cache hit"* ]] || fail "$stderr"
    cmp "$T/a.mp" "$T/b.mp"
    run --separate-stderr gen-graphs $big --no-cache -v -o "$T/c.mp"
    [[ "$stderr" != *"cache hit"* ]] || fail "$stderr"
    cmp "$T/a.mp" "$T/c.mp"
    # another seed is another entry
    run --separate-stderr gen-graphs $big --seed 1 -v -o "$T/d.mp"
    [[ "$stderr" == *"cache miss"* ]] || fail "$stderr"
    ! cmp -s "$T/a.mp" "$T/d.mp" || fail "seeds 0 and 1 gave the same output"
    entries=$(find "$DAR_CACHE" -name '*.mp' | wc -l)
    gen-graphs --count 10 -v -o "$T/small.mp" 2> "$T/err"
    [ "$(find "$DAR_CACHE" -name '*.mp' | wc -l)" -eq "$entries" ]
    ! grep -q "cache hit\|cache miss" "$T/err" || fail "small output went through the cache"
}

@test "a corrupt cache entry is a miss and is replaced" {
    big="--family erdos-renyi --nodes 4096 --density 0.0005"
    gen-graphs $big -o "$T/a.mp"
    entry=$(find "$DAR_CACHE" -name '*.mp' | head -1)
    [ -n "$entry" ]
    printf 'garbage' | dd of="$entry" bs=1 seek=10 conv=notrunc 2>/dev/null
    run --separate-stderr gen-graphs $big -v -o "$T/b.mp"
    assert_success
    [[ "$stderr" == *"cache miss"* ]] || fail "$stderr"
    cmp "$T/a.mp" "$T/b.mp"
}

@test "--progress draws a progress line on stderr, --quiet none" {
    gen-graphs --count 2000 --progress -o "$T/a.mp" 2> "$T/err"
    grep -q "graphs" "$T/err"
    gen-graphs --count 2000 --quiet -o "$T/b.mp" 2> "$T/err2"
    assert_file_empty "$T/err2"
    cmp "$T/a.mp" "$T/b.mp"
}

@test "--instance: each problem's records hold exactly its keys, decode in Python, and --count 10 is a prefix of 100" {
    for args in "--instance shortest-paths --family erdos-renyi" "--instance shortest-paths --family barabasi-albert" \
                "--instance matching --family bipartite-sides --sides 3,13 --p 0.1:0.9" \
                "--instance vertex-cover --family barabasi-albert" "--instance vertex-cover --family star" \
                "--instance vertex-cover --family lobster" "--instance vertex-cover --family erdos-renyi" \
                "--instance vertex-cover --family bipartite-sides --node-weights unit"; do
        gen-graphs $args --count 10 --seed 3 > "$T/10.mp"
        gen-graphs $args --count 100 --seed 3 > "$T/100.mp"
        size=$(stat -c %s "$T/10.mp")
        head -c "$size" "$T/100.mp" | cmp - "$T/10.mp" || fail "$args: not a prefix"
        run py_stream "$T/100.mp" '
keys = {"shortest-paths": ["s", "src", "dst", "w"], "matching": ["src", "dst", "side"],
        "vertex-cover": ["src", "dst", "node_w"]}
inst = sys.argv[1] if len(sys.argv) > 1 else None
for r in recs:
    extra = [k for k in r if k not in ("kind", "id", "family", "n", "m", "directed")]
    if "node_w" in r:
        want = keys["vertex-cover"] + (["side"] if r["family"] == "bipartite-sides" else [])
        assert r["node_w"].dtype == np.float32 and r["node_w"].shape == (r["n"],) and (r["node_w"] > 0).all()
    elif "side" in r:
        want = keys["matching"]
        assert r["side"].dtype == np.uint8 and r["side"].shape == (r["n"],)
        assert (r["side"][r["src"]] == 0).all() and (r["side"][r["dst"]] == 1).all()
    else:
        want = keys["shortest-paths"]
        assert r["w"].dtype == np.float32 and 0 <= r["s"] < r["n"]
    assert extra == want, (extra, want)
    assert r["src"].shape == (r["m"],) and r["directed"] is False
print(len(recs))'
        assert_success
        assert_output 100
    done
}

@test "--instance, --p, --sides: what a family cannot make is a usage error naming why" {
    run --separate-stderr gen-graphs --family star -o "$T/x.mp"
    assert_failure 64
    [[ "$stderr" == "gen-graphs: family 'star' has no s and t"* ]] || fail "$stderr"
    run --separate-stderr gen-graphs --instance matching --family erdos-renyi -o "$T/x.mp"
    assert_failure 64
    [[ "$stderr" == "gen-graphs: matching instances need sides"* ]] || fail "$stderr"
    run --separate-stderr gen-graphs --family two-community --p 0.3 -o "$T/x.mp"
    assert_failure 64
    [[ "$stderr" == "gen-graphs: '--p' is for families erdos-renyi and bipartite-sides"* ]] || fail "$stderr"
    run --separate-stderr gen-graphs --instance matching --family bipartite-sides --sides 0,4 -o "$T/x.mp"
    assert_failure 64
    run --separate-stderr gen-graphs --instance shortest-paths --family erdos-renyi --p 0.9:0.1 -o "$T/x.mp"
    assert_failure 64
    run --separate-stderr gen-graphs --instance vertex-cover --family lobster --directed -o "$T/x.mp"
    assert_failure 64
    # --sides sets the node count
    gen-graphs --instance matching --family bipartite-sides --sides 2,5 --count 1 | mpcat | jq -e '.n == 7'
}

@test "--instance matching --family bipartite: the paper's graphs without s and t, the same A-B edges, sides A then B" {
    gen-graphs --family bipartite --nodes 20 --count 12 --seed 104 > "$T/flow.mp"
    gen-graphs --instance matching --family bipartite --nodes 20 --count 12 --seed 104 > "$T/match.mp"
    py_stream "$T/match.mp" "
flow = list(msgpack.Unpacker(open('$T/flow.mp', 'rb'), object_hook=msgpack_numpy.decode, raw=False))
for f, r in zip(flow, recs):
    n = f['n']
    assert r['n'] == n - 2 and r['family'] == 'bipartite' and 's' not in r and 't' not in r and 'cap' not in r
    inner = [(u - 1, v - 1) for u, v in zip(f['src'].tolist(), f['dst'].tolist()) if u != 0 and v != n - 1]
    assert inner == list(zip(r['src'].tolist(), r['dst'].tolist()))
    assert r['side'].tolist() == [0] * ((n - 2) // 2) + [1] * (n - 2 - (n - 2) // 2)
    assert all(r['side'][u] == 0 and r['side'][v] == 1 for u, v in inner)
print(len(recs))" | grep -qx 12
    # matching reads them as instances
    ff-trace --algorithm matching -q < "$T/match.mp" | mpcat | jq -e '.size >= 1' > /dev/null
}

@test "--sizes cycles node counts; --law clrs draws CLRS's Bellman-Ford sampler; neither changes the default output" {
    gen-graphs --instance shortest-paths --family erdos-renyi --sizes 4,7,11,13,16 --law clrs --count 2000 --seed 3 > "$T/c.mp"
    run py_stream "$T/c.mp" '
import math
ns = [r["n"] for r in recs]
assert ns[:6] == [4, 7, 11, 13, 16, 4], ns[:6]
w = np.concatenate([r["w"] for r in recs if r["m"]])
assert w.min() >= math.sqrt(1e-3) - 1e-6 and w.max() <= math.sqrt(1 + 1e-3) + 1e-6, (w.min(), w.max())
# sqrt(u u'"'"' + 1e-3) has mean about (2/3)^2 = 0.444 (U[0,1) has 0.5), its median below its mean
assert abs(w.mean() - 0.445) < 0.01 and np.median(w) < w.mean(), (w.mean(), np.median(w))
# p from {0.1, ..., 0.9} on both directions: pair density E[p^2] = 0.317
pairs = sum(r["n"] * (r["n"] - 1) / 2 for r in recs)
dens = sum(r["m"] for r in recs) / pairs
assert abs(dens - 0.317) < 0.02, dens
print("ok")'
    assert_success
    gen-graphs --instance shortest-paths --family erdos-renyi --nodes 16 --count 5 --seed 3 > "$T/a.mp"
    gen-graphs --instance shortest-paths --family erdos-renyi --nodes 16 --count 5 --seed 3 --law dar --sizes "" > "$T/b.mp"
    cmp "$T/a.mp" "$T/b.mp"
    run gen-graphs --sizes 4,x --count 2
    assert_failure 64
    assert_output --partial "'--sizes' wants node counts"
    run gen-graphs --law clrs --count 2
    assert_failure 64
    assert_output --partial "'--law clrs' is for '--instance shortest-paths'"
}
