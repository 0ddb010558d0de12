#!/usr/bin/env bats
# gnn-train: GCN, GraphSAGE and C-SAGE on the vessel line graph
# (formats/gnn-train.md; issue 15).  The model against its PyTorch twin, the
# line graph against networkx, learning a task only neighbours can solve,
# determinism and caching, bad input.
load test_helper

setup_file() {
    export DAR_CACHE="$BATS_FILE_TMPDIR/cache"
    "$DAR_BIN/gen-graphs" --family vessel --edges 400 --seed 1 > "$BATS_FILE_TMPDIR/v400.mp"
    "$DAR_BIN/gen-graphs" --family vessel --edges 3000 --seed 2 > "$BATS_FILE_TMPDIR/v.mp"
}

V() { echo "$BATS_FILE_TMPDIR/v.mp"; }
SMALL="--layers 2 --hidden 8 --epochs 30"

@test "--help names every option; an unknown model or bad numbers are usage errors (64)" {
    run --separate-stderr gnn-train --help
    assert_success
    for o in --model --layers --hidden --dropout --lr --epochs --patience --eval-every --parts --batch-clusters \
             --inputs --embed --drop --split-seed --seed --log --threads --no-cache; do
        assert_output --partial -- "$o"
    done
    for bad in "--model gat" "--layers 0x" "--dropout 1" "--epochs 0" "--inputs ''" "--quiet --progress"; do
        run --separate-stderr bash -c "gnn-train $bad < '$(V)' > '$T/x.mp'"
        [ "$status" -eq 64 ] || fail "'$bad' exited $status: $stderr"
        [[ "$stderr" == "gnn-train: "* ]] || fail "'$bad': $stderr"
    done
}

@test "the line graph is networkx's line_graph of the record's edges (node i = edge i)" {
    "$DAR_TOOLS/gnn_dump" --conv sage --layers 1 --hidden 2 < "$BATS_FILE_TMPDIR/v400.mp" > "$T/d.mp"
    "$PY" - "$BATS_FILE_TMPDIR/v400.mp" "$T/d.mp" <<'PY'
import sys, msgpack, msgpack_numpy, numpy as np, networkx as nx
load = lambda p: next(iter(msgpack.Unpacker(open(p, 'rb'), object_hook=msgpack_numpy.decode, raw=False)))
g, d = load(sys.argv[1]), load(sys.argv[2])
edges = list(zip(g['src'].tolist(), g['dst'].tolist()))
index = {e: i for i, e in enumerate(edges)}
G = nx.Graph(); G.add_nodes_from(range(g['n'])); G.add_edges_from(edges)
L = nx.line_graph(G)
off, nb = d['offsets'], d['neighbors']
ours = {(i, int(j)) for i in range(len(edges)) for j in nb[off[i]:off[i + 1]]}
theirs = set()
for a, b in L.edges():
    i, j = index[tuple(sorted(a))], index[tuple(sorted(b))]
    theirs |= {(i, j), (j, i)}
assert ours == theirs, (len(ours), len(theirs))
assert all((np.diff(nb[off[i]:off[i + 1]]) > 0).all() for i in range(len(edges)))
print('line graph ok:', len(edges), 'nodes', len(ours) // 2, 'edges')
PY
}

@test "PyTorch twin (float64, sparse products): same loss (1e-5) and gradients (1e-4) for GCN and SAGE, with and without embeddings and dropout" {
    "$PY" -c "import torch" || fail "/usr/bin/python3 cannot import torch (python3-torch; make test installs it: DEB_TEST_PACKAGES)"
    for conv in sage gcn; do
        for embed in "0 --dropout 0" "6 --dropout 0" "6 --dropout 0.4"; do
            "$DAR_TOOLS/gnn_dump" --conv "$conv" --layers 3 --hidden 12 --embed $embed --seed 4 -j 2 \
                < "$BATS_FILE_TMPDIR/v400.mp" > "$T/d.mp"
            run "$PY" "$ROOT/tests/twin/gnn_twin.py" "$T/d.mp"
            echo "$output"
            assert_success
            assert_output --partial "match"
        done
    done
}

@test "labels that depend on the neighbours' features: SAGE, GCN and C-SAGE beat LC by a wide margin; LC on the deciding feature is near 100%" {
    "$PY" "$ROOT/tests/tools/neighbour_task.py" 3000 4500 1 > "$T/task.mp"
    bacc() { metrics --quantity balanced_accuracy | mpcat | jq -r .value; }
    common="-q --layers 2 --hidden 16 --epochs 200 --lr 0.01 --dropout 0"
    sage=$(gnn-train $common --model sage < "$T/task.mp" | bacc)
    gcn=$(gnn-train $common --model gcn < "$T/task.mp" | bacc)
    csage=$(gnn-train $common --model c-sage --parts 4 --batch-clusters 2 < "$T/task.mp" | bacc)
    lc=$(lc-train -q < "$T/task.mp" | bacc)
    direct=$(lc-train -q --inputs neighbour_mean < "$T/task.mp" | bacc)
    echo "SAGE $sage GCN $gcn C-SAGE $csage LC $lc LC(neighbour_mean) $direct"
    "$PY" -c "
sage, gcn, csage, lc, direct = $sage, $gcn, $csage, $lc, $direct
assert lc < 0.45, lc                       # chance is 1/3: its inputs carry nothing of the label
assert direct > 0.95, direct
assert sage > 0.9 and sage - lc > 0.45, sage
assert csage > 0.8 and csage - lc > 0.35, csage
assert gcn - lc > 0.2, gcn                 # GCN's Â mixes in the vessel's own (uninformative) feature
"
}

@test "keys, split, predictions of the best evaluation, the model record and the log" {
    gnn-train -q $SMALL --model c-sage --parts 4 --batch-clusters 2 --embed maxRadiusAvg,avgRadiusStd \
        --log "$T/log.tsv" < "$(V)" > "$T/out.mp"
    head -1 "$T/log.tsv" | grep -q "^record	epoch	loss	val_balanced_accuracy	val_accuracy	val_f1_weighted	val_roc_hard	val_roc_hard_weighted$"
    # c-sage evaluates every 5 epochs after epoch 9: 10, 15, ..., 30
    [ "$(cut -f2 "$T/log.tsv" | tail -n +2 | tr '\n' ' ')" = "10 15 20 25 30 " ]
    py_stream "$T/out.mp" "
r = recs[0]; m = r['m']
assert list(r)[-4:] == ['split', 'pred_label', 'pred_proba', 'gnn_model']
assert list(np.bincount(r['split'], minlength=3)) == [2400, 300, 300]
assert r['pred_proba'].shape == (m, 3) and np.allclose(r['pred_proba'].sum(1), 1, atol=1e-5)
assert (r['pred_label'] == r['pred_proba'].argmax(1)).all()
mo = r['gnn_model']
assert mo['model'] == 'c-sage' and mo['layers'] == 2 and mo['hidden'] == 8 and mo['parts'] == 4
assert list(mo['embed']) == ['maxRadiusAvg', 'avgRadiusStd'] and mo['embed_dim'] == 2
assert mo['params']['head.weight_e'].shape == (3, 2) and mo['params']['head.weight_h'].shape == (3, 8)
assert mo['params']['conv1.lin_l.weight'].shape == (8, 3)
c = mo['curve']
i = int(np.argmax(c['val_balanced_accuracy']))
assert c['epoch'][i] == mo['best_epoch']
# the validation balanced accuracy of the stored predictions is the best one of the curve
from sklearn.metrics import balanced_accuracy_score
v = r['split'] == 1
assert abs(balanced_accuracy_score(r['label'][v], r['pred_label'][v]) - c['val_balanced_accuracy'][i]) < 1e-9
w = m / np.bincount(r['label'], minlength=3)
assert np.allclose(mo['class_weight'], w)
print('ok best epoch', mo['best_epoch'], 'edge cut', mo['edge_cut'])
"
}

@test "deterministic: same bytes across runs, thread counts and cache hits (log included); seeds change the trial" {
    for model in sage gcn c-sage; do
        gnn-train -q $SMALL --model $model --parts 3 --batch-clusters 2 --no-cache -j 1 < "$(V)" > "$T/a.mp"
        gnn-train -q $SMALL --model $model --parts 3 --batch-clusters 2 --no-cache -j 2 < "$(V)" > "$T/b.mp"
        cmp "$T/a.mp" "$T/b.mp"
    done
    gnn-train -q $SMALL --log "$T/l1.tsv" < "$(V)" > "$T/c.mp"
    run --separate-stderr bash -c "gnn-train -q -v $SMALL --log '$T/l2.tsv' < '$(V)' > '$T/d.mp'"
    [[ "$stderr" == *hit* ]] || fail "expected a cache hit: $stderr"
    cmp "$T/c.mp" "$T/d.mp"
    cmp "$T/l1.tsv" "$T/l2.tsv"
    gnn-train -q $SMALL --seed 1 < "$(V)" > "$T/e.mp"
    ! cmp -s "$T/c.mp" "$T/e.mp"
}

@test "bad input: unknown input key, missing labels, embedding of the wrong length, empty graph, METIS failing: exit 65, one line, nothing cached" {
    export DAR_CACHE="$T/cache"
    run --separate-stderr bash -c "gnn-train --inputs length,nope < '$(V)' > '$T/x.mp'"
    [ "$status" -eq 65 ] || fail "status $status"
    assert_one_line_error gnn-train
    [[ "$stderr" == *"'nope'"* ]] || fail "$stderr"
    py_stream "$(V)" "
r = recs[0]
def put(name, rec):
    open('$T/' + name, 'wb').write(msgpack.packb(rec, default=msgpack_numpy.encode))
put('nolabel.mp', {k: v for k, v in r.items() if k != 'label'})
put('shortemb.mp', dict(r, n2v=np.zeros((r['m'] - 1, 4), np.float32)))
put('empty.mp', dict(r, m=0, src=r['src'][:0], dst=r['dst'][:0]))
put('label3.mp', dict(r, label=np.full(r['m'], 3, np.uint8)))"
    for case in "nolabel:" "shortemb:--embed n2v" "empty:" "label3:"; do
        f=${case%%:*}; args=${case#*:}
        run --separate-stderr bash -c "gnn-train $SMALL $args < '$T/$f.mp' > '$T/x.mp'"
        [ "$status" -eq 65 ] || fail "$f: status $status: $stderr"
        assert_one_line_error gnn-train
        echo "$f: $stderr"
    done
    run --separate-stderr bash -c "gnn-train --embed n2v < '$T/shortemb.mp' > /dev/null"
    [[ "$stderr" == *"'n2v' has 2999 entries, expected 3000"* ]] || fail "$stderr"
    run --separate-stderr bash -c "gnn-train < '$T/nolabel.mp' > /dev/null"
    [[ "$stderr" == *"'label'"* ]] || fail "$stderr"
    run --separate-stderr bash -c "gnn-train < /dev/null > '$T/x.mp'"
    [ "$status" -eq 65 ]
    # METIS failing (a stand-in libmetis that returns METIS_ERROR_INPUT, preloaded)
    printf 'int METIS_PartGraphKway(void){return -2;}\n' > "$T/metis_fail.c"
    cc -shared -fPIC -o "$T/metis_fail.so" "$T/metis_fail.c"
    run --separate-stderr env LD_PRELOAD="$T/metis_fail.so" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
        bash -c "gnn-train $SMALL --model c-sage < '$(V)' > '$T/x.mp'"
    [ "$status" -eq 65 ] || fail "status $status: $stderr"
    assert_one_line_error gnn-train
    [[ "$stderr" == *"METIS_PartGraphKway failed (METIS_ERROR_INPUT)"* ]] || fail "$stderr"
    # failures are never cached
    [ -z "$(find "$T/cache" -name '*.mp' 2>/dev/null)" ] || fail "a failure left a cache entry"
}
