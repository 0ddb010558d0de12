#!/usr/bin/env bats
# tests/unit/run.sh (make test-unit): the unit test programs two at a time,
# each one's output whole and in the order given, every program run even
# after a failure, and a non-zero status if any failed.
load test_helper

# prog NAME STATUS SLEEP: a stand-in unit test printing two TAP lines
prog() {
    printf '#!/bin/sh\nsleep %s\necho "ok 1 - %s: first"\necho "%s: a note" >&2\necho "ok 2 - %s: second"\nexit %s\n' \
        "$3" "$1" "$1" "$1" "$2" > "$T/$1"
    chmod +x "$T/$1"
}

@test "unit runner: outputs whole and in order although the first finishes last; all pass: status 0" {
    prog slow 0 0.5; prog fast 0 0
    run bash "$ROOT/tests/unit/run.sh" 2 "$T/slow" "$T/fast"
    assert_success
    assert_output "ok 1 - slow: first
ok 2 - slow: second
slow: a note
ok 1 - fast: first
ok 2 - fast: second
fast: a note"
}

@test "unit runner: a failing or missing program fails the run, the others still run and print" {
    prog bad 1 0; prog good 0 0
    run --separate-stderr bash "$ROOT/tests/unit/run.sh" 2 "$T/bad" "$T/nothing-here" "$T/good"
    assert_failure 1
    [[ "$output" == *"ok 2 - good: second"* ]]
    [[ "$stderr" == *"unit: $T/bad exited 1"* ]]
    [[ "$stderr" == *"unit: $T/nothing-here exited 127"* ]]
    [[ "$stderr" != *"unit: $T/good exited"* ]]
}
