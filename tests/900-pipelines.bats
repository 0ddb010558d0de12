#!/usr/bin/env bats
# The study's make targets on the smoke profile: every table and figure end to
# end, the paper's rows and columns, and a second run that trains nothing.
load test_helper

setup_file() {
    export STUDY_OUT="$BATS_FILE_TMPDIR/out" STUDY_CACHE="$BATS_FILE_TMPDIR/cache"
    export BATS_NO_PARALLELIZE_WITHIN_FILE=true
}

study() { # target... : make quietly on the smoke profile, the tables on stdout
    DAR_CACHE="$STUDY_CACHE" make --no-print-directory -s -C "$ROOT" -j2 PROFILE=smoke OUT="$STUDY_OUT" DAR_BIN="$DAR_BIN" "$@"
}

@test "make table1 (smoke): every row and column of the paper's Table 1, with the paper's values beside ours" {
    run study table1
    assert_success
    assert_line --partial "Table 1: MAE of the final flow F and the intermediate flows F(t) and min-cut accuracy c — smoke profile"
    assert_line "| model | 2-community mae_flow | 2-community mae_hint_flow | 2-community cut_accuracy | bipartite mae_flow | bipartite mae_hint_flow | bipartite cut_accuracy |"
    for row in "PGN-max (primal)" "PGN-mean (primal)" "MPNN-max (primal)" "MPNN-mean (primal)" \
               "PGN-max (dual)" "PGN-mean (dual)" "MPNN-max (dual)" "MPNN-mean (dual)" \
               "PGN-max (pipeline)" "PGN-mean (pipeline)" "MPNN-max (pipeline)" "MPNN-mean (pipeline)" \
               "Random" "PGN-max (no-algo)"; do
        assert_line --regexp "^\| $(printf '%s' "$row" | sed 's/[()]/\\&/g') \|"
    done
    # 14 rows of 6 cells, each with our value where the paper has one
    [ "$(grep -c '^| .* (2) (paper ' <<<"$output")" -eq 14 ]
    [ "$(grep -o '(paper [^)]*)' <<<"$output" | wc -l)" -eq 70 ]   # every cell the paper fills
    assert_line --partial "| PGN-max (dual) | "
    [[ "$(grep '^| PGN-max (dual)' <<<"$output")" == *"% ± "*"(paper 100.0% ± 0.0)"* ]]
}

@test "a second run trains nothing (all dar-fit cache hits) and prints the same bytes" {
    study table1 > "$BATS_TEST_TMPDIR/first.md"
    misses=$(grep -c '^miss dar-fit' "$STUDY_CACHE/log")
    [ "$misses" -eq 26 ]                        # 13 models x 2 seeds, trained once
    rm -rf "$STUDY_OUT"
    study table1 > "$BATS_TEST_TMPDIR/second.md"
    cmp "$BATS_TEST_TMPDIR/first.md" "$BATS_TEST_TMPDIR/second.md"
    [ "$(grep -c '^miss dar-fit' "$STUDY_CACHE/log")" -eq "$misses" ]
    [ "$(grep -c '^hit dar-fit' "$STUDY_CACHE/log")" -ge 26 ]
    # and with the targets in place make does nothing at all
    run study table1
    assert_success
    [ "$output" = "$(cat "$BATS_TEST_TMPDIR/first.md")" ]
}

@test "table2, table-r2 and table-val (smoke) have the paper's rows and columns" {
    run study table2
    assert_success
    assert_line "| name | PGN-max (primal) | PGN-mean (primal) | PGN-max (dual) | PGN-mean (dual) | PGN-max (pipeline) | PGN-mean (pipeline) |"
    assert_line --regexp '^\| maxflow_error \| [0-9.]+ ± [0-9.]+ \(2\) \(paper 7.860 ± 0.470\) \|'
    run study table-r2
    assert_success
    assert_line "| family | PGN-max (primal) | PGN-mean (primal) | PGN-max (dual) | PGN-mean (dual) | PGN-max (pipeline) | PGN-mean (pipeline) |"
    assert_line --regexp '^\| 2-community \| .*\(paper 1.00 ± 0.00\)'
    assert_line --regexp '^\| bipartite \| '
    run study table-val
    assert_success
    assert_line "| model | mae_flow | mae_hint_flow | cut_accuracy |"
    [ "$(grep -c '^| .* (2) (paper ' <<<"$output")" -eq 14 ]
}

@test "fig-valid and fig-corrective write PNG and SVG; search prints both levels and a winner" {
    run study fig-valid fig-corrective
    assert_success
    for f in fig-valid-pgn fig-valid-mpnn fig-corrective; do
        [ "$(head -c 8 "$STUDY_OUT/$f.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "$f.png is not a PNG"
        grep -q '<svg' "$STUDY_OUT/$f.svg"
    done
    # after flow-fix every inner node balances: the "after" matrix is all zeros but s and t
    run "$PY" -c '
import sys, numpy as np
b = np.loadtxt(sys.argv[1], ndmin=2); a = np.loadtxt(sys.argv[2], ndmin=2)
assert b.shape == a.shape and np.abs(b).max() > 0
assert np.abs(a).max() <= 1e-5 * np.abs(b).max(), np.abs(a).max()
print("ok")' "$STUDY_OUT/corrective-before.tsv" "$STUDY_OUT/corrective-after.tsv"
    assert_output ok
    run study search
    assert_success
    [ "$(grep -c '^| 1 |' <<<"$output")" -eq 2 ]
    [ "$(grep -c '^| 2 |' <<<"$output")" -eq 2 ]
    assert_line --partial "Winner: level "
}
