#!/usr/bin/python3
"""claims.py - the paper's quantitative claims checked against a profile's tables.

    claims.py --claims pipelines/claims.tsv --paper-dir pipelines/paper \
              --table table1=out/smoke/report/table1.tsv [--table NAME=FILE ...]

prints one line per claim: id, verdict, our numbers, the paper's numbers,
the instances that fail or are missing (tab-separated).  pipelines/report.py
imports it.

Tables are `metrics --table tsv` output (a header, the row key columns, then
for each column NAME, NAME std, NAME n [, NAME paper, NAME paper std]), or
files of the same shape written by the report's own steps.  A cell is
named in a rule as NAME[ROW | COLUMN], as the table shows it:

    table1[PGN-max (dual) | {family} mae_flow] < table1[PGN-max (primal) | {family} mae_flow]

`{family}` is filled from the claim's `over` column (`family=2-community,bipartite`;
several `key=a,b` parts separated by `;` give every combination; `@set` names a
list defined in the claims file).  The rule is a Python expression over
numbers: comparisons, and/or/not, + - * /, abs, min, max, mean(...) and
near(x, target, tolerance).  A claim is "not measured at this profile" when
any of its instances lacks a cell: a claim about every processor is not
decided by the one processor a small profile trains, and a failing measured
instance is named in the notes, not in the verdict.  Otherwise it holds if
every instance holds and does not hold if any fails.  The same rule is
evaluated on the paper's own values (pipelines/paper/NAME.tsv) where the
paper has them.

With `--units NAME=FILE` (pipelines/bootstrap.py units) every comparison is
decided with its uncertainty instead: a paired bootstrap over the test graphs
and the seeds gives each comparison's margin an interval, and an instance
holds, does not hold, or is "not resolved at this profile" (bootstrap.py
says how).  A cell without units is taken as exact.  The verdict on the
means alone stays in the output beside it.
"""
import argparse
import ast
import itertools
import os
import re
import sys

import numpy as np

sys.dont_write_bytecode = True        # no __pycache__ in the work tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bootstrap  # noqa: E402

HOLDS, FAILS, MISSING = "holds", "does not hold", "not measured at this profile"
UNRESOLVED = bootstrap.UNRESOLVED
CELL = re.compile(r"([A-Za-z0-9_-]+)\[([^\]|]+)\|([^\]]+)\]")


def read_table(path):
    """A table TSV as {(row, column): (mean, std, n)}; rows of several key
    parts are joined by a space, as metrics --paper names them."""
    cells = {}
    with open(path, encoding="utf-8") as f:
        lines = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
    if not lines:
        return cells
    header = lines[0].split("\t")
    # the row key columns come first: those that are not NAME or NAME <suffix>
    first = next(i for i, h in enumerate(header) if i + 1 < len(header) and header[i + 1] == h + " std")
    for line in lines[1:]:
        fields = line.split("\t")
        row = " ".join(fields[:first])
        for i in range(first, len(header)):
            name = header[i]
            if i + 2 < len(header) and header[i + 1] == name + " std" and header[i + 2] == name + " n":
                if fields[i] != "":
                    std = float(fields[i + 1]) if fields[i + 1] != "" else None
                    cells[(row, name)] = (float(fields[i]), std, int(fields[i + 2]))
    return cells


def paper_number(text):
    text = text.strip()
    if text.endswith("%"):
        return float(text[:-1]) / 100
    return float(text)


def read_paper(path):
    """pipelines/paper/NAME.tsv as {(row, column): (mean, std)}; '-' cells are left out."""
    cells = {}
    if not os.path.exists(path):
        return cells
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            parts = line.rstrip("\n").split("\t")
            # a commented row ('#LC (N2V)<TAB>...') is still the paper's value:
            # the comment only keeps metrics --table from warning about a row
            # the pipeline does not run yet
            if parts[0].startswith("#"):
                parts[0] = parts[0][1:]
                if len(parts) < 3 or not re.fullmatch(r"-?[0-9.]+%?", parts[2].strip()):
                    continue
            if len(parts) < 3 or parts[2].strip() == "-":
                continue
            std = paper_number(parts[3]) if len(parts) > 3 and parts[3].strip() else None
            cells[(parts[0], parts[1])] = (paper_number(parts[2]), std)
    return cells


def read_claims(path):
    """(claims, sets): claims as dicts with id, claim, where, over, rule."""
    claims, sets = [], {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            if parts[0].startswith("@"):
                sets[parts[0]] = [v.strip() for v in parts[1].split(",")]
                continue
            if len(parts) != 5:
                sys.exit(f"claims.py: {path}: line {number}: expected 5 tab-separated fields (id, claim, where, over, rule), got {len(parts)}")
            claims.append(dict(zip(("id", "claim", "where", "over", "rule"), parts), line=number))
    return claims, sets


def instances(over, sets):
    """Every combination of the `over` column's values, as dicts."""
    if not over.strip() or over.strip() == "-":
        return [{}]
    keys, values = [], []
    for part in over.split(";"):
        key, _, vals = part.partition("=")
        names = []
        for v in vals.split(","):
            v = v.strip()
            names.extend(sets[v] if v.startswith("@") else [v])
        keys.append(key.strip())
        values.append(names)
    return [dict(zip(keys, combo)) for combo in itertools.product(*values)]


def near(x, target, tolerance):
    return abs(x - target) <= tolerance


FUNCTIONS = {"abs": abs, "min": min, "max": max, "near": near,
             "mean": lambda *xs: sum(xs) / len(xs)}
ALLOWED = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub,
           ast.BinOp, ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Compare, ast.Lt, ast.LtE,
           ast.Gt, ast.GtE, ast.Eq, ast.NotEq, ast.Call, ast.Name, ast.Load, ast.Constant)


def evaluate(expression, values):
    """A rule with its cells replaced by names c0, c1, ...: True or False."""
    tree = ast.parse(expression, mode="eval")
    for node in ast.walk(tree):
        if not isinstance(node, ALLOWED):
            raise ValueError(f"'{type(node).__name__}' is not allowed in a rule")
        if isinstance(node, ast.Name) and node.id not in values and node.id not in FUNCTIONS:
            raise ValueError(f"unknown name '{node.id}'")
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS):
            raise ValueError("only abs, min, max, mean and near can be called in a rule")
        if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float)):
            raise ValueError(f"{node.value!r} is not a number")
    return bool(eval(compile(tree, "<rule>", "eval"), {"__builtins__": {}}, {**FUNCTIONS, **values}))


def fill(text, instance):
    for key, value in instance.items():
        text = text.replace("{" + key + "}", value)
    return text


def check(claim, sets, tables, papers, units=None):
    """The verdict of one claim: a dict with verdict, paper_verdict,
    mean_verdict (the rule on the means alone), cells [(table, row, column,
    ours (mean, std, n) or None, paper (mean, std) or None)], notes
    (instances that fail, are not resolved or lack a cell) and margins
    [(instance, bootstrap.Margin, cell names)], paper_margins the same on the
    paper's values."""
    units = units or {}
    result = {"verdict": None, "paper_verdict": None, "cells": [], "notes": [], "margins": [], "paper_margins": []}
    seen = set()
    outcomes, paper_outcomes, mean_outcomes = [], [], []
    for instance in instances(claim["over"], sets):
        rule = fill(claim["rule"], instance)
        ours, paper, where = {}, {}, {}

        def cell(match):
            table, row, column = match.group(1), match.group(2).strip(), match.group(3).strip()
            name = f"c{len(ours)}"
            our = tables.get(table, {}).get((row, column))
            pap = papers.get(table, {}).get((row, column))
            ours[name] = our[0] if our else None
            paper[name] = pap
            where[name] = (table, row, column)
            if (table, row, column) not in seen:
                seen.add((table, row, column))
                result["cells"].append((table, row, column, our, pap))
            return name

        expression = CELL.sub(cell, rule)
        label = ", ".join(instance.values()) or "the rule"
        if any(v is None for v in ours.values()):
            outcomes.append(None)
            mean_outcomes.append(None)
            result["notes"].append(f"{label}: not measured")
        else:
            mean_outcomes.append(evaluate(expression, ours))
            draws = bootstrap.Draws(bootstrap.generator(claim["id"], label), bootstrap.RESAMPLES)
            samples = {}
            for name, (table, row, column) in where.items():
                runs = units.get(table, {}).get((row, column))
                samples[name] = bootstrap.cell_resamples(runs, draws) if runs else np.full(draws.B, ours[name])
            verdict, margins = bootstrap.decide(expression, ours, samples)
            outcomes.append(verdict)
            result["margins"] += [(label, m, where) for m in margins]
            if verdict != HOLDS:
                result["notes"].append(f"{label}: " + ("fails" if verdict == FAILS else "not resolved"))
        if any(v is None for v in paper.values()):
            paper_outcomes.append(None)
        else:
            draws = bootstrap.Draws(bootstrap.generator(claim["id"], label, "paper"), bootstrap.RESAMPLES)
            point = {name: p[0] for name, p in paper.items()}
            evaluate(expression, point)       # the rule's checks, before the bootstrap reads it
            samples = {name: bootstrap.paper_resamples(p[0], p[1], draws) for name, p in paper.items()}
            verdict, margins = bootstrap.decide(expression, point, samples)
            paper_outcomes.append(verdict)
            result["paper_margins"] += [(label, m, where) for m in margins]
    result["instances"] = len(outcomes)
    result["verdict"] = verdict_of(outcomes)
    result["mean_verdict"] = verdict_of([None if o is None else (HOLDS if o else FAILS) for o in mean_outcomes])
    result["paper_verdict"] = verdict_of(paper_outcomes, missing_first=False) if any(o is not None for o in paper_outcomes) else "no values in the paper"
    return result


def verdict_of(outcomes, missing_first=True):
    """A claim's verdict from its instances' (None: a cell not measured): a
    missing cell decides, as the claim is about rows the profile does not
    have; then any failure; then an instance inside the noise.  On the
    paper's values (missing_first False) a failure decides first: a cell the
    paper leaves empty does not excuse the ones it fills."""
    if missing_first and (not outcomes or any(o is None for o in outcomes)):
        return MISSING
    if any(o == FAILS for o in outcomes):
        return FAILS
    if any(o is None for o in outcomes):
        return MISSING
    if all(o == HOLDS for o in outcomes):
        return HOLDS
    return UNRESOLVED


def number(x, percent):
    if x is None:
        return "-"
    if percent:
        return f"{100 * x:.1f}%"
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:.0f}"


PERCENT = ("cut_accuracy", "accuracy", "balanced_accuracy", "roc_auc", "roc_hard",
           "pointer_accuracy", "feasible_edges", "path_optimal", "certified", "cover_valid_before",
           "opt_unproven", "uncertified")


def is_percent(column):
    return column.split(" ")[-1] in PERCENT


def check_or_die(claim, sets, tables, papers, path, units=None):
    """check(), with a bad rule reported as one line naming the claim."""
    try:
        return check(claim, sets, tables, papers, units)
    except (ValueError, SyntaxError, KeyError) as e:
        sys.exit(f"claims.py: {path}: line {claim['line']}: claim '{claim['id']}': {e}")


def load_units(unit_args):
    """{table: bootstrap.read_units(FILE)} from NAME=FILE arguments."""
    units = {}
    for arg in unit_args:
        name, _, path = arg.partition("=")
        units[name] = bootstrap.read_units(path)
    return units


def margin_text(margin, where, percent_of):
    """A comparison with its cells named, its margin and interval:
    `dual · 2-community mae_flow < primal · ...: +0.018 [+0.004, +0.031]`."""
    # one pass over the names c0, c1, ...: replacing them one after the other
    # would find "c1" again inside a replaced cell's name (a set called tc16)
    text = re.sub(r"\bc\d+\b", lambda m: f"{where[m.group(0)][1]} · {where[m.group(0)][2]}" if m.group(0) in where
                  else m.group(0), margin.text)
    percent = percent_of(margin, where)
    show = (lambda x: f"{100 * x:+.1f} pt") if percent else (lambda x: f"{x:+.3g}")
    return f"{text}: {show(margin.point)} [{show(margin.low)}, {show(margin.high)}]"


def is_percent_margin(margin, where):
    """A margin is in percentage points when every cell it names is a percentage."""
    names = [n for n in where if n in margin.text]
    return bool(names) and all(is_percent(where[n][2]) for n in names)


def load(claims_path, paper_dir, table_args):
    tables, papers = {}, {}
    for arg in table_args:
        name, _, path = arg.partition("=")
        tables[name] = read_table(path) if os.path.exists(path) else {}
    claims, sets = read_claims(claims_path)
    for claim in claims:
        for table, _, _ in CELL.findall(claim["rule"]):
            if table not in papers:
                papers[table] = read_paper(os.path.join(paper_dir, table + ".tsv"))
    return claims, sets, tables, papers


def main():
    parser = argparse.ArgumentParser(description="Check the paper's claims against a profile's tables.")
    parser.add_argument("--claims", required=True)
    parser.add_argument("--paper-dir", required=True)
    parser.add_argument("--table", action="append", default=[], metavar="NAME=FILE")
    parser.add_argument("--units", action="append", default=[], metavar="NAME=FILE",
                        help="a table's resampling units (bootstrap.py units): decide with intervals")
    parser.add_argument("--margins", action="store_true", help="print each comparison's margin and interval after the claim's line")
    parser.add_argument("--markdown", action="store_true",
                        help="print a Markdown list instead: each claim, its verdict and its comparisons' intervals")
    args = parser.parse_args()
    claims, sets, tables, papers = load(args.claims, args.paper_dir, args.table)
    units = load_units(args.units)
    for claim in claims:
        r = check_or_die(claim, sets, tables, papers, args.claims, units)
        if args.markdown:
            intervals = "; ".join((f"{label}: " if label != "the rule" else "") + margin_text(m, where, is_percent_margin)
                                  for label, m, where in r["margins"])
            print(f"- `{claim['id']}` {claim['claim']}: **{r['verdict']}**" + (f" ({intervals})" if intervals else ""))
            continue
        cells = "; ".join(f"{t}[{row} | {col}] = {number(o[0] if o else None, is_percent(col))}"
                          f" (paper {number(p[0] if p else None, is_percent(col))})"
                          for t, row, col, o, p in r["cells"])
        print("\t".join([claim["id"], r["verdict"], r["paper_verdict"], cells, "; ".join(r["notes"])]))
        if args.margins:
            for label, margin, where in r["margins"]:
                print(f"  {label}: {margin_text(margin, where, is_percent_margin)} {margin.verdict()}")
            for label, margin, where in r["paper_margins"]:
                print(f"  paper, {label}: {margin_text(margin, where, is_percent_margin)} {margin.verdict()}")


if __name__ == "__main__":
    main()
