#!/usr/bin/env python3
"""test_threads_identical: jarvis-analyze gives the same outputs, stdout, stderr and exit status whatever the
number of threads it uses for one trace: the default (the gzip read-ahead thread, the traceEvents array parsed
on a second thread while the first interns and commits, the GPU timelines then the launcher table with its
sheets made on a second thread beside the model, the category data on a second thread beside the perf sheets
and the commits) against everything on the main thread
(JV_INFLATE_THREADS=0 JV_ANALYZE_THREADS=1). Every file is compared byte for byte; in the workbook and the
replay package every member is compared but the time of the run (docProps/core.xml, manifest.json's
"created"). Cases: generated traces (one with an op launching more than 10000 kernels, whose warning is
printed after the second thread ends; one with a bad --gpu-arch, an error raised while the launcher table is
built; a --reference run; the package manifest's SHA-256 and size of the trace, gzip'd and plain; for the two-thread scan of the traceEvents array, 36k entries with string tids,
escaped and invalid UTF-8 strings, metadata and collective args, also cut by a JSON error or a time past the
limit late in the array) and three fixtures of SHARED_DIR/traces when present.

usage: test_threads_identical.py JARVIS_ANALYZE [SHARED_DIR]"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck
from jvcheck import check, finish  # noqa: E402
from outdiff import differences  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hostile_gen as g  # noqa: E402

BIN = sys.argv[1]
SHARED = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, '..', '..', '..', 'shared')
MODES = {'default': {}, 'one_thread': {'JV_INFLATE_THREADS': '0', 'JV_ANALYZE_THREADS': '1'}}


def run(args, out, mode):
    env = dict(os.environ)
    for k in ('JV_INFLATE', 'JV_INFLATE_THREADS', 'JV_ANALYZE_THREADS'):
        env.pop(k, None)
    env.update(MODES[mode])
    p = subprocess.run([BIN] + args + ['-o', out], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=600, cwd=os.path.dirname(out))
    # the output folder's name is the only thing the two runs are told differently
    name = os.path.basename(out)
    return (p.returncode, p.stdout.decode('utf-8', 'replace').replace(name, 'OUT'),
            p.stderr.decode('utf-8', 'replace').replace(name, 'OUT'))


def compare(name, args, tmp, want_rc=0):
    res = {}
    for m in MODES:
        out = os.path.join(tmp, f'{name}_{m}')
        res[m] = (out,) + run(args, out, m)
    (oa, ra, sa, ea), (ob, rb, sb, eb) = res['default'], res['one_thread']
    check(ra == want_rc, f'{name}: exit status {want_rc}', ra, ea[-300:])
    check(ra == rb, f'{name}: the same exit status on one thread', ra, rb, eb[-300:])
    check(sa == sb, f'{name}: the same stdout on one thread', sa[-300:], sb[-300:])
    check(ea == eb, f'{name}: the same stderr on one thread', ea[-300:], eb[-300:])
    if ra == 0 and rb == 0:
        d = differences(oa, ob)
        check(not d, f'{name}: identical outputs on one thread', d[:5])
    return ea


def check_manifest(name, out, trace):
    """the package's manifest names the trace's SHA-256 and size (taken while the trace is read)"""
    with zipfile.ZipFile(os.path.join(out, 'replay_package.zip')) as z:
        man = json.loads(z.read('manifest.json'))
    with open(trace, 'rb') as f:
        data = f.read()
    check(man['trace']['sha256'] == hashlib.sha256(data).hexdigest() and man['trace']['bytes'] == len(data),
          f'{name}: the manifest holds the trace file\'s SHA-256 and size', man['trace'])


def main():
    with tempfile.TemporaryDirectory() as tmp:
        ev = []
        for i in range(3000):
            ev += g.one_op(('aten::add', 'aten::mul', 'aten::mm')[i % 3], 'k%d' % (i % 5), 1000 + 100 * i,
                           corr=i + 1)
        base = 1000 + 100 * 3000 + 1000
        ev.append(g.op('aten::big', base, 20000 * 20 + 100))  # an op launching 10001 kernels
        for j in range(10001):
            ev.append(g.launch(base + 1 + 2 * j, 100000 + j, dur=1))
            ev.append(g.kernel('kbig', base + 1 + 2 * j + 1, 1, 100000 + j))
        trace = os.path.join(tmp, 'gen.json.gz')
        g.write(trace, g.doc(ev), gz=True)
        err = compare('generated', [trace], tmp)
        check('more than 10000 GPU events' in err, 'generated: the kernel_details warning is printed', err[-300:])
        compare('generated_quiet', ['-q', trace], tmp)
        plain = os.path.join(tmp, 'gen_plain.json')
        g.write(plain, g.doc(ev), gz=False)
        compare('generated_plain', ['-q', plain], tmp)
        for m in MODES:
            check_manifest(f'generated_quiet {m}', os.path.join(tmp, f'generated_quiet_{m}'), trace)
            check_manifest(f'generated_plain {m}', os.path.join(tmp, f'generated_plain_{m}'), plain)
        compare('reference', ['-q', trace, '--reference', trace], tmp)
        compare('bad_gpu_arch', ['-q', trace, '--gpu-arch', os.path.join(tmp, 'no_such_arch.json')], tmp, want_rc=1)
        # the two-thread scan's own cases, across many batches of 4096 entries and window refills: string and
        # numeric-string tids, escaped and invalid-UTF-8 names, thread-name metadata, collective args (a
        # "Process Group ID" after an empty "Process Group Name"), repeated keys; then the same text cut by a
        # JSON error late in the array, and a time past the limit late in the array
        ev = []
        for i in range(12000):
            tid = ('worker "%d"' % (i % 7)) if i % 3 == 0 else (str(100 + i % 5) if i % 3 == 1 else 100)
            o = g.op('aten::op_\u00e9\n%d' % (i % 50) if i % 2 else 'aten::add', 1000 + 60 * i, 50, tid=tid,
                     dims=[[i % 9, 4]])
            if i % 11 == 0:
                o['args'].update({'Process Group Name': '', 'Process Group ID': i % 4, 'Collective name': 'ar',
                                  'dtype': 'Float', 'Group size': 2, 'In msg nelems': i})
            ev.append(o)
            ev.append(g.launch(1001 + 60 * i, i + 1, tid=tid))
            ev.append(g.kernel('kern_%d' % (i % 13), 1005 + 60 * i, 10, i + 1))
        ev += [{'ph': 'M', 'name': 'thread_name', 'pid': 100, 'tid': 'worker "%d"' % k,
                'args': {'name': 'w\u00fc%d' % k}} for k in range(7)]
        text = json.dumps(g.doc(ev)).replace('"aten::add"', '"aten::add", "name": "aten::add"', 50)
        text = text.replace('aten::op_\\u00e9', 'aten::op_\\u00e9\\udcff', 1)  # a lone surrogate escape
        raw = text.encode().replace(b'kern_12"', b'kern_12\xff\xfe"', 40)  # invalid UTF-8 in 40 names
        piped = os.path.join(tmp, 'piped.json.gz')
        g.write(piped, raw, gz=True)
        compare('piped', ['-q', piped], tmp)
        at = len(raw) * 9 // 10
        cut = raw[:at] + raw[at:].replace(b'"ph"', b'"ph" "', 1)
        bad = os.path.join(tmp, 'piped_bad_json.json.gz')
        g.write(bad, cut, gz=True)
        err = compare('piped_bad_json', ['-q', bad], tmp, want_rc=1)
        check('not valid JSON' in err, 'piped_bad_json: the JSON error is reported', err[-300:])
        late = raw[:at] + raw[at:].replace(b'"ts": ', b'"ts": 4.7e15, "x": ', 1)
        limit = os.path.join(tmp, 'piped_time_limit.json.gz')
        g.write(limit, late, gz=True)
        compare('piped_time_limit', ['-q', limit], tmp, want_rc=1)
        traces = os.path.join(SHARED, 'traces')
        if os.path.isdir(traces):
            for t in ('nv_h100_qwen15_05b_infer.json.gz', 'amd_mi300x_resnet18_train.json.gz',
                      'nv_v100_resnet50_tbplugin_2021.json.gz'):
                if os.path.exists(os.path.join(traces, t)):
                    compare(t, ['-q', os.path.join(traces, t)], tmp)
    return finish()


sys.exit(main())
