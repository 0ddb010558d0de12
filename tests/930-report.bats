#!/usr/bin/env bats
# make report on the smoke profile (pipelines/report.mk): every claim of
# pipelines/claims.tsv has a verdict, every figure exists and is referenced,
# report.html is self-contained; a claim's verdict follows its cells
# (pipelines/claims.py on hand-made score files).
load test_helper

setup_file() {
    export R_OUT="$BATS_FILE_TMPDIR/out" R_CACHE="$BATS_FILE_TMPDIR/cache"
    export BATS_NO_PARALLELIZE_WITHIN_FILE=true
}

report() { # [make arguments, e.g. REPORT_REFERENCE=dir]
    DAR_CACHE="$R_CACHE" make --no-print-directory -s -C "$ROOT" -j2 PROFILE=smoke OUT="$R_OUT" DAR_BIN="$DAR_BIN" "$@" report
}

@test "make report (smoke) writes report.md and report.html with the header, claims, tables, figures and findings" {
    run report
    assert_success
    assert_line "$R_OUT/report/report.md"
    assert_line "$R_OUT/report/report.html"
    md="$R_OUT/report/report.md"
    grep -q '^- \*\*profile:\*\* smoke: smoke profile' "$md"
    grep -q '^- \*\*trained:\*\* 4 iterations .*seeds 0 1, 40 training graphs of 8 nodes' "$md"
    grep -q '^- \*\*machine:\*\* .*OpenBLAS core ' "$md"
    grep -q '^- \*\*wall time:\*\* ' "$md"
    grep -Eq "^- \*\*project:\*\* dar [0-9.]+, commit [0-9a-f]{12}" "$md"
    for h in "## Claims" "## Tables" "## Figures" "## Findings: departures from the authors' code, measured both ways"; do
        grep -qxF "$h" "$md" || fail "no heading '$h'"
    done
    for t in "Table 1 (syn-res)" "Table 2 (qualitative)" "Appendix table lin-qualitative" "Appendix table two-comm-val" \
             "Table 3 (bvg-res)" "Flow-fix (the corrective procedure)" "Vessel reconstruction"; do
        grep -qF "### $t" "$md" || fail "no table '$t'"
    done
    # the difference to the paper in Table 1's cells
    grep '^| PGN-max (dual) |' "$md" | head -1 | grep -q 'paper 0.234; Δ [+-][0-9.]*'
    # every finding of pipelines/findings.tsv has its section and a table
    for id in $(grep -v '^#' "$ROOT/pipelines/findings.tsv" | cut -f1); do
        grep -q "^### .* (\`$id\`)$" "$md" || fail "no finding '$id'"
    done
    [ "$(grep -c '^| PGN-max (dual) | the other way |' "$md")" -eq 3 ]   # leak, tfstep, cap
    # each change the other way has its interval and what it says; the leak's answers Table 2's question
    [ "$(grep -cE '^- PGN-max \(dual\), F, 2-comm: [0-9.]+ → [0-9.]+ \([+-][0-9.]+ \[[+-][0-9.]+, [+-][0-9.]+\]: (higher the other way|lower the other way|inside the noise|the same on every graph)\)$' "$md")" -eq 3 ] \
        || fail "$(grep '^- PGN-max (dual), F, 2-comm' "$md")"
    grep -qE "^Does the paper's Table 2 need the leak\? (yes|partly|no)" "$md" || fail "no answer on the leak"
    grep -qE '^Does dual PGN-max beat primal PGN-max on F\? .*primal - dual [+-][0-9.]+ \[' "$md"
    # every long step was under the progress watcher (pipelines/progress.sh):
    # the findings' trainings, the vessel reconstruction, Node2Vec, the vessel
    # rows and the search each showed their start, and their end as a step
    for step in leak-dual-pgn-max-s0 recon-dual n2v-CD1-E-1 lc-CD1-E-1 lcembed-dual-CD1-E-2 gnn-csage-dual-CD1-E-3 search; do
        assert_line --regexp "^$step(\.md)?: (started|[a-z]+ [0-9]+/[0-9]+)"
        assert_line --regexp "^\[[0-9]+/[0-9]+\] (trained|made|wrote) $step(\.md)? \("
    done
}

@test "the claims the other way: Tables 1 and 2 again with a finding's runs in place of the study's, the claims decided on them" {
    [ -f "$R_OUT/report/report.md" ] || report
    md="$R_OUT/report/report.md" swap="$R_OUT/report/swap"
    # the findings on the study's data (leak, tfstep) get the section; cap, on its own data, does not
    [ "$(grep -c "^The claims the other way: " "$md")" -eq 2 ]
    for f in leak tfstep; do
        for t in table1 table2; do [ -s "$swap/$t-$f.tsv" ] && [ -s "$swap/$t-$f.units.tsv" ] || fail "no $t-$f"; done
    done
    [ ! -e "$swap/table1-cap.tsv" ]
    # the leak's table: the dual's cells are the leak's (its row in the finding's table, computed by report.py
    # from the finding's own score records), every other row is the study's Table 1 row, unchanged
    col() { awk -F'\t' -v row="$2" -v c="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } $1 == row { print $k }' "$1"; }
    leak=$(grep '^| PGN-max (dual) | the other way |' "$md" | head -1 | cut -d'|' -f4 | tr -d ' ')
    [ "$(printf '%.3f' "$(col "$swap/table1-leak.tsv" 'PGN-max (dual)' '2-community mae_flow')")" = "$leak" ] || fail "leak F $leak"
    [ "$(printf '%.3f' "$(col "$R_OUT/report/table1.tsv" 'PGN-max (dual)' '2-community mae_flow')")" != "$leak" ]
    diff <(grep -v '^PGN-max (dual)' "$R_OUT/report/table1.tsv") <(grep -v '^PGN-max (dual)' "$swap/table1-leak.tsv")
    # the dual's units are the leak's graphs: the same graph sets as the study's, so the bootstrap stays paired
    grep -q $'^PGN-max (dual)\t2-community mae_flow\tPGN-max (dual)\t0\t' "$swap/table1-leak.units.tsv"
    diff <(awk -F'\t' '$1 == "PGN-max (dual)" { print $2, $4, $5, $6, $8 }' "$R_OUT/report/table1.units.tsv") \
         <(awk -F'\t' '$1 == "PGN-max (dual)" { print $2, $4, $5, $6, $8 }' "$swap/table1-leak.units.tsv")
    # the claims on the dual's cells are decided again, with both verdicts and their intervals
    grep -A30 '^The claims the other way: ' "$md" | grep -qE '^\| dual-primal-F \| (holds|does not hold|not resolved at this profile)<br>.*\[.*\| (holds|does not hold|not resolved at this profile)<br>.*\[' \
        || fail "no dual-primal-F row"
}

@test "every claim of pipelines/claims.tsv has one row with a verdict" {
    md="$R_OUT/report/report.md"
    [ -f "$md" ] || skip "the first test did not run"
    # the Claims section's table (a finding's "claims the other way" repeats some ids)
    claims=$(awk '/^## / { p = ($0 == "## Claims") } p' "$md")
    n=0
    while IFS=$'\t' read -r id _; do
        case "$id" in ''|'#'*|'@'*) continue ;; esac
        n=$((n + 1))
        line=$(grep -F "| $id | " <<<"$claims") || fail "no row for claim '$id'"
        [ "$(wc -l <<<"$line")" -eq 1 ] || fail "claim '$id' has several rows"
        verdict=$(awk -F' \\| ' '{print $4}' <<<"$line")
        [[ "$verdict" == "holds"* || "$verdict" == "does not hold"* || "$verdict" == "not resolved at this profile"* \
           || "$verdict" == "not measured at this profile"* ]] \
            || fail "claim '$id': verdict '$verdict'"
    done < "$ROOT/pipelines/claims.tsv"
    [ "$n" -ge 30 ]
    grep -Eq "^$n quantitative claims of the paper, .*\*\*[0-9]+ hold, [0-9]+ do not hold, [0-9]+ not resolved at this profile, [0-9]+ not measured at this profile\.\*\*" "$md"
    # the method, the resamples and the level, and an interval beside every measured verdict
    grep -q '^\*\*Method\.\*\* .*paired bootstrap of 2000 resamples .*95% percentile interval' "$md"
    grep -E '^\| dual-primal-F \| ' "$md" | grep -Eq ': [+-][0-9.e-]+ \[[+-][0-9.e-]+, [+-][0-9.e-]+\]'
    # the seeds behind every measured verdict (the smoke profile's two)
    grep -Eq '^\| dual-primal-F \| [^|]* \| Table 1; §4.1<br>\(2 seeds\) \| ' "$md" || fail "$(grep -E '^\| dual-primal-F \| ' "$md")"
    # the per-graph units the bootstrap read; Table 3's: a block of test edges a unit, every trial
    [ "$(wc -l < "$R_OUT/report/table1.units.tsv")" -gt 100 ]
    grep -q $'^LC (dual)\tCD1-E-1 balanced_accuracy\tLC (dual)\t2\ttest graph=CD1-E-1\t0:99\t[0-9 ,]*\t[0-9]*\tbalanced_accuracy$' "$R_OUT/report/table3.units.tsv"
    grep -E '^\| lc-dual-lc \| ' "$md" | grep -Eq ': [+-][0-9.]+ pt \[[+-][0-9.]+ pt, [+-][0-9.]+ pt\]'
}

@test "R^2 said once: both readings on both bipartite capacity laws, the R^2 claims decided on each; |F - F*| on bipartite 0 or 1" {
    md="$R_OUT/report/report.md"
    [ -f "$md" ] || skip "the first test did not run"
    grep -q '^\*\*R², said once\.\*\* .*\*\*test\*\* — fitted on the training graphs (8 nodes), scored on the test graphs (16 nodes)' "$md"
    grep -q '\*\*held-out\*\* — fitted on the training graphs, scored on held-out graphs of the training size (8 graphs of 8 nodes' "$md"
    # the readings table: a row per Table 2 model, a column per family and reading
    grep -q '^| model | 2-community test | bipartite (all 1) test | bipartite (0 or 1) test | 2-community held-out | bipartite (0 or 1) held-out |$' "$md" \
        || fail "$(grep '^| model | 2-community test' "$md")"
    [ "$(grep -c '^| PGN-m[a-z]* ([a-z]*) | [-0-9.e+]* ± ' "$md")" -ge 6 ]
    # every R^2 claim decided on each reading
    for id in r2-dual-0.99 r2-dual-primal; do
        grep -E "^\| $id \| (holds|does not hold|not resolved at this profile)<br>.* \| (holds|does not hold|not resolved at this profile)<br>.* \| (holds|does not hold|not resolved at this profile)<br>" "$md" \
            || fail "$id: $(grep "^| $id | " "$md")"
    done
    grep -q '^| claim | test | test, bipartite 0 or 1 | held-out, bipartite 0 or 1 |$' "$md"
    # the bipartite capacities 0 or 1: the max flow varies, so R^2 is not 0 by rule there; |F - F*| beside the study's
    grep -q '^### Bipartite test graphs, capacities all 1 (the study.s) and 0 or 1' "$md"
    grep -Eq '^\| Random \| .*[0-9]' <(awk '/^### Bipartite test graphs, capacities/ { p = 1 } p' "$md")
    [ -s "$R_OUT/report/r2/data/bip01-test.mp" ]
    mpcat "$R_OUT/report/r2/data/bip01-test.mp" | jq -r '.cap.data[]' | sort -u | tr '\n' ' ' | grep -qx '0 1 ' \
        || fail "capacities: $(mpcat "$R_OUT/report/r2/data/bip01-test.mp" | jq -r '.cap.data[]' | sort -u | tr '\n' ' ')"
}

@test "the shortest-paths section: make table-sp's table beside CLRS's scores, every claim of claims-sp.tsv with a verdict and an interval" {
    md="$R_OUT/report/report.md"
    [ -f "$md" ] || skip "the first test did not run"
    grep -qxF '## Shortest paths: Bellman-Ford and its potentials (CLRS)' "$md"
    grep -qF '### Shortest paths (make table-sp)' "$md"
    grep -q '^\*\*trained:\*\* smoke profile: 24 training graphs of 8 nodes' "$md"
    grep -Eq '^\| PGN-max \(dual\) \| [0-9.]+% \(1\) \| [0-9.]+ \(1\) \| [0-9.]+% \(1\) \|' "$md"
    grep -qxF '| MPNN (CLRS, published; Ibarz et al. 2022) | 92.01% | - | - | - | - |' "$md"
    grep -qxF '| Triplet-GMPNN (CLRS, published; Ibarz et al. 2022) | 97.39% | - | - | - | - |' "$md"
    n=0
    while IFS=$'\t' read -r id _; do
        case "$id" in ''|'#'*|'@'*) continue ;; esac
        n=$((n + 1))
        line=$(grep -F "| $id | " "$md") || fail "no row for claim '$id'"
        [ "$(wc -l <<<"$line")" -eq 1 ] || fail "claim '$id' has several rows"
        verdict=$(awk -F' \\| ' '{print $4}' <<<"$line")
        [[ "$verdict" == "holds"* || "$verdict" == "does not hold"* || "$verdict" == "not resolved at this profile"* ]] \
            || fail "claim '$id': verdict '$verdict'"
        awk -F' \\| ' '{print $5}' <<<"$line" | grep -Eq ': [+-][0-9.e-]+( pt)? \[[+-][0-9.e-]+( pt)?, [+-][0-9.e-]+( pt)?\]' \
            || fail "claim '$id': no interval"
    done < "$ROOT/pipelines/claims-sp.tsv"
    [ "$n" -ge 5 ]
    grep -Eq "^$n claims about shortest paths \(\`pipelines/claims-sp.tsv\`\), .*\*\*[0-9]+ hold, [0-9]+ do not hold, [0-9]+ not resolved at this profile, [0-9]+ not measured at this profile\.\*\*" "$md"
}

# pair_claims FILE: every claim of a registry entry's claims file has one row
# in report.md with a verdict, and an interval wherever an instance of it was
# measured (a claim whose every instance is missing shows '-'); sets PAIR_N to
# how many (a plain call, not $(...): a failure must fail the test)
pair_claims() {
    local md="$R_OUT/report/report.md" id line verdict intervals
    PAIR_N=0
    while IFS=$'\t' read -r id _; do
        case "$id" in ''|'#'*|'@'*) continue ;; esac
        PAIR_N=$((PAIR_N + 1))
        line=$(grep -F "| $id | " "$md") || fail "no row for claim '$id'"
        [ "$(wc -l <<<"$line")" -eq 1 ] || fail "claim '$id' has several rows"
        verdict=$(awk -F' \\| ' '{print $4}' <<<"$line")
        intervals=$(awk -F' \\| ' '{print $5}' <<<"$line")
        [[ "$verdict" == "holds"* || "$verdict" == "does not hold"* || "$verdict" == "not resolved at this profile"* \
           || "$verdict" == "not measured at this profile"* ]] || fail "claim '$id': verdict '$verdict'"
        if [ "$intervals" = "-" ]; then
            # no instance measured: the notes under the verdict name only missing ones
            [[ "$verdict" == "not measured at this profile"* ]] && ! grep -Eq 'fails|not resolved|of the others' <<<"$verdict" \
                || fail "claim '$id': measured but no interval"
        else
            grep -Eq ': [+-][0-9.e-]+( pt)? \[[+-][0-9.e-]+( pt)?, [+-][0-9.e-]+( pt)?\]' <<<"$intervals" \
                || fail "claim '$id': no interval in '$intervals'"
        fi
    done < "$1"
}

@test "the matching section: make table-matching's table beside Georgiev & Lio's figure, every claim of claims-matching.tsv with a verdict and its intervals" {
    md="$R_OUT/report/report.md"
    [ -f "$md" ] || skip "the first test did not run"
    grep -qxF '## Bipartite matching: Ford-Fulkerson and its König cover (Georgiev & Liò)' "$md"
    grep -qF '### Bipartite matching (make table-matching)' "$md"
    grep -q '^\*\*trained:\*\* smoke profile: 24 training graphs of 4+4 nodes' "$md"
    grep -Eq '^\| PGN-max \(dual\) n64 \| [0-9.]+ \(1\) \| [0-9.]+ \(1\) \| [0-9.]+% \(1\) \| [0-9.]+ \(1\) \| [0-9.]+% \(1\) \| - \| - \|$' "$md"
    grep -qxF '| Exact (the trace) n64 | 1.000 (1) | 1.000 (1) | 100.0% (1) | 1.000 (1) | 100.0% (1) | - | - |' "$md"
    grep -qxF '| Georgiev & Liò 2020, published (no dual; 1× to 8× their 8+8 training size) | - | - | - | - | optimal matchings "almost 100 %" of the time | - | - |' "$md"
    # the control: the paper's bipartite graphs, the max-flow dual's flow and cut on them, said why
    grep -Eq '^\| Max-flow PGN-max \(dual\) paper \| - \| - \| - \| - \| - \| [0-9.]+ \(1\) \| [0-9.]+% \(1\) \|$' "$md"
    grep -Eq '^\| PGN-max \(dual\) paper \| [0-9.]+ \(1\) \|' "$md"
    grep -qF "The set 'paper' is a control: the paper's own undirected bipartite graphs" "$md"
    pair_claims "$ROOT/pipelines/claims-matching.tsv"
    n=$PAIR_N
    [ "$n" -ge 4 ]
    grep -Eq "^$n claims about bipartite matching \(\`pipelines/claims-matching.tsv\`\), .*\*\*[0-9]+ hold, [0-9]+ do not hold, [0-9]+ not resolved at this profile, [0-9]+ not measured at this profile\.\*\*" "$md"
    # smoke tests 64-node graphs: X, the certified share, is decided with its interval in points
    grep -E '^\| mt-certified \| ' "$md" | awk -F' \\| ' '{print $4, "|", $5}' \
        | grep -Eq '^(holds|does not hold|not resolved at this profile).*\| PGN-max \(dual\) n64 · certified > 0: [+-][0-9.]+ pt \[[+-][0-9.]+ pt, [+-][0-9.]+ pt\]'
    grep -E '^\| mt-certified-gl \| ' "$md" | grep -q 'near(PGN-max (dual) n64 · certified, 1, 0.05): '
    # the per-graph units the bootstrap read: each of the 4 graphs of a set, every row
    [ "$(awk -F'\t' '$1 == "PGN-max (dual) n64" && $2 == "certified"' "$R_OUT/matching/table-matching.units.tsv" | wc -l)" -eq 4 ]
}

@test "the vertex-cover section: make table-vc's table, PDNAR's numbers said to be missing, every claim of claims-vc.tsv with a verdict and its intervals" {
    md="$R_OUT/report/report.md"
    [ -f "$md" ] || skip "the first test did not run"
    grep -qxF '## Weighted vertex cover: primal-dual rounds and their edge packing (PDNAR)' "$md"
    grep -qF '### Weighted vertex cover (make table-vc)' "$md"
    grep -q "^\*\*trained:\*\* smoke profile: 24 training graphs of 8 nodes.*\*\*PDNAR's published numbers (He & Vitercik, ICML 2025) are not available here:\*\* none is transcribed yet" "$md"
    grep -Eq '^\| PGN-max \(dual\) ba16 \| [0-9.]+ \(1\) \| [0-9.]+ \(1\) \| [0-9.]+ \(1\) \|$' "$md"
    grep -Eq '^\| The algorithm \(its own cover and packing\) ba32 \| 1.000 \(1\) \| ' "$md"
    pair_claims "$ROOT/pipelines/claims-vc.tsv"
    n=$PAIR_N
    [ "$n" -ge 4 ]
    grep -Eq "^$n claims about weighted vertex cover \(\`pipelines/claims-vc.tsv\`\), .*\*\*[0-9]+ hold, [0-9]+ do not hold, [0-9]+ not resolved at this profile, [0-9]+ not measured at this profile\.\*\*" "$md"
    # smoke has no 1024-node set and no MPNN: the generalisation claim is not measured,
    # while +opt at the training size is measured for PGN-max, with its interval
    grep -E '^\| vc-generalise \| ' "$md" | awk -F' \\| ' '{print $4 "|" $5}' | grep -Eq '^not measured at this profile(<br>.*)?\|-$'
    grep -E '^\| vc-opt \| ' "$md" | grep -Eq 'PGN-max: PGN-max \(dual \+opt\) ba16 · cover_weight_ratio < 1: [+-][0-9.e-]+ \[[+-][0-9.e-]+, [+-][0-9.e-]+\]'
}

@test "every figure exists, is referenced in report.md and embedded in report.html" {
    md="$R_OUT/report/report.md" html="$R_OUT/report/report.html"
    [ -f "$md" ] || skip "the first test did not run"
    # the study's figures and the report's own; the reconstruction's is vessel.mk's where it makes one
    for f in fig-valid-pgn fig-valid-mpnn fig-corrective 'fig-recon\(struction\)\?' fig-size fig-cutshare; do
        grep -q "^!\[[^]]*\]([^)]*/\?$f\.png)$" "$md" || fail "$f is not referenced"
    done
    n=0
    while read -r path; do
        n=$((n + 1))
        file="$R_OUT/report/$path"
        [ "$(head -c 8 "$file" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "$file is not a PNG"
    done < <(sed -n 's/^!\[[^]]*\](\(.*\))$/\1/p' "$md")
    [ "$n" -ge 6 ]
    [ "$(grep -o '<img [^>]*src="data:image/png;base64,[A-Za-z0-9+/=]*"' "$html" | wc -l)" -eq "$n" ]
}

@test "report.html is self-contained: no external URL, no src or href outside data: URIs" {
    html="$R_OUT/report/report.html"
    [ -f "$html" ] || skip "the first test did not run"
    run grep -c -i -E 'https?://|//[a-z0-9.-]+\.[a-z]{2,}/' "$html"
    assert_output 0
    run grep -o -i -E '(src|href)="[^"]{0,10}' "$html"
    [ -z "$(grep -v 'src="data:image' <<<"$output")" ] || fail "non-data reference: $output"
    grep -q '^<!DOCTYPE html>' "$html"
    grep -q '</html>$' "$html"
}

@test "a second make report builds nothing and trains nothing" {
    [ -f "$R_OUT/report/report.md" ] || skip "the first test did not run"
    misses=$(grep -c '^miss dar-fit' "$R_CACHE/log")
    run report
    assert_success
    [ "$(grep -c '^miss dar-fit' "$R_CACHE/log")" -eq "$misses" ]
}

@test "a reference run (results/tables/, results/core/) is shown beside the profile's own verdicts and cells; without one the report says so" {
    [ -f "$R_OUT/report/report.md" ] || skip "the first test did not run"
    # the first of REFERENCE_RUNS that holds a kept report, else the last
    run make --no-print-directory -s -C "$ROOT" print-REPORT_REFERENCE REFERENCE_RUNS="$T/none $T/tables"
    assert_output "$T/tables"
    mkdir -p "$T/core" && : > "$T/core/verdicts.tsv"
    run make --no-print-directory -s -C "$ROOT" print-REPORT_REFERENCE REFERENCE_RUNS="$T/tables $T/core"
    assert_output "$T/core"
    # an empty reference directory, not the repository's results/ (which hold the reference runs once committed)
    mkdir -p "$T/tables"
    report REFERENCE_RUNS="$T/tables" > /dev/null
    grep -q "^\*\*The reference run\*\* (\`$T/tables/\`): not yet run; \`make report PROFILE=tables\` then \`make results-tables\`" \
        "$R_OUT/report/report.md"
    mkdir -p "$T/ref"
    cp "$R_OUT/report/verdicts.tsv" "$R_OUT/report/table1.tsv" "$R_OUT/report/report.md" "$T/ref/"
    [ "$(head -1 "$T/ref/verdicts.tsv")" = $'id\tverdict\ton the means alone\tmargins\tpaper' ]
    # a fabricated reference verdict, to be seen in its column
    awk -F'\t' -v OFS='\t' '$1 == "dual-primal-F" { $2 = "holds"; $4 = "fabricated margin [+1, +2]" } 1' "$T/ref/verdicts.tsv" > "$T/ref/v" \
        && mv "$T/ref/v" "$T/ref/verdicts.tsv"
    report REPORT_REFERENCE="$T/ref" > /dev/null
    md="$R_OUT/report/report.md"
    grep -q '^| id | claim | where | verdict (this profile) | margin \[interval\] | cells: ours (paper) | the rule on the paper'"'"'s values | the reference run ('"$T"'/ref/) |$' "$md"
    grep '^| PGN-max (dual) |' "$md" | head -1 | grep -q "$T/ref [0-9.]*"
    grep -E '^\| dual-primal-F \| ' "$md" | grep -q '| holds<br>fabricated margin \[+1, +2\] |$'
    # the profile it was made at, from its report.md
    grep -q "^\*\*The reference run\*\* (\`$T/ref/\`, the smoke profile" "$md"
    report > /dev/null
}

# A hand-made score stream: metric records of two models on both families.
scores() { # dual-2comm primal-2comm dual-bip primal-bip
    local v names=(dual primal dual primal) fams=(2-community 2-community bipartite bipartite) i=0
    for v in "$@"; do
        for seed in 0 1; do
            printf '{"kind":"metric","name":"mae_flow","value":%s,"count":10,"split":"test","labels":{"model":"PGN-max (%s)","seed":"%s","family":"%s"}}\n' \
                "$v" "${names[$i]}" "$seed" "${fams[$i]}"
        done
        i=$((i + 1))
    done | mpcat --to-msgpack | metrics --table tsv --rows model --cols family,name --quantity mae_flow
}

verdict() { # id table-file: claims.py's verdict of one claim
    "$PY" "$ROOT/pipelines/claims.py" --claims "$ROOT/pipelines/claims.tsv" --paper-dir "$ROOT/pipelines/paper" \
        --table table1="$2" | awk -F'\t' -v id="$1" '$1 == id { print $2 " / paper: " $3 }'
}

@test "a claim's verdict flips with its cells: dual-primal-F on hand-made score files" {
    scores 0.20 0.30 0.40 0.50 > "$T/holds.tsv"
    # without per-graph units a cell counts as exact; the paper's bipartite
    # cells (0.49 ± 0.22 against 0.56 ± 0.23 over 5 seeds) are inside its noise
    run verdict dual-primal-F "$T/holds.tsv"
    assert_output "holds / paper: not resolved at this profile"
    scores 0.20 0.30 0.60 0.50 > "$T/fails.tsv"      # dual worse on bipartite
    run verdict dual-primal-F "$T/fails.tsv"
    assert_output "does not hold / paper: not resolved at this profile"
    scores 0.35 0.30 0.40 0.50 > "$T/fails2.tsv"     # dual worse on 2-community
    run verdict dual-primal-F "$T/fails2.tsv"
    assert_output "does not hold / paper: not resolved at this profile"
    # a claim whose cells are not in the tables is not measured
    run verdict dual-baselines "$T/holds.tsv"
    assert_output "not measured at this profile / paper: holds"
    # the paper's own values break some of its words (bipartite PGN-mean dual
    # 1.10 > primal 1.09), but inside their noise (std 0.30 and 0.47)
    run verdict dual-primal-F-all "$T/holds.tsv"
    assert_output "not measured at this profile / paper: not resolved at this profile"
}

@test "claims.py: the rule language (near, mean, sets, several keys) and its errors" {
    cat > "$T/claims.tsv" <<'EOF'
@fams	2-community,bipartite
near	x	-	fam=@fams	near(table1[PGN-max (dual) | {fam} mae_flow], 0.3, 0.15)
avg	x	-	-	mean(table1[PGN-max (dual) | 2-community mae_flow], table1[PGN-max (dual) | bipartite mae_flow]) < 0.35
two	x	-	m=dual,primal;fam=@fams	table1[PGN-max ({m}) | {fam} mae_flow] < 0.45
bad	x	-	-	__import__("os")
EOF
    scores 0.20 0.30 0.40 0.50 > "$T/t.tsv"
    run "$PY" "$ROOT/pipelines/claims.py" --claims <(head -4 "$T/claims.tsv") --paper-dir "$ROOT/pipelines/paper" --table table1="$T/t.tsv"
    assert_success
    assert_line --regexp $'^near\tholds\t'
    assert_line --regexp $'^avg\tholds\t'
    assert_line --regexp $'^two\tdoes not hold\t.*\tprimal, bipartite: fails$'
    run "$PY" "$ROOT/pipelines/claims.py" --claims "$T/claims.tsv" --paper-dir "$ROOT/pipelines/paper" --table table1="$T/t.tsv"
    assert_failure
    assert_output --partial "line 5: claim 'bad': "
    assert_output --partial "only abs, min, max, mean and near can be called in a rule"
    printf 'x\tonly two fields\n' > "$T/short.tsv"
    run "$PY" "$ROOT/pipelines/claims.py" --claims "$T/short.tsv" --paper-dir "$ROOT/pipelines/paper"
    assert_failure
    assert_output --partial "line 1: expected 5 tab-separated fields"
}

@test "code-residual.py: the code's C - |F| test stops short where the flow must be sent back over a saturated edge" {
    # s=0, t=3; Bellman-Ford's lightest path s-a-b-t saturates a-b; the maximum (2)
    # then needs b->a, which the true residual allows and C - |F| forbids
    printf '%s\n' '{"kind":"graph","id":0,"family":"hand","n":4,"m":5,"directed":false,"s":0,"t":3,"src":{"dtype":"<i4","shape":[5],"data":[0,0,1,1,2]},"dst":{"dtype":"<i4","shape":[5],"data":[1,2,2,3,3]},"cap":{"dtype":"<f4","shape":[5],"data":[1,1,1,1,1]},"w":{"dtype":"<f4","shape":[5],"data":[0.1,0.9,0.1,0.9,0.1]}}' \
        | mpcat --to-msgpack | ff-trace -q > "$T/g.mp"
    run "$PY" "$ROOT/pipelines/code-residual.py" "$T/g.mp"
    assert_success
    assert_line "file	family	nodes	graphs	short_share	mean_shortfall	code_T	our_T"
    assert_line "g.mp	hand	4	1	1.000000	0.500000	8.00	12.00"
    # two-community graphs at the paper's density: the rule never binds (dar-reference.md §2)
    gen-graphs --nodes 16 --count 100 --seed 5 | ff-trace -q > "$T/c.mp"
    run "$PY" "$ROOT/pipelines/code-residual.py" "$T/c.mp"
    assert_line --regexp $'^c.mp\ttwo-community\t16\t100\t0.000000\t0.000000\t'
}


# The report in a real browser: headless Chromium (a test package) loads a
# copy of the page with a probe added (before the page's content, so that it
# hears every error, and after it, to check the loaded page); the probe writes
# what it found into the DOM, which --dump-dom prints.  Chromium's own stderr,
# with console logging on, is read for console messages too.
probe_page() { # html: the probe's findings as JSON on stdout, Chromium's log in $T/chromium.log
    "$PY" - "$1" "$T/probed.html" <<'PY'
import sys
page = open(sys.argv[1], encoding="utf-8").read()
head = """<script>window.darErrors = [];
window.addEventListener("error", function (e) {
  window.darErrors.push(e.message || ("cannot load " + (e.target && (e.target.alt || e.target.tagName))));
}, true);
window.addEventListener("unhandledrejection", function (e) { window.darErrors.push("rejection: " + e.reason); });
["error", "warn"].forEach(function (level) {
  var original = console[level];
  console[level] = function () {
    window.darErrors.push(level + ": " + Array.from(arguments).join(" "));
    original.apply(console, arguments);
  };
});
</script>"""
tail = """<script>
window.addEventListener("load", function () {
  // synchronous, so that --dump-dom prints the result: a figure decodes if
  // it has its size and draws onto a canvas
  var undecoded = Array.from(document.images).filter(function (img) {
    if (!img.complete || img.naturalWidth === 0)
      return true;
    try {
      var canvas = document.createElement("canvas");
      canvas.width = canvas.height = 1;
      canvas.getContext("2d").drawImage(img, 0, 0, 1, 1);
      return false;
    } catch (e) {
      return true;
    }
  }).map(function (img) { return img.alt || "an image"; });
  var table = document.querySelector("table.claims");
  var out = document.createElement("pre");
  out.id = "dar-probe";
  out.textContent = JSON.stringify({
    figures: document.querySelectorAll("figure img").length,
    undecoded: undecoded,
    errors: window.darErrors,
    claims_heading: !!document.querySelector("h2#claims"),
    claims_rows: table ? table.rows.length - 1 : 0,
    verdicts: table ? table.querySelectorAll("td.holds, td.fails, td.missing").length : 0,
    // the claims' lines at the window's width: their heights, the folded
    // details, the whole table's height against the window's
    width: window.innerWidth,
    screen: window.innerHeight,
    row_heights: table ? Array.from(table.rows).slice(1).map(function (r) { return Math.round(r.getBoundingClientRect().height); }) : [],
    folded: table ? table.querySelectorAll("tr > td > details:not([open])").length : 0,
    table_height: table ? Math.round(table.getBoundingClientRect().height) : 0});
  document.body.appendChild(out);
});
</script>"""
assert page.count("<head>") == 1 and page.count("</body>") == 1, "no single <head> and </body>"
open(sys.argv[2], "w", encoding="utf-8").write(page.replace("<head>", "<head>" + head).replace("</body>", tail + "</body>"))
PY
    local profile; profile=$(mktemp -d "$T/chromium.XXXXXX")
    # the network is closed: nothing may reach for it
    timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --window-size=1300,900 \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$profile" --enable-logging=stderr --v=0 --virtual-time-budget=10000 \
        --dump-dom "file://$T/probed.html" > "$T/dom.html" 2> "$T/chromium.log" \
        || { echo "chromium failed: $(tail -3 "$T/chromium.log")" >&2; return 1; }
    sed -n 's/.*<pre id="dar-probe">\(.*\)<\/pre>.*/\1/p' "$T/dom.html" | sed 's/&quot;/"/g; s/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g'
}

# the probe's findings (JSON) against the report's rules: the problems, one
# line, and a non-zero status if there is one; the console lines Chromium
# logged count as errors
probe_problems() {
    "$PY" - "$1" "$T/chromium.log" <<'PY'
import json, re, sys
p = json.loads(sys.argv[1])
console = [l.strip() for l in open(sys.argv[2], errors="replace") if re.search(r":CONSOLE[(:]", l)]
problems = []
if p["figures"] < 1:
    problems.append("no figure")
if p["undecoded"]:
    problems.append("figures that do not decode: %s" % p["undecoded"])
if p["errors"] or console:
    problems.append("errors logged: %s" % (p["errors"] + console))
if not p["claims_heading"] or p["claims_rows"] < 1 or p["verdicts"] < p["claims_rows"]:
    problems.append("claims table: heading %s, %d rows, %d verdicts" % (p["claims_heading"], p["claims_rows"], p["verdicts"]))
# at 1300 px, one line a claim (no row taller than the shortest by half a
# line), the comparisons folded, and the whole table within two screens
heights = p["row_heights"]
if heights and (max(heights) > 1.5 * min(heights) or p["folded"] != len(heights) or p["table_height"] > 2 * p["screen"]):
    problems.append("claims table at %d px: rows %d to %d px high, %d of %d folded, %d px against a %d px screen"
                    % (p["width"], min(heights), max(heights), p["folded"], len(heights), p["table_height"], p["screen"]))
print("; ".join(problems))
sys.exit(1 if problems else 0)
PY
}

@test "report.html in headless Chromium: every figure decodes, the page logs no error, the claims table is there" {
    html="$R_OUT/report/report.html"
    [ -f "$html" ] || skip "the first test did not run"
    command -v chromium > /dev/null || fail "no chromium (make test installs it: DEB_TEST_PACKAGES)"
    probe=$(probe_page "$html") || fail "no page"
    [ -n "$probe" ] || fail "the page's probe never reported: $(tail -3 "$T/chromium.log")"
    run probe_problems "$probe"
    assert_success
    # every claim of claims.tsv is a row, and every figure of the report was seen
    claims=$(grep -cv $'^\\(#\\|@\\|$\\)' "$ROOT/pipelines/claims.tsv")
    [[ "$probe" == *"\"claims_rows\":$claims,"* ]] || fail "expected $claims claims rows: $probe"
    [[ "$probe" == *"\"figures\":$(grep -c '<figure>' "$html"),"* ]] || fail "$probe"
    [[ "$probe" == *'"width":1300,'* ]] || fail "not at 1300 px: $probe"
}

@test "the browser probe fails a figure that does not decode, a logged error and a missing claims table" {
    command -v chromium > /dev/null || fail "no chromium (make test installs it: DEB_TEST_PACKAGES)"
    printf '%s\n' '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><h2>Tables</h2>' \
        '<figure><img alt="broken" src="data:image/png;base64,AAAA"></figure><script>console.error("boom")</script></body></html>' > "$T/bad.html"
    probe=$(probe_page "$T/bad.html") || fail "no page"
    run probe_problems "$probe"
    assert_failure
    assert_output --partial "figures that do not decode: ['broken']"
    assert_output --partial "error: boom"
    assert_output --partial "claims table: heading False, 0 rows"
    # a claims table as it was: every cell whole, rows many lines high, nothing folded
    long=$(printf 'PGN-max (dual) · 2-community mae_flow < PGN-max (primal) · 2-community mae_flow: +0.081 [-0.0131, +0.206]<br>%.0s' $(seq 8))
    { printf '%s' '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><h2 id="claims">Claims</h2><table class="claims">'
      printf '<tr><th>id</th><th>verdict</th><th>cells</th></tr>'
      printf '<tr><td>a</td><td class="holds">holds</td><td>x</td></tr>'
      printf '<tr><td>b</td><td class="fails">does not hold</td><td>%s</td></tr>' "$long"
      printf '</table><figure><img alt="dot" src="data:image/png;base64,%s"></figure></body></html>\n' \
        iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==
    } > "$T/wall.html"
    probe=$(probe_page "$T/wall.html") || fail "no page"
    run probe_problems "$probe"
    assert_failure
    assert_output --regexp "claims table at 1300 px: rows [0-9]+ to [0-9]+ px high, 0 of 2 folded"
}
