"""bad_phases.py SRC DIR PREFIX KIND...: the bad hint_phase seeds of a phased
trace (matching's --bfs-layers, min-cost flow's --sp-rounds), each SRC's first
record with one change, written to DIR/PREFIX-KIND: length (one entry short),
value (a 2), first (an augmentation first), last (an augmentation last), twice
(an augmentation right after the first), none (no augmentation), steps (steps
far above the phases' length).  corpus.sh calls it; the bats tests read the
seeds for the refusals they expect."""
import sys
import msgpack
import msgpack_numpy
import numpy as np

src, out, prefix, kinds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
first = next(iter(msgpack.Unpacker(open(src, "rb"), object_hook=msgpack_numpy.decode, raw=False)))


def phased(change):
    r = dict(first)
    r["hint_phase"] = r["hint_phase"].copy()
    change(r["hint_phase"])
    return r


def short():
    r = dict(first)
    r["hint_phase"] = r["hint_phase"][:-1].copy()
    return r


def steps():
    r = dict(first)
    r["steps"] = 4000
    return r


CHANGES = {
    "length": short,
    "value": lambda: phased(lambda p: p.__setitem__(1, 2)),
    "first": lambda: phased(lambda p: p.__setitem__(0, 1)),
    "last": lambda: phased(lambda p: p.__setitem__(-1, 1)),
    "twice": lambda: phased(lambda p: p.__setitem__(int(np.argmax(p)) + 1, 1)),
    "none": lambda: phased(lambda p: p.fill(0)),
    "steps": steps,
}
for kind in kinds:
    with open(f"{out}/{prefix}-{kind}", "wb") as f:
        f.write(msgpack.packb(CHANGES[kind](), default=msgpack_numpy.encode, use_bin_type=True))
