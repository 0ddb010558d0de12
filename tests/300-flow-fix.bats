#!/usr/bin/env bats
# flow-fix: predicted flows made feasible, through the tool; and the repair
# tool it is one name of (match-fix and cover-fix have their own files).
load test_helper

# Add a key to every record: python snippet computing `val` from record r.
add_key() { # in out key expr
    "$PY" - "$1" "$2" "$3" "$4" <<'PYEOF'
import sys, msgpack, msgpack_numpy as mn, numpy as np
rng = np.random.default_rng(42)
out = open(sys.argv[2], "wb")
for r in msgpack.Unpacker(open(sys.argv[1], "rb"), object_hook=mn.decode, raw=False):
    r[sys.argv[3]] = eval(sys.argv[4]).astype(np.float32)
    out.write(msgpack.packb(r, default=mn.encode))
PYEOF
}

check_feasible() { # file
    "$PY" - "$1" <<'PYEOF'
import sys, msgpack, msgpack_numpy as mn, numpy as np
count = 0
for r in msgpack.Unpacker(open(sys.argv[1], "rb"), object_hook=mn.decode, raw=False):
    n, s, t = r["n"], r["s"], r["t"]
    cap, f = r["cap"].astype(np.float64), r["fixed_flow"].astype(np.float64)
    tol = 1e-6 * max(cap.max(initial=0), 1e-12)
    assert np.all(np.abs(f) <= cap + 1e-7), r["id"]
    if r["directed"]: assert np.all(f >= -1e-7)
    net = np.zeros(n); np.add.at(net, r["src"], -f); np.add.at(net, r["dst"], f)
    inner = [v for v in range(n) if v not in (s, t)]
    assert np.max(np.abs(net[inner]), initial=0) <= tol, (r["id"], np.abs(net[inner]).max())
    assert np.max(np.abs(r["conservation_after"])) <= tol
    assert r["fixed_value"] <= r["maxflow"] + 1e-6, (r["fixed_value"], r["maxflow"])
    assert abs(r["fixed_value"] + net[s]) < 1e-6
    count += 1
print("feasible", count)
PYEOF
}

@test "model-like predictions (C * tanh of random scores) become feasible flows worth at most the max flow" {
    { gen-graphs --family two-community --nodes 16 --count 100 --seed 1
      gen-graphs --family bipartite --nodes 12 --count 50 --seed 2
      gen-graphs --family erdos-renyi --nodes 20 --count 50 --seed 3 --density 0.2 --directed
    } | ff-trace --no-hints > "$T/g.mp"
    add_key "$T/g.mp" "$T/p.mp" pred_flow 'r["cap"] * (np.tanh(rng.normal(size=r["m"]) * 2) if not r["directed"] else 1 / (1 + np.exp(-rng.normal(size=r["m"]))))'
    flow-fix < "$T/p.mp" > "$T/f.mp"
    run check_feasible "$T/f.mp"
    assert_success
    assert_output "feasible 200"
}

@test "the true max flow passes unchanged; noisy versions of it are repaired" {
    gen-graphs --family two-community --nodes 16 --count 50 --seed 4 | ff-trace > "$T/g.mp"
    flow-fix --key flow < "$T/g.mp" > "$T/f.mp"
    run py_stream "$T/f.mp" '
for r in recs:
    assert np.array_equal(r["fixed_flow"], r["flow"]), r["id"]
    assert abs(r["fixed_value"] - r["maxflow"]) < 1e-6
print("unchanged", len(recs))'
    assert_output "unchanged 50"
    add_key "$T/g.mp" "$T/n.mp" noisy 'np.clip(r["flow"] + rng.normal(scale=0.1, size=r["m"]), -r["cap"], r["cap"])'
    flow-fix -k noisy -i "$T/n.mp" -o "$T/nf.mp"
    run check_feasible "$T/nf.mp"
    assert_output "feasible 50"
}

@test "bad input: a missing or misshapen predicted flow, NaN: exit 65 naming record and key" {
    gen-graphs --count 2 --seed 5 | ff-trace > "$T/g.mp"
    run --separate-stderr flow-fix -i "$T/g.mp" -o "$T/x.mp"
    [ "$status" -eq 65 ]
    assert_one_line_error flow-fix
    [[ "$stderr" == "flow-fix: '$T/g.mp': record 0: missing key 'pred_flow'"* ]] || fail "$stderr"
    add_key "$T/g.mp" "$T/short.mp" pred_flow 'r["cap"][:-1] if r["id"] == 1 else r["cap"]'
    run --separate-stderr flow-fix -i "$T/short.mp" -o "$T/x.mp"
    [ "$status" -eq 65 ]
    [[ "$stderr" == "flow-fix: '$T/short.mp': record 1: 'pred_flow' must be a float vector of "* ]] || fail "$stderr"
    add_key "$T/g.mp" "$T/nan.mp" pred_flow 'np.where(np.arange(r["m"]) == 3, np.nan, 0)'
    run --separate-stderr flow-fix -i "$T/nan.mp" -o "$T/x.mp"
    [ "$status" -eq 65 ]
    [[ "$stderr" == "flow-fix: '$T/nan.mp': record 0: 'pred_flow' entry 3 is nan"* ]] || fail "$stderr"
}

@test "repair: one tool under each name repair --help lists (the Makefile's links), the same as --algorithm NAME first" {
    run --separate-stderr repair --help
    assert_success
    local listed
    listed=$(sed -n '/^repairs/,/^$/p' <<< "$output" | awk 'NF == 3 {print $1}')
    [ "$listed" = "$(repair_names)" ] || fail "repair --help lists '$listed', the Makefile links '$(repair_names)'"
    while read -r name _ alg; do
        [ "$(readlink "$DAR_BIN/$name")" = repair ] || fail "$name is no link to repair"
        diff <("$name" --help) <(repair --algorithm "$alg" --help) || fail "$name --help"
    done < <(sed -n '/^repairs/,/^$/p' <<< "$output" | awk 'NF == 3')
    gen-graphs --count 3 --seed 5 | ff-trace > "$T/g.mp"
    add_key "$T/g.mp" "$T/p.mp" pred_flow 'r["cap"] * rng.uniform(-1, 1, r["m"])'
    flow-fix < "$T/p.mp" > "$T/a.mp"
    repair --algorithm=max-flow < "$T/p.mp" | cmp - "$T/a.mp"
    run -64 --separate-stderr repair < "$T/p.mp"
    [[ "$stderr" == "repair: which repair? --algorithm NAME as the first argument, or call it as flow-fix, match-fix, cover-fix, cost-fix"* ]] \
        || fail "$stderr"
    run -64 --separate-stderr repair --algorithm shortest-paths
    [[ "$stderr" == "repair: option '--algorithm' must be one of max-flow|matching|vertex-cover|min-cost-flow, got 'shortest-paths'"* ]] \
        || fail "$stderr"
}
