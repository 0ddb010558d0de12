#!/usr/bin/env bats
# gen-graphs --family vessel (the synthetic brain-vessel graph) and
# --from-vesselgraph (the benchmark's processed CSV pair): formats/vessel.md.

load test_helper

# Statistics of one vessel record, checked in Python (numpy, scipy).
vessel_stats() {
    py_stream "$1" "
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path, connected_components
r = recs[0]
assert len(recs) == 1
attrs = ['length','distance','curveness','volume','avgCrossSection','minRadiusAvg','minRadiusStd',
         'avgRadiusAvg','avgRadiusStd','maxRadiusAvg','maxRadiusStd','roundnessAvg','roundnessStd']
assert list(r) == ['kind','id','family','n','m','directed','s','t','src','dst','cap','w','cap_scale','pos'] + attrs + ['label'], list(r)
n, m = r['n'], r['m']
assert r['kind'] == 'graph' and r['family'] == 'vessel' and r['id'] == 0 and r['directed'] is False and r['cap_scale'] == 0
assert m == $2, m
src, dst = r['src'], r['dst']
assert src.dtype == np.int32 and dst.dtype == np.int32 and r['label'].dtype == np.uint8 and r['pos'].shape == (n, 3)
for k in attrs + ['cap', 'w', 'pos']:
    assert r[k].dtype == np.float32 and np.isfinite(r[k]).all(), k
    assert r[k].shape[0] == (n if k == 'pos' else m), k
# sorted, src < dst, no pair twice
key = src.astype(np.int64) * n + dst
assert (src < dst).all() and (np.diff(key) > 0).all()
deg = np.bincount(np.concatenate([src, dst]), minlength=n)
assert (deg != 2).all(), 'degree-2 nodes: %d' % (deg == 2).sum()
assert (deg > 0).all()
md = 2 * m / n
assert 2.8 <= md <= 3.3, md
share = 100 * np.bincount(r['label'], minlength=3) / m
assert abs(share[0] - 95) <= 1.5 and abs(share[1] - 4) <= 1.5 and abs(share[2] - 1) <= 1.5, share
mr = r['minRadiusAvg'].astype(np.float64)
assert (r['label'] == np.where(mr <= 5, 0, np.where(mr <= 13.33, 1, 2))).all()
pos = r['pos'].astype(np.float64)
d = np.sqrt(((pos[src] - pos[dst]) ** 2).sum(1)).astype(np.float32)
assert (r['distance'] == d).all(), 'distance not exact'
l, dd = r['length'], r['distance']
assert (l >= dd).all() and (dd > 0).all()
assert np.allclose(r['curveness'], l / dd, rtol=2.5e-7, atol=0), 'curveness != length/distance'
cap = r['cap']
assert cap.min() >= 0 and cap.max() == 1 and r['w'].min() >= 0 and r['w'].max() <= 1
# mean edge distance near the real brains' 11.45 voxels, curveness near 1.09
assert 9 < dd.mean() < 14 and 1.04 < r['curveness'].mean() < 1.15, (dd.mean(), r['curveness'].mean())
# s, t: the ends of a double sweep, in the largest component, as far apart as
# the farthest node from any of a few random nodes of that component
s, t = r['s'], r['t']
assert s != t
A = sp.coo_matrix((np.ones(m), (src, dst)), shape=(n, n)).tocsr()
nc, comp = connected_components(A, directed=False)
big = np.argmax(np.bincount(comp))
assert comp[s] == big and comp[t] == big
rng = np.random.default_rng(0)
probe = rng.choice(np.flatnonzero(comp == big), 4, replace=False)
D = shortest_path(A, directed=False, unweighted=True, indices=np.concatenate([[s], probe]))
dst_st = D[0, t]
ecc = D[1:, comp == big].max(1)
assert dst_st == D[0, comp == big].max() and dst_st >= ecc.max(), (dst_st, ecc)
print('n %d m %d mean degree %.3f shares %.2f/%.2f/%.2f d(s,t) %d probe ecc %s' % (n, m, md, *share, dst_st, ecc))
"
}

@test "--help lists --edges and --from-vesselgraph; bad vessel options are usage errors" {
    run --separate-stderr gen-graphs --help
    assert_success
    assert_output --partial "--edges"
    assert_output --partial "--from-vesselgraph"
    assert_output --partial "erdos-renyi|vessel"
    for args in "--family vessel" "--family vessel --edges 99" "--family vessel --edges 3234 --count 2" \
                "--edges 500" "--family vessel --edges 200000000"; do
        run --separate-stderr gen-graphs $args -o "$T/x.mp"
        [ "$status" -eq 64 ] || fail "'$args' exited $status: $stderr"
        [[ "$stderr" == "gen-graphs: "* ]] || fail "'$args': $stderr"
    done
}

@test "the small vessel graph (--edges 3234): keys, exact size, statistics, no degree-2 nodes, exact distance" {
    gen-graphs --family vessel --edges 3234 --seed 1 > "$T/v.mp"
    run vessel_stats "$T/v.mp" 3234
    assert_success
    echo "$output" >&3
}

@test "a 200,000-edge vessel graph: class shares 95/4/1, degree, geometry, s and t far apart" {
    gen-graphs --family vessel --edges 200000 --seed 2 > "$T/v.mp"
    run vessel_stats "$T/v.mp" 200000
    assert_success
    echo "$output" >&3
}

@test "exactly E edges for odd sizes; same seed same bytes, another seed differs" {
    for e in 100 101 777 12345 54321; do
        gen-graphs --family vessel --edges $e --seed 9 > "$T/a.mp"
        run mpcat --summary < "$T/a.mp"
        assert_output --partial "\"m\":$e,"
    done
    gen-graphs --family vessel --edges 30000 --seed 4 > "$T/a.mp"
    gen-graphs --family vessel --edges 30000 --seed 4 > "$T/b.mp"
    cmp "$T/a.mp" "$T/b.mp"
    gen-graphs --family vessel --edges 30000 --seed 5 > "$T/c.mp"
    ! cmp -s "$T/a.mp" "$T/c.mp"
}

@test "a vessel record is a valid graph record: ff-trace solves it and keeps the vessel keys" {
    gen-graphs --family vessel --edges 3234 --seed 3 | ff-trace --no-hints > "$T/t.mp"
    py_stream "$T/t.mp" "
r = recs[0]
assert 'minRadiusAvg' in r and 'label' in r and 'pos' in r and r['maxflow'] > 0, list(r)
assert r['flow'].shape == (3234,)
"
}

@test "large vessel outputs are cached" {
    run --separate-stderr gen-graphs --family vessel --edges 200000 --seed 1 -v -o "$T/a.mp"
    assert_success
    [[ "$stderr" == *miss* ]] || fail "$stderr"
    run --separate-stderr gen-graphs --family vessel --edges 200000 --seed 1 -v -o "$T/b.mp"
    [[ "$stderr" == *hit* ]] || fail "$stderr"
    cmp "$T/a.mp" "$T/b.mp"
}

@test "round trip: generated record -> benchmark CSV pair -> --from-vesselgraph is the same bytes" {
    gen-graphs --family vessel --edges 3234 --seed 11 > "$T/g.mp"
    "$PY" "$ROOT/examples/vessel-csv.py" "$T/g.mp" "$T/csv" synthetic_graph_1_b_3_0
    assert_file_exist "$T/csv/synthetic_graph_1_b_3_0_nodes_processed.csv"
    head -1 "$T/csv/synthetic_graph_1_b_3_0_edges_processed.csv" | grep -q \
        '^id;node1id;node2id;length;distance;curveness;volume;avgCrossSection;minRadiusAvg;minRadiusStd;avgRadiusAvg;avgRadiusStd;maxRadiusAvg;maxRadiusStd;roundnessAvg;roundnessStd;node1_degree;node2_degree;num_voxels;hasNodeAtSampleBorder$'
    head -1 "$T/csv/synthetic_graph_1_b_3_0_nodes_processed.csv" | grep -q '^id;pos_x;pos_y;pos_z;degree;isAtSampleBorder$'
    gen-graphs --from-vesselgraph "$T/csv" --seed 11 > "$T/r.mp"
    cmp "$T/g.mp" "$T/r.mp"
    # the example script does the same and says so
    run bash "$ROOT/examples/vessel-csv.sh" 5000 3 "$T/ex"
    assert_success
    assert_output --partial "read back to the same record"
    # w depends on --seed, the rest on the files only
    gen-graphs --from-vesselgraph "$T/csv" --seed 12 > "$T/r12.mp"
    ! cmp -s "$T/g.mp" "$T/r12.mp"
    py_stream "$T/r12.mp" "
import msgpack_numpy
g = list(msgpack.Unpacker(open('$T/g.mp', 'rb'), object_hook=msgpack_numpy.decode, raw=False))[0]
r = recs[0]
for k in r:
    if k != 'w':
        assert np.array_equal(np.asarray(r[k]), np.asarray(g[k])), k
"
}

@test "--from-vesselgraph: CSV columns found by name, rows in any order, unknown columns ignored" {
    mkdir -p "$T/d"
    printf 'pos_z;id;pos_y;extra;pos_x\n0;1;0;x;1\n0;0;0;y;0\n0;2;1;z;1\n0;3;0;w;2\n' > "$T/d/a_nodes_processed.csv"
    cols="length;distance;curveness;volume;avgCrossSection;minRadiusAvg;minRadiusStd;avgRadiusAvg;avgRadiusStd;maxRadiusAvg;maxRadiusStd;roundnessAvg;roundnessStd"
    { echo "node2id;node1id;$cols"
      echo "1;0;1;1;1;1;1;2;0;3;0;4;0;0.5;0.1"
      echo "1;3;1;1;1;1;1;6;0;8;0;9;0;0.5;0.1"
      echo "2;1;1;1;1;1;1;14;0;16;0;18;0;0.5;0.1"; } > "$T/d/a_edges_processed.csv"
    gen-graphs --from-vesselgraph "$T/d" > "$T/r.mp"
    py_stream "$T/r.mp" "
r = recs[0]
assert r['n'] == 4 and r['m'] == 3
assert r['src'].tolist() == [0, 1, 1] and r['dst'].tolist() == [1, 2, 3], (r['src'], r['dst'])
assert r['label'].tolist() == [0, 2, 1]
assert r['pos'][2].tolist() == [1, 1, 0] and r['pos'][3].tolist() == [2, 0, 0]
assert {r['s'], r['t']} <= {0, 2, 3} and r['s'] != r['t']
"
}

@test "--from-vesselgraph: malformed rows exit 65 naming FILE:LINE, missing files 66" {
    mkdir -p "$T/ok"
    printf 'id;pos_x;pos_y;pos_z\n0;0;0;0\n1;1;0;0\n2;2;0;0\n' > "$T/ok/g_nodes_processed.csv"
    hdr="id;node1id;node2id;length;distance;curveness;volume;avgCrossSection;minRadiusAvg;minRadiusStd;avgRadiusAvg;avgRadiusStd;maxRadiusAvg;maxRadiusStd;roundnessAvg;roundnessStd"
    good="0;0;1;1;1;1;1;1;2;0;3;0;4;0;0.5;0.1"
    check_bad() {   # file-suffix, bad row, expected message part
        rm -rf "$T/bad"; cp -r "$T/ok" "$T/bad"
        printf '%s\n%s\n%s\n' "$hdr" "$good" "$2" > "$T/bad/g_edges_processed.csv"
        if [ "$1" = nodes ]; then printf 'id;pos_x;pos_y;pos_z\n0;0;0;0\n%s\n' "$2" > "$T/bad/g_nodes_processed.csv"; fi
        run --separate-stderr gen-graphs --from-vesselgraph "$T/bad" -o "$T/x.mp"
        [ "$status" -eq 65 ] || fail "'$2' exited $status: $stderr"
        assert_one_line_error gen-graphs
        [[ "$stderr" == "gen-graphs: $T/bad/g_$1_processed.csv:3: "*"$3"* ]] || fail "'$2': $stderr"
    }
    printf '%s\n%s\n' "$hdr" "$good" > "$T/ok/g_edges_processed.csv"
    gen-graphs --from-vesselgraph "$T/ok" > "$T/ok.mp"
    check_bad edges "1;1;2;1;1;1;1;1;2;0;3;0;4;0;0.5" "15 fields, expected 16"
    check_bad edges "1;1;2;1;abc;1;1;1;2;0;3;0;4;0;0.5;0.1" "'distance' is 'abc', not a number"
    check_bad edges "1;1;2;1;nan;1;1;1;2;0;3;0;4;0;0.5;0.1" "not a finite number"
    check_bad edges "1;1;7;1;1;1;1;1;2;0;3;0;4;0;0.5;0.1" "'node2id' is 7, outside 0..2"
    check_bad edges "1;1.5;2;1;1;1;1;1;2;0;3;0;4;0;0.5;0.1" "'node1id' is '1.5', expected a node id"
    check_bad edges "1;2;2;1;1;1;1;1;2;0;3;0;4;0;0.5;0.1" "edge joins node 2 to itself"
    check_bad edges "1;1;0;1;1;1;1;1;2;0;3;0;4;0;0.5;0.1" "nodes 0 and 1 are already joined on line 2"
    check_bad nodes "0;1;0;0" "node id 0 appears twice"
    check_bad nodes "5;1;0;0" "'id' is 5, outside 0..1"
    check_bad nodes "1;1;0" "3 fields, expected 4"
    # a missing column is named, on the header line
    rm -rf "$T/bad"; cp -r "$T/ok" "$T/bad"
    printf 'id;pos_x;pos_y\n0;0;0\n1;1;1\n' > "$T/bad/g_nodes_processed.csv"
    run --separate-stderr gen-graphs --from-vesselgraph "$T/bad" -o "$T/x.mp"
    [ "$status" -eq 65 ] && [[ "$stderr" == "gen-graphs: $T/bad/g_nodes_processed.csv:1: no 'pos_z' column"* ]] || fail "$stderr"
    # missing directory, missing file
    run --separate-stderr gen-graphs --from-vesselgraph "$T/nowhere" -o "$T/x.mp"
    [ "$status" -eq 66 ] || fail "$status: $stderr"
    assert_one_line_error gen-graphs
    rm "$T/bad/g_edges_processed.csv"
    run --separate-stderr gen-graphs --from-vesselgraph "$T/bad" -o "$T/x.mp"
    [ "$status" -eq 66 ] || fail "$status: $stderr"
    [[ "$stderr" == *"no '*_edges_processed.csv' file"* ]] || fail "$stderr"
    assert_file_not_exist "$T/x.mp"
}

@test "per-edge features are weakly informative: LR on (l, d, rho) far below neighbourhood models" {
    gen-graphs --family vessel --edges 200000 --seed 1 > "$T/v.mp"
    run py_stream "$T/v.mp" "
import warnings, scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler
from sklearn.metrics import balanced_accuracy_score
warnings.filterwarnings('ignore')
r = recs[0]; n, m = r['n'], r['m']; y = r['label']
src = r['src'].astype(np.int64); dst = r['dst'].astype(np.int64); e = np.arange(m)
# the line graph (vessels adjacent when they share a node), row-normalised
B = sp.csr_matrix((np.ones(2 * m), (np.concatenate([src, dst]), np.concatenate([e, e]))), shape=(n, m))
A = (B.T @ B).tocsr(); A.setdiag(0); A.eliminate_zeros(); A.data[:] = 1
P = sp.diags(1 / np.maximum(np.asarray(A.sum(1)).ravel(), 1)) @ A
X = np.stack([np.log(r['length']), np.log(r['distance']), np.log(r['curveness'] - 0.999)], 1)
H1 = P @ X; H2 = P @ H1; H3 = P @ H2
deg = np.bincount(np.concatenate([src, dst]), minlength=n)
perm = np.random.default_rng(12).permutation(m); tr, te = perm[:int(.8 * m)], perm[int(.8 * m):]
def bacc(F):
    F = StandardScaler().fit_transform(F)
    c = LogisticRegression(class_weight='balanced', max_iter=200).fit(F[tr], y[tr])
    return balanced_accuracy_score(y[te], c.predict(F[te]))
Y = np.zeros((m, 3)); Y[tr, y[tr]] = 1
known = np.zeros(m); known[tr] = 1
frac = (A @ Y) / np.maximum(A @ known, 1)[:, None]
lc = bacc(X)
nb = bacc(np.hstack([X, H1, H2, H3, (deg[src] + deg[dst])[:, None]]))
lab = bacc(np.hstack([X, frac]))
print('balanced accuracy: LR(l,d,rho) %.3f, + 3-hop feature means %.3f, + neighbours train labels %.3f' % (lc, nb, lab))
assert 0.34 < lc < 0.55, lc
assert nb > lc + 0.1, (lc, nb)
assert lab > lc + 0.3, (lc, lab)
"
    echo "$output" >&3
    assert_success
}
