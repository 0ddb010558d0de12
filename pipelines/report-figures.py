#!/usr/bin/python3
"""report-figures.py KIND INPUT OUTPUT.png NOTE - the report's own figures.

  size      INPUT = sizes.tsv (metrics --table tsv, rows model, family, nodes):
            flow MAE and min-cut accuracy against the test graphs' size
  cutshare  INPUT = cutshare.tsv (pipelines/cutshare.sh): the share of minimum
            cuts that are s alone, t alone or elsewhere, against size
  recon     INPUT = primal.tsv,dual.tsv (edge-embed --reconstruct --log):
            the reconstruction's total loss over its first value
"""
import csv
import sys
import textwrap

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_tsv(path):
    with open(path, encoding="utf-8") as f:
        rows = [r for r in csv.reader(f, delimiter="\t") if r and not r[0].startswith("#")]
    return [dict(zip(rows[0], r)) for r in rows[1:]]


def size(path, out, note):
    rows = read_tsv(path)
    fig, axes = plt.subplots(1, 2, figsize=(12, 5.6))
    for quantity, ax, title in (("mae_flow", axes[0], "masked MAE of the final flow F"),
                                ("cut_accuracy", axes[1], "min-cut accuracy")):
        series = {}
        for r in rows:
            if r.get(quantity, "") == "":
                continue
            series.setdefault((r["model"], r["family"]), []).append((int(r["nodes"]), float(r[quantity])))
        for (model, family), points in sorted(series.items()):
            points.sort()
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o",
                    linestyle="-" if family == "2-community" else "--", label=f"{model}, {family}")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("test graph size (nodes)")
        ax.set_title(title)
        ax.grid(True, alpha=0.3)
    axes[1].set_ylim(0, 1.02)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8)
    fig.suptitle(f"Accuracy against test-graph size (trained on one size only)\n{textwrap.fill(note, 150)}", fontsize=9)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    fig.savefig(out, dpi=90)


def cutshare(path, out, note):
    rows = read_tsv(path)
    groups = {}
    for r in rows:
        groups.setdefault((r["family"], r["capacity"]), []).append(r)
    fig, axes = plt.subplots(1, len(groups), figsize=(4.2 * len(groups), 4.2), sharey=True, squeeze=False)
    for ax, ((family, capacity), rs) in zip(axes[0], groups.items()):
        nodes = [int(r["nodes"]) for r in rs]
        x = range(len(nodes))
        bottom = [0.0] * len(rs)
        for key, label in (("s_only", "s alone"), ("t_only", "t alone"), ("other", "elsewhere")):
            values = [float(r[key]) for r in rs]
            ax.bar(x, values, bottom=bottom, label=label)
            bottom = [b + v for b, v in zip(bottom, values)]
        ax.set_xticks(list(x), [str(n) for n in nodes])
        ax.set_xlabel("nodes")
        ax.set_title(f"{family}, capacities {capacity}\n({rs[0]['graphs']} graphs a size)", fontsize=9)
    axes[0][0].set_ylabel("share of graphs")
    axes[0][-1].legend(fontsize=8)
    fig.suptitle("Where the minimum cut lies (source side {s} alone, sink side {t} alone, or elsewhere)", fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=90)


def recon(paths, out, note):
    fig, ax = plt.subplots(figsize=(10, 4.5))
    for path, label in zip(paths.split(","), ("PGN-max (primal)", "PGN-max (dual)")):
        rows = read_tsv(path)
        first = float(rows[0]["total"])
        ax.plot([int(r["iteration"]) for r in rows], [float(r["total"]) / first for r in rows], marker=".", label=label)
    ax.set_xlabel("iteration")
    ax.set_ylabel("total loss / first")
    ax.ticklabel_format(axis="y", useOffset=False)
    ax.grid(True, alpha=0.3)
    ax.legend()
    ax.set_title(f"Ford-Fulkerson reconstruction loss (new vessel encoders)\n{textwrap.fill(note, 120)}", fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=90)


if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[1] not in ("size", "cutshare", "recon"):
        sys.exit(__doc__)
    {"size": size, "cutshare": cutshare, "recon": recon}[sys.argv[1]](sys.argv[2], sys.argv[3], sys.argv[4])
