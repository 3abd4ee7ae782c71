#!/usr/bin/env python3
"""The xlsx workbook opens in a second reader (openpyxl) and holds what the CSV sheets hold.

Analyses a trace, then for every sheet: the workbook has a worksheet of that name, the same number of rows
and columns, the same header, and every cell equal to its CSV cell (numbers as numbers, compared to 1e-12
relative; text equal, Excel's 32767-character cell limit aside). Usage: test_xlsx.py JARVIS_ANALYZE TRACE
(exit 77 without openpyxl)
"""
import os, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck, md_check
from jvcheck import check, close, finish, read_csv, require_module, run, tally  # noqa: E402


def main():
    exe, trace = sys.argv[1], sys.argv[2]
    openpyxl = require_module('openpyxl', 'the second workbook reader (Debian: python3-openpyxl)')
    with tempfile.TemporaryDirectory() as tmp:
        p = run(exe, '-q', trace, '-o', tmp, '--gpu-arch', 'H100')
        if p.returncode:
            print('FAIL: jarvis-analyze exit', p.returncode, p.stderr)
            return 1
        wb = openpyxl.load_workbook(os.path.join(tmp, 'perf_report.xlsx'), read_only=True)
        csvdir = os.path.join(tmp, 'perf_report_csvs')
        names = sorted(f[:-4] for f in os.listdir(csvdir) if f.endswith('.csv'))
        for want in ('unified_perf_summary', 'GEMM', 'gpu_timeline', 'kernel_summary'):
            check(want in names, f'no sheet {want}')
        for name in names:
            crows = read_csv(os.path.join(csvdir, name + '.csv'), plain=True)
            if name not in wb.sheetnames:  # counted as a failure only, as the row count below
                check(False, f'workbook lacks {name}')
                continue
            xrows = [list(r) for r in wb[name].iter_rows(values_only=True)]
            if len(xrows) != len(crows):
                check(False, f'{name}: {len(xrows)} rows in xlsx, {len(crows)} in csv')
                continue
            for i, (cr, xr) in enumerate(zip(crows, xrows)):
                xr = xr + [None] * (len(cr) - len(xr))
                for j, (cv, xv) in enumerate(zip(cr, xr)):
                    if cv == '':
                        ok = xv is None or xv == ''
                    elif isinstance(xv, (int, float)) and not isinstance(xv, bool):
                        try:
                            ok = close(cv, xv, rel=1e-12)
                        except ValueError:
                            ok = False
                    else:
                        ok = xv == cv or (len(cv) > 32767 and cv.startswith(xv or ''))
                    # the first 19 failures are printed, the others only counted
                    check(ok, f'{name} row {i} col {j}: csv {cv[:80]!r} xlsx {str(xv)[:80]!r}',
                          echo=tally().failed < 19)
    return finish()


if __name__ == '__main__':
    sys.exit(main())
