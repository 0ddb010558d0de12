#!/usr/bin/env bash
# run.sh JOBS TEST...: run the unit test programs JOBS at a time (make
# test-unit).  Each program's output (stdout, then stderr) is printed whole
# and in the order given, so TAP lines of two programs never interleave; every
# program runs even after one fails, and the status is 1 if any failed.
set -uo pipefail
jobs=$1
shift
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
i=0
for t in "$@"; do
    case $t in /*) ;; *) t=./$t ;; esac
    printf '%s\0%s\0' "$i" "$t"
    i=$((i + 1))
done | xargs -0 -n 2 -P "$jobs" sh -c '"$2" > "$0/$1.out" 2> "$0/$1.err"; echo $? > "$0/$1.rc"' "$out"
status=0
i=0
for t in "$@"; do
    cat "$out/$i.out" "$out/$i.err"
    rc=$(cat "$out/$i.rc" 2>/dev/null || echo 127)
    if [ "$rc" != 0 ]; then
        echo "unit: $t exited $rc" >&2
        status=1
    fi
    i=$((i + 1))
done
exit $status
