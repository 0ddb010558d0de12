#!/usr/bin/env bash
# make demo: a short run of the study on the quick profile.  It grows with the
# project; for now it generates the paper's training and test graphs, traces
# them and prints their trajectory statistics and max-flow values.
set -euo pipefail
cd "$(dirname "$0")/.."
PATH="$PWD/bin:$PATH"
out=${DEMO_DIR:-out/demo}
mkdir -p "$out"
echo "demo: generating and tracing the paper's splits (two-community 16 and 64 nodes, bipartite 64)"
gen-graphs --family two-community --nodes 16 --count 1000 --seed 1 | ff-trace > "$out/train.mp"
gen-graphs --family two-community --nodes 64 --count 128 --seed 4 | ff-trace > "$out/test-2comm-64.mp"
gen-graphs --family bipartite --nodes 64 --count 128 --seed 6 | ff-trace > "$out/test-bip-64.mp"
for f in train test-2comm-64 test-bip-64; do
    mpcat "$out/$f.mp" | /usr/bin/python3 -c '
import json, sys, statistics as st
recs = [json.loads(l) for l in sys.stdin]
T = [r["steps"] for r in recs]; F = [r["maxflow"] for r in recs]
aug = [sum(1 for p in r["hint_phase"]["data"] if p == 0) for r in recs]
print(f"  {sys.argv[1]:15s} {len(recs):5d} graphs  T mean {st.mean(T):7.1f}  max {max(T):5d}  augmentations {st.mean(aug):5.1f}  max-flow mean {st.mean(F):.3f}")' "$f"
done
