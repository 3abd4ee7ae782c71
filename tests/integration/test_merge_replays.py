#!/usr/bin/env python3
"""bench/merge_replays.py on hand-written jarvis-replay JSONs: the unrun ops of a whole-package run replaced by
single-op runs (every implementation and cache entry), the base's context kept with merged_ops naming each op's
file, date and device; refused: another package's op at the same index, a file that measured nothing, one op
measured twice, a file that is not Google Benchmark JSON (exit 1, no output written).
Usage: test_merge_replays.py   (no arguments; needs python3 only)
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck
from jvcheck import check, finish  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "bench", "merge_replays.py")


def entry(n, label, tail="", us=10.0, error=None):
    e = {"name": f"op{n}/{label}{tail}", "real_time": 0 if error else us, "time_unit": "us"}
    if error:
        e.update(error_occurred=True, error_message=error)
    return e


def doc(entries, date="d0", dev="GPU A"):
    return {"context": {"date": date, "device_name": dev, "launch_us": 1.5, "measured_bandwidth_bytes_per_second": 4e12},
            "benchmarks": entries}


def run(tmp, base, ops, name="m.json"):
    paths = []
    for i, d in enumerate([base] + ops):
        p = os.path.join(tmp, f"in{i}.json")
        with open(p, "w") as f:
            f.write(d if isinstance(d, str) else json.dumps(d))
        paths.append(p)
    out = os.path.join(tmp, name)
    r = subprocess.run([sys.executable, TOOL, paths[0], *paths[1:], "--out", out], capture_output=True, text=True)
    return r, (json.load(open(out)) if os.path.exists(out) else None), paths


def main():
    with tempfile.TemporaryDirectory() as tmp:
        base = doc([entry(0, "mm A", "/hot", 5), entry(0, "mm A", "/cold", 6),
                    entry(1, "conv B", error="not run: the --deadline passed before it started"),
                    entry(2, "bn C", error="not run: the --deadline passed before it started")])
        op1 = doc([entry(1, "conv B", "/hot", 20), entry(1, "conv B", "/cold", 21),
                   entry(1, "conv B", "/cuDNN: fwd algo 1/hot", 22), entry(1, "conv B", "/cuDNN: fwd algo 1/cold", 23)],
                  date="d1", dev="GPU B")
        op2 = doc([entry(2, "bn C", "/cold", 30)], date="d2", dev="GPU B")
        r, m, paths = run(tmp, base, [op2, op1])
        check(r.returncode == 0 and m is not None, f"merge exit 0: {r.returncode} {r.stderr}")
        names = [e["name"] for e in m["benchmarks"]]
        check(names == ["op0/mm A/hot", "op0/mm A/cold", "op1/conv B/hot", "op1/conv B/cold",
                        "op1/conv B/cuDNN: fwd algo 1/hot", "op1/conv B/cuDNN: fwd algo 1/cold", "op2/bn C/cold"],
              f"every entry of the merged ops, in op order, the not-run ones gone: {names}")
        check(not any(e.get("error_occurred") for e in m["benchmarks"]), "no not-run entry left")
        check(m["context"]["measured_bandwidth_bytes_per_second"] == 4e12 and m["context"]["date"] == "d0",
              "the base's context (its ceilings) kept")
        mo = m["context"].get("merged_ops", [])
        check([(x["op"], x["file"], x["date"], x["device_name"]) for x in mo] ==
              [(1, paths[2], "d1", "GPU B"), (2, paths[1], "d2", "GPU B")], f"merged_ops names each op's source: {mo}")

        r, m, _ = run(tmp, base, [doc([entry(1, "mm Z", "/cold", 9)])], "x1.json")
        check(r.returncode == 1 and m is None and "not the same package" in r.stderr,
              f"another package's op refused: {r.returncode} {r.stderr.strip()}")
        r, m, _ = run(tmp, base, [doc([entry(1, "conv B", error="not run")])], "x2.json")
        check(r.returncode == 1 and m is None and "measured no op" in r.stderr, f"nothing measured: {r.stderr.strip()}")
        r, m, _ = run(tmp, base, [op1, op1], "x3.json")
        check(r.returncode == 1 and m is None and "measured by both" in r.stderr, f"op twice: {r.stderr.strip()}")
        r, m, _ = run(tmp, base, ["{\"benchmarks\": 3}"], "x4.json")
        check(r.returncode == 1 and m is None and "not a Google Benchmark JSON" in r.stderr,
              f"not benchmark JSON: {r.stderr.strip()}")
        r, m, _ = run(tmp, base, ["{trunc"], "x5.json")
        check(r.returncode == 1 and m is None and "in1.json" in r.stderr, f"malformed JSON named: {r.stderr.strip()}")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
