#!/usr/bin/python3
"""verdicts.py - the paper's claims a small profile can check, in words.

    verdicts.py --claims pipelines/claims.tsv --paper-dir pipelines/paper \
                --table table1=out/demo/report/table1.tsv --table table2=... \
                [--units table1=out/demo/report/table1.units.tsv ...] \
                [--cutshare out/demo/report/cutshare.tsv] --report out/demo/report \
                --profile demo --train-nodes 16 --test-nodes 64 CLAIM-ID...

prints, for each claim named, its verdict on the profile's tables next to the
paper's, the numbers it rests on, and where the two disagree a sentence on
why and the command that shows the evidence.  The claims are checked by
pipelines/claims.py (the report's own rules, with the report's bootstrap
when the tables' units are given, so the demo and the report agree); a
claim over several rows is checked on the rows this profile trains.  examples/demo.sh prints this after
its tables.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import claims as claimlib  # noqa: E402

# What each claim says in a few words, and why our verdict may differ from the
# paper's: the departures pipelines/findings.tsv measures (formats/model.md).
# {cut} is filled with where the minimum cut lies at the training and the
# test size, when cutshare.tsv is given and the two differ.
SHORT = {
    "dual-primal-F": "dual PGN-max beats primal PGN-max on the final flow F",
    "weak-cut-misses": "dual PGN-max's |F - F*| is far below primal's (under a fifth)",
    "dual-cut-100": "dual PGN-max predicts the minimum cut (at least 99.5 %)",
}
WHY = {
    "dual-primal-F": (
        "The authors' code gives the dual the true minimum cut as an input at the first flow step, in training "
        "and at test time (the cut leak; dar starts that input at zero, formats/model.md): the paper's dual never "
        "had to find the cut it steers its flow by, ours does."),
    "weak-cut-misses": (
        "The paper's dual had the true minimum cut as an input at the first flow step (the authors' code leaks "
        "it; dar does not, formats/model.md); ours predicts the cut (see its accuracy), and a flow steered by a "
        "wrong cut misses the maximum."),
    "dual-cut-100": (
        "With the leak the paper's dual is given the true cut at the first flow step; ours must learn where the "
        "cut lies{cut}."),
}


def cut_sentence(path, train, test):
    """Where the minimum cut of a 2-community graph lies at the training and
    the test size (pipelines/cutshare.sh), as a clause; empty without data."""
    if not path or not os.path.exists(path):
        return ""
    rows = {}
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            r = dict(zip(header, line.rstrip("\n").split("\t")))
            rows[(r["family"], r["capacity"], r["nodes"])] = r
    a, b = rows.get(("two-community", "max-of-two", train)), rows.get(("two-community", "max-of-two", test))
    if not a or not b:
        return ""
    # said only where it changes much, as the report's headline does
    if abs(float(a["other"]) - float(b["other"])) <= 0.3:
        return ""
    pct = lambda x: f"{100 * float(x):.0f} %"  # noqa: E731
    return (f"; and the minimum cut moves with size: it runs between the two communities in {pct(a['other'])} of "
            f"the {train}-node training graphs but {pct(b['other'])} of the {test}-node test graphs, whose cut is "
            f"the edges of s alone ({pct(b['s_only'])}) or of t alone ({pct(b['t_only'])}), a kind of cut the "
            f"model seldom met in training")


def single_instances(claim, sets):
    """The claim split into one claim per instance of its `over` column."""
    for instance in claimlib.instances(claim["over"], sets):
        over = ";".join(f"{k}={v}" for k, v in instance.items()) or "-"
        yield instance, dict(claim, over=over)


def check_trained(claim, sets, tables, papers, path, units=None):
    """check(), on the instances whose cells this profile has: (verdict,
    paper verdict, cells)."""
    outcomes, paper_outcomes, cells = [], [], []
    for _, one in single_instances(claim, sets):
        r = claimlib.check_or_die(one, sets, tables, papers, path, units)
        if r["verdict"] == claimlib.MISSING:
            continue
        # verdict_of takes each instance's own verdict (holds, does not
        # hold, or not resolved within the noise)
        outcomes.append(r["verdict"])
        if r["paper_verdict"] in (claimlib.HOLDS, claimlib.FAILS, claimlib.UNRESOLVED):
            paper_outcomes.append(r["paper_verdict"])
        cells += [c for c in r["cells"] if c not in cells]
    verdict = claimlib.verdict_of(outcomes) if outcomes else claimlib.MISSING
    paper = claimlib.verdict_of(paper_outcomes) if paper_outcomes else "no values in the paper"
    return verdict, paper, cells


def main():
    parser = argparse.ArgumentParser(description="The claims a profile can check, in words.")
    parser.add_argument("--claims", required=True)
    parser.add_argument("--paper-dir", required=True)
    parser.add_argument("--table", action="append", default=[], metavar="NAME=FILE")
    parser.add_argument("--units", action="append", default=[], metavar="NAME=FILE",
                        help="a table's resampling units (bootstrap.py units): decide with intervals, as the report does")
    parser.add_argument("--cutshare")
    parser.add_argument("--report", required=True, help="where make report writes report.html")
    parser.add_argument("--profile", required=True)
    parser.add_argument("--train-nodes", required=True)
    parser.add_argument("--test-nodes", required=True)
    parser.add_argument("ids", nargs="+", metavar="CLAIM-ID")
    args = parser.parse_args()
    claims, sets, tables, papers = claimlib.load(args.claims, args.paper_dir, args.table)
    units = claimlib.load_units(args.units)
    by_id = {c["id"]: c for c in claims}
    cut = cut_sentence(args.cutshare, args.train_nodes, args.test_nodes)
    departures = 0
    print(f"What the {args.profile} profile's tables say of the paper's claims (pipelines/claims.tsv"
          + (f"; each difference decided by its {100 * claimlib.bootstrap.LEVEL:.0f} % interval over the test graphs"
             " and seeds, 'not resolved' when the interval holds the tie" if units else "") + "):")
    for claim_id in args.ids:
        if claim_id not in by_id:
            sys.exit(f"verdicts.py: '{claim_id}': no such claim in {args.claims}")
        claim = by_id[claim_id]
        verdict, paper, cells = check_trained(claim, sets, tables, papers, args.claims, units)
        # Table 2's cells are (maxflow_error | model): named model first
        numbers = "; ".join(
            f"{col if row == 'maxflow_error' else row} {'|F - F*|' if row == 'maxflow_error' else col}: "
            f"{claimlib.number(o[0] if o else None, claimlib.is_percent(col))} "
            f"(paper {claimlib.number(p[0] if p else None, claimlib.is_percent(col))})"
            for _, row, col, o, p in cells)
        # the paper's values inside their own noise (its std over 5 seeds)
        said = "not resolved within its own noise" if paper == claimlib.UNRESOLVED else paper
        print(f"  - {SHORT.get(claim_id, claim['claim'])} ({claim_id}): {verdict}; in the paper: {said}.")
        print(f"    {numbers}")
        if verdict == claimlib.FAILS and paper == claimlib.HOLDS:
            departures += 1
            print(f"    Why: {WHY.get(claim_id, 'see the report').format(cut=cut)}")
    if departures:
        print(f"  The evidence: make report PROFILE={args.profile}; its findings section measures the dual with and "
              f"without the leak and its size sweep the cut accuracy from 8 to 128 nodes "
              f"({args.report}/report.html#findings).")


if __name__ == "__main__":
    main()
