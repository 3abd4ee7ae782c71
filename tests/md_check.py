#!/usr/bin/env python3
"""Checks that markdown reports are valid and that every link inside them resolves.

Usage: md_check.py FILE.md [FILE.md ...]   (exit 0: all good; 1: problems, listed; 77: no markdown-it)

Checks, per file:
- it parses as CommonMark + GFM tables (markdown-it-py, Debian's python3-markdown-it);
- every table row has as many cells as its header (a stray '|' in a cell breaks a table silently);
- every link is either absolute (http/https/mailto) or a relative path that exists, relative to the file;
  a '#fragment' must name an anchor of the target file: an explicit <a id="..."> / <a name="..."> or the
  GitHub-style slug of one of its headings;
- no link text is empty and no raw '](' is left unparsed in the rendered text (a broken link).
Importable: check_files(paths) returns the list of problems.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # tests/: jvcheck, md_check
import jvcheck  # noqa: E402

# what needs markdown-it and where it comes from, for jvcheck's skip messages
NEEDS = "markdown checks (markdown-it-py; Debian: python3-markdown-it)"
_mdit = jvcheck.find_module("markdown_it")
MarkdownIt = _mdit.MarkdownIt if _mdit else None

_ANCHOR_RE = re.compile(r"<a\s+[^>]*(?:id|name)\s*=\s*\"([^\"]+)\"", re.I)


def _parser():
    if MarkdownIt is None:  # callers check first: jvcheck.optional_module("markdown_it", NEEDS)
        raise RuntimeError("md_check: " + NEEDS + ": markdown-it is not available")
    return MarkdownIt("commonmark").enable("table")


def _slug(text):
    s = text.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors_of(path, cache={}):
    """Explicit anchors and heading slugs of a markdown file."""
    if path in cache:
        return cache[path]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    tokens = _parser().parse(text)
    names = set(_ANCHOR_RE.findall(text))
    seen = {}
    for i, t in enumerate(tokens):
        if t.type == "heading_open":
            inline = tokens[i + 1]
            plain = "".join(c.content for c in (inline.children or []) if c.type in ("text", "code_inline"))
            s = _slug(plain)
            n = seen.get(s, 0)
            seen[s] = n + 1
            names.add(s if n == 0 else "%s-%d" % (s, n))
    cache[path] = names
    return names


def _raw_cells(line):
    """cells of a GFM table line: '|' not escaped and not inside a code span separate them"""
    s = line.strip()
    n, i, code = 1, 0, False
    while i < len(s):
        ch = s[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "`":
            code = not code
        elif ch == "|" and not code:
            n += 1
        i += 1
    if s.startswith("|"):
        n -= 1
    if s.endswith("|") and not s.endswith("\\|"):
        n -= 1
    return n


def _walk(tokens):
    for t in tokens:
        yield t
        if t.children:
            yield from _walk(t.children)


def check_file(path):
    problems = []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    parser = _parser()  # outside the try: no markdown-it is not a problem of the file
    try:
        tokens = parser.parse(text)
    except Exception as e:  # markdown-it accepts almost anything; a crash is a problem
        return ["%s: does not parse: %s" % (path, e)]
    # tables: cells per row
    header_cells = None
    cells = 0
    in_head = False
    row_line = None
    for t in tokens:
        if t.type == "thead_open":
            in_head = True
        elif t.type == "thead_close":
            in_head = False
        elif t.type == "tr_open":
            cells = 0
            row_line = t.map[0] + 1 if t.map else None
        elif t.type in ("th_open", "td_open"):
            cells += 1
        elif t.type == "tr_close":
            if in_head:
                header_cells = cells
            elif header_cells is not None and cells != header_cells:
                problems.append("%s:%s: table row has %d cells, header has %d" % (path, row_line, cells, header_cells))
        elif t.type == "table_close":
            header_cells = None
    # the raw lines of each table: markdown-it drops surplus cells silently, so count them in the source
    lines = text.split("\n")
    for t in tokens:
        if t.type == "table_open" and t.map:
            rows = lines[t.map[0]:t.map[1]]
            counts = [_raw_cells(r) for r in rows if r.strip()]
            for k, c in enumerate(counts):
                if k != 1 and c != counts[0]:
                    problems.append("%s:%d: table row has %d cells, header has %d" % (path, t.map[0] + k + 1, c,
                                                                                    counts[0]))
    # links
    base = os.path.dirname(os.path.abspath(path))
    for t in _walk(tokens):
        if t.type == "link_open":
            href = t.attrGet("href") or ""
            if not href:
                problems.append("%s: empty link target" % path)
                continue
            if re.match(r"^(https?|mailto):", href):
                continue
            file_part, _, frag = href.partition("#")
            target = os.path.normpath(os.path.join(base, file_part)) if file_part else os.path.abspath(path)
            if not os.path.exists(target):
                problems.append("%s: link to %s: no such file" % (path, href))
                continue
            if frag:
                if not target.endswith(".md"):
                    problems.append("%s: link to %s: a fragment into a file that is not markdown" % (path, href))
                elif frag not in anchors_of(target):
                    problems.append("%s: link to %s: no anchor '%s' in %s" % (path, href, frag, target))
        elif t.type == "text" and re.search(r"\]\((?!\s)", t.content):
            problems.append("%s: unparsed link text: %r" % (path, t.content[:80]))
    return problems


def check_files(paths):
    out = []
    for p in paths:
        out.extend(check_file(p))
    return out


def main(argv):
    if MarkdownIt is None:
        jvcheck.skip(NEEDS + ": python module markdown_it not found")
    if len(argv) < 2:
        print(__doc__)
        return 2
    problems = check_files(argv[1:])
    for p in problems:
        print(p)
    print("md_check: %d file(s), %d problem(s)" % (len(argv) - 1, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
