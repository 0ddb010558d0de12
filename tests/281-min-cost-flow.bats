#!/usr/bin/env bats
# The min-cost-flow entry end to end: gen-graphs --instance min-cost-flow |
# ff-trace --algorithm min-cost-flow against networkx on hundreds of fresh
# graphs (non-negative costs, and negative costs on DAGs), the bad input the
# tracer refuses, and a model of each variant trained a few iterations and
# predicting.
load test_helper

ORACLE="$ROOT/tests/tools/mincost_oracle.py"

# The two sets, over three families and three sizes: undirected with costs
# in 0.1..1, and DAGs (--directed) with costs in -0.5..1.
both_sets() {
    local family
    for family in two-community erdos-renyi bipartite; do
        gen-graphs --instance min-cost-flow --family "$family" --sizes 6,10,16 --count "$1" --seed "$2"
        gen-graphs --instance min-cost-flow --family "$family" --sizes 6,10,16 --count "$1" --seed "$2" --directed
    done
}

# Records from a Python literal list of dicts (numpy available as np).
instances() {
    "$PY" -c "
import sys, msgpack, msgpack_numpy, numpy as np
for r in $1:
    sys.stdout.buffer.write(msgpack.packb(r, default=msgpack_numpy.encode, use_bin_type=True))
"
}

# A 4-node diamond 0 -> {1, 2} -> 3 with the caller's cap and cost.
diamond() {
    echo "[dict(kind='graph', id=0, n=4, m=5, directed=True, s=0, t=3, src=np.array([0,0,1,2,1], dtype=np.int32),
                dst=np.array([1,2,3,3,2], dtype=np.int32), $1)]"
}

@test "ff-trace --algorithm min-cost-flow: value, cost and flow agree with networkx on 360 fresh graphs, half of them DAGs with negative costs" {
    both_sets 60 20261128 | ff-trace --algorithm min-cost-flow > "$T/t.mp"
    run "$PY" "$ORACLE" traced "$T/t.mp" 300
    assert_success
    echo "$output" >&3
    [[ "$output" == "360 traced graphs agree with networkx (180 directed, "* ]] || fail "$output"
    # the DAG set has negative costs in most graphs
    negative="$(sed 's/.*directed, \([0-9]*\) with negative costs.*/\1/' <<< "$output")"
    [ "$negative" -ge 150 ] || fail "only $negative graphs with negative costs"
    # --no-hints writes the same solution
    both_sets 4 7 | ff-trace --algorithm min-cost-flow --no-hints | mpcat | jq -c '[.maxflow, .mincost, .flow.data, .potential.data]' > "$T/a"
    both_sets 4 7 | ff-trace --algorithm min-cost-flow | mpcat | jq -c '[.maxflow, .mincost, .flow.data, .potential.data]' > "$T/b"
    cmp "$T/a" "$T/b"
}

@test "the networkx check fails on a flow, a cost or a potential that is not optimal" {
    both_sets 2 3 | ff-trace --algorithm min-cost-flow > "$T/t.mp"
    for change in "r['mincost'] += 0.1" "r['flow'][0] = -r['flow'][0] if r['flow'][0] else r['cap'][0]" \
                  "r['potential'][r['t']] += 5"; do
        py_stream "$T/t.mp" "
for r in recs:
    r['flow'], r['potential'] = r['flow'].copy(), r['potential'].copy()
    $change
    sys.stdout.buffer.write(msgpack.packb(r, default=msgpack_numpy.encode, use_bin_type=True))" > "$T/bad.mp"
        run "$PY" "$ORACLE" traced "$T/bad.mp" 1
        assert_failure 1
        [[ "$output" == "record 0: "* ]] || fail "$change: $output"
    done
}

@test "min-cost-flow: bad input is one line naming record and key, exit 65, nothing on stdout, nothing cached" {
    # ff-trace caches its output by content: a failing run must leave no entry
    export DAR_CACHE="$T/cache"
    ok="cap=np.array([2,2,1,2,1], dtype=np.float32), cost=np.array([1,2,1,1,0], dtype=np.float32)"
    instances "$(diamond "$ok") + $(diamond "cap=np.array([2,2,1,-1,1], dtype=np.float32), cost=np.array([1,2,1,1,0], dtype=np.float32)")" > "$T/g.mp"
    run --separate-stderr ff-trace --algorithm min-cost-flow < "$T/g.mp"
    assert_failure 65
    assert_one_line_error ff-trace
    [ "$stderr" = "ff-trace: record 1: 'cap' entry 3 is -1, expected a finite number >= 0" ] || fail "$stderr"
    [ -z "$output" ] || fail "stdout not empty"
    # no path s -> t: the arcs into 3 have no capacity
    instances "$(diamond "cap=np.array([2,2,0,0,1], dtype=np.float32), cost=np.array([1,2,1,1,0], dtype=np.float32)")" > "$T/g.mp"
    run --separate-stderr ff-trace --algorithm min-cost-flow < "$T/g.mp"
    assert_failure 65
    assert_one_line_error ff-trace
    [ "$stderr" = "ff-trace: record 0: 't' (node 3) is not reached from 's' (node 0) along edges of positive 'cap': min-cost-flow needs a path s->t" ] ||
        fail "$stderr"
    [ -z "$output" ] || fail "stdout not empty"
    # a cost with no exact scale within 2^40 units
    instances "$(diamond "cap=np.array([2,2,1,2,1], dtype=np.float32), cost=np.array([1,1e-7,1,1,0], dtype=np.float32)")" > "$T/g.mp"
    run --separate-stderr ff-trace --algorithm min-cost-flow < "$T/g.mp"
    assert_failure 65
    assert_one_line_error ff-trace
    [[ "$stderr" == "ff-trace: record 0: 'cost' entry 1 is 1e-07 and needs 2^47 units per 1.0 to be exact,"* ]] || fail "$stderr"
    [ -z "$output" ] || fail "stdout not empty"
    # a cost whose flows' costs would overflow the exact scale (int64 units)
    instances "$(diamond "cap=np.array([2,2,1,1e7,1], dtype=np.float32), cost=np.array([1,2,1,1e12,0], dtype=np.float32)")" > "$T/g.mp"
    run --separate-stderr ff-trace --algorithm min-cost-flow < "$T/g.mp"
    assert_failure 65
    assert_one_line_error ff-trace
    [ "$stderr" = "ff-trace: record 0: 'cost' entry 3 times its capacity brings sum |cost| * cap past 2^63: a flow's cost would not fit the exact scale" ] ||
        fail "$stderr"
    [ -z "$output" ] || fail "stdout not empty"
    # a cycle of negative cost (an undirected edge of negative cost is one)
    instances "[dict(kind='graph', id=0, n=3, m=2, s=0, t=2, src=np.array([0,1], dtype=np.int32),
        dst=np.array([1,2], dtype=np.int32), cap=np.array([1,1], dtype=np.float32), cost=np.array([1,-1], dtype=np.float32))]" > "$T/g.mp"
    run --separate-stderr ff-trace --algorithm min-cost-flow < "$T/g.mp"
    assert_failure 65
    assert_one_line_error ff-trace
    [[ "$stderr" == "ff-trace: record 0: 'cost' entry "* ]] || fail "$stderr"
    # no cost at all: a max-flow instance
    gen-graphs --count 1 --nodes 6 > "$T/mf.mp"
    run --separate-stderr ff-trace --algorithm min-cost-flow < "$T/mf.mp"
    assert_failure 65
    assert_one_line_error ff-trace
    [ "$stderr" = "ff-trace: record 0: 'cost' is missing (min-cost-flow needs a cost per unit of flow)" ] || fail "$stderr"
    # another algorithm's trace on the record
    instances "$(diamond "$ok")" | ff-trace --no-cache > "$T/traced.mp"
    run --separate-stderr ff-trace --algorithm min-cost-flow < "$T/traced.mp"
    assert_failure 65
    assert_one_line_error ff-trace
    [ "$stderr" = "ff-trace: record 0: carries the trace of max-flow (key 'hint_phase'), not of min-cost-flow" ] || fail "$stderr"
    [ -z "$output" ] || fail "stdout not empty"
    # no failure was cached, and no temp file left; a run that succeeds is
    [ -z "$(find "$DAR_CACHE" -name '*.mp' 2>/dev/null)" ] || fail "a cache entry was written"
    [ -z "$(find "$DAR_CACHE" -name '.tmp*' 2>/dev/null)" ] || fail "a temp file was left"
    instances "$(diamond "$ok")" | ff-trace --algorithm min-cost-flow > /dev/null
    [ -n "$(find "$DAR_CACHE" -name '*.mp')" ] || fail "the cache took no entry"
}

@test "dar-fit --variant primal|dual|no-algo trains on min-cost-flow traces of both sets and dar-step predicts flows within cap" {
    for set in "" --directed; do
        gen-graphs --instance min-cost-flow --family erdos-renyi --nodes 8 --count 8 --seed 5 $set |
            ff-trace --algorithm min-cost-flow > "$T/train.mp"
        for variant in primal dual no-algo; do
            dar-fit --variant "$variant" --hidden 8 --batch 4 --iters 6 --eval-every 3 --val "$T/train.mp" -q --no-cache \
                --log "$T/log.tsv" -i "$T/train.mp" > "$T/m.mp"
            [ "$(mpcat < "$T/m.mp" | jq -r .algorithm)" = min-cost-flow ] || fail "the model names no entry"
            # the loss columns are the entry's, and the validation score is a number
            head -1 "$T/log.tsv" | grep -q $'reached\tdistance_hint\tpi\tpotential_hint\tflow_hint\tflow\tpotential'
            awk -F'\t' 'NR > 1 && $11 != "" { found = 1 } END { exit !found }' "$T/log.tsv"
            dar-step --model "$T/m.mp" --hints < "$T/train.mp" > "$T/p.mp"
            py_stream "$T/p.mp" "
dual = '$variant' == 'dual'
for r in recs:
    assert r['pred_flow'].shape == (r['m'],)
    assert (abs(r['pred_flow']) <= r['cap'] + 1e-6).all(), 'flow beyond cap'
    assert ('pred_potential' in r) == dual and (not dual or r['pred_potential'].shape == (r['n'],))
    if '$variant' != 'no-algo':
        T, n, m = r['steps'], r['n'], r['m']
        assert r['pred_hint_flow'].shape == (T, m) and r['pred_hint_pi'].shape == (T, n)
        assert r['pred_hint_distance'].shape == (T, n) and r['pred_hint_reached'].shape == (T, n)
        assert ('pred_hint_potential' in r) == dual
    else:
        assert 'pred_hint_flow' not in r
print(len(recs))" > "$T/n"
            [ "$(cat "$T/n")" = 8 ] || fail "$variant $set: $(cat "$T/n")"
        done
    done
    # untraced graphs run as many rounds as the algorithm takes
    gen-graphs --instance min-cost-flow --nodes 8 --count 2 --seed 9 | dar-step --model "$T/m.mp" | mpcat | jq -e '.pred_flow.shape[0] == .m' > /dev/null
    # the random baseline: flows within cap, potentials 0 at s
    dar-step --baseline random --algorithm min-cost-flow < "$T/train.mp" > "$T/r.mp"
    py_stream "$T/r.mp" "
for r in recs:
    assert (abs(r['pred_flow']) <= r['cap'] + 1e-6).all() and r['pred_potential'][r['s']] == 0"
}

@test "ff-trace --algorithm min-cost-flow --sp-rounds: every frame a relaxation round or an augmentation (Python's own), the solutions networkx's, the one-frame trace's frames up to a tie of pointers, on 240 fresh graphs (half DAGs with negative costs); an altered trace fails the oracle" {
    for set in "" --directed; do
        gen-graphs --instance min-cost-flow --family two-community --sizes 6,10,16 --count 120 --seed 29 $set
    done > "$T/g.mp"
    ff-trace --algorithm min-cost-flow --sp-rounds < "$T/g.mp" > "$T/r.mp"
    ff-trace --algorithm min-cost-flow < "$T/g.mp" > "$T/o.mp"
    run "$PY" "$ORACLE" rounds "$T/r.mp" 240 "$T/o.mp"
    assert_success
    echo "$output" >&3
    # ties move the pointers in a few graphs only
    same="$(sed 's/.*; \([0-9]*\) graphs the one-frame trace.*/\1/' <<< "$output")"
    [ "$same" -ge 150 ] || fail "only $same graphs follow the one-frame trace throughout"
    # --no-hints solves by the rounds too; any --threads the same bytes
    solution='[.maxflow, .mincost, .flow.data, .potential.data]'
    ff-trace --algorithm min-cost-flow --sp-rounds --no-hints < "$T/g.mp" | mpcat | jq -c "$solution" |
        cmp - <(mpcat < "$T/r.mp" | jq -c "$solution")
    ff-trace --algorithm min-cost-flow --sp-rounds --threads 2 < "$T/g.mp" | cmp - "$T/r.mp"
    # the one-frame trace of a rounds-traced record drops hint_phase: the bytes of a fresh one
    ff-trace --algorithm min-cost-flow < "$T/r.mp" | cmp - "$T/o.mp"
    # the oracle sees a round's frame replaced by the one before, and an augmentation marked a round
    py_stream "$T/r.mp" "
r = recs[0]
r['hint_distance'] = r['hint_distance'].copy(); r['hint_distance'][2] = r['hint_distance'][1]
sys.stdout.buffer.write(b''.join(msgpack.packb(x, default=msgpack_numpy.encode) for x in recs))" > "$T/bad.mp"
    run "$PY" "$ORACLE" rounds "$T/bad.mp" 240
    assert_failure
    [[ "$output" == "record 0: search 0 round 2, frame 2: the reached set or the distances are not the relaxation rounds'" ]] || fail "$output"
    py_stream "$T/r.mp" "
r = recs[0]
r['hint_phase'] = r['hint_phase'].copy(); r['hint_phase'][int(np.argmax(r['hint_phase']))] = 0
sys.stdout.buffer.write(b''.join(msgpack.packb(x, default=msgpack_numpy.encode) for x in recs))" > "$T/bad.mp"
    run "$PY" "$ORACLE" rounds "$T/bad.mp" 240
    assert_failure
    [[ "$output" == "record 0: search 0 augmentation: frame "*" is not an augmentation"* ]] || fail "$output"
    # the flag is the min-cost flow trace's only
    run ff-trace --sp-rounds < "$T/g.mp"
    assert_failure 64
    [[ "$output" == *"--sp-rounds is not an option of the max-flow trace"* ]] || fail "$output"
}

@test "the rounds trace: dar-fit trains a phased model on it, dar-step follows the trace's phases or the algorithm's; hint_phase of the wrong length, a value not 0 or 1, frames that are not searches, one kind of trace for a model of the other: one line, exit 65" {
    gen-graphs --instance min-cost-flow --family erdos-renyi --nodes 8 --count 8 --seed 5 > "$T/g.mp"
    ff-trace --algorithm min-cost-flow < "$T/g.mp" > "$T/one.mp"
    ff-trace --algorithm min-cost-flow --sp-rounds < "$T/g.mp" > "$T/rounds.mp"
    dar-fit --variant dual --hidden 8 --batch 4 --iters 2 --eval-every 2 --soft-hints --val "$T/rounds.mp" -q -i "$T/rounds.mp" > "$T/m.mp"
    [ "$(mpcat < "$T/m.mp" | jq -c '[.phased, (.params | has("sp.enc.start") and has("flow.enc.augment"))]')" = '[true,true]' ]
    dar-fit --variant dual --hidden 4 --batch 4 --iters 1 -q -i "$T/one.mp" > "$T/m1.mp"
    [ "$(mpcat < "$T/m1.mp" | jq -c '[.phased, (.params | has("sp.enc.start"))]')" = '[null,false]' ]
    # an untraced graph runs the rounds trace's phases: the same predictions as its trace's
    dar-step --model "$T/m.mp" --hints < "$T/rounds.mp" | mpcat | jq -c '{pred_flow, pred_hint_pi}' > "$T/a.json"
    dar-step --model "$T/m.mp" --hints < "$T/g.mp" | mpcat | jq -c '{pred_flow, pred_hint_pi}' | cmp - "$T/a.json"
    [ "$(jq -c '.pred_hint_pi.shape[0]' < "$T/a.json" | head -1)" = "$(mpcat < "$T/rounds.mp" | jq -c .steps | head -1)" ]
    run -65 --separate-stderr dar-step --model "$T/m.mp" -i "$T/one.mp"
    assert_one_line_error dar-step
    [[ "$stderr" == *"record 0: a trace of one frame a round, but the model was trained on the rounds trace"* ]] || fail "$stderr"
    run -65 --separate-stderr dar-step --model "$T/m1.mp" -i "$T/rounds.mp"
    assert_one_line_error dar-step
    [[ "$stderr" == *"record 0: a rounds trace (hint_phase), but the model was trained on one frame a round"* ]] || fail "$stderr"
    # a batch of both kinds
    run -65 --separate-stderr dar-fit --hidden 4 --iters 1 --batch 16 -q -i <(cat "$T/rounds.mp" "$T/one.mp")
    assert_one_line_error dar-fit
    [[ "$stderr" == *"a trace of one frame a round, but the model was trained on the rounds trace"* ]] || fail "$stderr"
    # the bad phases are the fuzz corpus's seeds (tests/fuzz/corpus.sh writes them)
    local want=("length:'hint_phase' has 27 entries, expected 28" "value:'hint_phase' entry 1 is 2, expected 0 or 1"
                "first:'hint_phase' entry 0 is an augmentation before its search's start and a round"
                "last:is an augmentation as the last frame (the last search has none)"
                "twice:is an augmentation right after another"
                "none:'hint_phase' has no augmentation" "steps:'hint_phase' has 28 entries, expected 4000") w
    for w in "${want[@]}"; do
        for tool in "dar-fit --hidden 4 --iters 1 -q" "dar-step --model $T/m.mp"; do
            run -65 --separate-stderr $tool -i "$ROOT/tests/fuzz/corpus/traced-darfit/bad-mcf-phase-${w%%:*}"
            assert_one_line_error ${tool%% *}
            [[ "$stderr" == *"record 0: "*"${w#*:}"* ]] || fail "${w%%:*}: $stderr"
        done
    done
}
