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

@test "a missing input file exits 66" {
    run --separate-stderr mpcat "$T/does-not-exist.mp"
    [ "$status" -eq 66 ]
    assert_one_line_error mpcat
    [[ "$stderr" == *"cannot open '$T/does-not-exist.mp': No such file or directory" ]]
}
