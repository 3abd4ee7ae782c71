#!/usr/bin/env python3
"""Reproducer commands (reproduce.md in the replay package, jarvis-replay --op N --print-repro) checked against
the vendor tools' documented options and against the ops they reproduce.

- A bare replay IR written here (GEMM: mm with a transposed A, addmm with a 1-D bias (hipBLASLt's epilogue) and
  with a 2-D bias and beta 0.5, bmm, linear over a 3-D input, fp64 mm; convolution: NCHW forward with stride,
  padding, dilation, groups and bias, channels_last backward data and backward weights, 3-D forward, transposed
  forward, fp64; batch norm: training forward, eval forward, training backward, NCHW and channels_last;
  elementwise: add with alpha, mul by a Scalar, where; serving: vLLM's silu_and_mul, mul_and_silu,
  gelu_tanh_and_mul, rms_norm, fused_add_rms_norm, rotary_embedding, AITER's gelu_and_mul, aten::rms_norm) and the
  package jarvis-analyze writes for the bundled
  ResNet-50 training trace: every op's --print-repro section is parsed.
- Every vendor command line is split as the shell splits it and checked against a table of the tool's
  documented options (below, each with its source): an unknown option, an option given twice, a missing
  value or a required option missing fails; then its values against the op: GEMM m, n, k (PyTorch's
  column-major mapping: m = N, n = M), transposes and leading dimensions from the strides, batch count and
  strides, types; convolution sizes, kernel, padding, strides, dilations, groups, direction (-F) and layouts;
  batch norm sizes, mode, direction and layout.
- Every PyTorch snippet compiles (ast) and runs against a small fake `torch` module: it creates each input
  tensor of the IR entry with its shape, strides and dtype, calls the expected torch function 110 times
  (10 warm-up, 100 timed) and prints a time.
- The checker bites: a line with m and n swapped, an unknown flag, a missing -k, a wrong channel count and a
  wrong layout are each rejected.
- reproduce.md is a package member listed (size and SHA-256) in manifest.json; --op out of range exits 2 with
  a message; --print-repro without --op prints the whole document; NVIDIA is said to have no such tool.
- Five fixture traces of SHARED_DIR/traces (skipped, exit 77 unless a check fails, when absent): every op of
  their packages' reproduce.md checked the same way (real GEMMs, 3-D convolutions, an old trace whose
  convolution and batch-norm arguments were not recorded).
Usage: test_repro.py JARVIS_ANALYZE JARVIS_REPLAY TRACE [SHARED_DIR]
"""
import ast, contextlib, hashlib, io, json, os, re, shlex, subprocess, sys, tempfile, types, zipfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck, md_check
from jvcheck import check, finish, run, skip_part  # noqa: E402

FIXTURES = ['amd_mi300x_resnet18_train.json.gz', 'nv_h100_timesformer_infer.json.gz', 'nv_v100_dlrm_w8_rank0.json',
            'nv_v100_resnet50_tbplugin_2021.json.gz', 'nv_sampled_w128_rank0.json.gz']

# ---- the tools' documented options: long name -> (short letter or None, takes a value) ----

# hipblaslt-bench: hipBLASLt clients/benchmarks/client.cpp (options_description "hipblaslt-bench command line
# options"), and the "hipBLASLt clients" page (rocm.docs.amd.com/projects/hipBLASLt/en/latest/clients.html).
HIPBLASLT = {
    'sizem': ('m', 1), 'sizen': ('n', 1), 'sizek': ('k', 1), 'lda': (None, 1), 'ldb': (None, 1), 'ldc': (None, 1),
    'ldd': (None, 1), 'lde': (None, 1), 'any_stride': (None, 1), 'stride_a': (None, 1), 'stride_b': (None, 1),
    'stride_c': (None, 1), 'stride_d': (None, 1), 'stride_e': (None, 1), 'alpha': (None, 1), 'beta': (None, 1),
    'function': ('f', 1), 'precision': ('r', 1), 'a_type': (None, 1), 'b_type': (None, 1), 'c_type': (None, 1),
    'd_type': (None, 1), 'compute_type': (None, 1), 'compute_input_typeA': (None, 1),
    'compute_input_typeB': (None, 1), 'scale_type': (None, 1), 'initialization': (None, 1), 'transA': (None, 1),
    'transB': (None, 1), 'batch_count': (None, 1), 'HMM': (None, 1), 'verify': ('v', 1), 'iters': ('i', 1),
    'cold_iters': ('j', 1), 'algo_method': (None, 1), 'solution_index': (None, 1),
    'requested_solution': (None, 1), 'activation_type': (None, 1), 'activation_arg1': (None, 1),
    'activation_arg2': (None, 1), 'bias_type': (None, 1), 'bias_source': (None, 1), 'bias_vector': (None, 0),
    'scaleA': (None, 1), 'scaleB': (None, 1), 'scaleAlpha_vector': (None, 0), 'amaxScaleA': (None, 0),
    'amaxScaleB': (None, 0), 'amaxD': (None, 0), 'use_e': (None, 0), 'gradient': (None, 0),
    'grouped_gemm': (None, 1), 'use_user_args': (None, 1), 'device': (None, 1), 'c_equal_d': (None, 0),
    'workspace': (None, 1), 'log_function_name': (None, 0), 'function_filter': (None, 1), 'api_method': (None, 1),
    'print_kernel_info': (None, 1), 'rotating': (None, 1), 'use_gpu_timer': (None, 1), 'splitk': (None, 1),
    'wgm': (None, 1), 'flush': (None, 1), 'help': ('h', 0), 'version': (None, 0),
}
# rocblas-bench: rocBLAS clients/benchmarks/client.cpp (its GEMM options, which hipblaslt-bench copies with
# --transA/B for --transposeA/B; ROCm's rocGemmDriver README lists the same), rocBLAS Programmer's Guide.
ROCBLAS = {
    'function': ('f', 1), 'precision': ('r', 1), 'transposeA': (None, 1), 'transposeB': (None, 1),
    'sizem': ('m', 1), 'sizen': ('n', 1), 'sizek': ('k', 1), 'lda': (None, 1), 'ldb': (None, 1), 'ldc': (None, 1),
    'ldd': (None, 1), 'stride_a': (None, 1), 'stride_b': (None, 1), 'stride_c': (None, 1), 'stride_d': (None, 1),
    'alpha': (None, 1), 'beta': (None, 1), 'a_type': (None, 1), 'b_type': (None, 1), 'c_type': (None, 1),
    'd_type': (None, 1), 'compute_type': (None, 1), 'batch_count': (None, 1), 'iters': ('i', 1),
    'cold_iters': ('j', 1), 'algo': (None, 1), 'solution_index': (None, 1), 'flags': (None, 1),
    'verify': ('v', 1), 'initialization': (None, 1), 'device': (None, 1), 'help': ('h', 0),
}
# MIOpenDriver conv / convfp16 / convbfp16: MIOpen driver/conv_driver.hpp, ConvDriver::AddCmdLineArgs
# (inflags.AddInputFlag(long, short, ...)); sub-commands from driver/dm_conv*.cpp.
MIOPEN_CONV = {
    'in_layout': ('I', 1), 'out_layout': ('O', 1), 'fil_layout': ('f', 1), 'spatial_dim': ('_', 1),
    'forw': ('F', 1), 'batchsize': ('n', 1), 'in_channels': ('c', 1), 'in_d': ('!', 1), 'in_h': ('H', 1),
    'in_w': ('W', 1), 'out_channels': ('k', 1), 'fil_d': ('@', 1), 'fil_h': ('y', 1), 'fil_w': ('x', 1),
    'conv_stride_d': ('#', 1), 'conv_stride_h': ('u', 1), 'conv_stride_w': ('v', 1), 'pad_d': ('$', 1),
    'pad_h': ('p', 1), 'pad_w': ('q', 1), 'pad_val': ('r', 1), 'trans_output_pad_d': ('%', 1),
    'trans_output_pad_h': ('Y', 1), 'trans_output_pad_w': ('X', 1), 'iter': ('i', 1), 'verify': ('V', 1),
    'verification_cache': ('C', 1), 'time': ('t', 1), 'wall': ('w', 1), 'search': ('s', 1), 'printconv': ('P', 1),
    'dump_output': ('o', 1), 'in_data': ('d', 1), 'weights': ('e', 1), 'bias': ('b', 1), 'mode': ('m', 1),
    'pad_mode': ('z', 1), 'tensor_vect': ('Z', 1), 'vector_length': ('L', 1), 'dilation_d': ('^', 1),
    'dilation_h': ('l', 1), 'dilation_w': ('j', 1), 'in_bias': ('a', 1), 'group_count': ('g', 1),
    'dout_data': ('D', 1), 'solution': ('S', 1), 'gpualloc': ('G', 1), 'in_cast_type': ('U', 1),
    'out_cast_type': ('T', 1), 'wei_cast_type': ('R', 1),
}
# MIOpenDriver bnorm / bnormfp16 / bnormbfp16: MIOpen driver/bn_driver.hpp, BatchNormDriver::AddCmdLineArgs;
# sub-commands from driver/dm_bnorm.cpp.
MIOPEN_BNORM = {
    'forw': ('F', 1), 'back': ('b', 1), 'batchsize': ('n', 1), 'in_channels': ('c', 1), 'in_h': ('H', 1),
    'in_w': ('W', 1), 'in_d': ('D', 1), 'layout': ('L', 1), 'alpha': ('A', 1), 'beta': ('B', 1), 'iter': ('i', 1),
    'verify': ('V', 1), 'time': ('t', 1), 'printconv': ('P', 1), 'mode': ('m', 1), 'save': ('s', 1),
    'run': ('r', 1), 'wall': ('w', 1),
}
SUBS = {'conv': MIOPEN_CONV, 'convfp16': MIOPEN_CONV, 'convbfp16': MIOPEN_CONV, 'bnorm': MIOPEN_BNORM,
        'bnormfp16': MIOPEN_BNORM, 'bnormbfp16': MIOPEN_BNORM, 'bnormfp16fp32': MIOPEN_BNORM,
        'bnormbfp16fp32': MIOPEN_BNORM}
BLAS_TYPES = {'f64_r', 'f32_r', 'f16_r', 'bf16_r'}
COMPUTE_TYPES = {'f32_r', 'xf32_r', 'f64_r', 'i32_r'}
LAYOUTS = {'NCHW', 'NHWC', 'NCDHW', 'NDHWC'}

# what a faithful reproducer must say (our requirement: the tools have defaults for all of them)
REQ_GEMM = ['sizem', 'sizen', 'sizek', 'lda', 'ldb', 'ldc', 'ldd', 'alpha', 'beta', 'a_type', 'b_type', 'c_type',
            'd_type', 'compute_type', 'batch_count', 'iters', 'cold_iters']
REQ_CONV = ['batchsize', 'in_channels', 'in_h', 'in_w', 'out_channels', 'fil_h', 'fil_w', 'pad_h', 'pad_w',
            'conv_stride_h', 'conv_stride_w', 'dilation_h', 'dilation_w', 'group_count', 'mode', 'forw',
            'in_layout', 'fil_layout', 'out_layout', 'iter', 'time']
REQ_CONV3 = ['spatial_dim', 'in_d', 'fil_d', 'pad_d', 'conv_stride_d', 'dilation_d']
REQ_BN = ['batchsize', 'in_channels', 'in_h', 'in_w', 'layout', 'mode', 'forw', 'iter', 'time']


def parse_cmd(line):
    """(tool, sub, {long name: value}, [errors]) of a vendor command line, by the tables above."""
    words = shlex.split(line)
    errs = []
    tool, rest, sub = words[0], words[1:], ''
    if tool == 'hipblaslt-bench':
        table = HIPBLASLT
    elif tool == 'rocblas-bench':
        table = ROCBLAS
    elif tool == 'MIOpenDriver':
        sub, rest = (rest[0], rest[1:]) if rest else ('', [])
        table = SUBS.get(sub)
        if table is None:
            return tool, sub, {}, [f'MIOpenDriver: unknown sub-command {sub!r}']
    else:
        return tool, sub, {}, [f'unknown tool {tool!r}']
    short = {v[0]: k for k, v in table.items() if v[0]}
    opts, i = {}, 0
    while i < len(rest):
        w = rest[i]
        name = w[2:] if w.startswith('--') else short.get(w[1:]) if w.startswith('-') and len(w) == 2 else None
        if name is None or name not in table:
            errs.append(f'{tool} {sub}: unknown option {w!r}')
            i += 1
            continue
        if name in opts:
            errs.append(f'{tool} {sub}: option {w!r} given twice')
        if table[name][1]:
            if i + 1 >= len(rest) or (rest[i + 1].startswith('-') and not re.match(r'^-[0-9.]', rest[i + 1])):
                errs.append(f'{tool} {sub}: option {w!r} without a value')
                opts[name] = None
                i += 1
                continue
            opts[name] = rest[i + 1]
            i += 2
        else:
            opts[name] = ''
            i += 1
    return tool, sub, opts, errs


def need(opts, names, what, errs):
    for n in names:
        if n not in opts:
            errs.append(f'{what}: required option --{n} missing')


def ival(opts, n):
    try:
        return int(opts.get(n))
    except (TypeError, ValueError):
        return None


def args_of(entry):
    """{arg_name: value} of an IR entry (positional, then keyword)."""
    ri = entry['replay_ir']
    return {a['arg_name']: a['value'] for a in ri['list_pos_args'] + ri.get('list_kwargs', [])}


def is_cl(t):
    """channels_last (NHWC / NDHWC) strides of a 4-D / 5-D tensor (not also contiguous)"""
    s, st = t['shape'], t['strides']
    if len(s) not in (4, 5) or st[1] != 1 or s[1] == 1:
        return False
    order = [1] + list(range(len(s) - 1, 1, -1)) + [0]
    exp = 1
    for d in order:
        if s[d] > 1 and st[d] != exp:
            return False
        exp *= s[d]
    return True


DT_BLAS = {'c10::BFloat16': 'bf16_r', 'bfloat16': 'bf16_r', 'c10::Half': 'f16_r', 'half': 'f16_r',
           'float': 'f32_r', 'double': 'f64_r'}
DT_MIOPEN = {'f32_r': '', 'f16_r': 'fp16', 'bf16_r': 'bfp16'}


def gemm_geometry(op, a):
    # aten::matmul here: two 3-D operands (batch dims broadcast), as the hand-made case has them
    """M, N, K, batch and the PyTorch A / B matrices (shape and strides of the last two dims; B as [K, N]) of a
    GEMM entry."""
    if op in ('aten::mm', 'aten::bmm'):
        A, B = a['self'], a['mat2']
    elif op == 'aten::matmul' and len(a['self']['shape']) == 3 and len(a['other']['shape']) == 3:
        A, B = a['self'], a['other']
    elif op in ('aten::addmm', 'aten::baddbmm'):
        A, B = a['mat1'] if op == 'aten::addmm' else a['batch1'], a['mat2'] if op == 'aten::addmm' else a['batch2']
    elif op == 'aten::linear':
        A, W = a['input'], a['weight']
        B = {'shape': [W['shape'][1], W['shape'][0]], 'strides': [W['strides'][1], W['strides'][0]],
             'dtype': W['dtype']}
        lead = 1
        for s in A['shape'][:-1]:
            lead *= s
        A = {'shape': [lead, A['shape'][-1]], 'strides': A['strides'][-2:], 'dtype': A['dtype']}
    else:
        return None
    batch = max(A['shape'][0], B['shape'][0]) if len(A['shape']) == 3 else 1
    M, K = A['shape'][-2], A['shape'][-1]
    N = B['shape'][-1]
    return M, N, K, batch, A, B


def trans_ld(t):
    """(trans, ld) of a PyTorch matrix as the column-major library reads it in PyTorch's mapping"""
    r, c = t['shape'][-2], t['shape'][-1]
    sr, sc = t['strides'][-2], t['strides'][-1]
    if sc == 1 or c == 1:
        return 'N', max(sr, c) if r > 1 else c
    if sr == 1 or r == 1:
        return 'T', max(sc, r) if c > 1 else r
    return 'N', c  # no unit stride: PyTorch copies it contiguous first


def check_gemm(tool, opts, op, a, errs):
    what = f'{tool} for {op}'
    req = REQ_GEMM + (['function'] if tool == 'rocblas-bench' else [])
    ta, tb = ('transA', 'transB') if tool == 'hipblaslt-bench' else ('transposeA', 'transposeB')
    need(opts, req + [ta, tb], what, errs)
    g = gemm_geometry(op, a)
    if g is None:
        return
    M, N, K, batch, A, B = g
    for n, want in (('sizem', N), ('sizen', M), ('sizek', K), ('batch_count', batch)):
        if ival(opts, n) != want:
            errs.append(f'{what}: --{n} {opts.get(n)}, the op needs {want} (m = N, n = M in PyTorch\'s mapping)')
    tra, lda = trans_ld(B)
    trb, ldb = trans_ld(A)
    for n, want in ((ta, tra), (tb, trb)):
        if opts.get(n) not in ('N', 'T'):
            errs.append(f'{what}: --{n} {opts.get(n)!r} is not N or T')
        elif opts.get(n) != want:
            errs.append(f'{what}: --{n} {opts.get(n)}, the strides say {want}')
    for n, want in (('lda', lda), ('ldb', ldb)):
        if ival(opts, n) != want:
            errs.append(f'{what}: --{n} {opts.get(n)}, the strides say {want}')
    # the tool's A is op(A) [m, k]: m * k elements per batch, as PyTorch's B [K, N]
    m, n, k = ival(opts, 'sizem'), ival(opts, 'sizen'), ival(opts, 'sizek')
    if None not in (m, n, k) and (m * k != K * N or n * k != M * K):
        errs.append(f'{what}: m*k = {m * k} / n*k = {n * k} do not match B ({K}x{N}) / A ({M}x{K})')
    if (ival(opts, 'ldc') or 0) < (m or 0):
        errs.append(f'{what}: --ldc {opts.get("ldc")} < m')
    if batch > 1:
        need(opts, ['stride_a', 'stride_b', 'stride_c', 'stride_d'], what, errs)
        def bstride(t):  # one matrix for every batch (2-D, or a batch dim of 1): 0
            return t['strides'][0] if len(t['shape']) == 3 and t['shape'][0] > 1 else 0
        if ival(opts, 'stride_a') != bstride(B):
            errs.append(f'{what}: --stride_a {opts.get("stride_a")}, B\'s batch stride is {bstride(B)}')
        if ival(opts, 'stride_b') != bstride(A):
            errs.append(f'{what}: --stride_b {opts.get("stride_b")}, A\'s batch stride is {bstride(A)}')
    want_t = DT_BLAS.get(A['dtype'])
    for n in ('a_type', 'b_type', 'c_type', 'd_type'):
        if opts.get(n) not in BLAS_TYPES:
            errs.append(f'{what}: --{n} {opts.get(n)!r} is no type of the tool')
        elif n in ('a_type', 'b_type') and opts[n] != want_t:
            errs.append(f'{what}: --{n} {opts[n]}, the op is {want_t}')
    if opts.get('compute_type') not in COMPUTE_TYPES:
        errs.append(f'{what}: --compute_type {opts.get("compute_type")!r}')
    if tool == 'rocblas-bench' and opts.get('function') != ('gemm_strided_batched_ex' if batch > 1 else 'gemm_ex'):
        errs.append(f'{what}: -f {opts.get("function")}')
    if 'bias_vector' in opts and opts.get('bias_type') not in ('f16_r', 'bf16_r', 'f32_r'):
        errs.append(f'{what}: --bias_vector without a --bias_type of the tool')


def check_conv(sub, opts, op, a, errs):
    what = f'MIOpenDriver {sub} for {op}'
    x, w = a['input'], a['weight']
    nd = len(x['shape']) - 2
    need(opts, REQ_CONV + (REQ_CONV3 if nd == 3 else []), what, errs)
    # arguments an old trace did not record (null in the IR) are PyTorch's defaults, as the replay takes them
    a = dict(a)
    for n, dflt in (('stride', [1] * nd), ('padding', [0] * nd), ('dilation', [1] * nd), ('groups', 1),
                    ('transposed', False)):
        if a.get(n) is None:
            a[n] = dflt
    tr = a.get('transposed', False)
    g = a['groups']
    cout = w['shape'][1] * g if tr else w['shape'][0]
    sp = x['shape'][2:] if nd > 1 else [1, x['shape'][2]]
    ks = w['shape'][2:] if nd > 1 else [1, w['shape'][2]]
    pad = a['padding'] if nd > 1 else [0, a['padding'][0]]
    st = a['stride'] if nd > 1 else [1, a['stride'][0]]
    di = a['dilation'] if nd > 1 else [1, a['dilation'][0]]
    want = {'batchsize': x['shape'][0], 'in_channels': x['shape'][1], 'out_channels': cout, 'group_count': g,
            'in_h': sp[-2], 'in_w': sp[-1], 'fil_h': ks[-2], 'fil_w': ks[-1], 'pad_h': pad[-2], 'pad_w': pad[-1],
            'conv_stride_h': st[-2], 'conv_stride_w': st[-1], 'dilation_h': di[-2], 'dilation_w': di[-1]}
    if nd == 3:
        want.update({'in_d': sp[0], 'fil_d': ks[0], 'pad_d': pad[0], 'conv_stride_d': st[0], 'dilation_d': di[0],
                     'spatial_dim': 3})
    for n, v in want.items():
        if ival(opts, n) != v:
            errs.append(f'{what}: --{n} {opts.get(n)}, the op needs {v}')
    if opts.get('mode') != ('trans' if tr else 'conv'):
        errs.append(f'{what}: -m {opts.get("mode")}')
    if op == 'aten::convolution_backward':
        m = a['output_mask']
        f = (2 if m[0] else 0) + (4 if m[1] else 0)
    else:
        f = 1
    if ival(opts, 'forw') != f:
        errs.append(f'{what}: -F {opts.get("forw")}, the op is {f}')
    lay = ('NDHWC' if nd == 3 else 'NHWC') if is_cl(x) else ('NCDHW' if nd == 3 else 'NCHW')
    for n in ('in_layout', 'out_layout'):
        if opts.get(n) != lay:
            errs.append(f'{what}: --{n} {opts.get(n)}, the input is {lay}')
    if opts.get('fil_layout') not in LAYOUTS:
        errs.append(f'{what}: --fil_layout {opts.get("fil_layout")}')
    if sub != 'conv' + DT_MIOPEN.get(DT_BLAS.get(x['dtype']), '?'):
        errs.append(f'{what}: sub-command for {x["dtype"]}')


def check_bn(sub, opts, op, a, errs):
    what = f'MIOpenDriver {sub} for {op}'
    need(opts, REQ_BN, what, errs)
    x = a['input']
    s = x['shape']
    nd = len(s)
    want = {'batchsize': s[0], 'in_channels': s[1], 'in_h': s[3] if nd == 5 else s[2] if nd >= 3 else 1,
            'in_w': s[-1] if nd >= 4 else 1, 'mode': 1}
    if nd == 5:
        want['in_d'] = s[2]
    for n, v in want.items():
        if ival(opts, n) != v:
            errs.append(f'{what}: --{n} {opts.get(n)}, the op needs {v}')
    lay = ('NDHWC' if nd == 5 else 'NHWC') if is_cl(x) else ('NCDHW' if nd == 5 else 'NCHW')
    if opts.get('layout') != lay:
        errs.append(f'{what}: --layout {opts.get("layout")}, the input is {lay}')
    if 'backward' in op:
        if ival(opts, 'forw') != 0 or ival(opts, 'back') != 1 or ival(opts, 'save') != 1:
            errs.append(f'{what}: a training backward is -F 0 -b 1 -s 1')
    else:
        tr = a.get('training', True) is not False  # unrecorded (null): training, as the replay takes it
        if ival(opts, 'forw') != (1 if tr else 2):
            errs.append(f'{what}: -F {opts.get("forw")}, the op is {"training" if tr else "inference"}')
    if sub != 'bnorm' + DT_MIOPEN.get(DT_BLAS.get(x['dtype']), '?'):
        errs.append(f'{what}: sub-command for {x["dtype"]}')


def check_line(line, entry):
    """[errors] of one vendor command line for IR entry"""
    tool, sub, opts, errs = parse_cmd(line)
    if errs:
        return errs
    op, a = entry['op_name'], args_of(entry)
    if tool in ('hipblaslt-bench', 'rocblas-bench'):
        check_gemm(tool, opts, op, a, errs)
    elif sub.startswith('conv'):
        check_conv(sub, opts, op, a, errs)
    else:
        check_bn(sub, opts, op, a, errs)
    return errs


def sections(text):
    """(sh lines, python code) of a --print-repro section"""
    sh = re.findall(r'```sh\n(.*?)```', text, re.S)
    lines = [ln for block in sh for ln in block.splitlines() if ln and not ln.startswith('#')]
    py = re.findall(r'```python\n(.*?)```', text, re.S)
    return lines, py[0] if py else None


# ---- a fake torch module: enough for the snippets to run ----

class FakeDtype:
    def __init__(self, name):
        self.name, self.is_floating_point = name, name.startswith(('float', 'bfloat', 'complex'))


class FakeTensor:
    def __init__(self, log, dtype=None):
        self._log, self.dtype = log, dtype

    def as_strided(self, shape, strides):
        self._log.append(('make', tuple(shape), tuple(strides), self.dtype.name))
        return FakeTensor(self._log, self.dtype)

    def __getattr__(self, name):
        def method(*a, **k):
            self._log.append(('call', 'Tensor.' + name))
            return self
        return method

    def __getitem__(self, key):  # slices and gathers (x[..., :d], cache[positions])
        return self

    def _arith(self, other):
        return self
    __mul__ = __rmul__ = __add__ = __radd__ = __sub__ = __rsub__ = _arith


class FakeNS:
    def __init__(self, path, log):
        self._path, self._log = path, log

    def __getattr__(self, name):
        return FakeNS(self._path + '.' + name if self._path else name, self._log)

    def __call__(self, *a, **k):
        self._log.append(('call', self._path))
        return FakeTensor(self._log)


class FakeEvent:
    def __init__(self, **k):
        pass

    def record(self):
        pass

    def elapsed_time(self, other):
        return 1.0


def fake_torch(log):
    t = types.ModuleType('torch')
    for n in ('float64', 'float32', 'float16', 'bfloat16', 'int64', 'int32', 'int16', 'int8', 'uint8', 'bool',
              'complex64', 'complex128'):
        setattr(t, n, FakeDtype(n))
    t.empty = lambda n, dtype=None, device=None: FakeTensor(log, dtype)
    t.cuda = types.SimpleNamespace(Event=FakeEvent, synchronize=lambda: None)
    for n in ('mm', 'bmm', 'addmm', 'baddbmm', 'matmul', 'clone', 'arange'):
        setattr(t, n, FakeNS(n, log))
    t.nn = FakeNS('nn', log)
    t.ops = FakeNS('ops', log)
    return t


def run_snippet(code):
    """(log, printed text, error) of a snippet run against the fake torch"""
    log = []
    saved = sys.modules.get('torch')
    sys.modules['torch'] = fake_torch(log)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, '<snippet>', 'exec'), {'__name__': '__main__'})
        err = None
    except Exception as e:  # noqa: BLE001 (any failure of the snippet is the finding)
        err = repr(e)
    finally:
        if saved is None:
            del sys.modules['torch']
        else:
            sys.modules['torch'] = saved
    return log, out.getvalue(), err


EXPECT_CALL = {'aten::mm': 'mm', 'aten::matmul': 'matmul', 'aten::bmm': 'bmm', 'aten::addmm': 'addmm', 'aten::linear': 'nn.functional.linear',
               'aten::convolution': 'ops.aten.convolution',
               'aten::convolution_backward': 'ops.aten.convolution_backward',
               'aten::batch_norm': 'nn.functional.batch_norm', 'aten::native_batch_norm': 'nn.functional.batch_norm',
               'aten::native_batch_norm_backward': 'ops.aten.native_batch_norm_backward',
               'aten::add': 'ops.aten.add', 'aten::add_': 'ops.aten.add_', 'aten::mul': 'ops.aten.mul',
               'aten::where': 'ops.aten.where', 'aten::threshold_backward': 'ops.aten.threshold_backward',
               'aten::clamp_min_': 'ops.aten.clamp_min_',
               '_C::silu_and_mul': 'nn.functional.silu', '_C::mul_and_silu': 'nn.functional.silu',
               '_C::gelu_tanh_and_mul': 'nn.functional.gelu', 'aiter::gelu_and_mul': 'nn.functional.gelu',
               '_C::rms_norm': 'nn.functional.rms_norm', '_C::fused_add_rms_norm': 'nn.functional.rms_norm',
               'aten::rms_norm': 'nn.functional.rms_norm', '_C::rotary_embedding': 'arange'}
TORCH_DT = {'c10::BFloat16': 'bfloat16', 'c10::Half': 'float16', 'float': 'float32', 'double': 'float64',
            'bool': 'bool', 'long int': 'int64', 'int': 'int32', 'short int': 'int16', 'signed char': 'int8',
            'unsigned char': 'uint8'}
NOT_REPLAYED_ARGS = {'reserveSpace'}  # cuDNN's batch-norm reserve space: the replay computes without it


def check_snippet(code, entry, tag):
    try:
        ast.parse(code)
    except SyntaxError as e:
        check(False, f'{tag}: the snippet is valid Python: {e}')
        return
    log, printed, err = run_snippet(code)
    check(err is None, f'{tag}: the snippet runs against a fake torch', err)
    made = {(m[1], m[2], m[3]) for m in log if m[0] == 'make'}
    for a in entry['replay_ir']['list_pos_args'] + entry['replay_ir'].get('list_kwargs', []):
        v = a['value']
        if a['arg_type'].startswith('Tensor') and isinstance(v, dict) and v.get('init') is not None and \
                a['arg_name'] not in NOT_REPLAYED_ARGS:
            key = (tuple(v['shape']), tuple(v['strides']), TORCH_DT.get(v['dtype'], v['dtype']))
            check(key in made, f'{tag}: the snippet makes {a["arg_name"]} {key}', sorted(made))
    want = EXPECT_CALL.get(entry['op_name'])
    calls = [m[1] for m in log if m[0] == 'call']
    if want:
        check(calls.count(want) == 110, f'{tag}: {want} called 10 + 100 times', calls.count(want))
    check(printed.strip().endswith('us per call'), f'{tag}: prints the time', printed[-200:])


# ---- the IR of the hand-made cases ----

def T(shape, dtype='c10::BFloat16', strides=None):
    if strides is None:
        strides, s = [], 1
        for d in reversed(shape):
            strides.insert(0, s)
            s *= d
    return {'shape': shape, 'dtype': dtype, 'strides': strides, 'init': 'normal'}


def CL(shape, dtype='c10::BFloat16'):
    """channels_last strides"""
    n, c = shape[0], shape[1]
    sp = shape[2:]
    st = [0] * len(shape)
    st[1] = 1
    s = c
    for d in range(len(shape) - 1, 1, -1):
        st[d] = s
        s *= shape[d]
    st[0] = s
    return {'shape': shape, 'dtype': dtype, 'strides': st, 'init': 'normal'}


def E(op, pos, kw=()):
    def arg(n, t, v):
        return {'arg_name': n, 'arg_type': t, 'value': v}
    return {'op_name': op, 'replay_ir': {'list_pos_args': [arg(*p) for p in pos],
                                         'list_kwargs': [arg(*p) for p in kw]}}


def conv(x, w, b, stride, pad, dil, groups, transposed=False, opad=None):
    nd = len(x['shape']) - 2
    return E('aten::convolution', [('input', 'Tensor', x), ('weight', 'Tensor', w), ('bias', 'Tensor?', b),
                                   ('stride', 'SymInt[]', stride), ('padding', 'SymInt[]', pad),
                                   ('dilation', 'SymInt[]', dil), ('transposed', 'bool', transposed),
                                   ('output_padding', 'SymInt[]', opad or [0] * nd), ('groups', 'SymInt', groups)])


def conv_bwd(go, x, w, stride, pad, dil, groups, mask):
    return E('aten::convolution_backward',
             [('grad_output', 'Tensor', go), ('input', 'Tensor', x), ('weight', 'Tensor', w),
              ('bias_sizes', 'SymInt[]?', [w['shape'][0]] if mask[2] else None), ('stride', 'SymInt[]', stride),
              ('padding', 'SymInt[]', pad), ('dilation', 'SymInt[]', dil), ('transposed', 'bool', False),
              ('output_padding', 'SymInt[]', [0, 0]), ('groups', 'SymInt', groups), ('output_mask', 'bool[3]', mask)])


def bn(op, x, training, c):
    f = T([c], 'float')
    if op == 'aten::native_batch_norm_backward':
        return E(op, [('grad_out', 'Tensor', dict(x)), ('input', 'Tensor', x), ('weight', 'Tensor?', f),
                      ('running_mean', 'Tensor?', f), ('running_var', 'Tensor?', f), ('save_mean', 'Tensor?', f),
                      ('save_invstd', 'Tensor?', f), ('train', 'bool', True), ('eps', 'float', 1e-05),
                      ('output_mask', 'bool[3]', [True, True, True])])
    return E(op, [('input', 'Tensor', x), ('weight', 'Tensor?', f), ('bias', 'Tensor?', f),
                  ('running_mean', 'Tensor?', f), ('running_var', 'Tensor?', f), ('training', 'bool', training),
                  ('momentum', 'float', 0.1), ('eps', 'float', 1e-05)])


CASES = [  # (entry, vendor tools expected)
    (E('aten::mm', [('self', 'Tensor', T([64, 32], strides=[1, 64])), ('mat2', 'Tensor', T([32, 16]))]),
     ['hipblaslt-bench', 'rocblas-bench']),
    (E('aten::addmm', [('self', 'Tensor', T([16])), ('mat1', 'Tensor', T([64, 32])),
                       ('mat2', 'Tensor', T([32, 16], strides=[1, 32]))], [('beta', 'Scalar', 1), ('alpha', 'Scalar', 1)]),
     ['hipblaslt-bench', 'rocblas-bench']),
    (E('aten::addmm', [('self', 'Tensor', T([64, 16], 'float')), ('mat1', 'Tensor', T([64, 32], 'float')),
                       ('mat2', 'Tensor', T([32, 16], 'float'))], [('beta', 'Scalar', 0.5), ('alpha', 'Scalar', 2.0)]),
     ['hipblaslt-bench', 'rocblas-bench']),
    (E('aten::bmm', [('self', 'Tensor', T([4, 64, 32], 'c10::Half')), ('mat2', 'Tensor', T([4, 32, 16], 'c10::Half'))]),
     ['hipblaslt-bench', 'rocblas-bench']),
    (E('aten::linear', [('input', 'Tensor', T([2, 8, 32], 'float')), ('weight', 'Tensor', T([16, 32], 'float')),
                        ('bias', 'Tensor?', T([16], 'float'))]), ['hipblaslt-bench', 'rocblas-bench']),
    (E('aten::mm', [('self', 'Tensor', T([8, 4], 'double')), ('mat2', 'Tensor', T([4, 2], 'double'))]),
     ['rocblas-bench']),
    (E('aten::matmul', [('self', 'Tensor', T([1, 8, 4])), ('other', 'Tensor', T([3, 4, 2], strides=[8, 1, 4]))]),
     ['hipblaslt-bench', 'rocblas-bench']),
    (conv(T([2, 8, 16, 16], 'c10::Half'), T([6, 4, 3, 3], 'c10::Half'), T([6], 'c10::Half'), [2, 2], [1, 1], [2, 2], 2),
     ['MIOpenDriver']),
    (conv_bwd(CL([2, 16, 8, 8]), CL([2, 8, 8, 8]), CL([16, 8, 3, 3]), [1, 1], [1, 1], [1, 1], 1, [True, False, False]),
     ['MIOpenDriver']),
    (conv_bwd(CL([2, 16, 8, 8]), CL([2, 8, 8, 8]), CL([16, 8, 3, 3]), [1, 1], [1, 1], [1, 1], 1, [False, True, True]),
     ['MIOpenDriver']),
    (conv(T([1, 4, 6, 8, 8], 'float'), T([8, 4, 3, 3, 3], 'float'), None, [1, 1, 1], [1, 1, 1], [1, 1, 1], 1),
     ['MIOpenDriver']),
    (conv(T([2, 8, 5, 5]), T([8, 4, 3, 3]), None, [2, 2], [1, 1], [1, 1], 1, True, [1, 1]), ['MIOpenDriver']),
    (conv(T([2, 8, 5, 5], 'double'), T([4, 8, 3, 3], 'double'), None, [1, 1], [0, 0], [1, 1], 1), []),
    (bn('aten::native_batch_norm', CL([4, 16, 8, 8]), True, 16), ['MIOpenDriver']),
    (bn('aten::batch_norm', T([4, 16, 8, 8], 'float'), False, 16), ['MIOpenDriver']),
    (bn('aten::native_batch_norm_backward', T([4, 16, 8, 8], 'c10::Half'), True, 16), ['MIOpenDriver']),
    (E('aten::add', [('self', 'Tensor', T([32, 8])), ('other', 'Tensor', T([8]))], [('alpha', 'Scalar', 2)]), []),
    (E('aten::mul', [('self', 'Tensor', T([32, 8], 'float')), ('other', 'Scalar', 0.5)]), []),
    (E('aten::where', [('condition', 'Tensor', dict(T([32, 8], 'bool'), init='zeros')),
                       ('self', 'Tensor', T([32, 8])), ('other', 'Tensor', T([32, 8]))]), []),
    # serving stacks' ops (vLLM's _C schemas, AITER's): PyTorch snippets only
    (E('_C::silu_and_mul', [('result', 'Tensor!', dict(T([4, 64]), init=None)), ('input', 'Tensor', T([4, 128]))]), []),
    (E('_C::mul_and_silu', [('out', 'Tensor!', dict(T([4, 64], 'float'), init=None)), ('input', 'Tensor', T([4, 128]))]),
     []),
    (E('_C::gelu_tanh_and_mul', [('out', 'Tensor!', dict(T([2, 3, 32]), init=None)), ('input', 'Tensor', T([2, 3, 64]))]),
     []),
    (E('aiter::gelu_and_mul', [('out', 'Tensor', dict(T([4, 64]), init=None)), ('input', 'Tensor', T([4, 128]))]), []),
    (E('_C::rms_norm', [('result', 'Tensor!', dict(T([4, 64]), init=None)), ('input', 'Tensor', T([4, 64])),
                        ('weight', 'Tensor', T([64])), ('epsilon', 'float', 1e-06)]), []),
    (E('_C::fused_add_rms_norm', [('input', 'Tensor!', T([4, 64])), ('residual', 'Tensor!', T([4, 64])),
                                  ('weight', 'Tensor', T([64])), ('epsilon', 'float', 1e-06)]), []),
    (E('aten::rms_norm', [('input', 'Tensor', T([2, 8, 64], 'float')), ('normalized_shape', 'SymInt[]', [64]),
                          ('weight', 'Tensor?', None), ('eps', 'float?', None)]), []),
    (E('_C::rotary_embedding', [('positions', 'Tensor', dict(T([4], 'long int'), init='zeros')),
                                ('query', 'Tensor!', T([4, 256])), ('key', 'Tensor!?', T([4, 128])),
                                ('head_size', 'int', 64), ('cos_sin_cache', 'Tensor', T([32, 64])),
                                ('is_neox', 'bool', True)]), []),
]


def print_repro(rep, pkg, n):
    return run(rep, pkg, '--op', str(n), '--print-repro')


def check_op(rep, pkg, n, entry, tools, tag):
    p = print_repro(rep, pkg, n)
    if not check(p.returncode == 0, f'{tag}: --print-repro exit 0', p.returncode, p.stderr[-400:]):
        return None
    lines, code = sections(p.stdout)
    check(p.stdout.startswith(f'## op {n}: {entry["op_name"]}'), f'{tag}: section heading', p.stdout[:80])
    check('NVIDIA: no vendor command-line tool' in p.stdout, f'{tag}: the NVIDIA note')
    if tools is not None:
        check([shlex.split(ln)[0] for ln in lines] == tools, f'{tag}: vendor tools', lines)
    if not lines:
        check('AMD (ROCm): no' in p.stdout, f'{tag}: says why no AMD line')
    for ln in lines:
        errs = check_line(ln, entry)
        check(not errs, f'{tag}: {ln[:60]}...', errs)
    if check(code is not None, f'{tag}: a python block'):
        check_snippet(code, entry, tag)
    return lines


def main():
    ana, rep, trace = (os.path.abspath(a) for a in sys.argv[1:4])
    shared = sys.argv[4] if len(sys.argv) > 4 else ''
    tmp = tempfile.mkdtemp(prefix='jv_repro_')
    irp = os.path.join(tmp, 'cases.json')
    with open(irp, 'w') as f:
        json.dump([c[0] for c in CASES], f)

    good = {}
    for n, (entry, tools) in enumerate(CASES):
        lines = check_op(rep, irp, n, entry, tools, f'case {n} {entry["op_name"]}')
        for ln in lines or []:
            good.setdefault(shlex.split(ln)[0] + ('' if 'MIOpen' not in ln else shlex.split(ln)[1][:4]), (ln, entry))

    # the checker bites: each mutation of a correct line is rejected
    def mutated(key, fn, what):
        if not check(key in good, f'a correct {key} line to mutate'):
            return
        ln, entry = good[key]
        bad = fn(shlex.split(ln))
        errs = check_line(shlex.join(bad), entry)
        check(errs != [], f'the checker rejects {what}', shlex.join(bad))

    def swap_mn(w):
        i, j = w.index('-m'), w.index('-n')
        w[i + 1], w[j + 1] = w[j + 1], w[i + 1]
        return w

    def drop(opt):
        def f(w):
            i = w.index(opt)
            return w[:i] + w[i + 2:]
        return f

    def setv(opt, v):
        def f(w):
            w[w.index(opt) + 1] = v
            return w
        return f
    def flip(opt):
        def f(w):
            i = w.index(opt) + 1
            w[i] = 'T' if w[i] == 'N' else 'N'
            return w
        return f
    mutated('hipblaslt-bench', swap_mn, 'hipblaslt-bench with m and n swapped')
    mutated('hipblaslt-bench', lambda w: w + ['--bogus', '1'], 'an unknown flag')
    mutated('rocblas-bench', drop('-k'), 'rocblas-bench without -k')
    mutated('rocblas-bench', flip('--transposeA'), 'a wrong transpose')
    mutated('MIOpenDriverconv', setv('-c', '7'), 'MIOpenDriver conv with a wrong channel count')
    mutated('MIOpenDriverconv', lambda w: w + ['-Q', '1'], 'MIOpenDriver conv with an unknown short option')
    mutated('MIOpenDriverbnor', setv('--layout', 'NCHW' if 'NHWC' in good.get('MIOpenDriverbnor', ('',))[0] else 'NHWC'),
            'MIOpenDriver bnorm with a wrong layout')
    mutated('MIOpenDriverbnor', drop('-F'), 'MIOpenDriver bnorm without -F')

    # --op out of range; no --op: the whole document
    p = print_repro(rep, irp, len(CASES))
    check(p.returncode == 2 and 'no op' in p.stderr, 'op out of range: exit 2 with a message', p.returncode, p.stderr)
    p = run(rep, irp, '--print-repro')
    check(p.returncode == 0 and p.stdout.count('\n## op ') == len(CASES), 'no --op: every op', p.returncode)
    # --op LIST: the sections of those ops, in IR order, each once
    p = run(rep, irp, '--print-repro', '--op', '2,0', '--op', '1-2')
    heads = [l for l in p.stdout.splitlines() if l.startswith('## op ')]
    check(p.returncode == 0 and [h.split(':')[0] for h in heads] == ['## op 0', '## op 1', '## op 2'],
          '--op 2,0 --op 1-2: ops 0, 1, 2 once each, in order', p.returncode, heads)

    # the package of a real trace: reproduce.md listed in the manifest, every op checked
    out = os.path.join(tmp, 'out')
    p = run(ana, trace, '-o', out, '-q')
    check(p.returncode == 0, 'analyze', p.stderr[-400:])
    pkg = os.path.join(out, 'replay_package.zip')
    z = zipfile.ZipFile(pkg)
    check('reproduce.md' in z.namelist(), 'reproduce.md in the package', z.namelist())
    man = json.loads(z.read('manifest.json'))
    doc = z.read('reproduce.md')
    m = man.get('members', {}).get('reproduce.md', {})
    check(m.get('bytes') == len(doc) and m.get('sha256') == hashlib.sha256(doc).hexdigest(),
          'manifest lists reproduce.md with its size and SHA-256', m)
    ir = json.loads(z.read('replay_ir.json'))
    text = doc.decode()
    fams = set()
    for n, entry in enumerate(ir):
        lines = check_op(rep, pkg, n, entry, None, f'package op {n} {entry["op_name"]}')
        check(f'## op {n}: {entry["op_name"]}' in text, f'reproduce.md has op {n}')
        if lines:
            fams.add(entry['jarvis']['family'])
    check({'conv', 'batchnorm'} <= fams, 'package: vendor lines for conv and batchnorm ops', fams)
    p = print_repro(rep, pkg, 0)
    check(p.stdout in text, 'the --print-repro section is the one in reproduce.md')

    # fixture traces (real GEMMs, 3-D convolutions, fp32 batch norms, arguments an old trace did not record)
    traces = os.path.join(shared, 'traces') if shared else ''
    if not os.path.isdir(traces):
        skip_part(f'no fixture traces in {traces or "(no SHARED_DIR)"}')
        return finish()
    tools = {}
    for name in FIXTURES:
        out = os.path.join(tmp, name)
        p = run(ana, os.path.join(traces, name), '-o', out, '-q')
        if not check(p.returncode == 0, f'analyze {name}', p.stderr[-300:]):
            continue
        z = zipfile.ZipFile(os.path.join(out, 'replay_package.zip'))
        ir, doc = json.loads(z.read('replay_ir.json')), z.read('reproduce.md').decode()
        secs = {int(m.group(1)): m.group(0) for m in re.finditer(r'^## op (\d+): .*?(?=^## op |\Z)', doc, re.S | re.M)}
        for n, entry in enumerate(ir):
            tag = f'{name} op {n} {entry["op_name"]}'
            if not check(n in secs and 'No reproducer' not in secs[n], f'{tag}: a reproducer section'):
                continue
            lines, code = sections(secs[n])
            for ln in lines:
                tools[shlex.split(ln)[0]] = tools.get(shlex.split(ln)[0], 0) + 1
                errs = check_line(ln, entry)
                check(not errs, f'{tag}: {ln[:60]}...', errs)
            if check(code is not None, f'{tag}: a python block'):
                check_snippet(code, entry, tag)
    check(all(tools.get(t, 0) >= 5 for t in ('hipblaslt-bench', 'rocblas-bench', 'MIOpenDriver')),
          'fixtures: lines of every tool', tools)
    return finish()


if __name__ == '__main__':
    sys.exit(main())
