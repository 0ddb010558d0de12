#!/usr/bin/env bats
# pipelines/progress.sh, the watcher of a long make (make report, the study):
# a training resumed from its checkpoint is shown from where it resumed, with
# its time left from this run's rate; an interrupted run's progress file and
# .tmp are not taken for a running training until they are written anew.
load test_helper

# line SECONDS DONE [EXTRA]: a progress line of a 400-iteration training
line() { printf '%s\t%s\t400\titerations\t%s\n' "$1" "$2" "${3:-}"; }

@test "progress watcher: a resumed training's rate counts from its resume; a stale progress file waits" {
    cd "$T" && mkdir models logs
    # b: an interrupted run's leftovers, an hour old
    line 50.0 40 "loss 9" > logs/b.progress
    : > models/b.mp.tmp
    touch -d '1 hour ago' logs/b.progress models/b.mp.tmp
    {
        # a resumes at 100 and does 100 iterations in 10 s: 20 s left
        echo "$(declare -f line)"
        echo 'line 0.0 100 > logs/a.progress; : > models/a.mp.tmp; sleep 1.5'
        echo 'line 10.0 200 "loss 0.5" >> logs/a.progress; sleep 3'
        echo ': > models/a.mp'
        # b starts afresh: 100 iterations in 5 s, 15 s left
        echo 'rm -f logs/b.progress; line 0.0 0 > logs/b.progress; : > models/b.mp.tmp; sleep 1.5'
        echo 'line 5.0 100 "loss 0.7" >> logs/b.progress; sleep 3'
        echo ': > models/b.mp'
    } > run.sh
    PROGRESS_EVERY=1 run bash "$ROOT/pipelines/progress.sh" 1 models/a.mp models/b.mp -- bash run.sh
    assert_success
    [[ "$output" == *"a: resumed at iteration 100/400"* ]] || fail "$output"
    [[ "$output" == *"a: iteration 200/400, loss 0.5; 20 s left"* ]] || fail "$output"
    [[ "$output" == *"b: started, 400 iterations"* ]] || fail "$output"
    [[ "$output" == *"b: iteration 100/400, loss 0.7; 15 s left"* ]] || fail "$output"
    [[ "$output" == *"[2/2] trained b "* ]] || fail "$output"
    # the interrupted run's numbers were never shown
    [[ "$output" != *"loss 9"* && "$output" != *"iteration 40/400"* ]] || fail "$output"
}

@test "progress watcher: a queued training of known length (FILE@ITERS) counts at the running one's seconds an iteration" {
    cd "$T" && mkdir models logs
    {
        echo "$(declare -f line)"
        # a: 100 of its 400 iterations in 10 s, 30 s left; b, queued, runs 40
        # iterations: 4 s at a's rate, not the 40 s of a whole 'a'
        echo 'line 0.0 0 > logs/a.progress; : > models/a.mp.tmp; sleep 1.5'
        echo 'line 10.0 100 "loss 0.5" >> logs/a.progress; sleep 3'
        echo ': > models/a.mp; : > models/b.mp'
    } > run.sh
    PROGRESS_EVERY=1 run bash "$ROOT/pipelines/progress.sh" 1 models/a.mp models/b.mp models/b.mp@40 -- bash run.sh
    assert_success
    [[ "$output" == *"0/2 steps done, 2 left; 0 min elapsed, about 34 s left"* ]] || fail "$output"
    # without the length, b counts as long as a
    rm -f models/* logs/*
    PROGRESS_EVERY=1 run bash "$ROOT/pipelines/progress.sh" 1 models/a.mp models/b.mp -- bash run.sh
    assert_success
    [[ "$output" == *"0/2 steps done, 2 left; 0 min elapsed, about 70 s left"* ]] || fail "$output"
}
