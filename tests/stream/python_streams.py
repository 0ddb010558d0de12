#!/usr/bin/python3
"""Random valid record streams as Python's msgpack writes them, and the check
that dar's reader decodes them as Python does (issue 22).

    python_streams.py write --seed S --count K --dir D [--max-record BYTES]
        K streams D/s000.mp ... : records of the shapes the tools write (graph
        records with traces, tensors under bin keys) and of the shapes Python
        writes (str and bin keys, nested maps and lists, tensors anywhere,
        every header size at its boundaries), a few bytes to several MB each.
    python_streams.py check STREAM.mp JSONL [STREAM.mp JSONL ...]
        mpcat's JSON lines of each STREAM.mp against Python's own decoding of
        it: the same records, keys, values and tensor bytes.

Every stream is written by msgpack.packb(record, default=msgpack_numpy.encode,
use_bin_type=True), some with use_single_float=True, so every header has its
smallest size: repacked by msgpack-c, a record keeps its bytes.
"""
import argparse
import json
import os
import struct
import sys

import msgpack
import msgpack_numpy
import numpy as np

# Lengths at each boundary of msgpack's header sizes: fixstr/str8/str16/str32,
# bin8/bin16/bin32, fixarray/array16/array32, fixmap/map16.
STR_LENGTHS = [0, 1, 31, 32, 255, 256, 65535, 65536]
BIN_LENGTHS = [0, 1, 255, 256, 65535, 65536]
ARRAY_LENGTHS = [0, 1, 15, 16, 17, 65535, 65536]
INTS = [0, 1, 127, 128, 255, 256, 65535, 65536, 2**32 - 1, 2**32, 2**63, 2**64 - 1,
        -1, -32, -33, -128, -129, -32768, -32769, -2**31, -2**31 - 1, -2**63]
DTYPES = ["<f4", "<f8", "<i4", "<i8", "|u1", "|b1"]


def tensor(rng, dtype, shape):
    """An ndarray (never a numpy scalar, which msgpack_numpy writes as another
    kind of map, one no dar record holds)."""
    if dtype == "|b1":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype == "|u1":
        return np.frombuffer(payload(rng, int(np.prod(shape))), dtype=np.uint8).reshape(shape)
    if dtype in ("<i4", "<i8"):
        info = np.iinfo(np.dtype(dtype))
        return np.asarray(rng.integers(info.min, info.max, shape, dtype=np.dtype(dtype), endpoint=True))
    a = np.asarray(rng.standard_normal(shape) * 10.0 ** int(rng.integers(-5, 6))).astype(dtype)
    if a.size and rng.random() < 0.2:
        flat = a.reshape(-1)
        flat[rng.integers(0, a.size)] = [np.nan, np.inf, -np.inf, -0.0][rng.integers(0, 4)]
    return a


# Payload bytes that read as huge container headers (array32 and map32 of
# 2^32 - 1 items): a reader that loses its place in a record and steps into a
# payload refuses the record, where random bytes would let it pass silently.
HOSTILE = b"\xdd\xff\xff\xff\xff\xdf\xff\xff\xff\xff"


def payload(rng, length):
    if rng.random() < 0.4:
        return (HOSTILE * (length // len(HOSTILE) + 1))[:length]
    return rng.bytes(length)


def random_string(rng, length):
    alphabet = "abcxyz_-0 é\"\\\n\tλ水"
    return "".join(alphabet[i] for i in rng.integers(0, len(alphabet), length))


def random_key(rng, k):
    name = "k%d_%s" % (k, random_string(rng, int(rng.integers(0, 6))).encode("ascii", "ignore").decode())
    return name.encode() if rng.random() < 0.3 else name


def random_value(rng, depth, budget):
    choice = rng.integers(0, 11 if depth < 4 else 7)
    if choice == 0:
        return INTS[rng.integers(0, len(INTS))]
    if choice == 1:
        return int(rng.integers(-2**40, 2**40))
    if choice == 2:
        return [0.0, -0.0, 1.5, 1e-300, 3.4e38, float("inf"), float("nan"), float(rng.standard_normal())][rng.integers(0, 8)]
    if choice == 3:
        return [None, True, False][rng.integers(0, 3)]
    if choice == 4:
        lengths = [n for n in STR_LENGTHS if n <= budget] or [0]
        return random_string(rng, lengths[rng.integers(0, len(lengths))])
    if choice == 5:
        lengths = [n for n in BIN_LENGTHS if n <= budget] or [0]
        return payload(rng, int(lengths[rng.integers(0, len(lengths))]))
    if choice == 6:
        shape = tuple(int(d) for d in rng.integers(0, 6, rng.integers(0, 3)))
        return tensor(rng, DTYPES[rng.integers(0, len(DTYPES))], shape)
    if choice in (7, 8):
        lengths = [n for n in ARRAY_LENGTHS if n <= budget // 4] or [0]
        n = int(lengths[rng.integers(0, len(lengths))])
        if n > 3 and depth >= 2 or n > 100:  # small ints: a cheap way to a 16/32-bit header
            return [int(x) for x in rng.integers(-32, 128, n)]
        return [random_value(rng, depth + 1, budget // max(n, 1)) for _ in range(n)]
    # maps of 15, 16 and 17 keys (fixmap, map16) near the top; a few below,
    # or the record would hold 17^depth values
    sizes = [0, 1, 15, 16, 17] if depth < 2 else [0, 1, 2, 3]
    n = int(sizes[rng.integers(0, len(sizes))])
    return {random_key(rng, k): random_value(rng, depth + 1, budget // max(n, 1)) for k in range(n)}


def graph_record(rng, index, max_record):
    """A traced graph record as gen-graphs | ff-trace | dar-step write it."""
    n = int(rng.integers(2, 100))
    m = int(rng.integers(1, min(n * n, 600)))
    steps = int(rng.integers(1, 60))
    while steps * m * 4 > max_record // 2 and steps > 1:
        steps //= 2
    f4 = lambda *shape: rng.random(shape, dtype=np.float32)
    return {
        "kind": "graph", "id": index, "family": ["two-community", "bipartite", "erdos-renyi"][index % 3],
        "n": n, "m": m, "directed": bool(rng.random() < 0.5), "s": 0, "t": n - 1,
        "src": rng.integers(0, n, m, dtype=np.int32), "dst": rng.integers(0, n, m, dtype=np.int32),
        "cap": f4(m), "w": f4(m), "flow": f4(m) - 0.5, "maxflow": float(rng.random() * 100),
        "cut": rng.integers(0, 2, n, dtype=np.uint8), "steps": steps, "note": payload(rng, n),
        "hint_phase": rng.integers(0, 2, steps, dtype=np.uint8),
        "hint_mask": rng.integers(0, 2, (steps, n), dtype=np.uint8),
        "hint_pi": rng.integers(0, n, (steps, n), dtype=np.int32),
        "hint_flow": f4(steps, m), "pred_flow": f4(m),
    }


def token_record(rng, index):
    """Many short tokens whose headers have bytes after the type byte (uint16,
    int32, float64, bin8, str8): a fill ends inside such a header often."""
    items = []
    for _ in range(int(rng.integers(50, 500))):
        kind = rng.integers(0, 6)
        if kind == 0:
            items.append(int(rng.integers(256, 65536)))
        elif kind == 1:
            items.append(-int(rng.integers(32769, 2**31)))
        elif kind == 2:
            items.append(float(rng.standard_normal()))
        elif kind == 3:
            items.append(payload(rng, int(rng.integers(20, 60))))
        elif kind == 4:
            items.append("s" * int(rng.integers(32, 100)))
        else:
            items.append(np.frombuffer(payload(rng, int(rng.integers(1, 40))), dtype=np.uint8))
    return {"kind": "tokens", "id": index, b"items": items}


def big_record(rng, max_record):
    size = int(rng.integers(1 << 20, min(6 << 20, max_record)))
    return {"kind": "big", b"payload": tensor(rng, "<f4", (size // 4,)),
            "tail": [tensor(rng, "<f8", (3, 2)), {b"x": payload(rng, int(rng.integers(0, 70000)))}]}


def write(args):
    os.makedirs(args.dir, exist_ok=True)
    for s in range(args.count):
        rng = np.random.default_rng([args.seed, s])
        records = []
        for index in range(int(rng.integers(1, 20))):
            kind = rng.random()
            if kind < 0.05:
                records.append({})
            elif kind < 0.3:
                records.append(graph_record(rng, index, args.max_record))
            elif kind < 0.5:
                records.append(token_record(rng, index))
            elif kind < 0.52 and args.max_record >= 2 << 20:
                records.append(big_record(rng, args.max_record))
            else:
                records.append({random_key(rng, k): random_value(rng, 0, min(args.max_record, 1 << 17))
                                for k in range(int(rng.integers(0, 20)))})
        single = rng.random() < 0.25
        with open(os.path.join(args.dir, "s%03d.mp" % s), "wb") as f:
            for r in records:
                f.write(msgpack.packb(r, default=msgpack_numpy.encode, use_bin_type=True,
                                      use_single_float=single))


def special(x):
    return {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf")}.get(x, x) if isinstance(x, str) else x


def same_float(a, b):
    if isinstance(b, str):
        b = special(b)
    if not isinstance(b, float):
        return False
    if struct.pack("<d", a) == struct.pack("<d", b) or (a != a and b != b):
        return True
    # a float32 on the wire: mpcat prints its shortest float32 form
    return np.float32(a) == a and np.float32(a).tobytes() == np.float32(b).tobytes()


def compare(py, js, where):
    if isinstance(py, np.ndarray):
        if not (isinstance(js, dict) and set(js) == {"dtype", "shape", "data"}):
            return "%s: expected a tensor, mpcat gives %r" % (where, js)
        if js["dtype"] != py.dtype.str or list(js["shape"]) != list(py.shape):
            return "%s: tensor %s %s, mpcat %s %s" % (where, py.dtype.str, py.shape, js["dtype"], js["shape"])
        back = np.array([special(x) for x in js["data"]], dtype=py.dtype).reshape(py.shape)
        if back.tobytes() != py.tobytes() and not (py.dtype.kind == "f" and
                                                   np.array_equal(back, py, equal_nan=True)):
            return "%s: tensor data differ" % where
        return None
    if isinstance(py, dict):
        if not isinstance(js, dict):
            return "%s: expected a map" % where
        keys = [k.decode() if isinstance(k, bytes) else k for k in py]
        if keys != list(js):
            return "%s: keys %r, mpcat %r" % (where, keys, list(js))
        for k, key in zip(py, keys):
            problem = compare(py[k], js[key], "%s.%s" % (where, key))
            if problem:
                return problem
        return None
    if isinstance(py, list):
        if not isinstance(js, list) or len(js) != len(py):
            return "%s: expected a list of %d" % (where, len(py))
        for i, (a, b) in enumerate(zip(py, js)):
            problem = compare(a, b, "%s[%d]" % (where, i))
            if problem:
                return problem
        return None
    if isinstance(py, bytes):
        return None if js == {"$bin": py.hex()} else "%s: bin differs" % where
    if isinstance(py, float):
        return None if same_float(py, js) else "%s: %r, mpcat %r" % (where, py, js)
    if type(py) is not type(js) or py != js:
        return "%s: %r, mpcat %r" % (where, py, js)
    return None


def check(args):
    if len(args.files) % 2:
        sys.exit("check: give STREAM.mp JSONL pairs")
    for stream, jsonl in zip(args.files[::2], args.files[1::2]):
        check_one(stream, jsonl)


def check_one(stream, jsonl):
    with open(stream, "rb") as f:
        records = list(msgpack.Unpacker(f, object_hook=msgpack_numpy.decode, raw=False,
                                        strict_map_key=False, max_buffer_size=0))
    # object_pairs_hook keeps JSON's key order, as a record's
    with open(jsonl) as f:
        lines = [json.loads(line, object_pairs_hook=dict) for line in f]
    if len(lines) != len(records):
        sys.exit("%s: %d records, mpcat printed %d" % (stream, len(records), len(lines)))
    for i, (py, js) in enumerate(zip(records, lines)):
        problem = compare(py, js, "record %d" % i)
        if problem:
            sys.exit("%s: %s" % (stream, problem))


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write")
    w.add_argument("--seed", type=int, required=True)
    w.add_argument("--count", type=int, required=True)
    w.add_argument("--dir", required=True)
    w.add_argument("--max-record", type=int, default=6 << 20)
    c = sub.add_parser("check")
    c.add_argument("files", nargs="+")
    args = parser.parse_args()
    write(args) if args.command == "write" else check(args)


if __name__ == "__main__":
    main()
