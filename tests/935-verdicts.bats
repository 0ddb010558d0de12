#!/usr/bin/env bats
# The verdict rule of pipelines/claims.py with intervals (pipelines/bootstrap.py)
# on hand-made score files: per-graph sums and counts as `metrics --per-graph`
# writes them, two seeds per model, the same test graphs for every model.
load test_helper

# make_scores DIR DUAL PRIMAL NOISE: scores/ and graphs/ of dual and primal
# PGN-max on both families, 32 graphs each, seeds 0 and 1: each graph's masked
# MAE is the model's level plus NOISE times a fixed pattern shared by the models
# (the graphs differ, the models are paired on them).
make_scores() {
    "$PY" - "$@" <<'PYEOF'
import math, os, sys, msgpack
out, dual, primal, noise = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
for d in ("scores", "graphs"):
    os.makedirs(os.path.join(out, d), exist_ok=True)
for model, level in (("dual", dual), ("primal", primal)):
    for family in ("2-community", "bipartite"):
        for seed in (0, 1):
            labels = {"model": f"PGN-max ({model})", "seed": str(seed), "family": family}
            graphs, total, count = [], 0.0, 0
            for i in range(32):
                edges = 10 + i % 7
                # the seeds of a model differ a little; the graph pattern dominates
                mae = level + noise * math.sin(1.7 * i + 0.3) + 0.002 * seed
                graphs.append({"kind": "graph_metric", "name": "mae_flow", "graph": i, "sum": mae * edges,
                               "count": edges, "value": mae, "split": "test", "labels": labels})
                total, count = total + mae * edges, count + edges
            name = f"{model}-{family}-s{seed}.mp"
            with open(os.path.join(out, "scores", name), "wb") as f:
                f.write(msgpack.packb({"kind": "metric", "name": "mae_flow", "value": total / count, "count": count,
                                       "split": "test", "labels": labels}))
            with open(os.path.join(out, "graphs", name), "wb") as f:
                for g in graphs:
                    f.write(msgpack.packb(g))
PYEOF
}

# verdict DIR ID: the claim's verdict with intervals, and its line of margins
verdict() {
    "$PY" "$ROOT/pipelines/bootstrap.py" units --rows model --cols family,name --quantity mae_flow "$1"/scores/*.mp > "$1/units.tsv"
    cat "$1"/scores/*.mp | metrics --table tsv --rows model --cols family,name --quantity mae_flow > "$1/table1.tsv"
    "$PY" "$ROOT/pipelines/claims.py" --claims "$ROOT/pipelines/claims.tsv" --paper-dir "$ROOT/pipelines/paper" \
        --table table1="$1/table1.tsv" --units table1="$1/units.tsv" --margins > "$1/claims.out"
    awk -F'\t' -v id="$2" '$1 == id { print $2; getline; print; exit }' "$1/claims.out"
}

@test "bootstrap.py units: one line per cell, seed and graph, with the per-graph sum and count" {
    make_scores "$T/s" 0.20 0.30 0.05
    run "$PY" "$ROOT/pipelines/bootstrap.py" units --rows model --cols family,name --quantity mae_flow "$T"/s/scores/*.mp
    assert_success
    assert_line --index 0 $'row\tcolumn\tmodel\tseed\tgraphset\tgraph\tsum\tcount\tquantity'
    [ "${#lines[@]}" -eq $((1 + 2 * 2 * 2 * 32)) ]
    assert_line --regexp $'^PGN-max \\(dual\\)\t2-community mae_flow\tPGN-max \\(dual\\)\t1\ttest family=2-community\t31\t[0-9.e-]+\t13\tmae_flow$'
    # without a graphs/ file a run is one unit, its value
    rm "$T"/s/graphs/primal-bipartite-s0.mp
    run "$PY" "$ROOT/pipelines/bootstrap.py" units --rows model --cols family,name "$T"/s/scores/primal-bipartite-s0.mp
    assert_line --index 1 --regexp $'^PGN-max \\(primal\\)\tbipartite mae_flow\tPGN-max \\(primal\\)\t0\ttest family=bipartite\t-\t[0-9.e-]+\t1\tmae_flow$'
}

@test "a clear difference holds, one inside the noise is not resolved, a reversed one does not hold" {
    make_scores "$T/clear" 0.20 0.30 0.05
    run verdict "$T/clear" dual-primal-F
    assert_line --index 0 "holds"
    make_scores "$T/noise" 0.299 0.30 0.05
    run verdict "$T/noise" dual-primal-F
    assert_line --index 0 "not resolved at this profile"
    # the means alone (0.299 < 0.300 on both families) would say it holds
    grep -q $'^dual-primal-F\tnot resolved at this profile\t' "$T/noise/claims.out"
    make_scores "$T/reversed" 0.35 0.30 0.05
    run verdict "$T/reversed" dual-primal-F
    assert_line --index 0 "does not hold"
    # the interval is beside the margin: primal minus dual, lying below zero
    assert_line --index 1 --regexp '^  2-community: PGN-max \(dual\) · 2-community mae_flow < PGN-max \(primal\) · 2-community mae_flow: -0\.05 \[-[0-9.]+, -[0-9.]+\] does not hold$'
}

@test "paired over the graphs: a small difference the graphs' spread would hide holds when every graph shows it" {
    # graph-to-graph spread 0.2, difference 0.01 on every graph: unpaired it would not be resolved
    make_scores "$T/paired" 0.29 0.30 0.2
    run verdict "$T/paired" dual-primal-F
    assert_line --index 0 "holds"
}

@test "the bootstrap is seeded: its output is the same bytes on every run" {
    make_scores "$T/a" 0.299 0.30 0.05
    verdict "$T/a" dual-primal-F > /dev/null
    cp "$T/a/claims.out" "$T/first.out"
    verdict "$T/a" dual-primal-F > /dev/null
    cmp "$T/first.out" "$T/a/claims.out"
    grep -q '\[' "$T/first.out"
}

# difference DIR A B: bootstrap.difference of model B minus model A (dual,
# primal) on 2-community F from DIR's scores: point, low, high
difference() {
    "$PY" - "$ROOT/pipelines" "$@" <<'PYEOF'
import glob, os, sys
sys.path.insert(0, sys.argv[1])
import bootstrap
d, a, b = sys.argv[2:5]
side = lambda m: (sorted(glob.glob(os.path.join(d, "scores", f"{m}-*.mp"))), (f"PGN-max ({m})", "test 2-community mae_flow"))
m = bootstrap.difference(side(a), side(b), ["model"], ["split", "family", "name"], "mae_flow")
print(f"{m.point:.4f} {m.low:.4f} {m.high:.4f}")
PYEOF
}

@test "a finding's difference (bootstrap.difference): clear, inside the noise, paired over the graphs, seeded" {
    make_scores "$T/clear" 0.20 0.30 0.05
    run difference "$T/clear" dual primal
    assert_success
    read -r point low high <<< "$output"
    [ "$point" = 0.1000 ] && "$PY" -c "import sys; sys.exit(not 0 < float(sys.argv[1]) <= 0.1 <= float(sys.argv[2]))" "$low" "$high" \
        || fail "$output"
    # 0.0005 apart, the seeds 0.002 apart (resampled apart for two models): the interval holds 0
    make_scores "$T/noise" 0.2995 0.30 0.05
    run difference "$T/noise" dual primal
    read -r point low high <<< "$output"
    "$PY" -c "import sys; sys.exit(not float(sys.argv[1]) < 0 < float(sys.argv[2]))" "$low" "$high" || fail "$output"
    # a spread of 0.2 between graphs, 0.01 on every graph: paired, it is resolved
    make_scores "$T/paired" 0.29 0.30 0.2
    run difference "$T/paired" dual primal
    read -r point low high <<< "$output"
    "$PY" -c "import sys; sys.exit(not float(sys.argv[1]) > 0)" "$low" || fail "$output"
    [ "$(difference "$T/paired" dual primal)" = "$output" ]
}

@test "the paper's values: its std over n = 5 seeds; the bipartite ordering is inside its noise" {
    make_scores "$T/p" 0.20 0.30 0.05
    verdict "$T/p" dual-primal-F > /dev/null
    # dual 0.49 ± 0.22 against primal 0.56 ± 0.23 on bipartite; 0.234 ± 0.002 against 0.266 ± 0.001 on 2-community
    grep -q $'^dual-primal-F\tholds\tnot resolved at this profile\t' "$T/p/claims.out"
    grep -q '^  paper, 2-community: .*: +0.032 \[+0.0[0-9]*, +0.0[0-9]*\] holds$' "$T/p/claims.out"
    grep -q '^  paper, bipartite: .*: +0.07 \[-0.[0-9]*, +0.[0-9]*\] not resolved at this profile$' "$T/p/claims.out"
}

# vessel_scores DIR ROW ACCURACY PRED-SEED...: Table 3 scores of one row on one
# vessel-like graph (3000 edges, 3 classes, 30 % test edges), one trial per
# PRED-SEED, as vessel.mk writes them: each trial's metric records appended
# to scores/, its per-block confusion matrices (metrics --per-graph) to graphs/
vessel_scores() {
    local dir=$1 row=$2 acc=$3 trial=0 seed
    shift 3
    mkdir -p "$dir/scores" "$dir/graphs"
    for seed in "$@"; do
        "$PY" - "$acc" "$seed" <<'PYEOF' | mpcat --to-msgpack \
            | metrics --quantity balanced_accuracy,roc_hard -l "model=$row" -l graph=G -l seed=$trial \
                --per-graph "$dir/trial.tmp" >> "$dir/scores/$row.mp"
import json, random, sys
acc, seed = float(sys.argv[1]), int(sys.argv[2])
rng, r = random.Random(5), random.Random(seed)
m = 3000
label = [rng.randrange(3) for _ in range(m)]
split = [2 if rng.random() < 0.3 else 0 for _ in range(m)]
pred = [l if r.random() < acc else r.randrange(3) for l in label]
u8 = lambda a: {"dtype": "|u1", "shape": [m], "data": a}
print(json.dumps({"kind": "graph", "id": 0, "n": 100, "m": m, "label": u8(label), "pred_label": u8(pred), "split": u8(split)}))
PYEOF
        cat "$dir/trial.tmp" >> "$dir/graphs/$row.mp"
        trial=$((trial + 1))
    done
}

# table3_verdict DIR: the verdict of "LC (dual) beats LC on both metrics"
table3_verdict() {
    printf 'better\tx\t-\tmetric=balanced_accuracy,roc_hard\ttable3[LC (dual) | G {metric}] > table3[LC | G {metric}]\n' > "$1/claims.tsv"
    "$PY" "$ROOT/pipelines/bootstrap.py" units --rows model --cols graph,name --quantity balanced_accuracy,roc_hard "$1"/scores/*.mp > "$1/units.tsv"
    cat "$1"/scores/*.mp | metrics --table tsv --rows model --cols graph,name --quantity balanced_accuracy,roc_hard > "$1/table3.tsv"
    "$PY" "$ROOT/pipelines/claims.py" --claims "$1/claims.tsv" --paper-dir "$ROOT/pipelines/paper" \
        --table table3="$1/table3.tsv" --units table3="$1/units.tsv" --margins > "$1/claims.out"
    cut -f2 "$1/claims.out" | head -1
}

@test "metrics --per-graph: the confusion matrices of 100 blocks of test edges, which pool to the metric" {
    vessel_scores "$T/v" LC 0.7 1
    run mpcat "$T/v/graphs/LC.mp"
    assert_success
    [ "${#lines[@]}" -eq 100 ]
    assert_line --index 0 --regexp '^\{"kind":"graph_metric","name":"confusion","graph":0,"block":0,"count":[0-9]+,"confusion":\[\[0,0,[0-9]+\],.*\],"split":"test","labels":\{"model":"LC","graph":"G","seed":"0"\}\}$'
    # the blocks cover the test edges once; their pooled matrix gives the metric's values
    cd "$ROOT"
    "$PY" - "$T/v" <<'PYEOF'
import sys, msgpack, numpy as np
sys.path.insert(0, "pipelines")
import bootstrap
d = sys.argv[1]
blocks = list(msgpack.Unpacker(open(d + "/graphs/LC.mp", "rb"), raw=False))
metric = {r["name"]: r for r in msgpack.Unpacker(open(d + "/scores/LC.mp", "rb"), raw=False)}
assert sum(b["count"] for b in blocks) == metric["balanced_accuracy"]["count"], "blocks do not cover the test edges"
assert [b["block"] for b in blocks] == list(range(100))
pooled = np.zeros((1, 3, 3))
for b in blocks:
    for a, p, k in b["confusion"]:
        pooled[0, a, p] += k
for q in ("balanced_accuracy", "roc_hard"):
    ours = bootstrap.confusion_score(q, pooled)[0]
    assert abs(ours - metric[q]["value"]) < 1e-12, (q, ours, metric[q]["value"])
PYEOF
}

@test "Table 3: the verdict is decided over the trials and the test edges (a paired block bootstrap)" {
    vessel_scores "$T/clear" LC 0.6 1 2 3
    vessel_scores "$T/clear" "LC (dual)" 0.8 4 5 6
    run table3_verdict "$T/clear"
    assert_output "holds"
    # one unit per block and trial
    [ "$(grep -c $'^LC (dual)\tG balanced_accuracy\tLC (dual)\t[0-2]\ttest graph=G\t[0-9]*:[0-9]*\t' "$T/clear/units.tsv")" -eq 300 ]
    vessel_scores "$T/reversed" LC 0.8 1 2 3
    vessel_scores "$T/reversed" "LC (dual)" 0.6 4 5 6
    run table3_verdict "$T/reversed"
    assert_output "does not hold"
    # the same accuracy: the trials and the edges differ, the interval holds the tie
    vessel_scores "$T/tie" LC 0.7 1 2 3
    vessel_scores "$T/tie" "LC (dual)" 0.7 4 5 6
    run table3_verdict "$T/tie"
    assert_output "not resolved at this profile"
    grep -q '^  balanced_accuracy: LC (dual) · G balanced_accuracy > LC · G balanced_accuracy: [+-][0-9.]* pt \[-[0-9.]* pt, +[0-9.]* pt\] not resolved at this profile$' "$T/tie/claims.out"
    # seeded: the same bytes again
    cp "$T/tie/claims.out" "$T/tie.first"
    table3_verdict "$T/tie" > /dev/null
    cmp "$T/tie.first" "$T/tie/claims.out"
}

@test "a margin names its cells in one pass: a cell whose set is called tc16 is not taken for c1" {
    run "$PY" - <<'PYEOF'
import sys, types
sys.path.insert(0, "pipelines")
import claims
m = types.SimpleNamespace(text="c0 < c1 and c1 < c10", point=0.5, low=0.25, high=0.75)
where = {f"c{i}": ("t", f"M{i} tc16", "q") for i in (0, 1, 10)}
print(claims.margin_text(m, where, lambda margin, where: False))
PYEOF
    assert_success
    assert_output "M0 tc16 · q < M1 tc16 · q and M1 tc16 · q < M10 tc16 · q: +0.5 [+0.25, +0.75]"
}
