#!/usr/bin/env python3
"""The layout rule of the source tree (README "Layout"), checked on every build (ctest check_layers, label unit).

  check_layers.py SRC_DIR
      every #include "..." of every .c/.h/.cu/.def file in the library folders is resolved to the file it names
      in the tree (the including file's own folder first, then the whole tree: header names are unique); the
      included file's folder must be the including file's own folder or one of the folders LAYERS lets it sit
      on (directly or through them). Fails naming file:line, both folders and the rule.
  check_layers.py SRC_DIR --program PROGRAM --forbid LIB...
      no global symbol defined in the libraries LIB (nm --defined-only) is defined in PROGRAM: jarvis-replay
      links no analysis code.

Python standard library only; exit 0 pass, 1 fail, 2 bad usage.
"""
import os
import re
import subprocess
import sys

# THE LAYOUT RULE. Folder -> (rank, the folders it sits on). A file may include headers from its own folder
# and from every folder reachable through "sits on"; nothing else: not from a folder above it (higher rank),
# not from a folder beside it (same or lower rank but not reachable, e.g. replay -> analysis, backends/cpu ->
# backends/cuda, one op family -> another). The rank is the order on the page of the README, bottom first;
# "sits on" is what each CMake library links (each library exports only its own folder as include dir).
#
#   rank  folder            CMake library     sits on
LAYERS = {
    "core":            (0, []),                                   # jv_core: status, arena, maps, dtypes, ...
    "hw":              (1, ["core"]),                             # jv_hw: the hardware table, --gpu-arch
    "kernels":         (2, ["hw", "kernels/*"]),                  # jv_kernels: jv_family.h, the registry ...
    "kernels/*":       (2, ["hw", "kernels"]),                    # ... and one folder per op family
    "ir":              (3, ["kernels"]),                          # jv_ir: replay IR and package zip
    "analysis/ingest": (4, ["ir"]),                               # jv_ingest: scan, events, tree, timeline
    "analysis/model":  (5, ["analysis/ingest"]),                  # jv_model: op rows, metrics, perf models
    "analysis/report": (6, ["analysis/model"]),                   # jv_report: printers
    "analysis":        (7, ["analysis/report"]),                  # jarvis-analyze (main)
    "backends":        (3, ["kernels"]),                          # jv_backend: backend.h (interface)
    "backends/*":      (4, ["backends"]),                         # one folder per backend (cpu, cuda, ...)
    "replay":          (8, ["ir", "backends"]),                   # jv_replay, jarvis-replay: never analysis
}
# One op family's folder never includes another family's, and one backend's folder never another backend's
# (kernels/* reaches kernels/* only through the registry folder kernels/, which is why that one step is cut
# here; a new backends/<name>/ folder is checked without an edit here).
SIBLINGS_APART = {"kernels/*", "backends/*"}
# tests/ and bench/ sit on top of everything (they test or measure any library): not checked here.

SOURCE_EXT = (".c", ".h", ".cu", ".def")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folder_key(rel):
    """the LAYERS key of a file's folder (rel: path relative to the source dir), or None when unchecked"""
    d = os.path.dirname(rel).replace(os.sep, "/")
    if d in LAYERS:
        return d
    parts = d.split("/")
    if len(parts) == 2 and parts[0] + "/*" in LAYERS and parts[0] in LAYERS:
        return parts[0] + "/*"
    return None


def concrete(rel):
    return os.path.dirname(rel).replace(os.sep, "/")


def reachable(key):
    seen, todo = set(), [key]
    while todo:
        k = todo.pop()
        for n in LAYERS[k][1]:
            if n in SIBLINGS_APART and k in SIBLINGS_APART:
                continue
            if n not in seen:
                seen.add(n)
                todo.append(n)
    seen.discard(key)
    return seen


def scan(src):
    files = []
    for top in sorted({k.split("/")[0] for k in LAYERS} | {"tests", "bench"}):
        for dirpath, dirnames, filenames in os.walk(os.path.join(src, top)):
            dirnames[:] = sorted(d for d in dirnames if d not in ("corpus", "corpus_ir", "data", "results"))
            for f in sorted(filenames):
                if f.endswith(SOURCE_EXT):
                    files.append(os.path.relpath(os.path.join(dirpath, f), src).replace(os.sep, "/"))
    return files


def check_includes(src):
    files = scan(src)
    by_suffix = {}
    for f in files:
        parts = f.split("/")
        for i in range(len(parts)):
            by_suffix.setdefault("/".join(parts[i:]), []).append(f)
    bad = []
    checked = 0
    for f in files:
        key = folder_key(f)
        if key is None:
            continue
        allowed = reachable(key)
        with open(os.path.join(src, f), encoding="utf-8", errors="replace") as fh:
            lines = fh.readlines()
        for no, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            inc = m.group(1)
            checked += 1
            here = os.path.normpath(os.path.join(os.path.dirname(f), inc)).replace(os.sep, "/")
            if here in files:
                target = here
            else:
                cands = by_suffix.get(inc, [])
                if not cands:
                    bad.append(f"{f}:{no}: #include \"{inc}\" names no file in the tree")
                    continue
                lib = [c for c in cands if folder_key(c) is not None]
                cands = lib or cands
                if len(cands) > 1:
                    bad.append(f"{f}:{no}: #include \"{inc}\" is ambiguous: {', '.join(cands)}")
                    continue
                target = cands[0]
            tkey = folder_key(target)
            if tkey is None:
                bad.append(f"{f}:{no}: includes {target}, outside the library folders")
                continue
            if concrete(target) == concrete(f) or tkey in allowed:
                continue
            if tkey == key:  # same LAYERS entry, another folder: kernels/<a> -> kernels/<b>
                how = "beside it (a sibling folder: another op family or another backend)"
            elif LAYERS[tkey][0] > LAYERS[key][0]:
                how = "above it"
            else:
                how = "beside it (not a folder it sits on)"
            bad.append(f"{f}:{no}: includes {target}: {concrete(target)}/ (rank {LAYERS[tkey][0]}) is {how}; "
                       f"{concrete(f)}/ (rank {LAYERS[key][0]}) may include only "
                       f"{', '.join(sorted(allowed)) or 'nothing else'}")
    for b in bad:
        print("check_layers: " + b)
    print(f"check_layers: {len(files)} files, {checked} includes checked: {len(bad)} violation(s)")
    return not bad


def defined_globals(path):
    out = subprocess.run(["nm", "--defined-only", path], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"nm {path}: {out.stderr.strip()}")
    syms = set()
    for line in out.stdout.splitlines():
        p = line.split()
        # "ADDR T name": upper-case types are global (local static helpers may share names harmlessly)
        if len(p) == 3 and p[1] in "TDRBGSVW" and p[1].isupper():
            syms.add(p[2])
    return syms


def check_program(program, forbid):
    have = defined_globals(program)
    bad = []
    for lib in forbid:
        common = sorted(defined_globals(lib) & have)
        for s in common:
            bad.append(f"{os.path.basename(program)} defines {s}, from {os.path.basename(lib)}")
    for b in bad:
        print("check_layers: " + b)
    print(f"check_layers: {os.path.basename(program)}: {len(bad)} symbol(s) of "
          f"{', '.join(os.path.basename(l) for l in forbid)}")
    return not bad


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    src = os.path.realpath(argv[1])
    rest = argv[2:]
    if not rest:
        return 0 if check_includes(src) else 1
    if len(rest) < 4 or rest[0] != "--program" or rest[2] != "--forbid":
        print(__doc__, file=sys.stderr)
        return 2
    return 0 if check_program(rest[1], rest[3:]) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
