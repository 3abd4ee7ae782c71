#!/usr/bin/env python3
"""Memcpy and memset rows, and the elementwise baseline (issue 19, items 2 and 3), on fixture traces that hold
such copies. What is memcpy/memset comes from the trace's own event categories (gpu_memcpy, gpu_memset), read
here, not from jarvis' classification.

Per trace:
- (a) the baseline (metadata elementwise_baseline and the fair report) equals a recomputation from
  unified_perf_summary.csv without the rows that ran memcpy/memset events (tests/jvcheck.py expected_baseline),
  or says why there is none; where such rows exist, the recomputation with them differs (the test bites);
- (b) every row whose kernel time is mostly memcpy/memset has no Pct Roofline (<cat>_ops.csv; and
  unified_perf_summary.csv when the row's only kernel is the transfer), says which transfer it is (<cat>_ops.csv `transfer`), has a "not judged" verdict in the per-op
  tables (findings, rough report), and no impact projection (so no kernel-issue recommendation: its time is in
  the timeline's exposed memcpy only);
- (c) a trace whose add/mul/copy_ ops are only small copies prints no baseline number, and says so.
Usage: test_transfers.py JARVIS_ANALYZE EXAMPLE_TRACE SHARED_DIR (the example is unused: it has no copies)
"""
import json, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck, md_check
from jvcheck import (BASELINE_OPS, check, expected_baseline, finish, num, read_csv, row_kernels,  # noqa: E402
                     row_transfer_us, skip, transfer_names)

CATS = ['gemm', 'convolution', 'batchnorm', 'elementwise', 'other']
# trace -> what the baseline must be ('ok', 'too few', 'none'), and whether memcpy add/mul/copy_ rows exist
TRACES = {
    'nv_h100_timesformer_infer.json.gz': ('ok', True),         # copy_ as Memcpy HtoD (Pageable): 3.46 ms
    'amd_mi300xvf_timesformer_infer.json.gz': ('ok', True),    # the same on MI300X
    'nv_sampled_w128_rank1.json.gz': ('ok', True),             # pageable HtoD/DtoH copy_ rows: 12.3 ms
    'amd_mi300x_sglang_qwen3_8b_decode.json.gz': ('none', True),  # serving: only small copies, all memcpy
    'amd_mi300x_vllm_gptoss_decode_graph.json.gz': ('too few', True),
    'nv_v100_dlrm_w8_rank0.json': ('too few', True),           # 6 calls, 9 MiB: launch-dominated
    'nv_h100_bert_small_infer.json.gz': ('too few', False),    # small adds only
    'nv_h100_qwen15_05b_infer.json.gz': ('ok', False),         # memsets under GEMMs: rows stay GEMM rows
}


def analyze(exe, trace, out):
    p = subprocess.run([exe, trace, '-o', out, '-q'], capture_output=True, text=True)
    check(p.returncode == 0, f'analyze {os.path.basename(trace)}: exit {p.returncode}: {p.stderr[-300:]}')
    return p.returncode == 0


def check_trace(exe, trace, out, want_state, has_xfer_rows):
    label = os.path.basename(trace).split('.json')[0]
    if not analyze(exe, trace, out):
        return
    names = transfer_names(trace)
    uni = read_csv(os.path.join(out, 'perf_report_csvs', 'unified_perf_summary.csv'))
    pct_of = {(r['name'], r['ex_UID']): r.get('Pct Roofline_mean', '') for r in uni}  # absent without a GPU
    with open(os.path.join(out, 'standalone_analysis_fair.md'), encoding='utf-8') as f:
        fair = f.read()
    with open(os.path.join(out, 'standalone_analysis_rough.md'), encoding='utf-8') as f:
        rough = f.read()
    with open(os.path.join(out, 'metadata', 'elementwise_metadata.json'), encoding='utf-8') as f:
        base = json.load(f)['elementwise_baseline']
    ops = {}
    for cat in CATS:
        for r in read_csv(os.path.join(out, 'category_data', f'{cat}_ops.csv'), optional=True):
            ops[(r['name'], r['ex_UID'])] = (cat, r)
    ew = [r for c, r in ops.values() if c == 'elementwise']
    # (a) the baseline, recomputed without memcpy/memset rows
    state, tbs = expected_baseline(ew, names)
    check(state == want_state, f'{label}: recomputed baseline state {state} == {want_state}')
    m = re.search(r'\| Elementwise baseline \(add/mul/copy_\) \| ([\d.]+) TB/s', fair)
    if state == 'ok':
        check(base['tbs'] is not None and abs(base['tbs'] - tbs) <= 1e-6 * tbs,
              f'{label}: metadata baseline {base["tbs"]} == recomputed {tbs:.6f} TB/s (memcpy/memset rows out)')
        check(m is not None and abs(float(m.group(1)) - tbs) <= 0.0006,
              f'{label}: fair report baseline {m.group(1) if m else None} == {tbs:.4f} TB/s')
    else:
        # (c) no number, and why
        check(base['tbs'] is None and m is None, f'{label}: no baseline number ({base["tbs"]}, fair {m})')
        why = 'no baseline: too few large elementwise ops' if state == 'too few' else 'no baseline: no aten::add'
        check(why in fair, f'{label}: the fair report says "{why}"')
    xrows = [r for r in ew if r['name'] in BASELINE_OPS and num(r['Data Moved (MB)']) > 0
             and row_transfer_us(r, names)[0] > 0]
    check(bool(xrows) == has_xfer_rows, f'{label}: add/mul/copy_ rows with memcpy/memset: {len(xrows)}')
    check(base.get('transfer_rows') == len(xrows),
          f'{label}: metadata transfer_rows {base.get("transfer_rows")} == {len(xrows)} such rows')
    if has_xfer_rows and state == 'ok':
        old = expected_baseline(ew, set())  # the old rule: memcpy rows in
        check(old[0] != 'ok' or abs(old[1] - tbs) > 1e-3 * tbs,
              f'{label}: with memcpy rows the baseline would differ ({old[1]} vs {tbs:.4f} TB/s)')
    # (b) transfer rows: no roofline, a typed flag, not judged, no projection
    findings = {}
    for cat in CATS:
        p = os.path.join(out, 'category_findings', f'{cat}_findings.md')
        if os.path.exists(p):
            with open(p, encoding='utf-8') as f:
                findings[cat] = f.read()
    dims_count = {}
    for _, r in ops.values():
        dims_count[(r['name'], r['Input Dims'])] = dims_count.get((r['name'], r['Input Dims']), 0) + 1
    n = 0
    for (name, uid), (cat, o) in ops.items():
        x, allk = row_transfer_us(o, names)
        if not (allk > 0 and 2 * x >= allk):
            continue
        n += 1
        what = f'{label}: transfer row {name} UID {uid} ({x:.1f} of {allk:.1f} µs memcpy/memset)'
        check(o['Pct Roofline_mean'] == '' and o['Efficiency Band'] == '' and o['Roofline Bound'] == '',
              f'{what}: no roofline in {cat}_ops.csv')
        check(o.get('transfer', '').endswith('memcpy') or o.get('transfer') == 'memset',
              f'{what}: {cat}_ops.csv transfer "{o.get("transfer")}"')
        if o['kernels'] and len(row_kernels(o)) == 1:  # one kernel: every instance is the transfer
            check(pct_of.get((name, uid), 'missing') == '', f'{what}: no Pct Roofline in unified_perf_summary')
        for text, where in ((findings.get(cat, ''), f'{cat}_findings.md'), (rough, 'rough report')):
            # per-op tables end "| Verdict | UID | Replay op |"
            lines = [ln for ln in text.splitlines() if ln.startswith('| ') and f'`{name}`' in ln
                     and [c.strip() for c in ln.strip().strip('|').split('|')][-2] == uid]
            check(all('not judged' in [c.strip() for c in ln.strip().strip('|').split('|')][-3] for ln in lines),
                  f'{what}: verdict "not judged" in the {where} ({lines[:1]})')
        if dims_count[(name, o['Input Dims'])] == 1 and cat in findings and o['Input Dims']:
            hit = [ln for ln in findings[cat].splitlines() if ln.startswith('### ') and f'`{name}`' in ln
                   and o['Input Dims'] in ln]
            check(not hit, f'{what}: no impact projection in {cat}_findings.md ({hit[:1]})')
    if has_xfer_rows:
        check(n > 0, f'{label}: {n} rows are mostly memcpy/memset')


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    exe, _example, shared = sys.argv[1:]
    tdir = os.path.join(shared, 'traces')
    present = [t for t in TRACES if os.path.exists(os.path.join(tdir, t))]
    if not present:
        skip(f'no fixture traces under {tdir}')
    with tempfile.TemporaryDirectory(prefix='jv_transfers_') as tmp:
        for t in present:
            want, has_x = TRACES[t]
            check_trace(exe, os.path.join(tdir, t), os.path.join(tmp, t.split('.json')[0]), want, has_x)
    return finish()


if __name__ == '__main__':
    sys.exit(main())
