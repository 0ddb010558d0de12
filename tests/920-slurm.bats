#!/usr/bin/env bats
# The study on Slurm (make RUN=slurm, pipelines/cluster.mk + pipelines/launch)
# against a one-node cluster started for this file (tests/slurm/slurm-local.sh):
# the same bytes as a local run, a second run all cache hits, a failing
# command fails make, a job lost with its node is retried, Ctrl-C cancels.
# Skipped only when slurm-wlm and munge are missing and cannot be installed.
load test_helper

SL="$ROOT/tests/slurm/slurm-local.sh"

slurm_installed() {
    PATH=$PATH:/usr/sbin command -v slurmctld >/dev/null && PATH=$PATH:/usr/sbin command -v slurmd >/dev/null &&
        command -v srun >/dev/null && PATH=$PATH:/usr/sbin command -v munged >/dev/null
}

setup_file() {
    export BATS_NO_PARALLELIZE_WITHIN_FILE=true
    export F="$BATS_FILE_TMPDIR"
    if ! slurm_installed; then
        # what `make test` installs (Makefile DEB_TEST_PACKAGES) before it runs this
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
            (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge) \
                > "$F/apt.log" 2>&1 || true
        fi
        if ! slurm_installed; then
            export SLURM_SKIP="slurm-wlm and munge are not installed and could not be installed ($( [ "$(id -u)" = 0 ] && tail -n 1 "$F/apt.log" 2>/dev/null || echo 'not root'))"
            return 0
        fi
    fi
    local env
    # the cluster stops by itself should this bats process die before teardown_file
    env=$(SLURM_LOCAL_OWNER_PID=$$ "$SL" start) || { echo "slurm-local.sh start failed" >&2; return 1; }
    eval "$env"
    export SLURM_CONF SLURM_LOCAL_DIR
    # the tools as the study sees them, plus a dar-fit that can be slowed
    # down once (a job to kill); exec keeps /proc/self/exe, hence cache keys
    mkdir -p "$F/bin"
    for t in "$DAR_BIN"/*; do [ -x "$t" ] && [ ! -d "$t" ] && ln -s "$t" "$F/bin/"; done
    rm -f "$F/bin/dar-fit"
    cat > "$F/bin/dar-fit" <<EOF
#!/bin/sh
if [ -n "\${SLOW_ONCE:-}" ] && mv "\$SLOW_ONCE" "\$SLOW_ONCE.taken" 2>/dev/null; then
    echo \$\$ > "\$SLOW_ONCE.running"; sleep 30
fi
[ -n "\${FAIL_FIT:-}" ] && { echo "dar-fit: failing on purpose" >&2; exit 3; }
exec "$DAR_BIN/dar-fit" "\$@"
EOF
    chmod +x "$F/bin/dar-fit"
}

teardown_file() {
    if [ -n "${SLURM_LOCAL_DIR:-}" ]; then
        "$SL" stop "$SLURM_LOCAL_DIR"
    fi
}

setup() {
    [ -z "${SLURM_SKIP:-}" ] || skip "$SLURM_SKIP"
}

study() { # out cache target... : the smoke study, tables on stdout
    local out=$1 cache=$2; shift 2
    DAR_CACHE="$cache" make --no-print-directory -s -C "$ROOT" -j2 PROFILE=smoke OUT="$out" DAR_BIN="$F/bin" "$@"
}

jobs_so_far() { grep -c '_slurm_rpc_allocate_resources JobId=' "$SLURM_LOCAL_DIR/log/slurmctld.log" || true; }

@test "slurm: make table1 RUN=slurm prints the bytes of a local run, every heavy recipe a job of its own" {
    study "$F/local" "$F/cache-local" table1 > "$F/local.md"
    heavy=$(study "$F/probe" "$F/cache-probe" -n RUN=slurm table1 | grep -c "^$ROOT/pipelines/launch bash -o pipefail -c ")
    [ "$heavy" -eq 26 ]                     # 26 models, each scored in its job; data and the baseline are light
    before=$(jobs_so_far)
    run --separate-stderr study "$F/slurm" "$F/cache-slurm" RUN=slurm table1
    assert_success
    [ "$output" = "$(cat "$F/local.md")" ] || { diff <(echo "$output") "$F/local.md"; false; }
    [ "$(( $(jobs_so_far) - before ))" -eq "$heavy" ]
    [ "$(grep -c '^miss dar-fit' "$F/cache-slurm/log")" -eq 26 ]   # trained in the jobs
    cmp "$F/slurm/table1.md" "$F/local/table1.md"
    [ ! -e "$F/slurm/.launch" ] || [ -z "$(find "$F/slurm/.launch" -name '*.status*')" ]
}

@test "slurm: a second run trains nothing (no new dar-fit miss) and prints the same bytes" {
    [ -s "$F/local.md" ] || skip "needs the first test"
    misses=$(grep -c '^miss dar-fit' "$F/cache-slurm/log")
    rm -rf "$F/slurm"
    run --separate-stderr study "$F/slurm" "$F/cache-slurm" RUN=slurm table1
    assert_success
    [ "$output" = "$(cat "$F/local.md")" ]
    [ "$(grep -c '^miss dar-fit' "$F/cache-slurm/log")" -eq "$misses" ]
    [ "$(grep -c '^hit dar-fit' "$F/cache-slurm/log")" -ge 26 ]
}

@test "slurm: a failing command fails its make target with its status, once, and leaves no target" {
    run launch_direct sh -c 'exit 3'
    [ "$status" -eq 3 ]
    before=$(jobs_so_far)
    FAIL_FIT=1 run --separate-stderr study "$F/fail" off RUN=slurm "$F/fail/models/dual-pgn-max-s0.mp"
    assert_failure
    [[ "$stderr" == *"dar-fit: failing on purpose"* ]]
    [[ "$stderr" == *"dual-pgn-max-s0.mp] Error 3"* ]]
    [[ "$stderr" != *"no exit status came back"* ]]            # not retried
    [ "$(( $(jobs_so_far) - before ))" -eq 1 ]                 # the fit (the data is made here)
    [ ! -e "$F/fail/models/dual-pgn-max-s0.mp" ]
}

launch_direct() { (cd "$F" && LAUNCH_DIR="$F/launch" "$ROOT/pipelines/launch" "$@"); }

@test "slurm: a working directory missing on the node fails the job (no silent run in /tmp)" {
    # a directory only this mount namespace sees, as if the node lacked the shared filesystem
    unshare -m true 2>/dev/null || skip "no private mount namespace here (unshare -m fails, as in a chroot)"
    mkdir -p "$F/private"
    run unshare -m sh -c 'mount -t tmpfs none "$1" && mkdir "$1/w" && cd "$1/w" &&
        LAUNCH_DIR="$2" "$3" sh -c "echo ran > here"' sh "$F/private" "$F/launch" "$ROOT/pipelines/launch"
    [ "$status" -eq 75 ]
    assert_output --partial "is missing on node localhost"
    [ ! -e /tmp/here ]
}

@test "slurm: a job whose node dies is resubmitted and table1 is still byte-identical" {
    [ -s "$F/local.md" ] || skip "needs the first test"
    touch "$F/slow"
    SLOW_ONCE="$F/slow" study "$F/crash" "$F/cache-crash" RUN=slurm table1 > "$F/crash.md" 2> "$F/crash.err" &
    mk=$!
    for _ in $(seq 300); do [ -e "$F/slow.running" ] && break; sleep 0.1; done
    [ -e "$F/slow.running" ] || { kill "$mk"; fail "the slow job never started"; }
    "$SL" crash-node
    ! kill -0 "$(cat "$F/slow.running")" 2>/dev/null          # the job's task died with its node
    sleep 1
    "$SL" revive-node
    wait "$mk" || fail "make failed: $(cat "$F/crash.err")"
    grep -q 'launch: no exit status came back (srun exit 0' "$F/crash.err" || fail "no retry: $(cat "$F/crash.err")"
    cmp "$F/crash.md" "$F/local.md"
    cmp "$F/crash/table1.md" "$F/local/table1.md"
}

@test "slurm: Ctrl-C stops make at once, cancels the jobs and leaves no target" {
    touch "$F/slow2"
    # make in a process group of its own with SIGINT at its default (a shell
    # running us in the background may have it ignored), as a terminal's make
    SLOW_ONCE="$F/slow2" DAR_CACHE=off "$PY" -c '
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.setpgid(0, 0)
os.execvp(sys.argv[1], sys.argv[1:])' make --no-print-directory -s -C "$ROOT" -j2 PROFILE=smoke OUT="$F/intr" DAR_BIN="$F/bin" \
        RUN=slurm "$F/intr/models/dual-pgn-max-s0.mp" > "$F/intr.out" 2>&1 &
    mk=$!
    for _ in $(seq 300); do [ -e "$F/slow2.running" ] && break; sleep 0.1; done
    [ -e "$F/slow2.running" ] || { kill "$mk"; fail "the slow job never started: $(cat "$F/intr.out")"; }
    t0=$(date +%s)
    kill -INT -- -"$mk"
    rc=0; wait "$mk" || rc=$?
    echo "make rc $rc after $(( $(date +%s) - t0 )) s"
    [ "$rc" -eq 130 ] || [ "$rc" -eq 2 ] || fail "make rc $rc: $(cat "$F/intr.out")"
    [ "$(( $(date +%s) - t0 ))" -lt 10 ]
    grep -q 'launch: interrupted (SIGINT); job cancelled' "$F/intr.out" || fail "$(cat "$F/intr.out")"
    [ ! -e "$F/intr/models/dual-pgn-max-s0.mp" ]
    for _ in $(seq 50); do [ -z "$(squeue -h)" ] && break; sleep 0.1; done
    [ -z "$(squeue -h)" ]
    ! kill -0 "$(cat "$F/slow2.running")" 2>/dev/null
}
