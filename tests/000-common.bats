#!/usr/bin/env bats
# Conventions shared by every tool: --help, --version, usage errors.
load test_helper

@test "every tool answers --help on stdout with usage, options and an example" {
    for tool in $(dar_tools); do
        run --separate-stderr "$tool" --help
        assert_success
        assert_output --partial "usage: $tool"
        assert_output --partial "example:"
        assert_output --partial "exit status"
    done
}

@test "every tool answers --version" {
    for tool in $(dar_tools); do
        run --separate-stderr "$tool" --version
        assert_success
        assert_output --regexp "^$tool \(dar\) [0-9]+\.[0-9]+\.[0-9]+$"
    done
}

@test "an unknown option is a usage error (exit 64) naming the option" {
    for tool in $(dar_tools); do
        run --separate-stderr "$tool" --no-such-option
        [ "$status" -eq 64 ] || fail "$tool exited $status"
        [[ "$stderr" == "$tool: unknown option '--no-such-option'"* ]] || fail "$tool: $stderr"
    done
}

@test "--quiet with --progress is a usage error in every tool that has both" {
    local checked=0
    for tool in $(dar_tools); do
        "$tool" --help | grep -q -- '--quiet' && "$tool" --help | grep -q -- '--progress' || continue
        run --separate-stderr "$tool" --quiet --progress
        [ "$status" -eq 64 ] || fail "$tool exited $status"
        [[ "$stderr" == "$tool: --quiet and --progress contradict each other"* ]] || fail "$tool: $stderr"
        checked=$((checked + 1))
    done
    [ "$checked" -ge 7 ] || fail "only $checked tools have both"
}

@test "a comma-separated list refuses an empty or a repeated item" {
    run -64 --separate-stderr lc-train --inputs length,,distance
    [[ "$stderr" == "lc-train: option '--inputs' has an empty item in 'length,,distance'"* ]] || fail "$stderr"
    run -64 --separate-stderr gnn-train --drop a,b,a
    [[ "$stderr" == "gnn-train: option '--drop' names 'a' twice"* ]] || fail "$stderr"
    run -64 --separate-stderr metrics --quantity mae_flow,mae_flow
    [[ "$stderr" == "metrics: option '--quantity' names 'mae_flow' twice"* ]] || fail "$stderr"
    run -64 --separate-stderr metrics -l model=dual --label model=primal
    [[ "$stderr" == "metrics: option '--label' names 'model' twice"* ]] || fail "$stderr"
}

@test "a missing input file exits 66" {
    run --separate-stderr mpcat "$T/does-not-exist.mp"
    [ "$status" -eq 66 ]
    assert_one_line_error mpcat
    [[ "$stderr" == *"cannot open '$T/does-not-exist.mp': No such file or directory" ]]
}

@test "a control character quoted from the input is printed as '?': the error stays one line" {
    # a newline in a dtype or a kind used to split the message over two lines
    gen-graphs --nodes 8 --count 2 --seed 1 > "$T/g.mp"
    "$PY" - "$T" <<'PYEOF'
import sys, msgpack, msgpack_numpy as mn
d = sys.argv[1]
g = list(msgpack.Unpacker(open(f"{d}/g.mp", "rb"), raw=False, strict_map_key=False))
g[1]["src"][b"type"] = "<i\n4"
open(f"{d}/dtype.mp", "wb").write(b"".join(msgpack.packb(r, use_bin_type=True) for r in g))
g[1]["src"][b"type"] = "<i4"
g[0]["kind"] = "gr\naph\x1b[31m"
open(f"{d}/kind.mp", "wb").write(b"".join(msgpack.packb(r, use_bin_type=True) for r in g))
PYEOF
    run -65 --separate-stderr ff-trace < "$T/dtype.mp"
    assert_one_line_error ff-trace
    [ "$stderr" = "ff-trace: record 1: 'src' has unsupported dtype '<i?4'" ] || fail "$stderr"
    run -65 --separate-stderr flow-fix < "$T/kind.mp"
    assert_one_line_error flow-fix
    [ "$stderr" = "flow-fix: record 0: 'kind' is 'gr?aph?[31m', expected 'graph'" ] || fail "$stderr"
}

@test "every tool with --threads spells it one way: -j, the same help, 0 to 1024" {
    local checked=0 line
    for tool in $(dar_tools); do
        line=$("$tool" --help | grep -E '^ +(-j, )?--threads ' || true)
        [ -n "$line" ] || continue
        [[ "$line" == "  -j, --threads N "*"threads (0: one per CPU this process may use); the output does not depend on it (default: 0)" ]] \
            || fail "$tool: $line"
        run --separate-stderr "$tool" --threads 1025
        [ "$status" -eq 64 ] || fail "$tool --threads 1025 exited $status"
        checked=$((checked + 1))
    done
    [ "$checked" -ge 7 ] || fail "only $checked tools have --threads"
}
