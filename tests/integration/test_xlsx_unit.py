#!/usr/bin/env python3
"""jv_xlsx's workbooks read back by a second reader (openpyxl) and by zipfile, cell by cell.

Runs the unit test program (tests/unit/test_report_xlsx.c) with a folder: it leaves book.xlsx,
sheet.xlsx and empty.xlsx there and expected.tsv, every cell they hold (workbook, sheet, row, column, kind, value).
Checks: zipfile's testzip() (every member's CRC-32) and the member list; openpyxl opens each workbook and
finds its worksheets in order; every cell openpyxl reads is expected and every expected cell is read with
its value (strings byte for byte after OOXML's _xHHHH_ decoding, which Excel applies and openpyxl 3.0
leaves to the caller; numbers exactly; +-inf as the error #NUM!); the 200,000-row sheet, deflated in many
chunks, holds exactly its rows; the escapes are in the XML as written (_x0001_, _x005F_x0041_, &#13;).
Usage: test_xlsx_unit.py TEST_REPORT_XLSX (exit 77 without openpyxl)
"""
import os, re, subprocess, sys, tempfile, zipfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck
from jvcheck import check, finish, require_module, tally  # noqa: E402

SHEETS = {'book.xlsx': ['cells & <edges>', 'numbers', 'big', '0123456789012345678901234567890'],
          'sheet.xlsx': ['long'], 'empty.xlsx': ['Sheet1']}
MEMBERS = {'[Content_Types].xml', '_rels/.rels', 'xl/workbook.xml', 'xl/_rels/workbook.xml.rels',
           'xl/styles.xml'}
ESCAPED = re.compile('_x([0-9A-Fa-f]{4})_')


def ooxml_text(s):
    """ECMA-376 Part 1, 22.9.2.19 (ST_Xstring): _xHHHH_ is the character U+HHHH"""
    return ESCAPED.sub(lambda m: chr(int(m.group(1), 16)), s)


def expected(path):
    want = {}  # (book, sheet) -> {(row, col): (kind, value)}
    rules = {}
    with open(path, encoding='ascii') as f:
        for line in f:
            book, sheet, row, col, *rest = line.rstrip('\n').split('\t')
            if row == 'RULE':
                rules[(book, sheet)] = int(col)
                continue
            kind, val = rest
            v = bytes.fromhex(val).decode('utf-8') if kind == 's' else float(val) if kind == 'n' else val
            want.setdefault((book, sheet), {})[(int(row), int(col))] = (kind, v)
    return want, rules


def main():
    prog = sys.argv[1]
    openpyxl = require_module('openpyxl', 'the second workbook reader (Debian: python3-openpyxl)')
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run([prog, tmp], capture_output=True, text=True)
        check(p.returncode == 0, 'test_report_xlsx failed: %s' % p.stderr[-2000:])
        if p.returncode:
            return finish()
        want, rules = expected(os.path.join(tmp, 'expected.tsv'))
        for book, names in SHEETS.items():
            path = os.path.join(tmp, book)
            with zipfile.ZipFile(path) as z:
                check(z.testzip() is None, f'{book}: a bad CRC')
                members = set(z.namelist())
                sheets = {'xl/worksheets/sheet%d.xml' % (i + 1) for i in range(len(names))}
                check(members == MEMBERS | sheets, f'{book}: members {sorted(members)}')
                if book == 'book.xlsx':
                    xml = z.read('xl/worksheets/sheet1.xml').decode('utf-8')
                    for s in ('_x0001_', '_x001F_', '_x005F_x0041_', '&#13;', '&amp;&lt;&gt;"\'', '_x007F_'):
                        check((s in xml) == (s != '_x007F_'), f'{book}: escape {s!r} in the XML: {s in xml}')
                    big = z.getinfo('xl/worksheets/sheet3.xml')
                    check(big.compress_size > 4 * 32768 and big.file_size > 8 << 20,
                          f'big sheet: {big.file_size} bytes, {big.compress_size} deflated: not several chunks')
            wb = openpyxl.load_workbook(path)
            check(wb.sheetnames == names, f'{book}: sheets {wb.sheetnames}')
            for name in wb.sheetnames:
                ws = wb[name]
                got = {(r - 1, c - 1): cell for (r, c), cell in ws._cells.items() if cell.value is not None}
                if (book, name) in rules:
                    n = rules[(book, name)]
                    ok = len(got) == 3 * n
                    for i in range(n):
                        if not ok:
                            break
                        a, b, c = (got.get((i, j)) for j in range(3))
                        ok = (a is not None and b is not None and c is not None and a.value == i
                              and b.value == 'row %d' % i and c.value == i / 8)
                    check(ok, f'{book}!{name}: {len(got)} cells, the rows are not rows 0..{n - 1} of the rule')
                    continue
                exp = want.get((book, name), {})
                for key in sorted(set(got) | set(exp)):
                    g, e = got.get(key), exp.get(key)
                    where = f'{book}!{name} row {key[0]} col {key[1]}'
                    if g is None or e is None:
                        check(False, f'{where}: read {g and g.value!r}, expected {e!r}', echo=tally().failed < 19)
                        continue
                    kind, v = e
                    if kind == 's':
                        ok = g.data_type == 's' and ooxml_text(g.value) == v
                    elif kind == 'n':
                        ok = g.data_type == 'n' and isinstance(g.value, (int, float)) and g.value == v
                    else:
                        ok = g.data_type == 'e' and g.value == v
                    check(ok, f'{where}: read {g.data_type} {g.value!r:.80}, expected {kind} {v!r:.80}',
                          echo=tally().failed < 19)
    return finish()


if __name__ == '__main__':
    sys.exit(main())
