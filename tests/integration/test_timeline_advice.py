#!/usr/bin/env python3
"""The evidence behind the fair report's timeline recommendations (issue 19, items 5 and 6): what the host was
doing while the GPU idled, and which way the exposed copies went.

usage: test_timeline_advice.py JARVIS_ANALYZE

Idle:
Generated traces, times in us (the trace's unit), each with two kernels and one idle gap between them:
- data loading: the gap [10, 110) is covered by a DataLoader iterator op [15, 95), a cudaDeviceSynchronize
  [90, 105) and the second kernel's launch [106, 108): data 80, synchronisation 10 (95..105: where both
  cover, data loading wins), other host work 2, no host event 8; the action is the DataLoader's;
- synchronisation: the same gap under aten::item [12, 100): synchronisation 88, the action says so;
- nothing recorded: no host event over the gap but the launches: the action says the host was not profiled;
- other host work only (a plain op over the gap): the general advice (graphs, torch.compile) stays.
Exposed memcpy: a 100 us copy between two kernels, device to device (the advice says views / in-place / a side
stream and that pinned memory does not apply) or host to device (pinned memory and non-blocking copies), with the
copy time by direction in the issue.
"""
import os, re, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/: jvcheck
sys.path.insert(0, HERE)  # hostile_gen
from jvcheck import check, finish  # noqa: E402
import hostile_gen as g  # noqa: E402


def runtime(name, ts, dur):
    return {'ph': 'X', 'cat': 'cuda_runtime', 'name': name, 'pid': 100, 'tid': 100, 'ts': ts, 'dur': dur, 'args': {}}


def idle_rec(exe, tmp, name, host):
    """the fair report's GPU-idle recommendation (issue and action) for two kernels around a gap, with host"""
    ev = [g.launch(0, 1), g.kernel('k_a', 2, 8, 1),  # busy [2, 10)
          g.launch(106, 2), g.kernel('k_b', 110, 10, 2)] + host  # busy [110, 120)
    rc, err, _, md = g.analysed(exe, tmp, name, ev)
    check(rc == 0, f'{name}: exit 0', rc, err[-1000:])
    m = re.search(r'### \d+\. GPU idle.*?\n\n- \*\*Issue:\*\* (.*?)\n- \*\*Action:\*\* (.*?)\n', md, re.S)
    check(m is not None, f'{name}: a GPU idle recommendation')
    return (m.group(1), m.group(2)) if m else ('', '')


def memcpy_rec(exe, tmp, name, direction):
    """the fair report's exposed-memcpy recommendation (issue, action) for one copy between two kernels"""
    ev = [g.launch(0, 1), g.kernel('k_a', 2, 8, 1),
          runtime('cudaMemcpyAsync', 5, 3), {'ph': 'X', 'cat': 'gpu_memcpy', 'name': f'Memcpy {direction}',
                                             'pid': 0, 'tid': 7, 'ts': 10, 'dur': 100,
                                             'args': {'device': 0, 'stream': 7, 'correlation': 3}},
          g.launch(106, 2), g.kernel('k_b', 110, 10, 2)]
    ev[2]['args'] = {'correlation': 3}
    rc, err, _, md = g.analysed(exe, tmp, name, ev)
    check(rc == 0, f'{name}: exit 0', rc, err[-1000:])
    m = re.search(r'### \d+\. Exposed memcpy.*?\n\n- \*\*Issue:\*\* (.*?)\n- \*\*Action:\*\* (.*?)\n', md, re.S)
    check(m is not None, f'{name}: an exposed-memcpy recommendation', md[:1500])
    return (m.group(1), m.group(2)) if m else ('', '')


def parts(issue):
    """{cause: ms} from 'the host was in: data loading 0.08 ms (80 %), ...'"""
    return {k.strip(): float(v)
            for k, v in re.findall(r'([a-z ]+?) ([0-9.]+) ms \(\d+ %\)[,.]', issue.split('host was in:')[-1])}


def main():
    exe = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        issue, action = idle_rec(exe, tmp, 'data', [
            g.op('enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__', 15, 80),
            runtime('cudaDeviceSynchronize', 90, 15)])
        check('Over the 1 gaps (the longest 0.10 ms)' in issue, 'data: the gaps counted', issue)
        got = parts(issue)
        check(abs(got.get('data loading', -1) - 0.08) < 1e-9, 'data: 80 us in the DataLoader', got)
        check(abs(got.get('synchronisation', -1) - 0.01) < 1e-9, 'data: 10 us under the synchronisation', got)
        check(abs(got.get('no host event', -1) - 0.01) < 1e-9, 'data: 8 us (0.01 ms) with no host event', got)
        check('other host work' in got, 'data: the launch inside the gap is other host work', got)
        check(abs(sum(got.values()) - 0.10) < 0.006, 'data: the parts add up to the idle time', got)
        check('DataLoader' in action and 'num_workers' in action, 'data: the DataLoader action', action)

        issue, action = idle_rec(exe, tmp, 'sync', [g.op('aten::item', 12, 88)])
        check(abs(parts(issue).get('synchronisation', -1) - 0.09) < 1e-9, 'sync: 88 us (0.09 ms) under aten::item',
              issue)
        check('synchronisations' in action and '.item()' in action, 'sync: the synchronisation action', action)

        issue, action = idle_rec(exe, tmp, 'none', [])
        check(parts(issue).get('no host event', 0) > 0.09, 'none: the gap is uncovered but for the launch', issue)
        check('not profiled' in action, 'none: the action says the host was not seen', action)

        issue, action = idle_rec(exe, tmp, 'host', [g.op('aten::relu', 12, 95)])
        check(parts(issue).get('other host work', 0) > 0.09, 'host: other host work', issue)
        check('graphs' in action and 'torch.compile' in action, 'host: the general advice', action)

        issue, action = memcpy_rec(exe, tmp, 'dtod', 'DtoD (Device -> Device)')
        check('Copy time by direction: DtoD memcpy 0.10 ms.' in issue, 'dtod: the copy time by direction', issue)
        check('device to device' in action and 'does not apply' in action, 'dtod: no pinned-memory advice', action)
        issue, action = memcpy_rec(exe, tmp, 'htod', 'HtoD (Pageable -> Device)')
        check('Copy time by direction: HtoD memcpy 0.10 ms.' in issue, 'htod: the copy time by direction', issue)
        check(action.startswith('Use pinned host memory'), 'htod: the pinned-memory advice', action)
    finish()


if __name__ == '__main__':
    main()
