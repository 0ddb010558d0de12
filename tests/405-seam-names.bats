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
