#!/usr/bin/env bats
# lc-train: the linear classifier of the brain-vessel study (formats/lc-train.md).

load test_helper

setup_file() {
    export DAR_CACHE="$BATS_FILE_TMPDIR/cache"
    "$DAR_BIN/gen-graphs" --family vessel --edges 20000 --seed 1 > "$BATS_FILE_TMPDIR/v.mp"
    "$DAR_BIN/lc-train" -q < "$BATS_FILE_TMPDIR/v.mp" > "$BATS_FILE_TMPDIR/out.mp"
}

V() { echo "$BATS_FILE_TMPDIR/v.mp"; }
OUT() { echo "$BATS_FILE_TMPDIR/out.mp"; }

@test "--help lists every option; bad --inputs lists are usage errors (64)" {
    run --separate-stderr lc-train --help
    assert_success
    for o in --inputs --split-seed --seed --lr --l2 --batch --epochs --patience --threads --no-cache; do
        assert_output --partial -- "$o"
    done
    for bad in "--inputs length,,distance" "--inputs length,length" "--inputs ''" "--epochs 0" "--lr -1"; do
        run --separate-stderr bash -c "lc-train $bad < '$(V)' > '$T/x.mp'"
        [ "$status" -eq 64 ] || fail "'$bad' exited $status: $stderr"
        [[ "$stderr" == "lc-train: "* ]] || fail "'$bad': $stderr"
    done
}

@test "split 16000/2000/2000 (int(0.8 m), int(0.9 m)), keys, dtypes and shapes of the predictions" {
    py_stream "$(OUT)" "
r = recs[0]
m = r['m']
assert len(recs) == 1 and m == 20000
keys = list(r)
assert keys[-4:] == ['split', 'pred_label', 'pred_proba', 'lc_model'], keys[-4:]
s, pl, pp = r['split'], r['pred_label'], r['pred_proba']
assert s.dtype == np.uint8 and s.shape == (m,)
assert pl.dtype == np.uint8 and pl.shape == (m,)
assert pp.dtype == np.float32 and pp.shape == (m, 3)
assert list(np.bincount(s, minlength=3)) == [16000, 2000, 2000], np.bincount(s)
assert np.allclose(pp.sum(1), 1, atol=1e-5) and (pp >= 0).all()
assert (pl == pp.argmax(1)).all()
mo = r['lc_model']
assert list(mo['inputs']) == ['length', 'distance', 'curveness'] and list(mo['input_dims']) == [1, 1, 1]
assert mo['weight'].shape == (3, 3) and mo['weight'].dtype == np.float32 and mo['bias'].shape == (3,)
assert list(mo['split_sizes']) == [16000, 2000, 2000] and mo['split_seed'] == 12 and mo['seed'] == 0
tr = s == 0
X = np.stack([r['length'], r['distance'], r['curveness']], 1).astype(np.float64)
assert np.allclose(mo['mean'], X[tr].mean(0), rtol=1e-9) and np.allclose(mo['std'], X[tr].std(0), rtol=1e-7)
cnt = np.bincount(r['label'][tr], minlength=3)
assert (mo['train_counts'] == cnt).all() and np.allclose(mo['class_weight'], tr.sum() / (3 * cnt))
assert 1 <= mo['best_epoch'] <= mo['epochs'] <= mo['max_epochs']
assert len(mo['curve']['loss']) == mo['epochs'] and abs(mo['curve']['val_balanced_accuracy'][mo['best_epoch'] - 1] - mo['val_balanced_accuracy']) < 1e-12
# the best epoch's weights give the stored predictions
Z = ((X - mo['mean']) / mo['std']).astype(np.float32) @ mo['weight'] + mo['bias']
agree = (Z.argmax(1) == pl).mean()
assert agree > 0.999, agree
print('ok', mo['epochs'], mo['best_epoch'], mo['val_balanced_accuracy'])
"
    # every input key passes through unchanged
    py_stream "$(V)" "
import pickle; pickle.dump(recs[0], open('$T/in.pkl', 'wb'))"
    py_stream "$(OUT)" "
import pickle
a = pickle.load(open('$T/in.pkl', 'rb')); r = recs[0]
for k, v in a.items():
    assert k in r and (np.array_equal(v, r[k]) if isinstance(v, np.ndarray) else v == r[k]), k"
}

@test "deterministic: same bytes across runs, thread counts and cache hits; the seed changes the trial" {
    lc-train -q --no-cache --threads 1 < "$(V)" > "$T/a.mp"
    lc-train -q --no-cache --threads 2 < "$(V)" > "$T/b.mp"
    lc-train -q --no-cache --threads 5 < "$(V)" > "$T/c.mp"
    cmp "$T/a.mp" "$(OUT)"
    cmp "$T/a.mp" "$T/b.mp"
    cmp "$T/a.mp" "$T/c.mp"
    lc-train -q < "$(V)" > "$T/d0.mp"
    run --separate-stderr bash -c "lc-train -v -q < '$(V)' > '$T/d.mp'"
    assert_success
    [[ "$stderr" == *hit* ]] || fail "expected a cache hit: $stderr"
    cmp "$T/d.mp" "$(OUT)"
    lc-train -q --no-cache --seed 1 < "$(V)" > "$T/e.mp"
    ! cmp -s "$T/e.mp" "$T/a.mp"
    # a trial changes the classifier, never the split
    py_stream "$T/e.mp" "
import msgpack, msgpack_numpy
b = next(iter(msgpack.Unpacker(open('$T/a.mp', 'rb'), object_hook=msgpack_numpy.decode, raw=False, max_buffer_size=0)))
assert (recs[0]['split'] == b['split']).all()
assert recs[0]['lc_model']['seed'] == 1"
}

@test "balanced accuracy within a few points of scikit-learn's LogisticRegression(class_weight='balanced')" {
    run "$PY" "$ROOT/tests/bench/lc-train.py" "$(OUT)"
    assert_success
    echo "$output"
    read -r _ _ _ sk _ ours _ <<< "$output"
    "$PY" -c "import sys; sk, ours = $sk, $ours; sys.exit(0 if abs(sk - ours) < 0.05 and ours > 0.38 else 1)" \
        || fail "sklearn $sk vs lc-train $ours"
    # and metrics scores the test edges of the split
    metrics --quantity balanced_accuracy,roc_hard < "$(OUT)" | mpcat > "$T/m.jsonl"
    run jq -r '"\(.name) \(.count) \(.split)"' "$T/m.jsonl"
    assert_output "balanced_accuracy 2000 test
roc_hard 2000 test"
    bacc=$(jq -r 'select(.name=="balanced_accuracy") | .value' "$T/m.jsonl")
    "$PY" -c "import sys; sys.exit(0 if abs($bacc - $ours) < 1e-4 else 1)" || fail "metrics $bacc vs $ours"
}

@test "a 2-D input (an f32[m,d] embedding) is concatenated after the columns" {
    py_stream "$(V)" "
r = recs[0]
rng = np.random.default_rng(0)
r['edge_embed'] = np.concatenate([r['minRadiusAvg'][:, None] + rng.normal(0, 2, (r['m'], 1)),
                                  rng.normal(0, 1, (r['m'], 3))], 1).astype(np.float32)
open('$T/e.mp', 'wb').write(msgpack.packb(r, default=msgpack_numpy.encode))"
    lc-train -q --inputs length,distance,curveness,edge_embed < "$T/e.mp" > "$T/eo.mp"
    # --drop leaves keys out of the output, nothing else changes
    lc-train -q --inputs length,distance,curveness,edge_embed --drop edge_embed,pos,nokey < "$T/e.mp" > "$T/ed.mp"
    py_stream "$T/ed.mp" "
import msgpack, msgpack_numpy
full = next(iter(msgpack.Unpacker(open('$T/eo.mp', 'rb'), object_hook=msgpack_numpy.decode, raw=False, max_buffer_size=0)))
r = recs[0]
assert list(r) == [k for k in full if k not in ('edge_embed', 'pos')], list(r)
assert (r['pred_proba'] == full['pred_proba']).all() and r['lc_model']['val_balanced_accuracy'] == full['lc_model']['val_balanced_accuracy']"
    py_stream "$T/eo.mp" "
mo = recs[0]['lc_model']
assert list(mo['input_dims']) == [1, 1, 1, 4] and mo['weight'].shape == (7, 3) and mo['mean'].shape == (7,)
print(mo['val_balanced_accuracy'])
# a noisy radius is informative: better than the three features alone
assert mo['val_balanced_accuracy'] > 0.6, mo['val_balanced_accuracy']"
}

@test "bad input: unknown key, missing label, wrong dtype, NaN, bad label, wrong kind, empty input: exit 65, one line, nothing cached" {
    run --separate-stderr bash -c "lc-train --inputs length,nope < '$(V)' > '$T/x.mp'"
    [ "$status" -eq 65 ] || fail "status $status"
    assert_one_line_error lc-train
    [[ "$stderr" == *"'nope'"* ]] || fail "$stderr"
    py_stream "$(V)" "
r = recs[0]
def put(name, rec):
    open('$T/' + name, 'wb').write(msgpack.packb(rec, default=msgpack_numpy.encode))
put('nolabel.mp', {k: v for k, v in r.items() if k != 'label'})
put('f64.mp', dict(r, length=r['length'].astype(np.float64)))
l = r['length'].copy(); l[123] = np.nan
put('nan.mp', dict(r, length=l))
y = r['label'].copy(); y[5] = 3
put('label3.mp', dict(r, label=y))
put('short.mp', dict(r, distance=r['distance'][:-1]))
put('model.mp', dict(r, kind='model'))"
    for f in nolabel f64 nan label3 short model; do
        run --separate-stderr bash -c "lc-train < '$T/$f.mp' > '$T/x.mp'"
        [ "$status" -eq 65 ] || fail "$f: status $status: $stderr"
        assert_one_line_error lc-train
        echo "$f: $stderr"
    done
    run --separate-stderr bash -c "lc-train < '$T/nolabel.mp'"
    [[ "$stderr" == *"'label'"* ]] || fail "$stderr"
    run --separate-stderr bash -c "lc-train < '$T/nan.mp'"
    [[ "$stderr" == *"'length' entry 123 is nan"* ]] || fail "$stderr"
    run --separate-stderr bash -c "lc-train < '$T/model.mp'"
    [[ "$stderr" == *"record 0: 'kind' is 'model', expected 'graph'"* ]] || fail "$stderr"
    run --separate-stderr bash -c "lc-train < /dev/null > '$T/x.mp'"
    [ "$status" -eq 65 ]
    # failures are never cached: a second run fails the same way
    run --separate-stderr bash -c "lc-train < '$T/nan.mp' > '$T/x.mp'"
    [ "$status" -eq 65 ]
}
