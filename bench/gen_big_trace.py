#!/usr/bin/env python3
"""Makes a big Kineto trace for the ingestion benchmark by tiling a fixture.

usage: gen_big_trace.py FIXTURE OUTPUT [-n EVENTS]

FIXTURE is a PyTorch profiler trace (plain or gzip'd JSON, an object with
traceEvents). OUTPUT is written gzip'd (level 6) when its name ends in .gz,
plain otherwise. The result holds at least EVENTS (default 1,000,000) entries
in traceEvents: copy 0 is the fixture's traceEvents as is; copy k > 0 is the
same events without the 'M' (metadata) ones, every numeric ts shifted by
k * (time span of the fixture + gap), and every id that links events
(args "correlation", "External id", "external id", "Ev Idx",
"Sequence number", "Record function id", and the "id" of flow events, ph
's'/'f') shifted by k * (largest such id + 1). One shift is used for all id
fields so that ids which are equal across fields in the fixture (a launch's
correlation and its ac2g flow id, for instance) stay equal in every copy.
The other top-level keys (deviceProperties, schemaVersion, ...) are kept.
Events are laid out as Kineto writes them (indented, a few keys a line), so
that the uncompressed size per event is that of a real trace; --compact
writes them on one line each without spaces instead.

Output is deterministic (same fixture and arguments, same bytes: the gzip
header carries no name and mtime 0). Events are written one at a time; only
the fixture is held in memory. On success, prints one line on stdout:
"events=N copies=K bytes=UNCOMPRESSED".
"""
import argparse
import gzip
import json
import math
import os
import sys

ID_ARGS = ("correlation", "External id", "external id", "Ev Idx", "Sequence number", "Record function id")
FLOW_PHASES = ("s", "f")
GAP_FRACTION = 0.01   # gap between copies, as a fraction of the fixture's span (at least 1 time unit)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return (isinstance(v, (int, float))) and not isinstance(v, bool)


def load_fixture(path):
    with open(path, "rb") as f:
        magic = f.read(2)
    opener = gzip.open if magic == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        raise SystemExit("gen_big_trace: %s: not an object with a traceEvents array" % path)
    return doc


def fixture_span(events):
    """(first ts, end of last event) over events with a numeric ts, 'M' excluded."""
    lo = hi = None
    for e in events:
        if not isinstance(e, dict) or e.get("ph") == "M":
            continue
        ts = e.get("ts")
        if not is_num(ts):
            continue
        dur = e.get("dur")
        end = ts + (dur if is_num(dur) and dur > 0 else 0)
        lo = ts if lo is None or ts < lo else lo
        hi = end if hi is None or end > hi else hi
    return lo, hi


def max_id(events):
    m = -1
    for e in events:
        if not isinstance(e, dict):
            continue
        args = e.get("args")
        if isinstance(args, dict):
            for k in ID_ARGS:
                v = args.get(k)
                if is_int(v) and v > m:
                    m = v
        if e.get("ph") in FLOW_PHASES and is_int(e.get("id")) and e["id"] > m:
            m = e["id"]
    return m


def shifted(e, dt, did):
    """A copy of event e with ts shifted by dt and ids by did (e itself untouched)."""
    e = dict(e)
    ts = e.get("ts")
    if is_int(ts):
        e["ts"] = ts + dt
    elif isinstance(ts, float):
        e["ts"] = round(ts + dt, 3)
    if e.get("ph") in FLOW_PHASES and is_int(e.get("id")):
        e["id"] = e["id"] + did
    args = e.get("args")
    if isinstance(args, dict):
        new_args = None
        for k in ID_ARGS:
            v = args.get(k)
            if is_int(v):
                if new_args is None:
                    new_args = dict(args)
                new_args[k] = v + did
        if new_args is not None:
            e["args"] = new_args
    return e


def kineto_layout(dumps):
    """Formats an event about as Kineto's ChromeTraceLogger does (indented, a few keys a line,
    one argument a line), so that the uncompressed size per event is that of a real trace."""
    def fmt(e):
        if not isinstance(e, dict):
            return "  " + dumps(e)
        keys = [k for k in e if k != "args"]
        lines = []
        for part in (keys[:5], keys[5:]):
            if part:
                lines.append(", ".join(dumps(k) + ": " + dumps(e[k]) for k in part))
        args = e.get("args")
        if isinstance(args, dict) and args:
            lines.append('"args": {\n      ' +
                         ",\n      ".join(dumps(k) + ": " + dumps(v) for k, v in args.items()) + "\n    }")
        elif "args" in e:
            lines.append('"args": ' + dumps(args))
        return "  {\n    " + ",\n    ".join(lines) + "\n  }"
    return fmt


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("fixture")
    ap.add_argument("output", help="output path; gzip'd (level 6) when it ends in .gz")
    ap.add_argument("-n", "--events", type=int, default=1000000, help="minimum number of events (default 1000000)")
    ap.add_argument("--compact", action="store_true",
                    help="write compact JSON (no spaces or newlines) instead of Kineto's indented layout")
    a = ap.parse_args(argv)

    doc = load_fixture(a.fixture)
    events = doc["traceEvents"]
    nall = len(events)
    body = [e for e in events if not (isinstance(e, dict) and e.get("ph") == "M")]
    if not body:
        raise SystemExit("gen_big_trace: %s: no non-metadata events to copy" % a.fixture)
    copies = 1 if a.events <= nall else 1 + math.ceil((a.events - nall) / len(body))

    lo, hi = fixture_span(events)
    span = (hi - lo) if lo is not None else 0
    # An integral step keeps integer ts integers; float ts are rounded to 3 decimals.
    step = int(math.ceil(span + max(1, span * GAP_FRACTION)))
    did = max_id(events) + 1

    tmp = a.output + ".tmp.%d" % os.getpid()
    raw = open(tmp, "wb")
    out = gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=6, mtime=0) \
        if a.output.endswith(".gz") else raw
    written = [0]

    def w(s):
        b = s.encode("utf-8")
        written[0] += len(b)
        out.write(b)

    if a.compact:
        dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
        fmt = dumps
    else:
        dumps = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "), allow_nan=False).encode
        fmt = kineto_layout(dumps)
    nev = 0
    try:
        w("{")
        first_key = True
        for key, val in doc.items():
            w(("\n" if first_key else ",\n") + dumps(key) + (":" if a.compact else ": "))
            first_key = False
            if key != "traceEvents":
                w(dumps(val))
                continue
            w("[\n")
            buf = []
            for k in range(copies):
                src = events if k == 0 else body
                for e in src:
                    buf.append(fmt(e if k == 0 else shifted(e, k * step, k * did)))
                    nev += 1
                    if len(buf) >= 4096:
                        w((",\n" if nev > len(buf) else "") + ",\n".join(buf))
                        buf = []
            if buf:
                w((",\n" if nev > len(buf) else "") + ",\n".join(buf))
            w("\n]")
        w("}\n")
        if out is not raw:
            out.close()
        raw.close()
        os.replace(tmp, a.output)
    except BaseException:
        raw.close()
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    print("events=%d copies=%d bytes=%d" % (nev, copies, written[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
