#!/usr/bin/env bash
# tests/fuzz/run.sh fuzz SECONDS JOBS HARNESS...  - fuzz each harness for
#     SECONDS, JOBS at a time; print executions per second, coverage and
#     crashes per harness.  New inputs go to $FUZZ_BUILD/corpus/<harness>
#     (the seeds in tests/fuzz/corpus/<harness> are read, never written); a
#     crash is saved as tests/fuzz/crashes/<harness>/crash-<sha1> (leak-,
#     timeout-, oom- likewise) and ends that harness's run.
# tests/fuzz/run.sh replay 0 JOBS HARNESS...  - run every seed and every saved
#     crash once through its harness; TAP, one line per harness.
# Run from the repository's top, after `make fuzz-build`.
set -uo pipefail
mode=$1 seconds=$2 jobs=$3
shift 3
build=${FUZZ_BUILD:-build/fuzz}
export OPENBLAS_NUM_THREADS=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$build/log"

one_fuzz() {
    local h=$1 seconds=$2 build=$3
    mkdir -p "$build/corpus/$h" "tests/fuzz/crashes/$h"
    "$build/fuzz/$h" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
        -dict=tests/fuzz/records.dict -artifact_prefix="tests/fuzz/crashes/$h/" -print_final_stats=1 \
        "$build/corpus/$h" "tests/fuzz/corpus/$h" > "$build/log/$h.log" 2>&1
    echo $? > "$build/log/$h.status"
}

one_replay() {
    local h=$1 build=$2
    local inputs=()
    for f in "tests/fuzz/corpus/$h"/* "tests/fuzz/crashes/$h"/*; do
        [ -f "$f" ] && inputs+=("$f")
    done
    if [ ${#inputs[@]} -eq 0 ]; then
        echo 0 > "$build/log/$h.replay.status"; : > "$build/log/$h.replay.log"; return
    fi
    "$build/fuzz/$h" -timeout=60 -rss_limit_mb=2048 -malloc_limit_mb=2048 "${inputs[@]}" \
        > "$build/log/$h.replay.log" 2>&1
    echo $? > "$build/log/$h.replay.status"
}
export -f one_fuzz one_replay

case $mode in
fuzz)
    start=$(date +%s)
    marker="$build/log/.started"
    touch "$marker"
    printf '%s\n' "$@" | xargs -P "$jobs" -I{} bash -c 'one_fuzz "$@"' _ {} "$seconds" "$build"
    printf '%-16s %10s %8s %14s %8s %s\n' harness executions exec/s "coverage" "new" crashes
    failed=0
    for h in "$@"; do
        log="$build/log/$h.log"
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
        rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
        first=$(grep -m1 -oE 'INITED cov: [0-9]+' "$log" | grep -oE '[0-9]+$')
        last=$(grep -oE '(cov): [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$')
        units=$(sed -n 's/^stat::new_units_added: *//p' "$log" | tail -1)
        crashes=$(find "tests/fuzz/crashes/$h" -type f -newer "$marker" 2>/dev/null | sort | tr '\n' ' ')
        [ "$(cat "$build/log/$h.status")" = 0 ] || failed=1
        printf '%-16s %10s %8s %6s -> %-5s %8s %s\n' "$h" "${execs:-?}" "${rate:-?}" "${first:-?}" "${last:-?}" \
            "+${units:-?}" "${crashes:-none}"
    done
    echo "fuzz: $(( $(date +%s) - start )) s; logs in $build/log/"
    exit $failed
    ;;
replay)
    printf '%s\n' "$@" | xargs -P "$jobs" -I{} bash -c 'one_replay "$@"' _ {} "$build"
    echo "1..$#"
    n=0 failed=0
    for h in "$@"; do
        n=$((n + 1))
        count=$(find "tests/fuzz/corpus/$h" "tests/fuzz/crashes/$h" -type f 2>/dev/null | wc -l)
        if [ "$(cat "$build/log/$h.replay.status")" = 0 ]; then
            echo "ok $n - fuzz replay: $h ($count inputs)"
        else
            echo "not ok $n - fuzz replay: $h ($count inputs)"
            grep -E 'Running:|ERROR|SUMMARY|harness:|in .*(common|tools|tests/fuzz)/' "$build/log/$h.replay.log" | tail -15 | sed 's/^/# /'
            failed=1
        fi
    done
    exit $failed
    ;;
*)
    echo "usage: $0 fuzz|replay SECONDS JOBS HARNESS..." >&2
    exit 64
    ;;
esac
