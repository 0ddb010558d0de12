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
    assert_line --index 0 $'row\tcolumn\tmodel\tseed\tgraphset\tgraph\tsum\tcount'
    [ "${#lines[@]}" -eq $((1 + 2 * 2 * 2 * 32)) ]
    assert_line --regexp $'^PGN-max \\(dual\\)\t2-community mae_flow\tPGN-max \\(dual\\)\t1\ttest family=2-community\t31\t[0-9.e-]+\t13$'
    # without a graphs/ file a run is one unit, its value
    rm "$T"/s/graphs/primal-bipartite-s0.mp
    run "$PY" "$ROOT/pipelines/bootstrap.py" units --rows model --cols family,name "$T"/s/scores/primal-bipartite-s0.mp
    assert_line --index 1 --regexp $'^PGN-max \\(primal\\)\tbipartite mae_flow\tPGN-max \\(primal\\)\t0\ttest family=bipartite\t-\t[0-9.e-]+\t1$'
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

@test "the paper's values: its std over n = 5 seeds; the bipartite ordering is inside its noise" {
    make_scores "$T/p" 0.20 0.30 0.05
    verdict "$T/p" dual-primal-F > /dev/null
    # dual 0.49 ± 0.22 against primal 0.56 ± 0.23 on bipartite; 0.234 ± 0.002 against 0.266 ± 0.001 on 2-community
    grep -q $'^dual-primal-F\tholds\tnot resolved at this profile\t' "$T/p/claims.out"
    grep -q '^  paper, 2-community: .*: +0.032 \[+0.0[0-9]*, +0.0[0-9]*\] holds$' "$T/p/claims.out"
    grep -q '^  paper, bipartite: .*: +0.07 \[-0.[0-9]*, +0.[0-9]*\] not resolved at this profile$' "$T/p/claims.out"
}
