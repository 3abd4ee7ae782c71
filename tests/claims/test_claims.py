#!/usr/bin/env python3
"""test_claims: the claims check (claims_check.py) on every fair report of the suite.

For the four H100 / MI300X VF pairs of ../shared/traces (the --reference runs of test_compare.py and
compare_builds.sh), in both directions, jarvis-analyze writes comparative_analysis_fair.md and claims_check
recomputes every number of it from the two traces: none may be wrong and at least MIN_COVERAGE % of them must
be checked. The standalone fair report of every fixture trace is checked the same way (no wrong number but
the KNOWN_WRONG ones, at least MIN_COVERAGE_STANDALONE % checked). Then the check is shown to fail:
- one number of a real report changed (the target's GPU kernel time): claims_check.py exits 1 and names the
  file, the line, the claimed and the recomputed value;
- every checked number of one report changed in turn, by 3 units of its last digit or 1 % (the larger): each is
  reported wrong;
- a report padded with numbers no rule knows: the coverage falls below the minimum and the check fails;
- one number of a standalone report changed, and each of its checked numbers in turn.
Skipped (77) without ../shared/traces.

usage: test_claims.py JARVIS_ANALYZE SHARED_DIR"""
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/: jvcheck
sys.path.insert(0, HERE)
from jvcheck import check, finish, skip  # noqa: E402
import claims_check as cc  # noqa: E402
import claims_trace as ct  # noqa: E402

MIN_COVERAGE = 90.0
# the standalone reports' fusion by parent op, eager-attention and batch-norm bandwidth findings (BN models)
# and the replay selection are not recomputed, nor are rows of ops without a model here: a lower floor
MIN_COVERAGE_STANDALONE = 55.0
# wrong claims the check found in jarvis' reports and left to the issue item that owns them: tolerated (and
# printed), every other wrong number fails the test. Empty since the issue 19 items 3 and 4 fixes (one peak policy;
# recommendations ranked by projected saving): the 12 rank numbers of 5 standalone reports and the flags of 8
# MI300X-target pairs it tolerated before are checked like every other number.
KNOWN_WRONG = set()
PAIRS = ('bert_small_infer', 'nsfw_vit_infer', 'qwen15_05b_infer', 'timesformer_infer')
SIDES = ('amd_mi300xvf_', 'nv_h100_')
PAIR_TRACES = tuple(a + m for m in PAIRS for a in SIDES)
# reports with the exposed-communication advice split by its evidence: DDP ResNet (waiting, the rest with the
# transfer evidence), a DLRM rank (waiting first)
COMM_SAMPLES = ('nv_a100_ddp_resnet_w2_rank0', 'nv_v100_dlrm_w8_rank1')


def mutated(text, n, new):
    lines = text.split('\n')
    l = lines[n.lineno - 1]
    lines[n.lineno - 1] = l[:n.start] + new + l[n.end:]
    return '\n'.join(lines)


def bump(n):
    """The number n changed by 3 units of its last digit or 1 % of its value, whichever is larger."""
    dec = len(n.text.split('.')[1]) if '.' in n.text else 0
    v, unit = float(n.text), 10.0 ** -dec
    d = max(3 * unit, math.ceil(0.01 * abs(v) / unit) * unit)
    return ('%+.*f' if n.text[0] in '+-' else '%.*f') % (dec, v + d)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    exe, shared = sys.argv[1], sys.argv[2]
    traces = os.path.join(shared, 'traces')
    if not os.path.isdir(traces):
        skip('no %s: the fixture traces are needed' % traces)
    tmp = tempfile.mkdtemp(prefix='jv-claims-')
    try:
        run(exe, traces, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return finish()


def run(exe, traces, tmp):
    loaded = {}
    first = None
    totals = [0, 0]
    for m in PAIRS:
        for a, b in (SIDES, SIDES[::-1]):
            tn, rn = a + m, b + m
            tp, rp = (os.path.join(traces, x + '.json.gz') for x in (tn, rn))
            if not (os.path.isfile(tp) and os.path.isfile(rp)):
                check(False, '%s and %s present' % (tp, rp))
                continue
            out = os.path.join(tmp, '%s_vs_%s' % (tn, rn))
            p = subprocess.run([exe, '-q', tp, '--reference', rp, '-o', out], capture_output=True, text=True)
            check(p.returncode == 0, '%s --reference %s: exit 0' % (tn, rn), p.stderr[-400:])
            if p.returncode:
                continue
            for k, path in ((tn, tp), (rn, rp)):
                if k not in loaded:
                    loaded[k] = ct.Trace(path)
            rep = os.path.join(out, 'comparative_analysis_fair.md')
            ck, _ = cc.check_report(rep, loaded[tn], loaded[rn])
            checked, total, wrong, wlabels = cc.summary(ck)
            totals[0] += checked
            totals[1] += total
            cov = 100.0 * checked / total if total else 0.0
            known = [t for t in wlabels if (tn, t[1]) in KNOWN_WRONG]
            wlabels = [t for t in wlabels if (tn, t[1]) not in KNOWN_WRONG]
            print('%s vs %s: %d of %d numbers checked (%.1f %%), %d wrong; %d labels, %d wrong, %d known wrong' %
                  (tn, rn, checked, total, cov, len(wrong), len(ck.text_checks), len(wlabels), len(known)))
            for t in known:
                print('  known wrong %s:%d: %s: claimed %r, recomputed %r' % ((rep,) + t[:4]))
            for n in wrong:
                print('  %s:%d: %s: claimed %s, recomputed %s' % (rep, n.lineno, n.label, n.text, cc.fmt_val(n.value)))
            for t in wlabels:
                print('  %s:%d: %s: claimed %r, recomputed %r' % ((rep,) + t[:4]))
            check(not wrong and not wlabels, '%s vs %s: every checked number and label right' % (tn, rn))
            check(cov >= MIN_COVERAGE, '%s vs %s: coverage %.1f %% >= %.0f %%' % (tn, rn, cov, MIN_COVERAGE))
            if first is None:
                first = (rep, tn, rn, tp, rp, out)
    if totals[1]:
        print('all fair reports: %d of %d numbers checked (%.1f %%)' %
              (totals[0], totals[1], 100.0 * totals[0] / totals[1]))
    standalone(exe, traces, tmp, loaded)
    if first is None:
        return
    rep, tn, rn, tp, rp, out = first
    with open(rep, encoding='utf-8') as f:
        text = f.read()
    script = os.path.join(HERE, 'claims_check.py')

    # one number changed: the script exits 1 and names it
    m = re.search(r'^\| GPU kernel time \(sum of all ops\) \| (\d+\.\d+) ms', text, re.M)
    check(m is not None, 'the fair report has the kernel-time row')
    if m:
        bad = '%.3f' % (float(m.group(1)) + 0.1)
        lineno = text[:m.start()].count('\n') + 1
        wrong_rep = os.path.join(out, 'wrong_fair.md')
        with open(wrong_rep, 'w', encoding='utf-8') as f:
            f.write(text[:m.start(1)] + bad + text[m.end(1):])
        p = subprocess.run([sys.executable, script, wrong_rep, '--target', tp, '--reference', rp],
                           capture_output=True, text=True)
        check(p.returncode == 1, 'a changed number: exit 1', p.returncode, p.stdout[-600:])
        want = '%s:%d: WRONG target kernel time ms: claimed %s, recomputed ' % (wrong_rep, lineno, bad)
        hit = [l[len(want):] for l in p.stdout.splitlines() if l.startswith(want)]
        check(len(hit) == 1 and abs(float(hit[0]) - float(m.group(1))) <= 5e-4,
              'the changed number is named with its line, the claimed and the recomputed value', want,
              p.stdout[-600:])
        check(sum(1 for l in p.stdout.splitlines() if ': WRONG ' in l) == 1, 'only the changed number is wrong',
              p.stdout[-600:])
        # the unchanged report passes through the same command line
        p = subprocess.run([sys.executable, script, rep, '--target', tp, '--reference', rp],
                           capture_output=True, text=True)
        check(p.returncode == 0, 'the real report: exit 0', p.stdout[-600:])

    # every checked number changed in turn is caught
    ck, _ = cc.check_report(rep, ct.Trace(tp), ct.Trace(rp), text)
    cc.summary(ck)
    tried, missed = 0, []
    T, R = ct.Trace(tp), ct.Trace(rp)
    for n in ck.nums:
        if n.status != 'ok':
            continue
        tried += 1
        ck2, _ = cc.check_report(rep, T, R, mutated(text, n, bump(n)))
        _, _, wrong, _ = cc.summary(ck2)
        if not any(w.lineno == n.lineno and w.start == n.start for w in wrong):
            missed.append('%d: %s (%s)' % (n.lineno, n.text, n.label))
    print('%s vs %s: %d checked numbers changed one at a time, %d not caught' % (tn, rn, tried, len(missed)))
    check(tried > 100 and not missed, 'every checked number, changed, is reported wrong', missed[:10])

    # lines the report may gain (a peak-policy line at the top, a confidence per recommendation) leave every
    # checked number checked and right; their numbers are listed as not checked
    ck0, _ = cc.check_report(rep, T, R, text)
    c0, t0, w0, l0 = cc.summary(ck0)
    grown = re.sub(r'\n\n', '\n\nPeak policy: datasheet peaks on both sides (989.4 and 1307.4 TFLOPS bf16, 3350 and '
                   '5300 GB/s).\n\n', text, count=1)
    grown = re.sub(r'(\n   - \*\*Impact\*\*[^\n]*)', r'\1\n   - **Confidence**: medium (2 of 3 signals, 10 % margin)', grown)
    ck1, _ = cc.check_report(rep, T, R, grown)
    c1, t1, w1, l1 = cc.summary(ck1)
    nrec = len(re.findall(r'\n   - \*\*Impact\*\*', text))
    check(c1 == c0 and not w1 and len(l1) == len(l0) and t1 == t0 + 4 + 3 * nrec,
          'added policy and confidence lines: the same numbers checked, their own listed as not checked',
          (c0, t0), (c1, t1), nrec)

    # numbers no rule knows pull the coverage under the minimum: the check cannot pass by checking nothing
    padded = text + '\n## Appendix 2\n\n' + '\n'.join('| Mystery %d | 1.5 | 2.5 |' % k for k in range(150)) + '\n'
    pad_rep = os.path.join(out, 'padded_fair.md')
    with open(pad_rep, 'w', encoding='utf-8') as f:
        f.write(padded)
    p = subprocess.run([sys.executable, script, pad_rep, '--target', tp, '--reference', rp],
                       capture_output=True, text=True)
    check(p.returncode == 1 and 'below the minimum' in p.stdout, 'unknown numbers: coverage below the minimum, exit 1',
          p.returncode, p.stdout[-400:])


def in_turn(rep, tn, loaded, heading=None):
    """Every checked number of standalone report rep (or, with heading, of the recommendations whose heading
    matches it), changed one at a time, must be reported wrong."""
    with open(rep, encoding='utf-8') as f:
        text = f.read()
    lines = text.split('\n')
    ck = cc.check_standalone(rep, loaded[tn], text)
    cc.summary(ck)
    tried, missed = 0, []
    for n in ck.nums:
        if n.status != 'ok':
            continue
        if heading is not None:
            h = next((lines[k] for k in range(n.lineno - 1, -1, -1) if lines[k].startswith('#')), '')
            if not re.match(heading, h):
                continue
        tried += 1
        ck2 = cc.check_standalone(rep, loaded[tn], mutated(text, n, bump(n)))
        _, _, wrong, _ = cc.summary(ck2)
        if not any(w.lineno == n.lineno and w.start == n.start for w in wrong):
            missed.append('%d: %s (%s)' % (n.lineno, n.text, n.label))
    print('%s standalone%s: %d checked numbers changed one at a time, %d not caught' %
          (tn, ' (communication advice)' if heading else '', tried, len(missed)))
    check(tried > (20 if heading else 50) and not missed, '%s: every checked number, changed, is reported wrong' % tn,
          missed[:10])


def standalone(exe, traces, tmp, loaded):
    """The standalone fair report of every fixture trace: no wrong number but the known ones, coverage above its
    floor; one report's checked numbers changed in turn are all caught."""
    totals = [0, 0]
    sample = None
    names = sorted(f for f in os.listdir(traces) if f.endswith('.json') or f.endswith('.json.gz'))
    check(len(names) >= 8, 'fixture traces found', len(names))
    for f in names:
        tn = f[:-len('.json.gz')] if f.endswith('.gz') else f[:-len('.json')]
        tp = os.path.join(traces, f)
        out = os.path.join(tmp, 'standalone_' + tn)
        p = subprocess.run([exe, '-q', tp, '-o', out], capture_output=True, text=True)
        check(p.returncode == 0, '%s: exit 0' % tn, p.stderr[-400:])
        if p.returncode:
            continue
        if tn not in loaded:
            loaded[tn] = ct.Trace(tp)
        rep = os.path.join(out, 'standalone_analysis_fair.md')
        ck = cc.check_standalone(rep, loaded[tn])
        checked, total, wrong, wlabels = cc.summary(ck)
        totals[0] += checked
        totals[1] += total
        cov = 100.0 * checked / total if total else 0.0
        known = [n for n in wrong if (tn, n.label) in KNOWN_WRONG]
        wrong = [n for n in wrong if (tn, n.label) not in KNOWN_WRONG]
        print('%s standalone: %d of %d numbers checked (%.1f %%), %d wrong, %d known wrong; %d labels, %d wrong'
              % (tn, checked, total, cov, len(wrong), len(known), len(ck.text_checks), len(wlabels)))
        for n in known:
            print('  known wrong %s:%d: %s: claimed %s, recomputed %s' %
                  (rep, n.lineno, n.label, n.text, cc.fmt_val(n.value)))
        for n in wrong:
            print('  %s:%d: %s: claimed %s, recomputed %s' % (rep, n.lineno, n.label, n.text, cc.fmt_val(n.value)))
        for t in wlabels:
            print('  %s:%d: %s: claimed %r, recomputed %r' % ((rep,) + t[:4]))
        check(not wrong and not wlabels, '%s standalone: every checked number and label right' % tn)
        check(cov >= MIN_COVERAGE_STANDALONE, '%s standalone: coverage %.1f %% >= %.0f %%' %
              (tn, cov, MIN_COVERAGE_STANDALONE))
        if sample is None and tn in PAIR_TRACES:
            sample = (rep, tn)
    if totals[1]:
        print('all standalone reports: %d of %d numbers checked (%.1f %%)' %
              (totals[0], totals[1], 100.0 * totals[0] / totals[1]))
    # the exposed-communication advice (DDP buffer broadcasts, waiting for other ranks, the rest): its numbers
    # changed one at a time too, on the reports that carry it
    for tn in COMM_SAMPLES:
        rep = os.path.join(tmp, 'standalone_' + tn, 'standalone_analysis_fair.md')
        if tn in loaded and os.path.exists(rep):
            in_turn(rep, tn, loaded, r'### \d+\. (Exposed communication|Collectives waiting|DDP buffer)')
    if sample is None:
        return
    rep, tn = sample
    with open(rep, encoding='utf-8') as f:
        text = f.read()
    in_turn(rep, tn, loaded)
    # through the command line: one number changed, exit 1
    m = re.search(r'^\| GPU timeline span \| (\d+\.\d+) ms', text, re.M)
    tp = [os.path.join(traces, f) for f in names if f.startswith(tn + '.json')][0]
    check(m is not None, 'the standalone report has the timeline row')
    if m:
        bad = '%.3f' % (float(m.group(1)) * 1.5)
        wrong_rep = rep + '.wrong.md'
        with open(wrong_rep, 'w', encoding='utf-8') as f:
            f.write(text[:m.start(1)] + bad + text[m.end(1):])
        p = subprocess.run([sys.executable, os.path.join(HERE, 'claims_check.py'), wrong_rep, '--target', tp,
                            '--min-coverage', str(MIN_COVERAGE_STANDALONE)],
                           capture_output=True, text=True)
        lineno = text[:m.start()].count('\n') + 1
        check(p.returncode == 1 and ('%s:%d: WRONG timeline span ms: claimed %s' % (wrong_rep, lineno, bad))
              in p.stdout, 'standalone: a changed number: exit 1, named', p.returncode, p.stdout[-500:])


if __name__ == '__main__':
    sys.exit(main())
