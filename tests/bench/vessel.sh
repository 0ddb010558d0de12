#!/usr/bin/env bash
# make bench: gen-graphs --family vessel at the size of CD1-E-1 (5,791,309
# edges, the largest study graph): wall time, CPU time and peak RSS
# (/usr/bin/time), no cache.  Target: well under 60 s and 4 GB on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
PATH="$PWD/bin:$PATH"
export DAR_CACHE=off
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
for e in 5791309; do
    /usr/bin/time -f '%e %U %S %M' -o "$w/time" gen-graphs --family vessel --edges "$e" --seed 1 -o "$w/v.mp"
    read -r wall user sys rss < "$w/time"
    printf 'bench gen-graphs vessel: %d edges in %.2f s wall (%.2f s user, %.2f s sys), peak RSS %.0f MB, record %.0f MB (target < 60 s, < 4 GB)\n' \
        "$e" "$wall" "$user" "$sys" "$(echo "$rss / 1024" | bc -l)" "$(echo "$(stat -c %s "$w/v.mp") / 1048576" | bc -l)"
done
