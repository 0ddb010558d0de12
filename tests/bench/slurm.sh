#!/usr/bin/env bash
# make bench: the smoke table1 on a one-node Slurm cluster against the same
# make run locally, both from a cold cache, measured in the same run (best of
# 2, alternating), plus the per-job cost of srun and of pipelines/launch, in
# wall time and in CPU time of the whole machine (the one-node cluster's
# daemons share the cores with the work, so Slurm's CPU per job bounds the
# ratio from below whatever the wrapper does).
# Starts and stops its own cluster (tests/slurm/slurm-local.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
export PATH=$PATH:/usr/sbin OPENBLAS_NUM_THREADS=1
for b in slurmctld slurmd munged srun; do
    command -v "$b" >/dev/null || { echo "bench slurm: skipped: $b not installed (make deps installs slurm-wlm and munge)"; exit 0; }
done
w=$(mktemp -d)
s=$(date +%s%N)
env=$(SLURM_LOCAL_OWNER_PID=$$ tests/slurm/slurm-local.sh start) || { echo "bench slurm: the cluster did not start"; exit 1; }
start_s=$(echo "scale=2; ($(date +%s%N) - $s) / 1000000000" | bc -l)
eval "$env"
trap '"$ROOT/tests/slurm/slurm-local.sh" stop "$SLURM_LOCAL_DIR"; rm -rf "$w"' EXIT

secs() { local t0; t0=$(date +%s%N); "$@" || { echo "bench slurm: failed: $*" >&2; return 1; }; echo "scale=3; ($(date +%s%N) - $t0) / 1000000000" | bc -l; }
study() { # name [make args...]: a cold-cache smoke table1 into $w/name
    local name=$1; shift
    rm -rf "$w/$name" "$w/cache-$name"
    DAR_CACHE="$w/cache-$name" make --no-print-directory -s -j2 PROFILE=smoke OUT="$w/$name" "$@" table1 > "$w/$name.md"
}
min() { echo "if ($1 < $2) $1 else $2" | bc -l; }
busy() { # CPU seconds the whole machine has spent, every process and the kernel (not idle, not iowait)
    awk -v hz="$(getconf CLK_TCK)" '/^cpu / { print ($2 + $3 + $4 + $7 + $8 + $9) / hz; exit }' /proc/stat
}
jobs_so_far() { grep -c '_slurm_rpc_allocate_resources JobId=' "$SLURM_LOCAL_DIR/log/slurmctld.log" || true; }

best_local=""; best_job=""; best_step=""; jobs=0
for round in 1 2; do
    c0=$(busy)
    t=$(secs study local) || exit 1
    c=$(echo "$(busy) - $c0" | bc -l)
    if [ -z "$best_local" ] || [ "$(echo "$t < $best_local" | bc -l)" = 1 ]; then best_local=$t cpu_local=$c; fi
    j0=$(jobs_so_far)
    t=$(secs study slurm RUN=slurm) || exit 1
    best_job=$(min "${best_job:-$t}" "$t"); jobs=$(( $(jobs_so_far) - j0 ))
    cmp -s "$w/local.md" "$w/slurm.md" || { echo "bench slurm: the tables differ"; exit 1; }
    t=$(secs salloc -Q -n2 bash -c "$(declare -f study); w='$w' study step RUN=slurm") || exit 1
    best_step=$(min "${best_step:-$t}" "$t")
    cmp -s "$w/local.md" "$w/step.md" || { echo "bench slurm: the tables differ (salloc)"; exit 1; }
done
loc=$best_local slu=$best_job

n=40
# per COMMAND: "wall-ms cpu-ms" per run of COMMAND, run n times one after another
per() { local t c0 c; c0=$(busy); t=$(secs sh -c "for i in \$(seq $n); do $* >/dev/null || exit 1; done"); c=$(busy)
    echo "$(echo "scale=1; $t * 1000 / $n" | bc -l) $(echo "scale=1; ($c - $c0) * 1000 / $n" | bc -l)"; }
cd "$w"
read -r p_sh c_sh < <(per bash -c true)
read -r p_srun c_srun < <(per srun -N1 -n1 --quiet true)
read -r p_launch c_launch < <(LAUNCH_DIR="$w/.launch" per "$ROOT/pipelines/launch" true)
cores=$(nproc)
# A lower bound of the RUN=slurm time: the local run's CPU plus Slurm's CPU
# for each job, spread perfectly over the cores (same work, same cores).
work=$(echo "$cpu_local * 1000 / $jobs" | bc -l)
floor_srun=$(echo "($cpu_local + $jobs * $c_srun / 1000) / $cores / $loc" | bc -l)
floor_launch=$(echo "($cpu_local + $jobs * $c_launch / 1000) / $cores / $loc" | bc -l)

printf 'bench slurm: cluster start %.2f s; one job, sequential (wall / CPU of the whole machine): bash -c true %.1f / %.1f ms, srun %.1f / %.1f ms, pipelines/launch %.1f / %.1f ms\n' \
    "$start_s" "$p_sh" "$c_sh" "$p_srun" "$c_srun" "$p_launch" "$c_launch"
printf 'bench slurm: make -j2 table1 PROFILE=smoke, cold cache (best of 2): local %.2f s; RUN=slurm %.2f s (%d jobs, %.0f ms more per job at -j2); ratio %.2fx (target <= 1.5x)\n' \
    "$loc" "$slu" "$jobs" "$(echo "($slu - $loc) * 2000 / $jobs" | bc -l)" "$(echo "$slu / $loc" | bc -l)"
printf 'bench slurm: the same inside one allocation (salloc -n2 make -j2 RUN=slurm: job steps, no per-job scheduling): %.2f s; ratio %.2fx\n' \
    "$best_step" "$(echo "$best_step / $loc" | bc -l)"
printf 'bench slurm: the local run used %.2f CPU s on %d cores (%.0f %% busy), %.0f ms per heavy job; that CPU plus one job'"'"'s CPU per heavy job, spread perfectly over the same cores, bounds the ratio from below: %.2fx (srun) or %.2fx (launch)\n' \
    "$cpu_local" "$cores" "$(echo "$cpu_local * 100 / $loc / $cores" | bc -l)" "$work" "$floor_srun" "$floor_launch"
printf 'bench slurm: load average during the run: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
