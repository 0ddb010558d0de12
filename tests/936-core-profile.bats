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
        SP_PROFILE=smoke MT_PROFILE=smoke VC_PROFILE=smoke MC_PROFILE=smoke "$@"
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
    # results-tables: the same rules, for the tables profile
    run core results-tables PROFILE=core
    assert_failure
    assert_output --partial "results-tables: run it with PROFILE=tables"
    run bash -c "cd '$ROOT' && KEEP_PROFILE=tables bash pipelines/keep-reference.sh '$rep' '$T/kept2' '$rep/report.md' '$rep/verdicts.tsv'"
    assert_failure 65
    assert_output --partial "results-tables: $rep/report.md: not a report of the tables profile (- **profile:** core)"
    [ ! -e "$T/kept2" ]
}

# The tables profile trains every row of Tables 1 and 2 (and the leak's dual
# of each processor and aggregator): on a dry run as cut as the core one,
# no claim of Tables 1 and 2, the validation table or R^2 is "not measured",
# and dual-primal-F-all is decided with the leak too, for all four pairs.
# (EVAL_EVERY=1: the validation curves, which this profile plots, need a point.)
@test "make report PROFILE=tables (dry run): every Table 1, Table 2, validation and R^2 claim is decided, with the leak too" {
    tables() {
        DAR_CACHE="$C_CACHE" make --no-print-directory -s -C "$ROOT" -j2 PROFILE=tables OUT="$T/tables" DAR_BIN="$DAR_BIN" \
            ITERS=2 EVAL_EVERY=1 TEST_COUNT=2 TRAIN_COUNT=40 VAL_COUNT=8 REPORT_SIZES="8 16" SIZE_COUNT=1 CUTSHARE_COUNT=10 \
            SP_PROFILE=smoke MT_PROFILE=smoke VC_PROFILE=smoke MC_PROFILE=smoke "$@"
    }
    run tables report
    assert_success
    v="$T/tables/report/verdicts.tsv"
    [ -f "$v" ] || fail "no verdicts.tsv: $(tail -5 <<<"$output")"
    # the claims before Table 3's (claims.tsv's order): Tables 1, 2, R^2, the validation table
    ids=$(awk -F'\t' '!/^(#|@|$)/ { if ($3 ~ /Table 3|Figure 2|bvg-res/) exit; print $1 }' "$ROOT/pipelines/claims.tsv")
    [ "$(wc -l <<<"$ids")" -ge 20 ] || fail "too few claims before Table 3's: $ids"
    for id in $ids; do
        verdict=$(awk -F'\t' -v id="$id" '$1 == id { print $2 }' "$v")
        [[ "$verdict" == "holds" || "$verdict" == "does not hold" || "$verdict" == "not resolved at this profile" ]] \
            || fail "$id: the tables profile trains its rows, yet '$verdict'"
    done
    for pa in pgn-max pgn-mean mpnn-max mpnn-mean; do
        [ -s "$T/tables/report/models/leak-dual-$pa-s0.mp" ] || fail "no leak dual of $pa"
    done
    # the claims the other way (the leak's duals in place of the duals) decide dual-primal-F-all too
    grep -A40 -i "claims the other way" "$T/tables/report/report.md" | grep -E 'dual-primal-F-all' | grep -vq 'not measured' \
        || fail "dual-primal-F-all with the leak: $(grep -A40 -i 'claims the other way' "$T/tables/report/report.md" | grep dual-primal-F-all)"
    # a dry run is not kept
    run tables results-tables RESULTS_TABLES="$T/kept"
    assert_failure
    assert_output --partial "results-tables: $T/tables/report/report.md: not at the tables profile's 20000 iterations"
    [ ! -e "$T/kept" ]
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
