#!/usr/bin/env bash
# make bench: issue 23's speed constraint, dar-fit's max-flow training within
# 3 % of the build before the algorithm seam (2756ec0), same machine, same
# run.  The reference is REF_BIN=DIR (a directory holding that build's
# dar-fit) or, without it, 2756ec0 exported with git archive into a
# temporary directory and its dar-fit built there (a minute or two).
# Both builds train dual and primal PGN-max on the paper's training split
# (1000 two-community graphs of 16 nodes, batch 32, one thread), alternating
# build by build for SEAM_ROUNDS (3) rounds; a training's cost is the CPU
# time (user + system) of a SEAM_ITERS-iteration run (6) less that of a
# 1-iteration run, over the iterations between, so reading the data is
# left out and a loaded machine's waiting is not counted.  Printed: the
# median seconds an iteration of each build, their ratio, and OpenBLAS's
# core (openblas_get_corename()).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
PATH="$ROOT/bin:$PATH"
export DAR_CACHE=off OPENBLAS_NUM_THREADS=1
REF_COMMIT=2756ec0
ITERS=${SEAM_ITERS:-6}
ROUNDS=${SEAM_ROUNDS:-3}
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
if [ -n "${REF_BIN:-}" ]; then
    ref="$REF_BIN/dar-fit"
else
    mkdir "$w/ref"
    git -C "$ROOT" archive "$REF_COMMIT" | tar -x -C "$w/ref"
    make -C "$w/ref" -s -j2 bin/dar-fit > "$w/ref-build.log" 2>&1 || { cat "$w/ref-build.log" >&2; exit 1; }
    ref="$w/ref/bin/dar-fit"
fi
[ -x "$ref" ] || { echo "seam.sh: no dar-fit in '${REF_BIN:-$w/ref/bin}'" >&2; exit 66; }
core=$(/usr/bin/python3 -c 'import ctypes; f = ctypes.CDLL("libopenblas.so.0").openblas_get_corename; f.restype = ctypes.c_char_p; print(f().decode())')
gen-graphs --family two-community --nodes 16 --count 1000 --seed 1 | ff-trace -q > "$w/train.mp"

cpu_seconds() { # the CPU time of one dar-fit run: binary, iterations, options
    local bin=$1 iters=$2; shift 2
    /usr/bin/time -f '%U %S' -o "$w/time" "$bin" --iters "$iters" --threads 1 --batch 32 -q --no-cache "$@" \
        < "$w/train.mp" > /dev/null
    awk '{print $1 + $2}' "$w/time"
}
per_iteration() { # binary, options: CPU seconds an iteration
    local long short
    long=$(cpu_seconds "$1" "$ITERS" "${@:2}")
    short=$(cpu_seconds "$1" 1 "${@:2}")
    echo "($long - $short) / ($ITERS - 1)" | bc -l
}
median() { sort -g | awk '{v[NR] = $1} END {printf "%.4f\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "bench seam: CPU: $(lscpu | sed -n 's/^Model name: *//p'); OpenBLAS core $core; load average $(cut -d' ' -f1-3 /proc/loadavg); reference ${REF_BIN:-$REF_COMMIT (built here)}"
for variant in dual primal; do
    : > "$w/ours.txt"; : > "$w/ref.txt"
    for _ in $(seq "$ROUNDS"); do
        per_iteration "$ROOT/bin/dar-fit" --variant $variant >> "$w/ours.txt"
        per_iteration "$ref" --variant $variant >> "$w/ref.txt"
    done
    ours=$(median < "$w/ours.txt") before=$(median < "$w/ref.txt")
    ratio=$(echo "$ours / $before" | bc -l)
    printf 'bench seam: dar-fit max-flow %s PGN-max, batch 32, 1 thread: this build %.4f s an iteration, before the seam (%s) %.4f s (CPU time, median of %d); this / before = %.3f (%s the 3%% bound); OpenBLAS core %s\n' \
        "$variant" "$ours" "$REF_COMMIT" "$before" "$ROUNDS" "$ratio" \
        "$(echo "$ratio <= 1.03" | bc -l | sed 's/1/within/; s/0/over/')" "$core"
done
