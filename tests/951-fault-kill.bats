#!/usr/bin/env bats
# Fault injection: kill -9 at random moments while tools publish cache
# entries.  The cache must then hold only complete entries that verify by
# formats/cache.md, and a later run must hit one or recompute, never serve
# a partial one.

load test_helper

# Every entry under $1/v1 that does not verify, one line each (formats/cache.md:
# payload, "DARCACH1", the key of its name, length u64 LE, XXH3-64 u64 LE);
# the checksums by one xxhsum over copies of the payloads.
bad_entries() {
    /usr/bin/python3 - "$1" <<'PYEOF'
import glob, os, subprocess, sys, tempfile
files = sorted(glob.glob(f"{sys.argv[1]}/v1/*/*.mp"))
scratch = tempfile.mkdtemp()
want = {}
for i, f in enumerate(files):
    b = open(f, "rb").read()
    key = os.path.basename(os.path.dirname(f)) + os.path.basename(f)[:-3]
    t = b[-40:]
    if len(b) < 40:
        print(f"{f}: only {len(b)} bytes")
    elif t[:8] != b"DARCACH1":
        print(f"{f}: no magic")
    elif t[8:24].hex() != key:
        print(f"{f}: key {t[8:24].hex()}")
    elif int.from_bytes(t[24:32], "little") != len(b) - 40:
        print(f"{f}: length {int.from_bytes(t[24:32], 'little')} of {len(b)} bytes")
    else:
        p = f"{scratch}/{i}"
        open(p, "wb").write(b[:-40])
        want[p] = (f, t[32:40][::-1].hex())
if want:
    out = subprocess.run(["xxhsum", "-H3"] + list(want), capture_output=True, text=True, check=True).stdout
    got = {l[l.index("(") + 1:l.rindex(")")]: l.rsplit(" = ", 1)[1].strip() for l in out.splitlines()}
    for p, (f, sum) in want.items():
        if got.get(p) != sum:
            print(f"{f}: checksum")
for p in want:
    os.unlink(p)
os.rmdir(scratch)
PYEOF
}

@test "the entry checker refuses damaged entries (so the test below can fail)" {
    export DAR_CACHE="$T/cache"
    gen-graphs --nodes 8 --count 3 --seed 1 | ff-trace > /dev/null
    entry=$(find "$DAR_CACHE/v1" -name '*.mp')
    [ -n "$entry" ] && [ -z "$(bad_entries "$DAR_CACHE")" ]
    cp "$entry" "$T/saved"
    head -c -1 "$T/saved" > "$entry"
    [[ "$(bad_entries "$DAR_CACHE")" == *"no magic"* ]]
    { printf 'X'; tail -c +2 "$T/saved"; } > "$entry"
    [[ "$(bad_entries "$DAR_CACHE")" == *checksum* ]]
}

@test "kill -9 at random moments of 200 cache publishes leaves only complete entries; the next run hits or recomputes" {
    export DAR_CACHE="$T/cache"
    gen-graphs --nodes 8 --count 10 --seed 1 | ff-trace > "$T/traced.mp"
    # the loops run in a plain bash: bats' per-command traps would make them slow
    run -0 --separate-stderr bash -c "$(declare -f bad_entries)"'
        T=$1
        # how long one run takes here (sanitizers, a busy machine), in ms
        t0=$(date +%s%N)
        dar-step --baseline random --seed 999 --no-cache < "$T/traced.mp" > /dev/null
        t1=$(date +%s%N)
        ms=$(( (t1 - t0) / 1000000 + 2 ))
        killed=0
        # each seed is its own key: every run publishes a new entry
        for i in $(seq 0 199); do
            dar-step --baseline random --seed "$i" < "$T/traced.mp" > /dev/null 2>&1 &
            pid=$!
            sleep "$(printf "0.%03d" $(( RANDOM % ms % 1000 )))"
            kill -9 "$pid" 2>/dev/null && killed=$((killed + 1))
            wait "$pid" 2>/dev/null
        done
        bad_entries "$DAR_CACHE"
        echo "summary: $killed of 200 runs killed, $(find "$DAR_CACHE/v1" -name "*.mp" | wc -l) entries complete, $(find "$DAR_CACHE/v1" -name ".tmp.*" | wc -l) temp files left" >&2
        # the next run of a sample of the seeds gives what --no-cache gives
        for i in $(seq 0 11 199); do
            dar-step --baseline random --seed "$i" --no-cache < "$T/traced.mp" > "$T/want.mp"
            dar-step --baseline random --seed "$i" < "$T/traced.mp" > "$T/got.mp"
            cmp -s "$T/want.mp" "$T/got.mp" || echo "seed $i: the next run gives other bytes"
        done
        bad_entries "$DAR_CACHE"' _ "$T"
    echo "# $stderr" >&3
    [ -z "$output" ] || fail "$output"
}
