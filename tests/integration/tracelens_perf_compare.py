#!/usr/bin/env python3
"""Perf-model sheets against TraceLens' reference CSVs (../shared/traces/tracelens).

For every fixture trace with TraceLens perf sheets:
- GEMM, CONV_fwd, CONV_bwd and SDPA_fwd rows: GFLOPS and Data Moved (MB) equal TraceLens' to 1e-6 relative
  where TraceLens' model is right; where it is not (documented defects), equal to the value computed here
  from REFERENCE.md's formulas: a convolution bias (TraceLens never counts it), convolution_backward's
  output_mask (ignored by TraceLens), SDPA with 4-byte elements (TraceLens assumes 2 bytes).
- the same rows: operation count and kernel time sum (0.5 % or 1 us: TraceLens sums doubles of absolute
  timestamps).
- unified_perf_summary: every kernel is counted once in both, so the total kernel time agrees (0.1 %), after
  adding the AMD memsets TraceLens drops (tracelens_compare.py, deliberate difference 1).
- Deliberate: a modelled op nested in another modelled op (aten::mm inside vllm::rocm_unquantized_gemm,
  aten::native_batch_norm inside aten::batch_norm) is one row, the outer op's: each kernel counted once.
  TraceLens lists both; a reference row is allowed to be missing here when another reference row of the
  family sheets has the same count and kernel time and is present in ours.
- the roofline columns of MI300X traces (Roofline Time, Roofline Bound) equal TraceLens' for the rows above.
Exit 77 when the reference directory is absent.
"""
import ast, functools, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck, md_check
import jvcheck  # noqa: E402
from jvcheck import Tally, closeness, num  # noqa: E402
from tracelens_compare import flowless_extras, load_events  # noqa: E402

rows = functools.partial(jvcheck.read_csv, optional=True)  # a sheet not written: no rows
close = closeness(rel=1e-6, nan_equal=True)  # both absent (NaN) counts as equal


def prod(s):
    p = 1
    for v in s:
        p *= v
    return p


BPE = {'c10::BFloat16': 2, 'c10::Half': 2, 'float': 4, 'double': 8}


def conv_expected(name, dims, types, conc):
    """flops and bytes of a convolution row from REFERENCE.md section 2, None when TraceLens' is right"""
    def tup(s, nd, default):
        s = s.strip()
        if not s:
            return (default,) * nd
        v = tuple(int(x) for x in s.strip('[]()').split(',') if x.strip())
        return v * nd if len(v) == 1 else v

    if name == 'aten::convolution':
        x, w = dims[0], dims[1]
        bias = len(dims) > 2 and len(dims[2]) > 0
        if not bias:
            return None
        nd = len(x) - 2
        s, p, d = tup(conc[3], nd, 1), tup(conc[4], nd, 0), tup(conc[5], nd, 1)
        out = [x[0], w[0]] + [(x[2 + i] + 2 * p[i] - d[i] * (w[2 + i] - 1) - 1) // s[i] + 1 for i in range(nd)]
        bpe = BPE[types[0]]
        flops = 2 * prod(w[1:]) * prod(out) + prod(out)
        byts = (prod(x) + prod(w) + prod(out) + w[0]) * bpe
        return flops, byts
    if name == 'aten::convolution_backward':
        mask = [m.strip() == 'True' for m in conc[10].strip('[]').split(',')]
        if mask[:2] == [True, True] and not (len(mask) > 2 and mask[2]):
            return None
        g, x, w = dims[0], dims[1], dims[2]
        bpe = BPE[types[1]]
        f = 2 * prod(w[1:]) * prod(g)
        flops = f * (mask[0] + mask[1]) + (prod(g) if len(mask) > 2 and mask[2] else 0)
        byts = (prod(g) + prod(w) + prod(x)) * bpe * (mask[0] + mask[1])
        if len(mask) > 2 and mask[2]:
            byts += (prod(g) + g[1]) * bpe
        return flops, byts
    return None


def sdpa_expected(name, dims, types):
    bpe = BPE.get(types[0], 2)
    if bpe == 2:
        return None
    q, k, v = dims[0], dims[1], dims[2]
    return None if bpe == 2 else ('bytes', (prod(q) + prod(k) + prod(v) + prod(q[:-1]) * v[-1]) * bpe)


FAMILY_SHEETS = ('GEMM', 'CONV_fwd', 'CONV_bwd', 'SDPA_fwd', 'SDPA_bwd', 'Normalization', 'UnaryElementwise',
                 'BinaryElementwise', 'Reduce_fwd', 'Reduce_bwd')


def nested_duplicate(r, ref_dir, ours_dir):
    """r (a reference row) duplicates an outer modelled op's row that we do list"""
    ours_names = set()
    for sh in FAMILY_SHEETS:
        ours_names |= {x['name'] for x in rows(os.path.join(ours_dir, sh + '.csv'))}
    for sh in FAMILY_SHEETS:
        for x in rows(os.path.join(ref_dir, sh + '.csv')):
            if x['name'] != r['name'] and x['name'] in ours_names and x['name_count'] == r['name_count'] and \
                    close(num(x['Kernel Time (µs)_sum']), num(r['Kernel Time (µs)_sum']), 1e-9):
                return x['name']
    return None


def compare(name, ours_dir, ref_dir, c, trace_path):
    for sheet in ('GEMM', 'CONV_fwd', 'CONV_bwd', 'SDPA_fwd'):
        ref = rows(os.path.join(ref_dir, sheet + '.csv'))
        if not ref:
            continue
        ours = rows(os.path.join(ours_dir, sheet + '.csv'))
        index = {}
        for r in ours:
            index.setdefault((r['name'], r['Input Dims_first'], r['Input type_first'], r['Concrete Inputs_first']), []).append(r)
        for r in ref:
            key = (r['name'], r['Input Dims_first'], r['Input type_first'], r['Concrete Inputs_first'])
            got = index.get(key)
            if not got:
                outer = nested_duplicate(r, ref_dir, ours_dir)
                c.check(outer is not None, f'{name}/{sheet}: no row for {key[0]} {key[1]}')
                continue
            o = got[0]
            dims = ast.literal_eval(r['Input Dims_first']) if r['Input Dims_first'] else []
            types = ast.literal_eval(r['Input type_first']) if r['Input type_first'] else []
            conc = ast.literal_eval(r['Concrete Inputs_first']) if r['Concrete Inputs_first'] else []
            want_f, want_b = num(r['GFLOPS_first']) * 1e9, num(r['Data Moved (MB)_first']) * 1048576
            fix = conv_expected(r['name'], dims, types, conc) if sheet.startswith('CONV') else None
            if fix:
                want_f, want_b = fix
            if sheet == 'SDPA_fwd':
                sx = sdpa_expected(r['name'], dims, types)
                if sx:
                    want_b = sx[1]
            c.check(close(num(o['GFLOPS_first']) * 1e9, want_f), f'{name}/{sheet} {key[0]} {key[1]}: GFLOPS {o["GFLOPS_first"]} vs {want_f / 1e9}')
            c.check(close(num(o['Data Moved (MB)_first']) * 1048576, want_b),
                    f'{name}/{sheet} {key[0]} {key[1]}: Data Moved {o["Data Moved (MB)_first"]} vs {want_b / 1048576}')
            # counts and kernel time: TraceLens counts nested duplicates too, so sum our matching groups
            cnt = sum(int(x['name_count']) for x in got)
            ks = sum(num(x['Kernel Time (µs)_sum']) for x in got)
            c.check(cnt == int(r['name_count']), f'{name}/{sheet} {key[0]} {key[1]}: count {cnt} vs {r["name_count"]}')
            c.check(close(ks, num(r['Kernel Time (µs)_sum']), 5e-3, 1.0),
                    f'{name}/{sheet} {key[0]} {key[1]}: kernel time {ks} vs {r["Kernel Time (µs)_sum"]}')
            if 'Roofline Time (µs)_first' in r and r['Roofline Time (µs)_first'] and not fix:
                c.check('Roofline Time (µs)_first' in o and close(num(o['Roofline Time (µs)_first']), num(r['Roofline Time (µs)_first'])),
                        f'{name}/{sheet} {key[0]}: roofline time {o.get("Roofline Time (µs)_first")} vs {r["Roofline Time (µs)_first"]}')
                c.check(o.get('Roofline Bound_first') == r['Roofline Bound_first'], f'{name}/{sheet} {key[0]}: roofline bound')
    ref = rows(os.path.join(ref_dir, 'unified_perf_summary.csv'))
    if ref:
        ours = rows(os.path.join(ours_dir, 'unified_perf_summary.csv'))
        a = sum(num(x['Kernel Time (µs)_sum']) for x in ours)
        b = sum(num(x['Kernel Time (µs)_sum']) for x in ref)
        if name.startswith('amd_'):
            b += flowless_extras(load_events(trace_path))[2]
        c.check(close(a, b, 1e-3, 1.0), f'{name}/unified_perf_summary: total kernel time {a} vs {b}')
        c.check(abs(sum(num(x['Percentage (%)']) for x in ours) - 100) < 1e-6 if ours else True,
                f'{name}/unified_perf_summary: percentages sum to 100')


def main():
    exe, shared = sys.argv[1], sys.argv[2]
    traces = os.path.join(shared, 'traces')
    refroot = os.path.join(traces, 'tracelens')
    if not os.path.isdir(refroot):
        print('skipped: no reference CSVs at', refroot)
        return 77
    c = Tally()
    with tempfile.TemporaryDirectory() as tmp:
        for fn in sorted(os.listdir(traces)):
            if not fn.endswith(('.json', '.json.gz')):
                continue
            name = fn[:-len('.json.gz')] if fn.endswith('.gz') else fn[:-len('.json')]
            ref_dir = os.path.join(refroot, name)
            if not os.path.exists(os.path.join(ref_dir, 'unified_perf_summary.csv')):
                continue
            out = os.path.join(tmp, name)
            arch = ['--gpu-arch', 'MI300X'] if name.startswith('amd_mi300x') else ['--gpu-arch', 'none']
            p = subprocess.run([exe, '-q', os.path.join(traces, fn), '-o', out] + arch, capture_output=True, text=True)
            c.check(p.returncode == 0, f'{name}: exit {p.returncode}: {p.stderr[-500:]}')
            if p.returncode:
                continue
            compare(name, os.path.join(out, 'perf_report_csvs'), ref_dir, c, os.path.join(traces, fn))
    return c.finish()


if __name__ == '__main__':
    sys.exit(main())
