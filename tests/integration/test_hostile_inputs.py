#!/usr/bin/env python3
"""test_hostile_inputs: jarvis-analyze on generated hostile traces (issue 17): a correct result or a clear
error naming the file and the limit, never a silent wrong one, in bounded time and memory.

usage: test_hostile_inputs.py PATH/TO/jarvis-analyze [--sanitized]

The traces come from hostile_gen.py, generated at test time into a temporary folder. --sanitized (an ASan
build) skips the time and memory bounds, which ASan's overhead makes meaningless.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck, md_check
from jvcheck import check, finish, skip_part  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile_gen as gen  # noqa: E402

BIN = os.path.abspath(sys.argv[1])
SANITIZED = '--sanitized' in sys.argv[2:]
T = tempfile.mkdtemp(prefix='jv_hostile_in.')

# runs a command in a child python that reports the command's peak RSS (KiB): ru_maxrss of its own children
RSS_WRAPPER = ('import resource, subprocess, sys\n'
               'p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)\n'
               'sys.stdout.buffer.write(p.stderr)\n'
               'sys.stdout.write("\\nRC=%d RSS=%d\\n" % (p.returncode, '
               'resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n')


def run(name, trace, extra=()):
    """runs jarvis-analyze TRACE -o OUT -q; returns (rc, stderr, out, seconds, rss_mib)"""
    out = os.path.join(T, 'out_' + name)
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, '-c', RSS_WRAPPER, BIN, trace, '-o', out, '-q', *extra],
                       stdout=subprocess.PIPE, timeout=600)
    secs = time.monotonic() - t0
    text = p.stdout.decode('utf-8', 'replace')
    tail = text.rsplit('\nRC=', 1)
    rc, rss = (int(x.split('=')[-1]) for x in ('RC=' + tail[1]).split())
    check(not any(w in tail[0] for w in ('AddressSanitizer', 'LeakSanitizer', 'runtime error:')),
          f'{name}: no sanitizer report', tail[0][-600:])
    return rc, tail[0], out, secs, rss / 1024


def path(name):
    return os.path.join(T, name)


def expect_error(name, trace, pattern, max_s=None, max_mib=None):
    """exit 1, an error line naming the trace and matching pattern (a substring), no sheet written"""
    rc, err, out, secs, rss = run(name, trace)
    check(rc == 1, f'{name}: exit status 1', rc, err[-400:])
    check('jarvis-analyze: error: ' in err and trace in err, f'{name}: the error names the file', err[-400:])
    check(pattern in err, f'{name}: the error says {pattern!r}', err[-400:])
    check(not glob.glob(os.path.join(out, '**', '*.csv'), recursive=True), f'{name}: no sheet written')
    bounds(name, secs, rss, max_s, max_mib)
    return err


def bounds(name, secs, rss, max_s, max_mib):
    if SANITIZED:
        return
    if max_s is not None:
        check(secs < max_s, f'{name}: under {max_s} s', round(secs, 2))
    if max_mib is not None:
        check(rss < max_mib, f'{name}: peak RSS under {max_mib} MiB', round(rss, 1))


def sheet(out, name):
    with open(os.path.join(out, 'perf_report_csvs', name + '.csv'), encoding='utf-8', errors='replace') as f:
        return [line.rstrip('\n').split(',') for line in f]


# ---------- numbers: timestamps near the int64 range ----------
gen.gen_huge_ts(path('huge_ts.json'))  # ts 9.2e15 us = 9.2e18 ns: ts + dur overflows int64
expect_error('huge_ts', path('huge_ts.json'), 'time out of range')
gen.gen_huge_ts(path('big_ts.json'), 4.5e15)  # just inside the limit (2^62 ns = 4.61e15 us): read exactly
rc, err, out, _, _ = run('big_ts', path('big_ts.json'))
if check(rc == 0, 'big_ts: exit 0', rc, err[-400:]):
    tl = {r[0]: r for r in sheet(out, 'gpu_timeline')[1:]}
    total = float(tl['total_time'][1])
    # kernels at 1005 us (10 us) and 4.5e15 + 5 us (5e5 - 10 us): the span is 4.5e15 + 5e5 - 1005 us
    check(abs(total - (4.5e15 + 5e5 - 1005) / 1e3) < 1e-3 * total, 'big_ts: total_time is the span', total)
    check(all(0 <= float(r[2]) <= 100 for r in tl.values()), 'big_ts: percentages within 0..100',
          [r[2] for r in tl.values()])

# ---------- numbers: invalid UTF-8 in names and arguments ----------
gen.gen_bad_utf8(path('bad_utf8.json'))
rc, err, out, _, _ = run('bad_utf8', path('bad_utf8.json'))
if check(rc == 0, 'bad_utf8: exit 0', rc, err[-400:]):
    check('invalid UTF-8' in err, 'bad_utf8: a warning says invalid UTF-8 was replaced', err[-400:])
    nfiles = 0
    for f in glob.glob(os.path.join(out, '**', '*'), recursive=True):
        if os.path.isdir(f):
            continue
        blobs = [(f, open(f, 'rb').read())]
        if f.endswith(('.xlsx', '.zip')):  # every member of the workbook and of the package
            with zipfile.ZipFile(f) as z:
                blobs = [(f + ':' + m, z.read(m)) for m in z.namelist()]
        for where, data in blobs:
            nfiles += 1
            try:
                data.decode('utf-8')  # strict
                ok = True
            except UnicodeDecodeError as e:
                ok = str(e)
            check(ok is True, f'bad_utf8: {os.path.relpath(where, out)} is valid UTF-8', ok)
    check(nfiles >= 20, 'bad_utf8: the outputs were all read', nfiles)
    ks = sheet(out, 'kernel_summary')
    names = sorted(r[2] for r in ks[1:])
    # each maximal invalid subpart is one U+FFFD (as Python's 'replace' decodes it)
    want = sorted([b'kern_\xff\xfe_end'.decode('utf-8', 'replace'),
                   b'kern2_\xc0\xaf_\xed\xa0\x80_\xe2\x82'.decode('utf-8', 'replace')])
    check(names == want, 'bad_utf8: kernel names repaired as a strict decoder with replace does', names, want)
    try:
        import openpyxl
    except ImportError:
        openpyxl = None
        skip_part('openpyxl is not installed: the workbook was checked as UTF-8 XML only')
    if openpyxl:
        try:
            wb = openpyxl.load_workbook(os.path.join(out, 'perf_report.xlsx'), read_only=True)
            cells = [c for r in wb['kernel_summary'].iter_rows(values_only=True) for c in r]
        except Exception as e:  # noqa: BLE001 (a broken workbook is what this looks for)
            cells = [repr(e)]
        check(want[0] in cells, 'bad_utf8: openpyxl reads the repaired kernel name', want[0], cells[-3:])

# ---------- numbers: correlation ids reused by two processes ----------
gen.gen_shared_corr(path('shared_corr.json'))
rc, err, out, _, _ = run('shared_corr', path('shared_corr.json'))
if check(rc == 0, 'shared_corr: exit 0', rc, err[-400:]):
    check('3 correlation ids are carried by the launches of more than one process' in err and '; 0 could not' in err,
          'shared_corr: one warning with the count', err[-600:])
    ks = {(r[1], r[2]): r for r in sheet(out, 'kernel_summary')[1:]}
    # every kernel under the op of its own process: 4 x 10 us under aten::add, 4 x 20 us under aten::mul
    check(sorted(ks) == [('aten::add', 'k_add'), ('aten::mul', 'k_mul')], 'shared_corr: no kernel crosses processes',
          sorted(ks))
    check(ks.get(('aten::add', 'k_add'), [0] * 6)[5] == '4' and ks.get(('aten::mul', 'k_mul'), [0] * 6)[5] == '4',
          'shared_corr: 4 kernels each', [r[:6] for r in ks.values()])

gen.gen_shared_flow(path('shared_flow.json'))
rc, err, out, _, _ = run('shared_flow', path('shared_flow.json'))
if check(rc == 0, 'shared_flow: exit 0', rc, err[-400:]):
    check('3 launch flow ids start in more than one process' in err and '; 0 could not' in err,
          'shared_flow: one warning with the count', err[-600:])
    ks = {(r[1], r[2]): r for r in sheet(out, 'kernel_summary')[1:]}
    check(sorted(ks) == [('aten::add', 'k_add'), ('aten::mul', 'k_mul')], 'shared_flow: no kernel crosses processes',
          sorted(ks))
    check(ks.get(('aten::add', 'k_add'), [0] * 6)[5] == '4' and ks.get(('aten::mul', 'k_mul'), [0] * 6)[5] == '4',
          'shared_flow: 4 kernels each', [r[:6] for r in ks.values()])
gen.gen_shared_flow(path('shared_flow3.json'), third_process=True)
rc, err, out, _, _ = run('shared_flow3', path('shared_flow3.json'))
if check(rc == 0, 'shared_flow3: exit 0', rc, err[-400:]):
    check('3 launch flow ids start in more than one process' in err and '; 3 could not be told apart' in err,
          'shared_flow3: the 3 kernels of GPU 0 with shared ids are counted unlinked', err[-600:])
    ks = {(r[1], r[2]): r for r in sheet(out, 'kernel_summary')[1:]}
    check(ks.get(('aten::add', 'k_add'), [0] * 6)[5] == '1' and ks.get(('aten::mul', 'k_mul'), [0] * 6)[5] == '4'
          and ks.get(('aten::sub', 'k_sub'), [0] * 6)[5] == '1', 'shared_flow3: only unambiguous kernels linked',
          [r[:6] for r in ks.values()])

# ---------- time: deep nesting and many threads ----------
gen.gen_nested(path('nested.json'), 20000)  # one chain 20000 deep (before: 69 s and 3 GB)
expect_error('nested', path('nested.json'), 'the call tree is limited to 256 levels', max_s=10, max_mib=200)
gen.gen_nested(path('chains.json'), 20000, 255)  # chains just under the limit: analysed
rc, err, out, secs, rss = run('chains', path('chains.json'))
if check(rc == 0, 'chains: exit 0', rc, err[-400:]):
    ops = {r[0]: r for r in sheet(out, 'ops_summary')[1:]}
    check(ops.get('aten::mm', [0] * 6)[5] == '10000', 'chains: 10000 aten::mm ops', ops.get('aten::mm'))
    bounds('chains', secs, rss, 30, 400)
gen.gen_threads(path('threads.json'), 200000)  # 200000 threads (before: 19 s)
rc, err, out, secs, rss = run('threads', path('threads.json'))
check(rc == 0, 'threads: exit 0', rc, err[-400:])
bounds('threads', secs, rss, 8, 400)

# ---------- memory: 300000 kernels sharing one correlation id (one launch) ----------
gen.gen_one_corr(path('one_corr.json.gz'), 300000)  # before: 202 MB and two 75 MB CSV cells
rc, err, out, secs, rss = run('one_corr', path('one_corr.json.gz'))
if check(rc == 0, 'one_corr: exit 0', rc, err[-400:]):
    check('1 ops launch more than 10000 GPU events each (at most 300000)' in err,
          'one_corr: a warning says the kernel_details cells list the first 10000', err[-400:])
    size = os.path.getsize(os.path.join(out, 'perf_report_csvs', 'ops_unique_args.csv'))
    check(size < 8 << 20, 'one_corr: ops_unique_args.csv stays small', size)
    bounds('one_corr', secs, rss, 30, 120)

# the cells of 30000 kernels of varied durations: kernel_details_summary of unified_perf_summary lists the first
# 10000 by (total duration, name, position), ops_unique_args' the first 10000 in launch order
N_VARIED = 30000
gen.gen_one_corr(path('one_corr_varied.json.gz'), N_VARIED, varied=True)
rc, err, out, secs, rss = run('one_corr_varied', path('one_corr_varied.json.gz'))
if check(rc == 0, 'one_corr_varied: exit 0', rc, err[-400:]):
    import ast
    import csv
    csv.field_size_limit(1 << 30)
    ks = [(float(gen.one_corr_dur(i, True)), 'k%d' % (i % 3), i) for i in range(N_VARIED)]
    for sheet_name, want in (('unified_perf_summary', sorted(ks)[:10000]), ('ops_unique_args', ks[:10000])):
        with open(os.path.join(out, 'perf_report_csvs', sheet_name + '.csv'), encoding='utf-8') as f:
            rows = list(csv.DictReader(f))
        cell = [r['kernel_details_summary'] for r in rows if r['name'] == 'aten::x']
        got = ast.literal_eval(cell[0]) if cell else []
        check([(k['total_duration_us'], k['name']) for k in got] == [(d, n) for d, n, _ in want],
              f'one_corr_varied: {sheet_name} lists the first 10000 kernels in its order', len(got),
              [(k['total_duration_us'], k['name']) for k in got[:3]], want[:3])

# ---------- memory: gzip'd blanks and one long string ----------
gen.gen_gz_whitespace(path('blanks.json.gz'), 300)  # 300 MiB of blanks (before: the window grew to 300+ MB)
expect_error('blanks', path('blanks.json.gz'), 'unexpected end', max_mib=100)
gen.gen_gz_longstring(path('longstr.json.gz'), 300)
expect_error('longstr', path('longstr.json.gz'), 'larger than 64 MiB, the limit of one traceEvents entry',
             max_mib=200)

# ---------- formats: one rule for what follows a gzip member ----------
gen.gen_multimember(path('two_members.json.gz'))
rc, err, out, _, _ = run('two_members', path('two_members.json.gz'))
check(rc == 0, 'two_members: a trace gzip\'d as two members is read (as gzip -dc does)', rc, err[-400:])
gen.gen_gz_garbage(path('nul_pad.json.gz'), b'\0' * 5000)
rc, err, out, _, _ = run('nul_pad', path('nul_pad.json.gz'))
check(rc == 0, 'nul_pad: NUL padding after the last member is accepted (as gzip -dc does)', rc, err[-400:])
for name, tail in (('garbage', b'GARBAGE after the member\n'), ('garbage_1f', b'\x1fzz'),
                   ('garbage_after_nul', b'\0' * 5000 + b'x')):
    gen.gen_gz_garbage(path(name + '.json.gz'), tail)
    expect_error(name, path(name + '.json.gz'), 'trailing garbage')

# ---------- numbers: a hardware file with a peak of 0, negative or not finite ----------
EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), 'examples',
                       'resnet_block_train.json.gz')
for name, body, field in (
        ('peak0', '"peak_tflops": {"matrix_bf16": 0, "vector_fp32": 67}', '"peak_tflops"."matrix_bf16" is 0'),
        ('peak_neg', '"peak_tflops": {"matrix_bf16": -989}', '"peak_tflops"."matrix_bf16" is -989'),
        ('peak_inf', '"peak_tflops": {"matrix_bf16": 1e999}', '"peak_tflops"."matrix_bf16" is inf'),
        ('peak_text', '"max_achievable_tflops": {"matrix_bf16": "fast"}',
         '"max_achievable_tflops"."matrix_bf16" is not a number'),
        ('llc0', '"llc_mb": 0, "peak_tflops": {"matrix_bf16": 989}', '"llc_mb" is 0')):
    arch = path(name + '.json')
    with open(arch, 'w') as f:
        f.write('{"name": "Odd GPU", "mem_bw_gbps": 3350, %s}' % body)
    rc, err, out, _, _ = run(name, EXAMPLE, ('--gpu-arch', arch))
    check(rc == 1, f'{name}: --gpu-arch with {field}: exit 1', rc, err[-300:])
    check(arch in err and field in err and 'positive finite' in err, f'{name}: the error names the file and the field',
          err[-300:])

shutil.rmtree(T, ignore_errors=True)
sys.exit(finish())
