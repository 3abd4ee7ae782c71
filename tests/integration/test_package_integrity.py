#!/usr/bin/env python3
"""test_package_integrity: the replay package's manifest lists every other member's size and SHA-256 and
jarvis-replay checks them (issue 17); --time-limit is honoured on the CPU backend.

usage: test_package_integrity.py PATH/TO/jarvis-analyze PATH/TO/jarvis-replay EXAMPLE_TRACE [--sanitized]

The package is made by jarvis-analyze from the bundled example; tampered copies are written with Python's
zipfile. --sanitized (an ASan build) skips the wall-time bound of the --time-limit check.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck, md_check
from jvcheck import check, finish  # noqa: E402

ANALYZE, REPLAY, EXAMPLE = (os.path.abspath(a) for a in sys.argv[1:4])
SANITIZED = '--sanitized' in sys.argv[4:]
T = tempfile.mkdtemp(prefix='jv_pkg_integrity.')
OUT = os.path.join(T, 'out')

p = subprocess.run([ANALYZE, EXAMPLE, '-o', OUT, '-q'], capture_output=True, text=True)
if not check(p.returncode == 0, 'jarvis-analyze on the example', p.returncode, p.stderr[-400:]):
    sys.exit(finish())
PKG = os.path.join(OUT, 'replay_package.zip')
with zipfile.ZipFile(PKG) as z:
    members = {n: z.read(n) for n in z.namelist()}
man = json.loads(members['manifest.json'])
listed = man.get('members', {})
check(sorted(listed) == sorted(n for n in members if n != 'manifest.json'),
      'the manifest lists every other member', sorted(listed))
for name, entry in listed.items():
    check(entry.get('bytes') == len(members[name]) and entry.get('sha256') == hashlib.sha256(members[name]).hexdigest(),
          f'{name}: size and SHA-256 in the manifest are right', entry)


def replay(pkg, *args):
    p = subprocess.run([REPLAY, pkg, *args], capture_output=True, text=True, timeout=600)
    check(not any(w in p.stderr for w in ('AddressSanitizer', 'LeakSanitizer', 'runtime error:')),
          f'{os.path.basename(pkg)} {args[:1]}: no sanitizer report', p.stderr[-600:])
    return p


p = replay(PKG, '--list')
check(p.returncode == 0, 'the package as written: --list exits 0', p.returncode, p.stderr[-400:])
# the example's GEMM (the small op the timing checks replay), by name: its index follows the package's order
GEMM = next((ln.split()[0] for ln in p.stdout.splitlines() if 'aten::addmm' in ln), '0')


def repack(name, changes, drop=()):
    """a copy of the package with members replaced (changes: name -> bytes) or left out"""
    path = os.path.join(T, name + '.zip')
    with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as z:
        for n, data in members.items():
            if n not in drop:
                z.writestr(n, changes.get(n, data))
    return path


ir = members['replay_ir.json']
i = ir.index(b'"count":') + len(b'"count":')
while not ir[i:i + 1].isdigit():
    i += 1
tampered_ir = ir[:i] + (b'7' if ir[i:i + 1] != b'7' else b'8') + ir[i + 1:]  # one digit of one count
cases = [('ir_digit', {'replay_ir.json': tampered_ir}, (), "member 'replay_ir.json' does not match manifest.json"),
         ('ir_longer', {'replay_ir.json': ir + b'\n'}, (), "member 'replay_ir.json' does not match manifest.json"),
         ('readme', {'README.md': members['README.md'].replace(b'jarvis', b'Jarvis', 1)}, (),
          "member 'README.md' does not match manifest.json"),
         ('readme_gone', {}, ('README.md',), "no member 'README.md'"),
         ('repro_edited', {'reproduce.md': members['reproduce.md'].replace(b'## op 0', b'## op 00', 1)}, (),
          "member 'reproduce.md' does not match manifest.json"),
         ('bad_entry', {'manifest.json': json.dumps(dict(man, members={'README.md': {'sha256': 'x'}})).encode()}, (),
          "member 'README.md' has no \"bytes\" and 64-digit \"sha256\"")]
for name, changes, drop, want in cases:
    path = repack(name, changes, drop)
    for args in (('--list',), ('--backend', 'cpu', '--no-baseline', '--op', GEMM, '--iterations', '1')):
        p = replay(path, *args)
        check(p.returncode == 1, f'{name} {args[0]}: exit 1', p.returncode, p.stderr[-300:])
        check(path in p.stderr and want in p.stderr, f'{name} {args[0]}: the error names the package and the member',
              want, p.stderr[-400:])
# a package made before the manifest listed its members, or by hand without a manifest, is still read, with a
# warning that its contents cannot be checked; the package as written and a bare IR file get no such warning
WARN = 'lists no sizes and SHA-256 of its members'
old = dict(man)
old.pop('members', None)
for name, changes, drop in (('no_members', {'manifest.json': json.dumps(old).encode()}, ()),
                            ('no_manifest', {}, ('manifest.json',))):
    path = repack(name, changes, drop)
    p = replay(path, '--list')
    check(p.returncode == 0, f'{name}: read', p.returncode, p.stderr[-300:])
    check(WARN in p.stderr and path in p.stderr, f'{name}: a warning naming the package', p.stderr[-300:])
p = replay(PKG, '--list')
check(WARN not in p.stderr, 'the package as written: no warning', p.stderr[-300:])
bare_ir = os.path.join(T, 'bare_ir.json')
with open(bare_ir, 'wb') as f:
    f.write(members['replay_ir.json'])
p = replay(bare_ir, '--list')
check(p.returncode == 0 and WARN not in p.stderr, 'a bare IR file: read, no warning', p.returncode, p.stderr[-300:])

# the IR size limit (16 MiB), as a package member and as a bare file
big = b'[' + b','.join([b'[0,0,0,0,0,0,0,0]'] * 1000000) + b']'  # 18 MB of number-dense JSON
bare = os.path.join(T, 'big_ir.json')
with open(bare, 'wb') as f:
    f.write(big)
for path in (bare, repack('big_ir', {'replay_ir.json': big})):
    p = replay(path, '--list')
    check(p.returncode == 1 and path in p.stderr and '16 MiB' in p.stderr and 'limit' in p.stderr,
          f'{os.path.basename(path)}: an IR over 16 MiB is refused naming the file and the limit', p.returncode,
          p.stderr[-300:])

# --time-limit on the CPU backend: sampling of the small GEMM stops at the limit
for limit in (0.05, 0.4):
    bench = os.path.join(T, 'bench_%g.json' % limit)
    t0 = time.monotonic()
    p = replay(PKG, '--backend', 'cpu', '--no-baseline', '--op', GEMM, '--cache', 'hot', '--time-limit', str(limit),
               '--benchmark_out', bench, '-q')
    wall = time.monotonic() - t0
    if not check(p.returncode == 0, f'--time-limit {limit}: exit 0', p.returncode, p.stderr[-300:]):
        continue
    runs = [b for b in json.load(open(bench))['benchmarks'] if 'error_occurred' not in b]
    check(len(runs) >= 1, f'--time-limit {limit}: a timed entry', len(runs))
    for b in runs:
        measured = b['iterations'] * b['real_time'] * {'ns': 1e-9, 'us': 1e-6, 'ms': 1e-3}[b.get('time_unit', 'ns')]
        # the loop stops once the measured time reaches the limit: at most one sample (>= 100 us of runs) past it,
        # plus 50 ms for a sample the scheduler stretched on a loaded machine (0.084 s at 0.05 under load 18);
        # the default sampling, with no limit, runs for seconds
        check(measured <= limit * 1.25 + 0.05, f'--time-limit {limit}: {b["name"]}: {measured:.3f} s measured',
              b['iterations'], b['real_time'])
    if not SANITIZED:
        check(wall < 4 * limit + 5, f'--time-limit {limit}: the command ends within 4x the limit (+5 s to start)',
              round(wall, 2))

shutil.rmtree(T, ignore_errors=True)
sys.exit(finish())
