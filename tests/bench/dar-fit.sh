#!/usr/bin/env bash
# make bench: one training iteration of dual PGN-max (H=65, batch 32, the
# paper's training split) in C and in the PyTorch twin, at 1 and 2 threads,
# in the same run; achieved GFLOP/s next to OpenBLAS sgemm's; the projected
# time of a 20,000-iteration run; the peak memory of a training run.
set -euo pipefail
cd "$(dirname "$0")/../.."
PATH="$PWD/bin:$PATH"
export DAR_CACHE=off
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
gen-graphs --family two-community --nodes 16 --count 1000 --seed 1 | ff-trace > "$w/train.mp"
gen-graphs --family two-community --nodes 16 --count 128 --seed 2 | ff-trace > "$w/val.mp"
ITERS=${BENCH_ITERS:-5}
for threads in 1 2; do
    ours=$(OPENBLAS_NUM_THREADS=$threads build/tools/dar_bench "$w/train.mp" "$ITERS")
    sec=$(awk '$1 == "seconds_per_iteration" {print $2}' <<<"$ours")
    gf=$(awk '$1 == "achieved_gflops" {print $2}' <<<"$ours")
    sg=$(awk '$1 == "sgemm_gflops" {print $2}' <<<"$ours")
    twin=$(OPENBLAS_NUM_THREADS=$threads /usr/bin/python3 tests/twin/dar_twin.py --threads "$threads" bench \
        --hidden 65 --batch-size 32 --iters 2 < "$w/train.mp" 2>/dev/null)
    printf 'bench dar-fit: %d thread(s): one iteration (dual PGN-max, H=65, B=32): %.3f s; PyTorch twin: %.2f s; ratio %.1fx (target >= 10x)\n' \
        "$threads" "$sec" "$twin" "$(echo "$twin / $sec" | bc -l)"
    printf 'bench dar-fit: %d thread(s): matrix products %.1f GFLOP/s achieved; OpenBLAS sgemm on 8192x130x65: %.1f GFLOP/s; a 20,000-iteration run: %.1f h\n' \
        "$threads" "$gf" "$sg" "$(echo "$sec * 20000 / 3600" | bc -l)"
done
rss=$( { OPENBLAS_NUM_THREADS=1 /usr/bin/time -f '%M' dar-fit --iters 20 --eval-every 10 --val "$w/val.mp" -q --no-cache \
        < "$w/train.mp" > /dev/null; } 2>&1 | tail -1)
printf 'bench dar-fit: peak memory of a training run (20 iterations with validation): %.0f MB (target < 2048 MB)\n' "$(echo "$rss / 1024" | bc -l)"
