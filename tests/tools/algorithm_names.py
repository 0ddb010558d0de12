#!/usr/bin/python3
"""The registry's grep (issue 38's acceptance): no file outside an entry's
own files, the registry, formats/, pipelines/ and tests/ names an algorithm.

    algorithm_names.py [ROOT]

The names are the acceptance's (max-flow, shortest-paths, matching,
vertex-cover, min-cost) and every name in registry.h's DAR_ALGORITHM_NAMES,
so a new entry's name is checked too.  What the check reads as "an entry's
own files", besides the issue's own list, and why:

  common/dar/algo_*         the entries (ARCHITECTURE.md §6: its own files)
  common/dar/registry.*     the registry, which lists them and names the default
  common/flow/, common/algos/
                            the entries' exact solvers and oracles: §6's recipe
                            puts "its exact solver or oracle where it belongs
                            (common/flow/ for flows, a folder of its own for a
                            new family)"; a file there serves one entry even
                            where its name does not say which
  common/eval/metrics_*.c   the metric engines that one entry's metric rows call
                            (metrics.c and metrics.h are shared and checked)
  scripts/                  study tooling beside pipelines/: the build
                            comparison names the study's table targets, the
                            CLRS converter the one entry it converts
  results/                  the study's outputs, as pipelines/ writes them
  *.md                      documentation, which describes the entries by name
  .git/, build/, out/       not sources; files with a NUL byte (the built
                            tools in bin/) are skipped too

In a git work tree the files are git's (tracked, and untracked ones that
.gitignore does not hide) less those matching untracked-only outputs a user
leaves at the top, such as `make test > LOG`: a log of the build names every
entry.  Elsewhere every file under ROOT.

Prints each hit as grep -n does (path:line:text) and exits 1; exits 0
silently when there is none.
"""
import os
import re
import subprocess
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
root = os.path.normpath(root)

SKIP_DIRS = {".git", "build", "out", "formats", "pipelines", "tests", "results", "scripts",
             "common/flow", "common/algos"}
SKIP_FILES = [re.compile(p) for p in (r"common/dar/algo_[^/]*$", r"common/dar/registry\.[ch]$",
                                      r"common/eval/metrics_[^/]*\.c$", r"\.md$")]

names = ["max-flow", "shortest-paths", "matching", "vertex-cover", "min-cost"]
try:
    with open(os.path.join(root, "common/dar/registry.h"), encoding="utf-8") as f:
        m = re.search(r'#define DAR_ALGORITHM_NAMES "([^"]*)"', f.read())
    names += [n for n in (m.group(1).split("|") if m else []) if n not in names]
except FileNotFoundError:
    pass
WORDS = re.compile("|".join(re.escape(n) for n in names))



def walked():
    for d, dirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        rel = "" if rel == "." else rel + "/"
        dirs[:] = sorted(x for x in dirs if rel + x not in SKIP_DIRS)
        for name in sorted(files):
            yield rel + name


def git_files():
    """Tracked files, and untracked ones .gitignore does not hide except
    those at the top level (a user's logs): None outside a work tree."""
    def ls(*args):
        r = subprocess.run(["git", "-C", root, "ls-files", "-z", *args],
                           capture_output=True)
        return r.stdout.decode("utf-8", "replace").split("\0") if r.returncode == 0 else None
    tracked, others = ls(), ls("--others", "--exclude-standard")
    if tracked is None or others is None:
        return None
    paths = set(tracked) | {p for p in others if "/" in p}
    return sorted(p for p in paths if p and os.path.isfile(os.path.join(root, p))
                  and not any(p == s or p.startswith(s + "/") for s in SKIP_DIRS))


hits = 0
in_git = os.path.isdir(os.path.join(root, ".git")) or os.path.isfile(os.path.join(root, ".git"))
for path in (git_files() if in_git else None) or walked():
    if any(p.search(path) for p in SKIP_FILES):
        continue
    with open(os.path.join(root, path), "rb") as f:
        data = f.read()
    if b"\0" in data:
        continue
    for n, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        if WORDS.search(line):
            print("%s:%d:%s" % (path, n, line))
            hits += 1
sys.exit(1 if hits else 0)
