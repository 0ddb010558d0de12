#!/usr/bin/env bash
# make bench: one training step of Bellman-Ford at CLRS-30's protocol, dar
# beside CLRS's own baseline (issue 37), in the same run on the same CPU and
# thread count: dar-fit with the clrs profile's recipe (PGN-max dual, H 128,
# edge pointer head, layer norm, gate, soft hints, batch 32 of CLRS's sampler
# at 4-16 nodes) and tests/bench/clrs_peer.py (dm-clrs's Triplet-GMPNN and
# MPNN as run.py trains them) in build/peer-venv, which `make peer` creates
# (this bench runs it when the venv is missing: PyPI must be reachable).
# Seconds per step: dar's the mean over BENCH_PEER_ITERS iterations after
# loading (dar-fit's log), the peer's the median of its jitted step after
# each shape's first call (its TSV's sec_per_step); and the ratio, in wall
# and in CPU seconds (a loaded machine stretches the wall time, not the CPU).
# BENCH_PEER=0 skips this bench.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "${BENCH_PEER:-1}" = 0 ] && exit 0
PATH="$PWD/bin:$PATH"
export DAR_CACHE=off OPENBLAS_NUM_THREADS=1
ITERS=${BENCH_PEER_ITERS:-40}
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
make --no-print-directory -s peer >/dev/null
corename=$(/usr/bin/python3 -c 'import ctypes; l = ctypes.CDLL("libopenblas.so.0"); l.openblas_get_corename.restype = ctypes.c_char_p; print(l.openblas_get_corename().decode())' 2>/dev/null || echo unknown)
echo "bench clrs-peer: CPU: $(lscpu | sed -n 's/^Model name: *//p'); OpenBLAS core $corename; $(nproc) CPUs usable; load average $(cut -d' ' -f1-3 /proc/loadavg)"
gen-graphs --instance shortest-paths --family erdos-renyi --sizes 4,7,11,13,16 --law clrs --count 3200 --seed 1 \
    | ff-trace --algorithm shortest-paths -q > "$w/train.mp"
gen-graphs --instance shortest-paths --family erdos-renyi --nodes 64 --count 4 --seed 2 \
    | ff-trace --algorithm shortest-paths -q > "$w/test.mp"
for threads in 1 2; do
    # dar's CPU seconds: the whole process's (loading included, so a step
    # is overstated), as the peer's are its process's over its steps
    /usr/bin/time -f '%U %S' -o "$w/dar.time" \
    dar-fit --variant dual --processor pgn --agg max -H 128 --optim adam --lr 0.001 --weight-decay 0 \
        --pointer-head edge --layer-norm --gate --soft-hints --tf-decay 0 --clip-norm 1 --iters "$ITERS" \
        --eval-every 1000000 --threads "$threads" --log "$w/dar.tsv" -q --no-cache < "$w/train.mp" > /dev/null
    ours=$(awk -F'\t' -v n="$ITERS" 'END {printf "%.4f", $NF / n}' "$w/dar.tsv")
    ours_cpu=$(awk -v n="$ITERS" '{printf "%.4f", ($1 + $2) / n}' "$w/dar.time")
    for processor in triplet_gmpnn mpnn; do
        build/peer-venv/bin/python tests/bench/clrs_peer.py train --processor "$processor" --seed 0 \
            --steps "$ITERS" --eval-at "$ITERS" --threads "$threads" --dar-test "$w/test.mp" --out "$w/peer.tsv" \
            > /dev/null 2>&1
        col() { awk -F'\t' -v k="$1" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == k) c = i; next} c {v = $c} END {print v}' "$w/peer.tsv"; }
        peer=$(col sec_per_step)
        peer_cpu=$(col cpu_sec_per_step)
        echo "bench clrs-peer: $threads thread(s): dar dual PGN-max (the clrs recipe) ${ours} s a step (${ours_cpu} CPU-s); CLRS $processor ${peer} s (${peer_cpu} CPU-s); dar $(printf '%.1f' "$(echo "$peer / $ours" | bc -l)")x faster in wall time, $(printf '%.1f' "$(echo "$peer_cpu / $ours_cpu" | bc -l)")x in CPU time"
    done
done
