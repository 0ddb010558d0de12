#!/usr/bin/python3
"""report.py - write a profile's report.md and self-contained report.html.

Called by `make report` (pipelines/report.mk) with the profile's tables (TSV),
figures (PNG), findings' scores and descriptions; every number in the report
comes from those files or from pipelines/paper/ (the paper's values).
"""
import argparse
import base64
import ctypes
import glob
import html
import math
import os
import re
import subprocess
import sys
import time

import msgpack

sys.dont_write_bytecode = True        # no __pycache__ in the work tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bootstrap  # noqa: E402
import claims as claimlib  # noqa: E402

TABLE_TITLES = {
    "table1": "Table 1 (syn-res): masked MAE of the final flow F and the intermediate flows F(t), min-cut accuracy c; test graphs",
    "table2": "Table 2 (qualitative): |F - F*|, the error of the predicted max-flow value, 2-community test graphs",
    "table-r2": "Appendix table lin-qualitative: R^2 of the max-flow value from max-pooled node embeddings",
    "r2-readings": "R² read two ways (test, held-out) and on bipartite capacities all 1 and 0 or 1",
    "bip01": "Bipartite test graphs, capacities all 1 (the study's) and 0 or 1 (the paper's text): |F - F*| and Table 1's metrics",
    "table-val": "Appendix table two-comm-val: the validation set (the training graphs' size)",
    "table3": "Table 3 (bvg-res): balanced accuracy and ROC (hard predictions) on the vessel graphs' test edges",
    "table3-n2v-dual": "Appendix table bvg-res-2: Node2Vec and dual embeddings concatenated, vessel graphs' test edges",
    "corrective": "Flow-fix (the corrective procedure): mean |conservation error| of inner nodes before and after, Table 1 test sets",
    "recon": "Vessel reconstruction: total loss at the last iteration over the first",
    "table-sp": "Shortest paths (make table-sp): pointer accuracy of the tree π, MAE of the potentials d, share of edges whose "
                "predicted potentials are feasible, share of nodes whose predicted path is a shortest one, and its length's gap; test graphs",
    "table-matching": "Bipartite matching (make table-matching): F1 of the repaired matching against the trace's, its size over the "
                      "maximum matching |M|/ν, share of graphs whose predicted cover is valid before repair, repaired cover size over ν, "
                      "and the share certified optimal (repaired matching and cover of the same size); a row per model and test set; "
                      "the set 'paper' is the control, the paper's undirected bipartite graphs, where the max-flow rows give the "
                      "masked MAE of the flow (mae_flow) and the min-cut accuracy",
    "table-vc": "Weighted vertex cover (make table-vc): w(C)/w(C_alg) after cover-fix (PDNAR's final_weight_ratio), w(C)/OPT over "
                "the graphs the solver proved optimal, and the certified gap w(C)/Σy (dual rows and the algorithm only); a row per "
                "model and test set",
}
FIGURE_CAPTIONS = {
    "fig-valid-pgn": "Validation loss (masked MSE of F) of the PGN processors, seed 0 (paper Figure 2a).",
    "fig-valid-mpnn": "Validation loss (masked MSE of F) of the MPNN processors, seed 0 (paper appendix figure mpnn-synthetic).",
    "fig-corrective": "Conservation error of every node (x) of every 2-community test graph (y), dual PGN-max, before and after flow-fix (paper appendix figure corrective).",
    "fig-recon": "Reconstruction loss of Ford-Fulkerson on the small vessel graph with new encoders for length, distance and curvature (paper Figure 2b).",
    "fig-reconstruction": "Reconstruction loss of Ford-Fulkerson on the small vessel graph with new encoders for length, distance and curvature (paper Figure 2b).",
    "fig-valid-bvg": "Validation balanced accuracy of the C-SAGE variants on the vessel graphs (paper appendix figure valid-bvg).",
    "fig-size": "Masked MAE of F and min-cut accuracy against the size of the test graphs (8 to 128 nodes), dual and primal PGN-max of the study and the dual trained with the authors' cut leak (--leak-cut); mean over seeds.",
    "fig-cutshare": "Share of graphs whose minimum cut has s alone on the source side, t alone on the sink side, or lies elsewhere, by size and family (ff-trace --no-hints).",
}
VERDICT_CLASS = {claimlib.HOLDS: "holds", claimlib.FAILS: "fails", claimlib.MISSING: "missing", claimlib.UNRESOLVED: "unresolved"}
bootstrap = claimlib.bootstrap


# ---- small document model rendered both as Markdown and HTML --------------------------
class Doc:
    def __init__(self):
        self.blocks = []

    def h(self, level, text, anchor=None):
        self.blocks.append(("h", level, text, anchor))

    def p(self, text):
        self.blocks.append(("p", text))

    def ul(self, items):
        self.blocks.append(("ul", items))

    def table(self, header, rows, classes=None, css=None):
        self.blocks.append(("table", header, rows, classes, css))

    def figure(self, path, caption, relative):
        self.blocks.append(("figure", path, caption, relative))

    def code(self, text):
        self.blocks.append(("code", text))

    def folded(self, header, rows, classes, css, lines):
        """A table written whole in Markdown (header, rows, classes as
        table()), and in HTML as `lines`: one line per row, each a list of
        (text, class) cells whose second holds the row's whole text folded
        under it (<details>), so that a long table fits on a screen or two."""
        self.blocks.append(("folded", header, rows, classes, css, lines))

    def markdown(self):
        out = []
        for b in self.blocks:
            if b[0] == "h":
                out.append("#" * b[1] + " " + b[2])
            elif b[0] == "p":
                out.append(b[1])
            elif b[0] == "ul":
                out.append("\n".join("- " + i for i in b[1]))
            elif b[0] in ("table", "folded"):
                cell = lambda c: str(c).replace("|", "\\|").replace("\n", "<br>")  # noqa: E731
                lines = ["| " + " | ".join(cell(c) for c in b[1]) + " |", "|" + "---|" * len(b[1])]
                lines += ["| " + " | ".join(cell(c) for c in r) + " |" for r in b[2]]
                out.append("\n".join(lines))
            elif b[0] == "figure":
                out.append(f"![{b[2]}]({b[3]})\n\n*{b[2]}*")
            elif b[0] == "code":
                out.append("```\n" + b[1] + "\n```")
        return "\n\n".join(out) + "\n"

    def html(self, title):
        style = """body{font-family:sans-serif;max-width:1400px;margin:1em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.2em;font-size:13px}
td,th{border:1px solid #bbb;padding:3px 6px;vertical-align:top;text-align:left}
th{background:#eee} .holds{background:#d9f2d9} .fails{background:#f8d7d7} .missing{background:#eee;color:#555} .unresolved{background:#fdf3d0}
.small{font-size:11px;color:#444} table.claims td:nth-child(2){max-width:330px}
table.claims td:nth-child(5){min-width:380px}
table.claims.folded{table-layout:fixed;width:100%} table.claims.folded td{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
table.claims.folded td:nth-child(2){max-width:none} table.claims.folded td:nth-child(5){min-width:0}
table.claims.folded summary{cursor:pointer;overflow:hidden;text-overflow:ellipsis}
table.claims.folded details[open]{white-space:normal} table.claims.folded details>div{font-size:11px;color:#444;margin:4px 0}
code,pre{font-size:12px;background:#f6f6f6} pre{white-space:pre-wrap}
figure{margin:1em 0} figure img{max-width:100%;border:1px solid #ddd} figcaption{font-size:13px;color:#333}"""
        out = [f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
               f"<style>{style}</style></head><body>"]
        for b in self.blocks:
            if b[0] == "h":
                anchor = f' id="{b[3]}"' if b[3] else ""
                out.append(f"<h{b[1]}{anchor}>{inline(b[2])}</h{b[1]}>")
            elif b[0] == "p":
                out.append(f"<p>{inline(b[1])}</p>")
            elif b[0] == "ul":
                out.append("<ul>" + "".join(f"<li>{inline(i)}</li>" for i in b[1]) + "</ul>")
            elif b[0] == "table":
                rows = ["<tr>" + "".join(f"<th>{inline(c)}</th>" for c in b[1]) + "</tr>"]
                for i, r in enumerate(b[2]):
                    cls = b[3][i] if b[3] else None
                    cells = []
                    for j, c in enumerate(r):
                        attr = f' class="{cls[j]}"' if cls and cls[j] else ""
                        cells.append(f"<td{attr}>{inline(str(c)).replace(chr(10), '<br>')}</td>")
                    rows.append("<tr>" + "".join(cells) + "</tr>")
                css = f' class="{b[4]}"' if b[4] else ""
                out.append(f"<table{css}>" + "".join(rows) + "</table>")
            elif b[0] == "figure":
                with open(b[1], "rb") as f:
                    data = base64.b64encode(f.read()).decode()
                out.append(f'<figure><img alt="{html.escape(b[2])}" src="data:image/png;base64,{data}">'
                           f"<figcaption>{inline(b[2])}</figcaption></figure>")
            elif b[0] == "code":
                out.append(f"<pre>{html.escape(b[1])}</pre>")
            elif b[0] == "folded":
                out.append(folded_html(b[1], b[2], b[3], b[4], b[5]))
        out.append("</body></html>")
        return "\n".join(out) + "\n"


def folded_html(header, rows, classes, css, lines):
    """Doc.folded's HTML: the lines' own header (the first line), then one
    <tr> per row, its second cell a <details> whose summary is that cell's
    text and whose body is the row's whole Markdown row, header by header."""
    head, widths = lines[0]
    cols = "".join(f'<col style="width:{w}">' if w else "<col>" for w in widths)
    out = [f'<table class="{css} folded"><colgroup>{cols}</colgroup><tr>' + "".join(f"<th>{inline(h)}</th>" for h in head) + "</tr>"]
    for i, line in enumerate(lines[1:]):
        more = "".join(f"<p><b>{inline(h)}:</b><br>{inline(str(c)).replace(chr(10), '<br>')}</p>" for h, c in zip(header, rows[i]))
        cells = []
        for j, (text, cls) in enumerate(line):
            attr = f' class="{cls}"' if cls else ""
            if j == 1:
                cells.append(f'<td{attr}><details><summary title="{html.escape(text)}">{inline(text)}</summary>'
                             f"<div>{more}</div></details></td>")
            else:
                cells.append(f'<td{attr} title="{html.escape(text)}">{inline(text)}</td>')
        out.append("<tr>" + "".join(cells) + "</tr>")
    return "".join(out) + "</table>"


def inline(text):
    """Escape, then `code` and **bold** as Markdown writes them."""
    text = html.escape(text)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    return re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", text)


# ---- numbers ------------------------------------------------------------------------------
def fmt(x, percent, digits=3):
    if x is None:
        return "-"
    if percent:
        return f"{100 * x:.1f}%"
    if x != 0 and (abs(x) >= 1e4 or abs(x) < 1e-3):
        return f"{x:.2e}"
    return f"{x:.{digits}f}"


def fmt_delta(x, percent, digits=3):
    if x is None:
        return ""
    return f"{100 * x:+.1f} pt" if percent else f"{x:+.{digits}f}"


def read_metric_records(paths):
    records = []
    for path in paths:
        with open(path, "rb") as f:
            records.extend(r for r in msgpack.Unpacker(f, raw=False) if r.get("kind") == "metric")
    return records


def means(records):
    """{(model, place, name): (mean over records, n)}; place is the family of a
    test score, 'validation' for the validation split."""
    sums = {}
    for r in records:
        place = "validation" if r["split"] == "val" else r["labels"].get("family", "-")
        key = (r["labels"].get("model", "-"), place, r["name"])
        s, n = sums.get(key, (0.0, 0))
        sums[key] = (s + r["value"], n + 1)
    return {k: (s / n, n) for k, (s, n) in sums.items()}


# ---- sections ------------------------------------------------------------------------------
def machine():
    model = "unknown"
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout.splitlines():
            if line.startswith("Model name:"):
                model = line.split(":", 1)[1].strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    try:
        get = ctypes.CDLL("libopenblas.so.0").openblas_get_corename
        get.restype = ctypes.c_char_p
        core = get().decode()
    except (OSError, AttributeError):
        core = "unknown"
    return f"{model}, {os.cpu_count()} CPUs; OpenBLAS core {core}"


def commit():
    try:
        head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True, check=True).stdout.strip()
        return head + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git work tree)"


def training_seconds(directories):
    """The seconds column's last value summed over the training logs
    (dar-fit --log, edge-embed --log; a resumed training's counts the time
    before its checkpoint too), the number of logs summed, and the number
    with no time: a cache hit's log is rebuilt from the model record, which
    holds no time."""
    total, timed, untimed = 0.0, 0, 0
    for d in directories:
        for path in glob.glob(os.path.join(d, "*.tsv")):
            with open(path, encoding="utf-8") as f:
                lines = [l.rstrip("\n").split("\t") for l in f if l.strip()]
            if len(lines) > 1 and "seconds" in lines[0]:
                last = lines[-1][lines[0].index("seconds")] if len(lines[-1]) == len(lines[0]) else ""
                if last:
                    total += float(last)
                    timed += 1
                else:
                    untimed += 1
    return total, timed, untimed


def duration(seconds):
    seconds = int(round(seconds))
    h, m, s = seconds // 3600, seconds % 3600 // 60, seconds % 60
    return f"{h} h {m:02d} min {s:02d} s" if h else f"{m} min {s:02d} s"


def check_claims(claims_path, paper_dir, tables, unit_args):
    claims, sets, _, papers = claimlib.load(claims_path, paper_dir, [])
    units = claimlib.load_units(unit_args)
    return [(c, claimlib.check_or_die(c, sets, tables, papers, claims_path, units)) for c in claims]


def margins_text(margins, verdict, limit=4):
    """The intervals beside a verdict: those that decide it first (a failing
    or unresolved comparison), at most `limit` of them."""
    ranked = sorted(margins, key=lambda m: {bootstrap.FAILS: 0, bootstrap.UNRESOLVED: 1}.get(m[1].verdict(), 2)
                    if verdict != claimlib.HOLDS else 0)
    lines = [f"{label}: {claimlib.margin_text(m, where, claimlib.is_percent_margin)}" if label != "the rule"
             else claimlib.margin_text(m, where, claimlib.is_percent_margin) for label, m, where in ranked[:limit]]
    if len(margins) > limit:
        lines.append(f"… {len(margins) - limit} more comparisons")
    return "\n".join(lines)


VERDICT_ORDER = (claimlib.HOLDS, claimlib.FAILS, claimlib.UNRESOLVED, claimlib.MISSING)


def verdict_counts(checked, key="verdict"):
    counts = {v: 0 for v in VERDICT_ORDER}
    for _, r in checked:
        if r[key] in counts:
            counts[r[key]] += 1
    return counts


def seed_counts(result):
    """The runs (seeds) behind a claim's measured cells, as "1 seed",
    "2 seeds" or "1-2 seeds"; "" when no cell was measured."""
    n = sorted({o[2] for _, _, _, o, _ in result["cells"] if o})
    if not n:
        return ""
    return (f"{n[0]}" if len(n) == 1 else f"{n[0]}-{n[-1]}") + (" seed" if n == [1] else " seeds")


def seeds_text(result):
    return f"\n({seed_counts(result)})" if seed_counts(result) else ""


def claim_rows(checked, reference=None, paper=True):
    """The claims table's rows, their cells' classes and the rules: id,
    claim, where, verdict, intervals, cells, then (paper) the rule on the
    paper's values and (reference) the reference run's verdict."""
    rows, classes, rules = [], [], []
    for c, r in checked:
        shown = r["cells"][:8]
        numbers = "\n".join(f"{row} · {col}: {fmt(o[0] if o else None, claimlib.is_percent(col))}"
                            + (f" (paper {fmt(p[0] if p else None, claimlib.is_percent(col))})" if paper else "")
                            for _, row, col, o, p in shown)
        if len(r["cells"]) > len(shown):
            numbers += f"\n… {len(r['cells']) - len(shown)} more cells (tables below)"
        notes = [n for n in r["notes"] if n.endswith("fails")] or [n for n in r["notes"]][:6]
        missing = [n for n in r["notes"] if n.endswith(": not measured")]
        if r["verdict"] == claimlib.MISSING and missing and len(missing) < r["instances"]:
            # measured in part: how much, and what the measured part says
            measured = [n for n in r["notes"] if not n.endswith(": not measured")]
            notes = [f"{len(missing)} of {r['instances']} instances not measured; "
                     + ("of the others:" if measured else "the others hold")] + measured
        verdict = r["verdict"] + ("\n" + "\n".join(notes[:6]) if notes and r["verdict"] != claimlib.HOLDS else "")
        if r["verdict"] != r["mean_verdict"] and r["verdict"] != claimlib.MISSING:
            verdict += f"\n(on the means alone: {r['mean_verdict']})"
        intervals = margins_text(r["margins"], r["verdict"]) or "-"
        rows.append([c["id"], c["claim"], c["where"] + seeds_text(r), verdict, intervals, numbers])
        classes.append([None, None, None, VERDICT_CLASS[r["verdict"]], "small", "small"])
        if paper:
            # the paper's values inside their own noise: no profile of ours is meant
            rows[-1].append(("not resolved within its own noise" if r["paper_verdict"] == claimlib.UNRESOLVED
                             else r["paper_verdict"])
                            + ("\n" + margins_text(r["paper_margins"], r["paper_verdict"], 2) if r["paper_margins"] else ""))
            classes[-1].append(VERDICT_CLASS.get(r["paper_verdict"]))
        if reference is not None:
            ref = reference.get(c["id"])
            rows[-1].append(ref["verdict"] + ("\n" + ref["margins"].replace("; ", "\n") if ref.get("margins") else "")
                            if ref else "-")
            classes[-1].append(VERDICT_CLASS.get(ref["verdict"]) if ref else None)
        rules.append(f"`{c['id']}`: `{c['rule']}`" + (f" over `{c['over']}`" if c["over"].strip() not in ("", "-") else ""))
    return rows, classes, rules


def claims_section(doc, args, checked, reference=None):
    verdicts = verdict_counts(checked)
    where = args.reference.rstrip("/")
    rows, classes, rules = claim_rows(checked, reference)
    doc.h(2, "Claims", "claims")
    doc.p(f"{len(checked)} quantitative claims of the paper, each written once in `pipelines/claims.tsv` with the table cells it rests on "
          f"and its rule, checked by `pipelines/claims.py` on this profile's tables: **{verdicts[claimlib.HOLDS]} hold, "
          f"{verdicts[claimlib.FAILS]} do not hold, {verdicts[claimlib.UNRESOLVED]} not resolved at this profile, "
          f"{verdicts[claimlib.MISSING]} not measured at this profile.** "
          "The same rule is evaluated on the paper's own values (last column): where the paper's table does not satisfy its "
          "own words, the claim says so there.")
    doc.p(f"**Method.** Every comparison of a rule is decided with its uncertainty (`pipelines/bootstrap.py`): a paired bootstrap "
          f"of {bootstrap.RESAMPLES} resamples draws the test graphs of each test set with replacement, the same draw for every "
          "model scored on them, and each model's seeds (trials, for Table 3) with replacement; a cell is recomputed from the drawn "
          "graphs' sums and counts as `metrics` pools them (`metrics --per-graph`), averaged over the drawn seeds. Each comparison "
          "becomes a margin, positive on the claim's side (for a < b, b - a; for near(x, t, tol), tol - |x - t|), and its "
          f"{100 * bootstrap.LEVEL:.0f}% percentile interval decides: **holds** when the interval lies on the claim's side, "
          "**does not hold** when it lies on the other side, **not resolved at this profile** when it contains the tie. A claim "
          "holds when all its comparisons hold, does not hold when one does not, and is **not measured at this profile** when "
          "a row or cell it names is not in this profile's tables (a claim about every processor is not decided by the one "
          "a small profile trains; the instances that were measured are named beside it). "
          "Table 3 is resampled the same way over its trials and over the test edges of each vessel graph: a graph's "
          "scored edges are cut into 100 contiguous blocks whose confusion matrices (`metrics --per-graph`) are drawn "
          "with replacement, the same blocks for every row on that graph, and the balanced accuracy and ROC recomputed "
          "from the pooled matrix. Cells with nothing to resample (one run and no per-graph scores: R², the "
          "reconstruction) count as exact. The paper's values are "
          f"resampled as normal draws around each mean with sd = the paper's std / √{bootstrap.PAPER_SEEDS} (its 5 seeds). "
          "The resamples are seeded by the claim and instance: the intervals are the same on every run. Shown beside each verdict: "
          "the margin at the measured means and its interval, the deciding comparisons first; no correction for the many "
          "comparisons of a claim is made.")
    header = (["id", "claim", "where", "verdict (this profile)", "margin [interval]", "cells: ours (paper)",
               "the rule on the paper's values"] + ([f"the reference run ({where}/)"] if reference is not None else []))
    # report.html: one line a claim (id, the paper's words, the three
    # verdicts, coloured), the rest folded under the words
    first = lambda text: text.split("\n")[0]  # noqa: E731
    lines = [(["id", "the paper's words (click for the comparisons and cells)", "seeds", "this profile", "the paper's own values"]
              + (["the reference run"] if reference is not None else []),
              ["12em", None, "5em", "16em", "16em"] + (["16em"] if reference is not None else []))]
    for (c, r), row, cls in zip(checked, rows, classes):
        lines.append([(row[0], None), (row[1], None), (seed_counts(r) or "-", None), (first(row[3]), cls[3]), (first(row[6]), cls[6])]
                     + ([(first(row[7]), cls[7])] if reference is not None else []))
    doc.folded(header, rows, classes, "claims", lines)
    doc.h(3, "The rules")
    doc.ul(rules)


def write_verdicts(path, checked):
    """The claims' verdicts with their intervals, one a line: what
    results/core/ keeps and a later report shows beside its own."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("id\tverdict\ton the means alone\tmargins\tpaper\n")
        for c, r in checked:
            margins = "; ".join(f"{label}: {claimlib.margin_text(m, where, claimlib.is_percent_margin)}" if label != "the rule"
                                else claimlib.margin_text(m, where, claimlib.is_percent_margin) for label, m, where in r["margins"])
            f.write("\t".join([c["id"], r["verdict"], r["mean_verdict"], margins.replace("\t", " "), r["paper_verdict"]]) + "\n")


def read_reference(directory):
    """A kept report (results/tables/, results/core/): {claim id: {verdict,
    margins}} and {table: cells}, or (None, {}) when it holds no run."""
    path = os.path.join(directory, "verdicts.tsv") if directory else ""
    if not path or not os.path.exists(path):
        return None, {}
    verdicts = {r["id"]: r for r in read_rows(path)}
    tables = {}
    for table in glob.glob(os.path.join(directory, "*.tsv")):
        name = os.path.basename(table)[:-4]
        if name != "verdicts" and not name.endswith(".units"):
            tables[name] = claimlib.read_table(table)
    return verdicts, tables


def reference_profile(directory):
    """The profile a kept report was made at: its report.md's profile line,
    else the folder's name (make results-<profile> keeps it in results/<profile>/)."""
    try:
        with open(os.path.join(directory, "report.md"), encoding="utf-8") as f:
            for line in f:
                m = re.match(r"- \*\*profile:\*\* ([A-Za-z0-9_-]+):", line)
                if m:
                    return m.group(1)
    except OSError:
        pass
    return os.path.basename(directory.rstrip("/"))


def read_rows(path):
    with open(path, encoding="utf-8") as f:
        lines = [l.rstrip("\n").split("\t") for l in f if l.strip() and not l.startswith("#")]
    return [dict(zip(lines[0], l)) for l in lines[1:]] if lines else []


def headline_section(doc, args, checked):
    """The findings a reader should not miss, each sentence computed from the
    claims, the size sweep and the cut positions."""
    count = lambda v: sum(r["verdict"] == v for _, r in checked)  # noqa: E731
    paper_fails = [c["id"] for c, r in checked if r["paper_verdict"] == claimlib.FAILS]
    paper_unresolved = [c["id"] for c, r in checked if r["paper_verdict"] == claimlib.UNRESOLVED]
    items = [f"Of the paper's {len(checked)} quantitative claims, {count(claimlib.HOLDS)} hold on this profile, "
             f"{count(claimlib.FAILS)} do not hold, {count(claimlib.UNRESOLVED)} are not resolved at this profile (the "
             f"interval holds the tie) and {count(claimlib.MISSING)} are not measured at this profile. "
             f"{len(paper_fails)} of the rules do not hold on the paper's own table values either "
             f"({', '.join(paper_fails) or 'none'}), and {len(paper_unresolved)} are inside the paper's own noise "
             f"({', '.join(paper_unresolved) or 'none'}): its words go further than its numbers there."]
    train, test = args.train_nodes, args.test_nodes
    sizes = {(r["model"], r["family"], r["nodes"]): r for r in read_rows(args.sizes)}

    def cut(model, nodes):
        r = sizes.get((model, "2-community", nodes))
        return fmt(float(r["cut_accuracy"]), True) if r and r.get("cut_accuracy") else None
    ours, leak = "PGN-max (dual)", "PGN-max (dual) --leak-cut"
    if cut(ours, train) and cut(ours, test) and cut(leak, train) and cut(leak, test):
        items.append(f"Min-cut accuracy of dual PGN-max on 2-community graphs: {cut(ours, train)} at {train} nodes "
                     f"(the training size) and {cut(ours, test)} at {test} nodes (the test size) as we train it; "
                     f"{cut(leak, train)} and {cut(leak, test)} with the authors' cut leak (`--leak-cut`: the true cut "
                     "is the model's input at the first flow step, at test time too).")
    shares = {(r["family"], r["capacity"], r["nodes"]): r for r in read_rows(args.cutshare)}
    a, b = shares.get(("two-community", "max-of-two", train)), shares.get(("two-community", "max-of-two", test))
    if a and b:
        percent = lambda x: f"{100 * float(x):.0f}%"  # noqa: E731
        items.append(f"Where the minimum cut of a 2-community graph lies: at {train} nodes, s alone {percent(a['s_only'])}, "
                     f"t alone {percent(a['t_only'])}, elsewhere (the community cut) {percent(a['other'])}; at {test} nodes, "
                     f"s alone {percent(b['s_only'])}, t alone {percent(b['t_only'])}, elsewhere {percent(b['other'])} "
                     f"({a['graphs']} graphs a size)."
                     + (" A model that learned where the cut lies on the training graphs meets another kind of cut on "
                        "the test graphs." if abs(float(a["other"]) - float(b["other"])) > 0.3 else ""))
    doc.h(2, "Headline", "headline")
    doc.ul(items)


def table_section(doc, name, path, reference=None, extra_rows=(), reference_label=""):
    with open(path, encoding="utf-8") as f:
        lines = [l.rstrip("\n").split("\t") for l in f if l.strip() and not l.startswith("#")]
    header = lines[0]
    first = next(i for i, h in enumerate(header) if i + 1 < len(header) and header[i + 1] == h + " std")
    columns = [h for i, h in enumerate(header) if i >= first and i + 2 < len(header)
               and header[i + 1] == h + " std" and header[i + 2] == h + " n"]
    rows = []
    for fields in lines[1:]:
        values = dict(zip(header, fields))
        row = [" ".join(fields[:first])]
        for col in columns:
            percent = claimlib.is_percent(col)
            digits = 2 if name in ("table-r2", "r2-readings") else 3
            mean = values.get(col, "")
            if mean == "":
                paper = values.get(col + " paper", "")
                row.append("-" if paper == "" else f"- (paper {fmt(float(paper), percent, digits)})")
                continue
            text = f"{fmt(float(mean), percent, digits)}"
            if values.get(col + " std", ""):
                std = float(values[col + " std"])
                text += f" ± {100 * std:.1f}" if percent else f" ± {fmt(std, False, digits)}"
            text += f" ({values[col + ' n']})"
            paper = values.get(col + " paper", "")
            if paper != "":
                text += f"\npaper {fmt(float(paper), percent, digits)}; Δ {fmt_delta(float(mean) - float(paper), percent, digits)}"
            ref = (reference or {}).get((row[0], col))
            if ref:
                text += f"\n{reference_label} {fmt(ref[0], percent, digits)}"
            row.append(text)
        rows.append(row)
    rows += [list(r) + ["-"] * (len(columns) + 1 - len(r)) for r in extra_rows]
    doc.h(3, TABLE_TITLES.get(name, name), name)
    doc.table([" / ".join(header[:first])] + columns, rows)



R2_READINGS = (("test", "the claims' own reading (Appendix table lin-qualitative above): fitted on the training graphs, scored on "
                          "the test graphs, bipartite capacities all 1"),
               ("test, bipartite 0 or 1", "the same fit and test graphs, the bipartite ones with capacities 0 or 1"),
               ("held-out, bipartite 0 or 1", "fitted on the training graphs, scored on held-out graphs of the training size, "
                                              "the bipartite ones with capacities 0 or 1"))


def r2_section(doc, args, checked, tables):
    """R^2 said once: what the paper leaves open, the two readings side by
    side on both bipartite capacity laws, and the R^2 claims decided on
    each (report.mk, r2/)."""
    if not args.r2_readings or not os.path.exists(args.r2_readings):
        return
    train, test = args.train_nodes, args.test_nodes
    doc.p("**R², said once.** The paper decodes the max-flow value linearly from max-pooled node embeddings and reports R² "
          "(Appendix table lin-qualitative), without saying on which graphs the map is fitted or scored. Its negative values "
          "(down to -115.6) say that it was scored on graphs it was not fitted on: a least-squares fit with an intercept "
          "has R² ≥ 0 on its own graphs. That leaves two readings, both computed here for every Table 2 model: "
          f"**test** — fitted on the training graphs ({train} nodes), scored on the test graphs ({test} nodes), where the "
          "max-flow values lie beyond those the map was fitted on, so it extrapolates (the Appendix table above, on which "
          f"the claims are decided); **held-out** — fitted on the training graphs, scored on held-out graphs of the training "
          f"size ({args.r2_heldout_note}: the validation set, and bipartite graphs of that size), which asks the map only what "
          "it was fitted for. The paper's text supports neither over the other; the held-out reading is the one that asks "
          "whether the embeddings hold the value, the test reading whether that survives the change of size. "
          "The bipartite family: with every capacity 1 (the authors' code, the study's default) every bipartite test graph "
          "of a size has the same max flow, so R² there is 0 by rule (a constant target) whatever the embeddings hold; the "
          "paper's text says the capacities are \"either 0 or 1\" (`gen-graphs --capacity zero-one`), under which the max "
          "flow varies. Every cell below says its family, capacities and reading.")
    table_section(doc, "r2-readings", args.r2_readings)
    variants = [(name, claimlib.read_table(path)) for name, _, path in (v.partition("=") for v in args.r2_variant)
                if os.path.exists(path)]
    r2_claims = [c for c, _ in checked if "table-r2[" in c["rule"]]
    if not variants or not r2_claims:
        return
    decided = {"test": checked}
    for name, table in variants:
        decided[name] = check_claims(args.claims, args.paper_dir, {**tables, "table-r2": table}, args.units)
    columns = [("test", "test")] + [(name, f"{name}, bipartite 0 or 1") for name, _ in variants]
    rows, classes = [], []
    for claim in r2_claims:
        row, cls = [claim["id"]], [None]
        for key, _ in columns:
            r = next(r for c, r in decided[key] if c["id"] == claim["id"])
            row.append(r["verdict"] + "\n" + (margins_text(r["margins"], r["verdict"], 2) or "-"))
            cls.append(VERDICT_CLASS[r["verdict"]])
        rows.append(row)
        classes.append(cls)
    doc.p("The R² claims decided on each reading (the same rule; R² has nothing to resample, so each comparison counts as "
          "exact). The Claims section's verdicts are those of the first column.")
    doc.table(["claim"] + [label for _, label in columns], rows, classes)


def bip01_section(doc, args):
    if not args.bip01 or not os.path.exists(args.bip01):
        return
    doc.p("The bipartite test graphs with the paper's capacities (0 or 1; `gen-graphs --capacity zero-one`, the same "
          "seeds and structure) beside the study's (all 1): |F - F*| (the max-flow value's error, which the paper reports "
          "on 2-community graphs only, Table 2) and Table 1's metrics. No claim of the paper rests on bipartite |F - F*|; "
          "every other bipartite number of this report (Table 1, the claims, the size sweep) uses capacities all 1.")
    table_section(doc, "bip01", args.bip01)


def findings_section(doc, args, checked, tables):
    doc.h(2, "Findings: departures from the authors' code, measured both ways", "findings")
    doc.p("Each departure from the authors' released code (formats/model.md, formats/graph.md) is measured on this profile: "
          "the study's models are the default side; the same configurations, seeds and iterations are trained the other way "
          "(`make report` trains them: pipelines/report.mk). Mean over seeds; F is the masked MAE of the final flow, c the "
          "min-cut accuracy, |F - F*| the max-flow value's error; test graphs of the Table 1 sets, validation graphs of the training size.")
    quantities = [("2-community", "mae_flow", "F, 2-comm"), ("2-community", "mae_hint_flow", "F(t), 2-comm"),
                  ("2-community", "cut_accuracy", "c, 2-comm"), ("2-community", "maxflow_error", "|F - F*|, 2-comm"),
                  ("bipartite", "mae_flow", "F, bipartite"), ("bipartite", "cut_accuracy", "c, bipartite"),
                  ("validation", "mae_flow", "F, validation"), ("validation", "cut_accuracy", "c, validation")]
    with open(args.findings, encoding="utf-8") as f:
        findings = [l.rstrip("\n").split("\t") for l in f if l.strip() and not l.startswith("#")]
    for finding_id, departure, default, other, configs in findings:
        doc.h(3, f"{departure} (`{finding_id}`)", f"finding-{finding_id}")
        doc.ul([f"**study's default:** {default}", f"**the other way:** {other}"])
        if finding_id == "residual":
            residual_finding(doc, args.residual)
            continue
        runs = sorted(glob.glob(os.path.join(args.finding_scores, f"{finding_id}-*.mp")))
        if not runs:
            doc.p("Not measured at this profile.")
            continue
        other_side = means(read_metric_records(runs))
        study_files = []
        for run in runs:
            config = os.path.basename(run)[len(finding_id) + 1:-3]
            study_files += [p for p in (os.path.join(args.study_scores, f"{config}-{x}.mp") for x in ("2comm", "bip", "val")) if os.path.exists(p)]
        study_side = means(read_metric_records(study_files))
        models = sorted({k[0] for k in other_side})
        cell = lambda model, place, name: (model, f"{PLACES[place]} {name}")  # noqa: E731

        def change(a_files, a_model, b_files, b_model, place, name):
            """b - a as text: the difference, its interval and what it says"""
            m = bootstrap.difference((a_files, cell(a_model, place, name)), (b_files, cell(b_model, place, name)),
                                     ["model"], ["split", "family", "name"], name)
            if m is None:
                return None, ""
            percent = claimlib.is_percent(name)
            interval = (f"[{fmt_delta(m.low, percent)}, {fmt_delta(m.high, percent)}]" if not math.isnan(m.low) else "[no interval]")
            return m, f"{fmt_delta(m.point, percent)} {interval}"
        rows, changes, moved = [], [], {}
        for model in models:
            for side, label in ((study_side, "study's default"), (other_side, "the other way")):
                row = [model, label]
                for place, name, _ in quantities:
                    v = side.get((model, place, name))
                    row.append(fmt(v[0] if v else None, claimlib.is_percent(name)))
                rows.append(row)
            for place, name, title in quantities:
                a, b = study_side.get((model, place, name)), other_side.get((model, place, name))
                if a and b:
                    percent = claimlib.is_percent(name)
                    m, text = change(study_files, model, runs, model, place, name)
                    moved[(model, place, name)] = (a[0], b[0], m)
                    word = {1: "higher the other way", -1: "lower the other way", 0: "inside the noise"}[sign(m)]
                    if m and m.low == m.high == 0:
                        word = "the same on every graph"
                    changes.append(f"{model}, {title}: {fmt(a[0], percent)} → {fmt(b[0], percent)} "
                                   f"({text or fmt_delta(b[0] - a[0], percent)}: {word})")
        doc.table(["model", "setting"] + [q[2] for q in quantities], rows)
        dual, primal = "PGN-max (dual)", "PGN-max (primal)"
        if dual in models and primal in models:
            said = []
            for side, label in ((study_side, "the study's default"), (other_side, "the other way")):
                files = study_files if side is study_side else runs
                for place in ("2-community", "bipartite"):
                    a, b = side.get((dual, place, "mae_flow")), side.get((primal, place, "mae_flow"))
                    if a and b:
                        # primal - dual: positive when the dual's F is lower
                        m, text = change(files, dual, files, primal, place, "mae_flow")
                        answer = {1: "yes", -1: "no", 0: "not resolved"}[sign(m)]
                        said.append(f"{label}, {place}: {answer} ({fmt(a[0], False)} against {fmt(b[0], False)}"
                                    + (f"; primal - dual {text}" if text else "") + ")")
            doc.p("Does dual PGN-max beat primal PGN-max on F? " + "; ".join(said) + ".")
        if finding_id == "leak":
            doc.p(leak_answer(moved, args.paper_dir))
            doc.p("The size sweep (figure fig-size and the table after it) shows the same two models on test graphs of 8 to 128 nodes.")
        doc.p(f"What changes the other way (the other way minus the default, with the {100 * bootstrap.LEVEL:.0f}% interval of a "
              f"paired bootstrap over the test graphs, where both sides scored the same ones, and over the seeds both ran, "
              f"{bootstrap.RESAMPLES} resamples; inside the noise when it holds 0):")
        doc.ul(changes)
        swapped_claims(doc, args, finding_id, checked, tables)


# the tables report.mk makes again with a finding's runs in place of the study's
SWAP_TABLES = ("table1", "table2")


def swapped_claims(doc, args, finding_id, checked, tables):
    """The claims decided again on Tables 1 and 2 with the finding's runs in
    place of the study's runs of their configurations (report.mk, swap/),
    the same rule and bootstrap: those whose cells the finding moves, with
    both verdicts."""
    paths = {t: os.path.join(args.swap, f"{t}-{finding_id}.tsv") for t in SWAP_TABLES}
    if not args.swap or not all(os.path.exists(p) for p in paths.values()):
        return
    other_tables = {**tables, **{t: claimlib.read_table(p) for t, p in paths.items()}}
    units = ([u for u in args.units if u.partition("=")[0] not in SWAP_TABLES]
             + [f"{t}={p[:-len('.tsv')]}.units.tsv" for t, p in paths.items()])
    other = check_claims(args.claims, args.paper_dir, other_tables, units)
    rows, classes, turned = [], [], []
    for (claim, a), (_, b) in zip(checked, other):
        if a["cells"] == b["cells"] or a["verdict"] == b["verdict"] == claimlib.MISSING:
            continue
        rows.append([claim["id"]] + [r["verdict"] + "\n" + (margins_text(r["margins"], r["verdict"], 2) or "-") for r in (a, b)])
        classes.append([None, VERDICT_CLASS[a["verdict"]], VERDICT_CLASS[b["verdict"]]])
        if a["verdict"] != b["verdict"]:
            turned.append(f"{claim['id']} ({a['verdict']} → {b['verdict']})")
    if not rows:
        doc.p("The claims the other way: it moves no cell of a claim this profile decides.")
        return
    doc.p("The claims the other way: each claim whose cells the finding moves, decided again by the same rule and bootstrap "
          "on Tables 1 and 2 with the finding's runs in place of the study's runs of their configurations and seeds "
          "(the deciding intervals first). " + (f"Verdicts it turns: {', '.join(turned)}." if turned else "It turns no verdict."))
    doc.table(["claim", "the study's default", "the other way"], rows, classes)


def sign(margin):
    """1 when a difference's interval lies above 0, -1 below, 0 when it holds
    0 (inside the noise) or there is none."""
    if margin is None or math.isnan(margin.low):
        return 0
    return 1 if margin.low > 0 else -1 if margin.high < 0 else 0


# where a findings quantity was scored: the split and family of its records
PLACES = {"2-community": "test 2-community", "bipartite": "test bipartite", "validation": "val -"}


def leak_answer(moved, paper_dir):
    """Does the paper's Table 2 need the cut leak?  Its dual's |F - F*| and
    cut accuracy without and with the leak, and whether the leak moves them
    beyond the noise toward the paper's values."""
    dual = "PGN-max (dual)"
    error, cut = moved.get((dual, "2-community", "maxflow_error")), moved.get((dual, "2-community", "cut_accuracy"))
    if not error or not cut or not error[2] or not cut[2]:
        return "Does the paper's Table 2 need the leak? Not measured at this profile (no per-graph scores of both sides)."
    paper = {**claimlib.read_paper(os.path.join(paper_dir, "table1.tsv")),
             **claimlib.read_paper(os.path.join(paper_dir, "table2.tsv"))}
    lowers, raises = sign(error[2]) < 0, sign(cut[2]) > 0
    answer = ("yes: with it the dual's |F - F*| is lower and its cut accuracy higher, beyond the noise" if lowers and raises
              else "partly: the leak moves one of them beyond the noise, not the other" if lowers or raises
              else "no, not at this profile: the leak moves neither beyond the noise")
    return (f"Does the paper's Table 2 need the leak? {answer}. Dual PGN-max on the 2-community test graphs: |F - F*| "
            f"{fmt(error[0], False)} without the leak, {fmt(error[1], False)} with it"
            + (f" (paper {fmt(paper[('maxflow_error', dual)][0], False, 2)})" if ("maxflow_error", dual) in paper else "")
            + f"; cut accuracy {fmt(cut[0], True)} without, {fmt(cut[1], True)} with"
            + (f" (paper {fmt(paper[(dual, '2-community cut_accuracy')][0], True)})" if (dual, "2-community cut_accuracy") in paper else "") + ".")


def residual_finding(doc, path):
    rows = read_rows(path)
    doc.table(["graphs", "family", "nodes", "count", "code's flow below the maximum", "mean shortfall", "T, code's rule", "T, ours"],
              [[r["file"], r["family"], r["nodes"], r["graphs"], f"{100 * float(r['short_share']):.1f}%",
                f"{100 * float(r['mean_shortfall']):.2f}%", r["code_T"], r["our_T"]] for r in rows])
    worst = max(rows, key=lambda r: float(r["short_share"]))
    doc.p(f"With the code's C - |F| test the trace stops short of the maximum flow on {100 * float(worst['short_share']):.1f}% "
          f"of the graphs of `{worst['file']}` at most ({worst['family']}, {worst['nodes']} nodes); ff-trace's true residual "
          "never does (its maxflow is the exact solver's).")


def sizes_section(doc, sizes_path, note, cutshare_path):
    with open(sizes_path, encoding="utf-8") as f:
        lines = [l.rstrip("\n").split("\t") for l in f if l.strip() and not l.startswith("#")]
    header = lines[0]
    data = {}
    for fields in lines[1:]:
        v = dict(zip(header, fields))
        for q in ("mae_flow", "cut_accuracy"):
            if v.get(q, "") != "":
                data.setdefault((v["model"], v["family"], q), {})[int(v["nodes"])] = float(v[q])
    sizes = sorted({n for d in data.values() for n in d})
    rows = [[m, fam, "F" if q == "mae_flow" else "c"] + [fmt(d.get(n), q == "cut_accuracy") for n in sizes]
            for (m, fam, q), d in sorted(data.items())]
    doc.p(f"Accuracy against test-graph size ({note}; mean over seeds; the models were trained on one size, see the header):")
    doc.table(["model", "family", "quantity"] + [f"{n} nodes" for n in sizes], rows)
    with open(cutshare_path, encoding="utf-8") as f:
        lines = [l.rstrip("\n").split("\t") for l in f if l.strip()]
    doc.p("Where the minimum cut lies (share of graphs):")
    doc.table(["family", "capacities", "nodes", "s alone", "t alone", "elsewhere", "graphs"],
              [r[:3] + [f"{100 * float(x):.0f}%" for x in r[3:6]] + [r[6]] for r in lines[1:]])


def pair_section(doc, args, name, table, units, claims, noun, intro, extra=(), after_table=None):
    """One registry entry's section after its heading: its make table's TSV
    (with published rows where there are any), then the claims of its
    claims file decided as the paper's are, with their intervals."""
    if not table or not os.path.exists(table):
        doc.p("Not measured at this profile.")
        return
    checked = check_claims(claims, args.paper_dir, {name: claimlib.read_table(table)}, [f"{name}={units}"])
    verdicts = verdict_counts(checked)
    doc.p(intro)
    table_section(doc, name, table, extra_rows=extra)
    if after_table:
        doc.p(after_table)
    rows, classes, rules = claim_rows(checked, paper=False)
    doc.p(f"{len(checked)} claims about {noun} (`{claims}`), decided as the paper's are (the method above: "
          f"a paired bootstrap over the test graphs and the seeds): **{verdicts[claimlib.HOLDS]} hold, "
          f"{verdicts[claimlib.FAILS]} do not hold, {verdicts[claimlib.UNRESOLVED]} not resolved at this profile, "
          f"{verdicts[claimlib.MISSING]} not measured at this profile.**")
    doc.table(["id", "claim", "where", "verdict (this profile)", "margin [interval]", "cells: ours"], rows, classes, "claims")
    doc.ul(rules)


def shortest_paths_text(args, note):
    """Shortest paths: make table-sp's table beside CLRS's published scores."""
    clrs = args.sp_clrs.split("|")
    return dict(intro=f"**trained:** {note}. PGN-max dual (the shortest-path tree π and the node potentials d, the LP dual), "
                      "primal (π) and no-algo (no hints), with the random baseline (`pipelines/shortest-paths.mk`, `make table-sp`); "
                      "CLRS's rows are their published out-of-distribution Bellman-Ford scores at 64 nodes, not run here.",
                extra=[[clrs[i], clrs[i + 1]] for i in range(0, len(clrs) - 1, 2)])


# Georgiev & Lio's one figure: a sentence, not a table cell of theirs; it
# stands in the certified column, the nearest of ours (certified implies optimal).
GEORGIEV_LIO = ["Georgiev & Liò 2020, published (no dual; 1× to 8× their 8+8 training size)", "-", "-", "-", "-",
                "optimal matchings \"almost 100 %\" of the time"]


def matching_text(args, note):
    """Bipartite matching: make table-matching's table beside Georgiev & Liò's figure."""
    return dict(intro=f"**trained:** {note}. PGN-max dual (the matching and the König cover), primal (the matching) and "
                      "no-algo (no hints), each repaired by match-fix, with the random baseline and the exact solver "
                      "(`pipelines/matching.mk`, `make table-matching`); the sets are those of its tables (n16 the training "
                      "distribution at the quick profile).",
                extra=[GEORGIEV_LIO],
                after_table="Georgiev & Liò's row is their sentence, not a number of ours: they report the share of "
                            "graphs whose matching is optimal, without a dual and so without a certificate; a certified "
                            "graph here has a repaired matching and cover of the same size, a proof of optimality that "
                            "needs no solver, so our certified share is at most our optimal share. "
                            "The set 'paper' is a control: the paper's own undirected bipartite graphs (Table 1's out-of-family "
                            "set, 64 nodes with s and t), read as matching instances with their sides for the matching rows. "
                            "On undirected graphs a maximum flow is no matching (it can exceed ν), so what these graphs test "
                            "is flow and cut: its max-flow rows are the paper's dual PGN-max (study.mk's model, trained on "
                            "two-community graphs) and random on the same graphs, where Table 1 reports F 0.49 ± 0.22 and "
                            "c 100 % for the dual, F 1.00 and c 50 % for random. The claims below leave the control out (they "
                            "are about the matching's generalisation).")


def vertex_cover_text(args, note):
    """Weighted vertex cover: make table-vc's table (PDNAR's published
    numbers are not transcribed)."""
    return dict(intro=f"**trained:** {note}. Primal (the cover), dual (also the increments and the packing), no-algo and "
                      "dual +opt (PDNAR's extra loss toward the optimal cover) per processor, each repaired by cover-fix, with the "
                      "algorithm itself, PDNAR's corrective stage alone and the random baseline (`pipelines/vertex-cover.mk`, "
                      "`make table-vc`). **PDNAR's published numbers (He & Vitercik, ICML 2025) are not available here:** none is "
                      "transcribed yet (`pipelines/paper/vertex-cover-pdnar.md`), so no row of theirs stands beside ours and "
                      "their claims are decided on our numbers only.")


# The words of a pair's section beyond its manifest row (pipelines/pairs.tsv),
# by pair: a pair without any gets the profile's note as its introduction.
PAIR_TEXT = {
    "shortest-paths": shortest_paths_text,
    "matching": matching_text,
    "vertex-cover": vertex_cover_text,
}
PAIR_COLUMNS = ("pair", "vars", "table", "claims", "noun", "title")


def read_pairs(path):
    """The rows of the pairs' manifest (pipelines/pairs.tsv), in order, as
    dicts of its columns."""
    pairs = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            cells = line.rstrip("\n").split("\t")
            if len(cells) != len(PAIR_COLUMNS):
                sys.exit(f"report.py: {path}:{n}: {len(cells)} columns, expected {len(PAIR_COLUMNS)} ({', '.join(PAIR_COLUMNS)})")
            pairs.append(dict(zip(PAIR_COLUMNS, cells)))
    return pairs


def pair_sections(doc, args):
    """A section per pair of the manifest: its title, then its table and
    claims (pair_section) with the words PAIR_TEXT has for it."""
    given = {}
    for option in ("pair_table", "pair_units", "pair_note"):
        given[option] = dict(arg.partition("=")[::2] for arg in getattr(args, option))
    for p in read_pairs(args.pairs):
        name = p["pair"]
        note = given["pair_note"].get(name, "")
        text = PAIR_TEXT[name](args, note) if name in PAIR_TEXT else dict(intro=f"**trained:** {note}.")
        doc.h(2, p["title"], name)
        pair_section(doc, args, p["table"], given["pair_table"].get(name, ""), given["pair_units"].get(name, ""),
                     p["claims"], p["noun"], **text)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    for option in ("out", "profile", "note", "vessel-note", "trained", "version", "start", "claims", "paper-dir",
                   "findings", "search", "sizes", "sizes-note", "cutshare", "train-nodes", "test-nodes", "residual", "logs", "study-scores", "finding-scores", "swap",
                   "sp-clrs"):
        parser.add_argument("--" + option, default="")
    parser.add_argument("--pairs", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "pairs.tsv"),
                        help="the pairs' manifest: a section each (pipelines/pairs.tsv)")
    for option, what in (("table", "its make table's TSV"), ("units", "its per-graph units"), ("note", "its profile's note")):
        parser.add_argument("--pair-" + option, action="append", default=[], help=f"PAIR=... {what}, per pair of --pairs")
    parser.add_argument("--table", action="append", default=[])
    parser.add_argument("--units", action="append", default=[])
    parser.add_argument("--r2-readings", default="", help="R^2 of the Table 2 models by family and reading (report.mk, r2/)")
    parser.add_argument("--r2-variant", action="append", default=[], help="READING=table-r2 of that reading, bipartite 0 or 1")
    parser.add_argument("--r2-heldout-note", default="", help="the held-out graphs of the held-out reading, in words")
    parser.add_argument("--bip01", default="", help="Table 1's and 2's metrics on bipartite capacities all 1 and 0 or 1")
    parser.add_argument("--reference", default="", help="a kept report's directory (results/tables/, results/core/) to show beside")
    parser.add_argument("--figure", action="append", default=[])
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    tables = {}
    for arg in args.table:
        name, _, path = arg.partition("=")
        tables[name] = claimlib.read_table(path) if os.path.exists(path) else {}

    doc = Doc()
    title = f"dar: what the {args.profile} profile reproduces of Dual Algorithmic Reasoning (ICLR 2023)"
    doc.h(1, title)
    seconds, models, untimed = training_seconds(args.logs.split(","))
    wall = f"{duration(time.time() - float(args.start))} for this `make report`" if args.start else "not recorded"
    doc.ul([f"**profile:** {args.profile}: {args.note}",
            f"**trained:** {args.trained}",
            f"**vessel graphs:** {args.vessel_note or 'none at this profile (Table 3 is not run)'}",
            f"**machine:** {machine()}",
            f"**wall time:** {wall}; " + (
                f"the {models} trainings' own time (their logs' last `seconds`) adds up to {duration(seconds)}"
                + (f"; {untimed} more came from the cache, whose logs hold no time" if untimed else "")
                if models else f"the {untimed} trainings came from the cache, whose logs hold no time"),
            f"**project:** dar {args.version}, commit {commit()}"])
    doc.p("Every number below comes from the study's outputs for this profile (`make report` builds whatever is missing; "
          "every step is cached); the paper's values come from `pipelines/paper/`.")
    checked = check_claims(args.claims, args.paper_dir, tables, args.units)
    write_verdicts(os.path.join(args.out, "verdicts.tsv"), checked)
    reference, reference_tables = read_reference(args.reference)
    if args.reference:
        where, profile = args.reference.rstrip("/"), reference_profile(args.reference)
        doc.p(f"**The reference run** (`{where}/`, the {profile} profile, its own report.md says the settings, "
              "the machine, the commit and the wall time): its verdicts and cells are shown beside ours."
              if reference is not None else
              f"**The reference run** (`{where}/`): not yet run; `make report PROFILE={profile}` then `make results-{profile}` "
              "makes it.")
    headline_section(doc, args, checked)
    claims_section(doc, args, checked, reference)

    doc.h(2, "Tables", "tables")
    doc.p("Each cell: our mean ± sample std (number of runs), then the paper's value and our difference to it (Δ; percentage points for percentages).")
    for arg in args.table:
        name, _, path = arg.partition("=")
        if os.path.exists(path):
            table_section(doc, name, path, reference_tables.get(name), reference_label=args.reference.rstrip("/"))
            if name == "table-r2":
                r2_section(doc, args, checked, tables)
                bip01_section(doc, args)
    if args.search and os.path.exists(args.search):
        doc.h(3, "Appendix: the bi-level random search", "search")
        with open(args.search, encoding="utf-8") as f:
            doc.code(f.read().strip())

    doc.h(2, "Figures", "figures")
    for path in args.figure:
        name = os.path.basename(path)[:-4]
        if not os.path.exists(path):
            doc.p(f"{name}: not made at this profile.")
            continue
        doc.figure(path, FIGURE_CAPTIONS.get(name, name), os.path.relpath(path, args.out))
    sizes_section(doc, args.sizes, args.sizes_note, args.cutshare)

    findings_section(doc, args, checked, tables)
    pair_sections(doc, args)

    with open(os.path.join(args.out, "report.md"), "w", encoding="utf-8") as f:
        f.write(doc.markdown())
    with open(os.path.join(args.out, "report.html"), "w", encoding="utf-8") as f:
        f.write(doc.html(title))


if __name__ == "__main__":
    main()
