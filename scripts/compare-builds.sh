#!/usr/bin/env bash
# compare-builds.sh BASE_REPO [NEW_REPO] - run the whole smoke study with the
# tools of two builds (each a built checkout: its bin/ holds the tools) and
# compare every output byte for byte.  For refactors that must not change
# behaviour (issue 19's layout): the tables, figures' data, scores, models,
# traced data and the report's claims must be the same files.
#
# What is not compared: logs/ (the training curves' seconds column and the
# progress lines measure time) and the report's header and figures (wall
# time, commit, the date).  Everything else under out/ must match; a missing
# or extra file is a difference too.  Exit 0 when identical, 1 otherwise.
#
#   git worktree add /tmp/base <commit> && make -C /tmp/base
#   bash scripts/compare-builds.sh /tmp/base
set -euo pipefail
base=$(cd "${1:?usage: compare-builds.sh BASE_REPO [NEW_REPO]}" && pwd)
new=$(cd "${2:-$(dirname "$0")/..}" && pwd)
targets=${COMPARE_TARGETS:-"tables fig-valid fig-corrective table3 table3-n2v-dual fig-valid-bvg fig-reconstruction"}
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT

for side in base new; do
    repo=${!side}
    [ -x "$repo/bin/dar-fit" ] || { echo "compare-builds: $repo/bin has no tools (run make there)" >&2; exit 2; }
    # the pipelines of the new checkout drive both builds: only the tools differ
    echo "compare-builds: $side: $repo" >&2
    DAR_CACHE="$w/$side-cache" make --no-print-directory -s -C "$new" -j2 PROFILE=smoke \
        OUT="$w/$side" DAR_BIN="$repo/bin" $targets > "$w/$side.stdout"
done

status=0
# the figures' targets print their paths, which name each side's own OUT
sed "s#$w/base/#OUT/#g" "$w/base.stdout" > "$w/base.printed"
sed "s#$w/new/#OUT/#g" "$w/new.stdout" > "$w/new.printed"
cmp -s "$w/base.printed" "$w/new.printed" || { echo "differ: the printed tables"; status=1; }
(cd "$w/base" && find . -type f ! -path './logs/*' | sort) > "$w/base.files"
(cd "$w/new" && find . -type f ! -path './logs/*' | sort) > "$w/new.files"
if ! diff -q "$w/base.files" "$w/new.files" > /dev/null; then
    echo "differ: the set of files"; diff "$w/base.files" "$w/new.files" | sed 's/^/  /'; status=1
fi
n=0
while read -r f; do
    [ -e "$w/new/$f" ] || continue
    n=$((n + 1))
    cmp -s "$w/base/$f" "$w/new/$f" || { echo "differ: $f"; status=1; }
done < "$w/base.files"
[ "$status" -eq 0 ] && echo "compare-builds: $n files and the printed tables identical"
exit "$status"
