#!/usr/bin/env bats
# Bipartite matching, the registry's third entry: ff-trace --algorithm
# matching against the tracer 250 checks with networkx, dar-fit and
# dar-step end to end, the same bytes at any thread count, bad input
# refused with one line and exit 65.
load test_helper

ALGO="$DAR_TOOLS/algo_trace"
ORACLE="$ROOT/tests/tools/algos_oracle.py"

# 555 graphs: 250's sizes, densities and side ratios, fresh seeds.
oracle_graphs() {
    for sides in 8,8 4,12 12,4 16,16 3,29 20,44 1,5; do
        for p in 0.05 0.15 0.25 0.5 0.9; do
            gen-graphs --instance matching --family bipartite-sides --sides $sides --p $p --count 15 --seed 11
        done
    done
    gen-graphs --instance matching --family bipartite-sides --sides 32,32 --p 0.01:0.3 --count 30 --seed 12
}

train_and_val() {
    gen-graphs --instance matching --family bipartite-sides --sides 4,4 --p 0.4 --count 24 --seed 1 |
        ff-trace --algorithm matching > "$T/train.mp"
    gen-graphs --instance matching --family bipartite-sides --sides 6,5 --p 0.3 --count 8 --seed 2 |
        ff-trace --algorithm matching > "$T/val.mp"
}

@test "ff-trace --algorithm matching: networkx's matching size and a valid cover of that size on 555 fresh graphs; the tracer's keys byte for byte; --no-hints the same outputs; any --threads the same bytes" {
    oracle_graphs > "$T/g.mp"
    ff-trace --algorithm matching < "$T/g.mp" > "$T/t.mp"
    # the oracle (networkx's hopcroft_karp_matching and to_vertex_cover, the searches replayed) on the
    # test helper's output, which carries the second solver besides
    "$ALGO" --algorithm matching < "$T/g.mp" > "$T/a.mp"
    run "$PY" "$ORACLE" matching "$T/a.mp" 555
    assert_success
    echo "$output" >&3
    mpcat < "$T/a.mp" | jq -c 'del(.hk_match, .hk_size, .hk_cover, .check_ok)' > "$T/helper.json"
    mpcat < "$T/t.mp" | jq -c . > "$T/ours.json"
    [ "$(wc -l < "$T/ours.json")" -eq 555 ]
    cmp "$T/helper.json" "$T/ours.json"
    ff-trace --algorithm matching --no-hints < "$T/g.mp" | mpcat | jq -c . > "$T/b.json"
    [ "$(jq -c 'keys_unsorted[-3:]' "$T/b.json" | sort -u)" = '["match","cover","size"]' ]
    jq -c '{match, cover, size}' "$T/b.json" | cmp - <(jq -c '{match, cover, size}' "$T/ours.json")
    ff-trace --algorithm matching --threads 1 < "$T/g.mp" | cmp - "$T/t.mp"
    ff-trace --algorithm matching --threads 2 < "$T/g.mp" | cmp - "$T/t.mp"
}

@test "gen-graphs | ff-trace | dar-fit | dar-step: primal, dual, no-algo (PGN max, MPNN mean) train and predict" {
    train_and_val
    for cfg in "primal pgn max" "dual pgn max" "no-algo pgn max" "dual mpnn mean" "primal pgn sum"; do
        set -- $cfg
        dar-fit --variant $1 --processor $2 --agg $3 --hidden 8 --batch 8 --iters 6 --eval-every 3 \
            --val "$T/val.mp" -q --log "$T/curve.tsv" -i "$T/train.mp" > "$T/m.mp"
        [ "$(head -1 "$T/curve.tsv" | cut -f2-7)" = "$(printf 'reached\tpi_hint\tmatch_hint\tcover_hint\tmatch\tcover')" ]
        mpcat < "$T/m.mp" | jq -e '.algorithm == "matching"' > /dev/null
        dar-step --model "$T/m.mp" --hints < "$T/val.mp" > "$T/p.mp"
        py_stream "$T/p.mp" "
for r in recs:
    n, m, T = r['n'], r['m'], r['steps'] + 1
    assert r['pred_match'].shape == (m,) and r['pred_match'].dtype == np.float32
    assert ((r['pred_match'] >= 0) & (r['pred_match'] <= 1)).all()
    assert ('pred_cover' in r) == ('$1' == 'dual')
    if '$1' == 'dual':
        assert r['pred_cover'].shape == (n,) and ((r['pred_cover'] >= 0) & (r['pred_cover'] <= 1)).all()
    if '$1' != 'no-algo':
        assert r['pred_hint_pi'].shape == (T, n) and r['pred_hint_match'].shape == (T, m)
        assert (r['pred_hint_pi'][0] == np.arange(n)).all() and (r['pred_hint_reached'][0] == 1 - r['side']).all()
        assert (r['pred_hint_match'][0] == 0).all()
        assert ('pred_hint_cover' in r) == ('$1' == 'dual')
"
    done
    # untraced graphs get their number of searches from running the algorithm
    gen-graphs --instance matching --family bipartite-sides --sides 6,5 --p 0.3 --count 8 --seed 2 |
        dar-step --model "$T/m.mp" | mpcat | jq -c .pred_match > "$T/untraced.json"
    mpcat < "$T/p.mp" | jq -c .pred_match | cmp - "$T/untraced.json"
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

@test "bad input: one line and exit 65 (no sides, an edge inside one side, sides that do not cover every node, another algorithm's trace, a pipeline model)" {
    gen-graphs --instance matching --family bipartite-sides --sides 3,3 --p 0.9 --count 2 --seed 1 > "$T/g.mp"
    py_stream "$T/g.mp" "
import msgpack
def dump(name, r):
    open('$T/' + name + '.mp', 'wb').write(msgpack.packb(r, default=msgpack_numpy.encode, use_bin_type=True))
r = dict(recs[1]); del r['side']; dump('no-side', r)
r = dict(recs[1]); r['side'] = r['side'].copy(); r['side'][3] = 0; dump('inside', r)
r = dict(recs[1]); r['side'] = r['side'][:5].copy(); dump('short', r)
"
    for tool in "ff-trace --algorithm matching" "dar-step --baseline random --algorithm matching"; do
        name=${tool%% *}
        run -65 --separate-stderr $tool -i "$T/no-side.mp"
        assert_one_line_error $name
        [[ "$stderr" == "$name: '$T/no-side.mp': record 0: 'side' is missing (matching needs a side per node)" ]] || fail "$stderr"
        run -65 --separate-stderr $tool -i "$T/inside.mp"
        assert_one_line_error $name
        [[ "$stderr" == *"record 0: edge "*" both on side A (matching needs every edge between A and B)" ]] || fail "$stderr"
        run -65 --separate-stderr $tool -i "$T/short.mp"
        assert_one_line_error $name
        [[ "$stderr" == *"record 0: 'side'"* ]] || fail "$stderr"
    done
    # a model reads the same instance checks
    train_and_val
    dar-fit --variant dual --hidden 8 --batch 8 --iters 2 --eval-every 2 --val "$T/val.mp" -q -i "$T/train.mp" > "$T/m.mp"
    run -65 --separate-stderr dar-step --model "$T/m.mp" -i "$T/inside.mp"
    assert_one_line_error dar-step
    # a max-flow trace is not a matching instance; a matching trace is not max-flow's
    gen-graphs --nodes 8 --count 1 | ff-trace > "$T/mf.mp"
    run -65 --separate-stderr ff-trace --algorithm matching -i "$T/mf.mp"
    assert_one_line_error ff-trace
    run -64 --separate-stderr dar-fit --variant pipeline --hidden 8 --iters 2 -q -i "$T/train.mp"
    assert_one_line_error dar-fit
    [[ "$stderr" == *"no pipeline variant"* ]] || fail "$stderr"
}

@test "dar-step --baseline random --algorithm matching: a score in [0, 1) per edge and node, the same bytes for the same seed" {
    train_and_val
    dar-step --baseline random --algorithm matching --seed 4 < "$T/val.mp" > "$T/r1.mp"
    dar-step --baseline random --algorithm matching --seed 4 < "$T/val.mp" | cmp - "$T/r1.mp"
    py_stream "$T/r1.mp" "
for r in recs:
    assert r['pred_match'].shape == (r['m'],) and r['pred_cover'].shape == (r['n'],)
    assert ((0 <= r['pred_match']) & (r['pred_match'] < 1)).all() and ((0 <= r['pred_cover']) & (r['pred_cover'] < 1)).all()
"
}

@test "ff-trace --algorithm matching --bfs-layers: every frame one BFS layer (Python's own), the augmentations the one-frame trace's searches, networkx's matching size and a Konig cover on 240 fresh graphs; an altered trace fails the oracle" {
    for sides in 8,8 4,12 12,4 16,16 3,29 1,5; do
        for p in 0.05 0.25 0.5 0.9; do
            gen-graphs --instance matching --family bipartite-sides --sides $sides --p $p --count 10 --seed 13
        done
    done > "$T/g.mp"
    ff-trace --algorithm matching --bfs-layers < "$T/g.mp" > "$T/l.mp"
    ff-trace --algorithm matching < "$T/g.mp" > "$T/o.mp"
    run "$PY" "$ORACLE" matching-layers "$T/l.mp" 240 "$T/o.mp"
    assert_success
    echo "$output" >&3
    # the same outputs as the one-frame trace and --no-hints; any --threads the same bytes
    mpcat < "$T/l.mp" | jq -c '{match, cover, size}' | cmp - <(mpcat < "$T/o.mp" | jq -c '{match, cover, size}')
    ff-trace --algorithm matching --bfs-layers --no-hints < "$T/g.mp" | cmp - <(ff-trace --algorithm matching --no-hints < "$T/g.mp")
    ff-trace --algorithm matching --bfs-layers --threads 2 < "$T/g.mp" | cmp - "$T/l.mp"
    # the oracle sees a layer's frame replaced by the one before, and an augmentation marked a layer
    mpcat < "$T/l.mp" | jq -c 'if .n == 16 and .size >= 4 then .hint_reached.data[16:32] = .hint_reached.data[0:16] else . end' |
        mpcat --to-msgpack > "$T/bad.mp"
    run "$PY" "$ORACLE" matching-layers "$T/bad.mp" 240
    assert_failure
    [[ "$output" == *"reached set is not layers"* ]] || fail "$output"
    mpcat < "$T/l.mp" | jq -c 'if .n == 16 and .size >= 4 then .hint_phase.data[2] = 0 else . end' |
        mpcat --to-msgpack > "$T/bad.mp"
    run "$PY" "$ORACLE" matching-layers "$T/bad.mp" 240
    assert_failure
    [[ "$output" == *"search 0"* ]] || fail "$output"
    # the flag is the matching trace's only
    run ff-trace --bfs-layers < "$T/g.mp"
    assert_failure 64
    [[ "$output" == *"--bfs-layers is not an option of the max-flow trace"* ]] || fail "$output"
}

@test "the layered trace: dar-fit trains a phased model on it, dar-step follows the trace's phases or the algorithm's; hint_phase of the wrong length, a value not 0 or 1, frames that are not searches, one kind of trace for a model of the other: one line, exit 65" {
    gen-graphs --instance matching --family bipartite-sides --sides 4,4 --p 0.4 --count 24 --seed 1 > "$T/g.mp"
    ff-trace --algorithm matching --bfs-layers < "$T/g.mp" > "$T/train.mp"
    ff-trace --algorithm matching < "$T/g.mp" > "$T/one.mp"
    # the one-frame trace of a layered record drops hint_phase: the bytes of a fresh one
    ff-trace --algorithm matching < "$T/train.mp" | cmp - "$T/one.mp"
    dar-fit --variant dual --hidden 8 --batch 8 --iters 2 --eval-every 2 --soft-hints --val "$T/train.mp" -q -i "$T/train.mp" > "$T/m.mp"
    [ "$(mpcat < "$T/m.mp" | jq -c '[.phased, (.params | has("match.enc.start") and has("match.enc.augment"))]')" = '[true,true]' ]
    dar-fit --variant dual --hidden 8 --batch 8 --iters 2 --eval-every 2 -q -i "$T/one.mp" > "$T/m1.mp"
    [ "$(mpcat < "$T/m1.mp" | jq -c '[.phased, (.params | has("match.enc.start"))]')" = '[null,false]' ]
    # an untraced graph runs the layered algorithm's phases: the same predictions as its trace's
    dar-step --model "$T/m.mp" --hints < "$T/train.mp" | mpcat | jq -c '{pred_match, pred_hint_reached}' > "$T/a.json"
    dar-step --model "$T/m.mp" --hints < "$T/g.mp" | mpcat | jq -c '{pred_match, pred_hint_reached}' | cmp - "$T/a.json"
    run -65 --separate-stderr dar-step --model "$T/m.mp" -i "$T/one.mp"
    assert_one_line_error dar-step
    [[ "$stderr" == *"record 0: a trace of one frame per search, but the model was trained on the layered trace"* ]] || fail "$stderr"
    run -65 --separate-stderr dar-step --model "$T/m1.mp" -i "$T/train.mp"
    assert_one_line_error dar-step
    [[ "$stderr" == *"record 0: a layered trace (hint_phase), but the model was trained on one frame per search"* ]] || fail "$stderr"
    # a batch of both kinds (every record in the batch)
    run -65 --separate-stderr dar-fit --hidden 8 --iters 1 --batch 48 -q -i <(cat "$T/train.mp" "$T/one.mp")
    assert_one_line_error dar-fit
    [[ "$stderr" == *"a trace of one frame per search, but the model was trained on the layered trace"* ]] || fail "$stderr"
    # the bad phases are the fuzz corpus's seeds (tests/fuzz/corpus.sh writes them)
    local want=("length:'hint_phase' has" "value:'hint_phase' entry 1 is 2, expected 0 or 1"
                "first:'hint_phase' entry 0 is an augmentation before any search"
                "last:is an augmentation after the last search (which has none)"
                "twice:is an augmentation right after another") w
    for w in "${want[@]}"; do
        for tool in "dar-fit --hidden 8 --iters 2 -q" "dar-step --model $T/m.mp"; do
            run -65 --separate-stderr $tool -i "$ROOT/tests/fuzz/corpus/graph-matching/bad-phase-${w%%:*}"
            assert_one_line_error ${tool%% *}
            [[ "$stderr" == *"record 0: "*"${w#*:}"* ]] || fail "${w%%:*}: $stderr"
        done
    done
}
