#!/usr/bin/env bats
# dar-fit's checkpoint (tools/dar_fit_checkpoint.h): a training interrupted by
# SIGTERM or kill -9 at several points, then run again with the same command,
# resumes from the checkpoint beside its cache entry and writes the bytes of
# an uninterrupted run.
load test_helper

setup() {
    gen-graphs --nodes 8 --count 40 --seed 1 | ff-trace > "$T/train.mp"
    gen-graphs --nodes 8 --count 8 --seed 2 | ff-trace > "$T/val.mp"
}

# under the sanitizers (much slower) a fifth of the iterations, still more
# than the checkpoints the interrupts wait for, and two of the points
FIT_ITERS=${DAR_ASAN:+60}
POINTS="TERM:1 TERM:3 TERM:8 KILL:1 KILL:5"
[ -z "${DAR_ASAN:-}" ] || POINTS="TERM:3 KILL:5"
# exec: a training started in the background is then the process the signal reaches
exec_fit() { exec dar-fit --hidden 16 --batch 16 --eval-every 5 --iters "${FIT_ITERS:-300}" --threads 1 --val "$T/val.mp" -q "$@" < "$T/train.mp"; }
fit() { (exec_fit "$@"); }
checkpoints() { find "$DAR_CACHE/v1" -name '*.ckpt' 2>/dev/null; }

# interrupt SIGNAL N: start a training, wait until it has written N
# checkpoints (as many files seen: inode and modification time, since a new
# file may take the inode number the one it replaced freed), send SIGNAL; it
# must not have finished
interrupt() {
    exec_fit --checkpoint-every 5 > "$T/part.mp" 2> "$T/part.err" &
    local pid=$! i seen=" " count=0 file
    for i in $(seq 1 6000); do
        file=$(stat -c %i-%.9Y "$DAR_CACHE"/v1/*/*.ckpt 2>/dev/null || true)
        if [ -n "$file" ] && [[ "$seen" != *" $file "* ]]; then seen="$seen$file "; count=$((count + 1)); fi
        if [ "$count" -ge "$2" ] || ! kill -0 $pid 2>/dev/null; then break; fi
        sleep 0.002
    done
    kill -"$1" $pid || true
    local status=0
    wait $pid || status=$?
    [ "$status" -gt 128 ] || fail "the training ended ($status) before SIGNAL $1 after $2 checkpoints"
    [ -n "$(checkpoints)" ] || fail "no checkpoint after SIGNAL $1"
}

@test "interrupted by SIGTERM and kill -9 at several points, the rerun resumes and writes an uninterrupted run's bytes" {
    fit --no-cache > "$T/reference.mp"
    for point in $POINTS; do
        rm -rf "$DAR_CACHE"
        interrupt "${point%:*}" "${point#*:}"
        # nothing was cached: the rerun misses, finds the checkpoint and resumes
        run --separate-stderr fit --checkpoint-every 5 -v -o "$T/resumed.mp"
        assert_success
        [[ "$stderr" == *"cache miss"* ]] || fail "$point: $stderr"
        [[ "$stderr" == *"resuming from the checkpoint '$DAR_CACHE/v1/"*".ckpt'"* ]] || fail "$point: $stderr"
        cmp "$T/reference.mp" "$T/resumed.mp" || fail "$point: the resumed model differs"
        # success removes the checkpoint; the entry serves the next run
        [ -z "$(checkpoints)" ] || fail "$point: the checkpoint is still there"
        fit --checkpoint-every 5 -o "$T/hit.mp" -v 2> "$T/hit.err"
        grep -q "cache hit" "$T/hit.err"
        cmp "$T/reference.mp" "$T/hit.mp"
    done
}

@test "interrupted twice, with another checkpoint interval the second time: still the same bytes" {
    fit --no-cache > "$T/reference.mp"
    interrupt TERM 2
    exec_fit --checkpoint-every 7 > "$T/second.mp" &
    local pid=$!
    sleep 0.2
    kill -TERM $pid || true
    wait $pid || true
    fit --checkpoint-every 3 > "$T/resumed.mp"
    cmp "$T/reference.mp" "$T/resumed.mp"
}

@test "a resumed training's progress begins at the checkpoint's iteration and keeps its best score" {
    interrupt KILL 2
    DAR_PROGRESS_FILE="$T/progress" fit --checkpoint-every 5 -o "$T/resumed.mp"
    # the first line: where it resumed (pipelines/progress.sh rates from there)
    IFS=$'\t' read -r seconds first total what extra < "$T/progress"
    [ "$first" -ge 10 ] && [ $((first % 5)) = 0 ] && [ "$total" = "${FIT_ITERS:-300}" ] || fail "$(head -n 2 "$T/progress")"
    # the next: the first iteration of this run, the checkpoint's best beside it
    [[ "$(sed -n 2p "$T/progress")" == *$'\t'$((first + 1))$'\t'*"no validation in this run yet (best "* ]] \
        || fail "$(head -n 2 "$T/progress")"
}

@test "a checkpoint keeps the time spent: the resumed run's log counts it, the output record holds no time" {
    fit --no-cache > "$T/reference.mp"
    interrupt KILL 2
    # the checkpoint's train_state says the seconds so far (the record comes
    # first in the file, the trailer after it)
    spent=$("$PY" -c 'import msgpack, sys; print(next(msgpack.Unpacker(open(sys.argv[1], "rb")))["train_state"]["seconds"])' \
        "$(checkpoints)")
    "$PY" -c 'import sys; sys.exit(not float(sys.argv[1]) > 0)' "$spent" || fail "seconds $spent"
    DAR_PROGRESS_FILE="$T/progress" fit --checkpoint-every 5 --log "$T/log.tsv" -o "$T/resumed.mp"
    cmp "$T/reference.mp" "$T/resumed.mp"
    first=$(head -n 1 "$T/progress" | cut -f2)
    # the iterations before the resume have no time; the first after it starts from the spent time
    awk -F'\t' -v first="$first" -v spent="$spent" 'NR > 1 {
            if ($1 <= first && $NF != "") { print "iteration " $1 " has a time: " $NF; bad = 1 }
            if ($1 == first + 1 && !($NF + 0 >= spent + 0)) { print "iteration " $1 ": " $NF " < " spent; bad = 1 }
        } END { exit bad }' "$T/log.tsv" || fail "$(sed -n "$((first + 1)),$((first + 3))p" "$T/log.tsv")"
}

@test "a corrupt or foreign checkpoint is ignored with a warning, not an error" {
    fit --no-cache > "$T/reference.mp"
    interrupt TERM 2
    ck=$(checkpoints)
    # one byte of the payload changed (flipped, so it differs whatever it was): the checksum fails
    byte=$(dd if="$ck" bs=1 skip=100 count=1 status=none | od -An -tu1 | tr -d ' ')
    printf "\\x$(printf %02x $((byte ^ 255)))" | dd of="$ck" bs=1 seek=100 conv=notrunc status=none
    run --separate-stderr fit --checkpoint-every 5 -o "$T/a.mp"
    assert_success
    [ "$stderr" = "dar-fit: warning: checkpoint: ignoring '${ck#$DAR_CACHE/v1/}': not a complete checkpoint of this run" ] || fail "$stderr"
    cmp "$T/reference.mp" "$T/a.mp"
    # cut short, empty, and another key's checkpoint under this key's name
    for how in cut empty foreign; do
        rm -rf "$DAR_CACHE"
        interrupt TERM 2
        ck=$(checkpoints)
        case $how in
            cut) truncate -s -20 "$ck" ;;
            empty) : > "$ck" ;;
            foreign) python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[-32] ^= 1; open(sys.argv[1], "wb").write(b)' "$ck" ;;
        esac
        run --separate-stderr fit --checkpoint-every 5 -o "$T/b.mp"
        assert_success
        [[ "$stderr" == *"checkpoint: ignoring"* ]] || fail "$how: $stderr"
        cmp "$T/reference.mp" "$T/b.mp" || fail "$how"
    done
}

@test "no checkpoint without the cache or with --checkpoint-every 0; a failed training leaves no entry" {
    DAR_CACHE=off fit --checkpoint-every 5 > "$T/a.mp"
    exec_fit --checkpoint-every 0 > "$T/b.mp" &
    local pid=$!
    sleep 0.3
    [ -z "$(checkpoints)" ]
    wait $pid
    cmp "$T/a.mp" "$T/b.mp"
    # a training that dies (its validation file is not traced graphs) stores nothing
    rm -rf "$DAR_CACHE"
    printf 'x' > "$T/bad.mp"
    run -65 dar-fit --hidden 8 --iters 3 --val "$T/bad.mp" -q < "$T/train.mp"
    [ -z "$(find "$DAR_CACHE/v1" -type f 2>/dev/null)" ]
}

@test "scripts/carry-cache.sh: a checkpoint saved into a folder and loaded into an empty cache (a new machine) resumes to an uninterrupted run's bytes; the finished entry replaces it" {
    local carry="$T/carry" first="$DAR_CACHE"
    fit --no-cache > "$T/reference.mp"
    interrupt TERM 3
    run "$ROOT/scripts/carry-cache.sh" save "$carry"
    assert_success
    assert_output --partial "saved 0 finished trainings and 1 checkpoints"
    [ "$(find "$carry/v1" -name '*.ckpt' | wc -l)" = 1 ]
    # the next session: another cache, empty, loaded from the carried folder
    export DAR_CACHE="$T/second-cache"
    run "$ROOT/scripts/carry-cache.sh" load "$carry"
    assert_output --partial "loaded 1 files"
    run --separate-stderr fit --checkpoint-every 5 -v -o "$T/resumed.mp"
    assert_success
    [[ "$stderr" == *"resuming from the checkpoint"* ]] || fail "$stderr"
    cmp "$T/reference.mp" "$T/resumed.mp"
    # saved again: the entry, and the carried checkpoint dropped
    run "$ROOT/scripts/carry-cache.sh" save "$carry"
    assert_output --partial "saved 1 finished trainings and 0 checkpoints"
    assert_output --partial "it holds 1 and 0 in all"
    [ -z "$(find "$carry/v1" -name '*.ckpt')" ] && [ "$(find "$carry/v1" -name '*.mp' | wc -l)" = 1 ]
    # saved from a cache that trained nothing: the folder's own count still says what it holds
    mkdir -p "$T/idle-cache" && : > "$T/idle-cache/log"
    DAR_CACHE="$T/idle-cache" run "$ROOT/scripts/carry-cache.sh" save "$carry"
    assert_success
    assert_output --partial "saved 0 finished trainings and 0 checkpoints"
    assert_output --partial "it holds 1 and 0 in all"
    # loaded where the checkpoint still is (the first cache): the entry goes in
    # and the stale checkpoint out, a hit
    export DAR_CACHE="$first"
    run "$ROOT/scripts/carry-cache.sh" load "$carry"
    assert_output --partial "loaded 1 files"
    [ -z "$(checkpoints)" ] || fail "the stale checkpoint is still there"
    fit --checkpoint-every 5 -v -o "$T/hit.mp" 2> "$T/hit.err"
    grep -q "cache hit" "$T/hit.err"
    cmp "$T/reference.mp" "$T/hit.mp"
    # refusals: one line, non-zero
    run "$ROOT/scripts/carry-cache.sh" load "$T/nowhere"
    assert_failure
    assert_output "carry-cache: '$T/nowhere': no v1/ folder: not a carried cache"
    DAR_CACHE=off run "$ROOT/scripts/carry-cache.sh" save "$carry"
    assert_failure
    assert_output "carry-cache: DAR_CACHE=off: no cache to carry"
    mkdir -p "$T/odd/v1/ab" && touch "$T/odd/v1/ab/notakey.mp"
    run "$ROOT/scripts/carry-cache.sh" load "$T/odd"
    assert_failure
    assert_output "carry-cache: '$T/odd/v1/ab/notakey.mp': not a cache entry or checkpoint"
}
