#!/usr/bin/env python3
"""test_attention_pattern: eager attention (matmul -> softmax -> matmul in one module or parent op) is found
in generated traces and recommended as one fused kernel with the time between the products as the saving;
a softmax without a second product, or a softmax backward, is not a pattern; on the H100 TimeSformer fixture
(when ../shared/traces is present) TimesformerSelfAttention is found.

usage: test_attention_pattern.py JARVIS_ANALYZE [SHARED_DIR]"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck
from jvcheck import check, finish  # noqa: E402

BIN = sys.argv[1]
SHARED = sys.argv[2] if len(sys.argv) > 2 else ''
BF = 'c10::BFloat16'



def trace(parent, children, n):
    """n instances of parent op `parent`, each with children (name, dims, types, concrete, kernel us)"""
    ev, corr, ts = [], 0, 1000
    for _ in range(n):
        ev.append({'ph': 'X', 'cat': 'cpu_op', 'name': parent, 'pid': 100, 'tid': 100, 'ts': ts, 'dur': 400, 'args': {}})
        t = ts + 5
        for name, dims, types, conc, kus in children:
            corr += 1
            args = {'Input Dims': dims, 'Input type': types}
            if conc:
                args['Concrete Inputs'] = conc
            ev += [{'ph': 'X', 'cat': 'cpu_op', 'name': name, 'pid': 100, 'tid': 100, 'ts': t, 'dur': 50, 'args': args},
                   {'ph': 'X', 'cat': 'cuda_runtime', 'name': 'cudaLaunchKernel', 'pid': 100, 'tid': 100, 'ts': t + 1,
                    'dur': 2, 'args': {'correlation': corr}},
                   {'ph': 'X', 'cat': 'kernel', 'name': 'k_' + name.split('::')[1], 'pid': 0, 'tid': 7, 'ts': t + 5,
                    'dur': kus, 'args': {'device': 0, 'stream': 7, 'correlation': corr}}]
            t += 60
        ts += 1000
    return {'traceEvents': ev, 'deviceProperties': [{'id': 0, 'name': 'NVIDIA H100 80GB HBM3'}]}


QK = ('aten::bmm', [[32, 128, 64], [32, 64, 128]], [BF, BF], None, 20)
SCALE = ('aten::div', [[32, 128, 128], []], [BF, 'Scalar'], ['', '8.0'], 15)
SOFTMAX = ('aten::_softmax', [[32, 128, 128], [], []], [BF, 'Scalar', 'Scalar'], ['', '-1', 'False'], 30)
PV = ('aten::bmm', [[32, 128, 128], [32, 128, 64]], [BF, BF], None, 20)
SOFTMAX_BWD = ('aten::_softmax_backward_data', [[32, 128, 128], [32, 128, 128], [], []], [BF, BF, 'Scalar', 'Scalar'],
               ['', '', '-1', '15'], 30)


def analyse(tmp, name, doc):
    path = os.path.join(tmp, name + '.json')
    with open(path, 'w') as f:
        json.dump(doc, f)
    out = os.path.join(tmp, name)
    p = subprocess.run([BIN, path, '-o', out, '-q'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(p.returncode == 0, f'{name}: analysed', p.stderr[-300:])
    fair = open(os.path.join(out, 'standalone_analysis_fair.md'), encoding='utf-8').read()
    gemm = open(os.path.join(out, 'category_findings', 'gemm_findings.md'), encoding='utf-8').read()
    return fair, gemm


def main():
    with tempfile.TemporaryDirectory() as tmp:
        # 10 instances: 20 + 15 + 30 + 20 us each: 850 us in all, 450 us between the products
        fair, gemm = analyse(tmp, 'eager', trace('MyAttention', [QK, SCALE, SOFTMAX, PV], 10))
        m = re.search(r'### \d+\. Eager attention: MyAttention\n\n(.*?)\n\n', fair, re.S)
        check(m is not None, 'eager: recommended', fair[-1500:])
        if m:
            body = m.group(1)
            check('10 matmul -> softmax -> matmul sequences (850.0 µs' in body, 'eager: sequences and time', body)
            check('**Impact:** at least 450.0 µs' in body, 'eager: the saving is the time between the products',
                  body)
            check('scaled_dot_product_attention' in body, 'eager: advises the fused kernel', body)
        check(re.search(r'\| `MyAttention` \| 10 \| 850\.0 µs \| 450\.0 µs \| \[\[32, 128, 64\], \[32, 64, 128\]\] \|',
                        gemm) is not None, 'eager: the GEMM findings table row', gemm[-800:])
        # no second product, or a softmax backward between the products: no pattern
        fair, gemm = analyse(tmp, 'half', trace('MyAttention', [QK, SCALE, SOFTMAX], 10))
        check('Eager attention' not in fair and 'Eager attention' not in gemm, 'half: no pattern without a second product')
        fair, gemm = analyse(tmp, 'bwd', trace('MyAttentionBackward', [QK, SOFTMAX_BWD, PV], 10))
        check('Eager attention' not in fair and 'Eager attention' not in gemm, 'bwd: a softmax backward is no pattern')
        # a real one: TimeSformer's eager self-attention on the H100
        fixture = os.path.join(SHARED, 'traces', 'nv_h100_timesformer_infer.json.gz')
        if SHARED and os.path.exists(fixture):
            out = os.path.join(tmp, 'timesformer')
            p = subprocess.run([BIN, fixture, '-o', out, '-q'], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            check(p.returncode == 0, 'timesformer: analysed')
            fair = open(os.path.join(out, 'standalone_analysis_fair.md'), encoding='utf-8').read()
            check('Eager attention: TimesformerSelfAttention' in fair and
                  '24 matmul -> softmax -> matmul sequences' in fair, 'timesformer: its self-attention found')
    return finish()


sys.exit(main())
