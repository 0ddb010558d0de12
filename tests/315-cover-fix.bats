#!/usr/bin/env bats
# cover-fix: a predicted cover completed, a predicted
# packing made feasible, against tests/tools/cover_fix_oracle.py.
load test_helper

ALGO="$DAR_TOOLS/algo_trace"
ORACLE="$ROOT/tests/tools/cover_fix_oracle.py"

# 300 traced instances with their optimum and noisy predictions of the
# algorithm's cover and packing: some nodes dropped, some edges overloaded.
noisy_predictions() { # out
    {
        for fam in barabasi-albert erdos-renyi star lobster; do
            gen-graphs --instance vertex-cover --family $fam --nodes 14 --count 50 --seed 31
        done
        gen-graphs --instance vertex-cover --family bipartite-sides --nodes 16 --p 0.1:0.5 --count 50 --seed 32
        gen-graphs --instance vertex-cover --family erdos-renyi --nodes 12 --count 50 --seed 33 --node-weights unit
    } | "$ALGO" --algorithm vertex-cover --no-hints --exact > "$T/t.mp"
    "$PY" "$ORACLE" perturb "$T/t.mp" "$1" 5
}

@test "vertex cover: 300 noisy predictions become covers (PDNAR's w/d completion) and feasible packings, as the oracle's" {
    noisy_predictions "$T/p.mp"
    cover-fix < "$T/p.mp" > "$T/f.mp"
    run "$PY" "$ORACLE" check "$T/f.mp" 300 ratio
    assert_success
    echo "$output" >&3
    # the noise did leave edges uncovered and nodes overloaded: the repair was exercised
    [ "$(mpcat < "$T/f.mp" | jq -s 'map(.cover_added) | add')" -gt 300 ]
    [ "$(mpcat < "$T/f.mp" | jq -s 'map(select(.packing_excess > 0)) | length')" -gt 250 ]
}

@test "vertex cover: --complete score takes the higher-scored endpoint of each uncovered edge, as the oracle's" {
    noisy_predictions "$T/p.mp"
    cover-fix --complete score < "$T/p.mp" > "$T/f.mp"
    run "$PY" "$ORACLE" check "$T/f.mp" 300 score
    assert_success
}

@test "vertex cover: the algorithm's own cover and packing pass through unchanged" {
    gen-graphs --instance vertex-cover --family barabasi-albert --nodes 40 --count 30 --seed 4 \
        | "$ALGO" --algorithm vertex-cover --no-hints > "$T/t.mp"
    cover-fix --key cover --dual-key packing < "$T/t.mp" > "$T/f.mp"
    py_stream "$T/f.mp" '
for r in recs:
    assert r["cover_added"] == 0 and (r["fixed_cover"] == r["cover"]).all()
    assert np.allclose(r["fixed_packing"], r["packing"], rtol=1e-8, atol=0)
    assert r["packing_excess"] < 1e-12
print(len(recs))' | grep -qx 30
}

@test "vertex cover: without a packing key only the cover is repaired" {
    gen-graphs --instance vertex-cover --family star --nodes 10 --count 3 --seed 1 \
        | "$ALGO" --algorithm vertex-cover --no-hints > "$T/t.mp"
    cover-fix --key cover --dual-key none < "$T/t.mp" | mpcat \
        | jq -e -s 'all(has("fixed_cover") and (has("fixed_packing") | not) and (has("packing_value") | not))'
}

@test "vertex cover: a missing, short or non-finite prediction, missing or negative weights: one line, exit 65" {
    gen-graphs --instance vertex-cover --family star --nodes 6 --count 2 --seed 1 \
        | "$ALGO" --algorithm vertex-cover --no-hints > "$T/t.mp"
    run --separate-stderr cover-fix < "$T/t.mp"
    assert_failure 65
    assert_one_line_error cover-fix
    [[ "$stderr" == "cover-fix: record 0: missing key 'pred_cover' (the predicted cover's node scores; choose another with --key)" ]] || fail "$stderr"
    mpcat < "$T/t.mp" | jq -c '.pred_cover = {"dtype": "<f4", "shape": [2], "data": [0.5, 0.5]}' \
        | mpcat --to-msgpack > "$T/short.mp"
    run --separate-stderr cover-fix < "$T/short.mp"
    assert_failure 65
    assert_one_line_error cover-fix
    [[ "$stderr" == *"'pred_cover' must be a vector of 6 numbers"* ]] || fail "$stderr"
    "$PY" - "$T/t.mp" "$T/nan.mp" <<'PYEOF'
import sys, msgpack, msgpack_numpy as mn, numpy as np
out = open(sys.argv[2], "wb")
for r in msgpack.Unpacker(open(sys.argv[1], "rb"), object_hook=mn.decode, raw=False):
    r["pred_cover"] = np.zeros(r["n"], np.float32)
    r["pred_packing"] = np.full(r["m"], np.nan, np.float32)
    out.write(msgpack.packb(r, default=mn.encode))
PYEOF
    run --separate-stderr cover-fix < "$T/nan.mp"
    assert_failure 65
    assert_one_line_error cover-fix
    [[ "$stderr" == "cover-fix: record 0: 'pred_packing' entry 0 is nan, expected a finite number" ]] || fail "$stderr"
    mpcat < "$T/t.mp" | jq -c '.pred_cover = .cover | del(.node_w)' | mpcat --to-msgpack > "$T/now.mp"
    run --separate-stderr cover-fix < "$T/now.mp"
    assert_failure 65
    [[ "$stderr" == "cover-fix: record 0: 'node_w' is missing (vertex-cover needs node weights)" ]] || fail "$stderr"
    mpcat < "$T/t.mp" | jq -c '.pred_cover = .cover | .node_w.data[2] = -1' | mpcat --to-msgpack > "$T/neg.mp"
    run --separate-stderr cover-fix < "$T/neg.mp"
    assert_failure 65
    assert_one_line_error cover-fix
}

@test "vertex cover: the same input gives the same bytes" {
    noisy_predictions "$T/p.mp"
    cover-fix < "$T/p.mp" | xxh128sum > "$T/a"
    cover-fix < "$T/p.mp" | xxh128sum > "$T/b"
    cmp "$T/a" "$T/b"
}
