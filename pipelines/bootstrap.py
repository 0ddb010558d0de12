#!/usr/bin/python3
"""bootstrap.py - the uncertainty of a claim's verdict (pipelines/claims.py).

    bootstrap.py units --rows model --cols family,name [--quantity LIST] SCORES... > table1.units.tsv

writes a table's resampling units: for every cell (row, column as
`metrics --table` names them) and every run in it (a metric record: one
seed, one trial), each test graph's sum and count of the quantity, read from
the per-graph file beside the scores (`metrics --per-graph`: scores/X.mp ->
graphs/X.mp); a run without one is a single unit, its value.  A quantity of
the confusion matrix (the vessel rows' balanced accuracy and ROC) has a unit
per block of a graph's scored edges instead, its matrix in place of the sum:
a resample pools the drawn blocks' matrices and scores the pooled one.

A claim is then decided by a paired bootstrap: each resample draws the test
graphs of every test set with replacement, once for all the cells (the same
graphs score every model), and each model's seeds with replacement, once for
all the cells of that model; a cell is the mean over the drawn seeds of each
seed's pooled sum over the drawn graphs divided by its pooled count, as
metrics pools them.  Every comparison of a rule becomes a margin, positive
on the claim's side (a < b: b - a; near(x, t, tol): tol - |x - t|), and its
percentile interval at LEVEL decides: holds when the interval lies on the
claim's side, does not hold when it lies on the other side, not resolved
when it holds the tie.  The paper's values are resampled the same way as
normal draws around each mean with the paper's std over n = 5 seeds
(sd = std / sqrt(5)).  The generator is numpy's PCG64 seeded from the claim
and instance, so the intervals are the same bits on every run.
"""
import argparse
import ast
import math
import os
import sys
import zlib

import numpy as np

RESAMPLES = 2000
LEVEL = 0.95
PAPER_SEEDS = 5
HOLDS, FAILS, UNRESOLVED = "holds", "does not hold", "not resolved at this profile"
SEED_KEYS = ("seed", "trial")
# labels that name the model or run, not the graphs scored (a finding's run
# scores the study's graphs: its differences are paired over them)
NOT_GRAPHSET = ("model", "finding") + SEED_KEYS


# ---- units ---------------------------------------------------------------------------
def key_of(record, keys):
    parts = []
    for k in keys:
        if k == "name":
            parts.append(record["name"])
        elif k == "split":
            parts.append(record["split"])
        else:
            parts.append(str(record["labels"].get(k, "-")))
    return " ".join(parts)


def read_records(path, kind):
    import msgpack
    with open(path, "rb") as f:
        return [r for r in msgpack.Unpacker(f, raw=False) if isinstance(r, dict) and r.get("kind") == kind]


def graphs_path(path):
    """scores/X.mp -> graphs/X.mp, and scores-SET/X.mp -> graphs-SET/X.mp (a
    second test set's scores, e.g. the clrs profile's scores-clrs30/)."""
    head, tail = os.path.split(os.path.abspath(path))
    base = os.path.basename(head)
    if base != "scores" and not base.startswith("scores-"):
        return None
    return os.path.join(os.path.dirname(head), "graphs" + base[len("scores"):], tail)


CONFUSION_QUANTITIES = ("accuracy", "balanced_accuracy", "roc_hard")


def units_lines(paths, rows, cols, quantities):
    """The lines of a units file: row, column, model, seed, graph set, graph,
    sum, count, quantity.  For a quantity of the confusion matrix a unit is a
    block of a graph's scored edges (graph `G:B`), its `sum` the block's
    matrix as `label,predicted,count` triples separated by spaces."""
    def identity(r):
        labels = r["labels"]
        seed = next((str(labels[k]) for k in SEED_KEYS if k in labels), "-")
        graphset = " ".join([r["split"]] + [f"{k}={v}" for k, v in sorted(labels.items()) if k not in NOT_GRAPHSET])
        return str(labels.get("model", "-")), seed, graphset

    out = [("row", "column", "model", "seed", "graphset", "graph", "sum", "count", "quantity")]
    for path in paths:
        per_graph = {}
        gpath = graphs_path(path)
        if gpath and os.path.exists(gpath):
            for g in read_records(gpath, "graph_metric"):
                per_graph.setdefault((g["name"], g["split"], tuple(g["labels"].items())), []).append(g)
        for r in read_records(path, "metric"):
            if quantities and r["name"] not in quantities:
                continue
            row, col = key_of(r, rows), key_of(r, cols)
            model, seed, graphset = identity(r)
            name = r["name"]
            confusion = name in CONFUSION_QUANTITIES
            graphs = per_graph.get(("confusion" if confusion else name, r["split"], tuple(r["labels"].items())))
            if graphs and confusion:
                for g in graphs:
                    cells = " ".join(f"{int(a)},{int(b)},{int(k)}" for a, b, k in g["confusion"])
                    out.append((row, col, model, seed, graphset, f"{g['graph']}:{g['block']}", cells, str(g["count"]), name))
            elif graphs:
                for g in graphs:
                    out.append((row, col, model, seed, graphset, str(g["graph"]), repr(float(g["sum"])), str(g["count"]), name))
            elif not math.isnan(r["value"]):
                out.append((row, col, model, seed, graphset, "-", repr(float(r["value"])), "1", name))
    return out


def read_units(path):
    """{(row, column): {seed: (model, graphset, {unit: (sum, count)} or None,
    value)}}; a unit is (graph,) or, for a quantity of the confusion matrix,
    (graph, block) and its sum a Confusion."""
    if not path or not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return cells_of([l.rstrip("\n").split("\t") for l in f if l.strip()])


def cells_of(lines):
    """read_units' dict from a units file's lines (units_lines: header first)."""
    cells = {}
    for fields in lines[1:]:
        # a units file written before the quantity column had 8
        row, col, model, seed, graphset, graph, s, c = fields[:8]
        quantity = fields[8] if len(fields) > 8 else ""
        runs = cells.setdefault((row, col), {})
        if graph == "-":
            runs[seed] = (model, graphset, None, float(s))
            continue
        unit = tuple(int(x) for x in graph.split(":"))
        if quantity in CONFUSION_QUANTITIES:
            run = runs.setdefault(seed, (model, graphset, Blocks(quantity), None))
            run[2].add(unit, [tuple(int(x) for x in t.split(",")) for t in s.split()])
        else:
            run = runs.setdefault(seed, (model, graphset, {}, None))
            run[2][unit] = (float(s), int(c))
    return cells


class Blocks:
    """A run's blocks of test edges for a quantity of the confusion matrix:
    each block's matrix, kept as one row of a units x classes² array (made
    once, on first use, in the blocks' order) over the labels they hold."""

    def __init__(self, quantity):
        self.quantity, self.triples, self._matrix = quantity, {}, None

    def add(self, unit, triples):
        self.triples[unit] = triples
        self._matrix = None

    def __len__(self):
        return len(self.triples)

    def matrix(self):
        if self._matrix is None:
            order = sorted(self.triples)
            classes = sorted({x for u in order for a, p, _ in self.triples[u] for x in (a, p)})
            at = {c: i for i, c in enumerate(classes)}
            C = len(classes)
            m = np.zeros((len(order), C * C))
            for row, u in enumerate(order):
                for a, p, k in self.triples[u]:
                    m[row, at[a] * C + at[p]] += k
            self._matrix = (m, C)
        return self._matrix


def confusion_score(quantity, pooled):
    """The quantity of B pooled confusion matrices (B x C x C over the labels
    present), as common/eval/metrics.c computes it:
    NaN where no class has what the quantity needs."""
    support = pooled.sum(axis=2)                       # B x C: edges of each label
    predicted = pooled.sum(axis=1)                     # B x C: edges predicted as each
    total = support.sum(axis=1)
    correct = np.diagonal(pooled, axis1=1, axis2=2)    # B x C
    with np.errstate(invalid="ignore", divide="ignore"):
        if quantity == "accuracy":
            return np.where(total > 0, correct.sum(axis=1) / np.where(total > 0, total, 1), np.nan)
        present = support > 0
        if quantity == "balanced_accuracy":
            recall = np.where(present, correct / np.where(present, support, 1), 0.0)
            used = present.sum(axis=1)
            return np.where(used > 0, recall.sum(axis=1) / np.where(used > 0, used, 1), np.nan)
        # roc_hard: per class with positives and negatives, (TPR + TNR) / 2
        negative = total[:, None] - support
        usable = present & (negative > 0)
        tpr = correct / np.where(usable, support, 1)
        tnr = (negative - (predicted - correct)) / np.where(usable, negative, 1)
        per_class = np.where(usable, (tpr + tnr) / 2, 0.0)
        used = usable.sum(axis=1)
        return np.where(used > 0, per_class.sum(axis=1) / np.where(used > 0, used, 1), np.nan)


# ---- resampling ------------------------------------------------------------------------
def generator(*names):
    return np.random.Generator(np.random.PCG64(zlib.crc32("\x1f".join(names).encode())))


class Draws:
    """One claim instance's resamples: graph indices per graph set and seed
    picks per model, drawn in the order the cells ask for them."""

    def __init__(self, rng, resamples):
        self.rng, self.B, self.graphs, self.seeds = rng, resamples, {}, {}

    def graph_indices(self, graphset, n):
        if (graphset, n) not in self.graphs:
            self.graphs[(graphset, n)] = self.rng.integers(0, n, size=(self.B, n))
        return self.graphs[(graphset, n)]

    def graph_times(self, graphset, n):
        """graph_indices as counts: B x n, how often each unit is drawn."""
        key = ("times", graphset, n)
        if key not in self.graphs:
            idx = self.graph_indices(graphset, n)
            rows = np.arange(self.B)[:, None] * n
            self.graphs[key] = np.bincount((rows + idx).ravel(), minlength=self.B * n).reshape(self.B, n).astype(np.float64)
        return self.graphs[key]

    def seed_picks(self, model, seeds):
        key = (model, tuple(seeds))
        if key not in self.seeds:
            self.seeds[key] = self.rng.integers(0, len(seeds), size=(self.B, len(seeds)))
        return self.seeds[key]


def cell_resamples(runs, draws):
    """A cell's B resampled values from its runs (read_units' dict)."""
    seeds = sorted(runs)
    per_seed = []
    for seed in seeds:
        model, graphset, graphs, value = runs[seed]
        if graphs is None:
            per_seed.append(np.full(draws.B, value))
            continue
        if isinstance(graphs, Blocks):
            per_seed.append(confusion_resamples(graphs, draws.graph_times(graphset, len(graphs))))
            continue
        order = sorted(graphs)
        idx = draws.graph_indices(graphset, len(order))
        sums = np.array([graphs[g][0] for g in order])
        counts = np.array([graphs[g][1] for g in order], dtype=np.float64)
        total = counts[idx].sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            per_seed.append(np.where(total > 0, sums[idx].sum(axis=1) / np.where(total > 0, total, 1), np.nan))
    values = np.stack(per_seed, axis=1)                        # B x seeds
    if len(seeds) == 1:
        return values[:, 0]
    picks = draws.seed_picks(runs[seeds[0]][0], seeds)
    return np.take_along_axis(values, picks, axis=1).mean(axis=1)


def confusion_resamples(blocks, times):
    """B values of a confusion quantity: each resample pools the matrices of
    its drawn blocks (times: B x blocks, how often each is drawn) and scores
    the pooled one; the counts stay exact integers in float64."""
    matrix, C = blocks.matrix()
    return confusion_score(blocks.quantity, (times @ matrix).reshape(-1, C, C))


def paper_resamples(mean, std, draws):
    if not std:
        return np.full(draws.B, mean)
    return mean + draws.rng.standard_normal(draws.B) * (std / math.sqrt(PAPER_SEEDS))


def cell_point(runs):
    """A cell's value: the mean over its runs of each run's pooled sum over
    its graphs divided by its pooled count (its value without graphs)."""
    values = []
    for _, _, graphs, value in runs.values():
        if graphs is None:
            values.append(value)
        elif isinstance(graphs, Blocks):
            matrix, C = graphs.matrix()
            values.append(float(confusion_score(graphs.quantity, matrix.sum(axis=0).reshape(1, C, C))[0]))
        else:
            count = sum(c for _, c in graphs.values())
            values.append(sum(s for s, _ in graphs.values()) / count if count else float("nan"))
    return sum(values) / len(values)


def difference(a, b, rows, cols, quantity):
    """b - a of two cells, each (score files, (row, column)), as a Margin
    (positive: b higher): paired over the graphs both scored and, for one
    model, over the seeds both ran (a finding: the study's model against the
    same trained the other way), so the interval holds only the noise they
    do not share; None when either cell is missing."""
    cells = [cells_of(units_lines(paths, rows, cols, [quantity])).get(cell) for paths, cell in (a, b)]
    if not all(cells):
        return None
    draws = Draws(generator("difference", *a[1], *b[1], quantity), RESAMPLES)
    sa, sb = (cell_resamples(c, draws) for c in cells)
    return Margin(f"{b[1]} - {a[1]}", cell_point(cells[1]) - cell_point(cells[0]), sb - sa, True)


# ---- a rule over resampled cells ---------------------------------------------------------
class Margin:
    """One comparison: its margin (positive on the claim's side) at the
    point values and over the resamples; strict for < and >."""

    def __init__(self, text, point, samples, strict):
        self.text, self.point, self.samples, self.strict = text, point, samples, strict
        finite = samples[np.isfinite(samples)]
        if finite.size == 0:
            self.low = self.high = float("nan")
        else:
            tail = (1 - LEVEL) / 2
            self.low, self.high = (float(x) for x in np.quantile(finite, [tail, 1 - tail]))

    def verdict(self):
        if math.isnan(self.low):
            return UNRESOLVED
        if (self.low > 0) if self.strict else (self.low >= 0):
            return HOLDS
        if (self.high <= 0) if self.strict else (self.high < 0):
            return FAILS
        return UNRESOLVED


def combine(verdicts, all_of):
    """and (all_of) / or of sub-verdicts."""
    if all_of:
        if FAILS in verdicts:
            return FAILS
        return HOLDS if all(v == HOLDS for v in verdicts) else UNRESOLVED
    if HOLDS in verdicts:
        return HOLDS
    return FAILS if all(v == FAILS for v in verdicts) else UNRESOLVED


def negate(verdict):
    return {HOLDS: FAILS, FAILS: HOLDS}.get(verdict, UNRESOLVED)


OPS = {ast.Lt: (True, 1), ast.LtE: (False, 1), ast.Gt: (True, -1), ast.GtE: (False, -1)}


def decide(expression, point, samples):
    """(verdict, [Margin]) of a rule whose cells are the names c0, c1, ...:
    point maps each to its value, samples to its B resamples."""
    margins = []

    def value(node, env):
        if isinstance(node, ast.Constant):
            return float(node.value)
        if isinstance(node, ast.Name):
            return env[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand, env)
        if isinstance(node, ast.BinOp):
            a, b = value(node.left, env), value(node.right, env)
            return {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b, ast.Div: lambda: a / b}[type(node.op)]()
        if isinstance(node, ast.Call):
            args = [value(a, env) for a in node.args]
            name = node.func.id
            if name == "abs":
                return np.abs(args[0])
            if name == "mean":
                return sum(args) / len(args)
            if name in ("min", "max"):
                out = args[0]
                for a in args[1:]:
                    out = (np.minimum if name == "min" else np.maximum)(out, a)
                return out
        raise ValueError(f"'{ast.unparse(node)}' is not a number in a rule")

    def truth(node):
        if isinstance(node, ast.BoolOp):
            return combine([truth(v) for v in node.values], isinstance(node.op, ast.And))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return negate(truth(node.operand))
        if isinstance(node, ast.Call) and node.func.id == "near":
            x, target, tolerance = node.args
            m = lambda env: value(tolerance, env) - np.abs(value(x, env) - value(target, env))  # noqa: E731
            margins.append(Margin(ast.unparse(node), float(m(point)), m(samples), False))
            return margins[-1].verdict()
        if isinstance(node, ast.Compare):
            verdicts, left = [], node.left
            for op, right in zip(node.ops, node.comparators):
                if type(op) not in OPS:
                    raise ValueError(f"'{type(op).__name__}' cannot be decided with an interval")
                strict, sign = OPS[type(op)]
                m = lambda env, l=left, r=right, s=sign: s * (value(r, env) - value(l, env))  # noqa: E731
                margins.append(Margin(ast.unparse(ast.Compare(left, [op], [right])), float(m(point)), m(samples), strict))
                verdicts.append(margins[-1].verdict())
                left = right
            return combine(verdicts, True)
        raise ValueError(f"'{ast.unparse(node)}' is not a comparison")

    tree = ast.parse(expression, mode="eval")
    return truth(tree.body), margins


def main():
    parser = argparse.ArgumentParser(description="A table's resampling units (see the module's help).")
    parser.add_argument("command", choices=["units"])
    parser.add_argument("--rows", default="model")
    parser.add_argument("--cols", default="name")
    parser.add_argument("--quantity", default="")
    parser.add_argument("scores", nargs="*")
    args = parser.parse_intermixed_args()
    quantities = [q for q in args.quantity.split(",") if q]
    for line in units_lines(args.scores, args.rows.split(","), args.cols.split(","), quantities):
        sys.stdout.write("\t".join(line) + "\n")


if __name__ == "__main__":
    main()
