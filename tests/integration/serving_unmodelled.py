#!/usr/bin/env python3
"""Unmodelled GPU time on the serving and compiled-model fixtures (issue 18), jarvis vs TraceLens.

usage: serving_unmodelled.py JARVIS_ANALYZE SHARED_DIR [--table]

For each fixture below, the share of GPU time (Kernel Time (µs)_sum) in unified_perf_summary rows with no
model, that is an empty GFLOPS and an empty Data Moved (MB) cell, in jarvis' CSV (jarvis-analyze run on the
trace) and in TraceLens' (SHARED_DIR/traces/tracelens/<trace>/unified_perf_summary.csv). jarvis' CSV says why
a row is not modelled (column "No Model Reason"); the reasons split into what the trace does not record (a
graph replay, a kernel launched outside any op, data-sized outputs, sequence lengths) and what jarvis lacks
(no perf model for the op, a call its model could not read).

Checks, per trace:
- every row with a reason has no GFLOPS and no Data Moved, every row without one has either;
- jarvis' unmodelled share <= TraceLens';
- jarvis' unmodelled share <= 10 %, or the part of it that jarvis lacks (not the trace) is <= 1 % of GPU time
  (the rest is said to be unmodellable from the trace, row by row, in the CSV and the report).
--table prints the figures as a markdown table (README's "Unmodelled GPU time"). Exit 77 without the fixtures.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck, md_check
from jvcheck import check, finish, read_csv, skip  # noqa: E402

TRACES = (
    'amd_mi300x_vllm_gptoss_decode_graph.json.gz',
    'amd_mi300x_sglang_qwen3_8b_decode.json.gz',
    'amd_mi300x_torch_compile_tiny.json.gz',
    'nv_b300_moe_microbench.json.gz',
    'nv_a100_triton_tiny.json.gz',
    'amd_mi300x_sdpa_rocprofsdk.json',
)
# reasons that jarvis lacks a model for (jv_nomodel_str of JV_NOMODEL_UNKNOWN_OP and JV_NOMODEL_REFUSED); every
# other reason is something the trace does not record
OWN_GAPS = ('no perf model for the op', "the op's model could not read the recorded call")
TIME = 'Kernel Time (µs)_sum'
LIMIT_PCT = 10.0  # the goal
OWN_GAP_PCT = 1.0  # what jarvis may lack above that goal


def blank(cell):
    return cell is None or cell.strip() in ('', 'nan', 'NaN')


def unmodelled(rows):
    """(total µs, unmodelled µs, {reason: µs}) of a unified_perf_summary; reason '' for TraceLens' rows"""
    total = unm = 0.0
    why = {}
    for r in rows:
        t = float(r[TIME] or 0)
        total += t
        if blank(r.get('GFLOPS')) and blank(r.get('Data Moved (MB)')):
            unm += t
            k = r.get('No Model Reason', '')
            why[k] = why.get(k, 0.0) + t
    return total, unm, why


def pct(x, total):
    return 100.0 * x / total if total > 0 else 0.0


def main(argv):
    table = '--table' in argv
    args = [a for a in argv if a != '--table']
    if len(args) != 2:
        print(__doc__)
        return 2
    exe, shared = args
    traces = os.path.join(shared, 'traces')
    if not os.path.isdir(os.path.join(traces, 'tracelens')):
        skip(f'no fixtures in {traces}')
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        for fn in TRACES:
            stem = fn.split('.json')[0]
            path = os.path.join(traces, fn)
            tl_csv = os.path.join(traces, 'tracelens', stem, 'unified_perf_summary.csv')
            if not os.path.exists(path) or not os.path.exists(tl_csv):
                check(False, f'{fn}: fixture or TraceLens CSV missing')
                continue
            out = os.path.join(tmp, stem)
            p = subprocess.run([exe, '-q', path, '-o', out], capture_output=True, text=True)
            check(p.returncode == 0, f'{fn}: jarvis-analyze exit {p.returncode}', p.stderr[-1000:])
            if p.returncode:
                continue
            jrows = read_csv(os.path.join(out, 'perf_report_csvs', 'unified_perf_summary.csv'))
            for r in jrows:
                has = not (blank(r['GFLOPS']) and blank(r['Data Moved (MB)']))
                check(has == (r['No Model Reason'] == ''),
                      f'{fn}: {r["name"][:60]}: a reason exactly when no GFLOPS and no Data Moved',
                      r['GFLOPS'], r['Data Moved (MB)'], r['No Model Reason'])
            jt, ju, jwhy = unmodelled(jrows)
            tt, tu, _ = unmodelled(read_csv(tl_csv))
            jp, tp = pct(ju, jt), pct(tu, tt)
            own = sum(us for k, us in jwhy.items() if k in OWN_GAPS)
            trace_side = ju - own
            check(jp <= tp + 1e-9, f'{fn}: jarvis unmodelled {jp:.2f} % <= TraceLens {tp:.2f} %')
            check(jp <= LIMIT_PCT or pct(own, jt) <= OWN_GAP_PCT,
                  f'{fn}: unmodelled {jp:.2f} % <= {LIMIT_PCT} %, or what jarvis lacks {pct(own, jt):.2f} % '
                  f'<= {OWN_GAP_PCT} %', sorted(jwhy.items(), key=lambda kv: -kv[1]))
            reasons = '; '.join(f'{k} {pct(us, jt):.2f} %' for k, us in sorted(jwhy.items(), key=lambda kv: -kv[1]))
            lines.append(f'| `{stem}` | {jt:.0f} | {jp:.2f} % | {pct(trace_side, jt):.2f} % | {pct(own, jt):.2f} % | '
                         f'{tp:.2f} % | {reasons or "–"} |')
    if table:
        print('| trace | GPU time (µs) | jarvis unmodelled | of it: not recorded by the trace | of it: no jarvis model '
              '| TraceLens unmodelled | jarvis reasons |')
        print('|---|---:|---:|---:|---:|---:|---|')
        print('\n'.join(lines))
    return finish()


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
