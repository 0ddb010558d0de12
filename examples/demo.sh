#!/usr/bin/env bash
# make demo: the study on its quick profile — Tables 1 and 2 of the paper
# (every row, the paper's values beside ours), printed, with the time it took.
# Trained models are cached (DAR_CACHE), so a second demo prints at once.
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${PROFILE:-quick}
start=$(date +%s)
echo "demo: Tables 1 and 2 on the $profile profile (make -j2 table1 table2 PROFILE=$profile); results in out/$profile/"
make --no-print-directory -s -j2 table1 table2 PROFILE="$profile"
echo "demo: done in $(( $(date +%s) - start )) s"
