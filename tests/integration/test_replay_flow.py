#!/usr/bin/env python3
"""The replay path end to end on the CPU backend: trace -> jarvis-analyze -> replay_package.zip ->
jarvis-replay -> console table, Google Benchmark JSON and CSV, markdown report.

- The bundled example's package: zip members, IR entries in TraceLens' form with our "jarvis" keys,
  the manifest's SHA-256 equal to the trace file's, ops ordered by traced time, not-replayed ops with reasons.
- jarvis-replay on it (size cap for speed): exit 0, every op that ran verified, JSON parses, Debian's
  compare.py accepts two result files (without compare.py or scipy that check is skipped: exit 77 unless
  another fails), CSV parses, the report names every verdict; --list, --op/--iterations, --peak, a bare
  replay_ir.json, a TraceLens-form file without our keys, --backend cuda without a GPU build.
- Fixture traces (skipped without ../shared/traces): MI300X normalization layers, MI300X ResNet-18 training,
  an H100 inference trace, analysed and replayed with a cap: exit 0, all ran ops verified (the normalization
  trace's aten::rms_norm on the norm family's RMS kernel among them), at least one op per
  replayed family.
Usage: test_replay_flow.py JARVIS_ANALYZE JARVIS_REPLAY EXAMPLE_TRACE SHARED_DIR [CAP (default 25M)]
"""
import hashlib, json, os, sys, tempfile, zipfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck, md_check
from jvcheck import check, finish, optional_module, optional_tool, read_csv, run  # noqa: E402

FAST = ['--backend', 'cpu', '--time-limit', '0.01', '--baseline-bytes', '4M', '--peak-gemm', '48']


def analyze(exe, trace, out, *extra):
    p = run(exe, trace, '-o', out, '-q', *extra)
    check(p.returncode == 0, f'analyze {trace}: exit {p.returncode}: {p.stderr[-500:]}')
    return os.path.join(out, 'replay_package.zip')


def check_package(pkg, trace):
    check(os.path.exists(pkg), f'{pkg} exists')
    z = zipfile.ZipFile(pkg)
    names = sorted(z.namelist())
    check(names == ['README.md', 'manifest.json', 'replay_ir.json', 'reproduce.md'], f'members {names}')
    ir = json.loads(z.read('replay_ir.json'))
    man = json.loads(z.read('manifest.json'))
    check(isinstance(ir, list) and len(ir) > 0, 'IR is a non-empty list')
    sha = hashlib.sha256(open(trace, 'rb').read()).hexdigest()
    check(man['trace']['sha256'] == sha, 'manifest sha256 equals the trace file hash')
    check(man['trace']['file'] == os.path.basename(trace), 'manifest names the trace file')
    check(man['trace']['bytes'] == os.path.getsize(trace), 'manifest trace size')
    check(man['selection']['ops'] == len(ir), 'manifest counts the entries')
    times = []
    for e in ir:
        check(set(e) >= {'op_name', 'replay_ir', 'jarvis'}, f'entry keys {sorted(e)}')
        ri = e['replay_ir']
        check(isinstance(ri['list_pos_args'], list) and isinstance(ri['list_kwargs'], list), 'arg lists')
        for a in ri['list_pos_args'] + ri['list_kwargs']:
            check(set(a) == {'arg_name', 'arg_type', 'value'}, f'arg keys {sorted(a)}')
            if a['arg_type'].startswith('Tensor') and a['value'] is not None and 'shape' in a['value']:
                v = a['value']
                check(len(v['shape']) == len(v['strides']) and isinstance(v['dtype'], str), f'tensor {v}')
        j = e['jarvis']
        check(j['family'] in ('gemm', 'conv', 'batchnorm', 'unary', 'binary', 'norm', 'actmul', 'rope'),
              f"family {j['family']}")
        check(j['count'] >= 1 and j['kernel_time_total_us'] > 0 and j['kernel_time_median_us'] > 0, 'traced times')
        check(len(j['kernels']) >= 1 and j['flops'] >= 0 and 'ex_uid' in j, 'kernels, flops, ex_uid')
        times.append(j['kernel_time_total_us'])
    check(times == sorted(times, reverse=True), 'entries ordered by traced time')
    for s in man['not_replayed']:
        check(s['reason'] != '', f"reason for {s['op']}")
    return ir, man


def replay_json(exe, pkg, tmp, tag, *extra):
    out = os.path.join(tmp, tag + '.json')
    p = run(exe, pkg, *FAST, '--benchmark_out', out, *extra)
    return p, out


def check_results(p, out, tag, min_ops=1):
    check(p.returncode == 0, f'{tag}: exit {p.returncode}: {p.stderr[-800:]}')
    if not os.path.exists(out):
        check(False, f'{tag}: {out} written')
        return None
    doc = json.load(open(out))
    check(doc['context']['backend'] == 'cpu' and doc['context']['device_name'].startswith('CPU'), 'context')
    ops = [b for b in doc['benchmarks'] if b['name'].startswith('op')]
    ran = [b for b in ops if b.get("iterations", 0) > 0]
    check(len(ran) >= min_ops, f'{tag}: {len(ran)} op timings')
    for b in ran:
        check(b['verified'] == 1 and not b.get('error_occurred'), f"{tag}: {b['name']} verified")
        check(b['real_time'] > 0 and b['time_unit'] == 'us' and b['iterations'] >= 1, f"{tag}: {b['name']} timed")
    base = [b for b in doc['benchmarks'] if b['name'].startswith('baseline/')]
    # copy, scale, add, triad, dot and the fp32 GEMM; on the CPU with oneDNN also the measured bf16 GEMM ceiling
    gemms = [b for b in base if b['name'].startswith('baseline/gemm/')]
    check(len(base) - len(gemms) == 5 and 1 <= len(gemms) <= 2 and gemms[0]['name'].startswith('baseline/gemm/fp32/') and all(b['verified'] == 1 and b['bytes_per_second'] > 0 for b in base), f'baseline: {[b["name"] for b in base]}')
    return doc


def main():
    ana, rep, example, shared = sys.argv[1:5]
    cap = sys.argv[5] if len(sys.argv) > 5 else '25M'
    tmp = tempfile.mkdtemp(prefix='jv_replay_flow_')
    pkg = analyze(ana, example, os.path.join(tmp, 'ex'))
    ir, man = check_package(pkg, example)

    # the whole package, capped for speed
    p, out = replay_json(rep, pkg, tmp, 'a', '--max-bytes', cap, '--report', os.path.join(tmp, 'r.md'))
    doc = check_results(p, out, 'example', min_ops=3)
    check('# jarvis-replay' in p.stdout and 'verified' in p.stdout, 'console table header/footer')
    check(all(l.startswith('#') or l.startswith('  ') for l in p.stdout.splitlines()), 'console lines')
    md = open(os.path.join(tmp, 'r.md')).read()
    check(md.startswith('# Replay report') and '## Verdicts' in md and '## Measured ceilings' in md, 'report')
    # a second run with another seed: compare.py reads both
    p2, out2 = replay_json(rep, pkg, tmp, 'b', '--max-bytes', cap, '--cache', 'hot', '--seed', '7')
    check_results(p2, out2, 'example seed 7', min_ops=2)
    # compare.py runs under this interpreter (ctest: Debian's python3), which must have its scipy and numpy
    why = "Google Benchmark's compare.py on two result files (Debian: libbenchmark-tools, python3-scipy)"
    cmp_py = optional_tool('/usr/share/benchmark/compare.py', why)
    if cmp_py and optional_module('scipy.stats', why) and optional_module('numpy', why):
        c = run(sys.executable, cmp_py, 'benchmarks', out, out2)
        check(c.returncode == 0 and 'baseline/copy' in c.stdout, f'compare.py: {c.returncode} {c.stderr[-400:]}')
    # CSV form
    p3 = run(rep, pkg, *FAST, '--max-bytes', '1M', '--cache', 'hot', '--benchmark_out', os.path.join(tmp, 'c.csv'),
             '--benchmark_out_format', 'csv', '-q')
    check(p3.returncode == 0, f'csv run: {p3.stderr[-300:]}')
    rows = read_csv(os.path.join(tmp, 'c.csv'))
    check(len(rows) >= 6 and all(r['name'] for r in rows), 'csv rows')
    check(all(r['verified'] == '' or float(r['verified']) == 1 for r in rows), 'csv verified column')
    # --list, --op/--iterations
    l = run(rep, pkg, '--list')
    check(l.returncode == 0 and len([x for x in l.stdout.splitlines() if not x.startswith('#')]) == len(ir), '--list')
    small = next((b for b in doc['benchmarks'] if b['name'].startswith('op') and b.get('iterations', 0) > 0), None) if doc else None
    if small:
        k = small['name'].split('/')[0][2:]
        one = os.path.join(tmp, 'one.json')
        p4 = run(rep, pkg, '--backend', 'cpu', '--op', k, '--iterations', '1', '--benchmark_out', one, '-q')
        check(p4.returncode == 0, f'--op {k} --iterations 1: {p4.stderr[-300:]}')
        d4 = json.load(open(one))
        ops4 = [b for b in d4['benchmarks'] if b['name'].startswith('op')]
        check(len(ops4) == 1 and ops4[0]['iterations'] == 1, '--iterations 1: one launch of one op')
        check(not [b for b in d4['benchmarks'] if b['name'].startswith('baseline')], 'no baseline with --iterations')
    # --op LIST: exactly the ops named (a list, a range, repeated), bad lists exit 2 naming the part, an op past
    # the package's end exits 2 naming it
    if len(ir) >= 3:
        for args, want in ((['--op', '0,2'], {0, 2}), (['--op', '0', '--op', '1-2'], {0, 1, 2}), (['--op', '2-2'], {2})):
            sel = os.path.join(tmp, 'sel.json')
            ps = run(rep, pkg, '--backend', 'cpu', *args, '--iterations', '1', '--benchmark_out', sel, '-q')
            got = {int(b['name'].split('/')[0][2:]) for b in json.load(open(sel))['benchmarks']
                   if b['name'].startswith('op')} if ps.returncode == 0 else None
            check(got == want, f'{" ".join(args)}: ops {got}, want {want}: {ps.stderr[-300:]}')
    for bad in ('3-1', 'x', '1,,2', '-1'):
        pb = run(rep, pkg, '--op', bad, '--iterations', '1')
        check(pb.returncode == 2 and '--op' in pb.stderr and bad in pb.stderr, f'--op {bad}: {pb.returncode} {pb.stderr}')
    po = run(rep, pkg, '--op', f'0,{len(ir)}', '--iterations', '1')
    check(po.returncode == 2 and f'no op {len(ir)}' in po.stderr, f'--op past the end: {po.returncode} {po.stderr}')
    # --peak
    pk = run(rep, '--peak', *FAST)
    check(pk.returncode == 0 and 'measured bandwidth ceiling' in pk.stdout and 'compute ceiling' in pk.stdout,
          f'--peak: {pk.stdout[-300:]} {pk.stderr[-300:]}')
    # a bare replay_ir.json, and a TraceLens-form file (no jarvis keys)
    bare = os.path.join(tmp, 'replay_ir.json')
    open(bare, 'wb').write(zipfile.ZipFile(pkg).read('replay_ir.json'))
    p5 = run(rep, bare, *FAST, '--max-bytes', '1M', '--no-baseline', '--cache', 'hot', '-q')
    check(p5.returncode == 0, f'bare replay_ir.json: {p5.stderr[-300:]}')
    tl = [{k: v for k, v in e.items() if k != 'jarvis'} for e in ir]
    tlp = os.path.join(tmp, 'tracelens_ir.json')
    json.dump(tl, open(tlp, 'w'))
    p6 = run(rep, tlp, *FAST, '--max-bytes', '1M', '--no-baseline', '--cache', 'hot', '-q')
    check(p6.returncode == 0, f'TraceLens-form IR: {p6.stderr[-300:]}')
    # backends not built in
    p7 = run(rep, pkg, '--backend', 'cuda')
    check(p7.returncode == 1 and 'cuda' in p7.stderr, f'--backend cuda: {p7.returncode} {p7.stderr}')
    p8 = run(rep, pkg, '--backend', 'cpu', '--device', '3')
    check(p8.returncode == 1 and 'device 3' in p8.stderr, f'missing device: {p8.stderr}')
    p9 = run(rep, pkg, '--cache', 'lukewarm')
    check(p9.returncode == 2, 'bad usage exits 2')

    # fixture traces
    traces = os.path.join(shared, 'traces')
    fixtures = ['amd_mi300x_normalization_layers.json.gz', 'amd_mi300x_resnet18_train.json.gz',
                'nv_h100_bert_small_infer.json.gz']
    if os.path.isdir(traces):
        for name in fixtures:
            t = os.path.join(traces, name)
            fpkg = analyze(ana, t, os.path.join(tmp, name))
            fir, fman = check_package(fpkg, t)
            fams = {e['jarvis']['family'] for e in fir}
            pf, fout = replay_json(rep, fpkg, tmp, name, '--max-bytes', cap, '--cache', 'hot', '--no-baseline')
            fdoc = check_results_nobase(pf, fout, name)
            if fdoc:
                ran = {b['name'].split('/')[0] for b in fdoc['benchmarks'] if b.get('iterations', 0) > 0}
                ranfam = {fir[int(n[2:])]['jarvis']['family'] for n in ran}
                print(f'{name}: {len(fir)} ops in the package ({sorted(fams)}), {len(ran)} ran ({sorted(ranfam)})')
                check(len(ran) >= 2, f'{name}: ops ran')
        for fam_need, name in (('batchnorm', fixtures[0]), ('conv', fixtures[1])):
            ir2 = json.loads(zipfile.ZipFile(os.path.join(tmp, name, 'replay_package.zip')).read('replay_ir.json'))
            check(any(e['jarvis']['family'] == fam_need for e in ir2), f'{name}: has {fam_need} ops')
    else:
        print('note: no ../shared/traces: fixture traces not replayed')
    return finish()


def check_results_nobase(p, out, tag):
    check(p.returncode == 0, f'{tag}: exit {p.returncode}: {p.stderr[-800:]}')
    if not os.path.exists(out):
        return None
    doc = json.load(open(out))
    for b in doc['benchmarks']:
        if b.get('iterations', 0) > 0:
            check(b['verified'] == 1 and not b.get('error_occurred'), f"{tag}: {b['name']} verified")
    return doc


if __name__ == '__main__':
    sys.exit(main())
