"""claims_comparative: the claims check of a comparative fair report (comparative_analysis_fair.md): every
section's numbers recomputed from the target and reference traces (claims_check.py runs it)."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import claims_trace as ct  # noqa: E402
from claims_common import (Checker, HW_TOL, Model, NUM, cells, one_policy, parse_hw, pct, quality_line, ratio,
                           ref_gpu)  # noqa: E402


def check_report(path, T, R, text=None):
    """Checks the report at path (or its text, when given) against the traces T and R (claims_trace.Trace).
    Returns the Checker (its numbers with their status) and the recomputed comparison."""
    if text is None:
        with open(path, encoding='utf-8') as f:
            text = f.read()
    lines = text.split('\n')
    ck = Checker(path, lines)
    hw = parse_hw(lines)
    flag_factor = 1.25
    for l in lines:
        m = re.search(r'Flag: per-call ratio / expected ratio > ' + NUM, l)
        if m:
            flag_factor = float(m.group(1))
    M = Model(T, R, hw[0], hw[1], flag_factor)
    # under one peak policy (datasheet on both sides) a compute-bound or mixed pair may be flagged differently
    hw1 = one_policy(hw)
    M1 = Model(T, R, hw1[0], hw1[1], flag_factor) if hw1 else None
    flag1 = {(id(q.t), id(q.r)): q for q in M1.pairs} if M1 else {}
    sides = (T, R)
    dev = [None, None]

    def pair_by(number, name, dims, types=None):
        """My pair for the report's pair `number` shown as name and dims (a prefix when cut with '…')."""
        dims = (dims or '').rstrip('…')
        cand = [p for p in M.pairs if p.t.name == name and p.t.dims_text.startswith(dims)
                and (types is None or p.t.types_text.startswith(types.rstrip('…')))]
        if not cand:
            return None
        if number is not None and 0 < number <= len(M.pairs) and M.pairs[number - 1] in cand:
            return M.pairs[number - 1]
        return cand[0]

    # pair number -> (name, dims, types) from the detail sections
    details = {}
    for i, l in enumerate(lines):
        m = re.match(r'### Pair (\d+): `([^`]*)` `([^`]*)`', l)
        if m:
            types = None
            for l2 in lines[i + 1:i + 12]:
                m2 = re.match(r'\| Input type \| `([^`]*)`', l2)
                if m2:
                    types = m2.group(1)
            details[int(m.group(1))] = (m.group(2), m.group(3), types)

    def pair_of_link(line):
        m = re.search(r'\(#pair-(\d+)\)', line)
        if not m:
            return None, None
        n = int(m.group(1))
        d = details.get(n)
        return n, (pair_by(n, *d) if d else None)

    sec = None
    cur = None      # the pair of the current detail section or recommendation
    rec_lines = []  # lines of the current recommendation item
    rec_no = 0

    def recommendation(block):
        nonlocal rec_no
        if not block:
            return
        n, p = None, None
        for i in block:
            n2, p2 = pair_of_link(lines[i])
            if n2:
                n, p = n2, p2
        head = block[0]
        m = re.match(r'(\d+)\. \*\*', lines[head])
        title = lines[head]
        if p is None and 'Unmatched GPU time' in title:
            for i in block:
                l = lines[i]
                m2 = re.search(r'Issue\*\*: ' + NUM + r" ms of the target's and " + NUM + r" ms of the reference's.*"
                               r'\(coverage ' + NUM + r' % and ' + NUM + r' %\)', l)
                if m2:
                    mt = sum(q.t.time_us for q in M.pairs)
                    mr = sum(q.r.time_us for q in M.pairs)
                    ck.claim(i, m2.span(1), (T.total_us - mt) / 1e3, 'unmatched target ms')
                    ck.claim(i, m2.span(2), (R.total_us - mr) / 1e3, 'unmatched reference ms')
                    ck.claim(i, m2.span(3), pct(mt, T.total_us), 'coverage target %')
                    ck.claim(i, m2.span(4), pct(mr, R.total_us), 'coverage reference %')
            if m:
                rec_no += 1
                ck.claim(head, m.span(1), rec_no, 'recommendation number', exact=True)
            return
        if p is None and 'No matched op exceeds' in title:
            for i in block:
                m2 = re.search(r'none of the ' + NUM + r' matched pairs.*above ' + NUM + r' ×', lines[i])
                if m2:
                    ck.claim(i, m2.span(1), len(M.pairs), 'matched pairs', exact=True)
                    ck.claim(i, m2.span(2), M.F, 'flag factor')
                    ck.text(i, 'no flagged pair', 'none', 'none' if not M.flagged else '%d flagged' % len(M.flagged))
            if m:
                rec_no += 1
                ck.claim(head, m.span(1), rec_no, 'recommendation number', exact=True)
            return
        if p is None:
            return
        if m:
            rec_no += 1
            # recommendation k is the k-th flagged pair by excess time (ties: any of the tied places)
            rank = {k + 1 for k, q in enumerate(M.by_excess)
                    if abs(q.excess - p.excess) <= 1e-6 * max(1, abs(p.excess))}
            ck.claim(head, m.span(1), rank if p.flag == 1 else None, 'recommendation rank by excess time')
        for i in block:
            l = lines[i]
            m2 = re.search(r'\*\*Issue\*\*: ' + NUM + r' µs per call on .* against ' + NUM + r' µs on .*: ratio '
                           + NUM + r' where the hardware \(\w+-bound\) leads one to expect ' + NUM + r' \(' + NUM
                           + r' × the expectation\)', l)
            if m2:
                ck.claim(i, m2.span(1), p.t_call, 'target µs per call')
                ck.claim(i, m2.span(2), p.r_call, 'reference µs per call')
                ck.claim(i, m2.span(3), p.ratio_call, 'ratio per call')
                ck.claim(i, m2.span(4), p.expected, 'expected ratio')
                ck.claim(i, m2.span(5), p.vs, 'actual / expected')
                mb = re.search(r'the hardware \((\w+)-bound\)', l)
                ck.text(i, 'bound', mb.group(1), p.bound)
            m3 = re.search(r'a slowdown of ' + NUM + r' %', l)
            if m3:
                ck.claim(i, m3.span(1), p.delta if p.question else None, 'slowdown % (kernel-selection question)')
            m4 = re.search(r'would spend ' + NUM + r' ms instead of ' + NUM + r' ms on it, ' + NUM + r' ms \(' + NUM
                           + r" % of the target's GPU kernel time\) less", l)
            if m4:
                ck.claim(i, m4.span(1), (p.t.time_us - p.excess) / 1e3, 'time at the expected ratio ms')
                ck.claim(i, m4.span(2), p.t.time_us / 1e3, 'target time ms')
                ck.claim(i, m4.span(3), p.excess / 1e3, 'projected saving ms')
                ck.claim(i, m4.span(4), pct(p.excess, T.total_us), 'saving % of kernel time')

    for i, l in enumerate(lines):
        s = ck.san[i]
        if l.startswith('## ') or l.startswith('### '):
            if rec_lines:
                recommendation(rec_lines)
                rec_lines = []
            sec = l.strip('# ').strip()
            cur = None
            m = re.match(r'### Pair (\d+): `([^`]*)` `([^`]*)`', l)
            if m:
                cur = pair_by(int(m.group(1)), *details[int(m.group(1))])
                sec = 'pair'
            continue
        if sec == 'Executive summary':
            exec_line(ck, i, l, M, T, R, hw, dev)
        elif sec == 'Largest differences' and l.startswith('| ') and not l.startswith('| Rank'):
            cs = cells(l)
            if len(cs) >= 11:
                n, p = pair_of_link(l)
                if p is None:
                    name = re.search(r'`([^`]*)`', l[cs[1][0]:cs[1][1]])
                    dims = re.search(r'`([^`]*)`', l[cs[2][0]:cs[2][1]])
                    p = pair_by(n, name.group(1) if name else '', dims.group(1) if dims else '')
                if p is not None:
                    vals = [None,
                            None, None, p.t.time_us / 1e3, p.r.time_us / 1e3, p.diff / 1e3, p.ratio_call, p.expected]
                    rk = {k + 1 for k, q in enumerate(M.by_diff) if abs(abs(q.diff) - abs(p.diff)) <= 1e-6}
                    for n_ in ck.cell_nums(i, cs[0]):
                        ck.claim(i, (n_.start, n_.end), rk, 'rank by |difference|')
                    labels = [None, None, None, 'target ms', 'reference ms', 'difference ms', 'ratio per call',
                              'expected ratio']
                    for c in range(3, 8):
                        for n_ in ck.cell_nums(i, cs[c]):
                            ck.claim(i, (n_.start, n_.end), vals[c], labels[c])
                    ck.text(i, 'bound', l[cs[8][0]:cs[8][1]].strip(), p.bound)
                    ck.text(i, 'flag', l[cs[9][0]:cs[9][1]].strip(),
                            {-1: 'unknown', 0: 'no', 1: 'flagged'}[p.flag])
        elif sec == 'Recommendations':
            if re.match(r'\d+\. ', l):
                if rec_lines:
                    recommendation(rec_lines)
                rec_lines = [i]
            elif l.startswith('   ') and rec_lines:
                rec_lines.append(i)
        elif sec == 'pair' and cur is not None:
            detail_line(ck, i, l, cur, M)
            q = flag1.get((id(cur.t), id(cur.r)))
            if q is not None and l.startswith('Matched by the ') and q.flag != cur.flag:
                words = {-1: 'no hardware expectation', 0: 'within the rule', 1: 'flagged'}
                ck.text(i, 'flag under one peak policy (datasheet peaks on both sides: expected %.3f)' % q.expected,
                        words[cur.flag], words[q.flag])
        elif sec and sec.startswith('Trace quality'):
            quality_line(ck, i, l, T if sec.endswith('target') else R, M.mt if sec.endswith('target') else M.mr)
        elif sec == 'Hardware':
            hw_line(ck, i, l, hw)
        elif sec == 'Matching rules':
            for n_ in ck.by_line.get(i, []):
                ck.skip(i, (n_.start, n_.end), 'a constant of the matching rules (definition, not a measurement)')
    if rec_lines:
        recommendation(rec_lines)
    for i, l in enumerate(lines):
        peak_line(ck, i, l, hw)
    large_ops(ck, lines, T)
    # the ratio convention of the opening line
    for i, l in enumerate(lines[:5]):
        m = re.search(r'above ' + NUM + r' the target takes longer', l)
        if m:
            ck.claim(i, m.span(1), 1.0, 'ratio of equal times')
    return ck, M


def peak_line(ck, i, l, hw):
    """The peaks a line states for a side (issue 19 item 3): the "Peak policy:" line and the Confidence lines'
    hardware ratio, each against REFERENCE.md section 5 for that side's GPU (hw: the Hardware table's sides)."""
    side = {'target': 0, 'reference': 1}

    def against(span, k, key, v):
        ref = ref_gpu(hw[k].get('name') if hw[k] else None)
        if ref is None or key not in ref:
            ck.skip(i, span, 'GPU or figure not in REFERENCE.md section 5')
            return
        want = ref[key]
        if isinstance(want, tuple):
            want = min(want, key=lambda x: abs(x - v))
        ck.claim(i, span, want, key + ' (REFERENCE.md)', tol=HW_TOL)

    if l.startswith('Peak policy:'):
        for m in re.finditer(r'(target|reference) [^:;]*: (\w+)\\?_?(\w*) ' + NUM + r' TFLOPS, HBM ' + NUM + ' GB/s', l):
            k = side[m.group(1)]
            spec = (m.group(2) + '_' + m.group(3)) if m.group(3) else m.group(2)
            against(m.span(4), k, spec, float(m.group(4)))
            against(m.span(5), k, 'bw', float(m.group(5)))
        m = re.search(r"(MI\w+)'s max-achievable peaks \((\w+)\\?_(\w+) " + NUM + ' TFLOPS', l)
        if m:
            ref = ref_gpu(m.group(1))
            key = m.group(2) + '_' + m.group(3)
            if ref and isinstance(ref.get(key), tuple) and len(ref[key]) > 1:
                ck.claim(i, m.span(4), ref[key][1], key + ' max-achievable (REFERENCE.md)', tol=HW_TOL)
        return
    if '**Confidence**' not in l:
        return
    m = re.search(r'\(HBM ' + NUM + r' GB/s \(reference\) / ' + NUM + r' GB/s \(target\)\)', l)
    if m:
        against(m.span(1), 1, 'bw', float(m.group(1)))
        against(m.span(2), 0, 'bw', float(m.group(2)))
    m = re.search(r'\((\w+)\\?_(\w+) ' + NUM + r' \(reference\) / ' + NUM + r' \(target\) TFLOPS\)', l)
    if m:
        key = m.group(1) + '_' + m.group(2)
        against(m.span(3), 1, key, float(m.group(3)))
        against(m.span(4), 0, key, float(m.group(4)))


def large_ops(ck, lines, T):
    """"Ops with at least P % of the target's GPU kernel time": the list is every target row at or above P %
    (checked as a set, which checks P), each with its kernel time and share."""
    for i, l in enumerate(lines):
        m = re.match(r"Ops with at least " + NUM + r" % of the target's GPU kernel time:", l)
        if not m:
            continue
        thr = float(m.group(1))
        want = sorted((r.name, r.dims_text) for r in T.rows if pct(r.time_us, T.total_us) >= thr)
        got = []
        for j in range(i + 1, len(lines)):
            lj = lines[j]
            if not lj.startswith('- '):
                if lj.strip():
                    break
                continue
            mj = re.match(r'- `([^`]*)`(?: `([^`]*)`)? \(' + NUM + r' ms, ' + NUM + r' %\)', lj)
            if not mj:
                continue
            name, dims = mj.group(1), mj.group(2) or ''
            got.append((name, dims))
            rows = [r for r in T.rows if r.name == name and r.dims_text == dims]
            if len(rows) == 1:
                ck.claim(j, mj.span(3), rows[0].time_us / 1e3, 'large op target ms')
                ck.claim(j, mj.span(4), pct(rows[0].time_us, T.total_us), 'large op share %')
        ck.claim(i, m.span(1), thr if sorted(got) == want else None, 'the large-op threshold: the listed set')


def exec_line(ck, i, l, M, T, R, hw, dev):
    def row(label, pattern):
        m = re.match(r'\| ' + re.escape(label) + r' \| ' + pattern, l)
        return m

    tl_t, tl_r = T.tl, R.tl
    m = row('HBM bandwidth (roofline)', NUM + r' GB/s \| ' + NUM + r' GB/s \| ' + NUM)
    if m:
        for k, g in ((0, 1), (1, 2)):
            ref = ref_gpu(hw[k].get('name') if hw[k] else None)
            if ref:
                ck.claim(i, m.span(g), ref['bw'], 'HBM GB/s (REFERENCE.md)', tol=HW_TOL)
            else:
                ck.skip(i, m.span(g), 'GPU not in REFERENCE.md section 5')
        ck.claim(i, m.span(3), float(m.group(1)) / float(m.group(2)), 'HBM ratio of the stated bandwidths')
        return
    m = row('GPU kernel time (sum of all ops)', NUM + r' ms \| ' + NUM + r' ms \| ' + NUM)
    if m:
        ck.claim(i, m.span(1), T.total_us / 1e3, 'target kernel time ms')
        ck.claim(i, m.span(2), R.total_us / 1e3, 'reference kernel time ms')
        ck.claim(i, m.span(3), ratio(T.total_us, R.total_us), 'kernel time ratio')
        return
    m = row('GPU timeline total', NUM + r' ms \| ' + NUM + r' ms \| ' + NUM)
    if m:
        ck.claim(i, m.span(1), tl_t['total'] / 1e3, 'target timeline ms')
        ck.claim(i, m.span(2), tl_r['total'] / 1e3, 'reference timeline ms')
        ck.claim(i, m.span(3), ratio(tl_t['total'], tl_r['total']), 'timeline ratio')
        return
    for label, key in (('Computation (share of timeline)', 'computation'), ('Idle (share of timeline)', 'idle'),
                       ('Exposed communication', 'exposed_comm'), ('Exposed memcpy', 'exposed_memcpy')):
        m = row(label, NUM + r' % \| ' + NUM + r' %')
        if m:
            ck.claim(i, m.span(1), pct(tl_t[key], tl_t['total']), 'target ' + key + ' %')
            ck.claim(i, m.span(2), pct(tl_r[key], tl_r['total']), 'reference ' + key + ' %')
            return
    m = re.match(r'\| (GEMM|Convolution|Batch norm|Elementwise|Other) \(share of kernel time\) \| ' + NUM + r' ms \('
                 + NUM + r' %\) \| ' + NUM + r' ms \(' + NUM + r' %\) \| (?:' + NUM + r'|n/a)', l)
    if m:
        cat = m.group(1)
        a = sum(r.time_us for r in T.rows if ct.row_category(r) == cat)
        b = sum(r.time_us for r in R.rows if ct.row_category(r) == cat)
        ck.claim(i, m.span(2), a / 1e3, cat + ' target ms')
        ck.claim(i, m.span(3), pct(a, T.total_us), cat + ' target %')
        ck.claim(i, m.span(4), b / 1e3, cat + ' reference ms')
        ck.claim(i, m.span(5), pct(b, R.total_us), cat + ' reference %')
        if m.group(6) is not None:
            ck.claim(i, m.span(6), ratio(a, b), cat + ' ratio')
        else:
            ck.text(i, cat + ' ratio n/a', 'n/a', 'n/a' if not b > 0 else '%.3f' % ratio(a, b))
        return
    m = row('Ops (unified rows)', NUM + r' \| ' + NUM)
    if m:
        ck.claim(i, m.span(1), len(T.rows), 'target rows', exact=True)
        ck.claim(i, m.span(2), len(R.rows), 'reference rows', exact=True)
        return
    m = row('Matched pairs', NUM + r' \| ' + NUM)
    if m:
        ck.claim(i, m.span(1), len(M.pairs), 'matched pairs', exact=True)
        ck.claim(i, m.span(2), len(M.pairs), 'matched pairs', exact=True)
        return
    m = row('Matching coverage (matched / GPU kernel time)', NUM + r' % \| ' + NUM + r' %')
    if m:
        ck.claim(i, m.span(1), pct(sum(p.t.time_us for p in M.pairs), T.total_us), 'target coverage %')
        ck.claim(i, m.span(2), pct(sum(p.r.time_us for p in M.pairs), R.total_us), 'reference coverage %')
        return
    m = re.match(r'\| Flagged pairs \(per-call ratio > ' + NUM + r' × expected\) \| ' + NUM + r' \(' + NUM
                 + r' ms of target time\)', l)
    if m:
        ck.claim(i, m.span(1), M.F, 'flag factor (the matching rules)')
        ck.claim(i, m.span(2), len(M.flagged), 'flagged pairs', exact=True)
        ck.claim(i, m.span(3), sum(p.t.time_us for p in M.flagged) / 1e3, 'flagged target ms')
        return
    if l.startswith('Of '):
        m = re.search(r'Of ' + NUM + r' matched pairs, ' + NUM + r' take longer.*more than ' + NUM + r'×', l)
        if m:
            ck.claim(i, m.span(1), len(M.pairs), 'matched pairs', exact=True)
            ck.claim(i, m.span(2), len(M.flagged), 'flagged pairs', exact=True)
            ck.claim(i, m.span(3), M.F, 'flag factor')
        m = re.search(r', ' + NUM + r' of them by enough to be a kernel-selection question', l)
        if m:
            ck.claim(i, m.span(1), sum(1 for p in M.pairs if p.question), 'kernel-selection questions', exact=True)
        m = re.search(r'; ' + NUM + r' pairs have no hardware expectation', l)
        if m:
            ck.claim(i, m.span(1), sum(1 for p in M.pairs if p.flag < 0), 'pairs without expectation', exact=True)
        k = 0
        for m in re.finditer(r'`([^`]*)` \(' + NUM + r' ms\)', l):
            if k < len(M.by_diff):
                p = M.by_diff[k]
                ck.text(i, 'largest difference %d op' % (k + 1), m.group(1), p.t.name)
                ok = [q for q in M.by_diff if q.t.name == m.group(1) and abs(abs(q.diff) - abs(p.diff)) <= 1e-6]
                ck.claim(i, m.span(2), (ok[0] if ok else p).diff / 1e3, 'largest difference %d ms' % (k + 1))
            k += 1


def detail_line(ck, i, l, p, M):
    def two(label, pattern):
        return re.match(r'\| ' + re.escape(label) + r' \| ' + pattern + r' \| ' + pattern + r' \|', l)

    m = two('Calls', NUM)
    if m:
        ck.claim(i, m.span(1), p.t.count, 'target calls', exact=True)
        ck.claim(i, m.span(2), p.r.count, 'reference calls', exact=True)
        return
    m = two('Kernel time', NUM + ' ms')
    if m:
        ck.claim(i, m.span(1), p.t.time_us / 1e3, 'target kernel time ms')
        ck.claim(i, m.span(2), p.r.time_us / 1e3, 'reference kernel time ms')
        return
    m = two('Per call', NUM + ' µs')
    if m:
        ck.claim(i, m.span(1), p.t_call, 'target µs per call')
        ck.claim(i, m.span(2), p.r_call, 'reference µs per call')
        return
    m = two('Achieved', NUM + r' TB/s, ' + NUM + r' TFLOPS/s')
    if m:
        ck.claim(i, m.span(1), p.mt['tbs'], 'target TB/s (mean over calls)')
        ck.claim(i, m.span(2), p.mt['tflops'], 'target TFLOPS/s (mean over calls)')
        ck.claim(i, m.span(3), p.mr['tbs'], 'reference TB/s (mean over calls)')
        ck.claim(i, m.span(4), p.mr['tflops'], 'reference TFLOPS/s (mean over calls)')
        return
    if l.startswith('| Achieved |') or l.startswith('| FLOPS/Byte |') or l.startswith('| Pct of roofline (mean) |'):
        cs = cells(l)
        key = {'Achieved': None, 'FLOPS/Byte': 'fpb', 'Pct of roofline (mean)': 'pct'}[l[cs[0][0]:cs[0][1]].strip()]
        for k, side in ((1, p.mt), (2, p.mr)):
            ns = ck.cell_nums(i, cs[k])
            if key is None:
                vals = [side['tbs'], side['tflops']]
            else:
                vals = [side[key]]
            for n_, v in zip(ns, vals):
                ck.claim(i, (n_.start, n_.end), v, '%s %s' % ('target' if k == 1 else 'reference',
                                                              key or 'achieved'))
            if not ns:
                ck.text(i, (key or 'achieved') + ' n/a', 'n/a',
                        'n/a' if all(v != v for v in vals) else ' '.join('%.4g' % v for v in vals))
        return
    m = re.match(r'\| Roofline bound, compute spec \| (\S+), (\S+) \| (\S+), (\S+) \|', l)
    if m:
        ck.text(i, 'target bound', m.group(1).replace('\\_', '_'), p.mt['bound'])
        ck.text(i, 'target spec', m.group(2).replace('\\_', '_'), p.mt['spec'] or 'none')
        ck.text(i, 'reference bound', m.group(3).replace('\\_', '_'), p.mr['bound'])
        ck.text(i, 'reference spec', m.group(4).replace('\\_', '_'), p.mr['spec'] or 'none')
        return
    m = re.match(r'\| Kernels \(largest ' + NUM + r'\) \|', l)
    if m:
        cs = cells(l)
        # the limit shows where a side has more kernels than it lists; else every kernel is listed
        cut = [len(re.findall(r'µs\)', l[c[0]:c[1]])) for c, row in zip(cs[1:3], (p.t, p.r))
               if len(row.kernels()) > len(re.findall(r'µs\)', l[c[0]:c[1]]))]
        if cut:
            ck.claim(i, m.span(1), cut[0], 'kernels listed per side at most')
        else:
            ck.skip(i, m.span(1), 'every kernel of the pair is listed: the limit does not show')
        for k, row in ((1, p.t), (2, p.r)):
            ks = row.kernels()
            cell = l[cs[k][0]:cs[k][1]]
            for m in re.finditer(r'`([^`]*)` \(' + NUM + r' µs\)', cell):
                name = m.group(1).rstrip('…').replace('\\_', '_').replace('\\|', '|')
                hit = [t for n, t in ks if n.startswith(name) or n.replace('\n', ' ').startswith(name)]
                off = cs[k][0]
                ck.claim(i, (off + m.start(2), off + m.end(2)), hit[0] if hit else None, 'kernel µs')
            m = re.search(NUM + r' more', cell)
            if m:
                off = cs[k][0]
                ck.claim(i, (off + m.start(1), off + m.end(1)), max(0, len(ks) - 3), 'more kernels', exact=True)
        return
    if l.startswith('Matched by the '):
        m = re.match(r'Matched by the (\S+) pass', l)
        ck.text(i, 'pass', m.group(1) if m else '', p.how)
        m = re.search(r'Per-call ratio ' + NUM + r' \(delta ' + NUM + r' %, total ratio ' + NUM + r'\)', l)
        if m:
            ck.claim(i, m.span(1), p.ratio_call, 'ratio per call')
            ck.claim(i, m.span(2), p.delta, 'delta %')
            ck.claim(i, m.span(3), p.ratio_total, 'total ratio')
        m = re.search(r'bound: (\w+); expected ratio (?:' + NUM + r'|n/a)', l)
        if m:
            ck.text(i, 'bound', m.group(1), p.bound)
            if m.group(2) is not None:
                ck.claim(i, m.span(2), p.expected, 'expected ratio')
            else:
                ck.text(i, 'expected n/a', 'n/a', 'n/a' if p.expected != p.expected else '%.3f' % p.expected)
        m = re.search(r'expected ratio [\d.]+ \(([^)]*\)[^;]*?)\); actual', l) or \
            re.search(r'expected ratio [\d.]+ \((.*?)\); actual', l)
        if m:
            basis = ck.cell_nums(i, (m.start(1), m.end(1)))
            for n_, v in zip(basis, p.basis_nums):
                ck.claim(i, (n_.start, n_.end), v, 'basis of the expected ratio', tol=1e-4 if v > 50 else None)
        m = re.search(r'actual / expected (?:' + NUM + r'|n/a): ([\w ]+)', l)
        if m:
            if m.group(1) is not None:
                ck.claim(i, m.span(1), p.vs, 'actual / expected')
            ck.text(i, 'flag', m.group(2).strip(),
                    {-1: 'no hardware expectation', 0: 'within the rule', 1: 'flagged'}[p.flag])
        m = re.search(r'The slowdown \(' + NUM + r' %', l)
        if m:
            ck.claim(i, m.span(1), p.delta if p.question else None, 'slowdown % (kernel-selection question)')
        m = re.search(r'threshold ' + NUM + r'×', l)
        if m:
            ck.claim(i, m.span(1), 5 if p.tiny else None, 'tiny batched GEMM threshold')
        m = re.search(r'under ' + NUM + r' % of their roofline \(' + NUM + r' % and ' + NUM + r' %\)', l)
        if m:
            both = p.mt['pct'] < 10 and p.mr['pct'] < 10
            ck.claim(i, m.span(1), 10 if both else None, 'both sides under 10 % of roofline')
            ck.claim(i, m.span(2), p.mt['pct'], 'target % of roofline')
            ck.claim(i, m.span(3), p.mr['pct'], 'reference % of roofline')


def hw_line(ck, i, l, hw):
    cs = cells(l)
    if len(cs) < 3:
        return
    label = l[cs[0][0]:cs[0][1]].strip()
    for k in range(2):
        ref = ref_gpu(hw[k].get('name') if hw[k] else None)
        ns = ck.cell_nums(i, cs[1 + k])
        if not ns:
            continue
        if ref is None:
            for n_ in ns:
                ck.skip(i, (n_.start, n_.end), 'GPU not in REFERENCE.md section 5')
            continue
        if label == 'Source':
            cell = l[cs[1 + k][0]:cs[1 + k][1]]
            off = cs[1 + k][0]
            for pat, key, scale in ((NUM + r' TB/s', 'bw', 1e3), (NUM + r' MB Infinity Cache', 'llc', 1),
                                    (NUM + r' MB L2 per XCD', 'l2_xcd', 1), (r'\(' + NUM + r' bf16 measured',
                                                                             'matrix_bf16', 1),
                                    (NUM + r' GHz', 'ghz', 1)):
                for m in re.finditer(pat, cell):
                    v = ref.get(key)
                    if isinstance(v, tuple):
                        v = min(v, key=lambda x: abs(x - float(m.group(1))))
                    if v is not None:
                        ck.claim(i, (off + m.start(1), off + m.end(1)), v / scale, key + ' (REFERENCE.md)', tol=HW_TOL)
        elif label.startswith('HBM bandwidth'):
            ck.claim(i, (ns[0].start, ns[0].end), ref['bw'], 'HBM GB/s (REFERENCE.md)', tol=HW_TOL)
        elif label.startswith('Memory, last-level cache'):
            ck.claim(i, (ns[0].start, ns[0].end), ref['memory'], 'memory GB (REFERENCE.md)', tol=HW_TOL)
            if 'llc' in ref and len(ns) > 1:
                ck.claim(i, (ns[1].start, ns[1].end), ref['llc'], 'last-level cache MB (REFERENCE.md)', tol=HW_TOL)
        elif ' peak' in label:
            spec = label.split(' peak')[0].strip().replace('\\_', '_')
            if spec in ref:
                for n_ in ns:
                    v = float(n_.text)
                    best = min(ref[spec], key=lambda x: abs(x - v))
                    ck.claim(i, (n_.start, n_.end), best, spec + ' TFLOPS (REFERENCE.md)', tol=HW_TOL)
            else:
                for n_ in ns:
                    ck.skip(i, (n_.start, n_.end), spec + ' not in REFERENCE.md section 5')


# ---------------------------------------------------------------- the standalone report
