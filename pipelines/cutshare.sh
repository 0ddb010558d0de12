#!/bin/bash
# cutshare.sh COUNT SIZES FAMILY:CAPACITY... - where the minimum cut lies.
# For each family (and capacity law) and size, COUNT graphs from gen-graphs
# solved by ff-trace --no-hints: the share whose source side is s alone, whose
# sink side is t alone (cut is 1 on the sink side), and the rest.  One TSV
# line per family and size after a header.
set -euo pipefail
count=$1 sizes=$2
shift 2
printf 'family\tcapacity\tnodes\ts_only\tt_only\tother\tgraphs\n'
for fc in "$@"; do
    family=${fc%%:*} capacity=${fc#*:}
    for n in $sizes; do
        gen-graphs --family "$family" --capacity "$capacity" --nodes "$n" --count "$count" --seed 105 \
          | ff-trace --no-hints -q | mpcat | jq -r '[.n, (.cut.data | add)] | @tsv' \
          | awk -v f="$family" -v c="$capacity" -v n="$n" '
              { k++; if ($1 - $2 == 1) s++; else if ($2 == 1) t++; else o++ }
              END { printf "%s\t%s\t%d\t%.6f\t%.6f\t%.6f\t%d\n", f, c, n, s / k, t / k, o / k, k }'
    done
done
