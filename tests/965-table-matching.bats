#!/usr/bin/env bats
# make table-matching on the smoke profile: matching's tables end to end
# (data, three trainings, match-fix, the random baseline and the exact
# solver, metrics --table), the control set (the paper's bipartite graphs,
# with study.mk's max-flow dual on them), issue 24's claims decided with
# intervals (pipelines/claims-matching.tsv), and a second run that trains
# nothing.
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
    for set in "16 nodes (8+8, p = 1/4: the training distribution)" "64 nodes (32+32, p = 1/4)" "sparse, 32 nodes" \
               "unbalanced, 32 nodes (8+24"; do
        assert_line --partial "**Matching, trained on 4,4 nodes, tested on $set"
    done
    [ "$(printf '%s\n' "$output" | grep -c '^| model | match_f1 | match_ratio | cover_valid_before | cover_ratio | certified |$')" -eq 4 ]
    for row in "PGN-max (dual)" "PGN-max (primal)" "PGN-max (no-algo)" "Random"; do
        [ "$(printf '%s\n' "$output" | grep -c "^| $row | [0-9.]* (1) |")" -eq 5 ] || fail "$row"
    done
    # the exact solver is 1, 1, 100 %, 1, 100 % by construction
    [ "$(printf '%s\n' "$output" | grep -c '^| Exact (the trace) | 1.000 (1) | 1.000 (1) | 100.0% (1) | 1.000 (1) | 100.0% (1) |$')" -eq 4 ]
    # the control: the paper's bipartite graphs, the matching rows on them
    # and the max-flow rows the control exists for, beside Table 1's cells
    assert_line --partial "tested on the paper's undirected bipartite graphs, a control: Table 1's out-of-family set at its 64 nodes"
    assert_line --partial "A control because on undirected graphs a max flow is no matching"
    assert_line '| model | match_f1 | match_ratio | cover_valid_before | cover_ratio | certified | mae_flow | cut_accuracy |'
    assert_line '| Exact (the trace) | 1.000 (1) | 1.000 (1) | 100.0% (1) | 1.000 (1) | 100.0% (1) | - | - |'
    assert_line --regexp '^\| Max-flow PGN-max \(dual\) \| - \| - \| - \| - \| - \| [0-9.]+ \(1\) \(paper 0\.490 ± 0\.220\) \| [0-9.]+% \(1\) \(paper 100\.0% ± 0\.0\) \|$'
    assert_line --regexp '^\| Max-flow random \| - \| - \| - \| - \| - \| [0-9.]+ \(1\) \(paper 1\.000 ± 0\.000\) \| [0-9.]+% \(1\) \(paper 50\.0% ± 0\.0\) \|$'
    # both readings of the control are the same 4 graphs: 62 nodes as
    # matching instances, the 64-node networks with s and t for the flow
    [ "$(mpcat < "$MT_STUDY_OUT/matching/data/test-paper.mp" | jq -c '[.n, .m + .n]' | tr '\n' ' ')" = \
      "$(mpcat < "$MT_STUDY_OUT/matching/data/flow-paper.mp" | jq -c '[.n - 2, .m]' | tr '\n' ' ')" ]
    [ "$(mpcat < "$MT_STUDY_OUT/matching/data/flow-paper.mp" | jq -r .family | sort -u)" = bipartite ]
    # the primal and no-algo have no cover
    assert_line --regexp '^\| PGN-max \(primal\) \| [^|]* \| [^|]* \| - \| - \| - \|$'
    # the claims, decided by claims.py with a paired bootstrap: smoke lacks n32
    # and n128, so the out-of-distribution claims are not measured, their
    # measured sets' intervals beside them; n64's certified share is decided
    assert_line --partial 'a paired bootstrap over the 4 test graphs a set and the seeds'
    [ "$(printf '%s\n' "$output" | grep -c '^- `mt-')" -eq "$(grep -c '^mt-' "$ROOT/pipelines/claims-matching.tsv")" ]
    assert_line --regexp '^- `mt-dual-ood` "The dual.s cover makes the matching better out of distribution".*: \*\*not measured at this profile\*\* \(n64: PGN-max \(dual\) n64 · match_ratio > PGN-max \(primal\) n64 · match_ratio: [+-][0-9.e-]+ \[[+-][0-9.e-]+, [+-][0-9.e-]+\];'
    assert_line --regexp '^- `mt-certified` "The repaired dual certifies optimality on X % of 64-node graphs".*: \*\*(holds|does not hold|not resolved at this profile)\*\* \(PGN-max \(dual\) n64 · certified > 0: [+-][0-9.]+ pt \[[+-][0-9.]+ pt, [+-][0-9.]+ pt\]\)$'
    assert_line --regexp '^- `mt-certified-gl` Georgiev & Lio.s "almost 100 %".*: \*\*(holds|does not hold|not resolved at this profile)\*\* \(near\(PGN-max \(dual\) n64 · certified, 1, 0.05\): '
    assert_line --regexp '^- `mt-noalgo` "No-algo is worse than both".*: \*\*not measured at this profile\*\* \(n64: '
    # the units: each graph of each set and row, from the per-graph files
    [ "$(awk -F'\t' '$1 == "PGN-max (dual) sparse" && $2 == "match_ratio"' "$MT_STUDY_OUT/matching/table-matching.units.tsv" | wc -l)" -eq 4 ]
    [ "$(awk -F'\t' '$1 == "Max-flow PGN-max (dual) paper" && $2 == "cut_accuracy"' "$MT_STUDY_OUT/matching/table-matching.units.tsv" | wc -l)" -eq 4 ]
}

@test "make table-matching (smoke): a second run trains nothing and prints the same bytes" {
    table_matching > "$BATS_TEST_TMPDIR/first.md"
    misses=$(grep -c '^miss dar-fit' "$MT_STUDY_CACHE/log")
    # the three matching models and study.mk's max-flow dual (the control's)
    [ "$misses" -eq 4 ]
    rm -rf "$MT_STUDY_OUT"
    table_matching > "$BATS_TEST_TMPDIR/second.md"
    cmp "$BATS_TEST_TMPDIR/first.md" "$BATS_TEST_TMPDIR/second.md"
    [ "$(grep -c '^miss dar-fit' "$MT_STUDY_CACHE/log")" -eq "$misses" ]
}

@test "PAIRS_BIN, PAIRS_CACHE: matching's targets run its tools and cache, and max-flow's dual model they score is still trained by DAR_BIN's into DAR_CACHE" {
    # each tool of DAR_BIN wrapped twice, as 'dar' and 'pairs', writing its
    # wrapper's name, its own and its arguments to a log before it runs
    log="$BATS_TEST_TMPDIR/tools.log"
    for w in dar pairs; do
        mkdir -p "$BATS_TEST_TMPDIR/$w"
        for t in "$DAR_BIN"/*; do
            printf '#!/bin/sh\necho "%s %s $*" >> "%s"\nexec "%s" "$@"\n' "$w" "${t##*/}" "$log" "$t" > "$BATS_TEST_TMPDIR/$w/${t##*/}"
            chmod +x "$BATS_TEST_TMPDIR/$w/${t##*/}"
        done
    done
    out="$BATS_TEST_TMPDIR/out"
    run env DAR_CACHE="$BATS_TEST_TMPDIR/cache" make --no-print-directory -s -C "$ROOT" -j2 PROFILE=smoke OUT="$out" \
        DAR_BIN="$BATS_TEST_TMPDIR/dar" PAIRS_BIN="$BATS_TEST_TMPDIR/pairs" PAIRS_CACHE="$BATS_TEST_TMPDIR/pairs-cache" \
        "$out/matching/scores/flowdual-s0-paper.mp" "$out/matching/models/dual-s0.mp"
    assert_success
    # one training in the run's cache (max-flow's dual), matching's in the pairs' own
    [ "$(grep -c '^miss dar-fit ' "$BATS_TEST_TMPDIR/cache/log")" -eq 1 ]
    [ "$(grep -c '^miss dar-fit ' "$BATS_TEST_TMPDIR/pairs-cache/log")" -eq 1 ]
    grep -q '^miss ff-trace ' "$BATS_TEST_TMPDIR/pairs-cache/log"
    [ -s "$out/matching/scores/flowdual-s0-paper.mp" ] && [ -s "$out/models/dual-pgn-max-s0.mp" ]
    tools=$(cut -d' ' -f1,2 "$log" | sort -u)
    [ "$(grep -c '^dar dar-fit ' "$log")" -eq 1 ] && grep -q "^dar dar-fit .*--log $out/logs/dual-pgn-max-s0.tsv " "$log" \
        || fail "max-flow's dual not trained by DAR_BIN's dar-fit: $tools"
    [ "$(grep -c '^pairs dar-fit ' "$log")" -eq 1 ] && grep -q "^pairs dar-fit .*--log $out/matching/logs/dual-s0.tsv " "$log" \
        || fail "matching's dual not trained by PAIRS_BIN's dar-fit: $tools"
    for t in gen-graphs dar-step flow-fix metrics; do
        grep -q "^pairs $t" "$log" || fail "matching's control did not run PAIRS_BIN's $t: $tools"
    done
    # PAIRS_CACHE without DAR_CACHE: refused, nothing made
    run env -u DAR_CACHE make --no-print-directory -s -C "$ROOT" PROFILE=smoke OUT="$BATS_TEST_TMPDIR/out2" \
        PAIRS_CACHE="$BATS_TEST_TMPDIR/pairs-cache" "$BATS_TEST_TMPDIR/out2/matching/models/dual-s0.mp"
    assert_failure
    assert_output --partial "PAIRS_CACHE needs DAR_CACHE"
    [ ! -e "$BATS_TEST_TMPDIR/out2" ]
}
