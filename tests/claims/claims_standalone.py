"""claims_standalone: the claims check of a standalone fair report (standalone_analysis_fair.md): its numbers
recomputed from the one trace (claims_check.py runs it)."""
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import claims_trace as ct  # noqa: E402
from claims_common import Checker, HW_TOL, NUM, cells, pct, quality_line, ref_gpu  # noqa: E402

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
