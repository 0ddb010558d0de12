#!/usr/bin/env bash
# make bench: the tracers of common/algos/ against Python peers of the same
# work, measured in the same run (tests/bench/algos_peers.py), and the exact
# vertex-cover solvers' time per graph at each size.  The tracers make no
# BLAS call, so no OpenBLAS core is named.
#  1. shortest paths: CLRS's distribution (erdos-renyi p = 0.25, w U[0,1)),
#     1000 graphs of 16 nodes and 100 of 64, every frame written, against a
#     numpy tracer of the same frames; algo_trace, then ff-trace --algorithm
#     shortest-paths (one thread);
#  2. matching: 1000 graphs 8+8 at p = 1/4 (Georgiev & Lio) and 100 of
#     32+32, traced and written, against networkx's hopcroft_karp_matching
#     + to_vertex_cover (no hints); algo_trace, then ff-trace --algorithm
#     matching (one thread);
#  3. vertex cover: 1000 barabasi-albert graphs of 16 nodes and 100 of 64,
#     traced and written, against plain-Python rounds of the same hints;
#     algo_trace, then ff-trace --algorithm vertex-cover (one thread);
#  4. the exact vertex cover: GLPK on barabasi-albert graphs of 16..1024
#     nodes (the pipeline's budget of 2000 branch-and-bound nodes per graph;
#     the statuses are counted), the min cut on bipartite-sides graphs of
#     the same sizes (the trace without hints is in both times).
# Our times are whole runs of algo_trace less its start on an empty stream;
# the peers time themselves in their process, reading the stream included.
set -euo pipefail
cd "$(dirname "$0")/../.."
PATH="$PWD/bin:$PATH"
ALGO="$PWD/build/tools/algo_trace"
PEERS=tests/bench/algos_peers.py
export DAR_CACHE=off
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
best() { # best wall time in seconds of N runs of a command
    local n=$1 b=0 s d; shift
    for _ in $(seq "$n"); do
        s=${EPOCHREALTIME/[.,]/}; "$@"; d=$(( 10#${EPOCHREALTIME/[.,]/} - 10#$s ))
        if [ "$b" -eq 0 ] || [ "$d" -lt "$b" ]; then b=$d; fi
    done
    echo "scale=6; $b / 1000000" | bc -l
}
: > "$w/empty.mp"
run_algo() { "$ALGO" "$@" > /dev/null; }
start=$(best 5 run_algo -a shortest-paths -i "$w/empty.mp")

# name, algo_trace's options, the peer's name, then the gen-graphs options of each set
compare() {
    local label=$1 options=$2 peer=$3 set=$4 count=$5; shift 5
    gen-graphs "$@" --count "$count" --seed 1 > "$w/set.mp"
    local ours peer_time net
    ours=$(best 5 run_algo $options -i "$w/set.mp")
    peer_time=$(/usr/bin/python3 "$PEERS" "$peer" "$w/set.mp" 3)
    net=$(echo "$ours - $start" | bc -l)
    net=$(echo "if ($net < 0.000001) 0.000001 else $net" | bc -l)
    printf 'bench algos %s, %s: %d graphs, ours %.4f s (%.0f graphs/s, start %.4f s taken off), peer %.4f s (%.0f graphs/s), ratio %.1fx\n' \
        "$label" "$set" "$count" "$net" "$(echo "$count / $net" | bc -l)" "$start" "$peer_time" \
        "$(echo "$count / $peer_time" | bc -l)" "$(echo "$peer_time / $net" | bc -l)"
}

compare shortest-paths "-a shortest-paths" shortest-paths "n=16 (numpy tracer of the same frames)" 1000 \
    --instance shortest-paths --family erdos-renyi --nodes 16
compare shortest-paths "-a shortest-paths" shortest-paths "n=64 (numpy tracer of the same frames)" 100 \
    --instance shortest-paths --family erdos-renyi --nodes 64
# ff-trace --algorithm shortest-paths: the same tracer behind the tool (its
# record reader, checks and writer), one thread, against the same peer
run_algo() { ff-trace --algorithm shortest-paths --threads 1 -q "$@" > /dev/null; }
start_algo=$start
start=$(best 5 run_algo -i "$w/empty.mp")
compare "ff-trace --algorithm shortest-paths" "" shortest-paths "n=16 (numpy tracer of the same frames)" 1000 \
    --instance shortest-paths --family erdos-renyi --nodes 16
compare "ff-trace --algorithm shortest-paths" "" shortest-paths "n=64 (numpy tracer of the same frames)" 100 \
    --instance shortest-paths --family erdos-renyi --nodes 64
run_algo() { "$ALGO" "$@" > /dev/null; }
start=$start_algo
compare matching "-a matching --no-second" matching "8+8 p=1/4 (networkx hopcroft_karp + to_vertex_cover)" 1000 \
    --instance matching --family bipartite-sides --sides 8,8
compare matching "-a matching --no-second" matching "32+32 p=1/4 (networkx hopcroft_karp + to_vertex_cover)" 100 \
    --instance matching --family bipartite-sides --sides 32,32
# ff-trace --algorithm matching: the same tracer behind the tool, every
# search's hints written, one thread, against the same peer (which writes none)
run_algo() { ff-trace --algorithm matching --threads 1 -q "$@" > /dev/null; }
start=$(best 5 run_algo -i "$w/empty.mp")
compare "ff-trace --algorithm matching" "" matching "8+8 p=1/4 (networkx hopcroft_karp + to_vertex_cover)" 1000 \
    --instance matching --family bipartite-sides --sides 8,8
compare "ff-trace --algorithm matching" "" matching "32+32 p=1/4 (networkx hopcroft_karp + to_vertex_cover)" 100 \
    --instance matching --family bipartite-sides --sides 32,32
run_algo() { "$ALGO" "$@" > /dev/null; }
start=$start_algo
compare vertex-cover "-a vertex-cover" vertex-cover "barabasi-albert n=16 (plain-Python rounds)" 1000 \
    --instance vertex-cover --family barabasi-albert --nodes 16
compare vertex-cover "-a vertex-cover" vertex-cover "barabasi-albert n=64 (plain-Python rounds)" 100 \
    --instance vertex-cover --family barabasi-albert --nodes 64
# ff-trace --algorithm vertex-cover: the same tracer behind the tool (its
# record reader, checks and writer), one thread, against the same peer
run_algo() { ff-trace --algorithm vertex-cover --threads 1 -q "$@" > /dev/null; }
start=$(best 5 run_algo -i "$w/empty.mp")
compare "ff-trace --algorithm vertex-cover" "" vertex-cover "barabasi-albert n=16 (plain-Python rounds)" 1000 \
    --instance vertex-cover --family barabasi-albert --nodes 16
compare "ff-trace --algorithm vertex-cover" "" vertex-cover "barabasi-albert n=64 (plain-Python rounds)" 100 \
    --instance vertex-cover --family barabasi-albert --nodes 64
run_algo() { "$ALGO" "$@" > /dev/null; }
start=$start_algo

for n in 16 32 64 128 256 512 1024; do
    count=$(( n <= 64 ? 20 : 6 ))
    gen-graphs --instance vertex-cover --family barabasi-albert --nodes $n --count $count --seed 2 > "$w/ba.mp"
    s=${EPOCHREALTIME/[.,]/}
    "$ALGO" -a vertex-cover --exact --node-limit 2000 --no-hints -i "$w/ba.mp" > "$w/ba-out.mp"
    t=$(( 10#${EPOCHREALTIME/[.,]/} - 10#$s ))
    statuses=$(mpcat "$w/ba-out.mp" | jq -r .opt_status | sort | uniq -c | awk '{printf "%s%s %s", sep, $1, $2; sep=", "}')
    gen-graphs --instance vertex-cover --family bipartite-sides --nodes $n --count $count --seed 2 > "$w/bip.mp"
    s=${EPOCHREALTIME/[.,]/}
    "$ALGO" -a vertex-cover --exact --cut-only --no-hints -i "$w/bip.mp" > /dev/null
    c=$(( 10#${EPOCHREALTIME/[.,]/} - 10#$s ))
    printf 'bench algos exact vertex cover, n=%d: GLPK on %d barabasi-albert graphs %.4f s per graph (%s; 2000-node budget; whole runs / graphs); the min cut on bipartite-sides graphs (p = 1/4), %.4f s per graph (the primal-dual trace included)\n' \
        "$n" "$count" "$(echo "$t / 1000000 / $count" | bc -l)" "$statuses" "$(echo "$c / 1000000 / $count" | bc -l)"
done
