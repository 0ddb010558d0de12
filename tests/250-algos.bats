#!/usr/bin/env bats
# common/algos/: the tracers and exact solvers of the problems that are not
# s-t flows, each against an independent oracle (tests/tools/algos_oracle.py)
# on hundreds of fresh instances, and the instance contract's refusals.
load test_helper

ALGO="$DAR_TOOLS/algo_trace"
ORACLE="$ROOT/tests/tools/algos_oracle.py"

@test "shortest paths: distances, trees and every frame agree with Dijkstra and Python rounds on 360 graphs" {
    {
        for n in 5 16 33 64; do
            for p in 0.05 0.25 0.5 0.9; do
                gen-graphs --instance shortest-paths --family erdos-renyi --nodes $n --p $p --count 20 --seed $n
            done
        done
        gen-graphs --instance shortest-paths --family erdos-renyi --nodes 24 --p 0.02:0.6 --count 20 --seed 3
        gen-graphs --instance shortest-paths --family barabasi-albert --nodes 40 --count 10 --seed 4
        gen-graphs --instance shortest-paths --family lobster --nodes 30 --count 10 --seed 5
    } > "$T/g.mp"
    "$ALGO" < "$T/g.mp" > "$T/t.mp"
    run "$PY" "$ORACLE" shortest-paths "$T/t.mp" 360
    assert_success
    echo "$output" >&3
}

@test "shortest paths: --no-hints gives the same outputs" {
    gen-graphs --instance shortest-paths --family erdos-renyi --nodes 20 --count 30 --seed 9 > "$T/g.mp"
    "$ALGO" < "$T/g.mp" | mpcat | jq -c '{d, pi, reached}' > "$T/a.json"
    "$ALGO" --no-hints < "$T/g.mp" | mpcat | jq -c '{d, pi, reached}' > "$T/b.json"
    cmp "$T/a.json" "$T/b.json"
}

@test "the instance contract: a record without what the algorithm needs is one line and exit 65" {
    gen-graphs --instance vertex-cover --family erdos-renyi --nodes 6 --count 3 > "$T/vc.mp"
    run --separate-stderr "$ALGO" --algorithm shortest-paths < "$T/vc.mp"
    assert_failure 65
    assert_one_line_error algo_trace
    [[ "$stderr" == "algo_trace: record 0: 's' is missing (shortest-paths needs a source)" ]] || fail "$stderr"
    gen-graphs --instance shortest-paths --family erdos-renyi --nodes 6 --count 1 | mpcat \
        | jq -c 'del(.w)' | mpcat --to-msgpack > "$T/now.mp"
    run --separate-stderr "$ALGO" < "$T/now.mp"
    assert_failure 65
    [[ "$stderr" == "algo_trace: record 0: 'w' is missing (shortest-paths needs edge weights)" ]] || fail "$stderr"
    # max-flow records are shortest-path instances too (their t is ignored)
    gen-graphs --family erdos-renyi --nodes 8 --count 2 | "$ALGO" > /dev/null
}

@test "shortest paths: hints that could exceed the bound are refused before allocating" {
    # a valid record of a few bytes declaring 200,000,000 nodes
    echo '{"n": 200000000, "m": 0, "s": 0, "src": {"dtype": "<i4", "shape": [0], "data": []}, "dst": {"dtype": "<i4", "shape": [0], "data": []}, "w": {"dtype": "<f4", "shape": [0], "data": []}}' | mpcat --to-msgpack > "$T/huge.mp"
    run --separate-stderr "$ALGO" < "$T/huge.mp"
    assert_failure 65
    assert_one_line_error algo_trace
    [[ "$stderr" == *"over the bound of 1073741824 (trace it without hints)" ]] || fail "$stderr"
}

@test "matching: trace and Hopcroft-Karp against networkx on 555 graphs of several sizes, densities and side ratios" {
    {
        for sides in 8,8 4,12 12,4 16,16 3,29 20,44 1,5; do
            for p in 0.05 0.15 0.25 0.5 0.9; do
                gen-graphs --instance matching --family bipartite-sides --sides $sides --p $p --count 15 --seed 2
            done
        done
        gen-graphs --instance matching --family bipartite-sides --sides 32,32 --p 0.01:0.3 --count 30 --seed 5
    } > "$T/g.mp"
    "$ALGO" --algorithm matching < "$T/g.mp" > "$T/t.mp"
    run "$PY" "$ORACLE" matching "$T/t.mp" 555
    assert_success
    echo "$output" >&3
    # the same outputs without hints
    "$ALGO" --algorithm matching < "$T/g.mp" | mpcat | jq -c '{match, cover, size}' > "$T/a.json"
    "$ALGO" --algorithm matching --no-hints < "$T/g.mp" | mpcat | jq -c '{match, cover, size}' > "$T/b.json"
    cmp "$T/a.json" "$T/b.json"
}

@test "matching: a record without sides, an edge inside one side, a side that is neither A nor B: one line, exit 65" {
    gen-graphs --instance shortest-paths --family erdos-renyi --nodes 6 --count 1 > "$T/sp.mp"
    run --separate-stderr "$ALGO" --algorithm matching < "$T/sp.mp"
    assert_failure 65
    assert_one_line_error algo_trace
    [[ "$stderr" == "algo_trace: record 0: 'side' is missing (matching needs a side per node)" ]] || fail "$stderr"
    gen-graphs --instance matching --family bipartite-sides --sides 3,3 --p 0.9 --count 1 > "$T/m.mp"
    mpcat < "$T/m.mp" | jq -c '.side.data[3] = 0' | mpcat --to-msgpack > "$T/inside.mp"
    run --separate-stderr "$ALGO" --algorithm matching < "$T/inside.mp"
    assert_failure 65
    assert_one_line_error algo_trace
    [[ "$stderr" == "algo_trace: record 0: edge "*" both on side A (matching needs every edge between A and B)" ]] || fail "$stderr"
    mpcat < "$T/m.mp" | jq -c '.side.data[5] = 2' | mpcat --to-msgpack > "$T/two.mp"
    run --separate-stderr "$ALGO" --algorithm matching < "$T/two.mp"
    assert_failure 65
    [[ "$stderr" == "algo_trace: record 0: 'side' entry 5 is 2, expected 0 (side A) or 1 (side B)" ]] || fail "$stderr"
    mpcat < "$T/m.mp" | jq -c '.side = {"dtype": "|u1", "shape": [5], "data": [0,0,0,1,1]}' | mpcat --to-msgpack > "$T/short.mp"
    run --separate-stderr "$ALGO" --algorithm matching < "$T/short.mp"
    assert_failure 65
    assert_one_line_error algo_trace
}

@test "vertex cover: the trace equals a Python implementation of the rounds, frame by frame, on 320 graphs" {
    {
        for fam in barabasi-albert star lobster erdos-renyi bipartite-sides; do
            for n in 8 12 16 64; do
                gen-graphs --instance vertex-cover --family $fam --nodes $n --count 15 --seed $n
            done
        done
        gen-graphs --instance vertex-cover --family erdos-renyi --nodes 30 --p 0.05:0.9 --count 20 --node-weights unit
    } > "$T/g.mp"
    "$ALGO" --algorithm vertex-cover < "$T/g.mp" > "$T/t.mp"
    run "$PY" "$ORACLE" vertex-cover "$T/t.mp" 320
    assert_success
    echo "$output" >&3
    "$ALGO" --algorithm vertex-cover < "$T/g.mp" | mpcat | jq -c '{cover, packing}' > "$T/a.json"
    "$ALGO" --algorithm vertex-cover --no-hints < "$T/g.mp" | mpcat | jq -c '{cover, packing}' > "$T/b.json"
    cmp "$T/a.json" "$T/b.json"
}

@test "vertex cover: the ILP's optimum equals a brute force over every subset on 350 graphs of 6 to 20 nodes, and the bipartite min cut on 105" {
    # every family, uniform and unit weights (ties), sparse and dense, up to
    # 20 nodes: vc_brute (tests/tools/vc_brute.c) tries all 2^n subsets
    {
        for fam in barabasi-albert star lobster erdos-renyi bipartite-sides; do
            for n in 6 11 16 18 20; do
                gen-graphs --instance vertex-cover --family $fam --nodes $n --count 12 --seed 1$n
            done
        done
        gen-graphs --instance vertex-cover --family erdos-renyi --nodes 20 --p 0.1:0.9 --count 20 --seed 4 --node-weights unit
        gen-graphs --instance vertex-cover --family erdos-renyi --nodes 19 --p 0.05:0.25 --count 15 --seed 5
        gen-graphs --instance vertex-cover --family bipartite-sides --sides 5,15 --p 0.1:0.5 --count 15 --seed 6 --node-weights unit
    } > "$T/small.mp"
    for n in 24 48 96; do
        gen-graphs --instance vertex-cover --family bipartite-sides --nodes $n --p 0.05:0.5 --count 10 --seed 3
    done > "$T/large.mp"
    "$ALGO" --algorithm vertex-cover --exact < "$T/small.mp" | "$DAR_TOOLS/vc_brute" > "$T/t.mp"
    "$ALGO" --algorithm vertex-cover --exact < "$T/large.mp" >> "$T/t.mp"
    run "$PY" "$ORACLE" vertex-cover "$T/t.mp" 380
    assert_success
    echo "$output" >&3
    [[ "$output" == *"vc_brute's on 350 of up to 20 nodes, min cut on 105)" ]] || fail "$output"
}

@test "vertex cover: on graphs with sides, ff-trace's max flow on s->A->B->t is the ILP's optimum (60 graphs)" {
    # the network of the issue: s->a with w_a, a->b unbounded, b->t with w_b;
    # ff-trace itself cuts it, the ILP (GLPK) is the independent side
    for sides in 4,8 10,10 20,30; do
        gen-graphs --instance vertex-cover --family bipartite-sides --sides $sides --p 0.05:0.6 --count 20 --seed 8
    done | "$ALGO" --algorithm vertex-cover --exact --no-hints > "$T/x.mp"
    py_stream "$T/x.mp" "
out = sys.stdout.buffer
for r in recs:
    n, side, w = r['n'], r['side'], r['node_w']
    unbounded = float(w.sum()) + 1   # more than any cut through s or t
    arcs = [(n, v, w[v]) if side[v] == 0 else (v, n + 1, w[v]) for v in range(n)]
    arcs += [(u, v, unbounded) if side[u] == 0 else (v, u, unbounded) for u, v in zip(r['src'].tolist(), r['dst'].tolist())]
    src, dst, cap = zip(*arcs)
    out.write(msgpack.packb({'kind': 'graph', 'id': r['id'], 'n': n + 2, 'm': len(arcs), 'directed': True,
                             's': n, 't': n + 1, 'src': np.array(src, np.int32), 'dst': np.array(dst, np.int32),
                             'cap': np.array(cap, np.float32)}, default=msgpack_numpy.encode))" > "$T/net.mp"
    ff-trace --no-hints < "$T/net.mp" > "$T/flow.mp"
    py_stream "$T/flow.mp" "
ilp = list(msgpack.Unpacker(open('$T/x.mp', 'rb'), object_hook=msgpack_numpy.decode, raw=False))
assert len(recs) == len(ilp) == 60
for f, r in zip(recs, ilp):
    assert r['opt_status'] == 'optimal'
    assert abs(f['maxflow'] - r['opt_weight']) <= 1e-6 * max(1, r['opt_weight']), (r['id'], f['maxflow'], r['opt_weight'])
    # cut[v] = 1 on t's side: A there and B on s's side are the cover
    cover = [f['cut'][v] if r['side'][v] == 0 else 1 - f['cut'][v] for v in range(r['n'])]
    assert all(cover[u] or cover[v] for u, v in zip(r['src'], r['dst']))
    assert abs(float(np.dot(cover, r['node_w'].astype(np.float64))) - r['opt_weight']) <= 1e-6 * max(1, r['opt_weight'])
print(len(recs))" | grep -qx 60
}

@test "vc_brute: a graph over its 22 nodes is one line and exit 65; it finds the lightest cover of a known graph" {
    gen-graphs --instance vertex-cover --family star --nodes 23 --count 1 > "$T/big.mp"
    run --separate-stderr "$DAR_TOOLS/vc_brute" < "$T/big.mp"
    assert_failure 65
    [[ "$stderr" == "vc_brute: record 0: 23 nodes, over the 22 a brute force tries" ]] || fail "$stderr"
    # a path 0-1-2-3 weighted 2, 1, 3, 1: {1, 3} weighs 2, {0, 2} 5, {1, 2} 4
    echo '{"n": 4, "m": 3, "src": {"dtype": "<i4", "shape": [3], "data": [0, 1, 2]}, "dst": {"dtype": "<i4", "shape": [3], "data": [1, 2, 3]}, "node_w": {"dtype": "<f4", "shape": [4], "data": [2, 1, 3, 1]}}' \
        | mpcat --to-msgpack | "$DAR_TOOLS/vc_brute" | mpcat | jq -c '[.brute_cover.data, .brute_weight]' > "$T/path.json"
    [ "$(cat "$T/path.json")" = '[[0,1,0,1],2]' ] || fail "$(cat "$T/path.json")"
}

@test "vertex cover: missing or negative node weights, hints over the bound: one line, exit 65" {
    gen-graphs --instance matching --family bipartite-sides --nodes 6 --count 1 > "$T/m.mp"
    run --separate-stderr "$ALGO" --algorithm vertex-cover < "$T/m.mp"
    assert_failure 65
    assert_one_line_error algo_trace
    [[ "$stderr" == "algo_trace: record 0: 'node_w' is missing (vertex-cover needs node weights)" ]] || fail "$stderr"
    gen-graphs --instance vertex-cover --family star --nodes 6 --count 2 | mpcat \
        | jq -c 'if .id == 1 then .node_w.data[2] = -0.5 else . end' | mpcat --to-msgpack > "$T/neg.mp"
    run --separate-stderr "$ALGO" --algorithm vertex-cover < "$T/neg.mp"
    assert_failure 65
    assert_one_line_error algo_trace
    [[ "$stderr" == "algo_trace: record 1: 'node_w' entry 2 is -0.5, expected a finite number >= 0" ]] || fail "$stderr"
    gen-graphs --instance vertex-cover --family barabasi-albert --nodes 64 --count 1 > "$T/ba.mp"
    run --separate-stderr "$ALGO" --algorithm vertex-cover --max-hint-bytes 100000 < "$T/ba.mp"
    assert_failure 65
    assert_one_line_error algo_trace
    [[ "$stderr" == *"over the bound of 100000 (trace it without hints)" ]] || fail "$stderr"
    "$ALGO" --algorithm vertex-cover --max-hint-bytes 100000 --no-hints < "$T/ba.mp" > /dev/null
}
