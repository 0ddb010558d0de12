#!/usr/bin/env bash
# tests/bench/clrs_peer.py's checkpoints (its --checkpoint-dir): a run of
# PEER_RESUME_STEPS steps (30) stopped after step 25 (--stop-after, as a
# session ending would; the checkpoint of step 20 its last, so steps 21-25
# are lost and redone) and rerun by the same command must give the --out
# rows (the timing columns aside) and the --predictions arrays of the same
# run made in one go without checkpoints, byte for byte, with a validation
# every 10 steps and a test at 15, 25 and the end (so the best parameters,
# both cycling samplers, the numpy and JAX random states and rows written
# before and after the checkpoint all have to come back).  Then a rerun with
# another seed and one from a truncated checkpoint must each be refused with
# one line on stderr.  A few CPU-minutes in build/peer-venv, so make bench
# runs it (making the venv when it is missing, as clrs-peer.sh does), not
# make test; BENCH_PEER=0 skips it.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "${BENCH_PEER:-1}" = 0 ] && exit 0
py=build/peer-venv/bin/python
[ -x "$py" ] || make --no-print-directory -s peer >/dev/null
steps=${PEER_RESUME_STEPS:-30}
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
fail() { echo "clrs-peer-resume: FAIL: $*" >&2; exit 1; }
train() {
    "$py" tests/bench/clrs_peer.py train --processor triplet_gmpnn --seed 0 --steps "$steps" \
        --eval-at 15,25,"$steps" --eval-every 10 --threads 1 "$@"
}
# the columns that do not time anything
results() { cut -f1-7,11,12 "$1"; }

train --out "$w/whole.tsv" --predictions "$w/whole" 2> "$w/whole.err" || { cat "$w/whole.err" >&2; fail "the uninterrupted run"; }
rc=0
train --checkpoint-dir "$w/ckpt" --checkpoint-every 10 --out "$w/legs.tsv" --predictions "$w/legs" \
    --stop-after 25 2> "$w/leg1.err" || rc=$?
[ "$rc" = 75 ] || { cat "$w/leg1.err" >&2; fail "the first leg exited $rc, not 75 (--stop-after)"; }
train --checkpoint-dir "$w/ckpt" --checkpoint-every 10 --out "$w/legs.tsv" --predictions "$w/legs" \
    2> "$w/leg2.err" || { cat "$w/leg2.err" >&2; fail "the resumed leg"; }
grep -q "resuming at step 20 of $steps" "$w/leg2.err" || fail "the second leg did not resume at step 20: $(cat "$w/leg2.err")"

[ "$(results "$w/whole.tsv" | wc -l)" = 4 ] || fail "the uninterrupted run wrote $(wc -l < "$w/whole.tsv") lines, not a header and 3 rows"
cmp <(results "$w/whole.tsv") <(results "$w/legs.tsv") \
    || { diff <(results "$w/whole.tsv") <(results "$w/legs.tsv") >&2 || true; fail "the resumed run's rows differ"; }
[ "$(ls "$w/whole")" = "$(ls "$w/legs")" ] || fail "prediction files differ: $(ls "$w/whole") vs $(ls "$w/legs")"
for f in "$w"/whole/*.npy; do
    cmp "$f" "$w/legs/${f##*/}" || fail "the resumed run's ${f##*/} differs"
done

refused() {  # what: the run refuses with one line on stderr naming why
    local what=$1 want=$2; shift 2
    rc=0
    train --out "$w/refused.tsv" --predictions "$w/refused" "$@" 2> "$w/refused.err" || rc=$?
    [ "$rc" != 0 ] || fail "$what: accepted"
    [ "$(wc -l < "$w/refused.err")" = 1 ] && grep -q "$want" "$w/refused.err" \
        || fail "$what: not one line naming '$want': $(cat "$w/refused.err")"
}
refused "a checkpoint of another seed" "another run (seed 0 there, 1 here)" --checkpoint-dir "$w/ckpt" --seed 1
mkdir "$w/cut"
head -c 100000 "$w/ckpt/checkpoint.pkl" > "$w/cut/checkpoint.pkl"
refused "a truncated checkpoint" "truncated or corrupt" --checkpoint-dir "$w/cut"
echo "clrs-peer-resume: $steps steps stopped after 25 and resumed from 20 = in one go: $(ls "$w/whole" | wc -l) prediction arrays and $(($(wc -l < "$w/whole.tsv") - 1)) rows identical; other arguments and a truncated checkpoint refused"
