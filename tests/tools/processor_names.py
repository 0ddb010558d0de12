#!/usr/bin/python3
"""The seam's grep (issue 23, acceptance 2): no file of the DAR processor
names flow, cut, capacity or Bellman-Ford, except in a comment that names
the max-flow entry as its example.

    processor_names.py FILE...

Code (comments and nothing else removed) may not hold the words; the two
string literals that are keys and values of formats/model.md ("leak_cut",
"capacity": written by every max-flow model record, so they stay), the
entries' names "max-flow" and "min-cost-flow" and the registry's rows for
them (registry.c) are the exceptions, listed here.  A comment that holds one of the words must say "max-flow".
Prints each offending line and exits 1; 0 when the files are clean.
"""
import re
import sys

WORDS = re.compile(r"(?i)(flow|(?<![a-z])cut(?![a-z])|(?<![a-z])cuts(?![a-z])|capacit|bellman|(?<![a-z])cap(?![a-z]))")
ALLOWED_CODE = ['"leak_cut"', '"capacity"', "expected capacity or vessel", '#include "algo_maxflow.h"',
                "&dar_algorithm_maxflow,", "max-flow", "overflow",
                '#include "algo_min_cost_flow.h"', "&dar_algorithm_min_cost_flow,", "min-cost-flow"]


def split(text):
    """(line number, code text, comment text) for every line; comments are
    /* */ blocks (their whole text, reported on the first line) and //."""
    code, comments = [], []
    i, line = 0, 1
    cur = []
    while i < len(text):
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = len(text) if j < 0 else j + 2
            comments.append((line, text[i:j]))
            line += text.count("\n", i, j)
            cur.append(" ")
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = len(text) if j < 0 else j
            comments.append((line, text[i:j]))
            i = j
        elif text[i] == '"':
            j = i + 1
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            cur.append(text[i:j + 1])
            i = j + 1
        else:
            if text[i] == "\n":
                code.append((line, "".join(cur)))
                cur = []
                line += 1
            else:
                cur.append(text[i])
            i += 1
    code.append((line, "".join(cur)))
    return code, comments


def main(files):
    bad = 0
    for f in files:
        code, comments = split(open(f, encoding="utf-8").read())
        for n, c in code:
            for a in ALLOWED_CODE:
                c = c.replace(a, "")
            if WORDS.search(c):
                print("%s:%d: code names %r: %s" % (f, n, WORDS.search(c).group(0), c.strip()))
                bad += 1
        for n, c in comments:
            if WORDS.search(c) and "max-flow" not in c:
                print("%s:%d: a comment names %r without naming the max-flow entry" % (f, n, WORDS.search(c).group(0)))
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
