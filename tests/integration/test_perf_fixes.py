#!/usr/bin/env python3
"""TraceLens' perf-model defects, fixed, each on a real fixture trace (REFERENCE.md section 3).

1. eval-mode batch norm: the resnet18 trace with its forward batch_norm calls switched to training=False
   (rewritten into a temporary copy): 2N bytes and is_training False, against 3N in training.
2. reduction output size: resnet18's aten::mean over dims [-1, -2] with keepdim keeps 512*512 elements.
3. no double counting: aten::native_batch_norm (inside aten::batch_norm) has no row of its own.
4. convolution backward output_mask: resnet18's first layer computes no grad_input: half the flops.
5. models for ops TraceLens lacks: aten::gelu (bert on MI300X) and aten::fill_ (resnet18).
6. bool has a size: the bool copy_ of the vLLM MI300X trace moves 2 bytes per element.
Exit 77 without ../shared/traces.
"""
import gzip, json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck, md_check
from jvcheck import check, finish, read_csv  # noqa: E402


def sheet(out, name):
    return read_csv(os.path.join(out, 'perf_report_csvs', name + '.csv'), optional=True)


def analyse(exe, trace, out):
    p = subprocess.run([exe, '-q', trace, '-o', out], capture_output=True, text=True)
    check(p.returncode == 0, f'{trace}: exit {p.returncode} {p.stderr}')


def main():
    exe, shared = sys.argv[1], sys.argv[2]
    traces = os.path.join(shared, 'traces')
    if not os.path.isdir(traces):
        print('skipped: no', traces)
        return 77
    MB = 1048576
    with tempfile.TemporaryDirectory() as tmp:
        rn = os.path.join(traces, 'amd_mi300x_resnet18_train.json.gz')
        out = os.path.join(tmp, 'rn')
        analyse(exe, rn, out)
        norm = sheet(out, 'Normalization')
        N = 512 * 64 * 56 * 56
        train = [r for r in norm if r['name'] == 'aten::batch_norm' and r['param: op_shape'] == '(512, 64, 56, 56)']
        check(len(train) == 1 and train[0]['param: is_training'] == 'True', 'training batch_norm row')
        # 3N*2 bytes + weight, bias (bf16), running mean/var read+write (bf16), saved mean/invstd (fp32)
        want_train = 3 * N * 2 + 64 * 2 + 64 * 2 + 4 * 64 * 2 + 2 * 64 * 4
        check(train and abs(float(train[0]['Data Moved (MB)_first']) * MB - want_train) < 1e-3,
              f'training batch_norm bytes {train and train[0]["Data Moved (MB)_first"]} vs {want_train / MB}')
        check(not any(r['name'] == 'aten::native_batch_norm' for r in norm), 'native_batch_norm not double counted')
        check(not any(r['name'] == 'aten::_batch_norm_impl_index' for r in norm), '_batch_norm_impl_index not counted')
        red = [r for r in sheet(out, 'Reduce_fwd') if r['name'] == 'aten::mean' and r['param: num_input_elems'] == '12845056']
        check(len(red) == 1 and red[0]['param: num_output_elems'] == '262144', 'mean keepdim output elements')
        check(red and abs(float(red[0]['Data Moved (MB)_first']) * MB - (12845056 + 262144) * 2) < 1e-6, 'mean bytes')
        conv = [r for r in sheet(out, 'CONV_bwd') if r['param: input_shape'] == '(512, 3, 224, 224)']
        # output_mask [False, True, False]: only grad_weight = 2 * |w[1:]| * |grad_out| (TraceLens: twice that)
        want = 2 * (3 * 7 * 7) * (512 * 64 * 112 * 112)
        check(len(conv) == 1 and abs(float(conv[0]['GFLOPS_first']) * 1e9 - want) < 1, f'first-layer conv backward flops')
        fill = [r for r in sheet(out, 'UnaryElementwise') if r['name'] == 'aten::fill_' and r['param: op_shape'] == '(512, 64, 112, 112)']
        check(len(fill) == 1 and abs(float(fill[0]['Data Moved (MB)_first']) * MB - 512 * 64 * 112 * 112 * 2) < 1e-6,
              'fill_ writes n*bpe')
        # eval mode: rewrite the forward batch_norm calls to training=False
        with gzip.open(rn, 'rt', encoding='utf-8') as f:
            d = json.load(f)
        flipped = 0
        for e in d['traceEvents']:
            a = e.get('args', {})
            if e.get('name') in ('aten::batch_norm', 'aten::_batch_norm_impl_index', 'aten::native_batch_norm') and \
                    len(a.get('Concrete Inputs', [])) > 5 and a['Concrete Inputs'][5] == 'True':
                a['Concrete Inputs'][5] = 'False'
                flipped += 1
        check(flipped > 0, 'eval rewrite found batch_norm calls')
        ev = os.path.join(tmp, 'rn_eval.json')
        with open(ev, 'w') as f:
            json.dump(d, f)
        out2 = os.path.join(tmp, 'rn_eval')
        analyse(exe, ev, out2)
        rows = [r for r in sheet(out2, 'Normalization') if r['name'] == 'aten::batch_norm' and r['param: op_shape'] == '(512, 64, 56, 56)']
        want_eval = 2 * N * 2 + 64 * 2 + 64 * 2 + 2 * 64 * 2  # x read, y written; weight, bias, running mean/var read
        check(len(rows) == 1 and rows[0]['param: is_training'] == 'False', 'eval batch_norm is_training False')
        check(rows and abs(float(rows[0]['Data Moved (MB)_first']) * MB - want_eval) < 1e-3,
              f'eval batch_norm bytes {rows and rows[0]["Data Moved (MB)_first"]} vs {want_eval / MB}')
        # gelu on bert (MI300X VF)
        out3 = os.path.join(tmp, 'bert')
        analyse(exe, os.path.join(traces, 'amd_mi300xvf_bert_small_infer.json.gz'), out3)
        gelu = [r for r in sheet(out3, 'UnaryElementwise') if r['name'] == 'aten::gelu']
        check(len(gelu) >= 1, 'gelu has a model')
        for r in gelu:
            n = 1
            for v in json.loads(r['Input Dims_first'])[0]:
                n *= v
            check(abs(float(r['GFLOPS_first']) * 1e9 - n) < 1e-6 and abs(float(r['Data Moved (MB)_first']) * MB - 4 * n) < 1e-6,
                  f'gelu flops/bytes {r["GFLOPS_first"]} {r["Data Moved (MB)_first"]} n={n}')
        # bool sizes: the bool->bool copy_ of the vLLM trace (TraceLens: no size, empty Data Moved)
        out4 = os.path.join(tmp, 'vllm')
        analyse(exe, os.path.join(traces, 'amd_mi300x_vllm_gptoss_decode_graph.json.gz'), out4)
        bool_rows = [r for r in sheet(out4, 'UnaryElementwise') if "'bool'" in r['Input type_first']]
        check(len(bool_rows) > 0, 'a bool elementwise row')
        for r in bool_rows:
            dims = json.loads(r['Input Dims_first'])
            n = 1
            for v in dims[0]:
                n *= v
            check(abs(float(r['Data Moved (MB)_first']) * MB - 2 * n) < 1e-9, f'bool copy bytes {r["Data Moved (MB)_first"]} n={n}')
    return finish()


if __name__ == '__main__':
    sys.exit(main())
