#!/usr/bin/env bats
# The core profile's report (pipelines/study.mk, report.mk) on a dry run:
# the claims its rows cannot decide are "not measured at this profile", the
# rest are decided; `make results-core` keeps only a complete report of the
# core profile at its own settings (pipelines/keep-reference.sh).
# The dry run is the profile's own hint (ITERS=20 TEST_COUNT=8) cut further
# (2 iterations, 2 test graphs, a smaller training set and size sweep) so that
# the file stays within a few minutes on a loaded machine: which claims are
# decided depends on the rows trained, not on how well.
load test_helper

setup_file() {
    export C_OUT="$BATS_FILE_TMPDIR/out" C_CACHE="$BATS_FILE_TMPDIR/cache"
    export BATS_NO_PARALLELIZE_WITHIN_FILE=true
}

core() { # make GOAL... on the cut-down core profile
    DAR_CACHE="$C_CACHE" make --no-print-directory -s -C "$ROOT" -j2 PROFILE=core OUT="$C_OUT" DAR_BIN="$DAR_BIN" \
        ITERS=2 TEST_COUNT=2 TRAIN_COUNT=40 VAL_COUNT=8 REPORT_SIZES="8 16" SIZE_COUNT=1 CUTSHARE_COUNT=10 \
        SP_PROFILE=smoke MT_PROFILE=smoke VC_PROFILE=smoke "$@"
}

# The claims the core profile's rows (PGN-max primal, dual, pipeline, no-algo,
# random; Table 2 and R^2 of the first three) decide: every cell they name is
# a row it trains.  Every other claim names a row it does not (PGN-mean,
# MPNN, the vessel rows) and must not be decided.
DECIDED="dual-primal-F dual-primal-Ft dual-baselines dual-cut-100 gap-bipartite random-cut-50 weak-cut-misses r2-dual-0.99 r2-dual-primal"

@test "make report PROFILE=core (dry run): the claims its rows decide are decided, every other is not measured at this profile" {
    run core report
    assert_success
    v="$C_OUT/report/verdicts.tsv"
    [ -f "$v" ] || fail "no verdicts.tsv: $(tail -5 <<<"$output")"
    n=0
    while IFS=$'\t' read -r id verdict _; do
        [ "$id" = id ] && continue
        n=$((n + 1))
        if [[ " $DECIDED " == *" $id "* ]]; then
            [[ "$verdict" == "holds" || "$verdict" == "does not hold" || "$verdict" == "not resolved at this profile" ]] \
                || fail "$id: decided at the core profile, yet '$verdict'"
        else
            [ "$verdict" = "not measured at this profile" ] || fail "$id: names a row the core profile does not train, yet '$verdict'"
        fi
    done < "$v"
    [ "$n" -eq "$(grep -cv $'^\\(#\\|@\\|$\\)' "$ROOT/pipelines/claims.tsv")" ]
    # a claim measured in part says how much, in the report
    md="$C_OUT/report/report.md"
    grep -E '^\| dual-primal-F-all \| ' "$md" | grep -Eq 'not measured at this profile<br>6 of 8 instances not measured; (of the others:<br>PGN-max, [a-z0-9-]+: (fails|not resolved)|the others hold)'
    # the leak finding, this profile's one, is measured, each graph's share kept
    # for the interval, and the report answers whether Table 2 needs it
    [ -f "$C_OUT/report/models/leak-dual-pgn-max-s0.mp" ] && [ -s "$C_OUT/report/graphs/leak-dual-pgn-max-s0.mp" ]
    grep -qE "^Does the paper's Table 2 need the leak\? (yes|partly|no).*\|F - F\*\| [0-9.]+ without the leak, [0-9.]+ with it \(paper 0.34\)" "$md"
}

@test "make results-core refuses another profile, a dry run and an incomplete report, and keeps a complete one" {
    [ -f "$C_OUT/report/report.md" ] || skip "the first test did not run"
    # (make exits 2 when a recipe fails; the script's own status is below)
    run core results-core PROFILE=smoke
    assert_failure
    assert_output --partial "results-core: run it with PROFILE=core"
    # the dry run is the core profile, but not at its 20000 iterations
    run core results-core RESULTS_CORE="$T/kept"
    assert_failure
    assert_output --partial "not at the core profile's 20000 iterations"
    [ ! -e "$T/kept" ]
    # a report of another profile under the core profile's directory
    rep="$T/rep"
    cp -r "$C_OUT/report" "$rep"
    sed -i 's/^- \*\*profile:\*\* core: /- **profile:** smoke: /' "$rep/report.md"
    run bash -c "cd '$ROOT' && bash pipelines/keep-reference.sh '$rep' '$T/kept' '$rep/report.md' '$rep/verdicts.tsv'"
    assert_failure 65
    assert_output --partial "not a report of the core profile (- **profile:** smoke)"
    # at the profile's settings but incomplete: a table missing, a table newer than the report, a verdict missing
    sed -i -e 's/^- \*\*profile:\*\* smoke: /- **profile:** core: /' \
        -e 's/^- \*\*trained:\*\* 2 iterations /- **trained:** 20000 iterations /' -e 's/, 2 test graphs of 64 nodes/, 128 test graphs of 64 nodes/' "$rep/report.md"
    touch -d '1 hour ago' "$rep"/*.tsv
    keep() { bash -c "cd '$ROOT' && bash pipelines/keep-reference.sh '$rep' '$T/kept' '$rep/report.md' '$rep/verdicts.tsv' '$rep/table1.tsv' '$rep/$1'"; }
    run keep nope.tsv
    assert_failure 65
    assert_output --partial "incomplete: no $rep/nope.tsv"
    touch "$rep/table2.tsv"
    run keep table2.tsv
    assert_failure 65
    assert_output --partial "incomplete: $rep/table2.tsv is newer than the report"
    touch -d '1 hour ago' "$rep/table2.tsv"
    cp "$rep/verdicts.tsv" "$T/verdicts.tsv"
    sed -i '$d' "$rep/verdicts.tsv"
    touch -d '1 hour ago' "$rep/verdicts.tsv"
    run keep table2.tsv
    assert_failure 65
    assert_output --partial "incomplete: "
    assert_output --partial " verdicts for "
    cp "$T/verdicts.tsv" "$rep/verdicts.tsv"
    touch -d '1 hour ago' "$rep/verdicts.tsv"
    run keep table2.tsv
    assert_success
    assert_output "$T/kept/: report.md table1.tsv table2.tsv verdicts.tsv "
}

@test "report.md's trainings' time: a resumed training's log counts its time before the resume, a cache hit's has none" {
    mkdir -p "$T/logs"
    # resumed at 2: the rows before have no time, the last says the whole run's
    printf 'iteration\tloss\tseconds\n1\t0.5\t\n2\t0.4\t\n3\t0.3\t125.250\n4\t0.2\t130.750\n' > "$T/logs/resumed.tsv"
    printf 'iteration\tloss\tseconds\n1\t0.5\t1.000\n2\t0.4\t2.000\n' > "$T/logs/fresh.tsv"
    # a cache hit: the log rebuilt from the model record, no time at all
    printf 'iteration\tloss\tseconds\n1\t0.5\t\n2\t0.4\t\n' > "$T/logs/hit.tsv"
    run "$PY" -c 'import importlib.util, sys
spec = importlib.util.spec_from_file_location("report", sys.argv[1])
report = importlib.util.module_from_spec(spec); spec.loader.exec_module(report)
print(report.training_seconds([sys.argv[2]]))' "$ROOT/pipelines/report.py" "$T/logs"
    assert_success
    assert_output "(132.75, 2, 1)"
}

@test "make report again from the cache alone (a fresh out/): it does not fail on the trainings' logs, which hold no time" {
    core report > /dev/null     # nothing to do if the first test ran, else trained into the cache
    run core OUT="$T/again" report
    assert_success
    grep -q "^- \*\*wall time:\*\* .*; the [0-9]* trainings came from the cache, whose logs hold no time" "$T/again/report/report.md" \
        || fail "$(grep 'wall time' "$T/again/report/report.md")"
}
