#!/usr/bin/env bats
# The C model (common/dar/dar.c, driven by build/tools/dar_dump) against its
# independent PyTorch twin (tests/twin/dar_twin.py, dense padded tensors, torch
# autograd): same model record, same batch, same teacher-forcing decisions ->
# the same loss (1e-5 relative) and the same gradients (per tensor,
# max|a-b| <= 1e-4 max(max|a|, max|b|) + 1e-7).
load test_helper

TWIN="$ROOT/tests/twin/dar_twin.py"
CMP="$ROOT/tests/twin/compare.py"
MIXED_TF=01101001110101101001010011010110100101011

setup_file() {
    # make test installs python3-torch: a missing torch is a broken set-up,
    # which a skip would hide
    /usr/bin/python3 -c "import torch" || {
        echo "/usr/bin/python3 cannot import torch (python3-torch; make test installs it: DEB_TEST_PACKAGES)" >&2
        return 1
    }
    local d="$BATS_FILE_TMPDIR" B="$ROOT/bin"
    export DAR_CACHE=off
    "$B/gen-graphs" --family two-community --nodes 8 --count 4 --seed 5 | "$B/ff-trace" > "$d/b.mp"
    "$B/gen-graphs" --family bipartite --nodes 6 --count 3 --seed 5 | "$B/ff-trace" > "$d/bp.mp"
    cat "$d/b.mp" "$d/bp.mp" > "$d/mix.mp"          # n = 8 and 6, T from 12 to 37
    # sparse Erdos-Renyi graphs: several with no augmenting path (F_out stays 0) and T = 2
    "$B/gen-graphs" --family erdos-renyi --nodes 7 --density 0.15 --count 12 --seed 2 | "$B/ff-trace" > "$d/er.mp"
    cat "$d/er.mp" "$d/bp.mp" "$d/b.mp" > "$d/edge.mp"
    "$B/gen-graphs" --family bipartite --nodes 6 --count 2 --seed 1 | "$B/ff-trace" > "$d/tiny.mp"
    {
        "$B/gen-graphs" --instance shortest-paths --family erdos-renyi --nodes 7 --p 0.4 --count 4 --seed 5
        "$B/gen-graphs" --instance shortest-paths --family erdos-renyi --nodes 5 --p 0.2 --count 3 --seed 6
    } | "$B/ff-trace" --algorithm shortest-paths > "$d/sp.mp"
}

# model FILE VARIANT PROCESSOR AGG [--leak-cut]: a C-initialised model record
model() {
    local f="$1" v="$2" p="$3" a="$4"; shift 4
    "$DAR_TOOLS/dar_dump" --init --variant "$v" --processor "$p" --agg "$a" --hidden 8 --seed 3 "$@" > "$f"
}

# twin_check TWIN BATCH INIT CASE...: CASE = "variant processor agg teacher
# [option...]"; each case's model record initialised by dar_dump --init INIT
# (jittered off its initial values by the twin when JITTER is set) and its
# gradients on BATCH by dar_dump, then the twin on all cases in one Python
# process, which must agree on every one.  Case i's model and gradients stay
# in $T/m<i>.mp and $T/c<i>.mp for the checks that follow.
twin_check() {
    local twin="$1" batch="$2" init="$3"; shift 3
    local args=() i=0 c
    for c in "$@"; do
        set -- $c
        local v="$1" p="$2" a="$3" tf="$4"; shift 4
        "$DAR_TOOLS/dar_dump" --init $init --variant "$v" --processor "$p" --agg "$a" --hidden 8 --seed 3 "$@" \
            > "$T/m$i.mp"
        if [ -n "${JITTER:-}" ]; then
            "$PY" "$twin" jitter --seed $i "$T/m$i.mp" > "$T/j.mp" && mv "$T/j.mp" "$T/m$i.mp"
        fi
        "$DAR_TOOLS/dar_dump" --model "$T/m$i.mp" --teacher "$tf" < "$batch" > "$T/c$i.mp"
        args+=("$T/m$i.mp:$tf:$T/c$i.mp")
        i=$((i + 1))
    done
    run "$PY" "$twin" check --batch "$batch" "${args[@]}"
    echo "$output"
    assert_success
    assert_output --partial "$i of $i cases agree"
}

# twin_differs TWIN BATCH MODEL:TEACHER:GRADS WORD: the twin must not agree
# with a case changed behind its back (the comparison can fail), saying WORD.
twin_differs() {
    run "$PY" "$1" check --batch "$2" "$3"
    assert_failure
    assert_output --partial "$4"
}

# check BATCH CASE...: max-flow's cases against its twin.
check() {
    local batch="$1"; shift
    twin_check "$TWIN" "$batch" "" "$@"
}

# The nine cases every entry's twin checks: each variant, PGN and MPNN, each
# aggregator, teacher all, none and mixed.
ENTRY_CASES=("primal pgn max all" "dual pgn max all" "dual pgn max $MIXED_TF" "dual pgn mean none"
             "dual mpnn sum 0101" "no-algo pgn max none" "primal mpnn max none" "no-algo mpnn mean none"
             "primal pgn sum 011")

# entry_twin ALGORITHM TWIN BATCH: the nine cases; then the comparison sees a
# change of schedule (C's teacher-forced gradients against the twin unforced).
entry_twin() {
    local alg="$1" twin="$2" batch="$3"
    twin_check "$twin" "$batch" "--algorithm $alg" "${ENTRY_CASES[@]}"
    twin_differs "$twin" "$batch" "$T/m1.mp:none:$T/c1.mp" DIFFERS
}

# The eight cases of a phased (layered or rounds) trace.
PHASED_CASES=("primal pgn max all" "dual pgn max all" "dual pgn max $MIXED_TF" "dual mpnn sum 0101"
              "no-algo pgn max none" "primal pgn mean none --soft-hints" "dual pgn max $MIXED_TF --soft-hints"
              "dual mpnn max none --soft-hints")

# phased_twin ALGORITHM TWIN BATCH ONE_FRAME_BATCH REFUSAL: the eight cases on
# BATCH's phased trace; the comparison sees the step kinds (the twin given
# every phase 0 must not agree); a phased model on ONE_FRAME_BATCH is refused
# by the twin, and by dar_dump with REFUSAL.
phased_twin() {
    local alg="$1" twin="$2" batch="$3" one="$4" refusal="$5"
    twin_check "$twin" "$batch" "--algorithm $alg --phased" "${PHASED_CASES[@]}"
    py_stream "$batch" '
import msgpack_numpy
with open(sys.argv[1] + ".flat", "wb") as f:
    for r in recs:
        r["hint_phase"] = 0 * r["hint_phase"]
        f.write(msgpack.packb(r, default=msgpack_numpy.encode))'
    run "$PY" "$twin" check --batch "$batch.flat" "$T/m1.mp:all:$T/c1.mp" "$T/m6.mp:$MIXED_TF:$T/c6.mp"
    assert_failure
    assert_output --partial "0 of 2 cases agree"
    run "$PY" "$twin" check --batch "$one" "$T/m1.mp:all:$T/c1.mp"
    assert_failure
    assert_output --partial "a phased model on a batch of one-frame records"
    run "$DAR_TOOLS/dar_dump" --model "$T/m1.mp" --teacher all < "$one"
    assert_failure 65
    assert_output --partial "$refusal"
}

@test "twin CLI: dual PGN with max, mean and sum agrees with dar_dump (teacher all, two-community batch)" {
    local a
    for a in max mean sum; do
        model "$T/m.mp" dual pgn "$a"
        "$DAR_TOOLS/dar_dump" --model "$T/m.mp" --teacher all < "$BATS_FILE_TMPDIR/b.mp" > "$T/c.mp"
        "$PY" "$TWIN" grads --model "$T/m.mp" --teacher all --batch "$BATS_FILE_TMPDIR/b.mp" > "$T/p.mp"
        run "$PY" "$CMP" "$T/c.mp" "$T/p.mp"
        echo "dual pgn $a: $output"
        assert_success
    done
    # the record itself: kind, six loss terms, every parameter in model order, float32
    py_stream "$T/p.mp" '
import msgpack_numpy
m = list(msgpack.Unpacker(open(sys.argv[1].replace("p.mp", "m.mp"), "rb"), object_hook=msgpack_numpy.decode, raw=False))[0]
r = recs[0]
assert len(recs) == 1 and r["kind"] == "gradients", r.keys()
assert sorted(r["losses"]) == sorted(["mask", "pi", "flow_hint", "cut_hint", "flow", "cut"])
assert list(r["grads"]) == list(m["params"]), (list(r["grads"]), list(m["params"]))
for k, g in r["grads"].items():
    assert g.dtype == np.float32 and g.shape == m["params"][k].shape, k
    assert np.all(np.isfinite(g)), k
assert isinstance(r["loss"], float) and r["loss"] > 0
'
}

@test "every variant x processor x aggregator agrees (teacher all, batch mixing n = 8, 6 and T = 12..37)" {
    local cases=() v p a
    for v in primal dual pipeline no-algo; do
        for p in pgn mpnn; do
            for a in max mean sum; do cases+=("$v $p $a all"); done
        done
    done
    check "$BATS_FILE_TMPDIR/mix.mp" "${cases[@]}"
}

@test "predictions fed back (--teacher none) and a mixed teacher string agree" {
    model "$T/m.mp" dual pgn max
    "$DAR_TOOLS/dar_dump" --model "$T/m.mp" --teacher none < "$BATS_FILE_TMPDIR/mix.mp" > "$T/c.mp"
    "$PY" "$TWIN" grads --model "$T/m.mp" --teacher none --batch "$BATS_FILE_TMPDIR/mix.mp" > "$T/p.mp"
    run "$PY" "$CMP" "$T/c.mp" "$T/p.mp"
    echo "dual pgn max none: $output"
    assert_success
    check "$BATS_FILE_TMPDIR/mix.mp" \
        "primal pgn sum none" "primal mpnn max $MIXED_TF" \
        "dual mpnn mean none" "dual pgn mean $MIXED_TF" "dual pgn sum $MIXED_TF" \
        "pipeline pgn max none" "pipeline mpnn sum $MIXED_TF" \
        "no-algo mpnn mean none"
}

@test "graphs with no augmenting path, T = 2, and the leak-cut dual agree" {
    check "$BATS_FILE_TMPDIR/edge.mp" \
        "dual pgn max none --leak-cut" "dual mpnn sum $MIXED_TF --leak-cut" \
        "dual pgn mean none" "pipeline pgn max $MIXED_TF" "primal mpnn mean none" \
        "no-algo pgn max all"
}

@test "the twin's own gradients match central finite differences (float64, stop-gradient lifted)" {
    model "$T/m.mp" dual pgn max
    run "$PY" "$TWIN" fdcheck --model "$T/m.mp" --batch "$BATS_FILE_TMPDIR/tiny.mp" --teacher 0110100111 --coords 1
    echo "$output"
    assert_success
    assert_output --partial "fdcheck worst relative error"
}

@test "twin bench prints seconds per training iteration" {
    run --separate-stderr "$PY" "$TWIN" bench --hidden 8 --batch-size 2 --iters 1 < "$BATS_FILE_TMPDIR/mix.mp"
    assert_success
    [[ "$output" =~ ^[0-9]+\.[0-9]+$ ]] || fail "not a number of seconds: $output"
}

@test "compare.py flags a perturbed gradient and names the tensor" {
    model "$T/m.mp" primal pgn max
    "$DAR_TOOLS/dar_dump" --model "$T/m.mp" --teacher all < "$BATS_FILE_TMPDIR/bp.mp" > "$T/c.mp"
    "$PY" - "$T/c.mp" "$T/bad.mp" <<'PYEOF'
import sys, msgpack, msgpack_numpy as mn
r = msgpack.unpackb(open(sys.argv[1], "rb").read(), object_hook=mn.decode, raw=False)
g = r["grads"]["flow.proc.o2.weight"].copy(); g.flat[5] += 1e-3 * abs(g).max() + 1e-6; r["grads"]["flow.proc.o2.weight"] = g
open(sys.argv[2], "wb").write(msgpack.packb(r, default=mn.encode))
PYEOF
    run "$PY" "$CMP" "$T/c.mp" "$T/c.mp"
    assert_success
    run "$PY" "$CMP" "$T/c.mp" "$T/bad.mp"
    assert_failure
    assert_output --partial "BAD  flow.proc.o2.weight"
}

# Shortest paths (tests/twin/sp_twin.py): the pointer heads (hint and
# output), the node-scalar heads (the dual's potentials) and the mask head,
# with h carried and differentiated through the rounds; several graphs of
# different sizes and numbers of rounds in one batch, isolated nodes among them.
@test "twin, shortest paths: primal, dual and no-algo, PGN and MPNN, max mean sum, teacher all/none/mixed: the same loss and every gradient" {
    cp "$BATS_FILE_TMPDIR/sp.mp" "$T/sp.mp"
    entry_twin shortest-paths "$ROOT/tests/twin/sp_twin.py" "$T/sp.mp"
}

# The model options on shortest paths: the edge pointer head (both pointer
# heads), the layer-normalised and gated node update, soft hints (the
# pointer's softmax fed back with its gradient, sigmoid(reached) as a
# constant), alone and together.  The options' parameters are jittered off
# their initial values (LN scale 1, offset 0, G3's bias -3), where parts of
# them would show in no gradient.
@test "twin, shortest paths with --pointer-head edge, --layer-norm, --gate, --soft-hints: the same loss and every gradient" {
    local all="--pointer-head edge --layer-norm --gate --soft-hints" b="$BATS_FILE_TMPDIR/sp.mp"
    JITTER=1 twin_check "$ROOT/tests/twin/sp_twin.py" "$b" "--algorithm shortest-paths" \
        "dual pgn max none $all" "dual pgn max $MIXED_TF $all" "dual mpnn sum none $all" "dual pgn max all $all" \
        "primal mpnn sum none --pointer-head edge --layer-norm" "primal pgn mean $MIXED_TF --soft-hints" \
        "no-algo pgn max none --layer-norm --gate" "no-algo mpnn mean none --pointer-head edge"
    # the comparison sees the soft hints: the same parameters read as a model without them
    without_soft_hints "$T/m0.mp" "$T/hard.mp"
    twin_differs "$ROOT/tests/twin/sp_twin.py" "$b" "$T/hard.mp:none:$T/c0.mp" DIFFERS
}

# Triplet-GMPNN's triplet messages on shortest paths (dar_triplet.c; the
# twin's Net.triplet_messages, dense over every (x, s, t)): PGN and MPNN,
# each aggregator, alone and with the other options.
@test "twin, shortest paths with --triplets: the same loss and every gradient" {
    local b="$BATS_FILE_TMPDIR/sp.mp"
    JITTER=1 twin_check "$ROOT/tests/twin/sp_twin.py" "$b" "--algorithm shortest-paths --triplets" \
        "dual pgn max none" "dual mpnn sum $MIXED_TF --gate" "primal pgn mean all --pointer-head edge --soft-hints" \
        "no-algo mpnn max none --layer-norm" "dual pgn max $MIXED_TF --pointer-head edge --layer-norm --gate --soft-hints"
    # the comparison sees the triplet messages: E2 (the x->t arc's map) zeroed in the twin's copy
    "$PY" - "$T/m0.mp" "$T/te2.mp" <<'PYEOF2'
import sys, msgpack, msgpack_numpy as mn
r = msgpack.unpackb(open(sys.argv[1], "rb").read(), object_hook=mn.decode, raw=False)
r["params"]["bf.proc.te2.weight"] = 0 * r["params"]["bf.proc.te2.weight"]
open(sys.argv[2], "wb").write(msgpack.packb(r, default=mn.encode))
PYEOF2
    twin_differs "$ROOT/tests/twin/sp_twin.py" "$b" "$T/te2.mp:none:$T/c0.mp" DIFFERS
}

# match_batch FILE [FF-TRACE OPTION...], vc_batch FILE: the twins' batches of
# matching (traced with the options: --bfs-layers, the layered trace) and
# vertex cover: graphs of several sizes and numbers of steps, one without edges.
match_batch() {
    local B="$ROOT/bin" f="$1"; shift
    {
        "$B/gen-graphs" --instance matching --family bipartite-sides --sides 4,3 --p 0.5 --count 3 --seed 5
        "$B/gen-graphs" --instance matching --family bipartite-sides --sides 2,4 --p 0.3 --count 3 --seed 6
        "$B/gen-graphs" --instance matching --family bipartite-sides --sides 2,2 --p 0 --count 1 --seed 7
    } | "$B/ff-trace" --algorithm matching "$@" > "$f"
}

vc_batch() {
    local B="$ROOT/bin"
    {
        "$B/gen-graphs" --instance vertex-cover --family barabasi-albert --nodes 7 --count 3 --seed 5 --optimum-nodes 100000
        "$B/gen-graphs" --instance vertex-cover --family star --nodes 5 --count 2 --seed 6
        "$B/gen-graphs" --instance vertex-cover --family erdos-renyi --nodes 4 --p 0 --count 1 --seed 7
    } | "$B/ff-trace" --algorithm vertex-cover > "$1"
}

# mcf_batch FILE [FF-TRACE OPTION...]: min-cost flow's (traced with the
# options: --sp-rounds, the rounds trace): undirected graphs and DAGs with
# negative costs, of different sizes and numbers of rounds.
mcf_batch() {
    local B="$ROOT/bin" f="$1"; shift
    {
        "$B/gen-graphs" --instance min-cost-flow --family erdos-renyi --nodes 6 --count 3 --seed 5
        "$B/gen-graphs" --instance min-cost-flow --family erdos-renyi --directed --nodes 7 --count 3 --seed 6
    } | "$B/ff-trace" --algorithm min-cost-flow "$@" > "$f"
}

# without_soft_hints IN OUT: model record IN read as a model without soft
# hints (the same parameters).
without_soft_hints() {
    "$PY" - "$1" "$2" <<'PYEOF'
import sys, msgpack, msgpack_numpy as mn
r = msgpack.unpackb(open(sys.argv[1], "rb").read(), object_hook=mn.decode, raw=False)
del r["soft_hints"]
open(sys.argv[2], "wb").write(msgpack.packb(r, default=mn.encode))
PYEOF
}

# soft_hints_fit BATCH: dar-fit trains other parameters with --soft-hints
# than without it.
soft_hints_fit() {
    local fit=("$ROOT/bin/dar-fit" --no-cache -n 3 -b 4 -H 8 --tf-decay 0 -j 1 -i "$1")
    "${fit[@]}" -o "$T/hard-fit.mp"
    "${fit[@]}" --soft-hints -o "$T/soft-fit.mp"
    "$PY" - "$T/hard-fit.mp" "$T/soft-fit.mp" <<'PYEOF'
import sys, msgpack, msgpack_numpy as mn, numpy as np
hard, soft = (msgpack.unpackb(open(f, "rb").read(), object_hook=mn.decode, raw=False) for f in sys.argv[1:])
assert soft["soft_hints"] and "soft_hints" not in hard
assert sorted(hard["params"]) == sorted(soft["params"])
assert any(not np.array_equal(hard["params"][k], soft["params"][k]) for k in hard["params"]), "the same parameters"
PYEOF
}

# soft_hints_twin ALGORITHM TWIN BATCH: models with --soft-hints against an
# entry twin (teacher none, all and mixed: soft hints only where the model's
# own are fed); the comparison sees the soft hints (the same parameters read
# as a model without them differ); and dar-fit trains other parameters with
# the flag than without it.
soft_hints_twin() {
    local alg="$1" twin="$2" batch="$3"
    twin_check "$twin" "$batch" "--algorithm $alg --soft-hints" "dual pgn max none" "dual pgn max $MIXED_TF" \
        "primal mpnn sum none" "dual mpnn mean 0101" "primal pgn max all"
    without_soft_hints "$T/m0.mp" "$T/hard.mp"
    twin_differs "$twin" "$batch" "$T/hard.mp:none:$T/c0.mp" DIFFERS
    soft_hints_fit "$batch"
}

# Matching (tests/twin/match_twin.py): the symmetric edge head (the matching
# so far as a hint, the maximum matching as an output), the edge-mask input,
# the node-mask heads (reached, the dual's cover hint and cover) and the
# pointer head, h carried through the searches; graphs of several sizes and
# numbers of searches in one batch, one without edges among them.
@test "twin, matching: primal, dual and no-algo, PGN and MPNN, max mean sum, teacher all/none/mixed: the same loss and every gradient" {
    match_batch "$T/mt.mp"
    py_stream "$T/mt.mp" 'assert min(int(r["m"]) for r in recs) == 0 and max(int(r["steps"]) for r in recs) >= 3'
    entry_twin matching "$ROOT/tests/twin/match_twin.py" "$T/mt.mp"
}

# The layered trace (ff-trace --bfs-layers): a frame per BFS layer and per
# augmentation, the phased model told each step's kind (a search's layer 0,
# an augmentation) as two node inputs; its soft hints as the one-frame
# model's.  The twin reads the kinds from hint_phase on its own.
@test "twin, matching on the layered trace: phased primal, dual and no-algo, PGN and MPNN, teacher all/none/mixed, with and without --soft-hints: the same loss and every gradient; altered phase flags differ" {
    match_batch "$T/ml.mp" --bfs-layers
    # several searches of several layers, augmentations among them, and the graph without edges
    py_stream "$T/ml.mp" 'assert min(int(r["m"]) for r in recs) == 0 and max(int(r["hint_phase"].sum()) for r in recs) >= 2
assert max(int(r["steps"]) - 2 * int(r["hint_phase"].sum()) for r in recs) >= 3'
    match_batch "$T/mt.mp"
    phased_twin matching "$ROOT/tests/twin/match_twin.py" "$T/ml.mp" "$T/mt.mp" \
        "a trace of one frame per search, but the model was trained on the layered trace"
}

@test "twin, vertex cover: primal, dual, no-algo and +opt, PGN and MPNN, max mean sum, teacher all/none/mixed: the same loss and every gradient" {
    vc_batch "$T/vc.mp"
    # a graph without edges (one frame, no step), the +opt target on some graphs only
    py_stream "$T/vc.mp" 'assert min(int(r["m"]) for r in recs) == 0 and max(int(r["steps"]) for r in recs) >= 3
assert 0 < sum("opt_cover" in r for r in recs) < len(recs)'
    entry_twin vertex-cover "$ROOT/tests/twin/vc_twin.py" "$T/vc.mp"
}

# Soft hints on matching and vertex cover (dar_spec_steps.c, for every
# entry its steps run): matching's pointer softmax fed back with its
# gradient, sigmoid of reached, the matching so far (an edge mask) and the
# dual's cover as constants; vertex cover's in-cover flags.
@test "twin, matching with --soft-hints: the same loss and every gradient; dar-fit's parameters differ from a run without it" {
    match_batch "$T/mt.mp"
    soft_hints_twin matching "$ROOT/tests/twin/match_twin.py" "$T/mt.mp"
}

@test "twin, vertex cover with --soft-hints: the same loss and every gradient; dar-fit's parameters differ from a run without it" {
    vc_batch "$T/vc.mp"
    soft_hints_twin vertex-cover "$ROOT/tests/twin/vc_twin.py" "$T/vc.mp"
}

# Min-cost flow (tests/twin/mcf_twin.py): max-flow's two networks a step
# (the search network, then the flow network with h_prev = stopgrad(the
# search's h)), the bounded antisymmetric flow heads fed back with their
# gradient, the node-scalar heads (distances, the dual's potentials), the
# mask and pointer heads; undirected graphs and DAGs with negative costs,
# of different sizes and numbers of rounds, in one batch.
@test "twin, min-cost flow: primal, dual and no-algo, PGN and MPNN, max mean sum, teacher all/none/mixed: the same loss and every gradient" {
    mcf_batch "$T/mcf.mp"
    py_stream "$T/mcf.mp" 'assert len({int(r["steps"]) for r in recs}) > 2 and any((r["cost"] < 0).any() for r in recs)'
    entry_twin min-cost-flow "$ROOT/tests/twin/mcf_twin.py" "$T/mcf.mp"
}

# Soft hints on min-cost flow (dar_soft.c from its search network): the
# pointer softmax fed to both networks of the next step, its gradient back
# into the search's pointer logits, sigmoid of reached as a constant.
@test "twin, min-cost flow with --soft-hints: the same loss and every gradient; dar-fit's parameters differ from a run without it" {
    mcf_batch "$T/mcf.mp"
    soft_hints_twin min-cost-flow "$ROOT/tests/twin/mcf_twin.py" "$T/mcf.mp"
}

# The rounds trace (ff-trace --sp-rounds): a frame per relaxation round of
# each search and per augmentation, the phased model told each step's kind
# (the frame reached a search's start, an augmentation) as two node inputs
# of both networks; its soft hints as the one-frame model's.  The twin reads
# the kinds from hint_phase on its own.
@test "twin, min-cost flow on the rounds trace: phased primal, dual and no-algo, PGN and MPNN, teacher all/none/mixed, with and without --soft-hints: the same loss and every gradient; zeroed phase flags differ" {
    mcf_batch "$T/mr.mp" --sp-rounds
    # several searches of several rounds each, and DAGs with negative costs
    py_stream "$T/mr.mp" 'assert min(int(r["hint_phase"].sum()) for r in recs) >= 2 and any((r["cost"] < 0).any() for r in recs)
assert len({int(r["steps"]) for r in recs}) > 2'
    mcf_batch "$T/mo.mp"
    phased_twin min-cost-flow "$ROOT/tests/twin/mcf_twin.py" "$T/mr.mp" "$T/mo.mp" \
        "a trace of one frame a round, but the model was trained on the rounds trace"
}

# Soft hints on max-flow (dar_soft.c from the network of the step's phase):
# the mask's sigmoid, the pointers' softmax after a Bellman-Ford step (its
# gradient into P_BF's pointer logits through both networks of the next
# step; after a flow step the identity), the dual's cut hint's softmax (the
# leaked dual's true cut where it is fed); the pipeline's cut stays its
# mincut network's argmax.
@test "twin, max-flow with --soft-hints: every variant, the leaked dual, teacher all/none/mixed; dar-fit's parameters differ from a run without it" {
    local b="$BATS_FILE_TMPDIR/edge.mp"
    check "$b" "dual pgn max none --soft-hints" "dual pgn max $MIXED_TF --soft-hints" "primal mpnn sum none --soft-hints" \
          "pipeline pgn mean 0101 --soft-hints" "primal pgn max all --soft-hints" \
          "dual mpnn max none --leak-cut --soft-hints" "dual pgn sum $MIXED_TF --leak-cut --soft-hints"
    without_soft_hints "$T/m0.mp" "$T/hard.mp"
    twin_differs "$TWIN" "$b" "$T/hard.mp:none:$T/c0.mp" BAD
    soft_hints_fit "$BATS_FILE_TMPDIR/b.mp"
}
