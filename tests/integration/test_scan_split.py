#!/usr/bin/env python3
"""test_scan_split: the traceEvents array scanned on K threads (segments parsed from a guessed entry boundary,
verified at the seam, taken in file order) gives the same outputs, stdout, stderr and exit status as everything
on one thread (JV_INFLATE_THREADS=0 JV_ANALYZE_THREADS=1). Segments are made tiny (JV_SCAN_SEGMENT) so that a
small trace has hundreds of seams, and sized so that a seam falls on the bytes that fool the guess: "},{",
"}, {" and "},\\n  {" inside strings, an escaped quote or backslash, multi-byte and invalid UTF-8, and arrays of
objects nested in args. Errors that fall in a speculative segment (a JSON error, a truncated plain and gzip'd
file, a time past the limit, an entry that is not an object, extra data after the array) give the same message
and exit status. The fixtures of tests/data and SHARED_DIR/traces (when present) are compared too. The scan's
JV_SCAN_STATS line must show segments both taken from the scanners and scanned again.

usage: test_scan_split.py JARVIS_ANALYZE [SHARED_DIR]"""
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck
from jvcheck import check, finish, skip_part  # noqa: E402
from outdiff import differences  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hostile_gen as g  # noqa: E402

BIN = os.path.abspath(sys.argv[1])
SHARED = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, '..', '..', '..', 'shared')
ONE = {'JV_INFLATE_THREADS': '0', 'JV_ANALYZE_THREADS': '1'}
STATS = re.compile(r'jarvis-analyze: scan: (\d+) threads, (\d+)-byte segments, (\d+) taken from a scanner, '
                   r'(\d+) scanned again\n')
totals = {'taken': 0, 'again': 0}


def run(trace, out, env_add):
    env = dict(os.environ)
    for k in ('JV_INFLATE', 'JV_INFLATE_THREADS', 'JV_ANALYZE_THREADS', 'JV_SCAN_THREADS', 'JV_SCAN_SEGMENT',
              'JV_SCAN_STATS'):
        env.pop(k, None)
    env.update(env_add)
    p = subprocess.run([BIN, '-q', trace, '-o', out], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=600, cwd=os.path.dirname(out))
    name = os.path.basename(out)
    err = p.stderr.decode('utf-8', 'replace').replace(name, 'OUT')
    for m in STATS.finditer(err):
        totals['taken'] += int(m.group(3))
        totals['again'] += int(m.group(4))
    return p.returncode, p.stdout.decode('utf-8', 'replace').replace(name, 'OUT'), STATS.sub('', err)


def compare(name, trace, tmp, segs, ks=(2,), want_rc=None):
    """one thread against K scanning threads with each segment size: the exit status, stdout, stderr, files"""
    ref = os.path.join(tmp, f'{name}_one')
    r0, s0, e0 = run(trace, ref, ONE)
    if want_rc is not None:
        check(r0 == want_rc, f'{name}: exit status {want_rc} on one thread', r0, e0[-300:])
    for k in ks:
        for seg in segs:
            out = os.path.join(tmp, f'{name}_k{k}_s{seg}')
            r, s, e = run(trace, out, {'JV_SCAN_THREADS': str(k), 'JV_SCAN_SEGMENT': str(seg), 'JV_SCAN_STATS': '1'})
            tag = f'{name} K={k} segment={seg}'
            check(r == r0, f'{tag}: the same exit status', r0, r, e[-300:])
            check(s == s0, f'{tag}: the same stdout', s0[-300:], s[-300:])
            check(e == e0, f'{tag}: the same stderr', e0[-300:], e[-300:])
            if r == 0 and r0 == 0:
                d = differences(ref, out)
                check(not d, f'{tag}: identical outputs', d[:5])
            subprocess.run(['rm', '-rf', out])
    subprocess.run(['rm', '-rf', ref])
    return e0


TRICKY = ['a},{b', 'c}, {d', 'e},\n  {f', 'q\\"},{\\"', 'bs\\\\', 'bs\\\\"},{', '\u00e9\u4e2d\U0001f600',
          '}, {"ph": "X", "name": "fake"}', ']}, {']


def tricky_trace():
    """entries with separators ",", ", " and ",\\n  " and names that fool the guess; returns (bytes, offsets of
    the guess-fooling '}' and of some multi-byte and invalid UTF-8 bytes)"""
    parts = []
    for i in range(1500):
        ts = 1000 + 40 * i
        nm = 'aten::op%d_%s' % (i % 17, TRICKY[i % len(TRICKY)])
        o = g.op(nm, ts, 30, tid=('w"%d' % (i % 3)) if i % 4 == 0 else 100, dims=[[i % 5, 3]])
        if i % 9 == 0:
            o['args']['nested'] = [{'a': 1}, {'b': '},{'}, {'c': [{'d': 2}, {}]}]
        if i % 13 == 0:
            o['args'].update({'Process Group Name': 'pg}, {x', 'Collective name': 'ar', 'Group size': 2})
        parts.append(json.dumps(o, ensure_ascii=(i % 2 == 0)).encode())
        parts.append(json.dumps(g.launch(ts + 1, i + 1)).encode())
        k = g.kernel('k_%d}, {' % (i % 7) if i % 5 else 'k\u00fc%d' % (i % 7), ts + 5, 10, i + 1)
        parts.append(json.dumps(k, ensure_ascii=False).encode())
    parts.append(b'{"ph": "M", "name": "thread_name", "pid": 100, "tid": "w\\"0", "args": {"name": "w},{0"}}')
    seps = [b',', b', ', b',\n  ', b' ,\t']
    body = b''
    for i, p in enumerate(parts):
        if i:
            body += seps[i % len(seps)]
        if i % 101 == 50:  # invalid UTF-8 in a name
            p = p.replace(b'aten::op', b'aten::\xff\xfeop', 1)
        body += p
    head = b'{"deviceProperties": ' + json.dumps(g.DEVPROPS).encode() + b', "traceEvents": ['
    data = head + body + b'], "distributedInfo": {"rank": 0, "x": [{"a": 1}, {"b": 2}]}}'
    marks = [m.start() for m in re.finditer(rb'\},\s*\{', data)]
    utf = [m.start() + 1 for m in re.finditer(rb'[\xc3\xe4\xf0\xff]', data)]
    return data, len(head), marks, utf


def seg_sizes(start, offsets, lo=40, hi=3000, want=12):
    """segment sizes that put a seam at some of the offsets (segments count from start)"""
    got = []
    for o in offsets[::max(1, len(offsets) // 40)]:
        d = o - start
        for s in range(lo, hi):
            if d % s == 0 and s not in got:
                got.append(s)
                break
        if len(got) >= want:
            break
    return got


def main():
    v = subprocess.run([BIN, '--version'], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check(v.returncode == 0, 'jarvis-analyze --version runs')
    with tempfile.TemporaryDirectory() as tmp:
        data, start, marks, utf = tricky_trace()
        plain = os.path.join(tmp, 'tricky.json')
        g.write(plain, data, gz=False)
        gz = os.path.join(tmp, 'tricky.json.gz')
        g.write(gz, data, gz=True)
        at_marks = seg_sizes(start, marks)
        at_marks1 = seg_sizes(start, [m + 1 for m in marks], want=6)
        at_utf = seg_sizes(start, utf, want=6)
        check(len(at_marks) >= 8 and len(at_utf) >= 3, 'segment sizes that put seams on the tricky bytes',
              at_marks, at_utf)
        compare('tricky_plain', plain, tmp, at_marks + at_marks1 + at_utf + [17, 97, 4096], want_rc=0)
        compare('tricky_gz', gz, tmp, [23, 211, 1500, 65536], ks=(2, 3, 5), want_rc=0)
        # values longer than a scanner reads past its segment (a 300 KB name, 600 KB of blanks between two
        # entries, a long string with '},{' inside): the committing thread scans them, memory stays bounded
        cut = data.index(b'{"ph"', len(data) // 3)
        longv = (data[:cut] + b'{"ph": "X", "name": "' + b'x},{y' * 60000 + b'", "pid": 1, "tid": 1, "ts": 5, "dur": 1}, '
                 + b' ' * 600000 + data[cut:])
        p = os.path.join(tmp, 'long_value.json')
        g.write(p, longv, gz=False)
        compare('long_value', p, tmp, [4096, 65536, 262144], ks=(2, 3), want_rc=0)
        # the traceEvents key twice: the second array is read on from the segments the first one's scan left
        # (its scanners read ahead past the first array's end)
        arr = data[start - 1:data.rindex(b'], "distributedInfo"') + 1]
        p = os.path.join(tmp, 'two_arrays.json')
        g.write(p, b'{"traceEvents": ' + arr + b', "other": [1, {"a": 2}], "traceEvents": ' + arr + b'}', gz=False)
        compare('two_arrays', p, tmp, [31, 4096, 65536], ks=(2, 3), want_rc=0)
        # errors late in the array: in a speculative segment with these segment sizes
        n = len(data)
        bad_json = data[:n * 3 // 4] + data[n * 3 // 4:].replace(b'"ph"', b'"ph" "', 1)
        cases = {
            'bad_json': bad_json,
            'truncated': data[:n * 2 // 3],
            'truncated_in_string': data[:data.index(b'}, {x', n // 2) + 2],
            'time_limit': data[:n * 3 // 4] + data[n * 3 // 4:].replace(b'"ts": ', b'"ts": 4.7e15, "x": ', 1),
            'not_object': data[:n // 2] + data[n // 2:].replace(b', {"ph"', b', 17, {"ph"', 1),
            'bad_after_array': data[:-1] + b'} x',
            'unclosed_array': data[:data.rindex(b']')],
            'bad_escape': data[:n * 3 // 5] + data[n * 3 // 5:].replace(b'aten::', b'aten\\q::', 1),
        }
        for name, text in cases.items():
            p = os.path.join(tmp, name + '.json')
            g.write(p, text, gz=False)
            e = compare(name, p, tmp, [29, 313, 2048])
            if name not in ('not_object', 'time_limit', 'bad_escape'):
                check('not valid JSON' in e or 'error' in e.lower(), f'{name}: an error is reported', e[-300:])
        # a gzip stream cut short: the input's error after the last bytes read
        gzd = gzip.compress(data, 1)
        p = os.path.join(tmp, 'cut.json.gz')
        with open(p, 'wb') as f:
            f.write(gzd[:len(gzd) * 2 // 3])
        compare('gz_cut', p, tmp, [53, 4096, 300000], want_rc=1)
        # fixtures
        fixtures = [os.path.join(HERE, '..', 'data', f) for f in sorted(os.listdir(os.path.join(HERE, '..', 'data')))
                    if f.endswith(('.json', '.json.gz'))]
        for f in fixtures:
            compare(os.path.basename(f), f, tmp, [101, 7777])
        traces = os.path.join(SHARED, 'traces')
        if os.path.isdir(traces):
            for f in sorted(os.listdir(traces)):
                p = os.path.join(traces, f)
                if f.endswith(('.json', '.json.gz')) and os.path.getsize(p) < (8 << 20):
                    compare(f, p, tmp, [997])
        else:
            skip_part(f'no {traces}: the shared fixtures were not compared')
    check(totals['taken'] > 1000 and totals['again'] > 100,
          'segments were both taken from the scanners and scanned again', totals)
    print('segments taken from a scanner: %d, scanned again: %d' % (totals['taken'], totals['again']))
    return finish()


sys.exit(main())
