#!/usr/bin/env python3
"""test_inflate_engines: the two gzip decoders (ISA-L's igzip, the default where the build has it, and zlib,
JV_INFLATE=zlib), and igzip with and without its read-ahead thread (JV_INFLATE_THREADS=0), give
byte-identical analyses of the same gzip'd traces (generated, in one and in two
members, and the fixtures in ../shared/traces when present), and fail alike on truncated, corrupt and
padded-with-garbage files. Skipped (77) when the build has no ISA-L (then zlib is the only decoder).

usage: test_inflate_engines.py JARVIS_ANALYZE [SHARED_DIR]"""
import filecmp
import gzip
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck
from jvcheck import check, finish  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hostile_gen as g  # noqa: E402

BIN = sys.argv[1]
SHARED = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, '..', '..', '..', 'shared')



def run(trace, out, engine):
    env = dict(os.environ)
    env.pop('JV_INFLATE', None)
    env.pop('JV_INFLATE_THREADS', None)
    if engine == 'zlib':
        env['JV_INFLATE'] = 'zlib'
    if engine == 'isal_sync':  # igzip on the scanning thread (no read-ahead thread)
        env['JV_INFLATE_THREADS'] = '0'
    p = subprocess.run([BIN, trace, '-o', out, '-q'], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=600)
    return p.returncode, p.stderr.decode('utf-8', 'replace')


def same_tree(a, b):
    """every file of the two outputs equal, but the workbook and the package (they hold the time of the run)"""
    cmp = filecmp.dircmp(a, b)
    todo = [cmp]
    diff = []
    while todo:
        c = todo.pop()
        diff += [os.path.join(c.left, f) for f in c.left_only + c.right_only]
        diff += [os.path.join(c.left, f) for f in c.diff_files if not f.endswith(('.xlsx', '.zip'))]
        todo += c.subdirs.values()
    return diff


def compare(name, trace, tmp):
    """the default (igzip, read ahead on a second thread where there are two cores) against zlib and against
    igzip on the scanning thread: (exit status, stderr of the default, stderr of zlib)"""
    outs = {}
    for e in ('isal', 'zlib', 'isal_sync'):
        out = os.path.join(tmp, f'{name}_{e}')
        outs[e] = (out,) + run(trace, out, e)
    oi, ri, ei = outs['isal']
    for other in ('zlib', 'isal_sync'):
        oz, rz, ez = outs[other]
        check(ri == rz, f'{name}: the same exit status with {other}', ri, rz, ei[-300:], ez[-300:])
        if ri == 0 and rz == 0:
            d = same_tree(oi, oz)
            check(not d, f'{name}: identical outputs with {other}', d[:5])
    check(outs['isal_sync'][2] == ei, f'{name}: the same messages with and without the read-ahead thread',
          ei[-300:], outs['isal_sync'][2][-300:])
    return ri, ei, outs['zlib'][2]


def main():
    v = subprocess.run([BIN, '--version'], stdout=subprocess.PIPE, text=True).stdout
    if 'isa-l' not in v:
        print('test_inflate_engines: built without ISA-L: zlib is the only decoder: skipped')
        return 77
    zv = subprocess.run([BIN, '--version'], stdout=subprocess.PIPE, text=True,
                        env=dict(os.environ, JV_INFLATE='zlib')).stdout
    check('zlib' in zv and 'isa-l' not in zv, 'JV_INFLATE=zlib selects zlib', zv)
    with tempfile.TemporaryDirectory() as tmp:
        ev = []
        for i in range(2000):
            ev += g.one_op('aten::add' if i % 2 else 'aten::mul', 'k%d' % (i % 3), 1000 + 100 * i, corr=i + 1)
        plain = os.path.join(tmp, 'gen.json')
        g.write(plain, g.doc(ev))
        with open(plain, 'rb') as f:
            raw = f.read()
        one = os.path.join(tmp, 'one.json.gz')
        with open(one, 'wb') as f:
            f.write(gzip.compress(raw, 6))
        rc, _, _ = compare('one_member', one, tmp)
        check(rc == 0, 'one_member: analysed')
        two = os.path.join(tmp, 'two.json.gz')
        with open(two, 'wb') as f:
            f.write(gzip.compress(raw[:len(raw) // 3], 1) + gzip.compress(raw[len(raw) // 3:], 9))
        rc, _, _ = compare('two_members', two, tmp)
        check(rc == 0, 'two_members: analysed')
        data = open(one, 'rb').read()
        for name, blob, want in (('truncated', data[:len(data) // 2], 'ends early'),
                                 ('garbage', data + b'GARBAGE', 'trailing garbage'),
                                 ('corrupt', data[:40] + bytes(b ^ 0x55 for b in data[40:400]) + data[400:], 'gzip'),
                                 ('bad_crc', data[:-8] + bytes([data[-8] ^ 1]) + data[-7:], 'gzip')):
            p = os.path.join(tmp, name + '.json.gz')
            with open(p, 'wb') as f:
                f.write(blob)
            rc, ei, ez = compare(name, p, tmp)
            check(rc == 1 and want in ei and want in ez, f'{name}: refused by both, naming it ({want!r})',
                  rc, ei[-200:], ez[-200:])
        traces = os.path.join(SHARED, 'traces')
        if os.path.isdir(traces):
            for t in ('nv_h100_qwen15_05b_infer.json.gz', 'amd_mi300x_resnet18_train.json.gz',
                      'nv_v100_resnet50_tbplugin_2021.json.gz'):
                if os.path.exists(os.path.join(traces, t)):
                    compare(t, os.path.join(traces, t), tmp)
    return finish()


sys.exit(main())
