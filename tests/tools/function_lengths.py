#!/usr/bin/python3
"""Issue 38's size rule: no C function of the library, the tools or the
mains longer than 120 lines, no main() longer than 60.

    function_lengths.py [ROOT]

A function is counted from the first line of its declaration to its closing
brace, as the tree's style writes one: the opening and closing braces alone
on a line at column 0.  Prints each function over its limit as
path:line: name is N lines (limit L) and exits 1; exits 0 when none is.
"""
import glob
import os
import re
import sys

LIMIT, MAIN_LIMIT = 120, 60
FOLDERS = ("common/**/*.c", "tools/*.c", "bin/*.c")


def declaration_start(lines, brace):
    """The line where the declaration before the brace at `brace` starts:
    back over non-blank lines that do not end a statement, a comment or a
    preprocessor line."""
    j = brace
    while j > 0:
        prev = lines[j - 1]
        if not prev.strip() or prev.rstrip().endswith((";", "}", "*/")) or prev.startswith(("#", "/*", " *", "//")):
            break
        j -= 1
    return j


def functions(path):
    """(name, first line, length) of each function of a C file."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i] == "{":
            start = declaration_start(lines, i)
            end = i + 1
            while end < len(lines) and lines[end] != "}":
                end += 1
            name = re.search(r"(\w+)\s*\(", " ".join(lines[start:i]))
            if name:
                yield name.group(1), start + 1, end - start + 1
            i = end
        i += 1


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    bad = 0
    for pattern in FOLDERS:
        for path in sorted(glob.glob(os.path.join(root, pattern), recursive=True)):
            for name, line, n in functions(path):
                limit = MAIN_LIMIT if name == "main" else LIMIT
                if n > limit:
                    print(f"{os.path.relpath(path, root)}:{line}: {name} is {n} lines (limit {limit})")
                    bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
