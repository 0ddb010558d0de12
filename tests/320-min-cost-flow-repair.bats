#!/usr/bin/env bats
# min-cost flow's evaluation half (common/dar/algo_min_cost_flow.h): the
# repair (cost-fix) and the metric rows (metrics), against networkx
# (tests/tools/mcf_eval_oracle.py) and on hand-computed cases.
load test_helper

ORACLE="$ROOT/tests/tools/mcf_eval_oracle.py"
# the rows every repaired record has, and those that need potentials
ROWS=mcf_cost_ratio,mcf_cost_excess,mcf_optimal,mcf_flow_mae
DUAL_ROWS=mcf_certified,mcf_potential_feasible

# Each graph's [sum, count] of each row, one JSON object a graph ({"graph":
# index, row: [sum, count], ...}), from metrics --per-graph on $1 with the
# rows $2.
per_graph() {
    metrics --quantity "$2" --per-graph "$T/pg.mp" < "$1" > /dev/null
    mpcat < "$T/pg.mp" | jq -sc 'group_by(.graph)[] | reduce .[] as $g ({}; .graph = $g.graph | .[$g.name] = [$g.sum, $g.count])'
}

# Records from a Python literal list of dicts (numpy available as np,
# without(record, key) the record without key).
instances() {
    "$PY" -c "
import sys, msgpack, msgpack_numpy, numpy as np
def without(r, key):
    return {k: v for k, v in r.items() if k != key}
for r in $1:
    sys.stdout.buffer.write(msgpack.packb(r, default=msgpack_numpy.encode, use_bin_type=True))
"
}

# The directed diamond of tests/unit/test_mincost.c: s=0, t=3, arcs 0-1
# (cap 2, cost 1), 0-2 (2, 2), 1-3 (1, 1), 2-3 (2, 1), 1-2 (1, 0).  The
# optimum is value 3, cost 7, the flow [2,1,1,2,1] with the potentials
# [0,1,2,3] (every residual arc of reduced cost >= 0, the unsaturated 0-2
# at 0); the flow [1,2,1,2,0] is a maximum flow of cost 8.  The rest of the
# record is the caller's Python keywords.
diamond() {
    echo "dict(kind='graph', id=0, n=4, m=5, directed=True, s=0, t=3, src=np.array([0,0,1,2,1], dtype=np.int32),
               dst=np.array([1,2,3,3,2], dtype=np.int32), cap=np.array([2,2,1,2,1], dtype=np.float32),
               cost=np.array([1,2,1,1,0], dtype=np.float32), flow=np.array([2,1,1,2,1], dtype=np.float32),
               mincost=7.0, maxflow=3.0, $1)"
}

@test "min-cost flow repair: 180 predictions become maximum flows, costs and certificates as networkx's optimum says" {
    "$PY" "$ORACLE" make 20261128 > "$T/p.mp"
    cost-fix < "$T/p.mp" > "$T/f.mp"
    metrics --quantity "$ROWS" --per-graph "$T/g.mp" < "$T/f.mp" > /dev/null
    "$PY" "$ORACLE" dual "$T/f.mp" > "$T/d.mp"
    metrics --quantity "$DUAL_ROWS" --per-graph "$T/dg.mp" < "$T/d.mp" > /dev/null
    run "$PY" "$ORACLE" check "$T/f.mp" "$T/g.mp" "$T/dg.mp" 150
    assert_success
    echo "$output" >&3
    # the optimal predictions all stay optimal, and with the optimum's
    # potentials all certified; the noisy ones not all
    optimal="${output#*optimal per kind: }" certified="${output#*certified per kind (with potentials): }"
    optimal="${optimal%%;*}"
    [[ "$optimal" == *"optimal 30/30"* && "$optimal" == *"optimal-no-potential 30/30"* ]] || fail "$output"
    [[ "$certified" == *"optimal 30/30"* && "$certified" != *"optimal-no-potential"* ]] || fail "$output"
    [[ "$certified" != *"noisy 30/30"* ]] || fail "$output"
}

@test "min-cost flow repair: hand cases, their keys and their metric rows" {
    dual="$(diamond "pred_flow=np.array([1,2,1,2,0], dtype=np.float32),
                     pred_potential=np.array([0,1,1,2], dtype=np.float32)"),
          $(diamond "pred_flow=np.array([2,1,1,2,1], dtype=np.float32),
                     pred_potential=np.array([0,1,2,3], dtype=np.float32)")"
    instances "[$dual, $(diamond "pred_flow=np.array([1,2,1,2,0], dtype=np.float32)")]" > "$T/p.mp"
    cost-fix < "$T/p.mp" > "$T/f.mp"
    mpcat < "$T/f.mp" | jq -c '[.fixed_flow.data, .fixed_value, .fixed_cost, .certified, .gap]' > "$T/out.json"
    # a costlier maximum flow is kept; against [0,1,1,2] the backward 0-2
    # (2 units, reduced cost -1) makes a gap of 2; without potentials there
    # is no certificate
    diff "$T/out.json" - <<'EOF'
[[1,2,1,2,0],3,8,false,2]
[[2,1,1,2,1],3,7,true,0]
[[1,2,1,2,0],3,8,null,null]
EOF
    # a second pass without potentials drops the first pass's certificate
    cost-fix --potential-key none < "$T/f.mp" | mpcat | jq -c '[has("certified"), has("gap"), .fixed_cost]' > "$T/again.json"
    [ "$(sort -u "$T/again.json" | tr '\n' ' ')" = "[false,false,7] [false,false,8] " ] || fail "$(cat "$T/again.json")"
    instances "[$dual]" | cost-fix > "$T/fd.mp"
    { per_graph "$T/f.mp" "$ROWS"; per_graph "$T/fd.mp" "$DUAL_ROWS"; } \
        | jq -sc 'group_by(.graph)[] | add | del(.graph)' > "$T/m.json"
    # ratio 8/7, excess 1/7 (the optimum's cost mass is 7), MAE 3 over 5
    # edges; of the optimum's 6 residual arcs, [0,1,1,2] leaves the backward
    # 0-2 at -1 and [0,1,2,3] none negative
    "$PY" - "$T/m.json" <<'PYEOF'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
want = [{"mcf_cost_ratio": [8 / 7, 1], "mcf_cost_excess": [1 / 7, 1], "mcf_optimal": [0, 1],
         "mcf_certified": [0, 1], "mcf_flow_mae": [3, 5], "mcf_potential_feasible": [5, 6]},
        {"mcf_cost_ratio": [1, 1], "mcf_cost_excess": [0, 1], "mcf_optimal": [1, 1], "mcf_certified": [1, 1],
         "mcf_flow_mae": [0, 5], "mcf_potential_feasible": [6, 6]},
        {"mcf_cost_ratio": [8 / 7, 1], "mcf_cost_excess": [1 / 7, 1], "mcf_optimal": [0, 1],
         "mcf_flow_mae": [3, 5]}]
for got, exp in zip(rows, want):
    assert sorted(got) == sorted(exp), (got, exp)
    for k, (s, c) in exp.items():
        assert got[k][1] == c and abs(got[k][0] - s) < 1e-12, (k, got[k], exp[k])
assert len(rows) == 3
PYEOF
}

@test "min-cost flow repair: an undirected triangle's only maximum flow, from the zero flow and from over the capacities" {
    # s=0, t=2: edges 0-1 and 1-2 (cap 1, cost 1) and 2-0 (cap 1, cost 5);
    # the maximum 2 takes both routes, 0-2 against the edge's direction
    for pred in "[0,0,0]" "[5,-3,4]" "[1,1,-1]"; do
        echo "dict(kind='graph', id=0, n=3, m=3, directed=False, s=0, t=2, src=np.array([0,1,2], dtype=np.int32),
                   dst=np.array([1,2,0], dtype=np.int32), cap=np.ones(3, dtype=np.float32),
                   cost=np.array([1,1,5], dtype=np.float32), pred_flow=np.array($pred, dtype=np.float32)),"
    done > "$T/list"
    instances "[$(cat "$T/list")]" > "$T/p.mp"
    cost-fix < "$T/p.mp" | mpcat | jq -c '[.fixed_flow.data, .fixed_value, .fixed_cost, .certified, .gap]' > "$T/out.json"
    [ "$(sort -u "$T/out.json")" = "[[1,1,-1],2,7,null,null]" ] || fail "$(cat "$T/out.json")"
}

@test "min-cost flow repair: bad records are one line naming record and key, exit 65" {
    d="$(diamond "pred_flow=np.zeros(5, dtype=np.float32)")"
    check() { # expected-stderr records
        instances "$2" > "$T/bad.mp"
        run --separate-stderr cost-fix < "$T/bad.mp"
        assert_failure 65
        assert_one_line_error cost-fix
        [ -z "$output" ] || fail "stdout not empty"
        [[ "$stderr" == "$1"* ]] || fail "$stderr"
    }
    check "cost-fix: record 1: missing key 'pred_flow' (the predicted flow; choose another with --key)" \
        "[$d, without($d, 'pred_flow')]"
    check "cost-fix: record 0: 'pred_flow' must be a float vector of 5 entries" \
        "[dict($d, pred_flow=np.zeros(4, dtype=np.float32))]"
    check "cost-fix: record 0: 'pred_potential' entry 2 is nan, expected a finite number" \
        "[dict($d, pred_potential=np.array([0,1,np.nan,3], dtype=np.float32))]"
    check "cost-fix: record 0: 'pred_potential' entry 1 is 1e+30, beyond 2^62 units of cost" \
        "[dict($d, pred_potential=np.array([0,1e30,0,0], dtype=np.float32))]"
    check "cost-fix: record 0: 'cost' is missing (min-cost-flow needs a cost per unit of flow)" "[without($d, 'cost')]"
    # a negative cost on an undirected edge is a cycle of negative cost: the
    # edge's own entry, not its second arc's
    check "cost-fix: record 0: 'cost' entry 0 still lowers a distance after 2 passes" \
        "[dict(kind='graph', id=0, n=2, m=1, directed=False, s=0, t=1, src=np.array([0], dtype=np.int32),
               dst=np.array([1], dtype=np.int32), cap=np.ones(1, dtype=np.float32),
               cost=np.array([-1], dtype=np.float32), pred_flow=np.zeros(1, dtype=np.float32))]"
    check "cost-fix: record 0: 'cap' entry 1 is -2" "[dict($d, cap=np.array([2,-2,1,2,1], dtype=np.float32))]"
}
