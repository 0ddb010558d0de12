#!/usr/bin/env bash
# make deps: install the Debian packages the project needs, or say how.
#   scripts/deps.sh PACKAGE...
# Detection reads dpkg's whole database (dpkg-query -W with no package
# names), so it never depends on dpkg-query's exit status for a package that
# is absent: that status is non-zero, and under `set -e -o pipefail` it used
# to end the recipe before anything was installed.
# DEPS_DRY_RUN=1 prints the apt-get line that would run instead of running it.
set -euo pipefail
[ $# -gt 0 ] || { echo "deps: no packages given" >&2; exit 64; }
command -v dpkg-query >/dev/null || { echo "deps: dpkg-query not found: this is not a Debian system; install by hand: $*" >&2; exit 69; }

installed=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' 2>/dev/null | awk '$2 == "ii" {print $1}' | sort -u || true)
missing=$(printf '%s\n' "$@" | sed '/^$/d' | sort -u | comm -23 - <(printf '%s\n' "$installed"))
if [ -z "$missing" ]; then
    echo "deps: all $# packages installed"
    exit 0
fi
list=$(printf '%s\n' "$missing" | tr '\n' ' ' | sed 's/ $//')
count=$(printf '%s\n' "$missing" | wc -l)
if [ "$(id -u)" != 0 ]; then
    echo "deps: $count missing package(s); run as root:" >&2
    echo "  apt-get update && apt-get install --no-install-recommends $list" >&2
    exit 1
fi
if [ "${DEPS_DRY_RUN:-0}" = 1 ]; then
    echo "deps: would install $count package(s): $list"
    echo "  apt-get update && apt-get install -y --no-install-recommends $list"
    exit 0
fi
# dpkg's progress (a line per package unpacked and set up, some thousand for
# a fresh machine) goes to a log, so the terminal shows what is installed and
# not how; apt's own error (an unknown package, a broken mirror) still goes
# to stderr, and its status ends the recipe with the log's path and end.
log=$(mktemp "${TMPDIR:-/tmp}/dar-deps.XXXXXX")
echo "deps: installing $count package(s): $list (apt's progress in $log)"
export DEBIAN_FRONTEND=noninteractive
status=0
{ apt-get update -qq && apt-get install -y -qq --no-install-recommends $list; } > "$log" || status=$?
if [ "$status" != 0 ]; then
    tail -n 5 "$log" >&2
    echo "deps: apt-get failed (status $status); its progress: $log" >&2
    exit "$status"
fi
rm -f "$log"
echo "deps: installed $list"
