#!/usr/bin/env python3
"""claims_check: recomputes every number of a fair report of jarvis (comparative or standalone) from the traces.

    claims_check.py REPORT.md --target TARGET_TRACE [--reference REF_TRACE] [--min-coverage P] [-v]

REPORT.md is `comparative_analysis_fair.md` written by `jarvis-analyze TARGET --reference REF -o OUT` (both
traces needed), or `standalone_analysis_fair.md` of `jarvis-analyze TRACE -o OUT` (--target alone). The
script reads the traces itself (claims_trace.py, Python 3 standard library only; nothing of jarvis is
imported, and none of jarvis' CSV or xlsx outputs is read) and recomputes each number of the report from its
definition: GPU timeline shares, kernel time per op row and per category, call counts, achieved TB/s and
TFLOP/s from the recorded shapes and the perf-model formulas of REFERENCE.md section 2, the op matching and
per-pair ratios, expected ratios from the hardware numbers the report states, flags, rankings and projected
savings. The hardware numbers themselves are compared with REFERENCE.md section 5.

Every number of the report (tables and prose; code spans, link targets and pair / section numbers are names,
not numbers) is either checked or listed as "not checked" with the reason. A checked number passes when it
differs from the recomputed value by at most half a unit of its last printed digit plus 0.1 % of the value
(hardware figures: 0.1 % of REFERENCE.md's rounded value). Exit status: 0 when every checked number passes and
at least --min-coverage % of the numbers were checked; 1 otherwise (each wrong number is listed with file,
line, claimed and recomputed value); 2 on bad usage or an unreadable input. --min-coverage defaults to 90 for
a comparative report and 55 for a standalone one (its fusion-by-parent, eager-attention and batch-norm
bandwidth findings are not recomputed). -v lists every number not checked with its reason.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import claims_trace as ct  # noqa: E402
from claims_common import fmt_val  # noqa: E402
from claims_comparative import check_report  # noqa: E402
from claims_standalone import check_standalone  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description='Recompute the numbers of a jarvis comparative fair report.')
    ap.add_argument('report')
    ap.add_argument('--target', required=True)
    ap.add_argument('--reference', help='the reference trace (comparative reports)')
    ap.add_argument('--min-coverage', type=float, default=None,
                    help='the %% of numbers that must be checked (default 90 for a comparative report, 55 for a '
                         'standalone one)')
    ap.add_argument('-v', '--verbose', action='store_true')
    a = ap.parse_args(argv)
    try:
        with open(a.report, encoding='utf-8') as f:
            text = f.read()
        if text.lstrip().startswith('<a id="top"></a>') or '# Standalone analysis' in text.split('\n## ')[0]:
            ck = check_standalone(a.report, ct.Trace(a.target), text)
            if a.min_coverage is None:
                a.min_coverage = 55.0
        elif a.reference:
            ck, _ = check_report(a.report, ct.Trace(a.target), ct.Trace(a.reference), text)
        else:
            print('claims_check: %s: a comparative report needs --reference' % a.report, file=sys.stderr)
            return 2
    except (OSError, ValueError, KeyError) as e:
        print('claims_check: %s: %s' % (a.report, e), file=sys.stderr)
        return 2
    return report(ck, a.report, 90.0 if a.min_coverage is None else a.min_coverage, a.verbose)


def summary(ck):
    """(checked, total, wrong numbers, wrong labels) of a finished check."""
    for n in ck.nums:
        if n.status is None:
            n.status = 'unchecked'
            n.reason = 'no rule for this number'
    wrong = [n for n in ck.nums if n.status == 'wrong']
    checked = sum(1 for n in ck.nums if n.status in ('ok', 'wrong'))
    return checked, len(ck.nums), wrong, [t for t in ck.text_checks if not t[4]]


def report(ck, path, min_cov, verbose):
    """Prints the wrong numbers and labels, the numbers not checked and the coverage; the exit status."""
    checked, total, wrong, twrong = summary(ck)
    un = [n for n in ck.nums if n.status == 'unchecked']
    for n in wrong:
        print('%s:%d: WRONG %s: claimed %s, recomputed %s' % (path, n.lineno, n.label, n.text, fmt_val(n.value)))
    for t in twrong:
        print('%s:%d: WRONG %s: claimed %r, recomputed %r' % (path, t[0], t[1], t[2], t[3]))
    for n in un:
        if verbose:
            print('%s:%d: not checked: %s (%s)' % (path, n.lineno, n.text, n.reason))
    reasons = {}
    for n in un:
        reasons[n.reason] = reasons.get(n.reason, 0) + 1
    for r, c in sorted(reasons.items(), key=lambda x: -x[1]):
        print('%s: not checked: %d number(s): %s' % (path, c, r))
    cov = 100.0 * checked / total if total else 0.0
    print('%s: %d of %d numbers checked (%.1f %%), %d wrong; %d of %d labels checked, %d wrong' %
          (path, checked, total, cov, len(wrong), len(ck.text_checks) - len(twrong), len(ck.text_checks), len(twrong)))
    if cov < min_cov:
        print('%s: coverage %.1f %% is below the minimum %.1f %%' % (path, cov, min_cov))
    return 1 if wrong or twrong or cov < min_cov or not total else 0


if __name__ == '__main__':
    sys.exit(main())
