# Loaded by every bats file: libraries, the tools under test first on PATH,
# a private cache per test, and small helpers.
bats_require_minimum_version 1.5.0
bats_load_library bats-support
bats_load_library bats-assert
bats_load_library bats-file

ROOT="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
DAR_BIN="${DAR_BIN:-$ROOT/bin}"
PATH="$DAR_BIN:$PATH"
DAR_TOOLS="${DAR_TOOLS:-$ROOT/build/tools}"
PY=/usr/bin/python3
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"
# Each test gets its own cache so tests never see each other's entries.
export DAR_CACHE="${BATS_TEST_TMPDIR:-${BATS_FILE_TMPDIR:-/tmp}}/cache"
T="${BATS_TEST_TMPDIR:-/tmp}"

# All tools, for the loops over "every tool".
dar_tools() {
    local f
    for f in "$ROOT"/bin/*.c; do basename "$f" .c; done
    repair_names
}

# The names the repair tool is installed under (the Makefile's links).
repair_names() {
    sed -n 's/^REPAIR_NAMES *:= *//p' "$ROOT/Makefile" | tr ' ' '\n'
}

# The registry's entries in its order (registry.h's DAR_ALGORITHM_NAMES,
# which test_algorithm holds to the rows), joined by SEP: what every list of
# algorithms a tool prints must say.
registry_names() {
    sed -n 's/^#define DAR_ALGORITHM_NAMES "\(.*\)"$/\1/p' "$ROOT/common/dar/registry.h" | sed "s/|/$1/g"
}

# Decode a stream with Python's msgpack + msgpack_numpy (the interop oracle)
# and run a snippet on the list of records `recs`.
py_stream() {
    local file="$1" code="$2"
    "$PY" - "$file" <<PYEOF
import sys, msgpack, msgpack_numpy, numpy as np
recs = list(msgpack.Unpacker(open(sys.argv[1], "rb"), object_hook=msgpack_numpy.decode, raw=False, max_buffer_size=0))
$code
PYEOF
}

# Assert stderr is exactly one line starting with "tool: ".
assert_one_line_error() {
    local tool="$1"
    [ "$(printf '%s\n' "$stderr" | grep -c .)" -eq 1 ] || fail "expected one line on stderr, got: $stderr"
    [[ "$stderr" == "$tool: "* ]] || fail "stderr does not start with '$tool: ': $stderr"
}
