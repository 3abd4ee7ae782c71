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
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import claims_trace as ct  # noqa: E402

REL_TOL = 1e-3     # 0.1 % of the value, on top of half a unit of the last printed digit
HW_TOL = 1e-3      # hardware figures against REFERENCE.md's rounded table
NUM = r'([+-]?\d+(?:\.\d+)?)'
NUM_RE = re.compile(r'(?<![\w.#-])[+-]?\d+(?:\.\d+)?(?![\w])')

# REFERENCE.md section 5 (datasheet; "measured" the max-achievable figure where the table gives one)
REF_HW = {
    'MI300X': {'bw': 5300, 'memory': 192, 'llc': 256, 'matrix_bf16': (1307, 708), 'l2_xcd': 4, 'ghz': 1.2},
    'MI325X': {'bw': 6000, 'memory': 256, 'matrix_bf16': (1307, 708)},
    'H200': {'bw': 4800, 'memory': 141, 'llc': 60, 'matrix_bf16': (989,)},
    'H100 SXM': {'bw': 3350, 'memory': 80, 'llc': 50, 'matrix_bf16': (989,)},
    'A100 80GB': {'bw': 2000, 'memory': 80, 'llc': 40, 'matrix_bf16': (312,)},
}


def fmt_val(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return 'n/a'
    if isinstance(v, (set, frozenset, tuple, list)):
        return ' or '.join(str(x) for x in sorted(v))
    return '%.6g' % v


class Num:
    """One number printed in the report."""

    def __init__(self, lineno, start, end, text):
        self.lineno, self.start, self.end, self.text = lineno, start, end, text
        self.status = None   # 'ok', 'wrong', 'unchecked'
        self.label = ''
        self.value = None
        self.reason = ''


def sanitize(line):
    """The line with its names blanked (same length): code spans, link targets, HTML tags, pair links and
    pair headings hold numbers that name things rather than measure them."""
    s = re.sub(r'`[^`]*`', lambda m: ' ' * len(m.group()), line)
    s = re.sub(r'\[(pair|Detail) ?\d*\]', lambda m: ' ' * len(m.group()), s, flags=re.I)
    s = re.sub(r'\]\([^)]*\)', lambda m: ' ' * len(m.group()), s)
    s = re.sub(r'<[^>]*>', lambda m: ' ' * len(m.group()), s)
    s = re.sub(r'^### Pair \d+', lambda m: ' ' * len(m.group()), s)
    return s


def cells(line):
    """(start, end) of each table cell of a markdown row, outside code spans."""
    out, inside, last = [], False, None
    for i, ch in enumerate(line):
        if ch == '`':
            inside = not inside
        elif ch == '|' and not inside:
            if last is not None:
                out.append((last + 1, i))
            last = i
    return out


# ---------------------------------------------------------------- matching (the report's rules, written again)

CANON = {
    'aten::cudnn_convolution': 'conv', 'aten::miopen_convolution': 'conv',
    'aten::cudnn_batch_norm': 'bn', 'aten::miopen_batch_norm': 'bn', 'aten::native_batch_norm': 'bn',
    'aten::_scaled_dot_product_flash_attention': 'sdpa', 'aten::_scaled_dot_product_efficient_attention': 'sdpa',
    'aten::_scaled_dot_product_cudnn_attention': 'sdpa',
    'cudaLaunchKernel': 'launch', 'hipLaunchKernel': 'launch', 'cudaGraphLaunch': 'graph', 'hipGraphLaunch': 'graph',
    'cuLaunchKernel': 'modlaunch', 'hipModuleLaunchKernel': 'modlaunch', 'hipExtModuleLaunchKernel': 'modlaunch',
}
# compared arguments of the renamed families: conv input and weight, batch norm's five tensors, q k v
CANON_ARGS = {'conv': 2, 'bn': 5, 'sdpa': 3}


def canon(name):
    return CANON.get(name, name)


def cmp_dims(r):
    c = canon(r.op_name)
    d = r.dims
    if c in CANON_ARGS and d is not None and r.op_name != c:
        d = d[:CANON_ARGS[c]]
    return repr(d)


class Pair:
    def __init__(self, t, r, how):
        self.t, self.r, self.how = t, r, how


def match(T, R):
    """Pairs of rows in passes signature, dims, name+count, synthetic."""
    tfree = [r for r in T.rows]
    rfree = [r for r in R.rows]
    pairs = []

    def run(how, key):
        groups_t, groups_r = {}, {}
        for r in tfree:
            k = key(r)
            if k is not None:
                groups_t.setdefault(k, []).append(r)
        for r in rfree:
            k = key(r)
            if k is not None:
                groups_r.setdefault(k, []).append(r)
        for k, ts in groups_t.items():
            rs = groups_r.get(k)
            if not rs:
                continue
            if how == 'synthetic' and (len(ts) != 1 or len(rs) != 1):
                continue
            used = set()
            done = set()
            for t in ts:  # equal call counts first
                for j, r in enumerate(rs):
                    if j not in used and r.count == t.count:
                        used.add(j)
                        done.add(id(t))
                        pairs.append(Pair(t, r, how))
                        break
            rest_r = [r for j, r in enumerate(rs) if j not in used]
            rest_t = [t for t in ts if id(t) not in done]
            for t, r in zip(rest_t, rest_r):
                pairs.append(Pair(t, r, how))
        paired_t = {id(p.t) for p in pairs}
        paired_r = {id(p.r) for p in pairs}
        tfree[:] = [r for r in tfree if id(r) not in paired_t]
        rfree[:] = [r for r in rfree if id(r) not in paired_r]

    def sig(r):
        if r.synthetic:
            return None
        return (canon(r.op_name), cmp_dims(r), repr(r.types), r.key[3], repr(r.concrete))

    def dims(r):
        if r.synthetic:
            return None
        return (canon(r.op_name), cmp_dims(r))

    run('signature', sig)
    run('dims', dims)
    run('name+count', lambda r: None if r.synthetic or r.dims else (canon(r.op_name), r.count))
    run('synthetic', lambda r: (canon(r.op_name), repr(r.dims)) if r.synthetic else None)
    order = {id(r): i for i, r in enumerate(T.rows)}
    pairs.sort(key=lambda p: order[id(p.t)])
    return pairs


# ---------------------------------------------------------------- the recomputed comparison

class Model:
    def __init__(self, T, R, hw_t, hw_r, flag_factor):
        self.T, self.R, self.hw_t, self.hw_r, self.F = T, R, hw_t, hw_r, flag_factor
        self.mt = {id(r): T.row_metrics(r, hw_t) for r in T.rows}
        self.mr = {id(r): R.row_metrics(r, hw_r) for r in R.rows}
        self.pairs = match(T, R)
        for p in self.pairs:
            self.metrics(p)
        self.by_diff = sorted(self.pairs, key=lambda p: -abs(p.diff))
        self.flagged = [p for p in self.pairs if p.flag == 1]
        self.by_excess = sorted(self.flagged, key=lambda p: -p.excess)

    def metrics(self, p):
        x, y = p.t, p.r
        mx, my = self.mt[id(x)], self.mr[id(y)]
        p.mt, p.mr = mx, my
        p.t_call = x.time_us / x.count
        p.r_call = y.time_us / y.count
        p.ratio_call = p.t_call / p.r_call if p.r_call > 0 else math.nan
        p.ratio_total = x.time_us / y.time_us if y.time_us > 0 else math.nan
        p.delta = (p.ratio_call - 1) * 100
        p.diff = x.time_us - y.time_us
        bt = {'MEMORY_BOUND': 'memory', 'COMPUTE_BOUND': 'compute'}.get(mx['bound'], 'unknown')
        br = {'MEMORY_BOUND': 'memory', 'COMPUTE_BOUND': 'compute'}.get(my['bound'], 'unknown')
        if not self.hw_t or not self.hw_r or 'unknown' in (bt, br):
            p.bound = 'unknown'
        else:
            p.bound = bt if bt == br else 'mixed'
        p.expected = math.nan
        p.basis_nums = []
        wb = x.perf.bytes / y.perf.bytes if x.perf and y.perf and x.perf.bytes > 0 and y.perf.bytes > 0 else 1.0
        wf = x.perf.flops / y.perf.flops if x.perf and y.perf and x.perf.flops > 0 and y.perf.flops > 0 else 1.0
        if p.bound == 'memory':
            p.expected = self.hw_r['bw'] / self.hw_t['bw'] * wb
            p.basis_nums = [self.hw_r['bw'], self.hw_t['bw']] + ([wb] if wb != 1.0 else [])
        elif p.bound == 'compute':
            pr, pt = self.hw_r['peaks'].get(my['spec']), self.hw_t['peaks'].get(mx['spec'])
            if pr and pt:
                p.expected = pr / pt * wf
                p.basis_nums = [pr, pt] + ([wf] if wf != 1.0 else [])
        elif p.bound == 'mixed':
            p.expected = mx['roof'] / my['roof']
            p.basis_nums = [mx['roof'], my['roof']]
        p.vs = p.ratio_call / p.expected if p.expected == p.expected else math.nan
        p.flag = -1 if p.vs != p.vs else int(p.vs > self.F)
        bg = ('aten::bmm', 'aten::baddbmm')
        p.tiny = x.op_name in bg and y.op_name in bg and (p.t_call < 10 or p.r_call < 10)
        p.question = p.flag == 1 and (p.ratio_call > 5 if p.tiny else p.ratio_call > 2)
        p.excess = x.time_us - p.expected * p.r_call * x.count if p.flag >= 0 else math.nan


# ---------------------------------------------------------------- the report

class Checker:
    def __init__(self, path, lines):
        self.path = path
        self.lines = lines
        self.san = [sanitize(l) for l in lines]
        self.nums = []
        self.by_line = {}
        for i, s in enumerate(self.san):
            for m in NUM_RE.finditer(s):
                n = Num(i + 1, m.start(), m.end(), m.group())
                self.nums.append(n)
                self.by_line.setdefault(i, []).append(n)
        self.text_checks = []   # (lineno, what, claimed, recomputed, ok)

    def num_at(self, i, start, end):
        for n in self.by_line.get(i, []):
            if n.start >= start and n.end <= end:
                return n
        return None

    def claim(self, i, span, value, label, exact=False, tol=None):
        """Checks the number printed at span of line i against value (a number, or a set of allowed ints)."""
        n = self.num_at(i, *span)
        if n is None or n.status in ('ok', 'wrong'):
            return
        n.label = label
        n.value = value
        c = float(n.text)
        if value is None or (isinstance(value, float) and math.isnan(value)):
            n.status = 'wrong'
            return
        if isinstance(value, (set, frozenset)):
            n.status = 'ok' if int(c) in value else 'wrong'
            return
        dec = len(n.text.split('.')[1]) if '.' in n.text else 0
        if exact:
            ok = c == value
        elif tol is not None:
            ok = abs(c - value) <= tol * abs(value) + 0.5 * 10 ** -dec
        else:
            ok = abs(c - value) <= 0.5 * 10 ** -dec * (1 + 1e-9) + REL_TOL * abs(value) + 1e-12
        n.status = 'ok' if ok else 'wrong'

    def skip(self, i, span, reason):
        n = self.num_at(i, *span)
        if n is not None and n.status is None:
            n.status = 'unchecked'
            n.reason = reason

    def text(self, i, what, claimed, recomputed):
        self.text_checks.append((i + 1, what, claimed, recomputed, claimed == recomputed))

    def cell_nums(self, i, cell):
        return [n for n in self.by_line.get(i, []) if n.start >= cell[0] and n.end <= cell[1]]


def parse_hw(lines):
    """The Hardware table of the appendix: per side the roofline GPU, HBM GB/s and the roofline peaks."""
    hw = [{'peaks': {}}, {'peaks': {}}]
    sec = None
    for i, l in enumerate(lines):
        if l.startswith('#'):
            sec = l.strip('# ').strip()
            continue
        if sec != 'Hardware' or not l.startswith('|'):
            continue
        cs = cells(l)
        if len(cs) < 3:
            continue
        label = l[cs[0][0]:cs[0][1]].strip()
        for k in range(2):
            v = l[cs[1 + k][0]:cs[1 + k][1]].strip()
            if label == 'Roofline GPU':
                hw[k]['name'] = v
            elif label.startswith('HBM bandwidth'):
                m = re.search(NUM + r' GB/s', v)
                if m:
                    hw[k]['bw'] = float(m.group(1))
            elif ' peak' in label and 'TFLOPS' in v:
                spec = label.split(' peak')[0].strip().replace('\\_', '_')
                kinds = re.search(r'\(([^)]*)\)', label)
                kinds = [x.strip() for x in kinds.group(1).split(';')] if kinds else ['roofline']
                vals = [float(x) for x in re.findall(NUM, v)]
                idx = kinds.index('roofline') if 'roofline' in kinds else 0
                if idx < len(vals):
                    hw[k]['peaks'][spec] = vals[idx]
                if 'datasheet' in kinds and kinds.index('datasheet') < len(vals):
                    hw[k].setdefault('datasheet', {})[spec] = vals[kinds.index('datasheet')]
            elif label == 'Roofline peaks are':
                hw[k]['kind'] = v
    return [h if 'bw' in h else None for h in hw]


def one_policy(hw):
    """The two sides' hardware with datasheet compute peaks on both (issue 19 item 3: one peak policy), when
    the report's roofline peaks are of two kinds; else None."""
    if not hw[0] or not hw[1] or hw[0].get('kind') == hw[1].get('kind'):
        return None
    out = []
    for h in hw:
        d = dict(h)
        d['peaks'] = dict(h['peaks'])
        d['peaks'].update(h.get('datasheet', {}))
        out.append(d)
    return out


def pct(a, b):
    """a as a percentage of b; 0 of 0 is 0 %."""
    if a == 0 and b == 0:
        return 0.0
    return 100.0 * a / b if b > 0 else math.nan


def ratio(a, b):
    return a / b if b > 0 else math.nan


def ref_gpu(name):
    return REF_HW.get((name or '').strip())


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


def quality_line(ck, i, l, tr, metrics):
    unjudged = [r.op_name for r in tr.rows if not r.judged]
    why = 'rows of ops this script has no model for and cannot class: ' + ', '.join(sorted(set(unjudged))[:4])
    m = re.match(r'Modelled rows \(FLOPs or bytes known\): ' + NUM + ' of ' + NUM + ', ' + NUM + ' % of kernel time', l)
    if m:
        mod = [r for r in tr.rows if r.perf is not None]
        ck.claim(i, m.span(2), len(tr.rows), 'rows', exact=True)
        if unjudged:
            ck.skip(i, m.span(1), why)
            ck.skip(i, m.span(3), why)
            return
        ck.claim(i, m.span(1), len(mod), 'modelled rows', exact=True)
        ck.claim(i, m.span(3), pct(sum(r.time_us for r in mod), tr.total_us), 'modelled % of kernel time')
        return
    m = re.match(r'\| Rows not modelled: (no perf model for the op|kernels a graph replayed) \| ' + NUM + ' of ' + NUM
                 + r' \| ' + NUM + r' \|', l)
    if m:
        graph = m.group(1) != 'no perf model for the op'
        un = [r for r in tr.rows if r.perf is None and r.judged and
              (r.synthetic and r.op_name in ('cudaGraphLaunch', 'hipGraphLaunch')) == graph]
        ck.claim(i, m.span(3), len(tr.rows), 'rows', exact=True)
        if unjudged and not graph:
            ck.skip(i, m.span(2), why)
            ck.skip(i, m.span(4), why)
            return
        ck.claim(i, m.span(2), len(un), 'rows without a model (%s)' % m.group(1), exact=True)
        ck.claim(i, m.span(4), sum(r.time_us for r in un), 'their GPU µs')
        return
    m = re.match(r'\| GPU events with no launcher \| ' + NUM + ' of ' + NUM + r' \| ' + NUM + r' \|', l)
    if m:
        ck.claim(i, m.span(1), len(tr.unlinked), 'unlinked GPU events', exact=True)
        ck.claim(i, m.span(2), tr.ngpu, 'GPU events', exact=True)
        ck.claim(i, m.span(3), sum(g[1] - g[0] for g in tr.unlinked) / 1e3, 'their GPU µs')
        return


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

LAYOUT_RE = re.compile(r'batched_transpose|nchwToNhwc|nhwcToNchw|transpose_', re.I)
BASELINE_OPS = ('aten::add', 'aten::add_', 'aten::mul', 'aten::mul_', 'aten::copy_')


def parse_hw_standalone(lines):
    """The Hardware section of a standalone report: roofline GPU, HBM GB/s and roofline peaks (first column)."""
    hw = {'peaks': {}}
    sec = None
    for l in lines:
        if l.startswith('#'):
            sec = l.strip('# ').strip()
            continue
        if sec != 'Hardware':
            continue
        m = re.match(r'Roofline GPU: (.+?) \(', l)
        if m:
            hw['name'] = m.group(1)
        if l.startswith('|'):
            cs = cells(l)
            if len(cs) < 2:
                continue
            label = l[cs[0][0]:cs[0][1]].strip().replace('\\_', '_')
            v = l[cs[1][0]:cs[1][1]]
            m = re.search(NUM + r' TB/s', v)
            if label == 'HBM bandwidth' and m:
                hw['bw'] = float(m.group(1)) * 1e3
            m = re.search(NUM + r' TFLOPS', v)
            if m and label != 'HBM bandwidth':
                hw['peaks'][label] = float(m.group(1))
    return hw if 'bw' in hw else None


def check_standalone(path, T, text=None):
    """Checks a standalone fair report against its trace T. Returns the Checker."""
    if text is None:
        with open(path, encoding='utf-8') as f:
            text = f.read()
    lines = text.split('\n')
    ck = Checker(path, lines)
    hw = parse_hw_standalone(lines)
    met = {id(r): T.row_metrics(r, hw) for r in T.rows}
    tl = T.tl
    cats = {}
    for r in T.rows:
        c = cats.setdefault(ct.row_category(r), {'rows': 0, 'time': 0.0, 'roof': 0.0, 'rtime': 0.0,
                                                     'unknown': 0})
        c['rows'] += 1
        c['time'] += r.time_us
        m = met[id(r)]
        if m['roof'] == m['roof']:
            c['roof'] += m['roof'] * r.count
            c['rtime'] += r.time_us
        elif not r.judged:
            c['unknown'] += 1   # jarvis may model it; this script has no model for it

    def eff(c):
        return 100.0 * c['roof'] / c['rtime'] if c['rtime'] > 0 else math.nan

    # the elementwise baseline: add/mul/copy_ rows moving >= 1 MiB per call, transfers left out
    copies = [r for r in T.rows if r.op_name in BASELINE_OPS and r.runs_as_copy()]
    base = [r for r in T.rows if r.op_name in BASELINE_OPS and r.perf is not None and r.perf.bytes >= 1 << 20
            and not r.runs_as_copy()]
    b_calls = sum(r.count for r in base)
    b_bytes = sum(r.perf.bytes * r.count for r in base)
    b_time = sum(r.time_us for r in base)
    impacts = []   # (line, recommendation number span, impact in µs as the report states it)
    sec = h2 = None
    rec = None
    seen_tl = []   # the timeline items of the bottleneck ranking so far
    state = {'comm': comm_split(T)}   # the row of the current recommendation; the communication evidence
    for i, l in enumerate(lines):
        if l.startswith('#'):
            sec = l.strip('# ').strip()
            if l.startswith('## '):
                h2 = sec
            rec = None
            m = re.match(r'### (\d+)\. (.*)', l)
            if m and h2 == 'Recommendations':
                sec = h2
                rec = m.group(2)
                impacts.append([i, m.span(1), None])
                head_line(ck, i, l, rec, tl, T, hw, met, state['comm'])
            continue
        if i == 0 or not l.strip():
            continue
        if sec == 'Executive summary':
            m = re.match(r'\| GPU timeline span \| ' + NUM + ' ms', l)
            if m:
                ck.claim(i, m.span(1), tl['total'] / 1e3, 'timeline span ms')
            for label, key in (('Computation', 'computation'), ('Idle', 'idle'),
                               ('Exposed communication', 'exposed_comm'), ('Exposed memcpy', 'exposed_memcpy')):
                m = re.match(r'\| ' + label + r' \| ' + NUM + r' ms \(' + NUM + r' %\)', l)
                if m:
                    ck.claim(i, m.span(1), tl[key] / 1e3, key + ' ms')
                    ck.claim(i, m.span(2), pct(tl[key], tl['total']), key + ' %')
            m = re.match(r'\| GPU kernel time \(Σ ops\) \| ' + NUM + ' ms', l)
            if m:
                ck.claim(i, m.span(1), T.total_us / 1e3, 'kernel time ms')
            m = re.match(r'\| (GEMM|Convolution|Batch norm|Elementwise|Other) \| ' + NUM + r' ms \(' + NUM
                         + r' % of kernel time\)', l)
            if m:
                c = cats.get(m.group(1), {'time': 0.0})
                ck.claim(i, m.span(2), c['time'] / 1e3, m.group(1) + ' ms')
                ck.claim(i, m.span(3), pct(c['time'], T.total_us), m.group(1) + ' % of kernel time')
            m = re.match(r'\| Elementwise baseline \(add/mul/copy_\) \| ' + NUM + r' TB/s \(' + NUM + ' % of ' + NUM
                         + ' TB/s HBM', l)
            if m:
                tbs = b_bytes / 1e12 / (b_time / 1e6) if b_time > 0 else math.nan
                ck.claim(i, m.span(1), tbs, 'elementwise baseline TB/s')
                ck.claim(i, m.span(2), 100.0 * tbs * 1e3 / hw['bw'] if hw else math.nan, 'baseline % of HBM')
                ck.claim(i, m.span(3), hw['bw'] / 1e3 if hw else math.nan, 'HBM TB/s (stated)')
            m = re.search(r'; ' + NUM + r' add/mul/copy_ rows? run as memcpy/memset \(' + NUM + r' (µs|ms)\) left out',
                          l)
            if m:
                ck.claim(i, m.span(1), len(copies), 'baseline rows run as memcpy/memset', exact=True)
                ck.claim(i, m.span(2), sum(r.time_us for r in copies) / (1e3 if m.group(3) == 'ms' else 1),
                         'their time')
            m = re.match(r'\| Elementwise baseline \(add/mul/copy_\) \| ' + NUM + r' TB/s \|', l)
            if m:
                ck.claim(i, m.span(1), b_bytes / 1e12 / (b_time / 1e6) if b_time > 0 else math.nan,
                         'elementwise baseline TB/s')
            m = re.search(r'no baseline: .*\(' + NUM + r' calls, ' + NUM + r' MiB of .*moving at least ' + NUM
                          + r' MiB per call; it needs at least ' + NUM + r' calls and ' + NUM + r' MiB\)', l)
            if m:
                ck.claim(i, m.span(1), b_calls, 'baseline calls', exact=True)
                ck.claim(i, m.span(2), b_bytes / (1 << 20), 'baseline MiB')
                for g in (3, 4, 5):
                    ck.skip(i, m.span(g), 'a threshold of the baseline rule (definition)')
            m = re.match(r'Bottleneck ranking \(computation < ' + NUM + ' %', l)
            if m:
                ck.claim(i, m.span(1), 95 if pct(tl['computation'], tl['total']) < 95 else None,
                         'computation below the threshold')
            m = re.match(r'(\d+)\. (GPU idle|Exposed communication|Exposed memcpy): ' + NUM + r' ms \(' + NUM
                         + ' % of the timeline\)', l)
            if m:
                key = {'GPU idle': 'idle', 'Exposed communication': 'exposed_comm',
                       'Exposed memcpy': 'exposed_memcpy'}[m.group(2)]
                # computation < 95 %: the timeline first (idle, communication, memcpy); else by time among
                # the categories
                if pct(tl['computation'], tl['total']) < 95:
                    order = [k for k in ('idle', 'exposed_comm', 'exposed_memcpy') if k == key or k in seen_tl]
                    ck.claim(i, m.span(1), len(order), 'the timeline first', exact=True)
                else:
                    ck.claim(i, m.span(1), 1 + sum(1 for c in cats.values() if c['time'] > tl[key]) + len(seen_tl),
                             'timeline item ranked by time among the categories', exact=True)
                seen_tl.append(key)
                ck.claim(i, m.span(3), tl[key] / 1e3, key + ' ms')
                ck.claim(i, m.span(4), pct(tl[key], tl['total']), key + ' %')
            m = re.match(r'(\d+)\. (GEMM|Convolution|Batch norm|Elementwise|Other): ' + NUM + r' ms \(' + NUM
                         + r' % of kernel time\)(?:, efficiency ' + NUM + r' % of roofline)?'
                         r'(?:, layout conversions ' + NUM + ' ms)?', l)
            if m:
                c = cats.get(m.group(2), {'time': 0.0, 'unknown': 0, 'roof': 0, 'rtime': 0})
                order = sorted((k for k in cats if cats[k]['time'] > 0), key=lambda k: -cats[k]['time'])
                if pct(tl['computation'], tl['total']) < 95:
                    idle_first = len(seen_tl)
                else:
                    idle_first = sum(1 for k in seen_tl if tl[k] > c['time'])
                ck.claim(i, m.span(1), order.index(m.group(2)) + 1 + idle_first if m.group(2) in order else None,
                         'bottleneck rank by time', exact=True)
                ck.claim(i, m.span(3), c['time'] / 1e3, m.group(2) + ' ms')
                ck.claim(i, m.span(4), pct(c['time'], T.total_us), m.group(2) + ' %')
                if m.group(5) is not None:
                    if c['unknown']:
                        ck.skip(i, m.span(5), 'the category holds ops without a model here')
                    else:
                        ck.claim(i, m.span(5), eff(c), m.group(2) + ' efficiency %')
                if m.group(6) is not None:
                    ck.claim(i, m.span(6), layout_us(T) / 1e3, 'layout conversions ms')
        elif sec == 'Recommendations' and rec is not None:
            rec_line(ck, i, l, rec, tl, T, hw, met, impacts, cats, state)
        elif sec == 'Detailed analysis':
            m = re.match(r'\| (GEMM|Convolution|Batch norm|Elementwise|Other) \| ' + NUM + r' \| ' + NUM + r' ms \| '
                         + NUM + r' % \| (?:' + NUM + r' %|n/a) \|', l)
            if m:
                c = cats.get(m.group(1), {'rows': 0, 'time': 0.0, 'unknown': 0, 'roof': 0, 'rtime': 0})
                ck.claim(i, m.span(2), c['rows'], m.group(1) + ' rows', exact=True)
                ck.claim(i, m.span(3), c['time'] / 1e3, m.group(1) + ' ms')
                ck.claim(i, m.span(4), pct(c['time'], T.total_us), m.group(1) + ' %')
                if m.group(5) is not None:
                    if c['unknown']:
                        ck.skip(i, m.span(5), 'the category holds ops without a model here')
                    else:
                        ck.claim(i, m.span(5), eff(c), m.group(1) + ' efficiency %')
        elif sec == 'Trace quality':
            quality_line(ck, i, l, T, met)
        elif sec == 'Hardware':
            m = re.match(r'Trace device: .*\(' + NUM + ' in deviceProperties\)', l)
            if m:
                dp = T.meta.get('deviceProperties') or T.meta.get('computeProperties') or []
                ck.claim(i, m.span(1), len(dp), 'deviceProperties entries', exact=True)
            if l.startswith('| ') and not l.startswith('| Peak'):
                cs = cells(l)
                label = l[cs[0][0]:cs[0][1]].strip().replace('\\_', '_')
                ref = ref_gpu(hw.get('name') if hw else None)
                for c in cs[1:3]:
                    for n_ in ck.cell_nums(i, c):
                        if ref is None:
                            ck.skip(i, (n_.start, n_.end), 'GPU not in REFERENCE.md section 5')
                        elif label == 'HBM bandwidth':
                            ck.claim(i, (n_.start, n_.end), ref['bw'] / 1e3, 'HBM TB/s (REFERENCE.md)', tol=HW_TOL)
                        elif label in ref:
                            v = float(n_.text)
                            ck.claim(i, (n_.start, n_.end), min(ref[label], key=lambda x: abs(x - v)),
                                     label + ' TFLOPS (REFERENCE.md)', tol=HW_TOL)
                        else:
                            ck.skip(i, (n_.start, n_.end), label + ' not in REFERENCE.md section 5')
        elif sec == 'Replay package':
            m = re.search(NUM + r' rows of this report \(' + NUM + ' % of GPU kernel time\)', l)
            if m:
                for g in (1, 2):
                    ck.skip(i, m.span(g), 'the replay package holds the ops of jarvis\' replay families')
    # "Recommendations ranked by projected saving" (the rough report's process): the numbering follows the
    # impacts the report states
    known = [x for x in impacts if x[2] is not None]
    for x in impacts:
        if x[2] is None:
            ck.skip(x[0], x[1], 'the recommendation states no impact in time')
            continue
        rank = {k + 1 for k, y in enumerate(sorted(known, key=lambda y: -y[2])) if abs(y[2] - x[2]) <= 1e-9}
        ck.claim(x[0], x[1], rank, 'recommendation rank by projected saving')
    return ck



def layout_us(T):
    """Time of the layout-conversion kernels (REFERENCE.md) inside convolution rows."""
    return sum((k[1] - k[0]) / 1e3 for r in T.rows if ct.row_category(r) == 'Convolution'
               for inst in r.instances for k in inst if LAYOUT_RE.search(k[2]))


def find_row(T, name, dims0):
    cand = [r for r in T.rows if r.name == name and r.dims and ct._dims_text(r.dims[0]) == dims0]
    return cand


def comm_split(T):
    """The exposed communication's evidence (claims_trace.comm_evidence) and its recommendations' times (µs): a part
    (DDP buffer broadcasts, waiting) is one of its own when the item is recommended (>= 5 % of the timeline, or
    >= 1 % while computation is under 95 %) and the part holds >= 1 % of the exposed communication; the rest
    recommendation holds what is left."""
    tl = T.tl
    ev = T.comm_evidence()
    share = pct(tl['exposed_comm'], tl['total'])
    recommended = tl['total'] > 0 and (share >= 5 or (pct(tl['computation'], tl['total']) < 95 and share >= 1))
    ev['apart'] = [k for k in ('ddp', 'wait') if recommended and ev[k] > 0 and ev[k] >= 0.01 * tl['exposed_comm']]
    ev['rest_rec'] = tl['exposed_comm'] - sum(ev[k] for k in ev['apart'])
    return ev


COMM_PART = {'DDP buffer broadcasts': 'ddp', 'waiting for other ranks': 'wait'}


def comm_lines(ck, i, l, rec, tl, cs):
    """The numbers of the exposed-communication recommendations (rest, DDP buffer broadcasts, waiting)."""
    def z_line(m, z, k0):
        # kind of X MiB ... : the group's figures
        ck.text(i, 'collective kind', m.group(k0), z['kind'] if z else '')
        ck.claim(i, m.span(k0 + 1), z['bytes'] / (1 << 20) if z else None, 'message MiB')

    if rec.startswith('Exposed communication'):
        m = re.search(r'Recommended apart: (.*?); this recommendation is the rest, ' + NUM + r' ms\.', l)
        if m:
            for mm in re.finditer(r'(DDP buffer broadcasts|waiting for other ranks) ' + NUM + ' ms', m.group(1)):
                k = COMM_PART[mm.group(1)]
                sp = (m.start(1) + mm.start(2), m.start(1) + mm.end(2))
                ck.claim(i, sp, cs[k] / 1e3 if k in cs['apart'] else None, k + ' ms (recommended apart)')
            ck.claim(i, m.span(2), cs['rest_rec'] / 1e3, 'the rest ms')
        m = re.search(r'Of it (.*?) \(under ' + NUM + r' % of the exposed communication: not advised apart\)', l)
        if m:
            for mm in re.finditer(r'(DDP buffer broadcasts|waiting for other ranks) ' + NUM + ' ms', m.group(1)):
                k = COMM_PART[mm.group(1)]
                sp = (m.start(1) + mm.start(2), m.start(1) + mm.end(2))
                ck.claim(i, sp, cs[k] / 1e3 if k not in cs['apart'] else None, k + ' ms (not apart)')
            ck.claim(i, m.span(2), 1, 'the 1 % rule (definition)')
        m = re.search(r'All ' + NUM + r' calls of the (\w+) of ' + NUM + r' MiB run within ' + NUM
                      + r'x of the fastest \(' + NUM + ' to ' + NUM + ' µs, ' + NUM + ' to ' + NUM + ' GB/s', l)
        if m:
            z = cs['xfer_top']
            ck.claim(i, m.span(1), z['n'] if z else None, 'calls of the size', exact=True)
            z_line(m, z, 2)
            ck.claim(i, m.span(4), 2, 'the 2x rule (definition)')
            ck.claim(i, m.span(5), z['best_us'] if z else None, 'fastest µs')
            ck.claim(i, m.span(6), z['worst_us'] if z else None, 'slowest µs')
            ck.claim(i, m.span(7), z['worst_bw'] if z else None, 'slowest GB/s')
            ck.claim(i, m.span(8), z['best_bw'] if z else None, 'fastest GB/s')
        m = re.match(r'- \*\*Impact:\*\* up to ' + NUM + r' ms of the timeline \(' + NUM + r' %\)', l)
        if m:
            ck.claim(i, m.span(1), cs['rest_rec'] / 1e3, 'the rest ms')
            ck.claim(i, m.span(2), pct(cs['rest_rec'], tl['total']), 'the rest %')
    elif rec.startswith('DDP buffer broadcasts'):
        m = re.search(r'\): ' + NUM + r' broadcast kernels(?: of ' + NUM + r' MiB)?, ' + NUM + ' ms of kernel time, '
                      + NUM + r' ms of it exposed = ' + NUM + ' % of the ' + NUM + ' ms GPU timeline', l)
        if m:
            ck.claim(i, m.span(1), cs['ddp_calls'], 'DDP broadcasts', exact=True)
            if m.group(2) is not None:
                ck.claim(i, m.span(2), cs['ddp_bytes'] / (1 << 20), 'DDP broadcast MiB')
            ck.claim(i, m.span(3), cs['ddp_us'] / 1e3, 'DDP broadcast kernel ms')
            ck.claim(i, m.span(4), cs['ddp'] / 1e3, 'DDP broadcast exposed ms')
            ck.claim(i, m.span(5), pct(cs['ddp'], tl['total']), 'DDP broadcast exposed %')
            ck.claim(i, m.span(6), tl['total'] / 1e3, 'timeline ms')
        m = re.match(r'- \*\*Impact:\*\* up to ' + NUM + r' ms of the timeline \(' + NUM + r' %\)', l)
        if m:
            ck.claim(i, m.span(1), cs['ddp'] / 1e3, 'DDP broadcast exposed ms')
            ck.claim(i, m.span(2), pct(cs['ddp'], tl['total']), 'DDP broadcast exposed %')
    elif rec.startswith('Collectives waiting for other ranks'):
        m = re.search(NUM + r' collective call\(s\) took at least ' + NUM + r'x as long as the fastest .*?: ' + NUM
                      + ' ms beyond the fastest, ' + NUM + ' ms of it exposed = ' + NUM + ' % of the ' + NUM
                      + r' ms GPU timeline\. The most: (\w+) of ' + NUM + r' MiB, ' + NUM + ' calls, ' + NUM
                      + ' of them slow: the fastest ' + NUM + ' µs at ' + NUM + ' GB/s .*?, the slowest ' + NUM
                      + ' µs at ' + NUM + ' GB/s', l)
        if m:
            z = cs['wait_top']
            ck.claim(i, m.span(1), cs['wait_calls'], 'slow calls', exact=True)
            ck.claim(i, m.span(2), 2, 'the 2x rule (definition)')
            ck.claim(i, m.span(3), cs['wait_us'] / 1e3, 'ms beyond the fastest')
            ck.claim(i, m.span(4), cs['wait'] / 1e3, 'waiting exposed ms')
            ck.claim(i, m.span(5), pct(cs['wait'], tl['total']), 'waiting exposed %')
            ck.claim(i, m.span(6), tl['total'] / 1e3, 'timeline ms')
            z_line(m, z, 7)
            ck.claim(i, m.span(9), z['n'] if z else None, 'calls of the size', exact=True)
            ck.claim(i, m.span(10), z['slow'] if z else None, 'slow calls of the size', exact=True)
            ck.claim(i, m.span(11), z['best_us'] if z else None, 'fastest µs')
            ck.claim(i, m.span(12), z['best_bw'] if z else None, 'fastest GB/s')
            ck.claim(i, m.span(13), z['worst_us'] if z else None, 'slowest µs')
            ck.claim(i, m.span(14), z['worst_bw'] if z else None, 'slowest GB/s')
        m = re.match(r'- \*\*Impact:\*\* up to ' + NUM + r' ms of the timeline \(' + NUM + r' %\)', l)
        if m:
            ck.claim(i, m.span(1), cs['wait'] / 1e3, 'waiting exposed ms')
            ck.claim(i, m.span(2), pct(cs['wait'], tl['total']), 'waiting exposed %')


def head_line(ck, i, l, rec, tl, T, hw, met, cs=None):
    if cs is not None:
        for label, v in (('Exposed communication, other collectives', cs['rest_rec']),
                         ('DDP buffer broadcasts', cs['ddp']), ('Collectives waiting for other ranks', cs['wait'])):
            m = re.match(r'### \d+\. ' + label + ': ' + NUM + ' % of the GPU timeline', l)
            if m:
                ck.claim(i, m.span(1), pct(v, tl['total']), label + ' %')
    for label, key in (('GPU idle', 'idle'), ('Exposed communication', 'exposed_comm'),
                       ('Exposed memcpy', 'exposed_memcpy')):
        m = re.match(r'### \d+\. ' + label + ': ' + NUM + ' % of the GPU timeline', l)
        if m:
            ck.claim(i, m.span(1), pct(tl[key], tl['total']), key + ' %')
    # a per-op heading's "below P % of peak" is checked with its Impact line (rec_line), which knows the row


def rec_line(ck, i, l, rec, tl, T, hw, met, impacts, cats, state):
    """Checks line i of the recommendation titled rec; state carries the row of its Issue line to its Impact
    line."""
    imp = impacts[-1]
    m = re.match(r'- \*\*Impact:\*\* (?:up to |at least )?' + NUM + r' (ms|µs)', l)
    if m:
        imp[2] = float(m.group(1)) * (1e3 if m.group(2) == 'ms' else 1)
    for label, key in (('GPU idle', 'idle'), ('Exposed communication', 'exposed_comm'),
                       ('Exposed memcpy', 'exposed_memcpy')):
        if not rec.startswith(label):
            continue
        m = re.match(r'- \*\*Issue:\*\* ' + label + ' ' + NUM + ' ms = ' + NUM + ' % of the ' + NUM
                     + r' ms GPU timeline; computation is ' + NUM + ' %', l)
        if m:
            ck.claim(i, m.span(1), tl[key] / 1e3, key + ' ms')
            ck.claim(i, m.span(2), pct(tl[key], tl['total']), key + ' %')
            ck.claim(i, m.span(3), tl['total'] / 1e3, 'timeline ms')
            ck.claim(i, m.span(4), pct(tl['computation'], tl['total']), 'computation %')
        m = re.search(r'Over the ' + NUM + r' gaps \(the longest ' + NUM + ' ms\)', l)
        if m:
            busy = ct.merge([(g[0], g[1]) for g in T.linked])
            gaps = [(b[0] - a[1]) / 1e3 for a, b in zip(busy, busy[1:])]
            ck.claim(i, m.span(1), len(gaps), 'idle gaps', exact=True)
            ck.claim(i, m.span(2), max(gaps) / 1e3 if gaps else 0.0, 'longest gap ms')
        m = re.match(r'- \*\*Impact:\*\* up to ' + NUM + r' ms of the timeline \(' + NUM + r' %\)', l)
        if m and key != 'exposed_comm':   # the exposed communication's rest: comm_lines
            ck.claim(i, m.span(1), tl[key] / 1e3, key + ' ms')
            ck.claim(i, m.span(2), pct(tl[key], tl['total']), key + ' %')
    if state.get('comm') is not None:
        comm_lines(ck, i, l, rec, tl, state['comm'])
    m = re.match(r'(\w[\w ]*) below ' + NUM + ' % of peak: (.*)', rec)
    if m:
        name = m.group(3).strip()
        mi = re.match(r'- \*\*Issue:\*\* `([^`]*)` on `([^`]*)`: ' + NUM + r' (ms|µs) in ' + NUM + ' calls at ' + NUM
                      + r' % of the (memory|compute) roofline', l)
        mp = re.match(r'- \*\*Impact:\*\* ' + NUM + r' (ms|µs) \(' + NUM + r' % of GPU kernel time\) at ' + NUM
                      + ' % of peak', l)
        rows = find_row(T, name, mi.group(2)) if mi else []
        if mi:
            # several rows of one op and first argument: the one whose numbers the line states
            r = min(rows, key=lambda r: abs(r.time_us - float(mi.group(3)) * (1e3 if mi.group(4) == 'ms' else 1))) \
                if rows else None
            state['row'] = r
            scale = 1e3 if mi.group(4) == 'ms' else 1
            mm = met[id(r)] if r else None
            ck.claim(i, mi.span(3), r.time_us / scale if r else None, 'row time')
            ck.claim(i, mi.span(5), r.count if r else None, 'row calls', exact=True)
            if r is not None and r.perf is None:
                ck.skip(i, mi.span(6), 'no model here for ' + r.op_name)
                state['row'] = None
            else:
                ck.claim(i, mi.span(6), mm['pct'] if mm else None, 'row % of roofline (mean)')
                ck.text(i, 'row bound', mi.group(7), (mm['bound'].split('_')[0].lower() if mm else ''))
        if mp and state.get('row') is None:
            for g in (1, 3):
                ck.skip(i, mp.span(g), 'the row of the issue has no model here')
            ck.claim(i, mp.span(4), 50, 'the 50 % target (definition)')
        elif mp:
            r = state.get('row')
            mm = met[id(r)] if r else None
            # the target: 50 % of peak; 70 % (near peak) for an op with >= 10 % of kernel time already at 50 % or
            # more (issue 19 item 4: the largest ops are always covered)
            tgt = 70 if r is not None and mm and pct(r.time_us, T.total_us) >= 10 and mm['pct'] >= 50 else 50
            save = r.time_us - mm['roof'] * r.count / (tgt / 100) if mm and mm['roof'] == mm['roof'] else None
            scale = 1e3 if mp.group(2) == 'ms' else 1
            ck.claim(i, mp.span(1), save / scale if save is not None else None, 'saving at %d %% of peak' % tgt)
            ck.claim(i, mp.span(3), pct(save, T.total_us) if save is not None else None, 'saving % of kernel time')
            ck.claim(i, mp.span(4), tgt, 'the target %% of peak (definition: %d)' % tgt)
            for h in range(i, -1, -1):  # the heading states the same target
                mh = re.match(r'### \d+\. \w[\w ]* below ' + NUM + ' % of peak', ck.lines[h])
                if mh:
                    ck.claim(h, mh.span(1), tgt, 'the target %% of peak of the heading (%d)' % tgt)
                    break
                if ck.lines[h].startswith('### '):
                    break
    if rec.startswith('Layout conversions around convolutions'):
        m = re.search(r'Layout conversions around convolutions: ' + NUM + ' ms = ' + NUM + ' % of convolution time', l)
        if m:
            lu = layout_us(T)
            ck.claim(i, m.span(1), lu / 1e3, 'layout conversions ms')
            ck.claim(i, m.span(2), pct(lu, cats.get('Convolution', {'time': 0})['time']), 'layout % of convolution')
        m = re.match(r'- \*\*Impact:\*\* up to ' + NUM + r' ms \(' + NUM + ' % of GPU kernel time\)', l)
        if m:
            lu = layout_us(T)
            ck.claim(i, m.span(1), lu / 1e3, 'layout conversions ms')
            ck.claim(i, m.span(2), pct(lu, T.total_us), 'layout % of kernel time')
    m = re.match(r'Elementwise fusion: (.*)', rec)
    fus = T.fusion_groups() if m else None
    if m and fus is not None and m.group(1).strip() in fus:
        inst, nk, us = fus[m.group(1).strip()]
        mi = re.match(r'- \*\*Issue:\*\* `[^`]*`: ' + NUM + ' instances run ' + NUM + ' elementwise kernels \(' + NUM
                      + r' per instance, ' + NUM + r' (ms|µs) in all\)', l)
        if mi:
            ck.claim(i, mi.span(1), inst, 'module instances', exact=True)
            ck.claim(i, mi.span(2), nk, 'elementwise kernels', exact=True)
            ck.claim(i, mi.span(3), nk / inst, 'kernels per instance')
            ck.claim(i, mi.span(4), us / (1e3 if mi.group(5) == 'ms' else 1), 'elementwise time')
        mp = re.match(r'- \*\*Impact:\*\* ' + NUM + r' (ms|µs) \(' + NUM + ' % of GPU kernel time\)', l)
        if mp:
            # one fused kernel per instance at the mean time of one of its kernels
            save = us - inst * us / nk
            # time counted once (issue 19 item 4): kernel time an earlier recommendation holds is left out and the
            # saving scaled to the rest; the overlap is the report's (the earlier pattern is not recomputed here)
            mo = re.search(NUM + r' (ms|µs) of its kernel time is in recommendation \d+ and counted there only, the '
                           r'saving scaled to the rest', l)
            if mo:
                ov = float(mo.group(1)) * (1e3 if mo.group(2) == 'ms' else 1)
                save *= max(0.0, us - ov) / us if us > 0 else 0.0
                ck.skip(i, mo.span(1), 'the overlap with an earlier recommendation (its pattern is not recomputed)')
            ck.claim(i, mp.span(1), save / (1e3 if mp.group(2) == 'ms' else 1), 'fusion saving')
            ck.claim(i, mp.span(3), pct(save, T.total_us), 'fusion saving % of kernel time')
    for n_ in ck.by_line.get(i, []):
        if n_.status is None and re.match(r'(Elementwise fusion|Eager attention|Batch norm bandwidth)', rec):
            n_.status = 'unchecked'
            n_.reason = rec.split(':')[0] + ': fusion by parent op, eager attention, BN models not recomputed here'


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
    for n in ck.nums:
        if n.status is None:
            n.status = 'unchecked'
            n.reason = 'no rule for this number'
    wrong = [n for n in ck.nums if n.status == 'wrong']
    ok = [n for n in ck.nums if n.status == 'ok']
    un = [n for n in ck.nums if n.status == 'unchecked']
    twrong = [t for t in ck.text_checks if not t[4]]
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
    checked = len(ok) + len(wrong)
    total = len(ck.nums)
    cov = 100.0 * checked / total if total else 0.0
    print('%s: %d of %d numbers checked (%.1f %%), %d wrong; %d of %d labels checked, %d wrong' %
          (path, checked, total, cov, len(wrong), len(ck.text_checks) - len(twrong), len(ck.text_checks), len(twrong)))
    if cov < min_cov:
        print('%s: coverage %.1f %% is below the minimum %.1f %%' % (path, cov, min_cov))
    return 1 if wrong or twrong or cov < min_cov or not total else 0


if __name__ == '__main__':
    sys.exit(main())
