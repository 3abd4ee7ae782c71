#!/usr/bin/env python3
"""Hostile replay inputs given to jarvis-replay: each gets a clear error naming the file (and the problem),
exit status 1, and nothing is written anywhere (the run's working directory stays empty; the package
is never extracted).

Cases: zip members with ../ and absolute paths, a zip bomb (high-ratio member), a member over the size
limit, a package without replay_ir.json, a truncated zip, a non-zip non-JSON file, malformed IR JSON,
IR that is not a list, an entry without op_name, negative and absurd dims, 9 dims, an unknown dtype,
a missing file, a grammar error between entries, in a member beside them or in one entry, an entry over
1 MiB. Also: a number-dense IR of 13.8 MiB is read in under 100 MiB of memory over a one-entry IR's. Also a --max-bytes run: an op bigger than the cap is skipped, not failed.
Usage: test_replay_hostile.py JARVIS_REPLAY [--sanitized]   (an ASan build: the memory bound is not checked)
"""
import json, os, subprocess, sys, tempfile, zipfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck, md_check
from jvcheck import check, finish  # noqa: E402


MM = {"op_name": "aten::mm", "replay_ir": {"list_pos_args": [
    {"arg_name": "self", "arg_type": "Tensor", "value": {"shape": [8, 4], "dtype": "float", "strides": [4, 1],
                                                        "init": "normal"}},
    {"arg_name": "mat2", "arg_type": "Tensor", "value": {"shape": [4, 2], "dtype": "float", "strides": [2, 1],
                                                        "init": "normal"}}], "list_kwargs": []}}


def with_shape(shape, dtype='float', strides=None):
    e = json.loads(json.dumps(MM))
    v = e['replay_ir']['list_pos_args'][0]['value']
    v['shape'], v['dtype'] = shape, dtype
    v['strides'] = strides if strides is not None else [1] * len(shape)
    return json.dumps([e])


def main():
    rep = os.path.abspath(sys.argv[1])
    sanitized = '--sanitized' in sys.argv[2:]  # ASan keeps freed memory in quarantine: no memory bound there
    tmp = tempfile.mkdtemp(prefix='jv_hostile_')
    work = os.path.join(tmp, 'cwd')
    os.mkdir(work)
    good_ir = json.dumps([MM])

    def zipped(name, members, compress=zipfile.ZIP_DEFLATED):
        p = os.path.join(tmp, name)
        with zipfile.ZipFile(p, 'w', compress) as z:
            for n, data in members:
                z.writestr(zipfile.ZipInfo(n), data, compress_type=compress)
        return p

    cases = []
    cases.append(('dotdot', zipped('dotdot.zip', [('replay_ir.json', good_ir), ('../evil.json', 'x')]), '../evil'))
    cases.append(('absolute', zipped('abs.zip', [('replay_ir.json', good_ir), ('/tmp/evil.json', 'x')]), '/tmp/evil'))
    cases.append(('nested dotdot', zipped('nest.zip', [('a/../../b.json', 'x'), ('replay_ir.json', good_ir)]), 'a/../../b'))
    cases.append(('zip bomb', zipped('bomb.zip', [('replay_ir.json', b'[' + b' ' * (64 << 20) + b']')]), 'ratio'))
    cases.append(('no IR', zipped('noir.zip', [('manifest.json', '{}')]), 'replay_ir.json'))
    full = zipped('full.zip', [('replay_ir.json', good_ir), ('manifest.json', '{}')])
    data = open(full, 'rb').read()
    trunc = os.path.join(tmp, 'trunc.zip')
    open(trunc, 'wb').write(data[:len(data) // 2])
    cases.append(('truncated zip', trunc, 'trunc.zip'))
    junk = os.path.join(tmp, 'junk.bin')
    open(junk, 'wb').write(b'\x00\x01binary junk')
    cases.append(('not a zip nor JSON', junk, 'junk.bin'))

    def ir_file(name, text):
        p = os.path.join(tmp, name)
        open(p, 'w').write(text)
        return p
    cases.append(('malformed JSON', ir_file('bad.json', '[{"op_name": "aten::mm", '), 'bad.json'))
    cases.append(('not a list', ir_file('obj.json', '{"x": 1}'), 'obj.json'))
    cases.append(('no op_name', ir_file('noname.json', '[{"replay_ir": {"list_pos_args": [], "list_kwargs": []}}]'),
                  'op_name'))
    cases.append(('negative dim', ir_file('neg.json', with_shape([-8, 4], strides=[4, 1])), 'neg.json'))
    cases.append(('absurd dim', ir_file('absurd.json', with_shape([1 << 40, 1 << 40], strides=[1 << 40, 1])), 'absurd.json'))
    cases.append(('float dim', ir_file('fdim.json', with_shape([1e30, 4], strides=[4, 1])), 'fdim.json'))
    cases.append(('9 dims', ir_file('nine.json', with_shape([1] * 9)), 'nine.json'))
    cases.append(('unknown dtype', ir_file('dtype.json', with_shape([8, 4], 'c10::Float7', [4, 1])), 'Float7'))
    cases.append(('missing file', os.path.join(tmp, 'nope.zip'), 'nope.zip'))
    # the reader splits the document into entries without a tree: its grammar is still checked everywhere
    cases.append(('no comma between entries', ir_file('comma.json', '[' + json.dumps(MM) + ' ' + json.dumps(MM) + ']'),
                  'not valid JSON'))
    cases.append(('bad member beside the entries', ir_file('member.json', '{"meta": [1,,2], "ops": [' + json.dumps(MM) + ']}'),
                  'not valid JSON (near byte 12)'))
    cases.append(('bad entry', ir_file('entry.json', '[' + json.dumps(MM) + ', {"op_name": tru}]'), 'not valid JSON'))
    cases.append(('trailing text', ir_file('trail.json', good_ir + ' x'), 'text after the document'))
    big = json.loads(json.dumps(MM))
    big['jarvis'] = {'pad': [0] * 400000}
    cases.append(('entry over 1 MiB', ir_file('bigentry.json', json.dumps([MM, big])), 'the limit of one entry'))

    for what, path, needle in cases:
        before = set(os.listdir(tmp))
        p = subprocess.run([rep, path, '--backend', 'cpu', '--no-baseline'], capture_output=True, text=True, cwd=work)
        check(p.returncode == 1, f'{what}: exit {p.returncode} (want 1): {p.stderr.strip()[:300]}')
        first = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ''
        check(os.path.basename(path) in p.stderr, f'{what}: message names the file: {first}')
        check(needle in p.stderr, f'{what}: message says the problem ({needle}): {first}')
        check(os.listdir(work) == [] and set(os.listdir(tmp)) == before, f'{what}: nothing written')
    check(not os.path.exists('/tmp/evil.json'), 'no /tmp/evil.json')

    # an output that cannot be written is refused before the run, naming the path
    p = subprocess.run([rep, full, '--backend', 'cpu',
                        '--benchmark_out', '/nonexistent-dir/x.json'], capture_output=True, text=True, cwd=work)
    check(p.returncode == 1 and '/nonexistent-dir' in p.stderr and 'baseline' not in p.stdout,
          f'unwritable --benchmark_out: {p.returncode} {p.stderr.strip()}')

    # a wrapped list of entries is read; a number-dense IR near the 16 MiB limit is read in bounded memory (one
    # entry's tree at a time: 35 MB peak; before, cJSON's tree of the whole document took 754 MB), measured over
    # the program's own footprint
    ok_list = ir_file('one.json', good_ir)
    wrapped = ir_file('wrapped.json', '{"meta": {"a": [1, 2]}, "ops": [' + json.dumps(MM) + ']}')
    p = subprocess.run([rep, wrapped, '--list'], capture_output=True, text=True, cwd=work)
    check(p.returncode == 0 and 'aten::mm' in p.stdout, f'wrapped list: {p.returncode} {p.stderr[-300:]}')
    dense = json.loads(json.dumps(MM))
    dense['jarvis'] = {'count': 1, 'pad': [0] * 60000}
    text = json.dumps([dense] * 120, separators=(',', ':'))
    check(len(text) > 13 << 20, f'dense IR size {len(text)}')

    def listed_rss(path):
        """exit status, stderr and peak RSS (KiB) of `jarvis-replay PATH --list`"""
        proc = subprocess.Popen([rep, path, '--list'], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=work)
        _, status, ru = os.wait4(proc.pid, 0)
        return os.waitstatus_to_exitcode(status), proc.stderr.read().decode(), ru.ru_maxrss
    # the program's own footprint (a build with the CUDA backend maps cuBLASLt and cuDNN: ~200 MiB) is measured
    # on a one-entry IR and taken off
    rc0, err0, base = listed_rss(ok_list)
    rc, err, peak = listed_rss(ir_file('dense.json', text))
    check(rc0 == 0 and rc == 0, f'dense IR: exit {rc0} / {rc}: {err0[-200:]} {err[-300:]}')
    if not sanitized:
        check(peak - base < 100 * 1024, f'dense IR of {len(text) >> 20} MiB: peak RSS {peak >> 10} MiB, '
              f'{(peak - base) >> 10} MiB over a one-entry IR (limit 100)')

    # an op over --max-bytes is skipped (exit 0); a good package runs
    ok = ir_file('ok.json', good_ir)
    p = subprocess.run([rep, ok, '--backend', 'cpu', '--no-baseline', '--max-bytes', '64'], capture_output=True,
                       text=True, cwd=work)
    check(p.returncode == 0 and 'skipped' in p.stdout, f'--max-bytes skip: {p.returncode} {p.stdout[-300:]}')
    p = subprocess.run([rep, full, '--backend', 'cpu', '--no-baseline', '--time-limit', '0.01'], capture_output=True,
                       text=True, cwd=work)
    check(p.returncode == 0 and '1 verified' in p.stdout, f'good package: {p.returncode} {p.stdout[-300:]} {p.stderr[-300:]}')
    return finish()


if __name__ == '__main__':
    sys.exit(main())
