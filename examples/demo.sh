#!/usr/bin/env bash
# make demo: the paper's central comparison on the demo profile, Tables 1 and
# 2 with the paper's values beside ours: dual and primal PGN-max trained
# 1200 iterations each, side by side, and the random baseline, scored on 32
# graphs of 64 nodes of both families.  On stderr, each running training's iteration,
# validation score and time left and one line per finished step
# (pipelines/progress.sh); then the tables, the verdicts of the paper's claims
# they can check with a sentence on each departure (pipelines/verdicts.py over
# pipelines/claims.py), the files written and the total time.  Trained models
# are cached (DAR_CACHE), so a second demo prints at once.
#   PROFILE=quick examples/demo.sh    every row of Tables 1 and 2, 2 seeds
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${PROFILE:-demo}
jobs=${JOBS:-2}
out=${OUT:-out/$profile}
export OUT=$out
start=$(date +%s)
stamp=$(mktemp); trap 'rm -f "$stamp"' EXIT
mapfile -t steps < <(make --no-print-directory -s PROFILE="$profile" print-TABLE12_STEPS | tr ' ' '\n' | sed '/^$/d')
note=$(make --no-print-directory -s PROFILE="$profile" print-PROFILE_NOTE)
echo "demo: Tables 1 and 2, $note" >&2
echo "demo: make -j$jobs table1 table2 PROFILE=$profile; ${#steps[@]} steps, results in $out/" >&2
pipelines/progress.sh "$jobs" "${steps[@]}" -- \
    make --no-print-directory -s -j"$jobs" PROFILE="$profile" "$out/table1.md" "$out/table2.md"
echo
cat "$out/table1.md"
echo
cat "$out/table2.md"
echo
# the verdicts read the report's TSV tables, their resampling units (the
# report's bootstrap) and where the minimum cut lies (light: no training), so
# make report later reuses them
report=$out/report
make --no-print-directory -s -j"$jobs" PROFILE="$profile" "$report/table1.tsv" "$report/table2.tsv" \
    "$report/table1.units.tsv" "$report/table2.units.tsv" "$report/cutshare.tsv"
/usr/bin/python3 pipelines/verdicts.py --claims pipelines/claims.tsv --paper-dir pipelines/paper \
    --table table1="$report/table1.tsv" --table table2="$report/table2.tsv" --cutshare "$report/cutshare.tsv" \
    --units table1="$report/table1.units.tsv" --units table2="$report/table2.units.tsv" \
    --report "$report" --profile "$profile" --train-nodes "$(make --no-print-directory -s PROFILE="$profile" print-TRAIN_NODES)" \
    --test-nodes "$(make --no-print-directory -s PROFILE="$profile" print-TEST_NODES)" \
    dual-primal-F weak-cut-misses dual-cut-100
echo
{
    echo "demo: files written:"
    for d in models scores logs data report; do
        n=$(find "$out/$d" -type f -newer "$stamp" 2> /dev/null | wc -l)
        [ "$n" -eq 0 ] || echo "  $out/$d/: $n files"
    done
    find "$out" -maxdepth 1 -type f -newer "$stamp" | sort | sed 's/^/  /'
    elapsed=$(( $(date +%s) - start ))
    printf 'demo: done in %d min %d s\n' $(( elapsed / 60 )) $(( elapsed % 60 ))
} >&2
