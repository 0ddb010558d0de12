#!/usr/bin/env bash
# make bench: gnn-train's training epoch (common/graphnn/gnn.c: forward, weighted NLL,
# backward, Adam) on the line graph of a generated vessel graph of
# GNN_BENCH_EDGES (default 1,000,000) vessels, SAGE 4 x 128 and GCN 3 x 256
# (the paper's), against the PyTorch peer (tests/bench/gnn_torch.py: the same
# model, float32, torch.sparse.mm on CSR) in the same run, both on
# GNN_BENCH_THREADS threads (default 1); the ratio, of the wall times and of
# the CPU times (which other load on the machine moves less); the GEMM
# GFLOP/s of our epoch next to sgemm's alone on this machine, with OpenBLAS's
# core name; METIS's time for 9 parts.  Then, unless GNN_BENCH_BIG=0, the peak memory of
# one SAGE epoch of gnn-train at CD1-E-1's size (5,791,309 vessels; target
# under 16 GB), ours only (the peer needs more than this machine has).
# GNN_BENCH_MODELS (default "sage gcn") picks the models.
set -euo pipefail
cd "$(dirname "$0")/../.."
PATH="$PWD/bin:$PATH"
PY=/usr/bin/python3
export DAR_CACHE=off
edges=${GNN_BENCH_EDGES:-1000000}
threads=${GNN_BENCH_THREADS:-1}
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
gen-graphs --family vessel --edges "$edges" --seed 1 -o "$w/v.mp"
for conv in ${GNN_BENCH_MODELS:-sage gcn}; do
    extra=(--csr "$w/csr.mp"); [ "$conv" = sage ] || extra+=(--no-metis)
    build/tools/gnn_bench --conv "$conv" --epochs 3 -j "$threads" "${extra[@]}" < "$w/v.mp" > "$w/ours-$conv"
    "$PY" tests/bench/gnn_torch.py "$w/csr.mp" --conv "$conv" --epochs 3 --threads "$threads" > "$w/torch-$conv"
    get() { awk -v k="$2" '$1 == k {print $2}' "$1"; }
    ours=$(get "$w/ours-$conv" epoch_s) peer=$(get "$w/torch-$conv" epoch_s)
    ours_cpu=$(get "$w/ours-$conv" epoch_cpu_s) peer_cpu=$(get "$w/torch-$conv" epoch_cpu_s)
    printf 'bench gnn-train: %s epoch on a line graph of %s nodes (%s adjacency entries), %s thread(s): ours %.2f s, PyTorch %.2f s, PyTorch/ours %.1fx (target 3x); CPU time ours %.2f s, PyTorch %.2f s, %.1fx; our GEMMs %.1f GFLOP/s, sgemm alone %.1f GFLOP/s (OpenBLAS core %s)\n' \
        "$conv" "$(get "$w/ours-$conv" nodes)" "$(get "$w/ours-$conv" nnz)" "$threads" "$ours" "$peer" \
        "$(echo "$peer / $ours" | bc -l)" "$ours_cpu" "$peer_cpu" "$(echo "$peer_cpu / $ours_cpu" | bc -l)" \
        "$(get "$w/ours-$conv" gemm_gflops)" "$(get "$w/ours-$conv" sgemm_gflops)" "$(get "$w/ours-$conv" corename)"
    [ "$conv" = sage ] && printf 'bench gnn-train: METIS_PartGraphKway, 9 parts of %s nodes: %.2f s (edge cut %s); line graph build %.2f s\n' \
        "$(get "$w/ours-$conv" nodes)" "$(get "$w/ours-$conv" metis_s)" "$(get "$w/ours-$conv" metis_edge_cut)" "$(get "$w/ours-$conv" line_graph_s)"
done
if [ "${GNN_BENCH_BIG:-1}" != 0 ]; then
    rm -f "$w/v.mp" "$w/csr.mp"
    gen-graphs --family vessel --edges 5791309 --seed 1 -o "$w/big.mp"
    /usr/bin/time -f '%e %M' -o "$w/time" gnn-train -q --no-cache --model sage --epochs 1 -j "$threads" -o /dev/null < "$w/big.mp"
    read -r wall rss < "$w/time"
    printf 'bench gnn-train: one SAGE 4 x 128 epoch (plus an evaluation and the predictions) at CD1-E-1 size, 5791309 vessels: %.1f s wall, peak RSS %.1f GB (target < 16 GB)\n' \
        "$wall" "$(echo "$rss / 1048576" | bc -l)"
fi
