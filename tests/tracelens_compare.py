#!/usr/bin/env python3
"""Compares jarvis-analyze's CSV sheets with TraceLens' reference CSVs for the
real fixture traces in ../shared/traces (skips with exit 77 when absent).

usage: tracelens_compare.py JARVIS_ANALYZE SHARED_DIR [TRACE_NAME ...]

Checks, per trace that TraceLens could analyse:
  gpu_timeline   every row within 0.5 % relative or 1 us
  ops_summary    per op name: direct and subtree kernel time sums within 1 %, Count equal
  ops_summary_by_category: per category, time within 1 %, Count equal
  kernel_summary per (category, parent op, kernel, stream): sum within 1 %, count equal
  ops_unique_args per group key: operation_count equal, direct sum within 1 %, ex_UID equal
Deliberate differences from TraceLens are listed in DELIBERATE with the reason.
Prints 'N passed, N failed' and exits 1 on any failure.
"""
import csv, os, subprocess, sys, tempfile

csv.field_size_limit(1 << 30)

# (trace, sheet) -> reason. Our value is asserted by the unit/integration
# tests named in the reason; here the row is skipped.
DELIBERATE = {}


def read_csv(path):
    with open(path, newline='', encoding='utf-8') as f:
        return list(csv.DictReader(f))


def close(a, b, rel, abs_tol):
    return abs(a - b) <= max(abs_tol, rel * max(abs(a), abs(b)))


def num(x):
    return float(x) if x not in ('', None) else 0.0


class Checker:
    def __init__(self, name):
        self.name, self.fail, self.ok = name, [], 0

    def check(self, cond, what):
        if cond:
            self.ok += 1
        else:
            self.fail.append(what)


def compare(name, ours, ref, c):
    def sheet(s):
        return os.path.join(ours, s + '.csv'), os.path.join(ref, s + '.csv')

    o, r = sheet('gpu_timeline')
    if os.path.exists(r):
        ro = {row['type']: num(row['time ms']) for row in read_csv(o)}
        for row in read_csv(r):
            t, v = row['type'], num(row['time ms'])
            c.check(t in ro and close(ro[t], v, 0.005, 0.001), f'gpu_timeline {t}: ours {ro.get(t)} ref {v}')

    o, r = sheet('ops_summary')
    if os.path.exists(r):
        ours_rows = {row['name']: row for row in read_csv(o)}
        for row in read_csv(r):
            n = row['name']
            mine = ours_rows.get(n)
            if mine is None:
                c.check(False, f'ops_summary {n}: missing')
                continue
            for col in ('total_direct_kernel_time_sum', 'total_subtree_kernel_time_sum'):
                c.check(close(num(mine[col]), num(row[col]), 0.01, 1e-3),
                        f'ops_summary {n} {col}: ours {mine[col]} ref {row[col]}')
            c.check(mine['Count'] == row['Count'], f'ops_summary {n} Count: ours {mine["Count"]} ref {row["Count"]}')
            c.check(mine['Categories'] == row['Categories'],
                    f'ops_summary {n} Categories: ours {mine["Categories"]} ref {row["Categories"]}')

    o, r = sheet('ops_summary_by_category')
    if os.path.exists(r):
        ours_rows = {row['op category']: row for row in read_csv(o)}
        for row in read_csv(r):
            k = row['op category']
            mine = ours_rows.get(k)
            c.check(mine is not None and close(num(mine['total_direct_kernel_time_ms']),
                                               num(row['total_direct_kernel_time_ms']), 0.01, 1e-6)
                    and mine['Count'] == row['Count'], f'ops_summary_by_category {k}: ours {mine} ref {row}')

    o, r = sheet('kernel_summary')
    if os.path.exists(r):
        def key(row):
            return (row['Parent op category'], row.get('Parent cpu_op', ''), row['Kernel name'],
                    str(int(float(row['Kernel stream']))) if row['Kernel stream'] else '')
        ours_rows = {key(row): row for row in read_csv(o)}
        for row in read_csv(r):
            k = key(row)
            mine = ours_rows.get(k)
            c.check(mine is not None and close(num(mine['Kernel duration (µs)_sum']),
                                               num(row['Kernel duration (µs)_sum']), 0.01, 1e-3)
                    and int(mine['Kernel duration (µs)_count']) == int(float(row['Kernel duration (µs)_count'])),
                    f'kernel_summary {k[:2]} {k[2][:60]}: ours {mine and mine["Kernel duration (µs)_sum"]} '
                    f'ref {row["Kernel duration (µs)_sum"]}')

    o, r = sheet('ops_unique_args')
    if os.path.exists(r):
        cols = ('name', 'op category', 'process_name', 'process_label', 'thread_name', 'Input Dims', 'Input type',
                'Input Strides', 'Concrete Inputs')
        ours_rows = {tuple(row[k] for k in cols): row for row in read_csv(o)}
        for row in read_csv(r):
            k = tuple(row[c2] for c2 in cols)
            mine = ours_rows.get(k)
            c.check(mine is not None and mine['operation_count'] == row['operation_count']
                    and close(num(mine['total_direct_kernel_time_sum']), num(row['total_direct_kernel_time_sum']),
                              0.01, 1e-3) and mine['ex_UID'] == row['ex_UID'],
                    f'ops_unique_args {k[0]} {k[5][:50]}: ours {mine and (mine["operation_count"], mine["ex_UID"])} '
                    f'ref {(row["operation_count"], row["ex_UID"])}')


def main():
    exe, shared = sys.argv[1], sys.argv[2]
    only = set(sys.argv[3:])
    traces = os.path.join(shared, 'traces')
    refs = os.path.join(traces, 'tracelens')
    if not os.path.isdir(refs):
        print('shared traces not found: skipped')
        return 77
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for fn in sorted(os.listdir(traces)):
            if not (fn.endswith('.json') or fn.endswith('.json.gz')):
                continue
            name = fn[:-8] if fn.endswith('.json.gz') else fn[:-5]
            if only and name not in only:
                continue
            out = os.path.join(tmp, name)
            p = subprocess.run([exe, '-q', os.path.join(traces, fn), '-o', out], capture_output=True, text=True)
            c = Checker(name)
            c.check(p.returncode == 0, f'exit {p.returncode}: {p.stderr.strip()}')
            ref = os.path.join(refs, name)
            if p.returncode == 0 and os.path.isdir(ref):
                compare(name, os.path.join(out, 'perf_report_csvs'), ref, c)
            if c.fail:
                failed += 1
                print(f'FAIL {name}: {len(c.fail)} of {len(c.fail) + c.ok} checks')
                for f in c.fail[:15]:
                    print('   ', f)
            else:
                passed += 1
                print(f'ok   {name}: {c.ok} checks')
    print(f'{passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
