#!/usr/bin/env python3
"""Outputs under faults (issue 17): jarvis-analyze publishes OUT atomically per run, jarvis-replay renames
each output file into place; what a user sees after a second run, a concurrent run, a killed run, a planted
symbolic link, a bad -o and a full disk.

- second run into the same folder: nothing of the earlier run survives (a stray file planted in it, the
  comparison of an earlier --reference run), and report.html links no comparison this run did not make;
- concurrent runs: while a run holds OUT.lock (the test holds it, then a real slow run does), a second run
  into OUT is refused with exit 1 naming OUT and the lock, and OUT is left as it was;
- killed run (SIGKILL while it writes): OUT is the earlier run, whole; the next run removes the leftovers
  (.OUT.jv-new-*, OUT.lock) and publishes;
- symbolic links planted at every name the old scheme used (NAME.tmp.<pid>) and at OUT.lock: never
  followed (the victim file is unchanged); jarvis-replay's --report and --benchmark_out likewise, and a
  temporary a dead writer left beside its report is removed by the next write;
- -o "" is refused (exit 2), -o '.', '..', an existing file, a symbolic link or a folder of other files (exit 1), and
  nothing is written;
- disk full (a small tmpfs; skipped where it cannot be mounted): exit 1 with a message naming the file,
  the earlier output intact, no temporary left; jarvis-replay --report likewise (the earlier report intact).
Usage: test_output_publish.py JARVIS_ANALYZE JARVIS_REPLAY DATA_DIR
"""
import fcntl
import glob
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck, md_check
from jvcheck import check, finish, run, skip_part  # noqa: E402

ANALYZE, REPLAY, DATA = (os.path.abspath(a) for a in sys.argv[1:4])
TRACE = os.path.join(DATA, 'nv_h200_resnet50_train.json.gz')
REF = os.path.join(DATA, 'nv_h200_encoder_train.json.gz')


def snapshot(root):
    """{relative path: sha256} of every file under root (links recorded as 'link')."""
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            rel = os.path.relpath(p, root)
            if os.path.islink(p):
                out[rel] = 'link'
            else:
                with open(p, 'rb') as fh:
                    out[rel] = hashlib.sha256(fh.read()).hexdigest()
    return out


def same_output(a, b):
    """two snapshots of outputs of the same trace: the same files, the same bytes but for the zip containers
    (perf_report.xlsx, replay_package.zip: they hold the time they were written)"""
    return a.keys() == b.keys() and all(a[k] == b[k] for k in a if not k.endswith(('.xlsx', '.zip')))


def leftovers(parent, name):
    """what a run into parent/name may leave beside it: its private folders and its lock file"""
    return sorted(glob.glob(os.path.join(parent, '.%s.jv-*' % name)) +
                  glob.glob(os.path.join(parent, '%s.lock' % name)) +
                  glob.glob(os.path.join(parent, name, '**', '*.jv-tmp-*'), recursive=True) +
                  glob.glob(os.path.join(parent, name, '**', '*.tmp.*'), recursive=True))


def analyze(out, *extra, **kw):
    return run(ANALYZE, TRACE, '-o', out, '-q', *extra, **kw)


def second_run(tmp):
    out = os.path.join(tmp, 'second')
    p = analyze(out, '--reference', REF)
    check(p.returncode == 0, 'first run (with --reference) exit 0', p.stderr)
    check(os.path.exists(os.path.join(out, 'comparative_analysis_fair.md')), 'the first run wrote the comparison')
    for stray in ('stray.txt', os.path.join('category_data', 'stray.csv')):
        with open(os.path.join(out, stray), 'w') as f:
            f.write('from an earlier run\n')
    p = analyze(out)
    check(p.returncode == 0, 'second run exit 0', p.stderr)
    files = snapshot(out)
    check('stray.txt' not in files and os.path.join('category_data', 'stray.csv') not in files,
          'no stray file of the earlier run survives', sorted(files)[:5])
    check(not any(f.startswith('comparative_analysis') for f in files),
          'the earlier comparison is gone', [f for f in files if f.startswith('comparative')])
    with open(os.path.join(out, 'report.html'), encoding='utf-8') as f:
        html = f.read()
    check('href="comparative_analysis_fair.md"' not in html, 'report.html links no comparison this run did not make')
    check(leftovers(tmp, 'second') == [], 'nothing left beside the output', leftovers(tmp, 'second'))
    # the same output as a run into a fresh folder
    fresh = os.path.join(tmp, 'fresh')
    p = analyze(fresh)
    check(p.returncode == 0 and same_output(snapshot(fresh), files), 'the second run equals a run into a fresh folder')


def wait_for(pattern, proc, seconds=60):
    end = time.time() + seconds
    while time.time() < end and proc.poll() is None:
        if glob.glob(pattern):
            return True
        time.sleep(0.001)
    return bool(glob.glob(pattern))


def slow_trace(tmp):
    """a trace that takes a while to analyse: many copies of one launch and its kernel"""
    path = os.path.join(tmp, 'slow.json')
    ev = []
    for i in range(150000):
        ts = 1000 + i * 100
        ev.append('{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":%d,"dur":50,'
                  '"args":{"External id":%d,"Input Dims":[[64,128],[128,256]],"Input type":["float","float"]}}'
                  % (ts, i + 1))
        ev.append('{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":%d,"dur":5,'
                  '"args":{"External id":%d,"correlation":%d}}' % (ts + 2, i + 1, i + 1))
        ev.append('{"ph":"X","cat":"kernel","name":"sgemm","pid":0,"tid":7,"ts":%d,"dur":12,'
                  '"args":{"External id":%d,"correlation":%d,"stream":7,"device":0}}' % (ts + 10, i + 1, i + 1))
    with open(path, 'w') as f:
        f.write('{"traceEvents":[' + ',\n'.join(ev) + ']}')
    return path


def concurrent(tmp, slow):
    out = os.path.join(tmp, 'busy')
    check(analyze(out).returncode == 0, 'a first run into busy/')
    before = snapshot(out)
    # the test holds the lock
    with open(out + '.lock', 'w') as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)
        p = analyze(out)
        check(p.returncode == 1, 'a run while the lock is held: exit 1', p.returncode, p.stderr)
        check(out in p.stderr and 'another run' in p.stderr and 'busy.lock' in p.stderr,
              'the message names the folder and the lock', p.stderr)
        check(snapshot(out) == before, 'the folder is left as it was')
    os.unlink(out + '.lock')
    # a real slow run holds it
    a = subprocess.Popen([ANALYZE, slow, '-o', out, '-q'], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    seen = wait_for(os.path.join(tmp, '.busy.jv-new-*'), a)
    b = analyze(out)
    a_out, a_err = a.communicate(timeout=600)
    if seen and a.returncode == 0:
        check(b.returncode == 1 and 'another run' in b.stderr, 'a second run during a real run: refused',
              b.returncode, b.stderr)
        check('ops_summary.csv' in ' '.join(snapshot(out)), 'the first run published')
    else:
        skip_part('the slow run ended before the second started (rc %s): %s' % (a.returncode, a_err[:300]))
    check(leftovers(tmp, 'busy') == [], 'nothing left beside busy/', leftovers(tmp, 'busy'))


def killed(tmp, slow):
    out = os.path.join(tmp, 'killed')
    check(analyze(out).returncode == 0, 'a first run into killed/')
    before = snapshot(out)
    a = subprocess.Popen([ANALYZE, slow, '-o', out, '-q'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen = wait_for(os.path.join(tmp, '.killed.jv-new-*'), a)
    a.send_signal(signal.SIGKILL)
    a.wait()
    if not seen or a.returncode != -signal.SIGKILL:
        skip_part('the run ended before it could be killed (rc %s)' % a.returncode)
        return
    check(snapshot(out) == before, 'after a SIGKILL the output is the earlier run, whole')
    check(len(leftovers(tmp, 'killed')) >= 1, 'the killed run left its private folder', leftovers(tmp, 'killed'))
    p = analyze(out)
    check(p.returncode == 0, 'the next run: exit 0', p.stderr)
    check(leftovers(tmp, 'killed') == [], 'the next run removed the leftovers', leftovers(tmp, 'killed'))
    check(same_output(snapshot(out), before), 'and published the same output')


def spawn_with_pid(argv, plant, cwd):
    """forks; the parent learns the child's pid and calls plant(pid) before the child execs argv"""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(w)
        os.read(r, 1)
        os.chdir(cwd)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.execv(argv[0], argv)
    os.close(r)
    plant(pid)
    os.write(w, b'x')
    os.close(w)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def symlinks(tmp):
    victim = os.path.join(tmp, 'victim.txt')
    with open(victim, 'w') as f:
        f.write('precious\n')
    out = os.path.join(tmp, 'linked')
    check(analyze(out).returncode == 0, 'a first run into linked/')
    names = [os.path.relpath(os.path.join(d, f), out) for d, _, fs in os.walk(out) for f in fs]

    def plant(pid):
        for n in names:  # every temporary name of the old scheme, in the output and in a fresh folder
            for root in (out, os.path.join(tmp, 'linked_new')):
                os.makedirs(os.path.dirname(os.path.join(root, n)), exist_ok=True)
                os.symlink(victim, os.path.join(root, '%s.tmp.%d' % (n, pid)))

    rc = spawn_with_pid([ANALYZE, TRACE, '-o', out, '-q'], plant, tmp)
    check(rc == 0, 'a run with links planted at the old temporary names: exit 0', rc)
    with open(victim) as f:
        check(f.read() == 'precious\n', 'the victim of the planted links is unchanged')
    check(not any(os.path.islink(os.path.join(d, f)) for d, _, fs in os.walk(out) for f in fs),
          'the published folder holds no planted link (a fresh folder each run)')
    # a link planted at the lock file is not followed either: the run is refused
    out2 = os.path.join(tmp, 'lockl')
    os.symlink(victim, out2 + '.lock')
    p = analyze(out2)
    check(p.returncode == 1 and 'lockl.lock' in p.stderr, 'a link at OUT.lock: refused, naming it', p.stderr)
    with open(victim) as f:
        check(f.read() == 'precious\n', 'the victim of the lock link is unchanged')
    check(not os.path.exists(out2), 'nothing published')
    # jarvis-replay: --report and --benchmark_out
    ir = os.path.join(tmp, 'ir.json')
    with open(ir, 'w') as f:
        json.dump([{"op_name": "aten::add", "replay_ir": {"list_pos_args": [
            {"arg_name": "self", "arg_type": "Tensor", "value": {"shape": [64], "dtype": "float", "strides": [1]}},
            {"arg_name": "other", "arg_type": "Tensor", "value": {"shape": [64], "dtype": "float", "strides": [1]}}],
            "list_kwargs": []}}], f)
    rdir = os.path.join(tmp, 'replay')
    os.mkdir(rdir)
    dead = subprocess.Popen(['true'])
    dead.wait()
    stale = os.path.join(rdir, 'r.md.jv-tmp-%d-AbC123' % dead.pid)  # what a killed writer leaves
    with open(stale, 'w') as f:
        f.write('half')

    def plant_replay(pid):
        for n in ('r.md', 'b.json'):
            os.symlink(victim, os.path.join(rdir, '%s.tmp.%d' % (n, pid)))
    rc = spawn_with_pid([REPLAY, ir, '--backend', 'cpu', '--no-baseline', '--iterations', '1', '--report',
                         os.path.join(rdir, 'r.md'), '--benchmark_out', os.path.join(rdir, 'b.json')],
                        plant_replay, rdir)
    check(rc == 0, 'jarvis-replay with links planted at the old temporary names: exit 0', rc)
    with open(victim) as f:
        check(f.read() == 'precious\n', 'the victim of the replay links is unchanged')
    check(os.path.isfile(os.path.join(rdir, 'r.md')) and not os.path.islink(os.path.join(rdir, 'r.md')),
          'the report is a file of its own')
    try:
        with open(os.path.join(rdir, 'b.json')) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        doc = {'error': str(e)}
    check('benchmarks' in doc, 'the benchmark JSON is whole', doc.get('error'))
    check(glob.glob(os.path.join(rdir, '*.jv-tmp-*')) == [], 'no replay temporary left (a dead writer\'s removed)',
          glob.glob(os.path.join(rdir, '*.jv-tmp-*')))
    return ir


def bad_outdirs(tmp):
    cwd = os.path.join(tmp, 'cwd')
    os.mkdir(cwd)
    p = run(ANALYZE, TRACE, '-o', '', '-q', cwd=cwd)
    check(p.returncode == 2 and 'needs a name' in p.stderr, '-o "": exit 2 with a message', p.returncode, p.stderr)
    # ('/' is refused by the same check; not run here: a build that regressed would write into the root)
    for o in ('.', '..', 'x/..', '../cwd/.'):
        p = run(ANALYZE, TRACE, '-o', o, '-q', cwd=cwd)
        check(p.returncode == 1 and 'cannot be the output folder' in p.stderr, '-o %s: refused' % o, p.stderr)
    with open(os.path.join(cwd, 'afile'), 'w') as f:
        f.write('x')
    p = run(ANALYZE, TRACE, '-o', 'afile', '-q', cwd=cwd)
    check(p.returncode == 1 and 'afile: exists and is not a folder' in p.stderr, '-o FILE: refused', p.stderr)
    os.symlink(tmp, os.path.join(cwd, 'alink'))
    p = run(ANALYZE, TRACE, '-o', 'alink', '-q', cwd=cwd)
    check(p.returncode == 1 and 'alink: the output folder is a symbolic link' in p.stderr, '-o LINK: refused', p.stderr)
    os.unlink(os.path.join(cwd, 'alink'))
    os.mkdir(os.path.join(cwd, 'mine'))
    with open(os.path.join(cwd, 'mine', 'thesis.tex'), 'w') as f:
        f.write('x')
    p = run(ANALYZE, TRACE, '-o', 'mine', '-q', cwd=cwd)
    check(p.returncode == 1 and 'not an earlier jarvis-analyze output' in p.stderr,
          '-o FOLDER of other files: refused', p.stderr)
    check(sorted(os.listdir(cwd)) == ['afile', 'mine'] and os.listdir(os.path.join(cwd, 'mine')) == ['thesis.tex'],
          'nothing written, nothing removed', sorted(os.listdir(cwd)))


def disk_full(tmp, ir):
    mnt = os.path.join(tmp, 'full')
    os.mkdir(mnt)
    if os.geteuid() != 0 or subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', mnt],
                                           capture_output=True).returncode != 0:
        skip_part('disk full: cannot mount a tmpfs (needs root)')
        return
    try:
        out = os.path.join(mnt, 'out')
        p = analyze(out)
        check(p.returncode == 0, 'a first run onto the small filesystem', p.stderr)
        before = snapshot(out)
        st = os.statvfs(mnt)
        used = (st.f_blocks - st.f_bfree) * st.f_frsize
        # room for the earlier output and half of a new one
        r = subprocess.run(['mount', '-o', 'remount,size=%d' % (used * 3 // 2), mnt], capture_output=True)
        check(r.returncode == 0, 'the filesystem shrinks', r.stderr)
        p = analyze(out)
        check(p.returncode == 1, 'disk full: exit 1', p.returncode, p.stderr)
        check('No space left on device' in p.stderr and out + '/' in p.stderr,
              'the message names the file (under OUT) and the problem', p.stderr)
        check('.jv-new-' not in p.stderr, 'the message names the file the user knows, not the private folder',
              p.stderr)
        check(snapshot(out) == before, 'the earlier output is intact')
        check(leftovers(mnt, 'out') == [], 'no temporary left', leftovers(mnt, 'out'))
        # jarvis-replay: its report onto the full filesystem keeps the earlier report
        report = os.path.join(mnt, 'r.md')
        with open(report, 'w') as f:
            f.write('earlier report\n')
        try:
            with open(os.path.join(mnt, 'filler'), 'wb') as f:
                while True:
                    f.write(b'x' * 4096)
                    f.flush()
        except OSError:
            pass
        p = run(REPLAY, ir, '--backend', 'cpu', '--no-baseline', '--iterations', '1', '--report', report, '-q')
        check(p.returncode == 1 and 'r.md' in p.stderr and 'No space left on device' in p.stderr,
              'jarvis-replay --report on a full disk: exit 1 naming the file', p.returncode, p.stderr)
        with open(report) as f:
            check(f.read() == 'earlier report\n', 'the earlier report is intact')
        check(glob.glob(os.path.join(mnt, '*.jv-tmp-*')) == [], 'no replay temporary left')
    finally:
        subprocess.run(['umount', mnt], capture_output=True)


def main():
    tmp = tempfile.mkdtemp(prefix='jv_publish_')
    try:
        slow = slow_trace(tmp)
        second_run(tmp)
        concurrent(tmp, slow)
        killed(tmp, slow)
        ir = symlinks(tmp)
        bad_outdirs(tmp)
        disk_full(tmp, ir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return finish()


if __name__ == '__main__':
    sys.exit(main())
