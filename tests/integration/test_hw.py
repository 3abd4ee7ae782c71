#!/usr/bin/env python3
"""GPU selection and roofline columns.

- --gpu-arch FILE (TraceLens' arch JSON form): Roofline Time, Roofline Bound and Pct Roofline of every GEMM
  row equal the formula max(flops/peak, bytes/bw) computed here from the file's numbers.
- --gpu-arch with a built-in name (case and spaces ignored), 'none', an unknown name (exit 1, lists the
  choices), a malformed file (exit 1, names the file).
- automatic choice from deviceProperties on fixture traces (skipped without ../shared): by name
  (MI300X, H100, V100, A100-PG509 -> A100 40GB), by compute capability + CU count when the name is empty
  (vLLM MI300X trace), none for a GPU the table lacks (B300).
Usage: test_hw.py JARVIS_ANALYZE EXAMPLE_TRACE SHARED_DIR
"""
import json, math, os, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck, md_check
from jvcheck import check, finish, read_csv, run  # noqa: E402


def main():
    exe, example, shared = sys.argv[1], sys.argv[2], sys.argv[3]
    with tempfile.TemporaryDirectory() as tmp:
        arch = {'name': 'TestGPU', 'mem_bw_gbps': 1000, 'memory_gb': 10,
                'max_achievable_tflops': {'matrix_bf16': 100, 'matrix_fp32': 10, 'vector_bf16': 5, 'vector_fp32': 5}}
        af = os.path.join(tmp, 'arch.json')
        with open(af, 'w') as f:
            json.dump(arch, f)
        out = os.path.join(tmp, 'o')
        p = run(exe, example, '-o', out, '--gpu-arch', af)
        check(p.returncode == 0 and 'roofline GPU TestGPU' in p.stdout, f'--gpu-arch FILE: {p.returncode} {p.stdout} {p.stderr}')
        gemm = read_csv(os.path.join(out, 'perf_report_csvs', 'GEMM.csv'))
        check(len(gemm) > 0, 'GEMM rows')
        for r in gemm:
            flops = float(r['GFLOPS_first']) * 1e9
            byts = float(r['Data Moved (MB)_first']) * 1048576
            peak = arch['max_achievable_tflops'][r['Compute Spec']]
            cu, mu = flops / (peak * 1e12) * 1e6, byts / (arch['mem_bw_gbps'] * 1e9) * 1e6
            check(math.isclose(float(r['Roofline Time (µs)_first']), max(cu, mu), rel_tol=1e-9), f'roofline time {r["name"]}')
            check(r['Roofline Bound_first'] == ('COMPUTE_BOUND' if cu >= mu else 'MEMORY_BOUND'), 'roofline bound')
            kt = float(r['Kernel Time (µs)_min'])
            check(float(r['Pct Roofline_max']) <= max(cu, mu) / kt * 100 * (1 + 1e-9), 'pct roofline max')
            band = r['Efficiency Band']
            pm = float(r['Pct Roofline_mean'])
            want = 'excellent' if pm > 80 else 'good' if pm >= 60 else 'acceptable' if pm >= 40 else 'investigate'
            check(band == want, f'efficiency band {band} for {pm}')
        p = run(exe, example, '-o', out, '--gpu-arch', 'h100 sxm')
        check(p.returncode == 0 and 'roofline GPU H100 SXM' in p.stdout, 'built-in name, case-insensitive')
        p = run(exe, example, '-o', out, '--gpu-arch', 'none')
        check(p.returncode == 0, '--gpu-arch none')
        hdr = read_csv(os.path.join(out, 'perf_report_csvs', 'unified_perf_summary.csv'), plain=True)[0]
        check('Roofline Bound' not in hdr and 'GFLOPS' in hdr, 'no roofline columns with --gpu-arch none')
        p = run(exe, example, '-o', out, '--gpu-arch', 'Z9000')
        check(p.returncode == 1 and 'Z9000' in p.stderr and 'MI300X' in p.stderr, f'unknown GPU: {p.stderr}')
        bad = os.path.join(tmp, 'bad.json')
        with open(bad, 'w') as f:
            f.write('{"name": "x", "mem_bw_gbps": 0}')
        p = run(exe, example, '-o', out, '--gpu-arch', bad)
        check(p.returncode == 1 and 'bad.json' in p.stderr, f'bad arch file: {p.stderr}')
        traces = os.path.join(shared, 'traces')
        if os.path.isdir(traces):
            for fn, want in (('amd_mi300x_resnet18_train.json.gz', 'roofline GPU MI300X (device name'),
                             ('amd_mi300x_vllm_gptoss_decode_graph.json.gz', 'roofline GPU MI300X (compute capability 9.4'),
                             ('nv_h100_bert_small_infer.json.gz', 'roofline GPU H100 SXM'),
                             ('nv_a100_triton_tiny.json.gz', 'roofline GPU A100 40GB'),
                             ('nv_v100_dlrm_w8_rank0.json', 'roofline GPU V100 SXM2 32GB'),
                             ('nv_b300_moe_microbench.json.gz', 'no roofline columns')):
                p = run(exe, os.path.join(traces, fn), '-o', os.path.join(tmp, fn))
                check(p.returncode == 0 and want in p.stdout, f'{fn}: want "{want}", got {p.stdout[:300]}')
        else:
            print('skipped the fixture part: no', traces)
    return finish()


if __name__ == '__main__':
    sys.exit(main())
