#!/usr/bin/env bats
# Learning the matching, on a small budget: 300 bipartite graphs of 8+8
# nodes at p = 1/4 (Georgiev & Lio's training distribution), Adam at 1e-3
# (the table's optimiser,
# pipelines/matching.mk) for 400 iterations.  The dual PGN-max's repaired
# matching on 32 fresh graphs of the training size must agree with the
# trace's far more than the random baseline's does.  Training is
# bit-identical, so the figures are exact, not statistical.  At the
# reference's SGD and a few hundred iterations every variant predicted no
# matched edge (match_f1 = 0), with the trace one search a step or one
# BFS round a step alike (branch matching-rounds tried the latter).
#
# One training takes minutes; under the sanitizers it would take most of
# the suite's budget, so this file runs in the normal pass only.
load test_helper

@test "after 400 Adam iterations the dual PGN-max's repaired matching beats the random baseline's at the training size" {
    [ -z "${DAR_ASAN:-}" ] || skip "a training is too slow under the sanitizers (this runs in the normal pass)"
    gen() { gen-graphs --instance matching --family bipartite-sides --sides 8,8 --p 0.25 --count $1 --seed $2 |
        ff-trace --algorithm matching -q; }
    gen 300 301 > "$T/train.mp"
    gen 32 302 > "$T/val.mp"
    gen 32 303 > "$T/test.mp"
    start=$(date +%s)
    dar-fit --variant dual --optim adam --lr 0.001 --iters 400 --eval-every 100 --val "$T/val.mp" -q \
        --log "$T/curve.tsv" < "$T/train.mp" > "$T/dual.mp"
    dar-step --no-cache --model "$T/dual.mp" < "$T/test.mp" | match-fix | metrics --split test -l model=dual > "$T/scores.mp"
    dar-step --baseline random --algorithm matching --seed 0 < "$T/test.mp" | match-fix |
        metrics --split test -l model=random >> "$T/scores.mp"
    metrics --table tsv --rows model --cols name --quantity match_f1,match_ratio,cover_valid_before,certified \
        < "$T/scores.mp" > "$T/table.tsv"
    echo "# a training of 400 iterations and the scoring: $(( $(date +%s) - start )) s" >&3
    sed 's/^/# /' "$T/table.tsv" >&3
    run "$PY" - "$T/table.tsv" <<'PYEOF'
import sys, csv
rows = list(csv.reader(open(sys.argv[1]), delimiter="\t"))
col = {name: i for i, name in enumerate(rows[0])}
val = lambda model, name: float(next(r for r in rows[1:] if r[0] == model)[col[name]])
f1 = {m: val(m, "match_f1") for m in ("dual", "random")}
print(f1)
assert f1["dual"] > 0.6, "the dual's matching F1 is not above 0.6"
assert f1["dual"] > f1["random"] + 0.15, "the dual does not beat random's matching F1 by 0.15"
assert val("dual", "match_ratio") > val("random", "match_ratio"), "the dual's matchings are not larger than random's"
PYEOF
    assert_success
}
