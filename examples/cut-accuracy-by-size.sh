#!/usr/bin/env bash
# Train one dual PGN-max model on 16-node two-community graphs, then look at
# its min-cut accuracy (and flow MAE) on graphs from 8 to 64 nodes.
#   ITERS=300 examples/cut-accuracy-by-size.sh [workdir]
set -euo pipefail
cd "$(dirname "$0")/.." && PATH="$PWD/bin:$PATH"
work=${1:-out/examples/cut-by-size}
ITERS=${ITERS:-200}
mkdir -p "$work"
gen-graphs --nodes 16 --count 1000 --seed 1 | ff-trace > "$work/train.mp"
gen-graphs --nodes 16 --count 64 --seed 2 | ff-trace > "$work/val.mp"
dar-fit --variant dual --iters "$ITERS" --eval-every 50 --val "$work/val.mp" < "$work/train.mp" > "$work/dual.mp"
for n in 8 16 32 64; do
    gen-graphs --nodes "$n" --count 32 --seed 3 | ff-trace | dar-step --model "$work/dual.mp" \
        | metrics --quantity cut_accuracy,mae_flow -l nodes="$n"
done | metrics --table md --rows nodes --cols name --title "dual PGN-max trained $ITERS iterations on 16-node graphs"
