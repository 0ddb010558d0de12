#!/usr/bin/env bats
# make deps (the study's packages) and deps-test (and the tests'): what a
# fresh Debian 12 machine needs, detected from dpkg's whole database so that
# an absent package never ends the recipe early (it once did: dpkg-query's
# non-zero status for a missing name, under pipefail and -e, stopped `make
# deps` before apt-get with nothing but "Error 1").
load test_helper

NO_SUCH=dar-test-no-such-package

@test "deps: a package that is not installed is listed, as root in a dry run, and nothing is installed" {
    [ "$(id -u)" = 0 ] || skip "needs root (CI runs as root)"
    run --separate-stderr make -s -C "$ROOT" deps DEPS_DRY_RUN=1 DEB_EXTRA="$NO_SUCH"
    assert_success
    assert_output --partial "deps: would install"
    assert_output --partial "apt-get install -y --no-install-recommends"
    [[ "$output" == *" $NO_SUCH"* ]] || fail "the missing package is not named: $output"
    # what is installed is not listed again
    [[ "$output" != *" bash "* ]] || fail "an installed package is listed: $output"
}

@test "deps: when not root, the one apt-get line is printed and the exit status is non-zero" {
    command -v setpriv > /dev/null || skip "no setpriv"
    [ "$(id -u)" = 0 ] || skip "needs root to become another user"
    # the script on stdin: the checkout may be where nobody can read (/root)
    run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
        bash -s -- bash "$NO_SUCH" < "$ROOT/scripts/deps.sh"
    assert_failure 1
    [[ "$stderr" == *"apt-get update && apt-get install --no-install-recommends $NO_SUCH"* ]] || fail "$stderr"
    [ -z "$output" ]
}

@test "deps: a machine that has every package says so and exits 0" {
    run --separate-stderr make -s -C "$ROOT" deps DEB_PACKAGES="bash coreutils dpkg"
    assert_success
    assert_output "deps: all 3 packages installed"
}

@test "deps: a package apt cannot install ends make deps non-zero with apt's error" {
    [ "$(id -u)" = 0 ] || skip "needs root"
    # A stand-in apt-get: the network is not needed to show that apt's own
    # failure (here: an unknown package) is what make deps reports.
    mkdir -p "$T/fakebin"
    cat > "$T/fakebin/apt-get" <<'SH'
#!/bin/sh
case "$1" in update) exit 0 ;; esac
echo "E: Unable to locate package dar-test-no-such-package" >&2
exit 100
SH
    chmod +x "$T/fakebin/apt-get"
    PATH="$T/fakebin:$PATH" run --separate-stderr make -s -C "$ROOT" deps DEB_PACKAGES="bash $NO_SUCH"
    assert_failure
    [[ "$output" == *"deps: installing 1 package(s): $NO_SUCH"* ]] || fail "$output"
    [[ "$stderr" == *"E: Unable to locate package $NO_SUCH"* ]] || fail "$stderr"
}

@test "deps: apt's progress goes to a log, not the terminal; what is installed is said" {
    [ "$(id -u)" = 0 ] || skip "needs root"
    mkdir -p "$T/fakebin"
    cat > "$T/fakebin/apt-get" <<'SH'
#!/bin/sh
case "$1" in update) echo "Hit:1 http://deb.debian.org/debian bookworm InRelease"; exit 0 ;; esac
echo "Selecting previously unselected package dar-test-no-such-package."
echo "Setting up dar-test-no-such-package (1.0) ..."
SH
    chmod +x "$T/fakebin/apt-get"
    PATH="$T/fakebin:$PATH" TMPDIR="$T" run --separate-stderr bash "$ROOT/scripts/deps.sh" bash "$NO_SUCH"
    assert_success
    [ -z "$stderr" ] || fail "$stderr"
    [[ "$output" == "deps: installing 1 package(s): $NO_SUCH (apt's progress in $T/dar-deps."*")"$'\n'"deps: installed $NO_SUCH" ]] || fail "$output"
    # the log is removed once the install succeeded
    [ -z "$(find "$T" -maxdepth 1 -name 'dar-deps.*')" ]
}

# the package lists as make reads them
deb_list() {
    make -s -C "$ROOT" --no-print-directory -f Makefile -f - print-deb-list LIST="$1" <<'MK'
print-deb-list: ; @echo $($(LIST))
MK
}

@test "deps: every package of both lists is one Debian knows (apt-cache), so a fresh machine can install them" {
    command -v apt-cache > /dev/null || skip "no apt-cache"
    pkgs="$(deb_list DEB_PACKAGES) $(deb_list DEB_TEST_PACKAGES)"
    [ -n "$pkgs" ]
    run apt-cache show --no-all-versions $pkgs
    [ "$status" -eq 0 ] || fail "apt-cache does not know some of: $pkgs"
}

@test "deps: the study's set and the tests' set are disjoint, and make deps asks for the study's only" {
    [ "$(id -u)" = 0 ] || skip "needs root (CI runs as root)"
    study=$(deb_list DEB_PACKAGES | tr ' ' '\n' | sort)
    tests=$(deb_list DEB_TEST_PACKAGES | tr ' ' '\n' | sort)
    both=$(comm -12 <(echo "$study") <(echo "$tests"))
    [ -z "$both" ] || fail "in both sets: $both"
    # the tests, the benchmarks and the cluster: not for a user who runs the study
    for p in bats python3-torch slurm-wlm munge clang chromium python3-gensim; do
        grep -qx "$p" <<< "$tests" || fail "$p is not in the tests' set"
    done
    run --separate-stderr make -s -C "$ROOT" deps DEPS_DRY_RUN=1 DEB_TEST_PACKAGES="$NO_SUCH"
    assert_success
    [[ "$output" != *"$NO_SUCH"* ]] || fail "make deps asks for a test package: $output"
    run --separate-stderr make -s -C "$ROOT" deps-test DEPS_DRY_RUN=1 DEB_TEST_PACKAGES="$NO_SUCH"
    assert_success
    [[ "$output" == *"would install 1 package(s): $NO_SUCH"* ]] || fail "$output"
}

@test "deps: make test and make bench install the tests' set first, and stop with apt's error when it fails" {
    [ "$(id -u)" = 0 ] || skip "needs root"
    mkdir -p "$T/fakebin"
    cat > "$T/fakebin/apt-get" <<'SH'
#!/bin/sh
case "$1" in update) exit 0 ;; esac
echo "E: Unable to locate package dar-test-no-such-package" >&2
exit 100
SH
    chmod +x "$T/fakebin/apt-get"
    for target in test bench; do
        PATH="$T/fakebin:$PATH" run --separate-stderr make -s -C "$ROOT" $target DEB_TEST_PACKAGES="bash $NO_SUCH"
        assert_failure
        [[ "$output" == *"deps: installing 1 package(s): $NO_SUCH"* ]] || fail "$target: $output"
        [[ "$stderr" == *"E: Unable to locate package $NO_SUCH"* ]] || fail "$target: $stderr"
        # nothing ran after the failed install
        [[ "$output" != *"ok "* ]] || fail "$target ran tests: $output"
    done
}
