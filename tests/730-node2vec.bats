#!/usr/bin/env bats
# node2vec: Node2Vec embeddings of the vessels, the nodes of the line graph
# (formats/node2vec.md).  The walks and the skip-gram loss have unit tests
# (tests/unit/test_walk.c, test_sgns.c); these test the tool.

load test_helper

# A small, well-trained setting: 32 wide, 2 walks per node, lr 0.1 (the
# defaults' 13 steps an epoch barely move a 3k-node table from N(0, 1)).
FAST="--dim 32 --walks-per-node 2 --lr 0.1"

setup_file() {
    export DAR_CACHE="$BATS_FILE_TMPDIR/cache"
    "$DAR_BIN/gen-graphs" --family vessel --edges 3234 --seed 1 > "$BATS_FILE_TMPDIR/v.mp"
    "$DAR_BIN/node2vec" -q $FAST < "$BATS_FILE_TMPDIR/v.mp" > "$BATS_FILE_TMPDIR/out.mp"
}

V() { echo "$BATS_FILE_TMPDIR/v.mp"; }
OUT() { echo "$BATS_FILE_TMPDIR/out.mp"; }

@test "--help lists every option; bad option values are usage errors (64), one line" {
    run --separate-stderr node2vec --help
    assert_success
    for o in --key --dim --walk-length --context --walks-per-node --epochs --p --q --lr --negatives --seed --threads \
             --no-cache --progress; do
        assert_output --partial -- "$o"
    done
    for bad in "--context 41" "--walk-length 1" "--dim 0" "--p 0" "--q -1" "--key ''" "--walks-per-node 0" \
               "--negatives 0" "--epochs 0" "--lr 0" "--walks-per-node 100 --negatives 20 --walk-length 1000" "--dim x"; do
        run --separate-stderr bash -c "node2vec $bad < '$(V)' > '$T/x.mp'"
        [ "$status" -eq 64 ] || fail "'$bad' exited $status: $stderr"
        [[ "$stderr" == "node2vec: "* ]] || fail "'$bad': $stderr"
    done
    run --separate-stderr bash -c "node2vec --context 41 < '$(V)'"
    [[ "$stderr" == "node2vec: --context 41 is longer than --walk-length 40"* ]] || fail "$stderr"
}

@test "the embedding: f32[m, dim] under --key, last; every input key passes through unchanged" {
    py_stream "$(OUT)" "
r = recs[0]
assert len(recs) == 1 and list(r)[-1] == 'n2v', list(r)[-3:]
e = r['n2v']
assert e.dtype == np.float32 and e.shape == (r['m'], 32) and np.isfinite(e).all(), (e.dtype, e.shape)
import pickle; pickle.dump(r, open('$T/out.pkl', 'wb'))"
    py_stream "$(V)" "
import pickle
out = pickle.load(open('$T/out.pkl', 'rb'))
a = recs[0]
assert list(out)[:-1] == list(a)
for k, v in a.items():
    assert np.array_equal(v, out[k]) if isinstance(v, np.ndarray) else v == out[k], k"
    # a second embedding under another key sits beside the first; the same key is replaced
    node2vec -q $FAST --dim 8 --key n2v_small < "$(OUT)" > "$T/two.mp"
    node2vec -q $FAST --dim 8 < "$(OUT)" > "$T/replaced.mp"
    py_stream "$T/two.mp" "
r = recs[0]
assert list(r)[-2:] == ['n2v', 'n2v_small'] and r['n2v'].shape[1] == 32 and r['n2v_small'].shape == (r['m'], 8)"
    py_stream "$T/replaced.mp" "
r = recs[0]
assert list(r)[-1] == 'n2v' and r['n2v'].shape[1] == 8 and list(r).count('n2v') == 1"
}

@test "deterministic: the same bytes twice and at 1, 2 and 3 threads; the seed, p and q change it" {
    node2vec -q $FAST --no-cache --threads 1 < "$(V)" > "$T/a.mp"
    node2vec -q $FAST --no-cache --threads 2 < "$(V)" > "$T/b.mp"
    node2vec -q $FAST --no-cache --threads 3 < "$(V)" > "$T/c.mp"
    node2vec -q $FAST --no-cache --threads 2 < "$(V)" > "$T/b2.mp"
    cmp "$T/a.mp" "$(OUT)"
    cmp "$T/a.mp" "$T/b.mp"
    cmp "$T/a.mp" "$T/c.mp"
    cmp "$T/b.mp" "$T/b2.mp"
    node2vec -q $FAST --no-cache --seed 1 < "$(V)" > "$T/s.mp"
    ! cmp -s "$T/s.mp" "$T/a.mp"
    node2vec -q $FAST --no-cache --p 0.5 --q 2 --threads 1 < "$(V)" > "$T/pq1.mp"
    node2vec -q $FAST --no-cache --p 0.5 --q 2 --threads 2 < "$(V)" > "$T/pq2.mp"
    cmp "$T/pq1.mp" "$T/pq2.mp"
    ! cmp -s "$T/pq1.mp" "$T/a.mp"
}

@test "useful: adjacent vessels are closer than random pairs, with biased walks too" {
    node2vec -q $FAST --p 4 --q 0.5 < "$(V)" > "$T/pq.mp"
    for f in "$(OUT)" "$T/pq.mp"; do
        py_stream "$f" "
import collections
r = recs[0]
E = r['n2v'].astype(np.float64)
E /= np.linalg.norm(E, axis=1, keepdims=True)
at = collections.defaultdict(list)
for e, (u, v) in enumerate(zip(r['src'], r['dst'])):
    at[u].append(e); at[v].append(e)
pairs = np.array([(a, b) for l in at.values() for i, a in enumerate(l) for b in l[i + 1:]])
near = (E[pairs[:, 0]] * E[pairs[:, 1]]).sum(1)
far = np.random.default_rng(0).integers(0, r['m'], pairs.shape)
far = (E[far[:, 0]] * E[far[:, 1]]).sum(1)
print('cosine of adjacent vessels %.3f, of random pairs %.3f, adjacent above random %.3f' % (near.mean(), far.mean(), (near > far).mean()))
assert near.mean() > 0.3 and abs(far.mean()) < 0.05 and (near > far).mean() > 0.95"
    done
}

@test "useful: lc-train with the embedding beats lc-train without it" {
    [ -n "${DAR_ASAN:-}" ] && skip "20,000 edges: slow under ASan"
    gen-graphs --family vessel --edges 20000 --seed 1 > "$T/v20.mp"
    node2vec -q $FAST < "$T/v20.mp" > "$T/e20.mp"
    plain=$(lc-train -q < "$T/e20.mp" | metrics --quantity balanced_accuracy | mpcat | jq .value)
    with=$(lc-train -q --inputs length,distance,curveness,n2v < "$T/e20.mp" | metrics --quantity balanced_accuracy | mpcat | jq .value)
    echo "balanced accuracy: LC $plain, LC (N2V) $with"
    "$PY" -c "import sys; sys.exit(0 if $with > $plain + 0.08 else 1)" || fail "LC $plain, LC (N2V) $with"
}

@test "bad input: not a graph, missing src or dst, wrong dtype, an endpoint out of range, m = 0, no record: exit 65, one line, nothing cached" {
    py_stream "$(V)" "
r = recs[0]
def put(name, rec):
    open('$T/' + name, 'wb').write(msgpack.packb(rec, default=msgpack_numpy.encode))
put('model.mp', dict(r, kind='model'))
put('nosrc.mp', {k: v for k, v in r.items() if k != 'src'})
put('nodst.mp', {k: v for k, v in r.items() if k != 'dst'})
put('f32.mp', dict(r, src=r['src'].astype(np.float32)))
put('short.mp', dict(r, dst=r['dst'][:-1]))
d = r['dst'].copy(); d[7] = r['n']
put('range.mp', dict(r, dst=d))
put('empty.mp', dict(r, m=0, src=r['src'][:0], dst=r['dst'][:0]))
put('nom.mp', {k: v for k, v in r.items() if k != 'm'})
open('$T/array.mp', 'wb').write(msgpack.packb([1, 2, 3]))"
    printf 'not msgpack \xc1\xc1' > "$T/junk.mp"
    : > "$T/none.mp"
    for f in model nosrc nodst f32 short range empty nom array junk none; do
        run --separate-stderr bash -c "node2vec -v < '$T/$f.mp' > '$T/x.mp'"
        [ "$status" -eq 65 ] || fail "$f: status $status: $stderr"
        stderr=$(printf '%s\n' "$stderr" | grep -v '^node2vec: cache')
        assert_one_line_error node2vec
        echo "$f: $stderr"
    done
    run --separate-stderr bash -c "node2vec < '$T/nosrc.mp'"
    [ "$stderr" = "node2vec: record 0: missing key 'src'" ] || fail "$stderr"
    run --separate-stderr bash -c "node2vec < '$T/empty.mp'"
    [[ "$stderr" == "node2vec: record 0: 'm' is 0, expected at least 1 edge"* ]] || fail "$stderr"
    run --separate-stderr bash -c "node2vec < '$T/range.mp'"
    [[ "$stderr" == "node2vec: record 0: edge 7 "*"outside [0, "* ]] || fail "$stderr"
    run --separate-stderr bash -c "node2vec < '$T/model.mp'"
    [ "$stderr" = "node2vec: record 0: 'kind' is 'model', expected 'graph'" ] || fail "$stderr"
    # failures are never cached: the same failure again, and no entry on disk
    run --separate-stderr bash -c "node2vec -v < '$T/range.mp' > '$T/x.mp'"
    [ "$status" -eq 65 ]
    [[ "$stderr" == *miss* ]] || fail "$stderr"
    [ -z "$(find "$DAR_CACHE" -name '*.mp' -newer "$T/junk.mp" 2>/dev/null)" ] || fail "a failure left a cache entry"
}

@test "cached: a second run is a hit with the same bytes, whatever --threads; another option is a miss" {
    node2vec -q $FAST --threads 2 < "$(V)" > "$T/first.mp"
    run --separate-stderr bash -c "node2vec -v -q $FAST --threads 1 < '$(V)' > '$T/h.mp'"
    assert_success
    [[ "$stderr" == *hit* ]] || fail "expected a cache hit: $stderr"
    cmp "$T/h.mp" "$(OUT)"
    run --separate-stderr bash -c "node2vec -v -q $FAST --epochs 2 < '$(V)' > '$T/m.mp'"
    [[ "$stderr" == *miss* ]] || fail "expected a miss: $stderr"
}
