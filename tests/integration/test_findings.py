#!/usr/bin/env python3
"""Category data, category findings and standalone reports of jarvis-analyze (issue 6), checked against
the perf report's own unified_perf_summary.csv, TraceLens' kernel_summary.csv and hand-computed formulas.

Per trace (the bundled example, then fixtures when SHARED_DIR/traces exists):
- every output exists; <cat>_ops.csv rows are unified_perf_summary rows (same name, ex_UID, Input Dims and
  kernel time), GEMM / CONV_* rows land in gemm / convolution, batch-norm rows in batchnorm;
- metadata: category totals and shares equal the sums over unified_perf_summary.csv, rows = ops.csv rows;
- tree_data JSON parses, its ex_UIDs equal the ops.csv ex_UIDs in order, each found example's op UID is it;
- the elementwise baseline in the fair report equals a recomputation from elementwise_ops.csv without the
  rows that ran memcpy/memset events of the trace, or says why there is none (too few large ops);
- the impact projection tables equal calls x roofline time / target (the category data's roofline time: the
  peak policy's peaks);
- the fair report's kernel time and ranking (timeline first when computation < 95 %);
- every markdown file passes tests/md_check.py (valid, links and anchors resolve); without markdown-it these
  checks are skipped and the others run (exit 77 unless one fails, as without the fixtures).
Fixture-specific: MI300X ResNet-18 transposes = TraceLens' batched_transpose* time under conv ops (0.5 %),
native bf16 batch norm; Qwen2RMSNorm fusion with 49 instances; traces without kernels or CPU ops.
Usage: test_findings.py JARVIS_ANALYZE EXAMPLE_TRACE SHARED_DIR
"""
import json, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck, md_check
import md_check  # noqa: E402
from jvcheck import (check, closeness, expected_baseline, finish, num, optional_module, read_csv,  # noqa: E402
                     skip_part, transfer_names)

CATS = ['gemm', 'convolution', 'batchnorm', 'elementwise']
close = closeness(rel=1e-6, abs_tol=1e-6)


def analyze(exe, trace, out):
    p = subprocess.run([exe, trace, '-o', out, '-q'], capture_output=True, text=True)
    check(p.returncode == 0, f'analyze {trace}: exit {p.returncode}: {p.stderr[-500:]}')
    return p.returncode == 0


def key(r):
    return (r['name'], r['ex_UID'], r['Input Dims'])


def check_trace(exe, trace, out, label):
    """The checks every trace gets; returns (unified rows, metadata by category, fair report text)."""
    if not analyze(exe, trace, out):
        return None
    uni = read_csv(os.path.join(out, 'perf_report_csvs', 'unified_perf_summary.csv'))
    by_key = {key(r): r for r in uni}
    total = sum(num(r['Kernel Time (µs)_sum']) for r in uni)
    metas, seen = {}, set()
    md_files = [os.path.join(out, 'standalone_analysis_fair.md'), os.path.join(out, 'standalone_analysis_rough.md')]
    for cat in CATS:
        ops_p = os.path.join(out, 'category_data', f'{cat}_ops.csv')
        tree_p = os.path.join(out, 'category_data', f'{cat}_tree_data.json')
        meta_p = os.path.join(out, 'metadata', f'{cat}_metadata.json')
        find_p = os.path.join(out, 'category_findings', f'{cat}_findings.md')
        md_files.append(find_p)
        for p in (ops_p, tree_p, meta_p, find_p):
            check(os.path.isfile(p), f'{label}: {p} written')
        if not all(os.path.isfile(p) for p in (ops_p, tree_p, meta_p)):
            continue
        with open(ops_p, encoding='utf-8') as f:
            header = f.readline()
        check(header.startswith('name,op category,Input Dims,Input type,Input Strides,Concrete Inputs,ex_UID'),
              f'{label}: {cat}_ops.csv header')
        ops = read_csv(ops_p)
        with open(meta_p, encoding='utf-8') as f:
            meta = json.load(f)
        metas[cat] = meta
        # rows are unified rows, each in one category
        ok = True
        for r in ops:
            u = by_key.get(key(r))
            if u is None or not close(num(u['Kernel Time (µs)_sum']), num(r['Kernel Time (µs)_sum'])) or key(r) in seen:
                ok = False
                print(f'  {label}: {cat} row {key(r)[:2]} not matched in unified_perf_summary')
            seen.add(key(r))
        check(ok, f'{label}: {cat}_ops.csv rows are unified_perf_summary rows')
        cat_sum = sum(num(by_key[key(r)]['Kernel Time (µs)_sum']) for r in ops if key(r) in by_key)
        check(meta['rows'] == len(ops), f'{label}: {cat} metadata rows {meta["rows"]} == {len(ops)} csv rows')
        check(close(meta['category_total_us'], cat_sum, 1e-9, 1e-6),
              f'{label}: {cat} total {meta["category_total_us"]} == Σ unified rows {cat_sum}')
        share = 100.0 * cat_sum / total if total > 0 else 0.0
        check(close(meta['share_of_gpu_kernel_time_pct'], share, 1e-9, 1e-9),
              f'{label}: {cat} share {meta["share_of_gpu_kernel_time_pct"]} == {share}')
        check(meta['generator'].startswith('jarvis-analyze '), f'{label}: generator')
        # independent classification by TraceLens' op category
        for u in uni:
            oc = u['op category']
            want = 'gemm' if oc == 'GEMM' else 'convolution' if oc.startswith('CONV_') else \
                'batchnorm' if oc.startswith('NORM_') and 'batch_norm' in u['name'] else None
            if want == cat:
                check(key(u) in {key(r) for r in ops}, f'{label}: {u["name"]} ({oc}) in {cat}_ops.csv')
        # tree data
        with open(tree_p, encoding='utf-8') as f:
            tree = json.load(f)
        uids = [int(r['ex_UID']) for r in ops]
        check([o['ex_UID'] for o in tree['ops']] == uids, f'{label}: {cat} tree_data ex_UIDs == ops.csv ex_UIDs')
        bad = [o['ex_UID'] for o in tree['ops'] if o['found'] and (o['op']['uid'] != o['ex_UID'] or
                                                                  len(o['subtree']) > tree['max_subtree_nodes'])]
        check(not bad, f'{label}: {cat} tree_data examples are their own op, subtrees capped ({bad[:3]})')
        # findings file for a category without ops
        with open(find_p, encoding='utf-8') as f:
            ftxt = f.read()
        if not ops:
            check('This trace has no' in ftxt, f'{label}: {cat}_findings.md says the trace has none')
        else:
            check_impact(label, cat, ftxt, ops, by_key, total)
    # every kernel row in at most one category; all markdown valid with links resolving
    if md_check.MarkdownIt:  # else main() noted the markdown checks as skipped
        problems = md_check.check_files(md_files)
        check(not problems, f'{label}: md_check: {problems[:5]}')
    with open(md_files[0], encoding='utf-8') as f:
        fair = f.read()
    m = re.search(r'\| GPU kernel time \(Σ ops\) \| ([\d.]+) ms \|', fair)
    check(m and close(float(m.group(1)), total / 1e3, 0, 0.0006), f'{label}: fair report kernel time == Σ unified')
    ew = read_csv(os.path.join(out, 'category_data', 'elementwise_ops.csv'), optional=True)
    check_baseline(label, fair, ew, trace)
    return uni, metas, fair


def check_baseline(label, fair, ew, trace):
    """The elementwise baseline recomputed from elementwise_ops.csv (the add/mul/copy_ rows, with their kernels)
    and the trace's memcpy/memset events (REFERENCE.md section 8; README "Elementwise baseline")."""
    state, tbs = expected_baseline(ew, transfer_names(trace))
    m = re.search(r'\| Elementwise baseline \(add/mul/copy_\) \| ([\d.]+) TB/s', fair)
    if state == 'none':
        check(m is None and '| Elementwise baseline (add/mul/copy_) | no baseline: no aten::add' in fair,
              f'{label}: no baseline ops, none reported')
    elif state == 'too few':
        check(m is None and 'no baseline: too few large elementwise ops' in fair,
              f'{label}: too few large baseline ops, no number reported')
    else:
        check(m is not None and abs(float(m.group(1)) - tbs) <= 0.0006,
              f'{label}: baseline {m.group(1) if m else None} TB/s == recomputed {tbs:.4f}')


def check_impact(label, cat, text, ops, by_key, total):
    """Impact tables: op time = calls x roofline / target, saving = time - that, for the significant rows."""
    sig = []
    for r in ops:
        u = by_key.get(key(r))
        if u is None:
            continue
        # the roofline time of jarvis' own judgments: the category data's (the peak policy's peaks; the sheet's
        # TraceLens column uses MI300X's max-achievable peaks)
        roof, t, n, pct = num(r.get('Roofline Time (µs)_first')), num(u['Kernel Time (µs)_sum']), \
            int(u['operation_count']), num(u['Percentage (%)'])
        if pct >= 1.0 and roof > 0 and t > 0 and r['Roofline Bound'] and 100.0 * n * roof / t < 80:
            sig.append((n, roof, t))
    sig = sig[:5]
    sections = re.split(r'<a id="impact-\d+"></a>', text.split('<a id="impact"></a>', 1)[-1])[1:]
    check(len(sections) == len(sig), f'{label}: {cat}: {len(sections)} impact tables for {len(sig)} significant rows')
    for k, (sec, (n, roof, t)) in enumerate(zip(sections, sig)):
        eff = 100.0 * n * roof / t
        for tgt, cell in re.findall(r'^\| (\d+) % \| ([^|]+) \|', sec, re.M):
            tgt = float(tgt)
            if eff >= tgt:
                check(cell.strip() == 'already above', f'{label}: {cat} impact {k + 1} {tgt} %: already above')
                continue
            new = n * roof / (tgt / 100.0)
            row = re.search(r'^\| %d %% \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) %% \|' % tgt, sec, re.M)
            ok = row is not None and abs(float(row.group(1)) - new) <= 0.06 and \
                abs(float(row.group(2)) - (t - new) / 1e3) <= 0.0006 and \
                abs(float(row.group(3)) - 100.0 * (t - new) / total) <= 0.006
            check(ok, f'{label}: {cat} impact {k + 1} at {tgt} %: {row.groups() if row else None} vs time {new:.1f} '
                      f'saving {(t - new) / 1e3:.3f} ms')


def tracelens_transposes(path):
    t = 0.0
    for r in read_csv(path):
        if r['Kernel name'].startswith('batched_transpose') and r['Parent op category'].startswith('CONV'):
            t += float(r['Kernel duration (µs)_sum'])
    return t


def main(argv):
    if len(argv) != 4:
        print(__doc__)
        return 2
    exe, example, shared = argv[1:]
    optional_module('markdown_it', md_check.NEEDS)
    tmp = tempfile.mkdtemp(prefix='jv_findings_')
    # the bundled example
    res = check_trace(exe, example, os.path.join(tmp, 'example'), 'example')
    if res:
        with open(os.path.join(tmp, 'example', 'category_data', 'convolution_tree_data.json'), encoding='utf-8') as f:
            tree = json.load(f)
        check(tree['ops'] and all(o['found'] and o['subtree_gpu_events'] >= 1 for o in tree['ops']),
              'example: every convolution example op has its kernels in its subtree')
    traces = os.path.join(shared, 'traces')
    if not os.path.isdir(traces):
        skip_part(f'fixtures: no {traces}')
        return finish()
    fx = lambda n: os.path.join(traces, n + '.json.gz')
    # MI300X ResNet-18 training: transposes, native bf16 batch norm, timeline first
    out = os.path.join(tmp, 'rn')
    res = check_trace(exe, fx('amd_mi300x_resnet18_train'), out, 'resnet18')
    if res:
        uni, metas, fair = res
        with open(os.path.join(out, 'category_findings', 'convolution_findings.md'), encoding='utf-8') as f:
            conv = f.read()
        m = re.search(r'Layout conversions: \*\*([\d.]+) µs\*\* = \*\*([\d.]+) %\*\* of convolution time', conv)
        ref = tracelens_transposes(os.path.join(traces, 'tracelens', 'amd_mi300x_resnet18_train', 'kernel_summary.csv'))
        check(m is not None and ref > 0 and close(float(m.group(1)), ref, 0.005),
              f'resnet18: transposes {m.group(1) if m else None} µs == TraceLens batched_transpose* under conv {ref:.1f}')
        if m:
            share = 100.0 * float(m.group(1)) / metas['convolution']['category_total_us']
            check(abs(float(m.group(2)) - share) <= 0.06, f'resnet18: transpose share {m.group(2)} % == {share:.2f} %')
            check(close(metas['convolution']['layout_conversion_us'], float(m.group(1)), 0, 0.06),
                  'resnet18: metadata layout_conversion_us == findings')
        check('channels_last' in conv and 'memory_format=torch.channels_last' in conv, 'resnet18: channels_last advice')
        check(re.search(r'\| Large \(>= 5x5\) \| 2 \|', conv) is not None, 'resnet18: two 7x7 convolution rows')
        with open(os.path.join(out, 'category_findings', 'batchnorm_findings.md'), encoding='utf-8') as f:
            bn = f.read()
        check('native (PyTorch)' in bn and '| bf16 |' in bn and 'bf16 runs the native kernels' in bn,
              'resnet18: BN findings name the native implementation and bf16')
        check('cuDNN' not in bn.split('## Implementation')[1].split('Why:')[0] and
              'MIOpen |' not in bn, 'resnet18: no BN row claims a vendor library')
        rank = fair.split('Bottleneck ranking')[1]
        check(re.search(r'^1\. GPU idle', rank, re.M) is not None, 'resnet18: idle ranks first (computation < 95 %)')
        check('category_findings/convolution_findings.md#layout' in fair, 'resnet18: recommendation links the layout finding')
    # H100 Qwen inference: the RMSNorm fusion candidate
    out = os.path.join(tmp, 'qwen')
    res = check_trace(exe, fx('nv_h100_qwen15_05b_infer'), out, 'qwen')
    if res:
        with open(os.path.join(out, 'category_findings', 'elementwise_findings.md'), encoding='utf-8') as f:
            ew = f.read()
        m = re.search(r'^\| \d+ \| `Qwen2RMSNorm` \| (\d+) \| (\d+) \| [\d.]+ \| ([\d.]+) ms \| [\d.]+ µs \| ([\d.]+) µs \|',
                      ew, re.M)
        check(m is not None and m.group(1) == '49', f'qwen: Qwen2RMSNorm with 49 instances ({m.groups() if m else None})')
        if m:
            fused = 49 * float(m.group(3)) * 1e3 / int(m.group(2))
            check(abs(float(m.group(4)) - fused) <= 0.05 * 49 + 0.1, f'qwen: fused time {m.group(4)} == {fused:.1f} µs')
    # MI300X normalization layers: MIOpen and native batch norm side by side
    out = os.path.join(tmp, 'norm')
    res = check_trace(exe, fx('amd_mi300x_normalization_layers'), out, 'norm')
    if res:
        with open(os.path.join(out, 'category_findings', 'batchnorm_findings.md'), encoding='utf-8') as f:
            bn = f.read()
        check('| MIOpen |' in bn and 'native (PyTorch)' in bn, 'norm: MIOpen and native batch norm rows')
    # no kernels; no CPU ops
    for name in ('nv_a100_cupti_profiler_nokernels', 'amd_mi210_gpu_only'):
        out = os.path.join(tmp, name)
        res = check_trace(exe, fx(name), out, name)
        if res and name.endswith('nokernels'):
            check(all(m['rows'] == 0 for m in res[1].values()), f'{name}: no rows in any category')
    return finish()


if __name__ == '__main__':
    sys.exit(main(sys.argv))
