#!/usr/bin/env bats
# metrics: every quantity against scikit-learn / numpy on random inputs, the
# table mode, determinism and bad input.
load test_helper

# Traced graphs with random predictions: pred_flow (C tanh), pred_cut,
# pred_hint_flow (truth + noise), embed; then flow-fix adds the conservation
# keys.  $1 = output, $2 = seed, $3 = embedding width.
make_predictions() {
    { gen-graphs --family two-community --nodes 12 --count 30 --seed "$2"
      gen-graphs --family bipartite --nodes 10 --count 20 --seed "$2"
    } | ff-trace > "$T/traced$2.mp"
    "$PY" - "$T/traced$2.mp" "$T/pred$2.mp" "$2" "$3" <<'PYEOF'
import sys, msgpack, msgpack_numpy as mn, numpy as np
rng = np.random.default_rng(int(sys.argv[3]))
d = int(sys.argv[4])
out = open(sys.argv[2], "wb")
for r in msgpack.Unpacker(open(sys.argv[1], "rb"), object_hook=mn.decode, raw=False):
    n, m, T = r["n"], r["m"], r["steps"]
    r["pred_flow"] = (r["cap"] * np.tanh(rng.normal(size=m))).astype(np.float32)
    # some exact 0.5s: the source side
    r["pred_cut"] = np.where(rng.random(n) < 0.1, 0.5, rng.random(n)).astype(np.float32)
    r["pred_hint_flow"] = (r["hint_flow"] + rng.normal(scale=0.2, size=(T, m))).astype(np.float32)
    # an embedding that carries the max flow plus noise, so R^2 is neither 0 nor 1
    e = rng.normal(size=(n, d))
    e[:, 0] += r["maxflow"] * rng.random()
    r["embed"] = e.astype(np.float32)
    out.write(msgpack.packb(r, default=mn.encode))
PYEOF
    flow-fix < "$T/pred$2.mp" > "$T/fixed$2.mp"
}

@test "flow quantities match scikit-learn and numpy (masked MAE, intermediate flows, cut, |F-F*|, conservation, fixed value)" {
    make_predictions "$T/p.mp" 1 4
    metrics -l model=dual -l seed=1 --split test_64 < "$T/fixed1.mp" > "$T/m.mp"
    run py_stream "$T/m.mp" '
import subprocess
from sklearn.metrics import mean_absolute_error, accuracy_score
g = list(msgpack.Unpacker(open(sys.argv[1].replace("m.mp", "fixed1.mp"), "rb"), object_hook=msgpack_numpy.decode, raw=False))
got = {r["name"]: r for r in recs}
assert [r["name"] for r in recs] == ["mae_flow", "mae_hint_flow", "cut_accuracy", "maxflow_error",
    "conservation_before", "conservation_after", "fixed_value_ratio"], [r["name"] for r in recs]
for r in recs:
    assert list(r) == ["kind", "name", "value", "count", "split", "labels"], list(r)
    assert r["kind"] == "metric" and r["split"] == "test_64" and r["labels"] == {"model": "dual", "seed": "1"}
def close(a, b): return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-300)
f = np.concatenate([r["flow"] for r in g]).astype(np.float64)
p = np.concatenate([r["pred_flow"] for r in g]).astype(np.float64)
mask = f != 0
exp = mean_absolute_error(f[mask], p[mask])
assert close(got["mae_flow"]["value"], exp) and got["mae_flow"]["count"] == mask.sum(), (got["mae_flow"], exp)
scores = []
for r in g:
    steps = []
    for i in range(r["steps"] - 1):
        if r["hint_phase"][i] == 0:
            t = r["hint_flow"][i + 1].astype(np.float64); q = r["pred_hint_flow"][i + 1].astype(np.float64)
            if (t != 0).any(): steps.append(mean_absolute_error(t[t != 0], q[t != 0]))
    if steps: scores.append(np.mean(steps))
assert close(got["mae_hint_flow"]["value"], np.mean(scores)) and got["mae_hint_flow"]["count"] == len(scores)
c = np.concatenate([r["cut"] for r in g]); pc = np.concatenate([r["pred_cut"] for r in g]) > 0.5
assert close(got["cut_accuracy"]["value"], accuracy_score(c, pc)) and got["cut_accuracy"]["count"] == len(c)
errs = []
for r in g:
    pf = r["pred_flow"].astype(np.float64)
    net = np.zeros(r["n"]); np.add.at(net, r["src"], pf); np.add.at(net, r["dst"], -pf)
    errs.append(abs(max(abs(net[r["s"]]), abs(net[r["t"]])) - r["maxflow"]))
assert close(got["maxflow_error"]["value"], np.mean(errs)), (got["maxflow_error"], np.mean(errs))
for key in ("conservation_before", "conservation_after"):
    v = np.concatenate([np.delete(r[key], [r["s"], r["t"]]) for r in g])
    assert close(got[key]["value"], np.abs(v).mean()) or np.abs(v).mean() == got[key]["value"], key
    assert got[key]["count"] == len(v)
ratios = [r["fixed_value"] / r["maxflow"] for r in g if r["maxflow"] > 0]
assert close(got["fixed_value_ratio"]["value"], np.mean(ratios)) and got["fixed_value_ratio"]["count"] == len(ratios)
print("ok", len(recs))'
    assert_success
    assert_output "ok 7"
}

@test "the true flow scores 0 error and the true cut 100%" {
    gen-graphs --nodes 10 --count 10 --seed 3 | ff-trace > "$T/g.mp"
    "$PY" - "$T/g.mp" "$T/p.mp" <<'PYEOF'
import sys, msgpack, msgpack_numpy as mn, numpy as np
out = open(sys.argv[2], "wb")
for r in msgpack.Unpacker(open(sys.argv[1], "rb"), object_hook=mn.decode, raw=False):
    r["pred_flow"] = r["flow"]; r["pred_hint_flow"] = r["hint_flow"]
    r["pred_cut"] = r["cut"].astype(np.float32)
    out.write(msgpack.packb(r, default=mn.encode))
PYEOF
    metrics < "$T/p.mp" > "$T/m.mp"
    run py_stream "$T/m.mp" 'print(" ".join("%s=%g" % (r["name"], round(r["value"], 6)) for r in recs))'
    assert_output "mae_flow=0 mae_hint_flow=0 cut_accuracy=1 maxflow_error=0"
}

# Vessel-like edge records: label, pred_label, pred_proba (rows summing to
# one, some tied), split.  $1 output, $2 seed, $3 "ties" or "continuous".
make_classes() {
    "$PY" - "$1" "$2" "$3" <<'PYEOF'
import sys, msgpack, msgpack_numpy as mn, numpy as np
rng = np.random.default_rng(int(sys.argv[2]))
out = open(sys.argv[1], "wb")
for k in range(4):
    m = int(rng.integers(200, 400))
    y = rng.choice(3, size=m, p=[0.8, 0.15, 0.05]).astype(np.uint8)
    if sys.argv[3] == "ties":
        table = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7], [0.4, 0.4, 0.2], [0.3, 0.3, 0.4]])
        p = table[(y + rng.integers(0, 3, size=m)) % 5]
    else:
        p = rng.random((m, 3)) + 1.5 * np.eye(3)[y] * rng.random((m, 1))
    p = (p / p.sum(1, keepdims=True)).astype(np.float32)
    pred = p.argmax(1).astype(np.uint8)
    split = rng.choice(3, size=m, p=[0.6, 0.2, 0.2]).astype(np.uint8)
    r = {"kind": "graph", "id": k, "family": "vessel", "n": m + 1, "m": m, "directed": False,
         "label": y, "pred_label": pred, "pred_proba": p, "split": split}
    out.write(msgpack.packb(r, default=mn.encode))
PYEOF
}

# The sklearn oracle for the classification metrics; $1 records, $2 metrics, $3 split code or "all".
check_classes() {
    "$PY" - "$1" "$2" "$3" <<'PYEOF'
import sys, msgpack, msgpack_numpy as mn, numpy as np
from sklearn.metrics import accuracy_score, balanced_accuracy_score, roc_auc_score
from sklearn.preprocessing import label_binarize
load = lambda f: list(msgpack.Unpacker(open(f, "rb"), object_hook=mn.decode, raw=False))
g, got = load(sys.argv[1]), {r["name"]: r for r in load(sys.argv[2])}
keep = [np.ones(r["m"], bool) if sys.argv[3] == "all" else r["split"] == int(sys.argv[3]) for r in g]
y = np.concatenate([r["label"][k] for r, k in zip(g, keep)])
pl = np.concatenate([r["pred_label"][k] for r, k in zip(g, keep)])
pp = np.concatenate([r["pred_proba"][k] for r, k in zip(g, keep)])
exp = {"accuracy": accuracy_score(y, pl), "balanced_accuracy": balanced_accuracy_score(y, pl),
       "roc_auc": roc_auc_score(y, pp, multi_class="ovr", average="macro"),
       "roc_hard": roc_auc_score(label_binarize(y, classes=[0, 1, 2]), label_binarize(pl, classes=[0, 1, 2]), average="macro")}
assert sorted(got) == sorted(exp), sorted(got)
for k, v in exp.items():
    assert abs(got[k]["value"] - v) <= 1e-9 * abs(v), (k, got[k]["value"], v)
    assert got[k]["count"] == len(y), (k, got[k]["count"], len(y))
print("ok", len(y) > 0)
PYEOF
}

@test "classification metrics match scikit-learn: accuracy, balanced accuracy, ovr ROC AUC (ties), the benchmark's hard ROC" {
    make_classes "$T/c.mp" 5 ties
    metrics --edges all < "$T/c.mp" > "$T/m.mp"
    run check_classes "$T/c.mp" "$T/m.mp" all
    assert_success
    assert_output "ok True"
    make_classes "$T/d.mp" 6 continuous
    metrics --edges all < "$T/d.mp" > "$T/m2.mp"
    run check_classes "$T/d.mp" "$T/m2.mp" all
    assert_output "ok True"
}

@test "classification is restricted to the test edges by default when records carry 'split', --edges picks another" {
    make_classes "$T/c.mp" 7 continuous
    metrics < "$T/c.mp" > "$T/m.mp"
    run check_classes "$T/c.mp" "$T/m.mp" 2
    assert_output "ok True"
    metrics --edges val < "$T/c.mp" > "$T/v.mp"
    run check_classes "$T/c.mp" "$T/v.mp" 1
    assert_output "ok True"
    metrics --edges train --quantity roc_hard,accuracy < "$T/c.mp" > "$T/t.mp"
    run py_stream "$T/t.mp" 'print([r["name"] for r in recs])'
    assert_output "['roc_hard', 'accuracy']"
}

@test "r2: least squares fitted on one stream matches scikit-learn LinearRegression + r2_score on another" {
    make_predictions "$T/a.mp" 11 6
    make_predictions "$T/b.mp" 12 6
    metrics --quantity r2 --fit "$T/pred11.mp" < "$T/pred12.mp" > "$T/m.mp"
    run "$PY" - "$T/pred11.mp" "$T/pred12.mp" "$T/m.mp" <<'PYEOF'
import sys, msgpack, msgpack_numpy as mn, numpy as np
from sklearn.linear_model import LinearRegression
from sklearn.metrics import r2_score
load = lambda f: list(msgpack.Unpacker(open(f, "rb"), object_hook=mn.decode, raw=False))
def xy(recs): return (np.array([r["embed"].astype(np.float64).max(0) for r in recs]), np.array([r["maxflow"] for r in recs]))
(Xa, ya), (Xb, yb) = xy(load(sys.argv[1])), xy(load(sys.argv[2]))
exp = r2_score(yb, LinearRegression().fit(Xa, ya).predict(Xb))
got = load(sys.argv[3])
assert len(got) == 1 and got[0]["name"] == "r2" and got[0]["count"] == len(yb)
assert abs(got[0]["value"] - exp) <= 1e-9 * abs(exp), (got[0]["value"], exp)
print("ok", 0 < exp < 1)
PYEOF
    assert_success
    assert_output "ok True"
}

@test "r2 with rank-deficient embeddings (a constant and a duplicated column) matches scikit-learn's minimum-norm fit" {
    make_predictions "$T/a.mp" 21 3
    "$PY" - "$T/pred21.mp" "$T/fit.mp" "$T/score.mp" <<'PYEOF'
import sys, msgpack, msgpack_numpy as mn, numpy as np
rng = np.random.default_rng(0)
fit, score = open(sys.argv[2], "wb"), open(sys.argv[3], "wb")
for k, r in enumerate(msgpack.Unpacker(open(sys.argv[1], "rb"), object_hook=mn.decode, raw=False)):
    e = rng.normal(size=(r["n"], 12)); e[:, 5] = 0.25; e[:, 7] = e[:, 6]
    e[:, 0] += r["maxflow"]
    r["embed"] = e.astype(np.float32)
    (fit if k < 35 else score).write(msgpack.packb(r, default=mn.encode))
PYEOF
    metrics --quantity r2 --fit "$T/fit.mp" < "$T/score.mp" > "$T/m.mp"
    run "$PY" - "$T/fit.mp" "$T/score.mp" "$T/m.mp" <<'PYEOF'
import sys, msgpack, msgpack_numpy as mn, numpy as np
from sklearn.linear_model import LinearRegression
from sklearn.metrics import r2_score
load = lambda f: list(msgpack.Unpacker(open(f, "rb"), object_hook=mn.decode, raw=False))
def xy(recs): return (np.array([r["embed"].astype(np.float64).max(0) for r in recs]), np.array([r["maxflow"] for r in recs]))
(Xa, ya), (Xb, yb) = xy(load(sys.argv[1])), xy(load(sys.argv[2]))
exp = r2_score(yb, LinearRegression().fit(Xa, ya).predict(Xb))
got = load(sys.argv[3])[0]
assert got["count"] == 15 and abs(got["value"] - exp) <= 1e-9 * abs(exp), (got["value"], exp)
print("ok")
PYEOF
    assert_success
    assert_output "ok"
    # the scored stream must have the fitted width
    run -65 --separate-stderr metrics --quantity r2 --fit "$T/fit.mp" < "$T/pred21.mp"
    assert_one_line_error metrics
    [ "$stderr" = "metrics: record 0: 'embed' has 3 columns, expected 12 like the --fit records" ] || fail "$stderr"
}

@test "an error in the --fit stream names its file; the scored stream's names its file when it is one" {
    gen-graphs --nodes 8 --count 3 --seed 1 > "$T/g.mp"
    run -65 --separate-stderr metrics --quantity r2 --fit "$T/g.mp" < "$T/g.mp"
    assert_one_line_error metrics
    [ "$stderr" = "metrics: '$T/g.mp': record 0: missing key 'embed' (needed by r2)" ] || fail "$stderr"
    run -65 --separate-stderr metrics --quantity mae_flow -i "$T/g.mp"
    assert_one_line_error metrics
    [ "$stderr" = "metrics: '$T/g.mp': record 0: missing key 'pred_flow' (needed by mae_flow)" ] || fail "$stderr"
    run -65 --separate-stderr metrics --quantity mae_flow < "$T/g.mp"
    [ "$stderr" = "metrics: record 0: missing key 'pred_flow' (needed by mae_flow)" ] || fail "$stderr"
}

@test "output is deterministic: the same bytes twice, and records in --quantity order" {
    make_predictions "$T/a.mp" 31 4
    metrics --fit "$T/pred31.mp" -l model=x < "$T/fixed31.mp" > "$T/1.mp"
    metrics --fit "$T/pred31.mp" -l model=x < "$T/fixed31.mp" > "$T/2.mp"
    cmp "$T/1.mp" "$T/2.mp"
    metrics --quantity cut_accuracy,mae_flow < "$T/fixed31.mp" > "$T/q.mp"
    run py_stream "$T/q.mp" 'print([r["name"] for r in recs])'
    assert_output "['cut_accuracy', 'mae_flow']"
}

# Three fake runs of two models: metric records written by metrics itself.
make_runs() {
    make_predictions "$T/a.mp" 41 4
    local seed
    for seed in 1 2 3; do
        "$PY" - "$T/fixed41.mp" "$T/run$seed.mp" "$seed" <<'PYEOF'
import sys, msgpack, msgpack_numpy as mn, numpy as np
rng = np.random.default_rng(int(sys.argv[3]))
out = open(sys.argv[2], "wb")
for r in msgpack.Unpacker(open(sys.argv[1], "rb"), object_hook=mn.decode, raw=False):
    r["pred_flow"] = (r["cap"] * np.tanh(rng.normal(size=r["m"]))).astype(np.float32)
    r["pred_cut"] = rng.random(r["n"]).astype(np.float32)
    out.write(msgpack.packb(r, default=mn.encode))
PYEOF
        metrics --quantity mae_flow,cut_accuracy -l model=dual -l seed=$seed < "$T/run$seed.mp" > "$T/m$seed.mp"
        metrics --quantity mae_flow,cut_accuracy -l model=primal -l seed=$seed < "$T/run$seed.mp" > "$T/p$seed.mp"
    done
    cat "$T"/m[123].mp "$T"/p[123].mp > "$T/all.mp"
}

@test "table: mean and sample std over runs per model and metric (TSV checked against numpy)" {
    make_runs
    metrics --table tsv --title "quick profile" < "$T/all.mp" > "$T/t.tsv"
    run "$PY" - "$T/all.mp" "$T/t.tsv" <<'PYEOF'
import sys, msgpack, msgpack_numpy as mn, numpy as np
recs = list(msgpack.Unpacker(open(sys.argv[1], "rb"), object_hook=mn.decode, raw=False))
lines = open(sys.argv[2]).read().split("\n")
assert lines[0] == "# quick profile", lines[0]
head = lines[1].split("\t")
assert head == ["model", "mae_flow", "mae_flow std", "mae_flow n", "cut_accuracy", "cut_accuracy std", "cut_accuracy n"], head
rows = [l.split("\t") for l in lines[2:] if l]
assert [r[0] for r in rows] == ["dual", "primal"]
for row in rows:
    for j, name in enumerate(["mae_flow", "cut_accuracy"]):
        v = np.array([r["value"] for r in recs if r["name"] == name and r["labels"]["model"] == row[0]])
        mean, std, n = float(row[1 + 3 * j]), float(row[2 + 3 * j]), int(row[3 + 3 * j])
        assert n == 3 and abs(mean - v.mean()) <= 1e-12 * abs(v.mean()), (mean, v.mean())
        assert abs(std - v.std(ddof=1)) <= 1e-9 * v.std(ddof=1), (std, v.std(ddof=1))
print("ok")
PYEOF
    assert_success
    assert_output "ok"
}

@test "table: markdown with percentages, the paper beside ours, first-appearance order, same bytes twice" {
    make_runs
    printf 'dual\tmae_flow\t0.234\t0.002\nprimal\tcut_accuracy\t61%%\t0.1%%\n# a comment\n' > "$T/paper.tsv"
    metrics --table md --title "quick profile" --paper "$T/paper.tsv" < "$T/all.mp" > "$T/t.md"
    metrics --table md --title "quick profile" --paper "$T/paper.tsv" < "$T/all.mp" > "$T/t2.md"
    cmp "$T/t.md" "$T/t2.md"
    run cat "$T/t.md"
    assert_line --index 0 "**quick profile**"
    assert_line --index 1 "| model | mae_flow | cut_accuracy |"
    assert_line --index 2 "|---|---|---|"
    assert_line --index 3 --regexp '^\| dual \| 0\.[0-9]{3} ± 0\.[0-9]{3} \(3\) \(paper 0\.234 ± 0\.002\) \| [0-9]+\.[0-9]% ± [0-9]+\.[0-9] \(3\) \|$'
    assert_line --index 4 --regexp '^\| primal \| 0\.[0-9]{3} ± 0\.[0-9]{3} \(3\) \| [0-9]+\.[0-9]% ± [0-9]+\.[0-9] \(3\) \(paper 61\.0% ± 0\.1\) \|$'
    # rows by seed, columns by model and metric
    metrics --table md --rows seed --cols model,name < "$T/all.mp" > "$T/s.md"
    run cat "$T/s.md"
    assert_line --index 0 "| seed | dual mae_flow | dual cut_accuracy | primal mae_flow | primal cut_accuracy |"
    assert_line --index 2 --regexp '^\| 1 \| 0\.[0-9]{3} \(1\) \|'
}

@test "table: a cell mixing two metrics is refused" {
    make_runs
    run -65 --separate-stderr metrics --table md --cols seed < "$T/all.mp"
    assert_one_line_error metrics
    [[ "$stderr" == *"add 'name' to --rows or --cols" ]] || fail "$stderr"
}

@test "bad input: unknown quantity 64, missing key 65 naming record and key, NaN prediction 65, wrong kind 65" {
    gen-graphs --nodes 8 --count 3 --seed 1 | ff-trace > "$T/g.mp"
    run -64 --separate-stderr metrics --quantity mae_flow,nope < "$T/g.mp"
    [[ "$stderr" == "metrics: unknown quantity 'nope'"* ]] || fail "$stderr"
    run -65 --separate-stderr metrics --quantity mae_flow < "$T/g.mp"
    assert_one_line_error metrics
    [ "$stderr" = "metrics: record 0: missing key 'pred_flow' (needed by mae_flow)" ] || fail "$stderr"
    run -64 metrics --quantity r2 < "$T/g.mp"
    run -64 metrics --label nokey < "$T/g.mp"
    run -64 metrics -l a=1 -l a=2 < "$T/g.mp"
    "$PY" - "$T/g.mp" "$T/nan.mp" <<'PYEOF'
import sys, msgpack, msgpack_numpy as mn, numpy as np
out = open(sys.argv[2], "wb")
for k, r in enumerate(msgpack.Unpacker(open(sys.argv[1], "rb"), object_hook=mn.decode, raw=False)):
    r["pred_flow"] = r["flow"].copy()
    if k == 2: r["pred_flow"][1] = np.nan
    out.write(msgpack.packb(r, default=mn.encode))
PYEOF
    run -65 --separate-stderr metrics < "$T/nan.mp"
    assert_one_line_error metrics
    [ "$stderr" = "metrics: record 2: 'pred_flow' entry 1 is nan, expected a finite number" ] || fail "$stderr"
    [ -z "$output" ]
    "$PY" -c 'import msgpack,sys; sys.stdout.buffer.write(msgpack.packb({"kind": "model"}))' > "$T/model.mp"
    run -65 --separate-stderr metrics < "$T/model.mp"
    [ "$stderr" = "metrics: record 0: a 'model' record, expected 'graph'" ] || fail "$stderr"
    run -65 --separate-stderr metrics --table md < "$T/nan.mp"
    [ "$stderr" = "metrics: record 0: a 'graph' record, expected 'metric'" ] || fail "$stderr"
    run -65 --separate-stderr metrics < /dev/null
    [ "$stderr" = "metrics: no graph records in the input" ] || fail "$stderr"
    run -64 metrics --table md --label a=b < /dev/null
    run -65 --separate-stderr metrics --table tsv < /dev/null
    [ "$stderr" = "metrics: no metric records in the input" ] || fail "$stderr"
}

@test "bad input: a negative n or m is refused, not taken as 'any length' for the tensors" {
    # m = -1 used to match a tensor of any length and score nothing (exit 0);
    # m = -2^63 on a classification record overflowed m * classes (UBSan)
    make_classes "$T/c.mp" 8 continuous
    gen-graphs --nodes 8 --count 3 --seed 1 | ff-trace > "$T/g.mp"
    "$PY" - "$T" <<'PYEOF'
import sys, msgpack, msgpack_numpy as mn
d = sys.argv[1]
load = lambda f: list(msgpack.Unpacker(open(f"{d}/{f}", "rb"), object_hook=mn.decode, raw=False))
def save(f, recs):
    open(f"{d}/{f}", "wb").write(b"".join(msgpack.packb(r, default=mn.encode) for r in recs))
g = load("g.mp")
for r in g:
    r["pred_flow"] = r["flow"].copy()
g[1]["m"] = -1
save("neg-m.mp", g)
g[1]["m"], g[2]["n"] = g[1]["pred_flow"].size, -8
save("neg-n.mp", g)
c = load("c.mp")
c[0]["m"] = -2**63
save("neg-m-class.mp", c)
PYEOF
    run -65 --separate-stderr metrics --quantity mae_flow < "$T/neg-m.mp"
    assert_one_line_error metrics
    [ "$stderr" = "metrics: record 1: 'm' is -1, expected 0..2147483647" ] || fail "$stderr"
    [ -z "$output" ]
    run -65 --separate-stderr metrics --quantity maxflow_error < "$T/neg-n.mp"
    [ "$stderr" = "metrics: record 2: 'n' is -8, expected 0..2147483647" ] || fail "$stderr"
    run -65 --separate-stderr metrics --edges train < "$T/neg-m-class.mp"
    assert_one_line_error metrics
    [ "$stderr" = "metrics: record 0: 'm' is -9223372036854775808, expected 0..2147483647" ] || fail "$stderr"
}

@test "bad input: a negative maxflow is refused, not scored (a negative fixed_value is a valid result)" {
    gen-graphs --nodes 8 --count 3 --seed 1 | ff-trace | flow-fix --key flow > "$T/g.mp"
    "$PY" - "$T" <<'PYEOF'
import sys, msgpack, msgpack_numpy as mn
d = sys.argv[1]
g = list(msgpack.Unpacker(open(f"{d}/g.mp", "rb"), object_hook=mn.decode, raw=False))
def save(f, recs):
    open(f"{d}/{f}", "wb").write(b"".join(msgpack.packb(r, default=mn.encode) for r in recs))
for r in g:
    r["pred_flow"] = r["flow"].copy()
save("ok.mp", g)
g[2]["maxflow"] = -1.5
save("neg-maxflow.mp", g)
g[2]["maxflow"] = 1.0
g[1]["fixed_value"] = -0.25
save("neg-fixed.mp", g)
PYEOF
    run metrics --quantity maxflow_error,fixed_value_ratio < "$T/ok.mp"
    assert_success
    run -65 --separate-stderr metrics --quantity maxflow_error < "$T/neg-maxflow.mp"
    assert_one_line_error metrics
    [ "$stderr" = "metrics: record 2: 'maxflow' is -1.5, expected a max flow value >= 0" ] || fail "$stderr"
    run metrics --quantity fixed_value_ratio < "$T/neg-fixed.mp"
    assert_success
}

@test "--help lists every quantity of every registry entry, as the entries' rows hold it, and formats/metric.md defines each" {
    # the rows as the entries hold them (tests/tools/metric_rows reads the
    # registry, not the tool); every entry of the registry has some
    run "$DAR_TOOLS/metric_rows"
    assert_success
    printf '%s\n' "$output" > "$T/rows.tsv"
    ff-trace --help > "$T/registry.txt"
    metrics --help > "$T/help.txt"
    "$PY" - "$T/rows.tsv" "$T/registry.txt" "$T/help.txt" "$ROOT/formats/metric.md" <<'PYEOF'
import re, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
rows = [(r[0], r[1], r[2], r[3], len(r) > 4) for r in rows]
entries = re.findall(r"^  ([a-z-]+)(?: \(the default\))?: ", open(sys.argv[2]).read(), re.M)
assert len(entries) >= 4, entries
assert [e for e in entries if e not in {r[0] for r in rows}] == [], "entries without metric rows"
names = [r[1] for r in rows]
assert len(set(names)) == len(names), "two rows of one name"
# the help's section: an entry per "  NAME:" line, its rows below it
help = open(sys.argv[3]).read().split("\nquantities (", 1)[1].split("\n\n", 1)[0].splitlines()
listed, entry = [], None
for line in help:
    m = re.match(r"^  ([a-z-]+):$", line)
    if m:
        entry = m.group(1)
        continue
    m = re.match(r"^    (\S+) +(\S+) +(.*?)( \(and --fit FILE\))?$", line)
    if m:
        listed.append((entry, m.group(1), m.group(2), m.group(3), m.group(4) is not None))
assert listed == rows, "help lists\n%s\nthe rows are\n%s" % ("\n".join(map(str, listed)), "\n".join(map(str, rows)))
doc = open(sys.argv[4]).read()
undefined = [n for n in names if "\n| `%s` |" % n not in doc]
assert not undefined, "formats/metric.md defines no %s" % undefined
PYEOF
}
