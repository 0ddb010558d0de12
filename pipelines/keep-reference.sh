#!/usr/bin/env bash
# keep-reference.sh REPORT-DIR DEST FILE...: copy a reference profile's report
# (make results-core, results-tables; KEEP_PROFILE names it, core unless set)
# into DEST, a reference run of the project, only if it is one: report.md says
# that profile at its own settings (20000 iterations,
# 128 test graphs; not a dry run with ITERS or TEST_COUNT cut), and it is
# complete (every FILE there and not empty, a verdict for every claim of
# pipelines/claims.tsv, and report.md written after the files it reads, so
# not left over from an earlier run).  Else one line on stderr, exit 65.
set -euo pipefail
report=$1 dest=$2
shift 2
profile=${KEEP_PROFILE:-core}
refuse() { echo "results-$profile: $report/report.md: $*" >&2; exit 65; }
md=$report/report.md
[ -f "$md" ] || { echo "results-$profile: no $md: run make report PROFILE=$profile first" >&2; exit 66; }
grep -q "^- \*\*profile:\*\* $profile: " "$md" || refuse "not a report of the $profile profile ($(grep -m1 -o '^- \*\*profile:\*\* [a-z]*' "$md" || echo 'no profile line'))"
trained=$(grep -m1 '^- \*\*trained:\*\* ' "$md" || true)
[[ "$trained" == *"** 20000 iterations "* ]] || refuse "not at the $profile profile's 20000 iterations: ${trained#- \*\*trained:\*\* }"
[[ "$trained" == *", 128 test graphs of 64 nodes"* ]] || refuse "not on the $profile profile's 128 test graphs: ${trained#- \*\*trained:\*\* }"
for f in "$@"; do
    [ -s "$f" ] || refuse "incomplete: no $f"
    [ "$f" = "$md" ] || [ ! "$f" -nt "$md" ] || refuse "incomplete: $f is newer than the report (run make report PROFILE=$profile again)"
done
claims=$(grep -cv $'^\\(#\\|@\\|$\\)' pipelines/claims.tsv)
verdicts=$(( $(grep -c . "$report/verdicts.tsv") - 1 ))
[ "$verdicts" -eq "$claims" ] || refuse "incomplete: $verdicts verdicts for $claims claims"
mkdir -p "$dest"
cp "$@" "$dest/"
echo "$dest/: $(ls "$dest" | tr '\n' ' ')"
