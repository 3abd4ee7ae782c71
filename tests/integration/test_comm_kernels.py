#!/usr/bin/env python3
"""Communication kernels not named nccl/rccl (issue 19, item 1): DeepEP's dispatch/combine, NVSHMEM and the
custom all-reduce kernels of serving stacks count as communication in gpu_timeline, not as computation.

usage: test_comm_kernels.py JARVIS_ANALYZE

A generated trace (us): a GEMM-like kernel on stream 7 over [10, 110) and, launched by another op, a kernel on
stream 9 over [60, 160): with a DeepEP name the timeline must read computation 100, total_comm 100,
exposed_comm 50; a plain reduction kernel (at::native::reduce_kernel) over the same span stays computation
(union 150, no communication), and then the rows' 200 us of kernel time exceed the GPU's 150 us of busy time:
the fair report's summary says that streams overlapped (issue 19, item 1); with a communication kernel, which is
no op row (as NCCL's), it does not.
"""
import csv, os, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/: jvcheck
sys.path.insert(0, HERE)  # hostile_gen
from jvcheck import check, finish  # noqa: E402
import hostile_gen as g  # noqa: E402


def timeline(exe, tmp, name, kname):
    ev = [g.op('aten::mm', 0, 200, dims=[[64, 64], [64, 64]]), g.launch(1, 1), g.kernel('gemm_kernel', 10, 100, 1),
          g.op('dispatch_op', 20, 10, tid=101), g.launch(21, 2, tid=101),
          g.kernel(kname, 60, 100, 2, stream=9)]
    rc, err, out, fair = g.analysed(exe, tmp, name, ev)
    check(rc == 0, f'{name}: exit 0', rc, err[-800:])
    # a communication kernel is no op row (as NCCL's): the rows' kernel time is the GEMM's 100 us, under the 150 us
    # the GPU was busy; the plain reduction is a row: 200 us of kernel time over 150 us busy, and the summary says
    # that streams overlapped
    line = '| Streams overlap | the kernel time exceeds the GPU\'s busy time (0.150 ms) by 0.050 ms'
    check((line in fair) == (name == 'reduce'), f'{name}: the streams-overlap line only where rows overlap',
          fair[:1200])
    with open(os.path.join(out, 'perf_report_csvs', 'gpu_timeline.csv'), encoding='utf-8') as f:
        return {r['type'].replace('_time', ''): float(r['time ms']) * 1e3 for r in csv.DictReader(f)}


def main():
    exe = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        for name, kname in (('deepep', 'void dpsk::ep::internode::dispatch<true, 8>(int4*, float*)'),
                            ('deep_ep', 'void deep_ep::intranode::combine<hip_bfloat16, 8>(void*)'),
                            ('nvshmem', 'nvshmemi_transfer_put_signal_kernel'),
                            ('custom_allreduce', 'void tensorrt_llm::kernels::allReduceKernel<float>(void*)')):
            t = timeline(exe, tmp, name, kname)
            check(abs(t.get('computation', -1) - 100) < 1e-6, f'{name}: computation 100 us', t)
            check(abs(t.get('total_comm', -1) - 100) < 1e-6, f'{name}: total_comm 100 us', t)
            check(abs(t.get('exposed_comm', -1) - 50) < 1e-6, f'{name}: exposed_comm 50 us', t)
        t = timeline(exe, tmp, 'reduce', 'void at::native::reduce_kernel<512, 1>(float*)')
        check(abs(t.get('computation', -1) - 150) < 1e-6 and t.get('total_comm', -1) == 0,
              'a plain reduction kernel stays computation', t)
    finish()


if __name__ == '__main__':
    main()
