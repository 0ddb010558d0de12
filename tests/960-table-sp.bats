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
    # issue 23's two claims, each with a verdict on these numbers
    assert_line --regexp '^- "The dual.s potentials improve out-of-distribution pointer accuracy": \*\*(holds|does not hold)\*\* \(dual [0-9.]+%, primal [0-9.]+%\)\.$'
    assert_line --regexp '^- "No-algo is worse than both": \*\*(holds|does not hold)\*\* '
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
