#!/usr/bin/env bats
# Vertex cover, the registry's third entry, end to end: ff-trace
# --algorithm vertex-cover, gen-graphs --optimum-nodes, dar-fit, dar-step,
# cover-fix, metrics; the same bytes at any thread
# count; bad input refused with one line and exit 65.
load test_helper

ALGO="$DAR_TOOLS/algo_trace"

# The graphs of 250-algos' oracle test of the rounds (and 20 more).
oracle_graphs() {
    for fam in barabasi-albert erdos-renyi star lobster; do
        for n in 8 16 40; do
            gen-graphs --instance vertex-cover --family $fam --nodes $n --count 15 --seed $n
        done
    done
    gen-graphs --instance vertex-cover --family erdos-renyi --nodes 30 --p 0.05:0.9 --count 20 --node-weights unit
    gen-graphs --instance vertex-cover --family bipartite-sides --nodes 20 --count 20 --seed 7
}

train_and_val() {
    gen-graphs --instance vertex-cover --family barabasi-albert --nodes 10 --count 24 --seed 1 --optimum-nodes 100000 |
        ff-trace --algorithm vertex-cover > "$T/train.mp"
    gen-graphs --instance vertex-cover --family barabasi-albert --nodes 12 --count 8 --seed 2 --optimum-nodes 100000 |
        ff-trace --algorithm vertex-cover > "$T/val.mp"
}

@test "ff-trace --algorithm vertex-cover: algo_trace's trace (250's oracle checks it) on 200 graphs; --no-hints the same outputs; any --threads the same bytes" {
    oracle_graphs > "$T/g.mp"
    ff-trace --algorithm vertex-cover < "$T/g.mp" > "$T/t.mp"
    "$ALGO" --algorithm vertex-cover < "$T/g.mp" | mpcat | jq -c 'del(.check_ok)' > "$T/oracle.json"
    mpcat < "$T/t.mp" | jq -c . > "$T/ours.json"
    [ "$(wc -l < "$T/ours.json")" -eq 220 ]
    cmp "$T/oracle.json" "$T/ours.json"
    ff-trace --algorithm vertex-cover --no-hints < "$T/g.mp" | mpcat | jq -c '.' > "$T/b.json"
    jq -c '{cover, packing}' "$T/b.json" | cmp - <(jq -c '{cover, packing}' "$T/ours.json")
    [ "$(jq -c 'keys_unsorted[-2:]' "$T/b.json" | sort -u)" = '["cover","packing"]' ]
    ff-trace --algorithm vertex-cover --threads 1 < "$T/g.mp" | cmp - "$T/t.mp"
    ff-trace --algorithm vertex-cover --threads 2 < "$T/g.mp" | cmp - "$T/t.mp"
}

@test "gen-graphs --optimum-nodes: the ILP's and the min cut's optimum as algo_trace --exact finds them; refused for other instances" {
    { gen-graphs --instance vertex-cover --family erdos-renyi --nodes 14 --count 40 --seed 3 --optimum-nodes 100000
      gen-graphs --instance vertex-cover --family bipartite-sides --nodes 18 --count 20 --seed 4 --optimum-nodes 100000
    } > "$T/g.mp"
    "$ALGO" --algorithm vertex-cover --exact --no-hints < "$T/g.mp" > "$T/x.mp"
    py_stream "$T/g.mp" "
import subprocess, io
ours = recs
ref = list(msgpack.Unpacker(open('$T/x.mp', 'rb'), object_hook=msgpack_numpy.decode, raw=False))
for a, b in zip(ours, ref):
    assert a['opt_status'] == 'optimal'
    w = 'cut_weight' if 'cut_weight' in b else 'opt_weight'
    assert abs(a['opt_weight'] - b[w]) <= 1e-9 * max(1, b[w]), (a['opt_weight'], b[w])
    assert abs(float(np.dot(a['opt_cover'], a['node_w'].astype(np.float64))) - a['opt_weight']) <= 1e-9
    assert all(a['opt_cover'][u] or a['opt_cover'][v] for u, v in zip(a['src'], a['dst']))
print(len(ours))" | grep -qx 60
    run -64 --separate-stderr gen-graphs --instance shortest-paths --family erdos-renyi --optimum-nodes 5
    [[ "$stderr" == "gen-graphs: '--optimum-nodes' is for '--instance vertex-cover'"$'\n'* ]] || fail "$stderr"
}

@test "gen-graphs --optimum-nodes: a budget the search exhausts ends 'feasible' the same bytes every run; a generous one 'optimal' at the oracle's weight; --optimum S refused" {
    local g=(--instance vertex-cover --family erdos-renyi --nodes 40 --count 12 --seed 9)
    gen-graphs "${g[@]}" --optimum-nodes 5 > "$T/a.mp"
    gen-graphs "${g[@]}" --optimum-nodes 5 | cmp - "$T/a.mp"
    gen-graphs "${g[@]}" --optimum-nodes 100000 > "$T/b.mp"
    "$ALGO" --algorithm vertex-cover --exact --no-hints < "$T/b.mp" > "$T/x.mp"
    py_stream "$T/a.mp" "
short = recs
full = list(msgpack.Unpacker(open('$T/b.mp', 'rb'), object_hook=msgpack_numpy.decode, raw=False))
ref = list(msgpack.Unpacker(open('$T/x.mp', 'rb'), object_hook=msgpack_numpy.decode, raw=False))
assert len(short) == len(full) == len(ref) == 12
above = 0
for a, b, r in zip(short, full, ref):
    assert a['opt_status'] == 'feasible' and b['opt_status'] == 'optimal' == r['opt_status'], (a['opt_status'], b['opt_status'])
    assert abs(b['opt_weight'] - r['opt_weight']) <= 1e-9 * max(1, r['opt_weight']), (b['opt_weight'], r['opt_weight'])
    # the unproven cover is a cover, no lighter than the optimum
    assert all(a['opt_cover'][u] or a['opt_cover'][v] for u, v in zip(a['src'], a['dst']))
    assert a['opt_weight'] >= b['opt_weight'] - 1e-9
    above += a['opt_weight'] > b['opt_weight'] + 1e-9
print(above)" > "$T/above"
    [ "$(cat "$T/above")" -gt 0 ]
    run -64 --separate-stderr gen-graphs "${g[@]}" --optimum 10
    [[ "$stderr" == "gen-graphs: '--optimum S' (seconds of GLPK's wall clock) wrote different optima on a loaded and a quiet machine; use '--optimum-nodes N', a budget of branch-and-bound nodes per graph"$'\n'* ]] || fail "$stderr"
}

@test "gen-graphs | ff-trace | dar-fit | dar-step | cover-fix | metrics: primal, dual, no-algo, +opt (PGN, MPNN) give valid covers" {
    train_and_val
    for cfg in "primal pgn max" "dual pgn max" "no-algo pgn max" "dual mpnn mean"; do
        set -- $cfg
        dar-fit --variant $1 --processor $2 --agg $3 --hidden 8 --batch 8 --iters 6 --eval-every 3 \
            --val "$T/val.mp" -q --log "$T/curve.tsv" -i "$T/train.mp" > "$T/m.mp"
        [ "$(head -1 "$T/curve.tsv" | cut -f2-7)" = "$(printf 'residual\tin_cover\tdelta\tcover\tpacking\topt')" ]
        # the training records carry opt_cover: the +opt term is scored
        awk -F'\t' 'NR > 1 && $7 > 0 { found = 1 } END { exit !found }' "$T/curve.tsv"
        mpcat < "$T/m.mp" | jq -e '.algorithm == "vertex-cover"' > /dev/null
        dar-step --model "$T/m.mp" --hints < "$T/val.mp" > "$T/p.mp"
        cover-fix < "$T/p.mp" | metrics -l model=$1 > "$T/metrics.mp"
        py_stream "$T/metrics.mp" "
m = {r['name']: r for r in recs}
want = ['cover_weight_ratio', 'cover_opt_ratio', 'opt_unproven'] + \
       (['packing_excess', 'certified_gap', 'uncertified'] if '$1' == 'dual' else [])
assert [r['name'] for r in recs] == want, [r['name'] for r in recs]
assert m['cover_opt_ratio']['value'] >= 1 and m['cover_opt_ratio']['count'] == 8
if '$1' == 'dual':
    assert m['certified_gap']['value'] >= m['cover_opt_ratio']['value']
"
    done
    # without opt_cover the +opt term stays 0
    mpcat < "$T/train.mp" | jq -c 'del(.opt_cover, .opt_weight, .opt_status)' | mpcat --to-msgpack > "$T/plain.mp"
    dar-fit --variant primal --hidden 8 --batch 8 --iters 4 -q --log "$T/curve.tsv" -i "$T/plain.mp" > /dev/null
    awk -F'\t' 'NR > 1 && $7 != 0 { bad = 1 } END { exit bad }' "$T/curve.tsv"
}

@test "dar-fit and dar-step: the same bytes at 1 and 2 threads (primal, dual, no-algo; PGN and MPNN)" {
    train_and_val
    for cfg in "primal pgn" "dual pgn" "no-algo pgn" "dual mpnn"; do
        set -- $cfg
        for j in 1 2; do
            dar-fit --variant $1 --processor $2 --hidden 8 --batch 8 --iters 4 --eval-every 2 \
                --val "$T/val.mp" -q --no-cache --threads $j -i "$T/train.mp" > "$T/m$j.mp"
            dar-step --model "$T/m$j.mp" --hints --threads $j < "$T/val.mp" > "$T/p$j.mp"
        done
        cmp "$T/m1.mp" "$T/m2.mp" || fail "$cfg: the model differs at 1 and 2 threads"
        cmp "$T/p1.mp" "$T/p2.mp" || fail "$cfg: the predictions differ at 1 and 2 threads"
    done
}

@test "the random baseline: valid after cover-fix, the same bytes for the same seed" {
    train_and_val
    dar-step --baseline random --algorithm vertex-cover --seed 3 < "$T/val.mp" > "$T/r1.mp"
    dar-step --baseline random --algorithm vertex-cover --seed 3 < "$T/val.mp" | cmp - "$T/r1.mp"
    cover-fix < "$T/r1.mp" | metrics | mpcat \
        | jq -e -s 'map({(.name): .value}) | add | .cover_weight_ratio > 0 and .certified_gap >= .cover_opt_ratio'
}

@test "bad input: one line and exit 65 (no node_w, a negative weight, directed, another algorithm's trace, an untraced training set, hints over the bound)" {
    gen-graphs --instance vertex-cover --family erdos-renyi --nodes 6 --count 2 --seed 1 > "$T/g.mp"
    py_stream "$T/g.mp" "
import msgpack
def dump(name, r):
    open('$T/' + name + '.mp', 'wb').write(msgpack.packb(r, default=msgpack_numpy.encode, use_bin_type=True))
r = dict(recs[1]); del r['node_w']; dump('no-w', r)
r = dict(recs[1]); r['node_w'] = r['node_w'].copy(); r['node_w'][0] = -0.25; dump('negative', r)
r = dict(recs[1]); r['node_w'] = r['node_w'].copy(); r['node_w'][1] = np.nan; dump('nan', r)
r = dict(recs[1]); r['directed'] = True; dump('directed', r)
r = {'kind': 'graph', 'id': 0, 'family': 'x', 'n': 200000000, 'm': 0, 'directed': False,
     'src': np.zeros(0, '<i4'), 'dst': np.zeros(0, '<i4'), 'node_w': np.zeros(0, '<f4')}
dump('huge', r)
"
    run -65 --separate-stderr ff-trace --algorithm vertex-cover -i "$T/no-w.mp"
    assert_one_line_error ff-trace
    [[ "$stderr" == *"record 0: 'node_w' is missing (vertex-cover needs node weights)" ]] || fail "$stderr"
    run -65 --separate-stderr ff-trace --algorithm vertex-cover -i "$T/negative.mp"
    assert_one_line_error ff-trace
    [[ "$stderr" == *"'node_w' entry 0 is -0.25"* ]] || fail "$stderr"
    run -65 --separate-stderr ff-trace --algorithm vertex-cover -i "$T/nan.mp"
    assert_one_line_error ff-trace
    run -65 --separate-stderr ff-trace --algorithm vertex-cover -i "$T/directed.mp"
    assert_one_line_error ff-trace
    [[ "$stderr" == *"undirected"* ]] || fail "$stderr"
    run -65 --separate-stderr ff-trace --algorithm vertex-cover -i "$T/huge.mp"
    assert_one_line_error ff-trace

    # a model of vertex cover and records of max-flow, both ways
    ff-trace --algorithm vertex-cover < "$T/g.mp" > "$T/train.mp"
    dar-fit --variant dual --hidden 4 --batch 2 --iters 1 -q --no-cache -i "$T/train.mp" > "$T/vc.mp"
    gen-graphs --nodes 6 --count 2 --seed 1 | ff-trace > "$T/mf.mp"
    run -65 --separate-stderr dar-step --model "$T/vc.mp" -i "$T/mf.mp"
    assert_one_line_error dar-step
    run -65 --separate-stderr dar-fit --hidden 4 --iters 1 -q --no-cache -i <(cat "$T/train.mp" "$T/mf.mp")
    assert_one_line_error dar-fit
    [[ "$stderr" == *"record 2: carries the trace of max-flow, the records before it that of vertex-cover"* ]] || fail "$stderr"
    # an untraced record predicts (the rounds are run), but does not train
    run -0 dar-step --model "$T/vc.mp" -i "$T/g.mp"
    run -65 --separate-stderr dar-fit --variant primal --hidden 4 --iters 1 -q --no-cache \
        -i <(ff-trace --algorithm vertex-cover --no-hints < "$T/g.mp")
    assert_one_line_error dar-fit
    run -64 --separate-stderr dar-fit --variant pipeline --hidden 4 --iters 1 -q --no-cache -i "$T/train.mp"
}

@test "an untraced matching or vertex-cover instance given to dar-fit names its algorithm and the ff-trace to run" {
    gen-graphs --instance vertex-cover --family barabasi-albert --nodes 8 --count 2 --seed 1 > "$T/vc.mp"
    run -65 --separate-stderr dar-fit --iters 1 -q --no-cache -i "$T/vc.mp"
    [ "${#lines[@]}" -eq 0 ] && [ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ] || fail "$stderr"
    [[ "$stderr" == *"carries no vertex-cover trace (no 'steps'): run ff-trace --algorithm vertex-cover on it first" ]] || fail "$stderr"
    gen-graphs --instance matching --family bipartite-sides --sides 3,3 --count 2 --seed 1 > "$T/mt.mp"
    run -65 --separate-stderr dar-fit --iters 1 -q --no-cache -i "$T/mt.mp"
    [[ "$stderr" == *"carries no matching trace (no 'steps'): run ff-trace --algorithm matching on it first" ]] || fail "$stderr"
}
