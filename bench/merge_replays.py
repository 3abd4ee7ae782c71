#!/usr/bin/env python3
"""Merge jarvis-replay Google Benchmark JSONs of ONE package: a whole-package run whose --deadline left ops
"not run", and later runs of single ops (jarvis-replay PKG --op N --no-baseline ...) that measured them.

  merge_replays.py BASE.json OP.json [OP.json ...] --out MERGED.json

The output is BASE with every entry of an op that an OP file measured replaced by that file's entries (all its
implementations, hot and cold). The context stays BASE's (its baseline and ceilings), and gains
"merged_ops": for each op taken from another file, its index, the file, and that run's date, device and
host launch cost, so a reader sees which figures came from another call (perhaps another GPU of the same
kind). Refused: files of different packages' ops (an index whose op label differs), an OP file that measured
no op, an op measured by two OP files. Exit 0 written, 1 refused, 2 bad usage.
"""
import argparse
import json
import os
import re
import sys

OP = re.compile(r"^op(\d+)/")


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise SystemExit(f"merge_replays: {path}: {e}")
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list):
        raise SystemExit(f"merge_replays: {path}: not a Google Benchmark JSON (no benchmarks list)")
    return doc


def op_of(entry):
    m = OP.match(entry.get("name", ""))
    return int(m.group(1)) if m else None


def label_of(entry):
    """the op's label: the name less op<N>/ and less its /impl/cache tail (the first path part after op<N>)"""
    return entry["name"].split("/", 2)[1] if entry["name"].count("/") >= 1 else ""


def measured(entries):
    """ops of a file with at least one entry that ran (no error, a time)"""
    return {op_of(e) for e in entries if op_of(e) is not None and not e.get("error_occurred") and e.get("real_time")}


def merge(base, others):
    labels = {}
    for e in base["benchmarks"]:
        if op_of(e) is not None:
            labels.setdefault(op_of(e), label_of(e))
    taken = {}
    for path, doc in others:
        ops = measured(doc["benchmarks"])
        if not ops:
            raise SystemExit(f"merge_replays: {path}: measured no op")
        for n in ops:
            if n in taken:
                raise SystemExit(f"merge_replays: op {n} measured by both {taken[n][0]} and {path}")
            lab = next(label_of(e) for e in doc["benchmarks"] if op_of(e) == n)
            if n in labels and labels[n] != lab:
                raise SystemExit(f"merge_replays: {path}: op {n} is '{lab}', the base's op {n} is '{labels[n]}': "
                                 "not the same package")
            taken[n] = (path, doc)
    out = [e for e in base["benchmarks"] if op_of(e) not in taken]
    for n, (path, doc) in sorted(taken.items()):
        out += [e for e in doc["benchmarks"] if op_of(e) == n]
    out.sort(key=lambda e: (op_of(e) if op_of(e) is not None else -1))
    ctx = dict(base.get("context") or {})
    ctx["merged_ops"] = [{"op": n, "file": path, "date": doc["context"].get("date"),
                          "device_name": doc["context"].get("device_name"),
                          "launch_us": doc["context"].get("launch_us")}
                         for n, (path, doc) in sorted(taken.items())]
    return {"context": ctx, "benchmarks": out}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("base")
    ap.add_argument("ops", nargs="+")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    doc = merge(load(a.base), [(p, load(p)) for p in a.ops])
    tmp = a.out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
    os.replace(tmp, a.out)
    print(f"merge_replays: {a.out}: {len(doc['context']['merged_ops'])} op(s) from {len(a.ops)} file(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
