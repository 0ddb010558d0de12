#!/usr/bin/env bats
# match-fix (the repair of a matching model's scores) and the matching rows
# of metrics: repaired matchings and covers are always valid, the trace's own
# solution is certified, random scores are not; bad input one line, exit 65.
load test_helper

setup_file() {
    export DAR_CACHE=off
    local d="$BATS_FILE_TMPDIR"
    {
        gen-graphs --instance matching --family bipartite-sides --sides 8,8 --p 0.25 --count 40 --seed 3
        gen-graphs --instance matching --family bipartite-sides --sides 4,12 --p 0.1:0.6 --count 40 --seed 4
        gen-graphs --instance matching --family bipartite-sides --sides 2,2 --p 0 --count 2 --seed 5
    } | ff-trace --algorithm matching > "$d/g.mp"
}

# validity of every repaired matching and cover, by Python
check_valid() {
    py_stream "$1" '
for r in recs:
    src, dst, n = r["src"], r["dst"], r["n"]
    used = np.zeros(n, int)
    np.add.at(used, src[r["fixed_match"] == 1], 1); np.add.at(used, dst[r["fixed_match"] == 1], 1)
    assert used.max(initial=0) <= 1, "a node matched twice"
    assert r["fixed_match"].sum() == r["fixed_match_size"] <= r["size"]
    if "fixed_cover" in r:
        c = r["fixed_cover"]
        assert all(c[u] or c[v] for u, v in zip(src, dst)), "an edge left uncovered"
        assert c.sum() == r["fixed_cover_size"] >= r["size"]
        assert bool(r["cover_valid_before"]) == all(r["pred_cover"][u] >= 0.5 or r["pred_cover"][v] >= 0.5 for u, v in zip(src, dst))
print(len(recs))
'
}

@test "match-fix: random scores give a valid matching and cover (never larger, never smaller than nu), the same bytes twice" {
    dar-step --baseline random --algorithm matching --seed 2 < "$BATS_FILE_TMPDIR/g.mp" > "$T/r.mp"
    match-fix < "$T/r.mp" > "$T/f.mp"
    match-fix < "$T/r.mp" | cmp - "$T/f.mp"
    run check_valid "$T/f.mp"
    assert_success
    assert_output 82
    # without pred_cover only the matching
    py_stream "$T/r.mp" "
import msgpack
with open('$T/nocover.mp', 'wb') as f:
    for r in recs:
        del r['pred_cover']; f.write(msgpack.packb(r, default=msgpack_numpy.encode, use_bin_type=True))
"
    match-fix < "$T/nocover.mp" | mpcat | jq -c 'keys_unsorted[-2:]' | sort -u > "$T/keys"
    [ "$(cat "$T/keys")" = '["fixed_match","fixed_match_size"]' ]
}

@test "metrics: the trace's own matching and cover as predictions score F1 1, ratios 1, all valid and certified; random scores F1 < 1, certified < 1" {
    py_stream "$BATS_FILE_TMPDIR/g.mp" "
import msgpack
with open('$T/exact.mp', 'wb') as f:
    for r in recs:
        r['pred_match'] = r['match'].astype('<f4'); r['pred_cover'] = r['cover'].astype('<f4')
        f.write(msgpack.packb(r, default=msgpack_numpy.encode, use_bin_type=True))
"
    match-fix < "$T/exact.mp" | metrics > "$T/m.mp"
    py_stream "$T/m.mp" "
m = {r['name']: (r['value'], r['count']) for r in recs}
assert list(m) == ['match_f1', 'match_ratio', 'cover_valid_before', 'cover_ratio', 'certified'], list(m)
assert all(v == 1 for v, c in m.values()), m
assert m['match_f1'][1] == 82 and m['certified'][1] == 82 and m['match_ratio'][1] == 80, m
"
    dar-step --baseline random --algorithm matching < "$BATS_FILE_TMPDIR/g.mp" | match-fix | metrics > "$T/r.mp"
    py_stream "$T/r.mp" "
m = {r['name']: r['value'] for r in recs}
assert m['match_f1'] < 0.9 and m['match_ratio'] < 1 and m['cover_ratio'] > 1 and m['certified'] < 0.5, m
"
    # per graph: one record per graph and quantity, pooling to the totals
    dar-step --baseline random --algorithm matching < "$BATS_FILE_TMPDIR/g.mp" | match-fix |
        metrics --per-graph "$T/pg.mp" > "$T/r2.mp"
    cmp "$T/r.mp" "$T/r2.mp"
    py_stream "$T/pg.mp" "
import collections
by = collections.defaultdict(lambda: [0.0, 0])
for r in recs:
    by[r['name']][0] += r['sum']; by[r['name']][1] += r['count']
tot = {r['name']: r for r in msgpack.Unpacker(open('$T/r.mp', 'rb'), raw=False)}
for k, (s, c) in by.items():
    assert c == tot[k]['count'] and abs(s / c - tot[k]['value']) < 1e-12, k
assert sorted(by) == sorted(tot)
"
}

@test "match-fix: bad input one line and exit 65 (no pred_match, a score outside [0, 1], no sides)" {
    dar-step --baseline random --algorithm matching < "$BATS_FILE_TMPDIR/g.mp" > "$T/r.mp"
    py_stream "$T/r.mp" "
import msgpack
def dump(name, r):
    open('$T/' + name + '.mp', 'wb').write(msgpack.packb(r, default=msgpack_numpy.encode, use_bin_type=True))
r = dict(recs[0]); del r['pred_match']; dump('no-pred', r)
r = dict(recs[0]); r['pred_match'] = r['pred_match'].copy(); r['pred_match'][1] = float('nan'); dump('nan', r)
r = dict(recs[0]); r['pred_cover'] = r['pred_cover'].copy(); r['pred_cover'][0] = 1.5; dump('big', r)
r = dict(recs[0]); del r['side']; dump('no-side', r)
"
    run -65 --separate-stderr match-fix -i "$T/no-pred.mp"
    assert_one_line_error match-fix
    [[ "$stderr" == *"record 0: missing key 'pred_match'"* ]] || fail "$stderr"
    run -65 --separate-stderr match-fix -i "$T/nan.mp"
    assert_one_line_error match-fix
    [[ "$stderr" == *"'pred_match' entry 1 is nan, expected a score in [0, 1]"* ]] || fail "$stderr"
    run -65 --separate-stderr match-fix -i "$T/big.mp"
    assert_one_line_error match-fix
    [[ "$stderr" == *"'pred_cover' entry 0 is 1.5"* ]] || fail "$stderr"
    run -65 --separate-stderr match-fix -i "$T/no-side.mp"
    assert_one_line_error match-fix
    [[ "$stderr" == *"'side' is missing (match-fix needs a side per node)"* ]] || fail "$stderr"
}

@test "match-fix: greedy by score over every edge gives a maximal matching; --threshold 0.5 takes no edge scored below it" {
    dar-step --baseline random --algorithm matching --seed 4 < "$BATS_FILE_TMPDIR/g.mp" > "$T/r.mp"
    match-fix < "$T/r.mp" > "$T/all.mp"
    match-fix --threshold 0.5 < "$T/r.mp" > "$T/half.mp"
    run py_stream "$T/all.mp" '
for r in recs:
    free = np.ones(r["n"], bool)
    free[r["src"][r["fixed_match"] == 1]] = False; free[r["dst"][r["fixed_match"] == 1]] = False
    assert not any(free[u] and free[v] for u, v in zip(r["src"], r["dst"])), "an edge with both ends free: not maximal"
    # greedy: an edge left out has a taken neighbour edge of a score at least its own
    for e in np.flatnonzero(r["fixed_match"] == 0):
        u, v = r["src"][e], r["dst"][e]
        rivals = [f for f in np.flatnonzero(r["fixed_match"] == 1) if {r["src"][f], r["dst"][f]} & {u, v}]
        assert any(r["pred_match"][f] >= r["pred_match"][e] for f in rivals), (e, rivals)
print("ok")
'
    assert_success
    assert_output ok
    run py_stream "$T/half.mp" '
taken = below = 0
for r in recs:
    taken += int(r["fixed_match"].sum())
    below += int(((r["fixed_match"] == 1) & (r["pred_match"] < 0.5)).sum())
assert below == 0 and taken > 0, (below, taken)
print("ok")
'
    assert_success
    assert_output ok
    [ "$(mpcat < "$T/all.mp" | jq -s 'map(.fixed_match_size) | add')" -gt "$(mpcat < "$T/half.mp" | jq -s 'map(.fixed_match_size) | add')" ]
}
