#!/usr/bin/env bats
# mpcat, the record reader and writer and the tensor codec, seen from outside:
# Python interop, lossless round trips, and bad input.
load test_helper

python_stream() {
    "$PY" - "$1" <<'PYEOF'
import sys, msgpack, msgpack_numpy as m, numpy as np
rng = np.random.default_rng(7)
recs = [
    {"kind": "graph", "id": 0, "n": 3, "directed": False,
     "cap": rng.random(5, dtype=np.float32), "src": np.array([0, 1, 2], np.int32),
     "hint_pi": rng.integers(-5, 5, (4, 3)).astype(np.int32),
     "cut": np.array([0, 1, 1], np.uint8), "maxflow": 0.1 + 0.2,
     "big": np.array([1e300, -2.5e-310, 3.0], np.float64),
     "i8": np.array([2**62, -1], np.int64), "name": "two-community"},
    {"kind": "metric", "nested": {"a": [1, 2.5, None, True]}, "empty": np.zeros((0, 4), np.float32)},
]
with open(sys.argv[1], "wb") as f:
    for r in recs:
        f.write(msgpack.packb(r, default=m.encode))
PYEOF
}

@test "a stream written by Python is read by mpcat and round-trips byte for byte" {
    python_stream "$T/py.mp"
    mpcat "$T/py.mp" > "$T/a.jsonl"
    mpcat --to-msgpack < "$T/a.jsonl" > "$T/b.mp"
    cmp "$T/py.mp" "$T/b.mp"
    mpcat "$T/b.mp" > "$T/b.jsonl"
    cmp "$T/a.jsonl" "$T/b.jsonl"
}

@test "a stream written by mpcat decodes in numpy with the right dtypes, shapes and values" {
    cat > "$T/in.jsonl" <<'JSON'
{"kind":"graph","id":3,"x":{"dtype":"<f4","shape":[2,3],"data":[0.1,0.2,0.3,1.5,"nan","-inf"]},"p":{"dtype":"<i4","shape":[3],"data":[-1,0,7]},"c":{"dtype":"|u1","shape":[2],"data":[0,1]},"v":{"dtype":"<f8","shape":[1],"data":[0.30000000000000004]},"maxflow":2.5}
JSON
    mpcat --to-msgpack < "$T/in.jsonl" > "$T/s.mp"
    py_stream "$T/s.mp" '
r = recs[0]
assert r["x"].dtype == np.float32 and r["x"].shape == (2, 3), r["x"]
assert r["x"][0, 0] == np.float32(0.1) and np.isnan(r["x"][1, 1]) and r["x"][1, 2] == -np.inf
assert r["p"].dtype == np.int32 and list(r["p"]) == [-1, 0, 7]
assert r["c"].dtype == np.uint8 and list(r["c"]) == [0, 1]
assert r["v"].dtype == np.float64 and r["v"][0] == 0.1 + 0.2
assert r["maxflow"] == 2.5 and r["id"] == 3 and r["kind"] == "graph"
'
    # JSON -> msgpack -> numpy -> msgpack -> JSON is lossless
    "$PY" -c '
import sys, msgpack, msgpack_numpy as m
recs = list(msgpack.Unpacker(open(sys.argv[1], "rb"), object_hook=m.decode, raw=False))
open(sys.argv[2], "wb").write(b"".join(msgpack.packb(r, default=m.encode) for r in recs))' "$T/s.mp" "$T/s2.mp"
    mpcat "$T/s2.mp" > "$T/out.jsonl"
    mpcat --to-msgpack < "$T/out.jsonl" | cmp - "$T/s.mp"
    run "$PY" -c 'import json,sys; a=[json.loads(l) for l in open(sys.argv[1])]; b=[json.loads(l) for l in open(sys.argv[2])]; assert a==b, (a,b)' "$T/in.jsonl" "$T/out.jsonl"
    assert_success
}

@test "--summary prints dtype, shape, min, max and mean instead of the data" {
    echo '{"x":{"dtype":"<f4","shape":[4],"data":[1,2,3,6]}}' | mpcat --to-msgpack | mpcat --summary > "$T/o"
    run cat "$T/o"
    assert_output '{"x":{"dtype":"<f4","shape":[4],"min":1.0,"max":6.0,"mean":3.0}}'
}


@test "random bytes: exit 65, one line naming the record" {
    head -c 4096 /dev/urandom > "$T/r1.mp"
    printf '\xc1\xc1\xc1' > "$T/r2.mp"
    for f in r1 r2; do
        run --separate-stderr mpcat "$T/$f.mp"
        [ "$status" -eq 65 ] || fail "$f: status $status: $stderr"
        assert_one_line_error mpcat
        [[ "$stderr" == *"record "[0-9]*": "* ]] || fail "$stderr"
    done
}

@test "a truncated stream: exit 65 'truncated record' with its index" {
    "$PY" -c 'import msgpack,sys; sys.stdout.buffer.write(msgpack.packb({"a":1})*3 + msgpack.packb({"b":"x"*100})[:50])' > "$T/t.mp"
    run --separate-stderr mpcat "$T/t.mp"
    [ "$status" -eq 65 ]
    assert_one_line_error mpcat
    [[ "$stderr" == "mpcat: '$T/t.mp': record 3: truncated record at end of input" ]] || fail "$stderr"
}

@test "a record that is not a map: exit 65" {
    "$PY" -c 'import msgpack,sys; sys.stdout.buffer.write(msgpack.packb({"a":1}) + msgpack.packb([1,2]))' > "$T/nm.mp"
    run --separate-stderr mpcat "$T/nm.mp"
    [ "$status" -eq 65 ]
    assert_one_line_error mpcat
    [[ "$stderr" == "mpcat: '$T/nm.mp': record 1: not a map"* ]] || fail "$stderr"
}

@test "a tensor whose data length disagrees with its shape, or of an unknown dtype: exit 65" {
    "$PY" -c '
import msgpack,sys
t = {b"nd": True, b"type": "<f4", b"kind": b"", b"shape": [3], b"data": b"\0"*8}
sys.stdout.buffer.write(msgpack.packb({"x": t}))' > "$T/len.mp"
    run --separate-stderr mpcat "$T/len.mp"
    [ "$status" -eq 65 ]
    assert_one_line_error mpcat
    [[ "$stderr" == "mpcat: '$T/len.mp': record 0: tensor has 8 data bytes, expected 12"* ]] || fail "$stderr"
    "$PY" -c '
import msgpack,sys
t = {b"nd": True, b"type": "<c8", b"kind": b"", b"shape": [1], b"data": b"\0"*8}
sys.stdout.buffer.write(msgpack.packb({"ok": 1}) + msgpack.packb({"x": t}))' > "$T/dt.mp"
    run --separate-stderr mpcat "$T/dt.mp"
    [ "$status" -eq 65 ]
    assert_one_line_error mpcat
    [[ "$stderr" == "mpcat: '$T/dt.mp': record 1: tensor has unsupported dtype '<c8'" ]] || fail "$stderr"
}

@test "a 3 GB length header: exit 65 at once, no hang, no huge allocation" {
    printf '\x81\xa1x\xc6\xc0\x00\x00\x00abc' > "$T/bin3g.mp"       # bin32 of 3 GiB
    printf '\x81\xa1x\xdd\xff\xff\xff\xff' > "$T/arr4g.mp"          # array32 of 4G entries
    printf '\xdf\xff\xff\xff\xff' > "$T/map4g.mp"                    # map32 of 4G pairs
    for f in bin3g arr4g map4g; do
        # address space capped at 4 GB (not under ASan, whose shadow memory needs more)
        limit="ulimit -v 4000000;"; [ -n "${DAR_ASAN:-}" ] && limit=""
        run --separate-stderr timeout 10 bash -c "$limit mpcat '$T/$f.mp'"
        [ "$status" -eq 65 ] || fail "$f: status $status: $stderr"
        assert_one_line_error mpcat
        [[ "$stderr" == "mpcat: '$T/$f.mp': record 0: "* ]] || fail "$stderr"
    done
}

@test "invalid JSON for --to-msgpack: exit 65 with the line number" {
    printf '{"a":1}\n{"a":\n' > "$T/bad.jsonl"
    run --separate-stderr mpcat --to-msgpack -i "$T/bad.jsonl" -o "$T/x.mp"
    [ "$status" -eq 65 ]
    assert_one_line_error mpcat
    [[ "$stderr" == *"line 2: invalid JSON"* ]] || fail "$stderr"
}

@test "writing to /dev/full exits 74 with 'write error'" {
    echo '{"a":1}' > "$T/a.jsonl"
    run --separate-stderr mpcat --to-msgpack -i "$T/a.jsonl" -o /dev/full
    [ "$status" -eq 74 ]
    assert_one_line_error mpcat
    [[ "$stderr" == "mpcat: write error: No space left on device" ]] || fail "$stderr"
}

@test "a closed pipe ends quietly (| head -c 1)" {
    "$PY" -c '
import msgpack,sys
for i in range(20000): sys.stdout.buffer.write(msgpack.packb({"id": i, "s": "x"*50}))' > "$T/many.mp"
    run --separate-stderr bash -c "set -o pipefail; mpcat '$T/many.mp' | head -c 1 >/dev/null"
    [ "$status" -eq 141 ] || fail "status $status"
    [ -z "$stderr" ] || fail "stderr: $stderr"
    # also when the parent left SIGPIPE ignored: EPIPE is turned back into SIGPIPE
    run --separate-stderr bash -c "trap '' PIPE; set -o pipefail; mpcat '$T/many.mp' | head -c 1 >/dev/null"
    [ -z "$stderr" ] || fail "stderr: $stderr"
}

@test "refuses to write binary msgpack to a terminal" {
    command -v script >/dev/null || skip "script(1) not installed"
    echo '{"a":1}' > "$T/a.jsonl"
    run script -qec "mpcat --to-msgpack -i '$T/a.jsonl'" /dev/null
    [ "$status" -eq 64 ]
    assert_output --partial "refusing to write binary msgpack to a terminal"
}
