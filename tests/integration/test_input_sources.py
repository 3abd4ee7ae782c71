#!/usr/bin/env python3
"""test_input_sources: where the trace's bytes come from and how its SHA-256 is taken.

- A trace read through a pipe (a FIFO, as `<(zcat ...)` gives), plain and gzip'd, is analysed as the file is:
  exit 0, the same ops_summary.csv, and a manifest whose trace SHA-256 and size are those of the bytes sent (the
  first two bytes, read to tell gzip from JSON, are not lost: before, a pipe gave "first byte 0x22 is neither
  '{' nor '['"). An empty pipe and a pipe of one byte fail as the files do.
- A plain trace is hashed in the background (analysis/ingest/jv_filehash) by default, as it is read with
  JV_HASH_THREAD=0 or JV_ANALYZE_THREADS=1: the three manifests name the same SHA-256 and size, hashlib's.

usage: test_input_sources.py JARVIS_ANALYZE"""
import gzip
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import zipfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck
from jvcheck import check, finish  # noqa: E402

BIN = sys.argv[1]


def trace_text(n=4000):
    ev = []
    for i in range(n):
        ev.append({'ph': 'X', 'cat': 'cpu_op', 'name': 'aten::mm' if i % 2 else 'aten::add', 'pid': 1, 'tid': 2,
                   'ts': 10 * i, 'dur': 5, 'args': {'External id': i + 1}})
        ev.append({'ph': 'X', 'cat': 'cuda_runtime', 'name': 'cudaLaunchKernel', 'pid': 1, 'tid': 2,
                   'ts': 10 * i + 1, 'dur': 2, 'args': {'correlation': i + 1}})
        ev.append({'ph': 'X', 'cat': 'kernel', 'name': 'k_mm' if i % 2 else 'k_add', 'pid': 0, 'tid': 7,
                   'ts': 10 * i + 3, 'dur': 4, 'args': {'correlation': i + 1, 'device': 0, 'stream': 7}})
    return json.dumps({'traceEvents': ev}, indent=1).encode()


def run(src, out, env_extra=None, feed=None):
    """jarvis-analyze on src (feed: bytes written into src, a FIFO, by a thread)"""
    env = dict(os.environ)
    for k in ('JV_HASH_THREAD', 'JV_ANALYZE_THREADS', 'JV_INFLATE_THREADS'):
        env.pop(k, None)
    env.update(env_extra or {})
    writer = None
    if feed is not None:
        def write():
            try:
                with open(src, 'wb') as f:
                    f.write(feed)
            except BrokenPipeError:
                pass
        writer = threading.Thread(target=write, daemon=True)  # blocked in open() if jarvis never opens the pipe
        writer.start()
    p = subprocess.run([BIN, src, '-o', out, '-q'], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=300)
    if writer:
        writer.join(timeout=60)
    return p.returncode, p.stderr.decode('utf-8', 'replace')


def manifest_trace(out):
    with zipfile.ZipFile(os.path.join(out, 'replay_package.zip')) as z:
        return json.loads(z.read('manifest.json'))['trace']


def ops_summary(out):
    with open(os.path.join(out, 'perf_report_csvs', 'ops_summary.csv'), 'rb') as f:
        return f.read()


with tempfile.TemporaryDirectory(prefix='jv_sources.') as tmp:
    plain = trace_text()
    packed = gzip.compress(plain, 6)
    for name, data in (('plain', plain), ('gz', packed)):
        path = os.path.join(tmp, f'{name}.json' + ('.gz' if name == 'gz' else ''))
        with open(path, 'wb') as f:
            f.write(data)
        want = {'sha256': hashlib.sha256(data).hexdigest(), 'bytes': len(data)}
        rc, err = run(path, os.path.join(tmp, f'{name}_file'))
        check(rc == 0, f'{name} file: exit 0', rc, err[-300:])
        fifo = os.path.join(tmp, f'{name}_fifo')
        os.mkfifo(fifo)
        rcp, errp = run(fifo, os.path.join(tmp, f'{name}_pipe'), feed=data)
        check(rcp == 0, f'{name} through a pipe: exit 0', rcp, errp[-300:])
        if rc == 0 and rcp == 0:
            got = manifest_trace(os.path.join(tmp, f'{name}_pipe'))
            check(got.get('sha256') == want['sha256'] and got.get('bytes') == want['bytes'],
                  f'{name} through a pipe: the manifest hashes the bytes sent', got, want)
            check(ops_summary(os.path.join(tmp, f'{name}_pipe')) == ops_summary(os.path.join(tmp, f'{name}_file')),
                  f'{name} through a pipe: the same ops_summary.csv as the file')
        if name != 'plain':
            continue
        # the background hash against the hash taken as the file is read
        for label, extra in (('default', {}), ('JV_HASH_THREAD=0', {'JV_HASH_THREAD': '0'}),
                             ('JV_ANALYZE_THREADS=1', {'JV_ANALYZE_THREADS': '1'})):
            out = os.path.join(tmp, 'hash_' + label.split('=')[0])
            rc, err = run(path, out, extra)
            check(rc == 0, f'plain, {label}: exit 0', rc, err[-300:])
            if rc == 0:
                got = manifest_trace(out)
                check(got.get('sha256') == want['sha256'] and got.get('bytes') == want['bytes'],
                      f'plain, {label}: the manifest names the file\'s SHA-256 and size', got, want)

    # an empty pipe and a one-byte pipe fail as the files do (the same message but for the name)
    for name, data in (('empty', b''), ('one_byte', b'{')):
        path = os.path.join(tmp, name + '.json')
        with open(path, 'wb') as f:
            f.write(data)
        rc, err = run(path, os.path.join(tmp, name + '_out_file'))
        fifo = os.path.join(tmp, name + '.fifo')
        os.mkfifo(fifo)
        rcp, errp = run(fifo, os.path.join(tmp, name + '_out_pipe'), feed=data)
        check(rc != 0 and rcp == rc, f'{name}: the pipe fails as the file does', rc, rcp)
        check(errp.replace(fifo, 'X') == err.replace(path, 'X'), f'{name}: the same message', err, errp)

finish()
