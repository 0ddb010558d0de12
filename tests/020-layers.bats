#!/usr/bin/env bats
# The include rules of ARCHITECTURE.md §2 (scripts/check-layers.py): the
# tree keeps them, and the check fails on each kind of break, planted in a
# copy of the sources.
load test_helper

# copy: the files the check reads, into $T/tree
copy() {
    mkdir -p "$T/tree"
    cp -r "$ROOT/common" "$ROOT/tools" "$ROOT/bin" "$ROOT/Makefile" "$ROOT/ARCHITECTURE.md" "$T/tree/"
    rm -f "$T"/tree/bin/*[!c]   # the built tools: the check reads sources only
}

@test "the tree keeps the layers, the tools apart and no circle" {
    run "$PY" "$ROOT/scripts/check-layers.py" "$ROOT"
    assert_success
    assert_output ""
}

@test "a library file that includes a header of a layer below its own fails the check" {
    copy
    sed -i '0,/#include/s//#include "dar.h"\n#include/' "$T/tree/common/records/tensor.c"
    run "$PY" "$ROOT/scripts/check-layers.py" "$T/tree"
    assert_failure
    assert_output --partial 'common/records/tensor.c:'
    assert_output --partial '"dar.h" is in common/dar, below common/records'
}

@test "a tool that includes another tool's header fails the check, in its body or its main" {
    copy
    sed -i '0,/#include/s//#include "lc_train.h"\n#include/' "$T/tree/tools/gnn_train.c"
    sed -i '0,/#include/s//#include "node2vec.h"\n#include/' "$T/tree/bin/edge-embed.c"
    run "$PY" "$ROOT/scripts/check-layers.py" "$T/tree"
    assert_failure
    assert_output --partial '"lc_train.h" is the header of lc_train, not of gnn_train'
    assert_output --partial 'bin/edge-embed.c:3: "node2vec.h" is the header of node2vec, not of edge_embed'
}

@test "a tool's own second file and header pass; the library including a tool's header fails" {
    copy
    sed -i '0,/#include/s//#include "edge_embed.h"\n#include/' "$T/tree/common/eval/metrics.c"
    run "$PY" "$ROOT/scripts/check-layers.py" "$T/tree"
    assert_failure
    assert_output --partial '"edge_embed.h" is a tool'"'"'s header, below the library'
    refute_output --partial 'edge_embed_reconstruct.c'
}

@test "two files of one layer that include each other fail the check" {
    copy
    sed -i '0,/#include/s//#include "tensor.h"\n#include/' "$T/tree/common/records/stream.c"
    run "$PY" "$ROOT/scripts/check-layers.py" "$T/tree"
    assert_failure
    assert_output --partial 'common/records: a circle: stream -> tensor -> stream'
}

@test "a layer table in another order than SRC_DIRS fails the check" {
    copy
    sed -i '/^| `common\/graphnn\/`/d' "$T/tree/ARCHITECTURE.md"
    run "$PY" "$ROOT/scripts/check-layers.py" "$T/tree"
    assert_failure
    assert_output --partial "ARCHITECTURE.md's layer table lists"
}

@test "common/dar is checked like every layer: an entry that includes the registry back is a circle" {
    copy
    sed -i '0,/#include/s//#include "registry.h"\n#include/' "$T/tree/common/dar/algo_record.c"
    run "$PY" "$ROOT/scripts/check-layers.py" "$T/tree"
    assert_failure
    assert_output --partial 'common/dar: a circle: algo_matching -> algo_record -> registry -> algo_matching'
}

@test "a header with no source of its name is no circle of the file that includes it and the header it includes" {
    copy
    printf '#include "stream.h"\n' > "$T/tree/common/records/stream_extra.h"
    sed -i '0,/#include/s//#include "stream_extra.h"\n#include/' "$T/tree/common/records/stream.c"
    run "$PY" "$ROOT/scripts/check-layers.py" "$T/tree"
    assert_success
    # tensor.h reaches stream.h only through the sourceless header: still a circle
    sed -i 's/#include "stream.h"/#include "stream_extra.h"/' "$T/tree/common/records/tensor.h"
    sed -i '0,/#include/s//#include "tensor.h"\n#include/' "$T/tree/common/records/stream.c"
    run "$PY" "$ROOT/scripts/check-layers.py" "$T/tree"
    assert_failure
    assert_output --partial 'common/records: a circle: stream -> tensor -> stream'
}

# Issue 38's size rule (tests/tools/function_lengths.py): no function over
# 120 lines, no main() over 60.
@test "no function of the library, the tools or the mains is over 120 lines, no main() over 60" {
    run "$PY" "$ROOT/tests/tools/function_lengths.py" "$ROOT"
    assert_success
    assert_output ""
}

@test "the size check finds a main() over 60 lines and a function over 120" {
    copy
    { printf 'int main(int argc, char **argv)\n{\n'; for i in $(seq 60); do printf '    (void)argc;\n'; done; printf '}\n'; } > "$T/tree/bin/long-main.c"
    { printf 'static int long_one(void)\n{\n'; for i in $(seq 119); do printf '    ;\n'; done; printf '    return 0;\n}\n'; } >> "$T/tree/tools/metrics.c"
    run "$PY" "$ROOT/tests/tools/function_lengths.py" "$T/tree"
    assert_failure
    assert_line "bin/long-main.c:1: main is 63 lines (limit 60)"
    assert_line --regexp '^tools/metrics.c:[0-9]+: long_one is 123 lines \(limit 120\)$'
}
