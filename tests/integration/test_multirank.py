#!/usr/bin/env python3
"""Multi-rank analysis (issue 20, items 1 and 3): jarvis-analyze on the traces of one job.

usage: test_multirank.py JARVIS_ANALYZE [SHARED_DIR]

1. A generated 4-rank job (always): three all_reduces of 1M floats in process group "0"; rank 2 arrives last at
   each, 40, 50 and 60 us after rank 0 (the first), and all ranks end together 100 us after the last arrival. The
   hand-computed skews, straggler, waits, comm latency (100 us), algbw 41.94304 GB/s and busbw x 1.5 are asserted
   exactly, so a wrong skew or straggler fails; ranks come from distributedInfo (the files are given shuffled);
   the same job given as a folder and as a quoted glob; stream 7 of rank 0 carries one gap of each of HTA's idle
   kinds (host wait 650 us, kernel wait 20 ns, other 50 us); a compute kernel under 20 us of communication sets
   the overlap. A corrupt trace among the ranks: exit 1 naming it, no output; repeated ranks: a warning, order.
2. The 8 ranks of nv_v100_dlrm_w8 (../shared/traces): nccl_implicit_sync and straggler_summary against
   TraceLens' multi-rank report on the same traces (skew, earliest arrival, waits, comm latency, per-rank start,
   duration and wait; coll_analysis' 7 message sizes against TraceLens' one summary row: count-weighted means,
   extremes, total); the bandwidth of two all_reduces from their nccl:all_reduce annotations by hand; each
   rank's overlap and HTA idle breakdown against an independent computation from the JSON here; rank3/ equals a
   one-trace run of that trace.
   A 3-rank job whose rank 1 has no communication kernel: that rank's reports (written before the job is
   built, its model freed) equal a one-trace run's; the other rank's take the wait measured across the ranks.
3. The two sampled ranks nv_sampled_w128_rank0/1: 10 NCCL kernels each; the two all_gathers of stream 203 pair
   up with the skews read by hand from the JSON (84, 1292 us), the pairs of stream 84 that disagree on kind or
   size are flagged; ranks 0 and 1 from distributedInfo; the idle breakdown against the same independent
   computation.
"""
import csv, gzip, json, os, shutil, subprocess, sys, tempfile
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/: jvcheck
from jvcheck import check, finish, skip_part  # noqa: E402
import md_check  # noqa: E402

NCCL = 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)'
NELEMS = 1 << 20


def rows(path):
    with open(path, encoding='utf-8', newline='') as f:
        return list(csv.DictReader(f))


def near(a, b, tol=1e-6):
    return a is not None and b is not None and abs(float(a) - float(b)) <= tol * max(1.0, abs(float(b)))


def run(exe, args, out):
    p = subprocess.run([exe, '-q'] + args + ['-o', out], capture_output=True, text=True)
    return p.returncode, p.stderr


# ---------- 1. the generated job ----------

def rank_trace(r, world=4, rank_in_info=True, comm=True):
    ev, corr = [], [0]

    def launched(name, ts, dur, stream, launch_ts, parent=None):
        corr[0] += 1
        if parent:
            ev.append(parent)
        ev.append({'ph': 'X', 'cat': 'cuda_runtime', 'name': 'cudaLaunchKernel', 'pid': 100, 'tid': 100,
                   'ts': launch_ts, 'dur': 2, 'args': {'correlation': corr[0]}})
        ev.append({'ph': 'X', 'cat': 'kernel', 'name': name, 'pid': 0, 'tid': stream, 'ts': ts, 'dur': dur,
                   'args': {'correlation': corr[0], 'stream': stream, 'device': 0}})

    # stream 7: A [100, 150), B [150.02, 200) launched at 120 (kernel wait 0.02 us), C [300, 350) launched at 280
    # after B ended (host wait 100 us), D [400, 450) launched at 250, before C ended (other 50 us)
    launched('gemm_a', 100, 50, 7, 90)
    launched('gemm_b', 150.02, 49.98, 7, 120)
    launched('gemm_c', 300, 50, 7, 280)
    launched('gemm_d', 400, 50, 7, 250)
    for j, base in enumerate((1000, 3000, 5000) if comm else ()):
        skew = 40 + 10 * j
        off = {0: 0, 1: 5, 2: skew, 3: 3}[r]
        start, end = base + off, base + skew + 100
        op = {'ph': 'X', 'cat': 'cpu_op', 'name': 'record_param_comms', 'pid': 100, 'tid': 100, 'ts': start - 20,
              'dur': 15, 'args': {'Collective name': 'allreduce', 'dtype': 'Float', 'In msg nelems': NELEMS,
                                  'Out msg nelems': NELEMS, 'Group size': world, 'Process Group Name': '0',
                                  'Process Group Ranks': '[0, 1, 2, 3]'}}
        launched(NCCL, start, end - start, 20, start - 15, parent=op)
        if j == 0:  # a compute kernel under the first 20 us of the first collective, launched after D ended
            launched('gemm_e', start, 20, 7, start - 12)
    doc = {'deviceProperties': [{'id': 0, 'name': 'NVIDIA H100 80GB HBM3', 'totalGlobalMem': 85e9,
                                 'computeMajor': 9, 'computeMinor': 0, 'numSms': 132}],
           'distributedInfo': {'backend': 'nccl', 'world_size': world}, 'traceEvents': ev}
    if rank_in_info:
        doc['distributedInfo']['rank'] = r
    return doc


def write(path, doc):
    with open(path, 'w', encoding='utf-8') as f:
        json.dump(doc, f)


def generated(exe, tmp):
    job = os.path.join(tmp, 'job')
    os.makedirs(job)
    paths = {}
    for r in range(4):
        paths[r] = os.path.join(job, f'r{r}.json')
        write(paths[r], rank_trace(r))
    out = os.path.join(tmp, 'gen')
    rc, err = run(exe, [paths[3], paths[1], paths[0], paths[2]], out)
    check(rc == 0, 'generated job: exit 0', rc, err[-800:])
    if rc:
        return
    csvs = os.path.join(out, 'perf_report_csvs')
    for r in range(4):
        check(os.path.isfile(os.path.join(out, f'rank{r}', 'perf_report_csvs', 'gpu_timeline.csv')),
              f'rank{r}/ holds the one-trace outputs')
    rs = {int(x['rank']): x for x in rows(os.path.join(csvs, 'rank_summary.csv'))}
    check(sorted(rs) == [0, 1, 2, 3], 'ranks 0-3', sorted(rs))
    for r in range(4):  # rank numbers from distributedInfo, not from the (shuffled) order given
        check(rs[r]['trace'].endswith(f'r{r}.json'), f'rank {r} is r{r}.json', rs[r]['trace'])
    sync = rows(os.path.join(csvs, 'nccl_implicit_sync.csv'))
    check(len(sync) == 3, '3 collectives matched', len(sync))
    for j, x in enumerate(sync):
        skew = 40 + 10 * j
        check(x['collective_id'] == f'0_{j}' and x['Process Group Name'] == '0', f'collective {j}: id', x)
        check(near(x['skew in start time'], skew), f'collective {j}: skew {skew} us', x['skew in start time'])
        check(x['straggler rank'] == '2', f'collective {j}: rank 2 arrives last', x['straggler rank'])
        check(x['earliest arrival rank'] == '0', f'collective {j}: rank 0 first', x['earliest arrival rank'])
        check(near(x['comm_latency'], 100), f'collective {j}: comm latency 100 us', x['comm_latency'])
        check(near(x['skew in end time'], 0), f'collective {j}: all end together', x['skew in end time'])
        waits = {0: skew, 1: skew - 5, 2: 0, 3: skew - 3}
        check(near(x['avg_wait_time'], sum(waits.values()) / 4), f'collective {j}: mean wait', x['avg_wait_time'])
        for r, w in waits.items():
            check(near(x[f'rank_{r}_wait_time'], w), f'collective {j}: rank {r} waits {w} us', x[f'rank_{r}_wait_time'])
        check(near(x['algo bw (GB/s)'], NELEMS * 4 / 100e3), f'collective {j}: algbw 41.94304 GB/s', x['algo bw (GB/s)'])
        check(near(x['bus bw (GB/s)'], NELEMS * 4 / 100e3 * 1.5), f'collective {j}: busbw = algbw x 2(n-1)/n',
              x['bus bw (GB/s)'])
        check(near(x['Full msg size (MB)'], 4.0), f'collective {j}: 4 MiB', x['Full msg size (MB)'])
    ca = rows(os.path.join(csvs, 'coll_analysis.csv'))
    check(len(ca) == 1, 'coll_analysis: one message size', len(ca))
    if ca:
        z = ca[0]
        check(z['Collective name'] == 'allreduce' and z['dtype'] == 'Float' and z['In msg nelems'] == str(NELEMS),
              'coll_analysis: allreduce, Float, 1M', z)
        check(z['count'] == '3' and z['operation_count'] == '12', 'coll_analysis: 3 collectives, 12 kernels', z)
        check(near(z['skew in start time_mean'], 50) and near(z['skew in start time_max'], 60),
              'coll_analysis: skew mean 50, max 60', z)
        check(z['straggler rank'] == '2' and z['times arrived last'] == '3', 'coll_analysis: straggler rank 2, 3x', z)
        check(near(z['Total comm latency (ms)'], 0.3), 'coll_analysis: 0.3 ms', z)
    st = rows(os.path.join(csvs, 'straggler_summary.csv'))
    check(st and st[0]['rank'] == '2' and near(st[0]['total_wait_time_us'], 0) and st[0]['times_arrived_last'] == '3',
          'straggler_summary: rank 2 first, no wait, last 3 times', st[:1])
    # rank 0: comm = (140 + 150 + 160) us, 20 of it under gemm_e; stream 7's gaps by HTA's rule
    check(near(float(rs[0]['total_comm_time_ms']) * 1e3, 450), 'rank 0: 450 us of communication',
          rs[0]['total_comm_time_ms'])
    check(near(float(rs[0]['comm_overlapped_pct']), 100 * 20 / 450), 'rank 0: 20 of 450 us overlapped',
          rs[0]['comm_overlapped_pct'])
    check(near(float(rs[2]['comm_overlapped_pct']), 100 * 20 / 300), 'rank 2: 20 of 300 us overlapped',
          rs[2]['comm_overlapped_pct'])
    idle = {(x['rank'], x['stream'], x['idle_category']): float(x['idle_time'])
            for x in rows(os.path.join(csvs, 'idle_time_breakdown.csv'))}
    check(near(idle.get(('0', '7', 'host_wait')), 100 + (1000 - 450)), 'rank 0 stream 7: host wait 650 us',
          idle.get(('0', '7', 'host_wait')))
    check(near(idle.get(('0', '7', 'kernel_wait')), 0.02), 'rank 0 stream 7: kernel wait 0.02 us',
          idle.get(('0', '7', 'kernel_wait')))
    check(near(idle.get(('0', '7', 'other')), 50), 'rank 0 stream 7: other 50 us', idle.get(('0', '7', 'other')))
    # stream 20 of rank 0: the comm kernels end at 1140 and 3150; the next ones launched 15 us before their start
    check(near(idle.get(('0', '20', 'host_wait')), (3000 - 1140) + (5000 - 3150)), 'rank 0 stream 20: host wait',
          idle.get(('0', '20', 'host_wait')))
    md = open(os.path.join(out, 'multirank_report.md'), encoding='utf-8').read()
    check('| 0 | allreduce | Float | 4.000 | 3 | 100.0 | 50.0 / 60.0 | 2 (3) | 41.94 | 62.91 | 0.300 |' in md,
          'multirank_report.md: the per-size row', md[:3000])
    if md_check.MarkdownIt:
        problems = md_check.check_files([os.path.join(out, 'multirank_report.md')])
        check(not problems, 'multirank_report.md: valid markdown, links resolve', problems)
    else:
        skip_part(md_check.NEEDS)
    html = open(os.path.join(out, 'report.html'), encoding='utf-8').read()
    check(html.count('<g class="rank"') == 4 and 'rank2/report.html' in html, 'report.html: 4 timeline rows, links')
    # the same job as a folder and as a pattern the shell did not expand
    for form, args in (('folder', [job]), ('glob', [os.path.join(job, 'r*.json')])):
        o2 = os.path.join(tmp, form)
        rc, err = run(exe, args, o2)
        check(rc == 0, f'{form}: exit 0', rc, err[-500:])
        if rc == 0:
            a = open(os.path.join(csvs, 'coll_analysis.csv')).read()
            b = open(os.path.join(o2, 'perf_report_csvs', 'coll_analysis.csv')).read()
            check(a == b, f'{form}: same coll_analysis')
    # the output does not depend on the number of threads
    outs = {}
    for jobs in ('1', '3'):
        o = os.path.join(tmp, f'jobs{jobs}')
        rc, err = run(exe, [job, '--jobs', jobs], o)
        check(rc == 0, f'--jobs {jobs}: exit 0', rc, err[-300:])
        outs[jobs] = o
    for rel in ['multirank_report.md', 'report.html'] + [os.path.join('perf_report_csvs', f) for f in (
            'coll_analysis.csv', 'nccl_implicit_sync.csv', 'straggler_summary.csv', 'rank_summary.csv',
            'idle_time_breakdown.csv')] + [os.path.join(f'rank{r}', f) for r in range(4) for f in (
                os.path.join('perf_report_csvs', 'gpu_timeline.csv'), 'standalone_analysis_fair.md', 'report.html')]:
        a, b = (os.path.join(outs[j], rel) for j in ('1', '3'))
        check(os.path.isfile(a) and open(a, 'rb').read() == open(b, 'rb').read(), f'--jobs 1 and 3: same {rel}')
    # one corrupt trace: exit 1 naming it, nothing published
    bad = os.path.join(tmp, 'bad')
    os.makedirs(bad)
    for r in range(3):
        shutil.copy(paths[r], bad)
    with open(os.path.join(bad, 'r3.json'), 'w') as f:
        f.write('{"traceEvents": [{"ph": "X", "name": ')
    o3 = os.path.join(tmp, 'badout')
    rc, err = run(exe, [bad], o3)
    check(rc == 1 and 'r3.json' in err and not os.path.exists(o3), 'a corrupt rank: exit 1 naming it, no output',
          rc, err[-400:])
    # a folder without traces, a pattern matching nothing: as a missing trace (exit 1)
    empty = os.path.join(tmp, 'empty')
    os.makedirs(empty)
    for args in ([empty], [os.path.join(empty, '*.json')]):
        rc, err = run(exe, args, os.path.join(tmp, 'emptyout'))
        check(rc == 1 and 'error: ' + empty in err, f'{args[0]}: exit 1 naming it', rc, err[-300:])
    # repeated ranks: numbered in the order given, with a warning
    dup = os.path.join(tmp, 'dup')
    os.makedirs(dup)
    for r in range(2):
        write(os.path.join(dup, f'd{r}.json'), rank_trace(0, world=2))
    rc, err = run(exe, [dup], os.path.join(tmp, 'dupout'))
    check(rc == 0 and 'missing or repeated' in err, 'repeated ranks: a warning', rc, err[-400:])
    check(os.path.isdir(os.path.join(tmp, 'dupout', 'rank1')), 'repeated ranks: rank0/ and rank1/ by order')
    # a rank without communication kernels has its reports written as soon as it is analysed (nothing of the job
    # can change them) and its model freed: they are those of a one-trace run; the other rank's, written after
    # the job, take the waits measured across the ranks
    mix = os.path.join(tmp, 'mix')
    os.makedirs(mix)
    write(os.path.join(mix, 'a.json'), rank_trace(0, world=3))
    write(os.path.join(mix, 'b.json'), rank_trace(1, world=3, comm=False))
    write(os.path.join(mix, 'c.json'), rank_trace(2, world=3))  # last at each collective: rank 0 waits
    rc, err = run(exe, [mix], os.path.join(tmp, 'mixout'))
    rc1, err1 = run(exe, [os.path.join(mix, 'b.json')], os.path.join(tmp, 'mixone'))
    check(rc == 0 and rc1 == 0, 'a rank without collectives: exit 0', rc, err[-300:], rc1, err1[-300:])
    for f in ('standalone_analysis_fair.md', 'standalone_analysis_rough.md', 'report.html'):
        a, b = os.path.join(tmp, 'mixone', f), os.path.join(tmp, 'mixout', 'rank1', f)
        check(os.path.isfile(a) and os.path.isfile(b) and open(a, 'rb').read() == open(b, 'rb').read(),
              f'a rank without collectives: rank1/{f} as a one-trace run')
    fair0 = os.path.join(tmp, 'mixout', 'rank0', 'standalone_analysis_fair.md')
    check(os.path.isfile(fair0) and "Measured across the job's 3 ranks" in open(fair0, encoding='utf-8').read(),
          'a rank with collectives: its wait measured across the 3 ranks')


# ---------- an independent reading of a trace: HTA's idle rule and the overlap ----------

COMM = ('nccl', 'rccl', 'msccl', 'nvshmem', 'deep_ep::', 'dpsk::ep::', 'cross_device_reduce', 'allreduce',
        'all_reduce', 'allgather', 'all_gather', 'reducescatter', 'reduce_scatter', 'alltoall', 'all_to_all')


def load(path):
    with (gzip.open(path, 'rt', encoding='utf-8') if path.endswith('.gz') else open(path, encoding='utf-8')) as f:
        return json.load(f)


def ns(v):
    """us to integer ns, exact for epoch timestamps (a double of ns beyond 2^53 loses digits)"""
    return int(v) * 1000 if isinstance(v, int) else int((Decimal(repr(v)) * 1000).to_integral_value())


def union(iv):
    out = []
    for s, e in sorted(iv):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def inter(a, b):
    i = j = tot = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        tot += max(0, hi - lo)
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return tot


def independent(doc):
    """host wait, kernel wait, other (ns, summed over streams), total comm and comm under compute (ns)"""
    ev = [e for e in doc['traceEvents'] if e.get('ph') == 'X']
    launch = {}
    for e in ev:
        if e.get('cat') in ('cuda_runtime', 'cuda_driver') and 'correlation' in e.get('args', {}):
            launch.setdefault(e['args']['correlation'], ns(e['ts']))
    gpu = [e for e in ev if e.get('cat') in ('kernel', 'gpu_memcpy', 'gpu_memset')]
    per = {}
    for e in gpu:
        a = e.get('args', {})
        per.setdefault(a.get('stream', e.get('tid')), []).append(
            (ns(e['ts']), ns(e['ts']) + ns(e.get('dur', 0)), launch.get(a.get('correlation'))))
    host = kern = other = 0
    for evs in per.values():
        evs.sort(key=lambda x: (x[0], x[1]))
        for p, c in zip(evs, evs[1:]):
            gap = c[0] - p[1]
            if gap <= 0:
                continue
            if c[2] is not None and c[2] > p[1]:
                host += gap
            elif gap < 30:
                kern += gap
            else:
                other += gap
    comm, comp = [], []
    for e in gpu:
        if e['args'].get('correlation') not in launch or e['cat'] == 'gpu_memcpy':
            continue  # unlinked GPU events stay out of the timeline (TraceLens' default), memcpy is neither
        iv = (ns(e['ts']), ns(e['ts']) + ns(e.get('dur', 0)))
        (comm if e['cat'] == 'kernel' and any(k in e['name'].lower() for k in COMM) else comp).append(iv)
    cu, pu = union(comm), union(comp)
    return host, kern, other, sum(e - s for s, e in cu), inter(cu, pu)


def check_ranks_independent(label, out, traces):
    rs = {int(x['rank']): x for x in rows(os.path.join(out, 'perf_report_csvs', 'rank_summary.csv'))}
    for r, path in traces.items():
        h, k, o, comm, ov = independent(load(path))
        x = rs.get(r, {})
        for col, want in (('host_wait_ms', h), ('kernel_wait_ms', k), ('other_wait_ms', o),
                          ('total_comm_time_ms', comm)):
            check(near(float(x.get(col, 'nan')), want / 1e6, 1e-9), f'{label} rank {r}: {col} = {want / 1e6} ms',
                  x.get(col))
        if comm:
            check(near(float(x['comm_overlapped_pct']), 100.0 * ov / comm, 1e-9), f'{label} rank {r}: overlap',
                  x['comm_overlapped_pct'], 100.0 * ov / comm)


# ---------- 2. DLRM, 8 ranks, against TraceLens ----------

def dlrm(exe, tmp, shared):
    traces = {r: os.path.join(shared, 'traces', f'nv_v100_dlrm_w8_rank{r}.json') for r in range(8)}
    tl = os.path.join(shared, 'traces', 'tracelens', 'multirank_nv_v100_dlrm_w8')
    if not all(os.path.isfile(p) for p in traces.values()) or not os.path.isdir(tl):
        skip_part('dlrm: ../shared/traces/nv_v100_dlrm_w8_rank*.json or its TraceLens report missing')
        return
    out = os.path.join(tmp, 'dlrm')
    rc, err = run(exe, [os.path.join(shared, 'traces', 'nv_v100_dlrm_w8_rank*.json')], out)
    check(rc == 0, 'dlrm: exit 0', rc, err[-800:])
    if rc:
        return
    csvs = os.path.join(out, 'perf_report_csvs')
    ours = rows(os.path.join(csvs, 'nccl_implicit_sync.csv'))
    theirs = rows(os.path.join(tl, 'nccl_implicit_sync.csv'))
    check(len(ours) == len(theirs) == 8, 'dlrm: 8 collectives, as TraceLens', len(ours), len(theirs))
    cols = ['comm_latency', 'skew in start time', 'earliest arrival rank', 'avg_wait_time', 'skew in end time']
    cols += [f'rank_{r}_{k}' for r in range(8) for k in ('ts', 'dur', 'wait_time')]
    for i, (a, b) in enumerate(zip(ours, theirs)):
        bad = [c for c in cols if not near(a[c], b[c], 1e-12)]
        check(not bad, f'dlrm collective {i}: {len(cols)} figures as TraceLens', [(c, a[c], b[c]) for c in bad])
    so = {x['rank']: x for x in rows(os.path.join(csvs, 'straggler_summary.csv'))}
    for b in rows(os.path.join(tl, 'straggler_summary.csv')):
        a = so.get(b['rank'], {})
        for c in ('total_wait_time_us', 'times_arrived_last', 'times_arrived_first', 'num_collectives',
                  'total_nccl_dur_us', 'pct_arrived_last'):
            check(near(a.get(c), b[c], 1e-9), f'dlrm straggler_summary rank {b["rank"]}: {c}', a.get(c), b[c])
        check(near(a.get('mean_wait_time_us'), b['mean_wait_time_us'], 1e-3),
              f'dlrm straggler_summary rank {b["rank"]}: mean wait (TraceLens rounds to 0.1)', a.get('mean_wait_time_us'))
    # TraceLens' per-size summary has one row for all 8 collectives (it knows no size); ours, one per message size:
    # their count-weighted means, extremes and total are TraceLens' row
    ca = rows(os.path.join(csvs, 'coll_analysis.csv'))
    tls = rows(os.path.join(tl, 'nccl_summary_implicit_sync.csv'))
    n = sum(int(x['count']) for x in ca)
    check(len(tls) == 1 and n == int(tls[0]['count']) == 8 and len(ca) == 7, 'dlrm: 8 collectives in 7 sizes', n, len(ca))
    if len(tls) == 1 and n:
        t = tls[0]
        for ours_col, theirs_col in (('comm_latency_mean', 'comm_latency_mean'),
                                     ('skew in start time_mean', 'skew in start time_mean'),
                                     ('skew in end time_mean', 'skew in end time_mean')):
            mean = sum(float(x[ours_col]) * int(x['count']) for x in ca) / n
            check(near(mean, t[theirs_col], 1e-9), f'dlrm coll_analysis: count-weighted {ours_col} as TraceLens', mean,
                  t[theirs_col])
        for col, f in (('comm_latency_min', min), ('comm_latency_max', max), ('skew in start time_max', max)):
            v = f(float(x[col]) for x in ca)
            check(near(v, t[col], 1e-9), f'dlrm coll_analysis: {col} as TraceLens', v, t[col])
        tot = sum(float(x['Total comm latency (ms)']) for x in ca)
        check(near(tot, t['Total comm latency (ms)'], 1e-9), 'dlrm coll_analysis: total comm latency as TraceLens', tot)
    # by hand: collective 4 all-reduces nccl:all_reduce's [[394241]] floats, comm latency 86 us (rank 4's kernel);
    # collective 7 226960 floats in 69 us
    for i, nel, lat in ((4, 394241, 86), (7, 226960, 69)):
        x = ours[i]
        check(x['Collective name'] == 'allreduce' and x['In msg nelems'] == str(nel), f'dlrm {i}: allreduce of {nel}', x)
        check(near(x['algo bw (GB/s)'], nel * 4 / (lat * 1e3)), f'dlrm {i}: algbw by hand', x['algo bw (GB/s)'])
        check(near(x['bus bw (GB/s)'], nel * 4 / (lat * 1e3) * 2 * 7 / 8), f'dlrm {i}: busbw by hand', x['bus bw (GB/s)'])
    check(ours[0]['Collective name'] == 'alltoall' and ours[0]['In msg nelems'] == '6144',
          'dlrm 0: all_to_all of 6144 (its SendRecv kernel named by the annotation)', ours[0])
    check_ranks_independent('dlrm', out, traces)
    one = os.path.join(tmp, 'dlrm_one')
    rc, _ = run(exe, [traces[3]], one)
    for f in ('gpu_timeline.csv', 'ops_summary.csv', 'kernel_summary.csv'):
        a, b = os.path.join(one, 'perf_report_csvs', f), os.path.join(out, 'rank3', 'perf_report_csvs', f)
        check(rc == 0 and open(a).read() == open(b).read(), f'dlrm: rank3/{f} as a one-trace run')


# ---------- 3. the sampled ranks ----------

def sampled(exe, tmp, shared):
    traces = {r: os.path.join(shared, 'traces', f'nv_sampled_w128_rank{r}.json.gz') for r in range(2)}
    if not all(os.path.isfile(p) for p in traces.values()):
        skip_part('sampled: ../shared/traces/nv_sampled_w128_rank0/1 missing')
        return
    out = os.path.join(tmp, 'sampled')
    rc, err = run(exe, [traces[1], traces[0]], out)
    check(rc == 0, 'sampled: exit 0', rc, err[-800:])
    if rc:
        return
    # each rank kept 10 NCCL kernels: 8 on stream 84 (all_to_all, all_reduce) and 2 all_gathers on stream 203. No
    # process group is recorded, so each stream is a communicator. The all_gathers pair up (starts by hand from the
    # JSON: 585321 / 585405 and 185890 / 187182 us past 1682725898000000); on stream 84 the sampling kept different
    # calls on the two ranks, and the matched pairs that disagree on kind or size are flagged
    sync = rows(os.path.join(out, 'perf_report_csvs', 'nccl_implicit_sync.csv'))
    check(len(sync) == 10, 'sampled: 10 matched collectives', len(sync))
    ag = [x for x in sync if x['collective_id'].startswith('stream 203_')]
    check([x['Collective name'] for x in ag] == ['allgather'] * 2, 'sampled: 2 all_gathers on stream 203', ag)
    check([float(x['skew in start time']) for x in ag] == [84.0, 1292.0], 'sampled: all_gather skews 84, 1292 us',
          [x['skew in start time'] for x in ag])
    check(all(x['metadata mismatch'] == '0' for x in ag), 'sampled: the all_gathers agree', ag)
    mism = [x['collective_id'] for x in sync if x['metadata mismatch'] == '1']
    check(mism == [f'stream 84_{k}' for k in (0, 1, 3, 4, 5, 6)], 'sampled: 6 of stream 84\'s 8 pairs flagged', mism)
    rs = rows(os.path.join(out, 'perf_report_csvs', 'rank_summary.csv'))
    check([x['rank'] for x in rs] == ['0', '1'] and rs[0]['trace'].endswith('rank0.json.gz'),
          'sampled: ranks 0 and 1 from distributedInfo', [(x['rank'], x['trace']) for x in rs])
    check_ranks_independent('sampled', out, traces)


def main():
    exe = sys.argv[1]
    shared = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, '..', '..', '..', 'shared')
    with tempfile.TemporaryDirectory() as tmp:
        generated(exe, tmp)
        dlrm(exe, tmp, shared)
        sampled(exe, tmp, shared)
    sys.exit(finish())


if __name__ == '__main__':
    main()
