#!/usr/bin/env bats
# Fault injection: a full disk and a cache that cannot be written.  A full
# disk is /dev/full as the output, or a file-size limit of 0 blocks
# (ulimit -f 0: every write to a file fails, the cache's too).

load test_helper

setup_file() {
    local d="$BATS_FILE_TMPDIR"
    export DAR_CACHE=off
    "$DAR_BIN/gen-graphs" --nodes 8 --count 30 --seed 1 > "$d/g.mp"
    "$DAR_BIN/ff-trace" < "$d/g.mp" > "$d/traced.mp"
    "$DAR_BIN/dar-fit" --iters 2 --hidden 4 --batch 2 -q < "$d/traced.mp" > "$d/model.mp"
    "$DAR_BIN/dar-step" -m "$d/model.mp" < "$d/traced.mp" > "$d/predicted.mp"
    "$DAR_BIN/flow-fix" < "$d/predicted.mp" > "$d/fixed.mp"
    "$DAR_BIN/metrics" < "$d/fixed.mp" > "$d/metrics.mp"
    "$DAR_BIN/gen-graphs" --family vessel --edges 3234 --seed 1 > "$d/vessel.mp"
}

F() { echo "$BATS_FILE_TMPDIR/$1"; }

# Each tool once: "input | command line" (the output option is added).
tool_runs() {
    cat <<EOF
$(F g.mp)|gen-graphs --nodes 8 --count 400 --seed 2
$(F g.mp)|ff-trace
$(F predicted.mp)|flow-fix
$(F traced.mp)|dar-step -m $(F model.mp) --hints
$(F traced.mp)|dar-fit --iters 2 --hidden 4 --batch 2 -q
$(F fixed.mp)|metrics
$(F metrics.mp)|metrics --table md
$(F vessel.mp)|edge-embed -m $(F model.mp) -q
$(F vessel.mp)|lc-train -q --threads 1
$(F g.mp)|mpcat
EOF
}

@test "a full disk (/dev/full): every tool exits 74 with one line" {
    while IFS='|' read -r input command; do
        tool=${command%% *}
        for out in "> /dev/full" "-o /dev/full"; do
            run --separate-stderr bash -c "$command $out < '$input'"
            [ "$status" -eq 74 ] || fail "$command $out: exit $status: $stderr"
            assert_one_line_error "$tool"
            [[ "$stderr" == *"No space left on device"* ]] || fail "$command: $stderr"
        done
    done < <(tool_runs)
}

@test "a file-size limit (ulimit -f 0): every tool exits 74 with one line, no partial -o file, no cache entry" {
    while IFS='|' read -r input command; do
        tool=${command%% *}
        export DAR_CACHE="$T/cache-$tool"
        rm -rf "$T/out" && mkdir "$T/out"
        # stderr reaches bats through a pipe: a limited file would lose the message
        run --separate-stderr bash -c "set -o pipefail; (ulimit -f 0; exec $command -o '$T/out/o.mp' < '$input') 2>&1 | cat >&2"
        [ "$status" -eq 74 ] || fail "$command: exit $status: $stderr"
        assert_one_line_error "$tool"
        [[ "$stderr" == *"File too large"* ]] || fail "$command: $stderr"
        [ -z "$(ls -A "$T/out")" ] || fail "$command left $(ls -A "$T/out")"
        if [ -d "$DAR_CACHE/v1" ]; then
            left=$(find "$DAR_CACHE/v1" -type f)
            [ -z "$left" ] || fail "$command left in the cache: $left"
        fi
        # stdout redirected to a file: the same exit, not death by SIGXFSZ
        run --separate-stderr bash -c "set -o pipefail; (ulimit -f 0; exec $command < '$input' > '$T/out/stdout.mp') 2>&1 | cat >&2"
        [ "$status" -eq 74 ] || fail "$command > file: exit $status: $stderr"
    done < <(tool_runs)
}

@test "a cache whose disk fills while the entry is sealed: the output is delivered, the cache skipped" {
    # bash's ulimit -f counts 1024-byte blocks: find a stream whose traced
    # output fits the limit while its 40-byte trailer does not
    local k size
    for k in $(seq 1 300); do
        gen-graphs --nodes 8 --count "$k" --seed 3 > "$T/g.mp"
        size=$(ff-trace --no-cache < "$T/g.mp" | wc -c)
        [ $(( size % 1024 )) -gt 984 ] && break
    done
    [ $(( size % 1024 )) -gt 984 ] || fail "no stream of 1..300 graphs has a suitable size"
    ff-trace --no-cache < "$T/g.mp" > "$T/want.mp"
    export DAR_CACHE="$T/cache"
    # the output is a pipe (no limit); the cache's temp file is limited
    run --separate-stderr bash -c "ulimit -f $(( size / 1024 + 1 )); ff-trace < '$T/g.mp' | cat > '$T/got.mp'"
    assert_success
    cmp "$T/want.mp" "$T/got.mp"
    assert_one_line_error ff-trace
    [[ "$stderr" == "ff-trace: warning: cache: not storing results: cannot write in '$DAR_CACHE/v1/"*"File too large" ]] || fail "$stderr"
    [ -z "$(find "$DAR_CACHE/v1" -type f)" ] || fail "left: $(find "$DAR_CACHE/v1" -type f)"
    # with room again, the same run stores its entry and the next one hits
    ff-trace < "$T/g.mp" > /dev/null
    run --separate-stderr ff-trace -v < "$T/g.mp"
    [[ "$stderr" == "ff-trace: cache hit "* ]] || fail "$stderr"
}

@test "a cache whose disk fills while the tool computes: every cached tool still delivers its whole output, with one warning, and stores nothing" {
    while IFS='|' read -r input command; do
        tool=${command%% *}
        case $tool in metrics|mpcat|flow-fix|gen-graphs) continue ;; esac   # not cached (gen-graphs: not at this size)
        DAR_CACHE=off bash -c "$command < '$input'" > "$T/want.mp"
        [ "$(wc -c < "$T/want.mp")" -gt 2048 ] || fail "$command: output too small to overflow the limit"
        export DAR_CACHE="$T/cache-$tool"
        # the limit (1 KiB) binds the cache's temp file only: the output is
        # a pipe to a process outside the limited subshell
        run --separate-stderr bash -c "set -o pipefail; (ulimit -f 1; exec $command < '$input') | cat > '$T/got.mp'"
        [ "$status" -eq 0 ] || fail "$command: exit $status: $stderr"
        cmp "$T/want.mp" "$T/got.mp" || fail "$command: the output differs from an uncached run"
        assert_one_line_error "$tool"
        [[ "$stderr" == "$tool: warning: cache: not storing results: cannot write in '$DAR_CACHE/v1/"*"File too large" ]] || fail "$stderr"
        [ -z "$(find "$DAR_CACHE/v1" -type f)" ] || fail "$command left: $(find "$DAR_CACHE/v1" -type f)"
    done < <(tool_runs)
}

@test "a cache directory that goes away while the tool computes: the output is delivered, the cache skipped" {
    export DAR_CACHE="$T/cache"
    dar-fit --iters 300 --hidden 8 --batch 4 -q --no-cache < "$(F traced.mp)" > "$T/want.mp"
    dar-fit --iters 300 --hidden 8 --batch 4 -q < "$(F traced.mp)" > "$T/got.mp" 2> "$T/err" &
    local pid=$! i
    # once the temp file of the entry exists, the cache root becomes a plain file
    for i in $(seq 1 2000); do
        compgen -G "$DAR_CACHE/v1/*/.tmp.*" > /dev/null && break
        sleep 0.005
    done
    mv "$DAR_CACHE" "$T/cache.gone"
    echo "not a directory" > "$DAR_CACHE"
    wait "$pid" || fail "dar-fit failed: $(cat "$T/err")"
    cmp "$T/want.mp" "$T/got.mp"
    [ "$(wc -l < "$T/err")" -eq 1 ] || fail "$(cat "$T/err")"
    grep -q "^dar-fit: warning: cache: not storing results: " "$T/err" || fail "$(cat "$T/err")"
    [ -z "$(find "$T/cache.gone/v1" -name '*.mp')" ] || fail "an entry was stored: $(find "$T/cache.gone/v1" -name '*.mp')"
}
