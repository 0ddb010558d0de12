#!/usr/bin/env bash
# make bench: Node2Vec's walks and skip-gram on the line graph of a vessel
# graph, against gensim's word2vec (Debian python3-gensim; skip-gram,
# negative sampling, 2 workers) trained on the SAME walks in the same run
# (tests/tools/n2v_bench writes them, tests/bench/node2vec_gensim.py trains):
#   walks/s        ours: drawing the walks (one thread); both: walks trained a second
#   pair updates/s a dot product of two rows and the update of both
#                  (ours: every positive and negative pair of PyG's windows;
#                  gensim: its expected pairs, its windows shrunk at random)
# One epoch, the tool's defaults (dim 128, 40-node walks, context 15 = window
# 14 for gensim, 1 negative, p = q = 1), 2 threads each.  Ours also takes
# SparseAdam steps (PyG's optimiser) which gensim's SGD does not need.
# N2V_BENCH_EDGES (default 20000; gensim takes about 80 s on it here) sets the graph's size, N2V_BENCH_WALKS
# (default 10) the walks per node.  No BLAS is used (the kernels are ours).
set -euo pipefail
cd "$(dirname "$0")/../.."
PATH="$PWD/bin:$PATH"
PY=/usr/bin/python3
export DAR_CACHE=off
edges=${N2V_BENCH_EDGES:-20000}
walks_per_node=${N2V_BENCH_WALKS:-10}
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
gen-graphs --family vessel --edges "$edges" --seed 1 -o "$w/v.mp"

ours=$(build/tools/n2v_bench "$w/v.mp" "$w/walks.txt" 2 "$walks_per_node")
peer=$("$PY" tests/bench/node2vec_gensim.py "$w/walks.txt" 14 1 2)
# key=value lines, read as ours_KEY and peer_KEY
eval "$(echo "$ours" | sed 's/\([a-z_0-9]*\)=/ours_\1=/g')"
eval "$(echo "$peer" | sed 's/\([a-z_0-9]*\)=/peer_\1=/g')"
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
printf 'bench node2vec: line graph of %d vessels (%d edges of G), %d walks of 40 nodes; CPU %s, AVX2 clone %s, BLAS not used\n' \
    "$ours_nodes" "$edges" "$ours_walks" "$cpu" "$([ "$ours_avx2" = 1 ] && echo yes || echo no)"
printf 'bench node2vec: drawing the walks: %.0f walks/s (%.1f M steps/s, one thread)\n' \
    "$(echo "$ours_walks / $ours_walk_seconds" | bc -l)" "$(echo "$ours_walks * 39 / $ours_walk_seconds / 1000000" | bc -l)"
printf 'bench node2vec: one epoch, 2 threads: ours %.2f s (%.0f walks/s, %.1f M pair updates/s), gensim %.2f s (%.0f walks/s, %.1f M pair updates/s); pair updates/s ours/gensim %.2fx, walks/s ours/gensim %.2fx\n' \
    "$ours_train_seconds" "$(echo "$ours_walks / $ours_train_seconds" | bc -l)" "$(echo "$ours_pairs / $ours_train_seconds / 1000000" | bc -l)" \
    "$peer_seconds" "$(echo "$peer_walks / $peer_seconds" | bc -l)" "$(echo "$peer_pairs / $peer_seconds / 1000000" | bc -l)" \
    "$(echo "($ours_pairs / $ours_train_seconds) / ($peer_pairs / $peer_seconds)" | bc -l)" \
    "$(echo "($ours_walks / $ours_train_seconds) / ($peer_walks / $peer_seconds)" | bc -l)"
printf 'bench node2vec: CPU time (both threads; steadier than wall time on a shared machine): ours %.2f s, gensim %.2f s; pair updates per CPU second ours/gensim %.2fx\n' \
    "$ours_train_cpu_seconds" "$peer_cpu_seconds" \
    "$(echo "($ours_pairs / $ours_train_cpu_seconds) / ($peer_pairs / $peer_cpu_seconds)" | bc -l)"
