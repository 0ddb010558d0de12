#!/usr/bin/env bats
# make table-sp on the smoke profile: shortest paths' table end to end (data,
# three trainings, the random baseline, metrics --table) with CLRS's
# published rows, and a second run that trains nothing.
load test_helper

setup_file() {
    export SP_STUDY_OUT="$BATS_FILE_TMPDIR/out" SP_STUDY_CACHE="$BATS_FILE_TMPDIR/cache"
    export BATS_NO_PARALLELIZE_WITHIN_FILE=true
}

table_sp() {
    DAR_CACHE="$SP_STUDY_CACHE" make --no-print-directory -s -C "$ROOT" -j2 PROFILE=smoke OUT="$SP_STUDY_OUT" \
        DAR_BIN="$DAR_BIN" table-sp
}

@test "make table-sp (smoke): dual, primal, no-algo and random beside CLRS's published Bellman-Ford scores" {
    run table_sp
    assert_success
    assert_line --partial "Shortest paths (Bellman-Ford), trained at 8 nodes, tested at 16 — smoke profile"
    assert_line "| model | pointer_accuracy | mae_d | feasible_edges | path_optimal | path_gap |"
    for row in "PGN-max (dual)" "PGN-max (primal)" "PGN-max (no-algo)" "Random"; do
        assert_line --regexp "^\| $(printf '%s' "$row" | sed 's/[()]/\\&/g') \| [0-9.]+% \(1\) \|"
    done
    assert_line "| MPNN (CLRS, published; Ibarz et al. 2022) | 92.01% | - | - | - | - |"
    assert_line "| Triplet-GMPNN (CLRS, published; Ibarz et al. 2022) | 97.39% | - | - | - | - |"
    # every claim of pipelines/claims-sp.tsv, each with a verdict decided with intervals
    assert_line --regexp '^Claims \(pipelines/claims-sp.tsv\), each comparison decided by a paired bootstrap over the 6 test graphs'
    n=0
    for id in $(grep -v '^[#@]' "$ROOT/pipelines/claims-sp.tsv" | cut -f1 | grep .); do
        n=$((n + 1))
        assert_line --regexp "^- \`$id\` .*: \*\*(holds|does not hold|not resolved at this profile)\*\* \(.*: [+-][0-9.]+( pt)? \[[+-][0-9.e-]+( pt)?, [+-][0-9.e-]+( pt)?\]"
    done
    [ "$n" -ge 5 ]
    assert_line --regexp "^- \`sp-dual-primal\` \"The dual's potentials improve out-of-distribution pointer accuracy\""
    assert_line --regexp '^- `sp-noalgo` "No-algo is worse than both"'
    # the intervals come from each test graph's score (metrics --per-graph), not from the means
    [ "$(grep -c $'\tPGN-max (dual)\t0\ttest\t' "$SP_STUDY_OUT/shortest-paths/table-sp.units.tsv")" -eq $((6 * 5)) ]
    # the primal and no-algo predict no potentials
    assert_line --regexp '^\| PGN-max \(primal\) \| [^|]* \| - \| - \| [^|]* \| [^|]* \|$'
}

@test "make table-sp (smoke): a second run trains nothing and prints the same bytes" {
    table_sp > "$BATS_TEST_TMPDIR/first.md"
    misses=$(grep -c '^miss dar-fit' "$SP_STUDY_CACHE/log")
    [ "$misses" -eq 3 ]
    rm -rf "$SP_STUDY_OUT"
    table_sp > "$BATS_TEST_TMPDIR/second.md"
    cmp "$BATS_TEST_TMPDIR/first.md" "$BATS_TEST_TMPDIR/second.md"
    [ "$(grep -c '^miss dar-fit' "$SP_STUDY_CACHE/log")" -eq "$misses" ]
}

# The clrs profile (CLRS-30's protocol) at toy sizes: the budgets' chain
# (500 -> 2000 -> full, here 2 -> 4: each --resume's the one before) and
# the second table on CLRS-30's test split.
@test "make table-sp SP_PROFILE=clrs (toy sizes): the budgets resume one another; every model scored on CLRS-30's split too" {
    local out="$BATS_FILE_TMPDIR/clrs"
    run env DAR_CACHE="$SP_STUDY_CACHE" make --no-print-directory -s -C "$ROOT" -j2 PROFILE=smoke SP_PROFILE=clrs \
        OUT="$out" DAR_BIN="$DAR_BIN" SP_TRAIN_COUNT=20 SP_VAL_COUNT=4 SP_TEST_COUNT=3 SP_ITERS=4 SP_BUDGETS=2 \
        SP_SEEDS=0 SP_EVAL_EVERY=2 SP_FIT_EXTRA="-H 8 --pointer-head edge --layer-norm --gate --soft-hints --tf-decay 0 --clip-norm 1" \
        table-sp
    assert_success
    assert_line --partial "clrs profile: CLRS-30's protocol"
    assert_line --regexp '^\| PGN-max \(dual\) after 2 iterations \| [0-9.]+% \(1\) \|'
    assert_line --regexp '^\| PGN-max \(dual\) \| [0-9.]+% \(1\) \|'
    # the dual with triplet messages, a configuration of the profile
    assert_line --regexp '^\| Triplet-PGN-max \(dual\) after 2 iterations \| [0-9.]+% \(1\) \|'
    assert_line --regexp '^\| Triplet-PGN-max \(dual\) \| [0-9.]+% \(1\) \|'
    assert_line --regexp '^\| Triplet-PGN-max \(dual\) at its last iteration \| [0-9.]+% \(1\) \|'
    # ... and with the learning rate's cosine decay
    assert_line --regexp '^\| Triplet-PGN-max \(dual, cosine\) after 2 iterations \| [0-9.]+% \(1\) \|'
    assert_line --regexp '^\| Triplet-PGN-max \(dual, cosine\) at its last iteration \| [0-9.]+% \(1\) \|'
    assert_line --partial "The same models on CLRS-30's test split for bellman_ford (32 graphs of 64 nodes"
    # the full run depends on the 2-iteration model and resumes it ...
    touch "$out/shortest-paths/models/dual-i2-s0.mp"
    run make --no-print-directory -n -s -C "$ROOT" PROFILE=smoke SP_PROFILE=clrs OUT="$out" DAR_BIN="$DAR_BIN" \
        SP_TRAIN_COUNT=20 SP_VAL_COUNT=4 SP_TEST_COUNT=3 SP_ITERS=4 SP_BUDGETS=2 SP_SEEDS=0 SP_EVAL_EVERY=2 \
        SP_FIT_EXTRA="-H 8" "$out/shortest-paths/models/dual-s0.mp" "$out/shortest-paths/scores/dual-s0.mp"
    assert_output --partial "--iters 4 "
    assert_output --partial "--resume $out/shortest-paths/models/dual-i2-s0.mp"
    refute_output --partial "dual-i2-s0.mp.tmp"
    # the score's target waits for the shorter budget too: without it, make -n lists dual-i2-s0's own recipe first
    rm "$out/shortest-paths/models/dual-i2-s0.mp"
    run make --no-print-directory -n -s -C "$ROOT" PROFILE=smoke SP_PROFILE=clrs OUT="$out" DAR_BIN="$DAR_BIN" \
        SP_TRAIN_COUNT=20 SP_VAL_COUNT=4 SP_TEST_COUNT=3 SP_ITERS=4 SP_BUDGETS=2 SP_SEEDS=0 SP_EVAL_EVERY=2 \
        SP_FIT_EXTRA="-H 8" "$out/shortest-paths/scores/dual-s0.mp"
    assert_output --partial "--iters 2 "
    [[ "$output" == *"--iters 2 "*"--iters 4 "* ]]
    # put the 2-iteration model back for what follows
    DAR_CACHE="$SP_STUDY_CACHE" make --no-print-directory -s -C "$ROOT" PROFILE=smoke SP_PROFILE=clrs OUT="$out" \
        DAR_BIN="$DAR_BIN" SP_TRAIN_COUNT=20 SP_VAL_COUNT=4 SP_TEST_COUNT=3 SP_ITERS=4 SP_BUDGETS=2 SP_SEEDS=0 \
        SP_EVAL_EVERY=2 SP_FIT_EXTRA="-H 8 --pointer-head edge --layer-norm --gate --soft-hints --tf-decay 0 --clip-norm 1" \
        "$out/shortest-paths/models/dual-i2-s0.mp"
    # ... and gives the same bytes as one run of 4 iterations
    dar-fit --variant dual --processor pgn --agg max --seed 0 --iters 4 --eval-every 2 --threads 1 --optim adam \
        --lr 0.001 --weight-decay 0 -H 8 --pointer-head edge --layer-norm --gate --soft-hints --tf-decay 0 \
        --clip-norm 1 --val "$out/shortest-paths/data/val.mp" -q --no-cache < "$out/shortest-paths/data/train.mp" \
        > "$BATS_FILE_TMPDIR/straight.mp"
    run py_stream "$out/shortest-paths/models/dual-s0.mp" '
import numpy as np
a = recs[0]
b = list(msgpack.Unpacker(open("'"$BATS_FILE_TMPDIR/straight.mp"'", "rb"), object_hook=msgpack_numpy.decode, raw=False))[0]
assert a["provenance"]["iterations"] == 4
assert all(np.array_equal(a["params"][k], b["params"][k]) for k in b["params"]), "resumed != straight"
print("ok")'
    assert_success
    # the triplet configuration's model was trained with --triplets, the others without
    run py_stream "$out/shortest-paths/models/dual-triplets-i2-s0.mp" 'print(recs[0]["triplets"])'
    assert_output True
    run py_stream "$out/shortest-paths/models/dual-i2-s0.mp" 'print(recs[0].get("triplets", False))'
    assert_output False
    # the cosine's horizon is the full run's, at every budget: one schedule
    run py_stream "$out/shortest-paths/models/dual-triplets-cosine-i2-s0.mp" 'print(recs[0]["provenance"]["args"])'
    assert_line lr-schedule=cosine
    assert_line lr-horizon=4
    run py_stream "$out/shortest-paths/models/dual-triplets-s0.mp" 'print(recs[0]["provenance"]["args"])'
    refute_output --partial "lr-schedule"
    # CLRS-30's split: 32 graphs of 64 nodes scored per model
    run py_stream "$out/shortest-paths/scores-clrs30/dual-s0.mp" '
r = [x for x in recs if x["name"] == "pointer_accuracy"][0]
assert r["count"] == 32 * 64, r["count"]
print("ok")'
    assert_success
}

# The clrs profile's committed models (results/clrs/models/) score on
# CLRS-30's split what results/clrs/README.md says they do, on this CPU and
# thread count: a user's dar-step gets the table's numbers.
@test "results/clrs/models: the dual's last-iteration models of 3 seeds score 98.73, 98.93 and 99.02 % on CLRS-30's split, the triplets' seed 0 99.17 %, with the cosine decay 99.32, 99.32, 99.41 %, no-algo's seed 0 99.46 %" {
    ff-trace --algorithm shortest-paths -q < "$ROOT/pipelines/data/clrs30-bellman-ford-test.mp" > "$T/clrs30.mp"
    for pair in dual-last-s0:0.9873046875 dual-last-s1:0.9892578125 dual-last-s2:0.990234375 \
                dual-triplets-last-s0:0.99169921875 dual-triplets-cosine-last-s0:0.9931640625 \
                dual-triplets-cosine-last-s1:0.9931640625 dual-triplets-cosine-last-s2:0.994140625 \
                noalgo-last-s0:0.99462890625; do
        dar-step --no-cache --threads 2 --model "$ROOT/results/clrs/models/shortest-paths-${pair%%:*}.mp" \
            < "$T/clrs30.mp" | metrics --quantity pointer_accuracy | mpcat > "$T/acc.json"
        run jq -r .value "$T/acc.json"
        assert_output "${pair#*:}"
    done
}

@test "make table-sp SP_PROFILE=clrs SP_KEPT=dir: kept models scored again with no training, their table and claims as the run that made them" {
    mkdir -p "$T/kept"
    cp "$ROOT"/results/clrs/models/shortest-paths-dual-last-s{0,1,2}.mp "$T/kept/"
    run env DAR_CACHE="$T/cache" make --no-print-directory -s -C "$ROOT" -j2 SP_PROFILE=clrs SP_KEPT="$T/kept" \
        OUT="$T/out" DAR_BIN="$DAR_BIN" table-sp
    assert_success
    # the mean of 98.73, 98.93 and 99.02 % (the test above), and the claim it decides
    assert_line --regexp '^\| PGN-max \(dual\) at its last iteration \| 98\.9% ± 0\.1 \(3\) \|'
    assert_line --partial '`sp-clrs-bar-last` The same with each run'"'"'s last iteration'"'"'s parameters (dar-fit --keep last) in place of the best validated: **holds**'
    assert_line --partial '`sp-clrs-peer` The same after 10,000 (the profile'"'"'s full budget): **not measured at this profile**'
    # nothing trained: no training data, no training log, no dar-fit in the cache's log
    [ ! -e "$T/out/shortest-paths/data/train.mp" ] && [ ! -e "$T/out/shortest-paths/logs" ]
    run grep -c ' dar-fit ' "$T/cache/log"
    assert_output 0
}

@test "make table-sp SP_PEER=... with a kept peer run (SP_PEER_KEPT): its rows and predictions copied and scored, nothing run" {
    mkdir -p "$T/kept" "$T/peer/triplet_gmpnn-n10000-s0"
    cp "$ROOT/results/clrs/models/shortest-paths-dual-s0.mp" "$T/kept/"
    sp() {
        DAR_CACHE="$T/cache" make --no-print-directory -s -C "$ROOT" SP_PROFILE=clrs SP_KEPT="$T/kept" SP_SEEDS=0 \
            SP_PEER=triplet_gmpnn SP_PEER_STEPS=10000 SP_PEER_KEPT="$T/peer" OUT="$T/out" DAR_BIN="$DAR_BIN" "$@"
    }
    sp "$T/out/shortest-paths/data/test.mp" "$T/out/shortest-paths/data/clrs30.mp"
    # a peer that names every true parent, on both test sets
    /usr/bin/python3 - "$T/out/shortest-paths/data" "$T/peer/triplet_gmpnn-n10000-s0" <<'PY'
import sys, msgpack, msgpack_numpy, numpy as np
for name, out in (("test", "dar64"), ("clrs30", "clrs30")):
    recs = list(msgpack.Unpacker(open(f"{sys.argv[1]}/{name}.mp", "rb"), object_hook=msgpack_numpy.decode, raw=False))
    np.save(f"{sys.argv[2]}/{out}-10000.npy", np.stack([r["pi"] for r in recs]).astype(np.int32))
PY
    printf 'seed\tprocessor\tstep\n0\ttriplet_gmpnn\t10000\n' > "$T/peer/triplet_gmpnn-n10000-s0.tsv"
    run sp table-sp
    assert_success
    cmp "$T/peer/triplet_gmpnn-n10000-s0.tsv" "$T/out/shortest-paths/peer/triplet_gmpnn-n10000-s0.tsv"
    [ ! -e "$T/out/shortest-paths/peer/triplet_gmpnn-n10000-s0.ckpt" ]
    assert_line --regexp '^\| Triplet-GMPNN \(dm-clrs 2\.0\.3 on this machine\) \| 100\.0% \(1\) \|'
    assert_line --partial '`sp-clrs-peer` The same after 10,000 (the profile'"'"'s full budget): **does not hold**'
}

# The committed 10,000-step table is what the committed models and the
# peer's kept runs make: anyone can check the verdicts with no venv and no
# training.
@test "results/clrs/table-sp-peer10k.md: printed again, byte for byte, from results/clrs/models and results/clrs/peer" {
    run env DAR_CACHE="$T/cache" make --no-print-directory -s -C "$ROOT" -j2 SP_PROFILE=clrs SP_KEPT="$ROOT/results/clrs/models" \
        SP_PEER=triplet_gmpnn SP_PEER_STEPS=10000 OUT="$T/out" DAR_BIN="$DAR_BIN" table-sp
    assert_success
    cmp "$T/out/shortest-paths/table-sp.md" "$ROOT/results/clrs/table-sp-peer10k.md"
    [ ! -e "$T/out/shortest-paths/peer/triplet_gmpnn-n10000-s0.ckpt" ]
    run grep -c ' dar-fit ' "$T/cache/log"
    assert_output 0
}
