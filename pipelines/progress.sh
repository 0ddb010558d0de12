#!/usr/bin/env bash
# progress.sh JOBS STEP-FILE... -- COMMAND...: run COMMAND (a make) and, on
# stderr, print one line per step file that appears while it runs:
#   [2/4] trained dual-pgn-max-s0 (62 s); 3 min elapsed, about 2 min left
# A step's time runs from when its `<file>.tmp` appeared (the recipes write
# there first) to when the file itself did.  Files that exist already are
# done (cached) and not counted.  On a terminal a second line, rewritten in
# place, names the steps running now; a log gets only the plain lines.
# The exit status is COMMAND's.
set -uo pipefail
jobs=$1; shift
steps=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    [ -e "$1" ] || steps+=("$1")
    shift
done
shift
total=${#steps[@]}
start=$(date +%s)
tty=0; [ -t 2 ] && tty=1

"$@" &
pid=$!
declare -A started finished
done_count=0 model_time=0 model_count=0

describe() { # file seconds
    local name; name=$(basename "$1" .mp)
    case $1 in
        */models/*) echo "trained $name ($2 s)" ;;
        *.md) echo "wrote $(basename "$1") ($2 s)" ;;
        *) echo "made $name ($2 s)" ;;
    esac
}

poll() {
    local now f running="" left remaining
    now=$(date +%s)
    for f in "${steps[@]}"; do
        [ -n "${finished[$f]:-}" ] && continue
        if [ -e "$f" ]; then
            local t0=${started[$f]:-$start}
            local took=$(( now - t0 ))
            finished[$f]=1
            done_count=$(( done_count + 1 ))
            case $f in */models/*) model_time=$(( model_time + took )); model_count=$(( model_count + 1 )) ;; esac
            remaining=0
            for g in "${steps[@]}"; do
                case $g in */models/*) [ -z "${finished[$g]:-}" ] && remaining=$(( remaining + 1 )) ;; esac
            done
            left=""
            if [ "$model_count" -gt 0 ] && [ "$remaining" -gt 0 ]; then
                # the remaining trainings, $jobs at a time, at the mean time so far
                left=$(( (remaining + jobs - 1) / jobs * model_time / model_count ))
                left="; about $(( (left + 59) / 60 )) min left"
            fi
            [ "$tty" = 1 ] && printf '\r\033[K' >&2
            printf '[%d/%d] %s; %d min elapsed%s\n' "$done_count" "$total" "$(describe "$f" "$took")" \
                "$(( (now - start) / 60 ))" "$left" >&2
        elif [ -e "$f.tmp" ]; then
            [ -n "${started[$f]:-}" ] || started[$f]=$now
            running+=" $(basename "$f" .mp) ($(( now - started[$f] )) s)"
        fi
    done
    if [ "$tty" = 1 ] && [ -n "$running" ]; then
        printf '\r\033[K  running:%s' "$running" >&2
    fi
}

while kill -0 "$pid" 2> /dev/null; do
    poll
    sleep 1
done
wait "$pid"
status=$?
poll
[ "$tty" = 1 ] && printf '\r\033[K' >&2
exit "$status"
