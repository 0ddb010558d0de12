#!/usr/bin/python3
"""check-layers.py [ROOT] - the include rules of ARCHITECTURE.md §2, checked.

The layers are the Makefile's SRC_DIRS in order (common/base first, tools
last), and ARCHITECTURE.md's layer table must name the same folders in the
same order.  A file in common/<layer>/ includes only headers of its own
layer and of the layers before it; a file of tools/ or bin/ includes any
library header but, of the tools' headers, only those of its own tool (the
tool whose bin/<tool>.c its name starts with, `-` read as `_`).  Inside a
layer, no two files include each other's headers, directly or round a
longer circle.  A file and its header are one node (stream.c and stream.h);
a header with no source of its name in its layer (dar_processor.h) holds
no code of its own, so including it counts as including the headers it
includes: otherwise dar.c including dar_processor.h, which includes dar.h,
would be a circle of dar with itself.  Prints one line per broken rule and
exits 1, or exits 0 silently.
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
problems = []


def read(path):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        return f.read()


makefile = read("Makefile")
m = re.search(r"^SRC_DIRS\s*:=\s*(.*)$", makefile, re.M)
layers = m.group(1).split()
rank = {d: i for i, d in enumerate(layers)}

table = re.findall(r"^\| `((?:common/[a-z_]+|tools)/?)` \|", read("ARCHITECTURE.md"), re.M)
table = [t.rstrip("/") for t in table]
if table != layers:
    problems.append("ARCHITECTURE.md's layer table lists %s, the Makefile's SRC_DIRS %s"
                    % (" ".join(table), " ".join(layers)))
for d in sorted(os.listdir(os.path.join(root, "common"))):
    if os.path.isdir(os.path.join(root, "common", d)) and "common/" + d not in rank:
        problems.append("common/%s is not a layer (not in SRC_DIRS)" % d)

# where each header lives
home = {}
for d in layers:
    for f in sorted(os.listdir(os.path.join(root, d))):
        if f.endswith(".h"):
            if f in home:
                problems.append("%s/%s and %s/%s: two headers of one name" % (home[f], f, d, f))
            home[f] = d

tools = sorted({f[:-2].replace("-", "_") for f in os.listdir(os.path.join(root, "bin")) if f.endswith(".c")},
               key=len, reverse=True)


def owner(name):
    stem = os.path.splitext(os.path.basename(name))[0].replace("-", "_")
    for t in tools:
        if stem == t or stem.startswith(t + "_"):
            return t
    return None


def includes(path):
    for n, line in enumerate(read(path).splitlines(), 1):
        m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
        if m:
            yield n, m.group(1)


sources = [(d, d + "/" + f) for d in layers for f in sorted(os.listdir(os.path.join(root, d)))
           if f.endswith((".c", ".h"))]
sources += [("bin", "bin/" + f) for f in sorted(os.listdir(os.path.join(root, "bin"))) if f.endswith(".c")]
edges = {}
for layer, path in sources:
    mine = owner(path) if layer in ("tools", "bin") else None
    if layer in ("tools", "bin") and mine is None:
        problems.append("%s: belongs to no tool (no bin/<tool>.c its name starts with)" % path)
    for n, h in includes(path):
        where = home.get(h)
        if where is None:
            problems.append("%s:%d: \"%s\" is in no layer" % (path, n, h))
        elif where == "tools":
            if layer not in ("tools", "bin"):
                problems.append("%s:%d: \"%s\" is a tool's header, below the library" % (path, n, h))
            elif owner(h) != mine:
                problems.append("%s:%d: \"%s\" is the header of %s, not of %s" % (path, n, h, owner(h), mine))
        elif layer != "bin" and rank[where] > rank[layer]:
            problems.append("%s:%d: \"%s\" is in %s, below %s" % (path, n, h, where, layer))
        if where == layer and layer != "bin":
            a, b = os.path.splitext(os.path.basename(path))[0], os.path.splitext(h)[0]
            if a != b:
                edges.setdefault((layer, a), set()).add((layer, b))

# a header with no source of its name: its includes stand for it
sourced = {(d, f[:-2]) for d in layers for f in os.listdir(os.path.join(root, d)) if f.endswith(".c")}


def through(node, seen):
    for nxt in edges.get(node, ()):
        if nxt in sourced:
            yield nxt
        elif nxt not in seen:
            seen.add(nxt)
            yield from through(nxt, seen)


edges = {node: {nxt for nxt in through(node, {node}) if nxt != node} for node in list(edges) if node in sourced}

# circles inside a layer: a depth-first search over "file a includes b's header"
state = {}


def visit(node, trail):
    state[node] = 1
    for nxt in sorted(edges.get(node, ())):
        if state.get(nxt) == 1:
            circle = trail[trail.index(nxt):] + [nxt]
            problems.append("%s: a circle: %s" % (node[0], " -> ".join(x[1] for x in circle)))
        elif nxt not in state:
            visit(nxt, trail + [nxt])
    state[node] = 2


for node in sorted(edges):
    if node not in state:
        visit(node, [node])

for p in problems:
    print("check-layers: " + p)
sys.exit(1 if problems else 0)
