#!/usr/bin/env bats
# Learning, on a small budget: the quick profile's data (1000 two-community
# graphs of 16 nodes; tests on 8 graphs of 64 nodes) and 100 SGD iterations
# with the reference's hyperparameters.  At this budget the dual PGN-max
# already beats the primal model and the random baseline on the masked MAE
# of the final flow on the 64-node graphs, and predicts the min cut of
# 16-node graphs like its training graphs far better than chance.  Training
# is bit-identical, so the figures are exact, not statistical.  (What 100
# iterations do not reach: the no-algo model is still ahead, and on the
# 64-node graphs the cut accuracy is near 50%: there the min cut is at s or
# at t, on 16 nodes mostly between the communities.  The paper trains 20,000
# iterations; examples/learning.sh runs the comparison at any length.  At
# 4000 iterations, on 128 graphs of 64 nodes: dual 0.258, primal 0.271,
# no-algo 0.331 (1000 iterations, its validation score flat since 100),
# random 0.569; the cut 51.6 % without the authors' leak, 100 % with it.)
#
# Two trainings take about two minutes; under the sanitizers they would take
# most of the suite's budget and test nothing the other dar-fit tests do not,
# so this file runs in the normal pass only.
load test_helper

@test "after 100 iterations the dual PGN-max beats the primal one and the random baseline on 64-node graphs, and cuts 16-node graphs" {
    [ -z "${DAR_ASAN:-}" ] || skip "two trainings are too slow under the sanitizers (this runs in the normal pass)"
    gen-graphs --nodes 16 --count 1000 --seed 101 | ff-trace > "$T/train.mp"
    gen-graphs --nodes 16 --count 32 --seed 102 | ff-trace > "$T/val.mp"
    gen-graphs --nodes 64 --count 8 --seed 103 | ff-trace > "$T/test.mp"
    start=$(date +%s)
    for v in dual primal; do
        dar-fit --variant $v --iters 100 --eval-every 25 --val "$T/val.mp" -q < "$T/train.mp" > "$T/$v.mp"
        dar-step --no-cache --model "$T/$v.mp" < "$T/test.mp" | metrics --quantity mae_flow -l model=$v >> "$T/scores.mp"
    done
    dar-step --baseline random < "$T/test.mp" | metrics --quantity mae_flow -l model=random >> "$T/scores.mp"
    dar-step --no-cache --model "$T/dual.mp" < "$T/test.mp" | metrics --quantity cut_accuracy -l model=dual >> "$T/scores.mp"
    dar-step --no-cache --model "$T/dual.mp" < "$T/val.mp" | metrics --quantity cut_accuracy -l model=dual-16-nodes >> "$T/scores.mp"
    metrics --table tsv --rows model --cols name < "$T/scores.mp" > "$T/table.tsv"
    echo "# 2 trainings of 100 iterations and the scoring: $(( $(date +%s) - start )) s" >&3
    sed 's/^/# /' "$T/table.tsv" >&3
    run "$PY" - "$T/table.tsv" <<'PYEOF'
import sys, csv
rows = list(csv.reader(open(sys.argv[1]), delimiter="\t"))
col = {name: i for i, name in enumerate(rows[0])}
val = lambda model, name: float(next(r for r in rows[1:] if r[0] == model)[col[name]])
mae = {m: val(m, "mae_flow") for m in ("dual", "primal", "random")}
cut16 = val("dual-16-nodes", "cut_accuracy")
print(mae, cut16)
assert mae["dual"] < mae["primal"], "dual does not beat primal"
assert mae["dual"] < mae["random"], "dual does not beat random"
assert cut16 > 0.85, "dual's cut accuracy on 16-node graphs is not above 85% (2 iterations give 83%, chance 50%)"
PYEOF
    assert_success
}
