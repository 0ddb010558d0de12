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
