#!/usr/bin/env python3
"""The xlsx workbook opens in a second reader (openpyxl) and holds what the CSV sheets hold.

Analyses a trace, then for every sheet: the workbook has a worksheet of that name, the same number of rows
and columns, the same header, and every cell equal to its CSV cell (numbers as numbers, compared to 1e-12
relative; text equal, Excel's 32767-character cell limit aside). Usage: test_xlsx.py JARVIS_ANALYZE TRACE
"""
import csv, math, os, subprocess, sys, tempfile

csv.field_size_limit(1 << 30)
try:
    import openpyxl
except ImportError:
    print('FAIL: python3-openpyxl is not installed (apt-get install python3-openpyxl)')
    sys.exit(1)


def main():
    exe, trace = sys.argv[1], sys.argv[2]
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run([exe, '-q', trace, '-o', tmp, '--gpu-arch', 'H100'], capture_output=True, text=True)
        if p.returncode:
            print('FAIL: jarvis-analyze exit', p.returncode, p.stderr)
            return 1
        wb = openpyxl.load_workbook(os.path.join(tmp, 'perf_report.xlsx'), read_only=True)
        csvdir = os.path.join(tmp, 'perf_report_csvs')
        names = sorted(f[:-4] for f in os.listdir(csvdir) if f.endswith('.csv'))
        for want in ('unified_perf_summary', 'GEMM', 'gpu_timeline', 'kernel_summary'):
            if want in names:
                passed += 1
            else:
                failed += 1
                print('FAIL: no sheet', want)
        for name in names:
            with open(os.path.join(csvdir, name + '.csv'), newline='', encoding='utf-8') as f:
                crows = list(csv.reader(f))
            if name not in wb.sheetnames:
                failed += 1
                print('FAIL: workbook lacks', name)
                continue
            xrows = [list(r) for r in wb[name].iter_rows(values_only=True)]
            if len(xrows) != len(crows):
                failed += 1
                print(f'FAIL: {name}: {len(xrows)} rows in xlsx, {len(crows)} in csv')
                continue
            for i, (cr, xr) in enumerate(zip(crows, xrows)):
                xr = xr + [None] * (len(cr) - len(xr))
                for j, (cv, xv) in enumerate(zip(cr, xr)):
                    if cv == '':
                        ok = xv is None or xv == ''
                    elif isinstance(xv, (int, float)) and not isinstance(xv, bool):
                        try:
                            ok = math.isclose(float(cv), float(xv), rel_tol=1e-12)
                        except ValueError:
                            ok = False
                    else:
                        ok = xv == cv or (len(cv) > 32767 and cv.startswith(xv or ''))
                    if ok:
                        passed += 1
                    else:
                        failed += 1
                        if failed < 20:
                            print(f'FAIL: {name} row {i} col {j}: csv {cv[:80]!r} xlsx {str(xv)[:80]!r}')
    print(f'{passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
