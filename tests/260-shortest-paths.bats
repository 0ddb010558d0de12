#!/usr/bin/env bats
# Shortest paths, the registry's second entry, end to end: ff-trace
# --algorithm shortest-paths, dar-fit, dar-step, metrics; the same bytes at
# any thread count; bad input refused with one line and exit 65.
load test_helper

# The graphs of 250-algos' oracle test (Dijkstra and Python rounds).
oracle_graphs() {
    for n in 5 16 33 64; do
        for p in 0.05 0.25 0.5 0.9; do
            gen-graphs --instance shortest-paths --family erdos-renyi --nodes $n --p $p --count 20 --seed $n
        done
    done
    gen-graphs --instance shortest-paths --family erdos-renyi --nodes 24 --p 0.02:0.6 --count 20 --seed 3
    gen-graphs --instance shortest-paths --family barabasi-albert --nodes 40 --count 10 --seed 4
    gen-graphs --instance shortest-paths --family lobster --nodes 30 --count 10 --seed 5
}

train_and_val() {
    gen-graphs --instance shortest-paths --family erdos-renyi --nodes 8 --p 0.4 --count 24 --seed 1 |
        ff-trace --algorithm shortest-paths > "$T/train.mp"
    gen-graphs --instance shortest-paths --family erdos-renyi --nodes 12 --p 0.4 --count 8 --seed 2 |
        ff-trace --algorithm shortest-paths > "$T/val.mp"
}

@test "ff-trace --algorithm shortest-paths: the trace 250's oracle checks (Dijkstra, Python rounds), on 360 graphs; --no-hints the same outputs" {
    oracle_graphs > "$T/g.mp"
    ff-trace --algorithm shortest-paths < "$T/g.mp" > "$T/t.mp"
    "$DAR_TOOLS/algo_trace" < "$T/g.mp" | mpcat | jq -c 'del(.dual_ok)' > "$T/oracle.json"
    mpcat < "$T/t.mp" | jq -c . > "$T/ours.json"
    [ "$(wc -l < "$T/ours.json")" -eq 360 ]
    cmp "$T/oracle.json" "$T/ours.json"
    mpcat < "$T/t.mp" | jq -c '{d, pi, reached}' > "$T/a.json"
    ff-trace --algorithm shortest-paths --no-hints < "$T/g.mp" | mpcat | jq -c '.' > "$T/b.json"
    jq -c '{d, pi, reached}' "$T/b.json" | cmp - "$T/a.json"
    [ "$(jq -c 'keys_unsorted[-3:]' "$T/b.json" | sort -u)" = '["d","pi","reached"]' ]
    # the same bytes at any --threads
    ff-trace --algorithm shortest-paths --threads 1 < "$T/g.mp" | cmp - "$T/t.mp"
    ff-trace --algorithm shortest-paths --threads 2 < "$T/g.mp" | cmp - "$T/t.mp"
}

@test "gen-graphs | ff-trace | dar-fit | dar-step | metrics: primal, dual, no-algo (PGN max, MPNN mean) give sane numbers" {
    train_and_val
    for cfg in "primal pgn max" "dual pgn max" "no-algo pgn max" "dual mpnn mean" "primal pgn sum"; do
        set -- $cfg
        dar-fit --variant $1 --processor $2 --agg $3 --hidden 8 --batch 8 --iters 6 --eval-every 3 \
            --val "$T/val.mp" -q --log "$T/curve.tsv" -i "$T/train.mp" > "$T/m.mp"
        [ "$(head -1 "$T/curve.tsv" | cut -f2-6)" = "$(printf 'reached\tpi_hint\td_hint\tpi\td')" ]
        mpcat < "$T/m.mp" | jq -e '.algorithm == "shortest-paths"' > /dev/null
        dar-step --model "$T/m.mp" --hints < "$T/val.mp" > "$T/p.mp"
        metrics -l model=$1 < "$T/p.mp" > "$T/metrics.mp"
        py_stream "$T/metrics.mp" "
m = {r['name']: r for r in recs}
want = ['pointer_accuracy', 'path_optimal', 'path_gap'] if '$1' != 'dual' else \
       ['pointer_accuracy', 'mae_d', 'feasible_edges', 'path_optimal', 'path_gap']
assert [r['name'] for r in recs] == want, [r['name'] for r in recs]
assert m['pointer_accuracy']['count'] == 96
for k in ('pointer_accuracy', 'path_optimal') + (('feasible_edges',) if '$1' == 'dual' else ()):
    assert 0 <= m[k]['value'] <= 1, (k, m[k])
if '$1' == 'dual':
    assert np.isfinite(m['mae_d']['value']) and m['mae_d']['value'] >= 0
"
        py_stream "$T/p.mp" "
for r in recs:
    n, T = r['n'], r['steps']
    assert r['pred_pi'].shape == (n,) and r['pred_pi'].min() >= 0 and r['pred_pi'].max() < n
    assert ('pred_d' in r) == ('$1' == 'dual')
    if '$1' != 'no-algo':
        assert r['pred_hint_pi'].shape == (T, n) and r['pred_hint_reached'].shape == (T, n)
        assert (r['pred_hint_pi'][0] == np.arange(n)).all() and r['pred_hint_reached'][0][r['s']] == 1
"
    done
}

@test "metrics: the true tree and potentials score 1, 0, 1, 1, 0; the random baseline worse; max-flow records get none of these" {
    train_and_val
    py_stream "$T/val.mp" "
import msgpack
with open('$T/truth.mp', 'wb') as f:
    for r in recs:
        r['pred_pi'] = r['pi'].copy(); r['pred_d'] = r['d'].astype('<f4')
        f.write(msgpack.packb(r, default=msgpack_numpy.encode, use_bin_type=True))
"
    metrics < "$T/truth.mp" > "$T/m.mp"
    py_stream "$T/m.mp" "
m = {r['name']: r['value'] for r in recs}
assert m['pointer_accuracy'] == 1 and m['feasible_edges'] == 1 and m['path_optimal'] == 1, m
assert m['mae_d'] < 1e-6 and m['path_gap'] == 0, m
"
    dar-step --baseline random --algorithm shortest-paths < "$T/val.mp" | metrics > "$T/r.mp"
    py_stream "$T/r.mp" "
m = {r['name']: r['value'] for r in recs}
assert m['pointer_accuracy'] < 1 and m['mae_d'] > 0.01 and m['path_optimal'] < 1, m
"
    gen-graphs --nodes 8 --count 4 --seed 3 | ff-trace > "$T/mf.mp"
    run -0 bash -c "dar-step --baseline random < '$T/mf.mp' | metrics | mpcat | jq -r .name"
    refute_output --partial pointer
    refute_output --partial _d
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

@test "bad input: one line and exit 65 (no s, no w, a negative weight, directed, another algorithm's trace, hints over the bound)" {
    gen-graphs --instance shortest-paths --family erdos-renyi --nodes 6 --count 2 --seed 1 > "$T/g.mp"
    py_stream "$T/g.mp" "
import msgpack
def dump(name, r):
    open('$T/' + name + '.mp', 'wb').write(msgpack.packb(r, default=msgpack_numpy.encode, use_bin_type=True))
r = dict(recs[1]); del r['s']; dump('no-s', r)
r = dict(recs[1]); del r['w']; dump('no-w', r)
r = dict(recs[1]); r['w'] = r['w'].copy(); r['w'][0] = -0.25; dump('negative', r)
r = dict(recs[1]); r['directed'] = True; dump('directed', r)
r = {'kind': 'graph', 'id': 0, 'family': 'x', 'n': 200000000, 'm': 0, 'directed': False, 's': 0,
     'src': np.zeros(0, '<i4'), 'dst': np.zeros(0, '<i4'), 'w': np.zeros(0, '<f4')}
dump('huge', r)
"
    run -65 --separate-stderr ff-trace --algorithm shortest-paths -i "$T/no-s.mp"
    assert_one_line_error ff-trace
    [[ "$stderr" == *"record 0: 's' is missing"* ]]
    run -65 --separate-stderr ff-trace --algorithm shortest-paths -i "$T/no-w.mp"
    assert_one_line_error ff-trace
    [[ "$stderr" == *"'w' is missing"* ]]
    run -65 --separate-stderr ff-trace --algorithm shortest-paths -i "$T/negative.mp"
    assert_one_line_error ff-trace
    [[ "$stderr" == *"'w' entry 0 is -0.25"* ]]
    run -65 --separate-stderr ff-trace --algorithm shortest-paths -i "$T/directed.mp"
    assert_one_line_error ff-trace
    [[ "$stderr" == *"undirected"* ]]
    run -65 --separate-stderr ff-trace --algorithm shortest-paths -i "$T/huge.mp"
    assert_one_line_error ff-trace
    [[ "$stderr" == *"over the bound of 1 GiB"*"--no-hints"* ]]

    # a model of shortest paths and records of max-flow, both ways
    ff-trace --algorithm shortest-paths < "$T/g.mp" > "$T/train.mp"
    dar-fit --variant dual --hidden 4 --batch 2 --iters 1 -q --no-cache -i "$T/train.mp" > "$T/sp.mp"
    gen-graphs --nodes 6 --count 2 --seed 1 | ff-trace > "$T/mf.mp"
    run -65 --separate-stderr dar-step --model "$T/sp.mp" -i "$T/mf.mp"
    assert_one_line_error dar-step
    [ "$stderr" = "dar-step: '$T/mf.mp': record 0: carries the trace of max-flow, but the model was trained on shortest-paths" ] || fail "$stderr"
    # and the reverse: a max-flow model (or the default baseline) on shortest-paths records, traced or not
    dar-fit --variant dual --hidden 4 --batch 2 --iters 1 -q --no-cache -i "$T/mf.mp" > "$T/mfm.mp"
    run -65 --separate-stderr dar-step --model "$T/mfm.mp" -i "$T/train.mp"
    assert_one_line_error dar-step
    [ "$stderr" = "dar-step: '$T/train.mp': record 0: carries the trace of shortest-paths, but the model was trained on max-flow" ] || fail "$stderr"
    run -65 --separate-stderr dar-step --model "$T/mfm.mp" -i "$T/g.mp"
    assert_one_line_error dar-step
    [ "$stderr" = "dar-step: '$T/g.mp': record 0: is a shortest-paths instance (no 't'), but the model was trained on max-flow" ] || fail "$stderr"
    run -65 --separate-stderr dar-step --baseline random -i "$T/train.mp"
    assert_one_line_error dar-step
    [ "$stderr" = "dar-step: '$T/train.mp': record 0: carries the trace of shortest-paths; the baseline asked for is max-flow's: give --algorithm shortest-paths" ] || fail "$stderr"
    run -65 --separate-stderr dar-step --baseline random --algorithm shortest-paths -i "$T/mf.mp"
    assert_one_line_error dar-step
    [[ "$stderr" == *"record 0: carries the trace of max-flow; the baseline asked for is shortest-paths's: give --algorithm max-flow" ]]
    # dar-fit on untraced shortest-paths records says which trace they need (not "missing key 't'")
    run -65 --separate-stderr dar-fit --hidden 4 --iters 1 -q --no-cache -i "$T/g.mp"
    assert_one_line_error dar-fit
    [ "$stderr" = "dar-fit: '$T/g.mp': record 0: carries no shortest-paths trace (no 'steps'): run ff-trace --algorithm shortest-paths on it first" ] || fail "$stderr"
    run -65 --separate-stderr dar-fit --hidden 4 --iters 1 -q --no-cache -i <(cat "$T/train.mp" "$T/mf.mp")
    assert_one_line_error dar-fit
    [[ "$stderr" == *"record 2: carries the trace of max-flow, the records before it that of shortest-paths"* ]]
    # an untraced record: the number of rounds is missing
    run -0 dar-step --model "$T/sp.mp" -i "$T/g.mp"
    run -65 --separate-stderr dar-fit --variant primal --hidden 4 --iters 1 -q --no-cache \
        -i <(ff-trace --algorithm shortest-paths --no-hints < "$T/g.mp")
    assert_one_line_error dar-fit
    [[ "$stderr" == *"record 0: missing key 'steps' ("*"run ff-trace --algorithm shortest-paths first)" ]] || fail "$stderr"
    run -64 --separate-stderr dar-fit --variant pipeline --hidden 4 --iters 1 -q --no-cache -i "$T/train.mp"
    assert_one_line_error dar-fit
    [[ "$stderr" == *"no pipeline variant"* ]]
    run -64 --separate-stderr dar-fit --variant dual --leak-cut --hidden 4 --iters 1 -q --no-cache -i "$T/train.mp"
    assert_one_line_error dar-fit
    [[ "$stderr" == *"the shortest-paths model's dual cannot be fed its true output (a leaked dual)"* ]] || fail "$stderr"
}

@test "--help of ff-trace, dar-fit and dar-step lists every registered algorithm with the keys its trace really adds" {
    names=$(ff-trace --help | sed -n 's/^ *one of: \(max-flow.*\)$/\1/p' | tr '|' ' ')
    [ "$names" = "$(registry_names " ")" ]
    gen-graphs --nodes 6 --count 1 --seed 1 > "$T/max-flow.mp"
    gen-graphs --instance shortest-paths --family erdos-renyi --nodes 6 --count 1 --seed 1 > "$T/shortest-paths.mp"
    gen-graphs --instance matching --family bipartite-sides --sides 3,3 --p 0.5 --count 1 --seed 1 > "$T/matching.mp"
    gen-graphs --instance vertex-cover --family barabasi-albert --nodes 6 --count 1 --seed 1 > "$T/vertex-cover.mp"
    gen-graphs --instance min-cost-flow --nodes 6 --count 1 --seed 1 > "$T/min-cost-flow.mp"
    for tool in ff-trace dar-fit dar-step; do
        $tool --help > "$T/help.txt"
        grep -qx 'algorithms (the registry; formats/graph.md has their keys):' "$T/help.txt"
        for a in $names; do
            grep -q "^  $a\( (the default)\)\?: " "$T/help.txt" || fail "$tool: no entry for $a"
            sed -n "/^  $a/,/^  [a-z]/p" "$T/help.txt" | grep -q "^      instance: [a-z]" || fail "$tool: $a names no instance key"
            added=$(ff-trace --algorithm $a < "$T/$a.mp" | mpcat | jq -r 'keys_unsorted | .[]' | grep -vxFf <(mpcat < "$T/$a.mp" | jq -r 'keys_unsorted | .[]') | tr '\n' ' ')
            sed -n "/^  $a/,/^  [a-z]/p" "$T/help.txt" | grep -qx "      trace: ${added% }" || fail "$tool: $a's trace keys are not '$added'"
        done
    done
    # the text that spoke of max-flow alone now says what is per algorithm
    ff-trace --help | grep -q '^Run an algorithm of the registry (below)'
    dar-fit --help | grep -q "best validation score (each algorithm.s below)"
    dar-step --help | grep -q 'algorithm it was trained on (each algorithm.s below)'
}

@test "shortest paths: a record carrying another entry's whole trace is refused before the entry reads it; max-flow takes one" {
    gen-graphs --nodes 6 --count 2 --seed 1 > "$T/g.mp"
    ff-trace --algorithm shortest-paths < "$T/g.mp" > "$T/sp.mp"
    ff-trace --algorithm max-flow < "$T/g.mp" > "$T/mf.mp"
    run -65 --separate-stderr ff-trace --algorithm shortest-paths -i "$T/mf.mp"
    assert_one_line_error ff-trace
    [[ "$stderr" == *"record 0: carries the trace of max-flow (key 'hint_phase'), not of shortest-paths" ]] || fail "$stderr"
    run -65 --separate-stderr ff-trace --algorithm matching -i "$T/sp.mp"
    assert_one_line_error ff-trace
    [[ "$stderr" == *"record 0: carries the trace of shortest-paths (key 'hint_d'), not of matching" ]] || fail "$stderr"
    run -0 ff-trace --algorithm max-flow -i "$T/sp.mp"
}
