#!/usr/bin/env python3
"""The "Trace quality" section (issue 18, item 3) of standalone_analysis_{fair,rough}.md and report.html.

usage: test_trace_quality.py JARVIS_ANALYZE            a generated trace with one of each defect, and a clean one
       test_trace_quality.py JARVIS_ANALYZE SHARED_DIR the TensorBoard-plugin era fixture (exit 77 without it)

Generated: an aten::mm with Input Dims but an empty Input type (not modelled: no dtypes), an aten::mm without
Input Dims (not modelled: no shapes), a modelled aten::add, a kernel whose launch is not in the trace, a
cudaGraphLaunch that owns no kernel, one that owns a kernel (a synthetic row, not modelled because a graph
replayed it), a kernel that starts before its launch call, a kernel launched outside any op, aten::index's own
kernel as a synthetic row, a flex-attention template (not modelled: generated code) beside a template GEMM
(modelled, attributed to the Torch-Compiled Region around it in the Triton sheet), no deviceProperties: each
count in the table, the rough report's rows with their reasons, the HTML line; a clean trace: "No issue found".
Fixture: every row counted as modelled has GFLOPS in unified_perf_summary and every row without GFLOPS is listed
as not modelled with a reason; the rows whose tensors have dims but no dtype match the "no dtypes" line.
"""
import ast, os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/: jvcheck
sys.path.insert(0, HERE)  # hostile_gen
from jvcheck import check, finish, read_csv, skip  # noqa: E402
import hostile_gen as g  # noqa: E402


def analyse(exe, trace, out):
    p = subprocess.run([exe, '-q', trace, '-o', out], capture_output=True, text=True)
    check(p.returncode == 0, f'{trace}: exit {p.returncode}', p.stderr[-2000:])
    return p


def section(md):
    """the Trace quality section: (modelled, rows, {what: (count, of, us)}, rough rows [(name, why)], text)"""
    m = re.search(r'## Trace quality\n(.*?)(?=\n<a id=)', md, re.S)
    if not m:
        return None
    text = m.group(1)
    mm = re.search(r'Modelled rows \(FLOPs or bytes known\): (\d+) of (\d+)', text)
    lines, rows = {}, []
    for ln in text.splitlines():
        c = re.match(r'\| ([^|`]+?) \| (\d+)(?: of (\d+))? \| ([-0-9.–]+) \| (.+) \|$', ln)
        if c:
            lines[c.group(1)] = (int(c.group(2)), int(c.group(3) or 0), c.group(4))
            continue
        r = re.match(r'\| `(.+)` \| (\d+) \| ([0-9.]+) \| (.+) \|$', ln)
        if r:
            rows.append((r.group(1), r.group(4)))
    return (int(mm.group(1)), int(mm.group(2))) if mm else None, lines, rows, text


def sections(out):
    """the Trace quality sections (section()) of the fair and the rough report in out"""
    got = []
    for name in ('standalone_analysis_fair.md', 'standalone_analysis_rough.md'):
        with open(os.path.join(out, name), encoding='utf-8') as f:
            got.append(section(f.read()))
    return got


def generated(exe, tmp):
    ev = [
        # modelled: aten::add with dims and dtypes
        g.op('aten::add', 100, 50, dims=[[1024, 1024], [1024, 1024]]),
        g.launch(101, 1), g.kernel('k_add', 105, 10, 1),
        # no dtypes: Input Dims recorded, Input type empty
        dict(g.op('aten::mm', 200, 50, dims=[[64, 64], [64, 64]]),
             args={'Input Dims': [[64, 64], [64, 64]], 'Input type': ['', '']}),
        g.launch(201, 2), g.kernel('k_mm_a', 205, 20, 2),
        # no shapes: no Input Dims at all
        g.op('aten::mm', 300, 50), g.launch(301, 3), g.kernel('k_mm_b', 305, 30, 3),
        # a kernel whose launch is not in the trace
        g.kernel('k_orphan', 400, 40, 999),
        # a graph launch whose kernels were not recorded
        {'ph': 'X', 'cat': 'cuda_runtime', 'name': 'cudaGraphLaunch', 'pid': 100, 'tid': 100, 'ts': 500,
         'dur': 5, 'args': {'correlation': 50}},
        # a kernel that starts before its launch call
        g.op('aten::add', 600, 50, dims=[[1024, 1024], [1024, 1024]]),
        g.launch(620, 4), g.kernel('k_early', 610, 5, 4),
        # a graph launch that owns its (replayed) kernel
        {'ph': 'X', 'cat': 'cuda_runtime', 'name': 'cudaGraphLaunch', 'pid': 100, 'tid': 100, 'ts': 700,
         'dur': 5, 'args': {'correlation': 60}},
        g.kernel('k_graph', 710, 60, 60),
        # an op whose output size the trace cannot tell (aten::index: the index tensors' shapes are not recorded)
        dict(g.op('aten::index', 800, 50), args={'Input Dims': [[64, 512], []], 'Input type': ['float', '']}),
        g.launch(801, 7), g.kernel('k_index', 805, 70, 7),
        # serving attention over a paged KV cache: its work is set by sequence lengths no trace records
        dict(g.op('vllm::unified_attention_with_output', 900, 50),
             args={'Input Dims': [[16, 32, 128], [16, 8, 128], [16, 8, 128], [16, 32, 128], []],
                   'Input type': ['c10::BFloat16'] * 4 + ['']}),
        g.launch(901, 8), g.kernel('k_attn', 905, 80, 8),
        # a kernel a runtime call launched outside any op: no call recorded
        g.launch(1000, 9), g.kernel('k_noop', 1005, 90, 9),
        # aten::index's own kernel beside a child op's: a synthetic row that keeps the op's reason
        dict(g.op('aten::index', 1100, 50), args={'Input Dims': [[64, 512], []], 'Input type': ['float', '']}),
        g.launch(1101, 10), g.kernel('k_gather', 1105, 11, 10),
        g.op('aten::add', 1110, 20, dims=[[1024, 1024], [1024, 1024]]),
        g.launch(1111, 11), g.kernel('k_add2', 1115, 1, 11),
        # torch.compile templates inside a compiled region: flex attention (generated code sets its work: not
        # modelled) and a GEMM (modelled, attributed to the region)
        g.op('Torch-Compiled Region: 0/0', 1190, 200),
        g.op('triton_tem_fused_flex_attention_0', 1200, 50, dims=[[1, 8, 128, 64]] * 4),
        g.launch(1201, 12), g.kernel('triton_tem_fused_flex_attention_0', 1205, 12, 12),
        g.op('triton_tem_fused_mm_1', 1300, 50, dims=[[64, 256], [256, 512], [64, 512]]),
        g.launch(1301, 13), g.kernel('triton_tem_fused_mm_1', 1305, 13, 13),
    ]
    bad = os.path.join(tmp, 'quality.json')
    g.write(bad, {'traceEvents': ev})
    out = os.path.join(tmp, 'out')
    analyse(exe, bad, out)
    fair, rough = sections(out)
    check(fair is not None and rough is not None, 'both reports have a Trace quality section')
    if fair is None or rough is None:
        return
    head, lines, _, text = fair
    uni = read_csv(os.path.join(out, 'perf_report_csvs', 'unified_perf_summary.csv'))
    with_gflops = sum(1 for r in uni if r['GFLOPS'] != '')
    check(head == (with_gflops, len(uni)), 'modelled rows = rows with GFLOPS', head, with_gflops, len(uni))
    want = {
        'Op rows without input shapes': (1, len(uni), '30.0'),
        'Op rows with shapes but no dtypes': (1, len(uni), '20.0'),
        'Rows not modelled: no input shapes recorded': (1, len(uni), '30.0'),
        'Rows not modelled: no input dtypes recorded': (1, len(uni), '20.0'),
        'Rows not modelled: kernels a graph replayed': (1, len(uni), '60.0'),
        'Rows not modelled: output size set by data': (2, len(uni), '81.0'),
        'Rows not modelled: attention sized by sequence lengths': (1, len(uni), '80.0'),
        'Rows not modelled: kernels launched outside any op': (1, len(uni), '90.0'),
        'Rows not modelled: compiled templates': (1, len(uni), '12.0'),
        'GPU events with no launcher': (1, 13, '40.0'),
        'Graph launches whose kernels were not recorded': (1, 2, '–'),
        'GPU events that start before their launch call': (1, 13, '5.0'),
        'No device properties': (1, 0, '–'),
    }
    for k, v in want.items():
        check(lines.get(k) == v, f'fair: line {k!r}', lines.get(k), v)
    extra = set(lines) - set(want)
    check(not extra, 'fair: no other line', extra)
    check('No issue found' not in text, 'fair: issues, not "No issue found"')
    reasons = dict(rough[2])
    check(reasons.get('aten::mm') in ('no input shapes recorded', 'no input dtypes recorded'),
          'rough: the aten::mm rows are listed with their reason', rough[2])
    check(sorted(w for n, w in rough[2] if n == 'aten::mm') == ['no input dtypes recorded',
                                                                 'no input shapes recorded'],
          'rough: one aten::mm row per reason', rough[2])
    check([w for n, w in rough[2] if 'k_graph' in n] == ['replayed by a graph: no call recorded'],
          'rough: the graph-replayed kernel row with its reason', rough[2])
    check(reasons.get('aten::index') == 'output size set by data the trace does not record',
          'rough: the aten::index row with its reason', rough[2])
    check(reasons.get('vllm::unified_attention_with_output') ==
          'attention sized by sequence lengths the trace does not record',
          'rough: the serving attention row with its reason', rough[2])
    check([w for n, w in rough[2] if 'k_noop' in n] == ['launched outside any recorded op: no call recorded'],
          'rough: the kernel launched outside any op with its reason', rough[2])
    check([w for n, w in rough[2] if 'k_gather' in n] == ['output size set by data the trace does not record'],
          "rough: aten::index's own kernel (a synthetic row) keeps the op's reason", rough[2])
    check(reasons.get('triton_tem_fused_flex_attention_0') ==
          'a compiled template whose generated code sets its work',
          'rough: the flex-attention template with its reason', rough[2])
    check('triton_tem_fused_mm_1' not in reasons, 'rough: the template GEMM is modelled', rough[2])
    tri = read_csv(os.path.join(out, 'perf_report_csvs', 'Triton.csv'))
    check([(r['name'], r['param: kernel_kind'], r['compiled_region_first']) for r in tri] ==
          [('triton_tem_fused_mm_1', 'template GEMM', 'Torch-Compiled Region: 0/0')],
          'Triton sheet: the template GEMM, attributed to the compiled region that launched it', tri)
    check(rough[1] == lines, 'rough: the same table as fair')
    # unified_perf_summary's "No Model Reason": empty exactly on the modelled rows, else the rough report's reason
    check(all((r['No Model Reason'] == '') == (r['GFLOPS'] != '') for r in uni),
          'csv: a reason exactly on the rows without GFLOPS', [(r['name'], r['No Model Reason']) for r in uni])
    check(sorted((r['name'], r['No Model Reason']) for r in uni if r['No Model Reason']) == sorted(rough[2]),
          'csv: the reasons of the rough report, row by row',
          [(r['name'], r['No Model Reason']) for r in uni if r['No Model Reason']], rough[2])
    with open(os.path.join(out, 'report.html'), encoding='utf-8') as f:
        html = f.read()
    m = re.search(r'<dl class="facts" id="trace-quality">(.*?)</dl>', html, re.S)
    check(m is not None, 'html: the trace-quality line')
    if m:
        check(f'{head[0]} of {head[1]} rows modelled' in m.group(1), 'html: the modelled share', m.group(1)[:200])
        check('GPU events with no launcher' in m.group(1) and 'No device properties' in m.group(1),
              'html: the issues named', m.group(1)[:400])

    # a clean trace: nothing to report
    clean = os.path.join(tmp, 'clean.json')
    g.write(clean, g.doc([g.op('aten::add', 100, 50, dims=[[1024, 1024], [1024, 1024]]), g.launch(101, 1),
                          g.kernel('k_add', 105, 10, 1)]))
    out2 = os.path.join(tmp, 'out2')
    analyse(exe, clean, out2)
    with open(os.path.join(out2, 'standalone_analysis_fair.md'), encoding='utf-8') as f:
        s = section(f.read())
    check(s is not None and 'No issue found.' in s[3] and not s[1], 'clean trace: "No issue found."',
          s[3] if s else None)


def fixture(exe, shared, tmp):
    trace = os.path.join(shared, 'traces', 'nv_v100_resnet50_tbplugin_2021.json.gz')
    if not os.path.exists(trace):
        skip(f'{trace} not found')
    out = os.path.join(tmp, 'tb')
    analyse(exe, trace, out)
    uni = read_csv(os.path.join(out, 'perf_report_csvs', 'unified_perf_summary.csv'))
    fair, rough = sections(out)
    check(fair is not None and rough is not None, 'tbplugin: both reports have a Trace quality section')
    if fair is None or rough is None:
        return
    head, lines = fair[0], fair[1]
    no_gflops = [r for r in uni if r['GFLOPS'] == '']
    check(head == (len(uni) - len(no_gflops), len(uni)), 'tbplugin: modelled rows = rows with GFLOPS', head,
          len(uni) - len(no_gflops), len(uni))
    unmodelled = sum(v[0] for k, v in lines.items() if k.startswith('Rows not modelled'))
    check(unmodelled == len(no_gflops), 'tbplugin: every row without GFLOPS is counted as not modelled',
          unmodelled, len(no_gflops))
    # rows whose calls recorded dims but not one argument type (an empty Input type)
    typeless = 0
    for r in uni:
        if not r['Input Dims'] or ' (Synthetic Op)' in r['name']:
            continue
        types = ast.literal_eval(r['Input type'] or '()')
        typeless += not any(types)
    got = lines.get('Op rows with shapes but no dtypes', (0, 0, ''))[0]
    check(got == typeless, 'tbplugin: the no-dtypes line counts the rows without any argument type', got, typeless)
    big = sorted(no_gflops, key=lambda r: -float(r['Kernel Time (µs)_sum']))[:10]
    check(len(rough[2]) == len(big) and all(w for _, w in rough[2]),
          'tbplugin: the largest rows not modelled are listed, each with a reason', rough[2][:3])


def main():
    exe = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix='jv_quality_') as tmp:
        if len(sys.argv) > 2:
            fixture(exe, sys.argv[2], tmp)
        else:
            generated(exe, tmp)
    return finish()


if __name__ == '__main__':
    sys.exit(main())
