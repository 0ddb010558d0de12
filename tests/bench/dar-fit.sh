#!/usr/bin/env bash
# make bench: one training iteration (batch 32, the paper's training split:
# 1000 two-community graphs of 16 nodes) of primal, dual, pipeline, no-algo
# PGN-max and dual MPNN-max, in C and in the PyTorch twin, at 1 and 2
# threads, in the same run: seconds per iteration and the ratio; the matrix
# products' achieved GFLOP/s next to the best rate of OpenBLAS sgemm and of
# our kernel on a product of the same kind; the share of the iteration in
# those products; projected hours of a 20,000-iteration run and of the paper
# profile.  Then dar-fit's validation pass (128 graphs of 16 nodes), dar-step
# on the 128-graph 64-node test set, and the peak memory of a training run.
#
# BENCH_BASE=DIR (a build of another commit, e.g. a worktree of main after
# `make`) times that build too, alternating with this one, and prints the
# speed-up.  BENCH_ITERS (5) iterations per measurement, BENCH_ROUNDS (1)
# alternating rounds (the minimum and median over rounds are printed), and
# BENCH_TWIN=0 skips the PyTorch twin.
set -euo pipefail
cd "$(dirname "$0")/../.."
PATH="$PWD/bin:$PATH"
export DAR_CACHE=off OPENBLAS_NUM_THREADS=1
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
ITERS=${BENCH_ITERS:-5}
ROUNDS=${BENCH_ROUNDS:-1}
BASE=${BENCH_BASE:-}
# Trainings of the paper profile (Table 1's rows x 5 seeds, Table 2, the
# appendix and the search), each 20,000 iterations: about 85.
PAPER_TRAININGS=85
gen-graphs --family two-community --nodes 16 --count 1000 --seed 1 | ff-trace > "$w/train.mp"
gen-graphs --family two-community --nodes 16 --count 128 --seed 2 | ff-trace > "$w/val.mp"
gen-graphs --nodes 64 --count 128 --seed 3 | ff-trace > "$w/test.mp"

field() { awk -v k="$1" '$1 == k {print $2}' <<<"$2"; }
stats() { # min and median of the numbers on stdin
    sort -g | awk '{v[NR] = $1} END {m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.4f %.4f\n", v[1], m}'
}

echo "bench dar-fit: CPU: $(lscpu | sed -n 's/^Model name: *//p'); $(nproc) CPUs usable; load average $(cut -d' ' -f1-3 /proc/loadavg)"
for config in "primal pgn max 68" "dual pgn max 65" "pipeline pgn max 65" "no-algo pgn max 68" "dual mpnn max 65"; do
    read -r variant processor agg hidden <<<"$config"
    name="$variant ${processor^^}-$agg H=$hidden"
    for threads in 1 2; do
        : > "$w/ours.txt"; : > "$w/base.txt"
        for round in $(seq "$ROUNDS"); do
            out=$(DAR_BENCH_THREADS=$threads build/tools/dar_bench "$w/train.mp" "$ITERS" $variant $processor $agg $hidden 32)
            field seconds_per_iteration "$out" >> "$w/ours.txt"
            if [ -n "$BASE" ]; then
                OPENBLAS_NUM_THREADS=$threads "$BASE/build/tools/dar_bench" "$w/train.mp" "$ITERS" $variant $processor $agg $hidden 32 |
                    awk '$1 == "seconds_per_iteration" {print $2}' >> "$w/base.txt"
            fi
        done
        read -r ours_min ours_med < <(stats < "$w/ours.txt")
        line="bench dar-fit: $name, $threads thread(s): ${ours_med} s an iteration (min ${ours_min})"
        if [ "${BENCH_TWIN:-1}" != 0 ]; then
            twin=$(OPENBLAS_NUM_THREADS=$threads /usr/bin/python3 tests/twin/dar_twin.py --threads "$threads" bench \
                --variant $variant --processor $processor --agg $agg --hidden $hidden --batch-size 32 --iters 2 \
                < "$w/train.mp" 2>/dev/null)
            line+="; PyTorch twin ${twin} s, ratio $(printf '%.1f' "$(echo "$twin / $ours_med" | bc -l)")x"
        fi
        if [ -n "$BASE" ]; then
            read -r base_min base_med < <(stats < "$w/base.txt")
            line+="; before (BENCH_BASE) ${base_med} s (min ${base_min}): $(printf '%.2f' "$(echo "$base_med / $ours_med" | bc -l)")x faster"
        fi
        echo "$line"
        printf 'bench dar-fit: %s, %d thread(s): products %.1f GFLOP/s achieved (%.1f GFLOP an iteration, %.0f%% of its time); best on 8192x%dx%d: OpenBLAS sgemm %.1f GFLOP/s (core %s), our kernel %.1f GFLOP/s (%s); 20,000 iterations: %.2f h; the paper profile (%d trainings): %.0f h\n' \
            "$name" "$threads" "$(field achieved_gflops "$out")" "$(field gflop_per_iteration "$out")" \
            "$(echo "100 * $(field product_share "$out")" | bc -l)" $((2 * hidden)) "$hidden" \
            "$(field sgemm_gflops "$out")" "$(field openblas_core "$out")" "$(field own_kernel_gflops "$out")" \
            "$(field own_kernel "$out")" "$(echo "$ours_med * 20000 / 3600" | bc -l)" "$PAPER_TRAININGS" \
            "$(echo "$ours_med * 20000 * $PAPER_TRAININGS / 3600" | bc -l)"
    done
done

# validation and scoring: dar-fit's validation pass over 128 graphs of 16
# nodes (in process), and dar-step (the same prediction, as a tool) on those
# and on 128 graphs of 64 nodes, with a dual model
dar-fit --iters 2 --batch 4 -q --no-cache < "$w/train.mp" > "$w/dual.mp"
seconds_of() { local t0 t1; t0=$(date +%s.%N); "$@" > /dev/null; t1=$(date +%s.%N); printf '%.2f' "$(echo "$t1 - $t0" | bc -l)"; }
for threads in 1 2; do
    out=$(DAR_BENCH_THREADS=$threads build/tools/dar_bench "$w/train.mp" 1 dual pgn max 65 32 "$w/val.mp")
    echo "bench dar-fit: validation pass (128 graphs of 16 nodes, dual PGN-max), $threads thread(s): $(field validation_seconds "$out") s"
    for set in val test; do
        line="bench dar-step: $set set ($([ $set = val ] && echo '128 graphs of 16 nodes' || echo '128 graphs of 64 nodes')), $threads thread(s): $(seconds_of dar-step --no-cache --threads "$threads" -m "$w/dual.mp" -i "$w/$set.mp") s"
        [ -z "$BASE" ] || line+="; before (BENCH_BASE): $(OPENBLAS_NUM_THREADS=$threads seconds_of "$BASE/bin/dar-step" --no-cache -m "$w/dual.mp" -i "$w/$set.mp") s"
        echo "$line"
    done
done

rss=$( { /usr/bin/time -f '%M' dar-fit --iters 20 --eval-every 10 --val "$w/val.mp" -q --no-cache \
        < "$w/train.mp" > /dev/null; } 2>&1 | tail -1)
printf 'bench dar-fit: peak memory of a training run (20 iterations with validation, %d threads): %.0f MB (target < 2048 MB)\n' \
    "$(nproc)" "$(echo "$rss / 1024" | bc -l)"
