#!/usr/bin/env python3
"""Advice for exposed communication chosen from the evidence, and large ops without a model not judged (issue 19,
items 4 and 6).

usage: test_comm_advice.py JARVIS_ANALYZE [SHARED_DIR]

Without SHARED_DIR, generated traces (times in us, the trace's unit; collectives with their metadata in the
kernel's args):
- ddp: a 1 MiB broadcast kernel [100, 400) launched under `DistributedDataParallel.forward`, computation [40, 90)
  and [510, 560): the whole exposed communication (300 us = 57.7 % of the 520 us timeline) is DDP's buffer
  broadcast: advised as `broadcast_buffers=False` with 0.30 ms; the generic "overlap communication" is not given.
  The same broadcast outside DDP's forward, or inside DDP's constructor (`_sync_params_and_buffers`), gets the
  generic advice and no `broadcast_buffers`.
- wait: three 4 MiB all-reduces (group of 2) of 100, 110 and 400 us, a computation kernel over the first 100 us
  of the slow one: 300 us beyond the fastest, 200 us of it exposed (18.0 % of the 1110 us timeline) is waiting
  for other ranks (fastest 41.9 GB/s bus bandwidth, slowest 10.5); the rest, 310 us, stays "exposed
  communication"; together the 510 us of the timeline's exposed communication, none counted twice.
- uniform: 100, 110, 120 us: no waiting advice; the rest names the uniform rate (bandwidth, links, topology:
  all_reduce_perf). The same at 1 KiB (latency-bound) claims neither.
- multirank: two ranks, rank 1 late by 500 us at both all-reduces: the multi-rank report advises on the wait
  (rank 0 waits 1000 us, 500 per rank on average, rank 1 last at 2 of 2) before the transfers (200 us); without
  skew only the transfers. report.html shows the same advice (its section's text, tags stripped, checked alike).
  Each rank's own fair report advises on its wait measured across the ranks (rank 0: 1000 us, all exposed; 900
  with a computation kernel over 100 us of it), not on the single-trace estimate; without skew no waiting advice.
- DDP's own elementwise kernels (under its nn.Module, the buffers' copies) get no "fuse with torch.compile"
  advice; the same kernels under a LayerNorm module do.
- large ops without a model: an `aten::mm` without shapes and an op no family models, each >= 10 % of kernel
  time: "not judged (no input shapes recorded)" / "not judged (no perf model for the op)", no recommendation.
Every generated fair report also passes tests/claims/claims_check.py (no wrong number).
With SHARED_DIR (skipped, 77, when its traces/ is absent): the fixture traces' advice and figures (the A100 DDP
ResNet rank, the DLRM ranks, the 8-rank DLRM job: its multirank_report.md and report.html, and each rank's fair
report's measured wait equal to the straggler summary's).
"""
import csv
import html
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/: jvcheck
sys.path.insert(0, HERE)  # hostile_gen
from jvcheck import check, finish, skip  # noqa: E402
import hostile_gen as g  # noqa: E402

CLAIMS = os.path.join(os.path.dirname(HERE), 'claims', 'claims_check.py')


def annot(name, ts, dur, cat='user_annotation'):
    return {'ph': 'X', 'cat': cat, 'name': name, 'pid': 100, 'tid': 100, 'ts': ts, 'dur': dur, 'args': {}}


def coll(kernel, coll_name, ts, dur, corr, nelems, gs=2, stream=40, pg=None):
    a = {'device': 0, 'stream': stream, 'correlation': corr, 'Collective name': coll_name, 'In msg nelems': nelems,
         'Out msg nelems': nelems, 'Group size': gs, 'dtype': 'Float'}
    if pg is not None:
        a['Process Group Name'] = pg
    return {'ph': 'X', 'cat': 'kernel', 'name': kernel, 'pid': 0, 'tid': stream, 'ts': ts, 'dur': dur, 'args': a}


def compute(ts_op, corr, kts, kdur, stream=7):
    """an aten::mm op with its launch and kernel [kts, kts + kdur)"""
    return [g.op('aten::mm', ts_op, 10, dims=[[64, 64], [64, 64]]), g.launch(ts_op + 1, corr),
            g.kernel('k_mm', kts, kdur, corr, stream=stream)]


def broadcast_events():
    return [g.op('c10d::broadcast_', 10, 50), g.launch(20, 1),
            coll('ncclKernel_Broadcast_RING_LL_Sum_int8_t', 'broadcast', 100, 300, 1, 262144)] + \
        compute(30, 2, 40, 50) + compute(500, 3, 510, 50)


def recs(md):
    """{heading: (issue, action, impact, confidence)} of the fair report's recommendations"""
    out = {}
    for m in re.finditer(r'### \d+\. (.*?)\n\n- \*\*Issue:\*\* (.*?)\n- \*\*Action:\*\* (.*?)\n- \*\*Impact:\*\* (.*?)\n'
                         r'- \*\*Confidence:\*\* (.*?)\n', md):
        out[m.group(1)] = m.groups()[1:]
    return out


def heading(rs, prefix):
    return next((h for h in rs if h.startswith(prefix)), None)


def claims_ok(out, trace, what):
    """claims_check.py recomputes the report's numbers from the trace: none wrong"""
    p = subprocess.run([sys.executable, CLAIMS, os.path.join(out, 'standalone_analysis_fair.md'), '--target', trace,
                        '--min-coverage', '0'], capture_output=True, text=True)
    check(p.returncode == 0 and ' 0 wrong' in p.stdout, f'{what}: claims_check finds no wrong number', p.stdout[-800:],
          p.stderr[-400:])


def analyse(exe, tmp, name, ev):
    rc, err, out, md = g.analysed(exe, tmp, name, ev)
    check(rc == 0, f'{name}: exit 0', rc, err[-800:])
    return out, md


def ddp_cases(exe, tmp):
    out, md = analyse(exe, tmp, 'ddp', [annot('DistributedDataParallel.forward', 0, 1000)] + broadcast_events())
    rs = recs(md)
    h = heading(rs, 'DDP buffer broadcasts')
    check(h == 'DDP buffer broadcasts: 57.7 % of the GPU timeline', 'ddp: the DDP recommendation', list(rs))
    if h:
        issue, action, impact, conf = rs[h]
        check('1 broadcast kernels of 1.00 MiB, 0.30 ms of kernel time, 0.30 ms of it exposed = 57.7 % of the 0.52 '
              'ms GPU timeline' in issue, 'ddp: the broadcasts, their bytes and exposed time', issue)
        check('`broadcast_buffers=False`' in action, 'ddp: broadcast_buffers=False', action)
        check(impact.startswith('up to 0.30 ms of the timeline (57.7 %)'), 'ddp: the saving', impact)
        check(conf.startswith('medium: '), 'ddp: confidence medium', conf)
    check(heading(rs, 'Exposed communication') is None and 'Overlap communication' not in md,
          'ddp: no generic overlap advice for the broadcasts', list(rs))
    claims_ok(out, os.path.join(tmp, 'ddp.json'), 'ddp')
    for name, wrap in (('plain', []), ('ctor', [annot('torch/nn/parallel/distributed.py(800): _sync_params_and_buffers',
                                                      0, 1000, 'python_function'),
                                                annot('_broadcast_coalesced', 5, 900)])):
        _, md = analyse(exe, tmp, 'bcast_' + name, wrap + broadcast_events())
        rs = recs(md)
        h = heading(rs, 'Exposed communication')
        check(h == 'Exposed communication: 57.7 % of the GPU timeline' and 'Overlap communication' in rs[h][1],
              f'{name} broadcast: the generic advice', list(rs))
        check('broadcast_buffers' not in md and heading(rs, 'DDP') is None, f'{name} broadcast: no DDP advice')


def allreduces(durs, nelems=1048576, overlap=True):
    ev, starts = [], (100, 300, 600)
    for k, (ts, d) in enumerate(zip(starts, durs)):
        ev += [g.op('c10d::allreduce_', ts - 40, 20), g.launch(ts - 35, 10 + k),
               coll('ncclKernel_AllReduce_RING_LL_Sum_float', 'allreduce', ts, d, 10 + k, nelems)]
    ev += compute(30, 2, 40, 50) + compute(1090, 4, 1100, 50)
    if overlap:
        ev += compute(585, 3, 600, 100)   # over the slow all-reduce's first 100 us, on another stream
    return ev


def wait_cases(exe, tmp):
    out, md = analyse(exe, tmp, 'wait', allreduces((100, 110, 400)))
    rs = recs(md)
    check('| Exposed communication | 0.510 ms (45.9 %) |' in md, 'wait: 510 us of exposed communication')
    h = heading(rs, 'Collectives waiting')
    check(h == 'Collectives waiting for other ranks: 18.0 % of the GPU timeline', 'wait: the waiting advice', list(rs))
    if h:
        issue, action, impact, conf = rs[h]
        check('1 collective call(s) took at least 2x as long as the fastest' in issue and
              '0.30 ms beyond the fastest, 0.20 ms of it exposed = 18.0 % of the 1.11 ms GPU timeline' in issue,
              'wait: 300 us beyond the fastest, 200 exposed', issue)
        check('allreduce of 4.00 MiB, 3 calls, 1 of them slow: the fastest 100.0 µs at 41.9 GB/s bus bandwidth, the '
              'slowest 400.0 µs at 10.5 GB/s' in issue, 'wait: the size and bandwidths', issue)
        check('straggler' in action and 'bandwidth' in action, 'wait: find the late rank, not bandwidth', action)
        check(impact.startswith('up to 0.20 ms of the timeline (18.0 %)'), 'wait: the saving', impact)
    h = heading(rs, 'Exposed communication')
    check(h == 'Exposed communication, other collectives: 27.9 % of the GPU timeline', 'wait: the rest', list(rs))
    if h:
        issue, action, impact, _ = rs[h]
        check('Recommended apart: waiting for other ranks 0.20 ms; this recommendation is the rest, 0.31 ms.' in issue,
              'wait: the rest names the part advised apart', issue)
        check(impact.startswith('up to 0.31 ms of the timeline (27.9 %)'), 'wait: the rest\'s saving (no time twice)',
              impact)
        check('All 3 calls' not in issue and 'all_reduce_perf' not in action,
              'wait: a size with a slow call is no bandwidth evidence', issue)
    order = re.findall(r'### \d+\. (\S+)', md)
    check(order[:3] == ['GPU', 'Exposed', 'Collectives'], 'wait: ranked by saving: idle 400, rest 310, wait 200 us',
          order)
    claims_ok(out, os.path.join(tmp, 'wait.json'), 'wait')

    out, md = analyse(exe, tmp, 'uniform', allreduces((100, 110, 120), overlap=False))
    rs = recs(md)
    check(heading(rs, 'Collectives waiting') is None, 'uniform: no waiting advice', list(rs))
    h = heading(rs, 'Exposed communication')
    check(h is not None and 'All 3 calls of the allreduce of 4.00 MiB run within 2x of the fastest (100.0 to 120.0 '
          'µs, 35 to 41.9 GB/s bus bandwidth)' in rs[h][0], 'uniform: the same rate every time', rs.get(h))
    check(h is not None and 'all_reduce_perf' in rs[h][1], 'uniform: check the links (nccl-tests)', rs.get(h))
    claims_ok(out, os.path.join(tmp, 'uniform.json'), 'uniform')

    _, md = analyse(exe, tmp, 'small', allreduces((100, 110, 120), nelems=256, overlap=False))
    check('All 3 calls' not in md and 'all_reduce_perf' not in md and 'Collectives waiting' not in md,
          'small: a latency-bound size claims no bandwidth')


def rank_trace(tmp, r, starts, durs, extra=()):
    ev = list(extra)
    for k, (ts, d) in enumerate(zip(starts, durs)):
        ev += [g.op('c10d::allreduce_', ts - 40, 20), g.launch(ts - 35, 10 + k),
               coll('ncclKernel_AllReduce_RING_LL_Sum_float', 'allreduce', ts, d, 10 + k, 1048576, pg='0')]
    ev += compute(5, 2, 10, 30)
    doc = g.doc(ev)
    doc['distributedInfo'] = {'rank': r, 'world_size': 2}
    path = os.path.join(tmp, f'job_rank{r}.json')
    g.write(path, doc)
    return path


def advice_texts(out):
    """the Communication advice of a job's multirank_report.md and of its report.html (tags stripped, unescaped,
    each <li> a line that begins with "- ", "Issue:" etc. as in the markdown), by name"""
    md = open(os.path.join(out, 'multirank_report.md'), encoding='utf-8').read()
    page = open(os.path.join(out, 'report.html'), encoding='utf-8').read()
    sec = re.search(r'<section id="advice"><h2>Communication advice</h2>(.*?)</section>', page, re.S)
    txt = ''
    if sec:
        txt = re.sub(r'<li><b>(.*?)</b>', r'\n- **\1.**', sec.group(1))
        txt = html.unescape(re.sub(r'<[^>]+>', ' ', re.sub(r'<a href="([^"]*)">([^<]*)</a>', r'[\2](\1)', txt)))
        txt = re.sub(r'\s+', ' ', txt)
    return {'md': md.split('## Communication advice', 1)[-1].split('\n## ', 1)[0] if '## Communication advice' in md
            else '', 'html': txt}


def multirank_cases(exe, tmp):
    for name, late in (('skew', 500), ('noskew', 0)):
        a = rank_trace(tmp, 0, (100, 2000), (100 + late, 100 + late))
        b = rank_trace(tmp, 1, (100 + late, 2000 + late), (100, 100))
        out = os.path.join(tmp, 'job_' + name)
        p = subprocess.run([exe, '-q', a, b, '-o', out], capture_output=True, text=True)
        check(p.returncode == 0, f'{name}: multi-rank exit 0', p.stderr[-500:])
        texts = advice_texts(out) if p.returncode == 0 else {'md': '', 'html': ''}
        for where, adv in texts.items():
            w = f'{name} ({where})'
            if late:
                check(adv.find('**Waiting for other ranks.**') < adv.find('**Transfers.**') and
                      '**Waiting' in adv, f'{w}: the wait first', adv)
                check('over 2 collectives the ranks wait 500.0 us each on average for the last to arrive; rank 0 '
                      'waits most, 1000.0 us; rank 1 arrives last at 2 of them' in adv, f'{w}: the measured waits',
                      adv)
                check('Impact: up to 1000.0 us on rank 0 (500.0 us per rank on average)' in adv, f'{w}: the saving',
                      adv)
                check('[its report](rank1/standalone_analysis_fair.md)' in adv, f'{w}: the straggler\'s report linked',
                      adv)
                check('the 2 collectives take 200.0 us (comm latency, summed)' in adv, f'{w}: the transfers', adv)
            else:
                check('**Waiting' not in adv and '**Transfers.**' in adv, f'{w}: no waiting advice without skew', adv)
        if late:  # a computation kernel [150, 250) inside rank 0's first wait [100, 600): 900 of 1000 us exposed
            a = rank_trace(tmp, 0, (100, 2000), (100 + late, 100 + late), compute(140, 3, 150, 100, stream=8))
            p = subprocess.run([exe, '-q', a, b, '-o', out + '_busy'], capture_output=True, text=True)
            fair = os.path.join(out + '_busy', 'rank0', 'standalone_analysis_fair.md')
            md = open(fair, encoding='utf-8').read() if os.path.exists(fair) else ''
            m = re.search(r'waited 1000\.0 µs in total .*?, (\d+\.\d+) ms of it exposed = (\d+\.\d) %', md)
            check(m is not None and m.groups() == ('0.90', '34.7'), f'{name} rank 0: the exposed part of the measured '
                  'wait (900 us of the 2590 us timeline)', m and m.groups())
        # each rank's own report: its wait measured across the ranks (rank 0: 500 us at each of 2), none without skew
        for r, wait in ((0, 1000.0 if late else None), (1, None)):
            fair = os.path.join(out, f'rank{r}', 'standalone_analysis_fair.md')
            md = open(fair, encoding='utf-8').read() if os.path.exists(fair) else ''
            if wait is None:
                check(md and 'Collectives waiting' not in md, f'{name} rank {r}: no waiting advice (it waits 0)')
            else:
                check(f'this rank, rank {r}, waited {wait:.1f} µs in total for the last rank to arrive at its 2 '
                      'matched collectives' in md and 'Measured across the job\'s 2 ranks' in md and
                      'arrives last most often' in md and 'as long as the fastest of the same kind' not in md,
                      f'{name} rank {r}: the measured wait, not the single-trace estimate', md[-3000:])


def ddp_fusion_cases(exe, tmp):
    """elementwise kernels directly under DDP's module (its buffers' flatten / unflatten copies) get no fusion advice
    ("fuse DDP with torch.compile"); the same under a model module do"""
    for module, advised in (('DistributedDataParallel', False), ('LayerNorm', True)):
        ev, corr = [], 1
        for k, t0 in enumerate((0, 300)):
            ev.append(annot(f'nn.Module: {module}_{k}', t0, 200, 'python_function'))
            for dt in (10, 60):
                ev += [g.op('aten::add', t0 + dt, 30, dims=[[1024, 1024], [1024, 1024]]), g.launch(t0 + dt + 1, corr),
                       g.kernel('k_add', t0 + dt + 5, 10, corr)]
                corr += 1
        _, md = analyse(exe, tmp, 'fusion_' + module, ev)
        got = heading(recs(md), 'Elementwise fusion') is not None
        check(got == advised, f'{module}: fusion advice {"given" if advised else "not given"}',
              re.findall(r'### \d+\. .*', md))


def large_cases(exe, tmp):
    ev = [g.op('aten::mm', 0, 50), g.launch(1, 1), g.kernel('k_mm_big', 5, 400, 1),
          g.op('myext::fancy_op', 500, 50, dims=[[64, 64]]), g.launch(501, 2), g.kernel('k_fancy', 505, 300, 2)]
    out, md = analyse(exe, tmp, 'large', ev)
    lines = md.split('Ops with at least 10 % of GPU kernel time:', 1)[-1].split('\n\n<a id', 1)[0]
    mm = next((l for l in lines.split('\n') if l.startswith('- `aten::mm`')), '')
    fancy = next((l for l in lines.split('\n') if l.startswith('- `myext::fancy_op`')), '')
    check('not judged (no input shapes recorded)' in mm and 'recommendation' not in mm.split('):', 1)[-1]
          .replace('no roofline, verdict or recommendation', ''), 'large: aten::mm without shapes not judged', mm)
    check('not judged (no perf model for the op)' in fancy, 'large: an op no family models not judged', fancy)
    check('below 50 % of peak' not in md, 'large: no per-op recommendation without a model')
    claims_ok(out, os.path.join(tmp, 'large.json'), 'large')


def fixtures(exe, traces, tmp):
    a100 = os.path.join(traces, 'nv_a100_ddp_resnet_w2_rank0.json.gz')
    out = os.path.join(tmp, 'a100')
    p = subprocess.run([exe, '-q', a100, '-o', out], capture_output=True, text=True)
    check(p.returncode == 0, 'a100: exit 0', p.stderr[-500:])
    md = open(os.path.join(out, 'standalone_analysis_fair.md'), encoding='utf-8').read()
    rs = recs(md)
    h = heading(rs, 'Collectives waiting')
    check(h == 'Collectives waiting for other ranks: 1.4 % of the GPU timeline', 'a100: waiting advised', list(rs))
    if h:
        check('3 collective call(s)' in rs[h][0] and '10.47 ms beyond the fastest, 9.03 ms of it exposed' in rs[h][0]
              and 'allreduce of 30.04 MiB, 3 calls, 1 of them slow: the fastest 2424.4 µs at 13 GB/s bus bandwidth, '
              'the slowest 5983.0 µs at 5.27 GB/s' in rs[h][0], 'a100: the waiting figures', rs[h][0])
    h = heading(rs, 'Exposed communication')
    check(h == 'Exposed communication, other collectives: 4.6 % of the GPU timeline', 'a100: the rest', list(rs))
    if h:
        check('Of it DDP buffer broadcasts 0.11 ms (under 1 % of the exposed communication' in rs[h][0],
              'a100: the DDP broadcasts named, too small to advise apart', rs[h][0])
        check('All 3 calls of the allreduce of 25.32 MiB run within 2x' in rs[h][0], 'a100: the uniform size',
              rs[h][0])
    check('torch.compile' not in ''.join(v[1] for k, v in rs.items() if 'communication' in k or 'Collectives' in k),
          'a100: no torch.compile advice for communication')
    for op in ('aten::convolution_backward', 'aten::cudnn_batch_norm_backward', 'aten::convolution'):
        line = next((l for l in md.split('\n') if l.startswith('- `%s`' % op)), '')
        check('not judged (no input shapes recorded)' in line, f'a100: {op} not judged', line)
    claims_ok(out, a100, 'a100')

    ranks = [os.path.join(traces, f'nv_v100_dlrm_w8_rank{r}.json') for r in range(8)]
    for r, first in ((1, 'Collectives waiting'), (2, None)):
        out = os.path.join(tmp, f'dlrm{r}')
        subprocess.run([exe, '-q', ranks[r], '-o', out], capture_output=True, text=True)
        md = open(os.path.join(out, 'standalone_analysis_fair.md'), encoding='utf-8').read()
        if first:
            m = re.search(r'### 1\. (.*)', md)
            check(m is not None and m.group(1).startswith(first), f'dlrm rank {r}: waiting first',
                  m.group(1) if m else '')
            check('alltoall of 0.02 MiB, 2 calls, 1 of them slow: the fastest 545.0 µs' in md and
                  'the slowest 7635.0 µs' in md, f'dlrm rank {r}: the slow all_to_all', md[:200])
        else:
            check('Collectives waiting' not in md and 'All 2 calls' not in md and 'all_reduce_perf' not in md,
                  f'dlrm rank {r}: small messages, no bandwidth claim')
    out = os.path.join(tmp, 'dlrm_job')
    p = subprocess.run([exe, '-q'] + ranks + ['-o', out, '--jobs', '2'], capture_output=True, text=True)
    check(p.returncode == 0, 'dlrm job: exit 0', p.stderr[-500:])
    texts = advice_texts(out)
    with open(os.path.join(out, 'perf_report_csvs', 'straggler_summary.csv'), encoding='utf-8') as f:
        rows = list(csv.DictReader(f))
    waits = {int(r['rank']): float(r['total_wait_time_us']) for r in rows} if rows and 'total_wait_time_us' in rows[0] \
        else {}
    check(len(waits) == 8, 'dlrm job: the straggler summary read', rows[:1])
    with open(os.path.join(out, 'perf_report_csvs', 'nccl_implicit_sync.csv'), encoding='utf-8') as f:
        sync = list(csv.DictReader(f))
    lat = sum(float(r['comm_latency']) for r in sync)
    skew = max(sync, key=lambda r: float(r['skew in start time'])) if sync else None
    for where, adv in texts.items():
        w = f'dlrm job ({where})'
        if waits:
            worst = max(waits, key=waits.get)
            mean = sum(waits.values()) / 8
            check(f'rank {worst} waits most, {waits[worst]:.1f} us' in adv and f'wait {mean:.1f} us each' in adv and
                  f'Impact: up to {waits[worst]:.1f} us on rank {worst} ({mean:.1f} us per rank on average)' in adv,
                  f'{w}: the waits of the straggler summary', adv[:600], worst, mean)
        check('rank 7 arrives last at 5 of them' in adv and adv.find('**Waiting') < adv.find('**Transfers'),
              f'{w}: rank 7 the straggler, the wait first', adv[:600])
        check(skew is not None and re.search(r'the largest skew is %.1f us \([^()]*_%s\)\.' % (
              float(skew['skew in start time']), skew['collective_id']), adv) is not None,
              f'{w}: the largest skew of nccl_implicit_sync', adv[:600],
              skew and (skew['skew in start time'], skew['collective_id']))
        check(f'take {lat:.1f} us (comm latency, summed)' in adv, f'{w}: the transfers sum the comm latencies', lat)
    # each rank's own report states its measured wait, the straggler summary's figure for that rank
    for r in range(8):
        md = open(os.path.join(out, f'rank{r}', 'standalone_analysis_fair.md'), encoding='utf-8').read()
        check(r in waits and f'this rank, rank {r}, waited {waits[r]:.1f} µs in total for the last rank to arrive '
              'at its 8 matched collectives' in md and 'Measured across the job\'s 8 ranks' in md and
              'rank 7 arrives last most often' in md, f'dlrm job rank {r}: its measured wait',
              waits.get(r), re.findall(r'Measured across[^\n]*', md))
        check('as long as the fastest of the same kind' not in md, f'dlrm job rank {r}: no single-trace estimate')


def main():
    exe = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        if len(sys.argv) > 2:
            traces = os.path.join(sys.argv[2], 'traces')
            if not os.path.isdir(traces):
                skip(f'no {traces}')
            fixtures(exe, traces, tmp)
        else:
            ddp_cases(exe, tmp)
            wait_cases(exe, tmp)
            multirank_cases(exe, tmp)
            ddp_fusion_cases(exe, tmp)
            large_cases(exe, tmp)
    sys.exit(finish())


if __name__ == '__main__':
    main()
