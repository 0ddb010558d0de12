#!/usr/bin/env bats
# metrics --per-graph: each graph's sum and count of every mean quantity, for
# the report's bootstrap over the test graphs; the metric records keep their bytes.
load test_helper

setup() {
    gen-graphs --nodes 12 --count 5 --seed 3 | ff-trace -q | dar-step --baseline random --seed 1 | flow-fix > "$T/g.mp"
}

@test "metrics --per-graph leaves the metric records' bytes as they are" {
    metrics -l model=r -l family=2-community < "$T/g.mp" > "$T/plain.mp"
    metrics -l model=r -l family=2-community --per-graph "$T/per.mp" < "$T/g.mp" > "$T/with.mp"
    cmp "$T/plain.mp" "$T/with.mp"
}

@test "metrics --per-graph: one graph_metric record a graph and quantity; they pool to the metric record" {
    metrics -l model=r --split test --per-graph "$T/per.mp" < "$T/g.mp" > "$T/m.mp"
    run py_stream "$T/per.mp" '
assert all(r["kind"] == "graph_metric" for r in recs)
assert list(recs[0]) == ["kind", "name", "graph", "sum", "count", "value", "split", "labels"], list(recs[0])
names = [r["name"] for r in recs if r["graph"] == 0]
print(" ".join(names))
print(sorted({r["graph"] for r in recs}))
pooled = {m["name"]: m for m in msgpack.Unpacker(open(sys.argv[1].replace("per.mp", "m.mp"), "rb"), raw=False)}
for name in names:
    rs = [r for r in recs if r["name"] == name]
    s, c = sum(r["sum"] for r in rs), sum(r["count"] for r in rs)
    assert c == pooled[name]["count"], (name, c)
    assert abs(s / c - pooled[name]["value"]) < 1e-12, name
    assert rs[0]["labels"] == {"model": "r"} and rs[0]["split"] == "test"
'
    assert_success
    assert_line --index 0 "mae_flow cut_accuracy maxflow_error conservation_before conservation_after fixed_value_ratio"
    assert_line --index 1 "[0, 1, 2, 3, 4]"
}

@test "metrics --per-graph does not apply to --table" {
    run -64 metrics --table md --per-graph "$T/x.mp" < /dev/null
    assert_output --partial "--per-graph"
}

@test "metrics --per-graph: shortest paths' quantities, one record a graph each, pool to the metric records" {
    gen-graphs --instance shortest-paths --family erdos-renyi --nodes 10 --count 4 --seed 5 |
        ff-trace --algorithm shortest-paths -q | dar-step --baseline random --algorithm shortest-paths --seed 2 > "$T/sp.mp"
    metrics -l model=r --split test < "$T/sp.mp" > "$T/plain.mp"
    metrics -l model=r --split test --per-graph "$T/per.mp" < "$T/sp.mp" > "$T/m.mp"
    cmp "$T/plain.mp" "$T/m.mp"
    run py_stream "$T/per.mp" '
names = [r["name"] for r in recs if r["graph"] == 0]
print(" ".join(names))
pooled = {m["name"]: m for m in msgpack.Unpacker(open(sys.argv[1].replace("per.mp", "m.mp"), "rb"), raw=False)}
assert set(names) == set(pooled), (names, list(pooled))
for name in names:
    rs = [r for r in recs if r["name"] == name]
    assert [r["graph"] for r in rs] == [0, 1, 2, 3], name
    s, c = sum(r["sum"] for r in rs), sum(r["count"] for r in rs)
    assert c == pooled[name]["count"], (name, c)
    assert abs(s / c - pooled[name]["value"]) < 1e-12, name
'
    assert_success
    assert_output "pointer_accuracy mae_d feasible_edges path_optimal path_gap"
}
