#!/usr/bin/env bats
# Valid streams that Python writes are read, whatever their size and wherever
# a read ends (issue 22: the length guard misread a header that straddled a
# fill of the reader's buffer, and refused valid streams).
load test_helper

STREAMS="$BATS_TEST_DIRNAME/stream/python_streams.py"

setup_file() {
    # small: records up to 1 MB; big: records of several MB
    /usr/bin/python3 "$BATS_TEST_DIRNAME/stream/python_streams.py" write --seed 22 --count 60 \
        --max-record 1000000 --dir "$BATS_FILE_TMPDIR/small"
    /usr/bin/python3 "$BATS_TEST_DIRNAME/stream/python_streams.py" write --seed 23 --count 8 \
        --dir "$BATS_FILE_TMPDIR/big"
}

# Every stream of the given sets through stream_echo with the given options:
# the records must come out byte for byte, and the guard must have measured
# each record msgpack-c parsed.  Prints one line per stream that fails.
echo_all() {
    local sets=$1 f
    shift
    for f in $sets; do
        for f in "$BATS_FILE_TMPDIR/$f"/*.mp; do
            "$DAR_TOOLS/stream_echo" "$@" < "$f" > "$T/echo.mp" 2> "$T/err" ||
                { echo "$* ${f##*/}: $(< "$T/err")"; continue; }
            cmp -s "$f" "$T/echo.mp" || echo "$* ${f##*/}: the records changed"
        done
    done
}

@test "the fixture of issue 22 (three records Python wrote) is read by every tool that reads graph records" {
    fixture="$ROOT/tests/fixtures/reader-refused-valid.mp"
    run -0 mpcat --summary "$fixture"
    [ "${#lines[@]}" -eq 3 ] || fail "${#lines[@]} records"
    for j in 1 2; do
        run -0 --separate-stderr bash -c "ff-trace --no-cache -j $j < '$fixture' | mpcat --summary | wc -l"
        [ "$output" -eq 3 ] || fail "ff-trace -j $j: $output records"
    done
    run -0 bash -c "flow-fix < '$fixture' | metrics | mpcat | grep -c metric"
    dar-fit --no-cache -n 2 -b 2 -H 8 --val "$fixture" < "$fixture" > "$T/m.mp"
    run -0 bash -c "dar-step --model '$T/m.mp' < '$fixture' | flow-fix | mpcat --summary | wc -l"
    [ "$output" -eq 3 ] || fail "dar-step | flow-fix: $output records"
    # as a file operand and through a pipe, whole and one record at a time
    run -0 bash -c "cat '$fixture' | mpcat | wc -l"
    [ "$output" -eq 3 ]
    run -0 "$DAR_TOOLS/stream_echo" --read-size 7 < "$fixture"
}

@test "350 traced graphs given a pred_flow in Python and written back by msgpack-numpy read through flow-fix, metrics and ff-trace" {
    { gen-graphs --family two-community -n 16 -c 120 -s 1
      gen-graphs --family bipartite -n 16 -c 115 -s 2
      gen-graphs --family erdos-renyi --directed -n 16 -c 115 -s 3; } | ff-trace --no-cache > "$T/traced.mp"
    "$PY" - "$T/traced.mp" "$T/pred.mp" <<'PYEOF'
import sys, msgpack, msgpack_numpy as m, numpy as np
rng = np.random.default_rng(0)
with open(sys.argv[1], "rb") as f, open(sys.argv[2], "wb") as out:
    for r in msgpack.Unpacker(f, object_hook=m.decode, raw=False, max_buffer_size=0):
        r["pred_flow"] = (r["flow"] + rng.normal(0, 0.1, r["m"])).astype(np.float32)
        out.write(msgpack.packb(r, default=m.encode, use_bin_type=True))
PYEOF
    run -0 bash -c "flow-fix < '$T/pred.mp' | mpcat --summary | wc -l"
    [ "$output" -eq 350 ] || fail "flow-fix: $output records"
    run -0 bash -c "metrics < '$T/pred.mp' | mpcat | grep -c mae_flow"
    for j in 1 2; do
        run -0 bash -c "ff-trace --no-cache -j $j < '$T/pred.mp' | mpcat --summary | wc -l"
        [ "$output" -eq 350 ] || fail "ff-trace -j $j: $output records"
    done
    run -0 "$DAR_TOOLS/stream_echo" --read-size 3 < "$T/pred.mp"
}

@test "differential: random streams Python writes are decoded by mpcat as Python decodes them, and repacked byte for byte by both readers" {
    pairs=()
    for f in "$BATS_FILE_TMPDIR"/small/*.mp "$BATS_FILE_TMPDIR"/big/s00[0-2].mp; do
        mpcat "$f" > "$f.jsonl"
        pairs+=("$f" "$f.jsonl")
    done
    run -0 "$PY" "$STREAMS" check "${pairs[@]}"
    run -0 echo_all "small big"
    [ -z "$output" ] || fail "$output"
    run -0 echo_all "small big" --raw
    [ -z "$output" ] || fail "$output"
}

@test "reads of every small size: every header and payload straddles a fill somewhere, and each stream reads the same" {
    for size in 1 2 3 7; do
        run -0 echo_all small --read-size $size
        [ -z "$output" ] || fail "$output"
    done
    for size in 4096 65535 65537; do
        run -0 echo_all "small big" --read-size $size
        [ -z "$output" ] || fail "$output"
        run -0 echo_all "small big" --raw --read-size $size
        [ -z "$output" ] || fail "$output"
    done
}
