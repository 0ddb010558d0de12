#!/usr/bin/env bash
# compare-builds.sh BASE_REPO [NEW_REPO] - run the whole smoke study with the
# tools of two builds (each a built checkout: its bin/ holds the tools) and
# compare every output byte for byte.  For refactors that must not change
# behaviour (issue 19's layout): the tables, figures' data, scores, models,
# traced data and the report's claims must be the same files, and the
# three other algorithms' tables (table-sp, table-matching, table-vc).
#
# What is not compared: logs/ (out/logs/ and the algorithms' own, e.g.
# out/matching/logs/) and the *.progress files beside the targets (the
# training curves' seconds column and the progress lines measure time) and
# the report's header and figures (wall time, commit, the date).  The printed
# tables are compared as lines in any order (make -j2 may finish two tables
# in either order; each table's file is compared byte for byte).  Everything
# else under out/ must match; a missing or extra file is a difference too.
# Exit 0 when identical, 1 otherwise.
#
# COMPARE_IGNORE_KEYS="k1 k2": a record stream that differs is compared
# again record by record with those top-level keys left out (a change that
# adds a key to some records: the model records' 'algorithm'), and reported
# as "same apart from" them when nothing else differs.
#
#   git worktree add /tmp/base <commit> && make -C /tmp/base
#   bash scripts/compare-builds.sh /tmp/base
set -euo pipefail
base=$(cd "${1:?usage: compare-builds.sh BASE_REPO [NEW_REPO]}" && pwd)
new=$(cd "${2:-$(dirname "$0")/..}" && pwd)
targets=${COMPARE_TARGETS:-"tables fig-valid fig-corrective table3 table3-n2v-dual fig-valid-bvg fig-reconstruction table-sp table-matching table-vc"}
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
sed "s#$w/base/#OUT/#g" "$w/base.stdout" | LC_ALL=C sort > "$w/base.printed"
sed "s#$w/new/#OUT/#g" "$w/new.stdout" | LC_ALL=C sort > "$w/new.printed"
cmp -s "$w/base.printed" "$w/new.printed" || { echo "differ: the printed tables"; status=1; }
(cd "$w/base" && find . -type f ! -path '*/logs/*' ! -name '*.progress' | sort) > "$w/base.files"
(cd "$w/new" && find . -type f ! -path '*/logs/*' ! -name '*.progress' | sort) > "$w/new.files"
if ! diff -q "$w/base.files" "$w/new.files" > /dev/null; then
    echo "differ: the set of files"; diff "$w/base.files" "$w/new.files" | sed 's/^/  /'; status=1
fi
# same_apart_from FILE_A FILE_B: the two record streams are equal once the
# keys of COMPARE_IGNORE_KEYS are left out of every record (NaN equals NaN)
same_apart_from() {
    /usr/bin/python3 - "$1" "$2" "$COMPARE_IGNORE_KEYS" <<'PYEOF'
import math, sys, msgpack
def records(path):
    with open(path, "rb") as f:
        return list(msgpack.Unpacker(f, raw=True, strict_map_key=False, max_buffer_size=0))
def same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) == type(b) and a == b
ignore = {k.encode() for k in sys.argv[3].split()}
def strip(r):
    return {k: v for k, v in r.items() if k not in ignore} if isinstance(r, dict) else r
a, b = records(sys.argv[1]), records(sys.argv[2])
sys.exit(0 if len(a) == len(b) and all(same(strip(x), strip(y)) for x, y in zip(a, b)) else 1)
PYEOF
}
n=0 apart=0
while read -r f; do
    [ -e "$w/new/$f" ] || continue
    n=$((n + 1))
    cmp -s "$w/base/$f" "$w/new/$f" && continue
    if [ -n "${COMPARE_IGNORE_KEYS:-}" ] && [[ "$f" == *.mp ]] && same_apart_from "$w/base/$f" "$w/new/$f"; then
        echo "same apart from $COMPARE_IGNORE_KEYS: $f"; apart=$((apart + 1))
    else
        echo "differ: $f"; status=1
    fi
done < "$w/base.files"
[ "$status" -eq 0 ] && echo "compare-builds: $n files and the printed tables identical" \
    "($((n - apart)) byte for byte, $apart apart from ${COMPARE_IGNORE_KEYS:-no key})"
exit "$status"
