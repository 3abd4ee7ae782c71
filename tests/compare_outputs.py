#!/usr/bin/env python3
"""tests/compare_outputs.py OLD_DIR NEW_DIR [--max-lines N] [--strip PATH]...

Compares two output trees of the same run made by two builds (tests/compare_builds.sh lays them out:
out/ is jarvis-analyze's -o folder, replay/ holds jarvis-replay's --benchmark_out and --report, and
each command's exit_status and stderr sit next to them). Prints "identical", or "N files differ" and,
per differing file, its path and a bounded unified diff excerpt. Exit status 0 identical, 1 differ.

Every file is compared byte for byte first; only when the bytes differ are the masks applied and the
file compared again, so a mask can hide nothing in a file whose bytes match:
- text files: byte-identical after MASKS (below);
- *.xlsx: worksheets by cell value, whatever the writer put where (shared or inline strings, OOXML's
  _xHHHH_ escapes decoded), as a reader sees them. Which writer made each side is told by the members
  that are not worksheets (libxlsxwriter: docProps/, xl/theme/ and maybe xl/sharedStrings.xml;
  jarvis' own jv_xlsx: none of them). Both sides by the same writer: every member is compared (masked),
  and a sheet whose values match but whose XML does not (styles, widths) is reported too. Two different
  writers (a build before and one after the writer changed): only what the writers do not decide is
  compared: the sheet names in order and every sheet's cells, numbers at the coarser writer's precision
  (libxlsxwriter printed 16 significant digits: "%.16G"), its infinity "INF" read as jv_xlsx's #NUM!
  error; styles, properties and themes are the writer's own and are not compared;
- *.zip (replay_package.zip): member by member, each as a text file (manifest.json's date masked);
- replay/benchmark.json: only the deterministic fields (op list, statuses, verification numbers);
- replay/report.md and replay/stderr: every decimal number masked (times, rates, ratios).
Python standard library only.
"""
import csv
import difflib
import io
import json
import os
import re
import sys
import xml.etree.ElementTree as ET
import zipfile

# The masks: only what legitimately varies between two runs of two builds on the same input.
# Keep this list short; every entry says where the variable text comes from.
MASKS = [
    # wall-clock dates: replay_package.zip manifest.json "created", the xlsx docProps/core.xml
    # dcterms:created/modified, jarvis-replay's context "date" and its report's "- Date:" line
    (re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?"), "<DATE>"),
    # the tool version (JV_VERSION): manifest.json/context "jarvis_version", metadata "generator",
    # the replay report's "jarvis X.Y.Z"
    (re.compile(r'("jarvis_version":\s*"|\bjarvis(?:-analyze|-replay)? )\d+\.\d+\.\d+[0-9A-Za-z.+~-]*'),
     r"\1<VERSION>"),
]
# absolute paths: the run and build folders of each side (--strip), replaced by <PATH>; the runner
# passes the same relative paths to both sides, so these only catch a path a build resolves itself

# replay timing: its report and console print measured times with decimals; every decimal number is
# masked there (the counts, statuses, verdicts and reasons stay). Verification numbers are compared
# exactly through benchmark.json's fields below.
DECIMAL = re.compile(r"(?<![\w.])[-+]?\d+\.\d+(?:[eE][-+]?\d+)?x?")
TIMED_TEXT = ("replay/report.md", "replay/stderr")
# benchmark.json: the fields that do not depend on the clock
BENCH_FIELDS = ("name", "run_name", "run_type", "error_occurred", "error_message", "label", "traced_us",
                "verified", "sampled_verification", "rel_l2", "flops", "bytes")
BENCH_CONTEXT = ("device_name", "backend", "traced_device", "package")


def mask(text, strips):
    for p in strips:
        text = text.replace(p, "<PATH>")
    for rx, rep in MASKS:
        text = rx.sub(rep, text)
    return text


def is_text(b):
    if b"\0" in b[:65536]:
        return False
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def excerpt(a_lines, b_lines, name, max_lines):
    """a unified diff of the first differing region, at most max_lines lines, long lines cut"""
    n = 0
    while n < len(a_lines) and n < len(b_lines) and a_lines[n] == b_lines[n]:
        n += 1
    ea, eb = len(a_lines), len(b_lines)
    while ea > n and eb > n and a_lines[ea - 1] == b_lines[eb - 1]:
        ea -= 1
        eb -= 1
    lo = max(0, n - 2)
    # difflib is quadratic on large regions: bound what it sees (the excerpt is bounded anyway)
    span = 400
    a_part = a_lines[lo:min(ea + 2, lo + span)]
    b_part = b_lines[lo:min(eb + 2, lo + span)]
    # long lines (CSV rows, sheet rows): show the same window of every line, around the first
    # differing character of the first differing line
    w = 0
    if n < len(a_lines) and n < len(b_lines):
        la, lb = a_lines[n], b_lines[n]
        p = next((i for i in range(min(len(la), len(lb))) if la[i] != lb[i]), min(len(la), len(lb)))
        w = max(0, p - 80)
    out = []
    for line in difflib.unified_diff(a_part, b_part, "old/" + name, "new/" + name, n=1, lineterm=""):
        if line.startswith("@@"):
            # renumber the hunk to the file's lines
            m = re.match(r"@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@", line)
            if m:
                line = "@@ -%d%s +%d%s @@" % (int(m.group(1)) + lo, m.group(2) or "", int(m.group(3)) + lo,
                                             m.group(4) or "")
        elif not line.startswith(("---", "+++")) and len(line) > 240:
            body = line[1:]
            cut = body[w:w + 220]
            line = line[0] + ("[%d chars...]" % w if w else "") + cut + (
                " [...%d chars]" % (len(body) - w - 220) if len(body) > w + 220 else "")
        out.append(line)
        if len(out) >= max_lines:
            out.append("[... diff cut at %d lines; %d vs %d lines differ from line %d]" %
                       (max_lines, ea - n, eb - n, n + 1))
            break
    return out


def text_diff(a, b, name, strips, max_lines, timed=False):
    """None when equal after the masks, else the excerpt lines"""
    if a == b:
        return None
    if not (is_text(a) and is_text(b)):
        return ["binary files differ (%d vs %d bytes)" % (len(a), len(b))]
    ta, tb = mask(a.decode("utf-8"), strips), mask(b.decode("utf-8"), strips)
    if timed:
        ta, tb = DECIMAL.sub("<NUM>", ta), DECIMAL.sub("<NUM>", tb)
    if ta == tb:
        return None
    return excerpt(ta.splitlines(), tb.splitlines(), name, max_lines)


# ---- xlsx ----
NS = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main",
      "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
      "rel": "http://schemas.openxmlformats.org/package/2006/relationships"}


def shared_strings(z):
    if "xl/sharedStrings.xml" not in z.namelist():
        return []
    root = ET.fromstring(z.read("xl/sharedStrings.xml"))
    return ["".join(t.text or "" for t in si.iter("{%s}t" % NS["m"])) for si in root.findall("m:si", NS)]


def sheet_names(z):
    """worksheet member -> sheet name, from workbook.xml and its rels"""
    names = {}
    try:
        rels = ET.fromstring(z.read("xl/_rels/workbook.xml.rels"))
        target = {r.get("Id"): r.get("Target") for r in rels.findall("rel:Relationship", NS)}
        wb = ET.fromstring(z.read("xl/workbook.xml"))
        for s in wb.iter("{%s}sheet" % NS["m"]):
            t = target.get(s.get("{%s}id" % NS["r"]), "")
            names["xl/" + t.lstrip("/").replace("xl/", "", 1)] = s.get("name")
    except (KeyError, ET.ParseError):
        pass
    return names


ESCAPED = re.compile(r"_x([0-9A-Fa-f]{4})_")


def ooxml_text(s):
    """a string as readers show it: ECMA-376 Part 1, 22.9.2.19 (ST_Xstring), _xHHHH_ is U+HHHH"""
    return ESCAPED.sub(lambda m: chr(int(m.group(1), 16)), s) if "_x" in s else s


def coarse_number(text):
    """a number cell's value as libxlsxwriter printed it (16 significant digits); its INF as #NUM!"""
    try:
        v = float(text)
    except ValueError:
        return text
    return "#NUM!" if v in (float("inf"), float("-inf")) else "%.16G" % v


def cell_dump(xml, sst, coarse=False):
    """one line per row: 'ROW<TAB>A=value<TAB>B=value', values as Excel shows their content"""
    root = ET.fromstring(xml)
    lines = []
    for row in root.iter("{%s}row" % NS["m"]):
        cells = []
        for c in row.findall("m:c", NS):
            t = c.get("t", "n")
            v = c.find("m:v", NS)
            f = c.find("m:f", NS)
            if t == "s" and v is not None:
                val = sst[int(v.text)] if v.text and int(v.text) < len(sst) else "<bad sst %s>" % v.text
                val = ooxml_text(val)
            elif t == "inlineStr":
                val = ooxml_text("".join(x.text or "" for x in c.iter("{%s}t" % NS["m"])))
            else:
                val = v.text if v is not None and v.text is not None else ""
                if coarse and t == "n" and val:
                    val = coarse_number(val)
            if f is not None:
                val = "=%s -> %s" % (f.text or "", val)
            col = re.sub(r"\d+$", "", c.get("r", "?"))
            cells.append("%s=%s" % (col, val.replace("\n", "\\n")))
        lines.append("%s\t%s" % (row.get("r", "?"), "\t".join(cells)))
    return lines


def writer_of(names):
    """the members a writer adds beside the worksheets: equal sets, the same writer"""
    return frozenset(n for n in names if not (n.startswith("xl/worksheets/") and n.endswith(".xml")))


def sheet_list(z):
    """[(sheet name, worksheet member)] in the workbook's order"""
    member = {name: m for m, name in sheet_names(z).items()}
    order = [s.get("name") for s in ET.fromstring(z.read("xl/workbook.xml")).iter("{%s}sheet" % NS["m"])]
    return [(n, member[n]) for n in order]


def compare_across_writers(za, zb, name, max_lines):
    """two writers: the sheet names in order and each sheet's cells, at the coarser precision"""
    diffs = []
    la, lb = sheet_list(za), sheet_list(zb)
    if [n for n, _ in la] != [n for n, _ in lb]:
        diffs.append(("%s (worksheets)" % name, excerpt([n for n, _ in la], [n for n, _ in lb], "sheets", max_lines)))
    sst_a, sst_b = shared_strings(za), shared_strings(zb)
    members_b = dict(lb)
    for sheet, ma in la:
        mb = members_b.get(sheet)
        if mb is None:
            continue
        da, db = cell_dump(za.read(ma), sst_a, True), cell_dump(zb.read(mb), sst_b, True)
        if da != db:
            diffs.append(("%s!%s (sheet %s, two writers)" % (name, ma, sheet), excerpt(da, db, ma, max_lines)))
    return diffs


def compare_xlsx(pa, pb, name, strips, max_lines):
    diffs = []
    try:
        za, zb = zipfile.ZipFile(pa), zipfile.ZipFile(pb)
    except zipfile.BadZipFile as e:
        return [("%s" % name, ["not a readable xlsx: %s" % e])]
    with za, zb:
        na, nb = set(za.namelist()), set(zb.namelist())
        if writer_of(na) != writer_of(nb):
            try:
                return compare_across_writers(za, zb, name, max_lines)
            except (KeyError, ValueError, ET.ParseError) as e:
                return [(name, ["two writers, and one workbook is unreadable: %s" % e])]
        for n in sorted(na - nb):
            diffs.append(("%s!%s" % (name, n), ["only in old"]))
        for n in sorted(nb - na):
            diffs.append(("%s!%s" % (name, n), ["only in new"]))
        sheets = sheet_names(za)
        sst_a = sst_b = None
        for n in sorted(na & nb):
            a, b = za.read(n), zb.read(n)
            if a == b:
                continue
            label = "%s!%s" % (name, n)
            if n.startswith("xl/worksheets/") and n.endswith(".xml"):
                if sst_a is None:
                    sst_a, sst_b = shared_strings(za), shared_strings(zb)
                label = "%s!%s (sheet %s)" % (name, n, sheets.get(n, "?"))
                da, db = cell_dump(a, sst_a), cell_dump(b, sst_b)
                if da != db:
                    diffs.append((label, excerpt(da, db, n, max_lines)))
                else:
                    d = text_diff(a.replace(b"><", b">\n<"), b.replace(b"><", b">\n<"), n, strips, max_lines)
                    if d:
                        diffs.append((label + ": same cell values, the sheet XML differs (styles, widths...)", d))
                continue
            if n == "xl/sharedStrings.xml":
                continue  # compared through the cells that use the strings
            d = text_diff(a.replace(b"><", b">\n<"), b.replace(b"><", b">\n<"), n, strips, max_lines)
            if d:
                diffs.append((label, d))
    return diffs


def compare_zip(pa, pb, name, strips, max_lines):
    diffs = []
    try:
        za, zb = zipfile.ZipFile(pa), zipfile.ZipFile(pb)
    except zipfile.BadZipFile as e:
        return [(name, ["not a readable zip: %s" % e])]
    with za, zb:
        la, lb = za.namelist(), zb.namelist()
        if la != lb:
            diffs.append((name + " (member list)", excerpt(la, lb, "members", max_lines)))
        for n in [m for m in la if m in set(lb)]:
            d = text_diff(za.read(n), zb.read(n), n, strips, max_lines)
            if d:
                diffs.append(("%s!%s" % (name, n), d))
    return diffs


def bench_view(raw):
    """benchmark.json reduced to the fields a re-run reproduces, as lines"""
    d = json.loads(raw)
    ctx = d.get("context", {})
    lines = ["context.%s: %s" % (k, json.dumps(ctx.get(k))) for k in BENCH_CONTEXT]
    for i, b in enumerate(d.get("benchmarks", [])):
        lines.append("[%d] " % i + json.dumps({k: b[k] for k in BENCH_FIELDS if k in b}, sort_keys=True))
    return lines


def compare_file(rel, pa, pb, strips, max_lines):
    with open(pa, "rb") as f:
        a = f.read()
    with open(pb, "rb") as f:
        b = f.read()
    if a == b:
        return []
    if rel.endswith(".xlsx"):
        return compare_xlsx(pa, pb, rel, strips, max_lines)
    if rel.endswith(".zip"):
        return compare_zip(pa, pb, rel, strips, max_lines)
    if rel == "replay/benchmark.json":
        try:
            va, vb = bench_view(a), bench_view(b)
        except (ValueError, AttributeError, TypeError) as e:
            return [(rel, ["not readable as Google Benchmark JSON: %s" % e])]
        va = [mask(x, strips) for x in va]
        vb = [mask(x, strips) for x in vb]
        return [] if va == vb else [(rel + " (deterministic fields)", excerpt(va, vb, rel, max_lines))]
    d = text_diff(a, b, rel, strips, max_lines, timed=rel in TIMED_TEXT)
    if d and rel.endswith(".csv"):
        d.append(first_cell(a, b, strips))
    return [(rel, d)] if d else []


def first_cell(a, b, strips):
    """the first differing CSV cell, by row and column name"""
    try:
        ra = list(csv.reader(io.StringIO(mask(a.decode("utf-8"), strips))))
        rb = list(csv.reader(io.StringIO(mask(b.decode("utf-8"), strips))))
    except (UnicodeDecodeError, csv.Error) as e:
        return "(not readable as CSV: %s)" % e
    head = ra[0] if ra else []
    for i, (x, y) in enumerate(zip(ra, rb)):
        for j in range(max(len(x), len(y))):
            u = x[j] if j < len(x) else "<none>"
            v = y[j] if j < len(y) else "<none>"
            if u != v:
                col = head[j] if j < len(head) else "#%d" % (j + 1)
                return "first differing cell: row %d, column %r: %r -> %r" % (i + 1, col, u[:120], v[:120])
    return "rows: %d -> %d" % (len(ra), len(rb))


def walk(root):
    out = set()
    for d, _, files in os.walk(root):
        for f in files:
            out.add(os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/"))
    return out


def main(argv):
    args, strips, max_lines = [], [], 12
    it = iter(argv)
    for a in it:
        if a == "--max-lines":
            max_lines = int(next(it))
        elif a == "--strip":
            strips.append(next(it))
        else:
            args.append(a)
    if len(args) != 2:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    old, new = args
    strips = sorted((s.rstrip("/") for s in strips if s), key=len, reverse=True)
    fa, fb = walk(old), walk(new)
    diffs = []
    for rel in sorted(fa | fb):
        if rel not in fb:
            diffs.append((rel, ["only in old"]))
        elif rel not in fa:
            diffs.append((rel, ["only in new"]))
        else:
            diffs.extend(compare_file(rel, os.path.join(old, rel), os.path.join(new, rel), strips, max_lines))
    files = sorted({d[0].split("!")[0].split(" (")[0] for d in diffs})
    if not diffs:
        print("identical")
        return 0
    print("%d file%s differ%s" % (len(files), "" if len(files) == 1 else "s", "s" if len(files) == 1 else ""))
    for what, lines in diffs:
        print("  --- %s" % what)
        for line in lines:
            print("    " + line)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
