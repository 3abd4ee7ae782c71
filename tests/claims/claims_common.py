"""claims_common: what the claims check of both report kinds shares: the numbers of a report line and their
tolerance, op-name canonicalisation and the target/reference op matching, the per-op model of REFERENCE.md section 2,
the Checker that marks each number ok, wrong or not checked, the hardware lines and the trace-quality section."""
import math
import re

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
