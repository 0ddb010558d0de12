#!/usr/bin/env bats
# common/flow/mincost.h: the exact min-cost maximum flow against networkx on
# hundreds of fresh graphs (tests/tools/mincost_oracle.py), its trace checked
# round by round from the definitions, the certificate against networkx's
# optimum and perturbations of it, and the refusals as a tool reports them.
load test_helper

SOLVE="$DAR_TOOLS/mincost_solve"
ORACLE="$ROOT/tests/tools/mincost_oracle.py"

# Records from a Python literal list of dicts (numpy available as np).
instances() {
    "$PY" -c "
import sys, msgpack, msgpack_numpy, numpy as np
for r in $1:
    sys.stdout.buffer.write(msgpack.packb(r, default=msgpack_numpy.encode, use_bin_type=True))
"
}

# A 4-node diamond of value 3 and cost 7 (tests/unit/test_mincost.c), its
# costs given by the caller as a Python expression.
diamond() {
    echo "[dict(kind='graph', id=0, n=4, m=5, s=0, t=3, src=np.array([0,0,1,2,1], dtype=np.int32),
                dst=np.array([1,2,3,3,2], dtype=np.int32), cap=np.array([2,2,1,2,1], dtype=np.int64), $1)]"
}

@test "min-cost flow: value, cost and every round agree with networkx on 350 fresh graphs, certificates hold" {
    "$PY" "$ORACLE" make 20261128 > "$T/g.mp"
    "$SOLVE" < "$T/g.mp" > "$T/s.mp"
    run "$PY" "$ORACLE" check "$T/s.mp" 300
    assert_success
    echo "$output" >&3
    # each kind of certificate was exercised, perturbations included
    for kind in optimal costlier infeasible smaller; do
        [[ "$output" == *" $kind"* ]] || fail "no $kind certificate in: $output"
    done
}

@test "min-cost flow: float costs take their exact scale (k/10 costs in units of 1/10)" {
    instances "$(diamond "cost_real=np.array([0.1,0.2,0.1,0.1,0.0], dtype=np.float32)")" > "$T/g.mp"
    "$SOLVE" < "$T/g.mp" | mpcat | jq -c '[.value, .cost_total, .cost_units]' > "$T/out.json"
    [ "$(cat "$T/out.json")" = "[3,7,10]" ] || fail "$(cat "$T/out.json")"
}

@test "min-cost flow: bad instances are one line naming record and key, exit 65" {
    instances "$(diamond "cost_real=np.array([1.0,1e-7,1.0,1.0,0.0], dtype=np.float32)")" > "$T/g.mp"
    run --separate-stderr "$SOLVE" < "$T/g.mp"
    assert_failure 65
    assert_one_line_error mincost_solve
    [[ "$stderr" == "mincost_solve: record 0: 'cost' entry 1 is 1e-07 and needs 2^47 units per 1.0 to be exact,"* ]] ||
        fail "$stderr"
    instances "$(diamond "cost=np.array([1,2,1,1,1<<59], dtype=np.int64)")" > "$T/g.mp"
    run --separate-stderr "$SOLVE" < "$T/g.mp"
    assert_failure 65
    assert_one_line_error mincost_solve
    [[ "$stderr" == "mincost_solve: record 0: 'cost' entry 4 is 576460752303423488 units, beyond 2^58:"* ]] ||
        fail "$stderr"
    instances "$(diamond "cost=np.array([1,2,1,1,0], dtype=np.int64)") + [dict(kind='graph', id=1, n=3, m=2, s=0,
        t=2, src=np.array([0,1], dtype=np.int32), dst=np.array([1,2], dtype=np.int32),
        cap=np.array([1,-1], dtype=np.int64), cost=np.array([1,1], dtype=np.int64))]" > "$T/g.mp"
    run --separate-stderr "$SOLVE" < "$T/g.mp"
    assert_failure 65
    assert_one_line_error mincost_solve
    [ "$stderr" = "mincost_solve: record 1: 'cap' entry 1 is -1, expected a capacity >= 0" ] || fail "$stderr"
    # a cycle of negative cost: 1-2 (-3) and back 2-1 (1)
    instances "[dict(kind='graph', id=0, n=3, m=3, s=0, t=2, src=np.array([0,1,2], dtype=np.int32),
        dst=np.array([1,2,1], dtype=np.int32), cap=np.array([1,1,1], dtype=np.int64),
        cost=np.array([1,-3,1], dtype=np.int64))]" > "$T/g.mp"
    run --separate-stderr "$SOLVE" < "$T/g.mp"
    assert_failure 65
    assert_one_line_error mincost_solve
    [[ "$stderr" == "mincost_solve: record 0: 'cost' entry 1 still lowers a distance after 3 passes: "* ]] ||
        fail "$stderr"
    # a trace over its limit
    instances "$(diamond "cost=np.array([1,2,1,1,0], dtype=np.int64)")" > "$T/g.mp"
    run --separate-stderr "$SOLVE" --max-trace-bytes 200 < "$T/g.mp"
    assert_failure 65
    assert_one_line_error mincost_solve
    [ "$stderr" = "mincost_solve: record 0: round 2 would take the trace past 200 bytes" ] || fail "$stderr"
}
