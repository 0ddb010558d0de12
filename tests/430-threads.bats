#!/usr/bin/env bats
# Every tool that runs dense products on OpenBLAS writes the same bytes at
# any --threads and any OPENBLAS_NUM_THREADS: OpenBLAS runs single-threaded
# and the tools split the work themselves in fixed-size chunks (layers.h).
# The graphs are big enough that the dense layers span several chunks.
load test_helper

setup() {
    gen-graphs --nodes 16 --count 24 --seed 1 | ff-trace > "$T/train.mp"
    gen-graphs --nodes 16 --count 8 --seed 2 | ff-trace > "$T/val.mp"
}

# The same command with --threads 1 and 2, each with OPENBLAS_NUM_THREADS 1
# and 2: every output equals the first.  $1 is the output file's stem.
same_at_every_thread_count() {
    local stem="$1"; shift
    OPENBLAS_NUM_THREADS=1 "$@" --threads 1 --no-cache > "$T/$stem-1-1.mp"
    [ -s "$T/$stem-1-1.mp" ] || fail "$stem: empty output"
    local j b
    for j in 1 2; do
        for b in 1 2; do
            [ "$j$b" = 11 ] && continue
            OPENBLAS_NUM_THREADS=$b "$@" --threads $j --no-cache > "$T/$stem-$j-$b.mp"
            cmp "$T/$stem-1-1.mp" "$T/$stem-$j-$b.mp" ||
                fail "$stem: --threads $j OPENBLAS_NUM_THREADS=$b differs from 1 and 1"
        done
    done
}

@test "dar-fit: the same model bytes at 1 and 2 threads, with OPENBLAS_NUM_THREADS 1 and 2 (PGN and MPNN)" {
    same_at_every_thread_count pgn dar-fit --hidden 16 --batch 16 --iters 4 --eval-every 2 \
        --val "$T/val.mp" -q -i "$T/train.mp"
    same_at_every_thread_count mpnn dar-fit --processor mpnn --agg sum --hidden 16 --batch 4 --iters 3 \
        --eval-every 3 --val "$T/val.mp" -q -i "$T/train.mp"
}

@test "dar-fit: primal, pipeline and no-algo: the same model bytes at 1, 2 and 3 threads" {
    for v in primal pipeline no-algo; do
        dar-fit --variant $v --hidden 12 --batch 8 --iters 3 --eval-every 3 --val "$T/val.mp" -q --no-cache \
            -i "$T/train.mp" --threads 1 > "$T/$v-1.mp"
        for j in 2 3; do
            dar-fit --variant $v --hidden 12 --batch 8 --iters 3 --eval-every 3 --val "$T/val.mp" -q --no-cache \
                -i "$T/train.mp" --threads $j | cmp - "$T/$v-1.mp" || fail "$v: --threads $j differs from 1"
        done
    done
}

@test "dar-fit: --threads is not part of the cache key" {
    fit() { dar-fit --hidden 8 --batch 4 --iters 2 -q -i "$T/train.mp" -v "$@"; }
    run -0 --separate-stderr fit --threads 1 -o "$T/a.mp"
    [[ "$stderr" == *"cache miss"* ]] || fail "$stderr"
    run -0 --separate-stderr fit --threads 2 -o "$T/b.mp"
    [[ "$stderr" == *"cache hit"* ]] || fail "$stderr"
    cmp "$T/a.mp" "$T/b.mp"
}

@test "dar-step: the same predictions at 1 and 2 threads, with OPENBLAS_NUM_THREADS 1 and 2" {
    dar-fit --processor mpnn --hidden 16 --batch 4 --iters 2 -q -i "$T/train.mp" > "$T/m.mp"
    gen-graphs --nodes 24 --count 40 --seed 3 | ff-trace > "$T/test.mp"
    same_at_every_thread_count step dar-step -m "$T/m.mp" --hints --embed -i "$T/test.mp"
}

@test "edge-embed: the same embeddings and reconstruction at 1 and 2 threads, with OPENBLAS_NUM_THREADS 1 and 2" {
    dar-fit --hidden 8 --batch 4 --iters 2 -q -i "$T/train.mp" > "$T/m.mp"
    gen-graphs --family vessel --edges 3000 --seed 1 > "$T/v.mp"
    same_at_every_thread_count embed edge-embed -m "$T/m.mp" --chunk 500 -i "$T/v.mp"
    same_at_every_thread_count recon edge-embed --reconstruct -m "$T/m.mp" --iters 2 --max-steps 3 \
        --lr 0.01 --tf-decay 1 -i "$T/v.mp"
}

@test "lc-train: the same model and predictions at 1 and 2 threads, with OPENBLAS_NUM_THREADS 1 and 2" {
    gen-graphs --family vessel --edges 6000 --seed 1 > "$T/v.mp"
    same_at_every_thread_count lc lc-train -q --epochs 3 -i "$T/v.mp"
}
