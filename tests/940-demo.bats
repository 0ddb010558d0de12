#!/usr/bin/env bats
# make demo (examples/demo.sh) on the smoke profile: progress from the first
# second (each training's first line before any training has finished, read
# from dar-fit's DAR_PROGRESS_FILE by pipelines/progress.sh), the tables, and
# the verdicts of the claims the demo can check (pipelines/verdicts.py).
# Order of events, never seconds: the machine may be loaded.
load test_helper

setup_file() {
    export D_OUT="$BATS_FILE_TMPDIR/out" D_CACHE="$BATS_FILE_TMPDIR/cache"
    export BATS_NO_PARALLELIZE_WITHIN_FILE=true
}

@test "dar-fit with DAR_PROGRESS_FILE: a line at the start, one after the first iteration, the last at the end, with the validation score" {
    gen-graphs --nodes 8 --count 20 --seed 1 | ff-trace -q > "$T/train.mp"
    gen-graphs --nodes 8 --count 4 --seed 2 | ff-trace -q > "$T/val.mp"
    DAR_PROGRESS_FILE="$T/p.progress" run --separate-stderr dar-fit -q --no-cache --hidden 8 --batch 4 --iters 6 --eval-every 3 \
        --val "$T/val.mp" -i "$T/train.mp" -o "$T/m.mp"
    assert_success
    [ -z "$stderr" ] || fail "-q, yet: $stderr"
    # SECONDS DONE TOTAL WHAT EXTRA
    run cut -f2-4 "$T/p.progress"
    assert_line --index 0 $'0\t6\titerations'
    assert_line --index 1 $'1\t6\titerations'
    [ "$(tail -n 1 "$T/p.progress" | cut -f2)" = 6 ]
    tail -n 1 "$T/p.progress" | cut -f5 | grep -Eq '^loss [0-9.]+, validation [0-9.e+-]+ \(best [0-9.e+-]+\)$' \
        || fail "$(tail -n 1 "$T/p.progress")"
    sed -n 2p "$T/p.progress" | grep -q $'\tloss [0-9.]*, no validation yet$' || fail "$(sed -n 2p "$T/p.progress")"
}

@test "the demo (smoke): each training's first progress line comes before any training finished, and shows it at its start" {
    DAR_CACHE="$D_CACHE" OUT="$D_OUT" PROFILE=smoke DAR_BIN="$DAR_BIN" \
        bash "$ROOT/examples/demo.sh" > "$BATS_FILE_TMPDIR/stdout" 2> "$BATS_FILE_TMPDIR/stderr" \
        || fail "demo failed: $(tail -5 "$BATS_FILE_TMPDIR/stderr")"
    log="$BATS_FILE_TMPDIR/stderr"
    # a log, not a terminal: plain lines, no cursor movement
    ! grep -q $'\033' "$log" || fail "escape sequences in a log"
    first_progress=$(grep -nE '^[a-z]+-[a-z]+-[a-z]+-s[0-9]+: ' "$log" | head -1)
    first_done=$(grep -nE '^\[1/[0-9]+\] trained ' "$log" | head -1)
    [ -n "$first_progress" ] || fail "no progress line: $(head -5 "$log")"
    [ -n "$first_done" ] || fail "no finished step: $(head -5 "$log")"
    [ "${first_progress%%:*}" -lt "${first_done%%:*}" ] || fail "the first progress line came after a training finished: $first_progress / $first_done"
    # no later than the first iteration batch: the training's start or its first iteration
    [[ "$first_progress" =~ ": started, 4 iterations"$ || "$first_progress" =~ ": iteration 1/4" ]] || fail "$first_progress"
    # every training of the demo showed its start before it finished
    for model in "$D_OUT"/models/*.mp; do
        run=$(basename "$model" .mp)
        started=$(grep -n "^$run: " "$log" | head -1 | cut -d: -f1)
        finished=$(grep -n "\] trained $run " "$log" | head -1 | cut -d: -f1)
        [ -n "$started" ] && [ -n "$finished" ] && [ "$started" -lt "$finished" ] || fail "$run: started line $started, finished line $finished"
    done
    # the steps done and left
    grep -qE '^\[28/28\] wrote table2.md' "$log" || grep -qE '^\[28/28\] wrote table1.md' "$log" || fail "$(grep '^\[' "$log" | tail -2)"
}

@test "the demo (smoke) closes with the verdicts of the claims it can check, and where the evidence is" {
    out="$BATS_FILE_TMPDIR/stdout"
    [ -f "$out" ] || skip "the demo did not run"
    # decided as the report decides them: with the bootstrap's intervals
    grep -q "^What the smoke profile's tables say of the paper's claims (pipelines/claims.tsv; each difference decided by its 95 % interval over the test graphs and seeds, 'not resolved' when the interval holds the tie):$" "$out" || fail "$(tail -5 "$out")"
    for id in dual-primal-F weak-cut-misses dual-cut-100; do
        grep -Eq "^  - .* \($id\): (holds|does not hold|not resolved at this profile|not measured at this profile); in the paper: (holds|not resolved within its own noise)\.$" "$out" || fail "no verdict for $id: $(grep "($id)" "$out")"
        # the same verdict as the report's rules give with the same units
        want=$(cd "$ROOT" && "$PY" pipelines/claims.py --claims pipelines/claims.tsv --paper-dir pipelines/paper \
            --table table1="$D_OUT/report/table1.tsv" --table table2="$D_OUT/report/table2.tsv" \
            --units table1="$D_OUT/report/table1.units.tsv" --units table2="$D_OUT/report/table2.units.tsv" | awk -F'\t' -v id="$id" '$1 == id { print $2 }')
        # (the demo checks the rows the profile trains; smoke trains them all)
        grep -q "($id): $want; " "$out" || fail "$id: the report's rules say '$want': $(grep "($id)" "$out")"
    done
    # each claim that holds in the paper and not here says why, and the evidence follows
    departures=$(grep -c '^  - .*: does not hold; in the paper: holds\.$' "$out" || true)
    [ "$(grep -c '^    Why: ' "$out" || true)" -eq "$departures" ]
    if [ "$departures" -gt 0 ]; then
        grep -q "^  The evidence: make report PROFILE=smoke; its findings section .*$D_OUT/report/report.html#findings" "$out" || fail "$(tail -3 "$out")"
    fi
}

@test "make table2 (smoke) shows its trainings' progress too, and the trainings left; make -n stays a dry run" {
    out="$BATS_FILE_TMPDIR/t2"
    DAR_CACHE="$BATS_FILE_TMPDIR/cache-t2" run --separate-stderr make --no-print-directory -s -C "$ROOT" -j2 \
        PROFILE=smoke OUT="$out" DAR_BIN="$DAR_BIN" table2
    assert_success
    assert_line --partial "Table 2: |F - F*| on 2-community graphs — smoke profile"
    # 6 models x 2 seeds, each started before the first finished step, and counted
    first_progress=$(grep -nE '^[a-z]+-[a-z]+-[a-z]+-s[0-9]+: started, 4 iterations$' <<< "$stderr" | head -1 | cut -d: -f1)
    first_done=$(grep -nE '^\[1/12\] trained ' <<< "$stderr" | head -1 | cut -d: -f1)
    [ -n "$first_progress" ] && [ -n "$first_done" ] && [ "$first_progress" -lt "$first_done" ] || fail "$stderr"
    grep -qE '^\[12/12\] trained ' <<< "$stderr" || fail "$stderr"
    # nothing left to do: the table and nothing else
    DAR_CACHE="$BATS_FILE_TMPDIR/cache-t2" run --separate-stderr make --no-print-directory -s -C "$ROOT" -j2 \
        PROFILE=smoke OUT="$out" DAR_BIN="$DAR_BIN" table2
    assert_success
    [ -z "$stderr" ] || fail "$stderr"
    run make --no-print-directory -n -C "$ROOT" PROFILE=smoke OUT="$BATS_FILE_TMPDIR/dry" table2
    assert_success
    assert_output --partial "dar-fit --variant"
    [ ! -e "$BATS_FILE_TMPDIR/dry" ]
}
