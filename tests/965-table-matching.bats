#!/usr/bin/env bats
# make table-matching on the smoke profile: matching's tables end to end
# (data, three trainings, match-fix, the random baseline and the exact
# solver, metrics --table) with issue 24's claims, and a second run that
# trains nothing.
load test_helper

setup_file() {
    export MT_STUDY_OUT="$BATS_FILE_TMPDIR/out" MT_STUDY_CACHE="$BATS_FILE_TMPDIR/cache"
    export BATS_NO_PARALLELIZE_WITHIN_FILE=true
}

table_matching() {
    DAR_CACHE="$MT_STUDY_CACHE" make --no-print-directory -s -C "$ROOT" -j2 PROFILE=smoke OUT="$MT_STUDY_OUT" \
        DAR_BIN="$DAR_BIN" table-matching
}

@test "make table-matching (smoke): a table per test set, every variant, random and the exact solver, and the claims" {
    run table_matching
    assert_success
    for set in "16 nodes (8+8, p = 1/4: the training distribution)" "sparse, 32 nodes" "unbalanced, 32 nodes (8+24"; do
        assert_line --partial "**Matching, trained on 4,4 nodes, tested on $set"
    done
    [ "$(printf '%s\n' "$output" | grep -c '^| model | match_f1 | match_ratio | cover_valid_before | cover_ratio | certified |$')" -eq 3 ]
    for row in "PGN-max (dual)" "PGN-max (primal)" "PGN-max (no-algo)" "Random"; do
        [ "$(printf '%s\n' "$output" | grep -c "^| $row | [0-9.]* (1) |")" -eq 3 ] || fail "$row"
    done
    # the exact solver is 1, 1, 100 %, 1, 100 % by construction
    [ "$(printf '%s\n' "$output" | grep -c '^| Exact (the trace) | 1.000 (1) | 1.000 (1) | 100.0% (1) | 1.000 (1) | 100.0% (1) |$')" -eq 3 ]
    # the primal and no-algo have no cover
    assert_line --regexp '^\| PGN-max \(primal\) \| [^|]* \| [^|]* \| - \| - \| - \|$'
    assert_line --regexp '^- "The dual.s cover makes the matching better out of distribution": \*\*(holds|does not hold)\*\* \(mean \|M\|/nu over the 2 out-of-distribution sets'
    assert_line --partial '"The repaired dual certifies optimality on X % of 64-node graphs": no 64-node set in this profile.'
}

@test "make table-matching (smoke): a second run trains nothing and prints the same bytes" {
    table_matching > "$BATS_TEST_TMPDIR/first.md"
    misses=$(grep -c '^miss dar-fit' "$MT_STUDY_CACHE/log")
    [ "$misses" -eq 3 ]
    rm -rf "$MT_STUDY_OUT"
    table_matching > "$BATS_TEST_TMPDIR/second.md"
    cmp "$BATS_TEST_TMPDIR/first.md" "$BATS_TEST_TMPDIR/second.md"
    [ "$(grep -c '^miss dar-fit' "$MT_STUDY_CACHE/log")" -eq "$misses" ]
}
