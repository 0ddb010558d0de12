#!/usr/bin/env bats
# metrics on vertex-cover records after cover-fix:
# the weight ratios, the packing's overload and the certified gap, against
# numpy, and --per-graph's shares pooling to them.
load test_helper

ALGO="$DAR_TOOLS/algo_trace"
ORACLE="$ROOT/tests/tools/cover_fix_oracle.py"

setup() {
    {
        gen-graphs --instance vertex-cover --family barabasi-albert --nodes 16 --count 60 --seed 41
        gen-graphs --instance vertex-cover --family erdos-renyi --nodes 12 --count 40 --seed 42
    } | "$ALGO" --algorithm vertex-cover --no-hints --exact > "$T/t.mp"
}

@test "the algorithm's own pair: ratio 1, and the certified gap within 2/(1-eps) on every graph" {
    cover-fix --key cover --dual-key packing < "$T/t.mp" \
        | metrics --per-graph "$T/pg.mp" > "$T/m.mp"
    mpcat < "$T/m.mp" | jq -e -s 'map({(.name): .value}) | add
        | .cover_weight_ratio == 1 and .opt_unproven == 0 and .uncertified == 0 and .packing_excess < 1e-15
          and .cover_opt_ratio >= 1 and .certified_gap >= .cover_opt_ratio'
    mpcat < "$T/pg.mp" | jq -e -s '[.[] | select(.name == "certified_gap") | .value]
        | length == 100 and all(. <= 2 / 0.9 + 1e-9 and . >= 1)'
}

@test "noisy predictions: every quantity equals numpy's, and the per-graph shares pool to it" {
    "$PY" "$ORACLE" perturb "$T/t.mp" "$T/p.mp" 9
    cover-fix < "$T/p.mp" > "$T/f.mp"
    metrics --per-graph "$T/pg.mp" < "$T/f.mp" > "$T/m.mp"
    py_stream "$T/f.mp" '
import subprocess, json
ratio, opt, excess, gap = [], [], [], []
for r in recs:
    w = r["node_w"].astype(np.float64)
    alg = w[r["cover"] == 1].sum()
    if alg > 0: ratio.append(r["fixed_cover_weight"] / alg)
    if r["opt_status"] == "optimal": opt.append(r["fixed_cover_weight"] / r["opt_weight"])
    excess.append(r["packing_excess"] / w.sum())
    if r["fixed_cover_weight"] > 0 and r["packing_value"] > 0: gap.append(r["fixed_cover_weight"] / r["packing_value"])
got = {}
for line in subprocess.run(["mpcat"], stdin=open(sys.argv[1].replace("f.mp", "m.mp"), "rb"), capture_output=True, text=True).stdout.splitlines():
    m = json.loads(line); got[m["name"]] = (m["value"], m["count"])
for name, xs in [("cover_weight_ratio", ratio), ("cover_opt_ratio", opt), ("packing_excess", excess), ("certified_gap", gap)]:
    assert got[name][1] == len(xs) and abs(got[name][0] - np.mean(xs)) <= 1e-12 * abs(np.mean(xs)), (name, got[name], np.mean(xs))
assert got["packing_excess"][0] > 0 and got["cover_weight_ratio"][0] != 1
print("ok")' | grep -qx ok
    # the shares of every graph pool to the metric
    mpcat < "$T/pg.mp" | jq -s 'group_by(.name) | map({(.[0].name): ((map(.sum) | add) / (map(.count) | add))}) | add' > "$T/pooled.json"
    mpcat < "$T/m.mp" | jq -s 'map({(.name): .value}) | add' > "$T/direct.json"
    "$PY" -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); assert a.keys()==b.keys() and all(abs(a[k]-b[k])<=1e-12*max(1,abs(b[k])) for k in a), (a,b)' "$T/pooled.json" "$T/direct.json"
}

@test "an optimum the node budget did not prove is left out of cover_opt_ratio and counted by opt_unproven" {
    cover-fix --key cover --dual-key packing < "$T/t.mp" | mpcat \
        | jq -c 'if .id % 4 == 0 then .opt_status = "feasible" else . end' | mpcat --to-msgpack \
        | metrics --quantity cover_opt_ratio,opt_unproven > "$T/m.mp"
    mpcat < "$T/m.mp" | jq -e -s 'map({(.name): [.value, .count]}) | add
        | .cover_opt_ratio[1] == 75 and .opt_unproven == [0.25, 100]'
}

@test "bad vertex-cover input to metrics: one line, exit 65" {
    cover-fix --key cover --dual-key packing < "$T/t.mp" > "$T/f.mp"
    mpcat < "$T/f.mp" | jq -c '.opt_status = "good"' | mpcat --to-msgpack > "$T/bad.mp"
    run --separate-stderr metrics < "$T/bad.mp"
    assert_failure 65
    assert_one_line_error metrics
    [[ "$stderr" == "metrics: record 0: 'opt_status' is 'good', expected optimal, feasible or unsolved" ]] || fail "$stderr"
    mpcat < "$T/f.mp" | jq -c '.node_w.data[0] = -0.5' | mpcat --to-msgpack > "$T/neg.mp"
    run --separate-stderr metrics --quantity packing_excess < "$T/neg.mp"
    assert_failure 65
    [[ "$stderr" == "metrics: record 0: 'node_w' entry 0 is -0.5, expected a weight >= 0" ]] || fail "$stderr"
    mpcat < "$T/f.mp" | jq -c '.packing_value = "x"' | mpcat --to-msgpack > "$T/str.mp"
    run --separate-stderr metrics --quantity certified_gap < "$T/str.mp"
    assert_failure 65
    assert_one_line_error metrics
}
