#!/usr/bin/env bash
# make bench: edge-embed on a vessel graph of CD1-E-1's size (5,791,309 edges)
# against the PyTorch scatter implementation of the same one step
# (tests/bench/torch_embed.py: index_select + scatter_reduce 'amax', chunked
# arcs), same graph, same weights (the paper's dual H = 65, one dar-fit
# iteration: weights do not change the cost), same thread count.  Prints wall
# time and peak RSS of each and the ratio; targets: ours < 60 s, < 4 GB.
# EDGE_EMBED_BENCH_EDGES overrides the size (e.g. 500000 for a quick look).
set -euo pipefail
cd "$(dirname "$0")/../.."
PATH="$PWD/bin:$PATH"
edges=${EDGE_EMBED_BENCH_EDGES:-5791309}
threads=${EDGE_EMBED_BENCH_THREADS:-2}
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
# the graph and the model come from the cache when there is one
gen-graphs --family vessel --edges "$edges" --seed 1 > "$w/g.mp"
gen-graphs --nodes 8 --count 8 --seed 1 | ff-trace | dar-fit --iters 1 --batch 2 -q > "$w/m.mp"
measure() { # wall seconds and peak RSS (KB) of a command: "S KB"
    /usr/bin/time -f '%e %M' -o "$w/time" "$@" > "$w/out" 2> "$w/err" || { cat "$w/err"; exit 1; }
    cat "$w/time"
}
read -r osec okb < <(measure edge-embed -m "$w/m.mp" --no-cache -q -j "$threads" -i "$w/g.mp" -o "$w/emb.mp")
read -r tsec tkb < <(measure /usr/bin/python3 tests/bench/torch_embed.py "$w/g.mp" "$w/m.mp" --threads "$threads")
tcomp=$(awk '/^torch_seconds/{print $2}' "$w/out")
printf 'bench edge-embed: %s edges, H 65, %s thread(s): %.1f s, peak RSS %.2f GB (whole tool: read, embed, write %s); torch scatter: %.1f s (compute %.1f s), peak RSS %.2f GB; torch/ours %.1fx (targets: ours < 60 s, < 4 GB)\n' \
    "$edges" "$threads" "$osec" "$(echo "$okb / 1048576" | bc -l)" "$(du -h "$w/emb.mp" | cut -f1)" \
    "$tsec" "$tcomp" "$(echo "$tkb / 1048576" | bc -l)" "$(echo "$tsec / $osec" | bc -l)"
echo "bench edge-embed: load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (wall times scale with it)"
