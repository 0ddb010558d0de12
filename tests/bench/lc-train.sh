#!/usr/bin/env bash
# make bench: lc-train on a vessel graph of CD1-E-1's size (5,791,309 edges)
# next to scikit-learn's LogisticRegression(class_weight='balanced') on the
# same standardised inputs and the same split (tests/bench/lc-train.py), in
# the same run: times, their ratio, both test balanced accuracies.
#   ours:    lc-train's wall time, everything included (reading and writing the
#            0.45 GB record, standardisation, training, predictions), no cache
#   sklearn: StandardScaler + fit + predict on arrays already in memory
# Then lc-train with a simulated edge embedding f32[m, LC_BENCH_EMBED_D] (default
# 185, the widest that fits one msgpack bin32 at this size; 0 skips it): ours
# only (sklearn's float64 copy of a 4.6M x 188 design would be 7 GB).
# LC_BENCH_EDGES overrides the size.
set -euo pipefail
cd "$(dirname "$0")/../.."
PATH="$PWD/bin:$PATH"
PY=/usr/bin/python3
export DAR_CACHE=off
edges=${LC_BENCH_EDGES:-5791309}
embed_d=${LC_BENCH_EMBED_D:-185}
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
gen-graphs --family vessel --edges "$edges" --seed 1 -o "$w/v.mp"

/usr/bin/time -f '%e %U %M' -o "$w/time" lc-train -q -o "$w/out.mp" < "$w/v.mp"
read -r wall user rss < "$w/time"
read -r _ sk_s _ sk_bacc _ our_bacc epochs < <("$PY" tests/bench/lc-train.py "$w/out.mp")
printf 'bench lc-train: %d edges, inputs length,distance,curveness: ours %.2f s wall (%.2f s CPU, %s, peak RSS %.0f MB), sklearn %.2f s, sklearn/ours %.1fx; test balanced accuracy ours %.4f, sklearn %.4f\n' \
    "$edges" "$wall" "$user" "$epochs" "$(echo "$rss / 1024" | bc -l)" "$sk_s" "$(echo "$sk_s / $wall" | bc -l)" "$our_bacc" "$sk_bacc"

if [ "$embed_d" -gt 0 ]; then
    rm -f "$w/out.mp"
    "$PY" tests/bench/lc-train.py --simulate-embed "$embed_d" "$w/v.mp" "$w/e.mp"
    rm -f "$w/v.mp"
    /usr/bin/time -f '%e %U %M' -o "$w/time" lc-train -q --inputs length,distance,curveness,edge_embed --drop edge_embed -o "$w/eo.mp" < "$w/e.mp"
    read -r wall user rss < "$w/time"
    read -r _ our_bacc epochs < <("$PY" tests/bench/lc-train.py "$w/eo.mp" --lc-only)
    printf 'bench lc-train: %d edges, inputs length,distance,curveness,edge_embed[%d] (simulated, %.1f GB record): ours %.2f s wall (%.2f s CPU, %s, peak RSS %.0f MB); test balanced accuracy %.4f\n' \
        "$edges" "$embed_d" "$(echo "$(stat -c %s "$w/e.mp") / 1073741824" | bc -l)" "$wall" "$user" "$epochs" "$(echo "$rss / 1024" | bc -l)" "$our_bacc"
fi
