#!/usr/bin/env bash
# progress.sh JOBS STEP-FILE... -- COMMAND...: run COMMAND (a make) and show,
# on stderr, how far it is (a STEP-FILE may be FILE=PROGRESS-FILE: a long step
# that is no model, e.g. a vessel score, whose tools append to PROGRESS-FILE;
# an argument FILE@ITERS says that the training FILE will run ITERS iterations,
# so that the time left counts a queued training at its own length and not at
# the length of the one running):
#   - one line per step file that appears while it runs (an event):
#       [2/5] trained dual-pgn-max-s0 (62 s); 3 min elapsed, about 2 min left
#   - for each running training (a step file models/<run>.mp, whose dar-fit
#     appends to logs/<run>.progress: DAR_PROGRESS_FILE, common/base/progress.h)
#     its iteration, loss, validation score and time left:
#       dual-pgn-max-s0: iteration 1200/3000, loss 0.0123, validation 0.0456 (best 0.04); 5 min 10 s left
#     and a last line with the steps done and left and the whole run's time left.
# On a terminal the running lines are redrawn in place every second; in a log
# or a pipe each training's first line is printed as soon as it starts, and
# the running lines again at most every PROGRESS_EVERY seconds (default 30).
# A step's time runs from when its progress file or `<file>.tmp` appeared (the
# recipes write there first) to when the file itself did.  Files that exist
# already are done (cached) and not counted; a progress file or `.tmp` older
# than this run is an interrupted run's, and its step waits until it is written
# anew.  A training resumed from its checkpoint begins its progress file at the
# iteration it resumes from (common/base/progress.h): its rate and time left
# count from there.  The exit status is COMMAND's.
set -uo pipefail
jobs=$1; shift
steps=()
declare -A progress_of iters_of
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    if [[ $1 =~ ^(.+)@([0-9]+)$ ]]; then
        iters_of[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
        shift
        continue
    fi
    f=${1%%=*}
    [ "$f" = "$1" ] || progress_of[$f]=${1#*=}
    [ -e "$f" ] || steps+=("$f")
    shift
done
shift
total=${#steps[@]}
start=$(date +%s)
tty=0; [ -t 2 ] && tty=1
every=${PROGRESS_EVERY:-30}

"$@" &
pid=$!
declare -A started finished shown
done_count=0 model_time=0 model_count=0
drawn=0             # lines of the running block now on the terminal
last_block=$start   # when a log last got the running block

status_of() { # a step file: its training's progress file
    local f=$1
    if [ -n "${progress_of[$f]:-}" ]; then echo "${progress_of[$f]}"; return; fi
    case $f in models/*.mp | */models/*.mp) echo "${f%models/*}logs/$(basename "$f" .mp).progress" ;; esac
}

fresh() { # a file written since this run started (not an interrupted run's)
    [ -e "$1" ] && [ "$(stat -c %Y "$1")" -ge "$start" ]
}

minutes() { # seconds: "about N min" or "N s"
    if [ "$1" -ge 90 ]; then echo "$(( ($1 + 59) / 60 )) min"; else echo "$1 s"; fi
}

describe() { # file seconds
    local name; name=$(basename "$1" .mp)
    case $1 in
        models/* | */models/*) echo "trained $name ($2 s)" ;;
        *.md) echo "wrote $(basename "$1") ($2 s)" ;;
        *) echo "made $name ($2 s)" ;;
    esac
}

# one line of a progress file (SECONDS DONE TOTAL WHAT EXTRA) as the line
# shown, given the file's first line (where this run began)
job_line() { # name line first-line
    local name=$1 seconds done_ total what extra left="" first
    IFS=$'\t' read -r seconds done_ total what extra <<< "$2"
    IFS=$'\t' read -r _ first _ <<< "$3"
    seconds=${seconds%.*}
    if [ "$done_" = "$first" ]; then
        if [ "$first" = 0 ]; then echo "$name: started, $total $what"
        else echo "$name: resumed at ${what%s} $first/$total"; fi
        return
    fi
    if [ "$done_" -ge "$total" ] 2> /dev/null; then
        echo "$name: $total/$total $what done, scoring on the test graphs"
        return
    fi
    [ "$done_" -gt "$first" ] && left="; $(minutes $(( seconds * (total - done_) / (done_ - first) ))) left"
    what=${what%s}
    echo "$name: $what $done_/$total${extra:+, $extra}$left"
}

# every running training's line, and the summary: fills the array `block`
make_block() {
    local f s now line head left_max=0 left_sum=0 running=0 est=0 left
    local rate_sec=0 rate_iters=0
    local -a queued=()
    now=$(date +%s)
    block=()
    for f in "${steps[@]}"; do
        [ -n "${finished[$f]:-}" ] && continue
        s=$(status_of "$f")
        [ -n "$s" ] || continue
        if [ -s "$s" ] && fresh "$s" && [ -n "${started[$f]:-}" ]; then
            line=$(tail -n 1 "$s")
            head=$(head -n 1 "$s")
            block+=("  $(job_line "$(basename "$f" .mp)" "$line" "$head")")
            running=$(( running + 1 ))
            # this training's seconds left and its whole time, from its rate
            # in this run
            local sec dn tt dn0
            IFS=$'\t' read -r sec dn tt _ <<< "$line"
            IFS=$'\t' read -r _ dn0 _ <<< "$head"
            sec=${sec%.*}
            if [ "$dn" -gt "$dn0" ] 2> /dev/null; then
                left=$(( sec * (tt - dn) / (dn - dn0) ))
                [ "$left" -gt "$left_max" ] && left_max=$left
                left_sum=$(( left_sum + left ))
                est=$(( sec * tt / (dn - dn0) ))
                rate_sec=$(( rate_sec + sec )) rate_iters=$(( rate_iters + dn - dn0 ))
            else
                queued+=("$f")   # no rate yet: counted as a whole training
            fi
        else
            queued+=("$f")
        fi
    done
    # the queued trainings, JOBS at a time: one whose length is known
    # (FILE@ITERS) at the running trainings' seconds an iteration, any other
    # at the mean time of those done or else of the running ones
    local per=0 t queued_sum=0 queued_max=0
    if [ "$model_count" -gt 0 ]; then per=$(( model_time / model_count )); else per=$est; fi
    for f in "${queued[@]}"; do
        if [ -n "${iters_of[$f]:-}" ] && [ "$rate_iters" -gt 0 ]; then
            t=$(( rate_sec * ${iters_of[$f]} / rate_iters ))
        else
            t=$per
        fi
        queued_sum=$(( queued_sum + t ))
        [ "$t" -gt "$queued_max" ] && queued_max=$t
    done
    left=$(( (left_sum + queued_sum + jobs - 1) / jobs ))
    [ "$left" -lt "$left_max" ] && left=$left_max
    # a queued training takes its whole time once it starts
    [ "$left" -lt "$queued_max" ] && left=$queued_max
    local summary="  $done_count/$total steps done, $(( total - done_count )) left; $(( (now - start) / 60 )) min elapsed"
    if [ "$running" -gt 0 ] || [ "${#queued[@]}" -gt 0 ]; then
        if [ "$per" -gt 0 ] || [ "$left_max" -gt 0 ] || [ "$queued_max" -gt 0 ]; then summary+=", about $(minutes "$left") left"; fi
    fi
    block+=("$summary")
}

erase() { # the running block on a terminal
    [ "$tty" = 1 ] || return 0
    while [ "$drawn" -gt 0 ]; do
        printf '\033[1A\r\033[K' >&2
        drawn=$(( drawn - 1 ))
    done
}

say() { # an event line: above the running block on a terminal
    erase
    printf '%s\n' "$1" >&2
}

poll() {
    local now f s took remaining left first
    now=$(date +%s)
    for f in "${steps[@]}"; do
        [ -n "${finished[$f]:-}" ] && continue
        s=$(status_of "$f")
        # a training that started: its first line at once, in a log too
        if [ -n "$s" ] && [ -s "$s" ] && fresh "$s" && [ -z "${shown[$f]:-}" ]; then
            shown[$f]=1
            [ -n "${started[$f]:-}" ] || started[$f]=$now
            first=$(head -n 1 "$s")
            say "$(job_line "$(basename "$f" .mp)" "$first" "$first")"
        fi
        if [ -e "$f" ]; then
            took=$(( now - ${started[$f]:-$start} ))
            finished[$f]=1
            done_count=$(( done_count + 1 ))
            case $f in models/* | */models/*) model_time=$(( model_time + took )); model_count=$(( model_count + 1 )) ;; esac
            make_block
            say "[$done_count/$total] $(describe "$f" "$took");${block[-1]#*;}"
        elif fresh "$f.tmp" && [ -z "${started[$f]:-}" ]; then
            started[$f]=$now
        fi
    done
    [ "$done_count" -lt "$total" ] || return 0
    if [ "$tty" = 1 ]; then
        make_block
        erase
        local line
        for line in "${block[@]}"; do printf '%s\033[K\n' "$line" >&2; done
        drawn=${#block[@]}
    elif [ $(( now - last_block )) -ge "$every" ]; then
        last_block=$now
        make_block
        printf '%s\n' "${block[@]}" >&2
    fi
}

while kill -0 "$pid" 2> /dev/null; do
    poll
    sleep 1
done
wait "$pid"
status=$?
poll
erase
exit "$status"
