#!/usr/bin/env bats
# The algorithm seam (issue 23, acceptance 2): no file of the DAR processor
# names flow, cut, capacity or Bellman-Ford outside a comment that names the
# max-flow entry as its example (tests/tools/processor_names.py).
load test_helper

CHECK="$ROOT/tests/tools/processor_names.py"
PROCESSOR=(dar.c dar_layout.c dar_forward.c dar_backward.c dar_steps.c dar_spec_steps.c dar_loss.c dar_loss.h dar_pointer.c dar_update.c dar_triplet.c dar.h dar_model.c dar_graph.c
           dar_processor.h dar_internal.h algorithm.c algorithm.h registry.c registry.h)

@test "seam: the processor's files name no flow, cut, capacity or Bellman-Ford" {
    cd "$ROOT/common/dar"
    run "$PY" "$CHECK" "${PROCESSOR[@]}"
    echo "$output"
    assert_success
    assert_output ""
}

@test "seam: the check finds a max-flow name in code and in a comment that does not say max-flow" {
    cp "$ROOT/common/dar/dar.c" "$T/dar.c"
    printf 'static float *hint_flow;\n/* the cut of a graph */\n/* max-flow: the cut is its dual */\n' >> "$T/dar.c"
    run "$PY" "$CHECK" "$T/dar.c"
    assert_failure
    assert_output --partial "code names 'flow'"
    assert_output --partial "a comment names 'cut'"
    [ "$(printf '%s\n' "$output" | wc -l)" -eq 2 ]
}

# The registry's grep (issue 38's acceptance): the tools and the shared
# library name no algorithm (tests/tools/algorithm_names.py lists what is
# an entry's own and why).
NAMES="$ROOT/tests/tools/algorithm_names.py"

@test "seam: no file outside the entries', their solvers', the registry's and the study's names an algorithm" {
    run "$PY" "$NAMES" "$ROOT"
    echo "$output"
    assert_success
    assert_output ""
}

@test "seam: the names check finds an algorithm named in a tool or shared header, not in an entry's or a solver's file" {
    mkdir -p "$T/tree/bin" "$T/tree/common/dar" "$T/tree/common/flow" "$T/tree/tools"
    cp "$ROOT/common/dar/registry.h" "$T/tree/common/dar/"
    printf 'static const char *algorithm = "max-flow";\n' > "$T/tree/bin/x.c"
    printf '/* as the vertex-cover entry does */\n' > "$T/tree/common/dar/dar.h"
    printf '/* min-cost-flow */\n' > "$T/tree/tools/y.h"
    printf '/* the max-flow entry */\n' > "$T/tree/common/dar/algo_maxflow.c"
    printf '/* max-flow */\n' > "$T/tree/common/flow/maxflow.h"
    run "$PY" "$NAMES" "$T/tree"
    assert_failure
    assert_output --partial 'bin/x.c:1:static const char *algorithm = "max-flow";'
    assert_output --partial 'common/dar/dar.h:1:'
    assert_output --partial 'tools/y.h:1:'
    [ "$(printf '%s\n' "$output" | wc -l)" -eq 3 ]
}

@test "seam: in a git work tree the names check reads git's files: a top-level log of make test is not a source, an untracked tool is" {
    mkdir -p "$T/tree/common/dar" "$T/tree/tools"
    cp "$ROOT/common/dar/registry.h" "$T/tree/common/dar/"
    printf '/* shared */\n' > "$T/tree/tools/x.c"
    git -C "$T/tree" init -q && git -C "$T/tree" add -A
    printf 'cc -c common/dar/algo_matching.c\nok 1 - algorithm: max-flow\n' > "$T/tree/LOG"
    run "$PY" "$NAMES" "$T/tree"
    assert_success
    assert_output ""
    printf '/* matching */\n' > "$T/tree/tools/z.c"
    printf 'min-cost\n' > "$T/tree/tools/ignored.log"
    printf '*.log\n' > "$T/tree/.gitignore"
    run "$PY" "$NAMES" "$T/tree"
    assert_failure
    assert_output 'tools/z.c:1:/* matching */'
}
