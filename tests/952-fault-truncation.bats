#!/usr/bin/env bats
# Fault injection: a stream cut at every byte offset, and length headers
# that ask for more than any record holds (formats/stream.md, "Limits").

load test_helper

@test "a stream cut at every byte offset: exit 65 naming the cut record, or at a record boundary the records before it" {
    gen-graphs --nodes 4 --count 2 --seed 1 > "$T/g.mp"
    b1=$(gen-graphs --nodes 4 --count 1 --seed 1 | wc -c)
    # under the sanitizers every 5th offset and those around the boundary
    step=1
    [ -n "${DAR_ASAN:-}" ] && step=5
    # the loop runs in a plain bash: bats' per-command traps would make it slow
    run -0 bash -c '
        file=$1 b1=$2 step=$3 dir=$4
        len=$(stat -c %s "$file")
        for k in $(seq 1 $((len - 1))); do
            [ $((k % step)) -eq 0 ] || [ $((k - b1)) -ge -2 -a $((k - b1)) -le 2 ] || continue
            head -c "$k" "$file" > "$dir/cut.mp"
            record=$(( k < b1 ? 0 : 1 ))
            # mpcat reads as every tool does (reader_next), ff-trace threads measure records first
            for command in "mpcat" "ff-trace --no-cache --threads 2"; do
                status=0
                $command < "$dir/cut.mp" > /dev/null 2> "$dir/err" || status=$?
                err=$(< "$dir/err")
                if [ "$k" -eq "$b1" ]; then
                    [ "$status" -eq 0 ] || echo "$command, cut at $k (a boundary): exit $status: $err"
                elif [ "$status" -ne 65 ]; then
                    echo "$command, cut at $k: exit $status (a silent short output?): $err"
                elif [ "$err" != "${command%% *}: record $record: truncated record at end of input" ]; then
                    echo "$command, cut at $k: $err"
                fi
            done
        done' _ "$T/g.mp" "$b1" "$step" "$T"
    [ -z "$output" ] || fail "$output"
}

@test "a length header asking for gigabytes is refused before anything is allocated, naming the record" {
    gen-graphs --nodes 4 --count 1 > "$T/g.mp"
    printf '\x81\xa1x\xdd\xff\xff\xff\xff' > "$T/array32.mp"
    printf '\x81\xa1x\xdf\x7f\xff\xff\xff\x01' > "$T/map32.mp"
    cat "$T/g.mp" "$T/array32.mp" > "$T/second.mp"
    run -65 --separate-stderr mpcat < "$T/array32.mp"
    [ "$stderr" = "mpcat: record 0: a length header asks for 4294967295 items, more than a record of at most 2147483648 bytes holds" ] || fail "$stderr"
    run -65 --separate-stderr mpcat < "$T/map32.mp"
    [ "$stderr" = "mpcat: record 0: a length header asks for 2147483647 keys, more than a record of at most 2147483648 bytes holds" ] || fail "$stderr"
    for j in 1 2; do
        run -65 --separate-stderr ff-trace --no-cache --threads $j < "$T/second.mp"
        [ "$stderr" = "ff-trace: record 1: a length header asks for 4294967295 items, more than a record of at most 2147483648 bytes holds" ] || fail "-j $j: $stderr"
    done
}

@test "a header promising 100 million items that do not follow is a truncated record, not an allocation" {
    [ -n "${DAR_ASAN:-}" ] && skip "address space limits do not apply under AddressSanitizer"
    # msgpack-c would allocate 2.4 GB of objects at the header: under a
    # 400 MB address space limit that failed as "too much memory"
    printf '\x81\xa1x\xdd\x05\xf5\xe1\x00\x01\x02\x03' > "$T/big.mp"
    run -65 --separate-stderr bash -c "ulimit -v 400000; exec mpcat < '$T/big.mp'"
    [ "$stderr" = "mpcat: record 0: truncated record at end of input" ] || fail "$stderr"
}

@test "containers nested deeper than 32 are refused with their own message; 32 are read" {
    /usr/bin/python3 -c "import sys; sys.stdout.buffer.write(b'\x81\xa1x' + b'\x91' * 31 + b'\x01')" > "$T/deep32.mp"
    /usr/bin/python3 -c "import sys; sys.stdout.buffer.write(b'\x81\xa1x' + b'\x91' * 32 + b'\x01')" > "$T/deep33.mp"
    run -0 mpcat < "$T/deep32.mp"
    run -65 --separate-stderr mpcat < "$T/deep33.mp"
    [ "$stderr" = "mpcat: record 0: containers nested more than 32 deep" ] || fail "$stderr"
}

@test "mpcat --to-msgpack: an integer tensor value out of its dtype's range or not an integer is refused (found by fuzzing)" {
    # 376 in a |u1 tensor was converted with undefined behaviour (UBSan), 0.4 truncated to 0
    printf '{"t": {"dtype": "|u1", "shape": [2], "data": [1, 376]}}\n' > "$T/u1.jsonl"
    run -65 --separate-stderr mpcat --to-msgpack < "$T/u1.jsonl"
    [ "$stderr" = "mpcat: record 0: tensor value 1 is 376, not an integer a |u1 holds" ] || fail "$stderr"
    printf '{"t": {"dtype": "<i4", "shape": [1], "data": [0.5]}}\n' > "$T/i4.jsonl"
    run -65 --separate-stderr mpcat --to-msgpack < "$T/i4.jsonl"
    [ "$stderr" = "mpcat: record 0: tensor value 0 is 0.5, not an integer a <i4 holds" ] || fail "$stderr"
    printf '{"t": {"dtype": "<i8", "shape": [1], "data": ["nan"]}}\n' > "$T/i8.jsonl"
    run -65 --separate-stderr mpcat --to-msgpack < "$T/i8.jsonl"
    [ "$stderr" = "mpcat: record 0: tensor value 0 is nan, not an integer a <i8 holds" ] || fail "$stderr"
    printf '{"t": {"dtype": "<f4", "shape": [4611686018427387904, 4611686018427387904], "data": []}}\n' > "$T/shape.jsonl"
    run -65 --separate-stderr mpcat --to-msgpack < "$T/shape.jsonl"
    [ "$stderr" = "mpcat: record 0: tensor shape asks for more values than exist" ] || fail "$stderr"
    # the extremes of each dtype still go through
    printf '{"a": {"dtype": "|u1", "shape": [2], "data": [0, 255]}, "b": {"dtype": "<i4", "shape": [2], "data": [-2147483648, 2147483647]}, "c": {"dtype": "|b1", "shape": [2], "data": [true, false]}}\n' > "$T/ok.jsonl"
    mpcat --to-msgpack < "$T/ok.jsonl" | mpcat > "$T/back.jsonl"
    cmp <(jq -c . "$T/ok.jsonl") "$T/back.jsonl"
}

@test "mpcat --to-msgpack: a line that is a {\"\$bin\"} object is refused, not written as a record that is no map (found by fuzzing)" {
    printf '{"kind": "x"}\n{"$bin": "00"}\n' > "$T/bin.jsonl"
    run -65 --separate-stderr mpcat --to-msgpack < "$T/bin.jsonl"
    [ "$stderr" = "mpcat: <stdin>: line 2: record 1 is a '\$bin' object, not a record" ] || fail "$stderr"
    printf '{"a": {"$bin": "0"}}\n' > "$T/odd.jsonl"
    run -65 --separate-stderr mpcat --to-msgpack < "$T/odd.jsonl"
    [ "$stderr" = "mpcat: record 0: '\$bin' is not hexadecimal" ] || fail "$stderr"
    # inside a record it stays a bin, and round-trips
    printf '{"a":{"$bin":"00ff"}}\n' > "$T/ok.jsonl"
    mpcat --to-msgpack < "$T/ok.jsonl" | mpcat | cmp - "$T/ok.jsonl"
}
