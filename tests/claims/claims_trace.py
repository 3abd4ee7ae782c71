"""claims_trace: an independent reading of a PyTorch profiler trace for the claims check (Python 3 standard
library only; nothing of jarvis is imported or read).

Everything here follows the definitions of ../shared/docs/REFERENCE.md (sections 1 and 2) and the wording of
the reports, written again from those definitions:

- GPU events (kernel, gpu_memcpy, gpu_memset) are linked to their launch call (cuda_runtime / cuda_driver) by
  `correlation`; the launcher is the innermost cpu_op that holds the launch call in time on its thread. GPU
  events without a launch call are "unlinked": they are in no op and not on the timeline.
- Each kernel is counted once: walking from the root op down to the launcher, the outermost op with a perf
  model ("strong" op) claims it; a wrapper op (to, clone, relu, softmax...: "weak") claims it only when it is the
  launcher itself and launches no kernel through a child op; otherwise the launcher's row holds it, or a
  synthetic row `<launcher>-><kernel> (Synthetic Op)` when the launcher also has kernel-launching children.
- Rows group instances by op name, Input Dims, Input type, Input Strides and Concrete Inputs. An instance's
  kernel time is the union of its kernels' intervals; a row's time is the sum over its instances.
- Timeline: COMP = kernels that are neither communication nor memcpy (memsets count), COMM = kernels named
  nccl / rccl / cross_device_reduce, MEMCPY = gpu_memcpy; total = last end - first start.
- Perf models (FLOPs and bytes per call) as REFERENCE.md section 2 gives them; where it says "about" the count
  of the report's own documented model is used (layer norm: 7*n + 5*rows FLOPs, the rows' mean and rstd written
  in fp32; softmax: 5*n FLOPs).
"""
import decimal
import gzip
import json
import math
import re

# ---------------------------------------------------------------- dtypes

BPE = {'double': 8, 'long int': 8, 'long': 8, 'int64_t': 8, 'c10::complex<float>': 8,
       'float': 4, 'int': 4, 'Scalar': 4, 'unsigned int': 4,
       'c10::Half': 2, 'c10::BFloat16': 2, 'short int': 2, 'short': 2,
       'c10::Float8_e4m3fn': 1, 'c10::Float8_e5m2': 1, 'c10::Float8_e4m3fnuz': 1, 'c10::Float8_e5m2fnuz': 1,
       'unsigned char': 1, 'signed char': 1, 'bool': 1}
SHORT = {'c10::BFloat16': 'bf16', 'c10::Half': 'fp16', 'float': 'fp32', 'double': 'fp64'}
FLOAT_RANK = {'c10::Half': 1, 'c10::BFloat16': 1, 'float': 2, 'double': 3}


def bpe(t):
    return BPE.get(t)


def numel(d):
    n = 1
    for x in d:
        n *= x
    return n


# ---------------------------------------------------------------- op tables (REFERENCE.md section 2)

GEMM = {'aten::mm', 'aten::addmm', 'aten::bmm', 'aten::baddbmm', 'aten::_scaled_mm'}
CONV = {'aten::convolution', 'aten::_convolution', 'aten::cudnn_convolution', 'aten::miopen_convolution',
        'aten::convolution_backward'}
SDPA = {'aten::_scaled_dot_product_flash_attention', 'aten::_scaled_dot_product_efficient_attention',
        'aten::_scaled_dot_product_cudnn_attention'}
UNARY = {'aten::copy_', 'aten::gelu', 'aten::gelu_', 'aten::silu', 'aten::silu_', 'aten::sigmoid',
         'aten::sigmoid_', 'aten::tanh', 'aten::tanh_', 'aten::neg', 'aten::neg_', 'aten::rsqrt', 'aten::rsqrt_',
         'aten::sqrt', 'aten::sqrt_', 'aten::exp', 'aten::exp_', 'aten::log', 'aten::log_', 'aten::abs',
         'aten::abs_', 'aten::reciprocal', 'aten::reciprocal_', 'aten::sin', 'aten::sin_', 'aten::cos',
         'aten::cos_', 'aten::clamp', 'aten::clamp_', 'aten::clamp_min', 'aten::clamp_min_', 'aten::clamp_max',
         'aten::clamp_max_', 'aten::fill_', 'aten::upsample_nearest1d'}
BINARY = {'aten::add', 'aten::add_', 'aten::sub', 'aten::sub_', 'aten::mul', 'aten::mul_', 'aten::div',
          'aten::div_', 'aten::pow', 'aten::pow_', 'aten::where', 'aten::threshold_backward',
          'aten::sigmoid_backward', 'aten::maximum', 'aten::minimum'}
COMPARE = {'aten::eq', 'aten::ne', 'aten::lt', 'aten::le', 'aten::gt', 'aten::ge'}
REDUCE = {'aten::sum', 'aten::mean', 'aten::max', 'aten::min', 'aten::amax', 'aten::amin', 'aten::all',
          'aten::any', 'aten::var', 'aten::std', 'aten::norm'}
NORM = {'aten::layer_norm', 'aten::native_layer_norm', 'aten::batch_norm', 'aten::native_batch_norm',
        'aten::cudnn_batch_norm', 'aten::miopen_batch_norm', 'aten::group_norm', 'aten::native_group_norm',
        'aten::rms_norm', 'aten::_fused_rms_norm', 'aten::instance_norm'}
SOFTMAX = {'aten::_softmax', 'aten::_log_softmax'}
# backward ops that hold their kernels like their forward op (claimed; modelled here only where noted)
BN_BWD = {'aten::native_batch_norm_backward', 'aten::cudnn_batch_norm_backward', 'aten::miopen_batch_norm_backward',
          'aten::batch_norm_backward'}
OTHER_BWD = {'aten::native_layer_norm_backward', 'aten::native_group_norm_backward', 'aten::_fused_rms_norm_backward',
             'aten::_softmax_backward_data', 'aten::_log_softmax_backward_data',
             'aten::_scaled_dot_product_flash_attention_backward',
             'aten::_scaled_dot_product_efficient_attention_backward',
             'aten::_scaled_dot_product_cudnn_attention_backward'}
BINARY_BWD = {'aten::tanh_backward', 'aten::sigmoid_backward', 'aten::threshold_backward'}
# reductions and scans TraceLens files as reductions: they claim their kernels (a cast inside cumsum is
# cumsum's), no model here
SCAN = {'aten::cumsum', 'aten::cumprod', 'aten::logsumexp', 'aten::prod', 'aten::argmax', 'aten::argmin'}
STRONG = (GEMM | CONV | SDPA | UNARY | BINARY | COMPARE | REDUCE | NORM | SOFTMAX | BN_BWD | OTHER_BWD | BINARY_BWD
          | SCAN)
# ops REFERENCE.md section 2 gives no FLOPs/bytes formula for: rows of them count as "not modelled"
NO_MODEL = {'aten::index_select', 'aten::cat', 'aten::arange', 'aten::_local_scalar_dense'}
# wrappers: they claim their kernels only as the launcher itself
WEAK = {'aten::to', 'aten::_to_copy', 'aten::clone', 'aten::contiguous', 'aten::copy', 'aten::relu',
        'aten::relu_', 'aten::softmax', 'aten::log_softmax', 'aten::zero_'}
ELEMENTWISE = UNARY | BINARY | COMPARE | BINARY_BWD | (WEAK - {'aten::softmax', 'aten::log_softmax'})
COMM_RE = re.compile(r'nccl|rccl|cross_device_reduce', re.I)


def row_category(r):
    """The category of a row: by its op's name; a row of an op this script has no table entry for follows
    TraceLens' op category, which looks at the first kernel's name (`void at::native...elementwise...`)."""
    c = category(r.op_name)
    if c == 'Other' and r.op_name not in STRONG and r.op_name not in WEAK and r.instances:
        k = min(r.instances[0], key=lambda g: g[0])[2]
        if k.startswith('void at::native') and 'elementwise' in k:
            return 'Elementwise'
    return c


def category(name):
    """The report's categories: GEMM, Convolution, Batch norm, Elementwise, Other."""
    if name in GEMM:
        return 'GEMM'
    if name in CONV:
        return 'Convolution'
    if 'batch_norm' in name and (name in NORM or name in BN_BWD):
        return 'Batch norm'
    if name in ELEMENTWISE:
        return 'Elementwise'
    return 'Other'


# ---------------------------------------------------------------- perf models

class Perf:
    def __init__(self, flops, nbytes, spec):
        self.flops, self.bytes, self.spec = float(flops), float(nbytes), spec


def _spec(kind, t):
    s = SHORT.get(t)
    return '%s_%s' % (kind, s) if s else ''


def _ints(s):
    return [int(x) for x in re.findall(r'-?\d+', s or '')]


def _promote(ta, tb):
    fa, fb = FLOAT_RANK.get(ta, 0), FLOAT_RANK.get(tb, 0)
    if fa == fb == 1 and ta != tb:
        return 'float'
    if fa or fb:
        return ta if fa >= fb else tb
    return ta if (bpe(ta) or 0) >= (bpe(tb) or 0) else tb


def perf_model(name, dims, types, concrete):
    """FLOPs, bytes and compute spec of one call, or None where there is no model (REFERENCE.md section 2)."""
    try:
        return _perf_model(name, dims or [], types or [], concrete or [])
    except (IndexError, TypeError, ValueError, ZeroDivisionError):
        return None


def _perf_model(name, D, T, C):
    if name in ('aten::mm', 'aten::addmm', 'aten::bmm', 'aten::baddbmm'):
        o = 1 if name in ('aten::addmm', 'aten::baddbmm') else 0
        a, b = D[o], D[o + 1]
        batch = a[0] if len(a) == 3 else 1
        m, k, n = a[-2], a[-1], b[-1]
        e = bpe(T[o])
        flops = batch * 2.0 * m * n * k
        nbytes = batch * (m * k + k * n + m * n) * e
        if o:
            flops += batch * m * n
            nbytes += numel(D[0]) * bpe(T[0])
        return Perf(flops, nbytes, _spec('matrix', T[o]))
    if name in SDPA:
        q, k, v = D[0], D[1], D[2]
        b, h, nq, dqk = q
        nkv, dv = k[-2], v[-1]
        causal = False
        idx = 4 if name == 'aten::_scaled_dot_product_flash_attention' else 6
        if name == 'aten::_scaled_dot_product_cudnn_attention':
            idx = 6
        if len(C) > idx and C[idx] in ('True', 'False'):
            causal = C[idx] == 'True'
        flops = b * h * 2.0 * nq * nkv * (dqk + dv)
        if causal:
            flops /= 2
        nbytes = (numel(q) + numel(k) + numel(v) + b * h * nq * dv) * bpe(T[0])
        return Perf(flops, nbytes, _spec('matrix', T[0]))
    if name in ('aten::convolution', 'aten::_convolution', 'aten::cudnn_convolution',
                'aten::miopen_convolution'):
        x, w = D[0], D[1]
        bias = len(D) > 2 and len(D[2]) > 0
        o = 3
        stride, pad, dil = _ints(C[o]), _ints(C[o + 1]), _ints(C[o + 2])
        transposed = name in ('aten::convolution', 'aten::_convolution') and C[o + 3] == 'True'
        if transposed:
            return None
        sp = []
        for i, xin in enumerate(x[2:]):
            kk = w[2 + i]
            sp.append((xin + 2 * pad[i] - dil[i] * (kk - 1) - 1) // stride[i] + 1)
        out = [x[0], w[0]] + sp
        flops = 2.0 * numel(w[1:]) * numel(out) + (numel(out) if bias else 0)
        nbytes = (numel(x) + numel(w) + numel(out) + (w[0] if bias else 0)) * bpe(T[0])
        return Perf(flops, nbytes, _spec('matrix', T[0]))
    if name == 'aten::layer_norm':
        x = D[0]
        n = numel(x)
        p = numel(_ints(C[1])) if len(C) > 1 and _ints(C[1]) else numel(D[2])
        rows = n / p
        e = bpe(T[0])
        nbytes = 2.0 * n * e + 2.0 * rows * 4
        flops = 3.0 * n + 5.0 * rows + 2.0 * n
        has_w, has_b = bool(D[2]), bool(D[3])
        if has_w:
            nbytes += p * bpe(T[2])
        if has_b:
            nbytes += p * bpe(T[3])
        flops += 2.0 * n if has_w and has_b else n if has_w or has_b else 0
        return Perf(flops, nbytes, _spec('vector', T[0]))
    if name == 'aten::_softmax':
        n = numel(D[0])
        out_t = 'float' if len(C) > 2 and C[2] == 'True' else T[0]
        return Perf(5.0 * n, n * bpe(T[0]) + n * bpe(out_t), _spec('vector', T[0]))
    if name in REDUCE:
        # REFERENCE.md: bytes = n_in*bpe + n_out*bpe, n_out from the reduced dims and keepdim (Concrete Inputs);
        # flops = n_in (one combine per input element); any/all write bool
        x = D[0]
        n = numel(x)
        dims = _ints(C[1]) if len(C) > 1 else []
        keep = len(C) > 2 and C[2] == 'True'
        if dims:
            red = {d % len(x) for d in dims}
            out = [1 if k in red else s for k, s in enumerate(x) if keep or k not in red]
        else:
            out = [1] * len(x) if keep else []
        out_t = 'bool' if name in ('aten::all', 'aten::any') else T[0]
        return Perf(n, n * bpe(T[0]) + numel(out) * bpe(out_t), _spec('vector', T[0]))
    if name == 'aten::upsample_nearest1d':
        # unary rule of REFERENCE.md: read the input, write the output (its size from Concrete Inputs)
        x = D[0]
        size = _ints(C[1]) if len(C) > 1 else []
        if not size:
            return None
        out = list(x[:-1]) + size[-1:]
        return Perf(numel(out), (numel(x) + numel(out)) * bpe(T[0]), _spec('vector', T[0]))
    if name in UNARY:
        if name == 'aten::copy_':
            nd, ns = numel(D[0]), numel(D[1])
            return Perf(nd, nd * bpe(T[0]) + ns * bpe(T[1]), _spec('vector', T[0]))
        n = numel(D[0])
        if name == 'aten::fill_':
            return Perf(n, n * bpe(T[0]), _spec('vector', T[0]))
        return Perf(n, 2.0 * n * bpe(T[0]), _spec('vector', T[0]))
    if name in BINARY or name in COMPARE or name in BINARY_BWD:
        # a Scalar, or a 0-dim tensor (a wrapped Python number), moves no bytes and promotes only across
        # categories (an integer tensor times a float number is a float tensor)
        ops, zero = [], []
        for i in range(min(2, len(D))):
            if T[i] in ('Scalar', '') or bpe(T[i]) is None:
                continue
            (ops if D[i] else zero).append((D[i], T[i]))
        if not ops:
            return None
        shape = []
        for d, _ in ops:
            shape = _broadcast(shape, d)
        out_t = ops[0][1]
        for _, t in ops[1:]:
            out_t = _promote(out_t, t)
        for _, t in zero:
            if FLOAT_RANK.get(t, 0) and not FLOAT_RANK.get(out_t, 0):
                out_t = t
        nout = numel(shape)
        spec = _spec('vector', out_t)
        if name in COMPARE:
            out_t = 'bool'
        nbytes = sum(numel(d) * bpe(t) for d, t in ops) + nout * bpe(out_t)
        return Perf(nout, nbytes, spec)
    return None


def _broadcast(a, b):
    a, b = list(a), list(b)
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    return [max(x, y) for x, y in zip(a, b)]


# ---------------------------------------------------------------- intervals

def union_len(iv):
    """Length of the union of (start, end) intervals."""
    tot, cur_s, cur_e = 0, None, None
    for s, e in sorted(iv):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                tot += cur_e - cur_s
            cur_s, cur_e = s, e
        elif e > cur_e:
            cur_e = e
    if cur_e is not None:
        tot += cur_e - cur_s
    return tot


def merge(iv):
    out = []
    for s, e in sorted(iv):
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1][1] = e
        else:
            out.append([s, e])
    return out


def minus_len(a, b):
    """|A \\ B| for two merged interval lists."""
    tot, j = 0, 0
    for s, e in a:
        cur = s
        while j < len(b) and b[j][1] <= cur:
            j += 1
        k = j
        while k < len(b) and b[k][0] < e:
            if b[k][0] > cur:
                tot += b[k][0] - cur
            cur = max(cur, b[k][1])
            k += 1
        if cur < e:
            tot += e - cur
    return tot


# ---------------------------------------------------------------- trace

CPU_CATS = {'cpu_op', 'Operator'}
HOST_CATS = {'cpu_op', 'Operator', 'user_annotation', 'python_function'}
# DDP's buffer sync in forward, and its constructor (README, "exposed communication")
DDP_SYNC = ('DistributedDataParallel.forward', '_sync_buffers', '_sync_module_buffers', '_broadcast_coalesced')
DDP_INIT = ('_sync_params_and_buffers', '_sync_module_states', 'DistributedDataParallel.__init__')
WAIT_RATIO = 2.0            # an instance this many times as long as the fastest of its size waits
XFER_MIN_BYTES = 1 << 20    # from this size a message is bandwidth-bound
# bytes per element: c10 ScalarType names (record_param_comms, kernel args) and Input type spellings
COMM_DTYPE = {'Float': 4, 'Int': 4, 'Long': 8, 'BFloat16': 2, 'Bool': 1, 'Byte': 1, 'Char': 1, 'Double': 8,
              'Half': 2, 'Short': 2, 'float': 4, 'int': 4, 'long int': 8, 'long': 8, 'double': 8, 'c10::Half': 2,
              'c10::BFloat16': 2, 'bool': 1, 'unsigned char': 1, 'signed char': 1, 'short int': 2}


def coll_kind(name):
    """The collective a name says ('allreduce', ..., None), the kernel's or the collective's name"""
    b = re.sub(r'[_:\- ]', '', name.lower())
    for k in ('allreduce', 'reducescatter', 'allgather', 'alltoall', 'broadcast', 'sendrecv', 'barrier'):
        if k in b:
            return k
    b = re.sub(r'^(nccl|rccl)?(devkernel)?(kernel)?', '', b)
    if b.startswith('reduce'):
        return 'reduce'
    if b.startswith('send') or b.startswith('recv'):
        return 'sendrecv'
    return None


def busbw_factor(kind, n):
    if kind == 'allreduce':
        return 2.0 * (n - 1) / n
    if kind in ('allgather', 'reducescatter', 'alltoall'):
        return (n - 1) / n
    return 1.0
LAUNCH_CATS = {'cuda_runtime', 'cuda_driver', 'Runtime'}
GPU_CATS = {'kernel': 'kernel', 'Kernel': 'kernel', 'gpu_memcpy': 'memcpy', 'Memcpy': 'memcpy',
            'gpu_memset': 'memset', 'Memset': 'memset'}


class Row:
    def __init__(self, key, name, dims, types, concrete, synthetic):
        self.key, self.name, self.dims, self.types, self.concrete = key, name, dims, types, concrete
        self.synthetic = synthetic
        self.instances = []   # lists of GPU events (ts, end, name, kind)
        self.inst_ops = []    # the op (or launch) event of each instance
        self.perf = None

    @property
    def judged(self):
        """1 when this script knows whether the row has a perf model: it has one here, or its op is one that
        REFERENCE.md gives no formula for, or it is synthetic (kernels of no op of their own)."""
        return self.perf is not None or self.synthetic or self.op_name in NO_MODEL

    @property
    def count(self):
        return len(self.instances)

    def busy(self, inst):
        return union_len([(k[0], k[1]) for k in inst]) / 1000.0

    @property
    def time_us(self):
        return sum(self.busy(i) for i in self.instances)

    def kernels(self):
        """(name, total µs) per distinct kernel name, largest first."""
        tot = {}
        for inst in self.instances:
            for k in inst:
                tot[k[2]] = tot.get(k[2], 0.0) + (k[1] - k[0]) / 1000.0
        return sorted(tot.items(), key=lambda x: -x[1])

    def runs_as_copy(self):
        """1 when the row ran any gpu_memcpy or gpu_memset event (the elementwise baseline leaves it out)."""
        return any(k[3] in ('memcpy', 'memset') for i in self.instances for k in i)

    def transfer(self):
        """1 when the row's GPU time is mostly memcpy (a transfer is not judged against HBM)."""
        m = sum(k[1] - k[0] for i in self.instances for k in i if k[3] == 'memcpy')
        a = sum(k[1] - k[0] for i in self.instances for k in i)
        return a > 0 and m * 2 > a


def _dims_text(d):
    """Input Dims as the reports print them: Python tuples."""
    if isinstance(d, list):
        if len(d) == 1:
            return '(' + _dims_text(d[0]) + ',)'
        return '(' + ', '.join(_dims_text(x) for x in d) + ')'
    return str(d)


def _types_text(t):
    if len(t) == 1:
        return "('%s',)" % t[0]
    return '(' + ', '.join("'%s'" % x for x in t) + ')'


def _ns(v):
    """A JSON time in µs as exact integer nanoseconds: old traces hold integer µs near 1.7e15, where a float
    times 1000 loses nanoseconds; a float's shortest repr is the text the trace holds."""
    if isinstance(v, int):
        return v * 1000
    return int((decimal.Decimal(repr(float(v))) * 1000).to_integral_value(decimal.ROUND_HALF_EVEN))


class Trace:
    def __init__(self, path):
        self.path = path
        with open(path, 'rb') as f:
            raw = f.read()
        if raw[:2] == b'\x1f\x8b':
            raw = gzip.decompress(raw)
        doc = json.loads(raw.decode('utf-8', 'replace'))
        ev = doc['traceEvents'] if isinstance(doc, dict) else doc
        self.meta = doc if isinstance(doc, dict) else {}
        ops, launches, gpu = [], {}, []
        self.modules = []   # nn.Module python events: (start, end, name, thread)
        self.comm_spans = []  # host events named nccl:* or DDP's buffer sync / constructor (comm_evidence)
        self.comm_kargs = {}  # (start ns, correlation) of a communication kernel -> its args
        self.pname, self.plabel, self.tname = {}, {}, {}
        for e in ev:
            if not isinstance(e, dict):
                continue
            if e.get('ph') == 'M':
                a = e.get('args') or {}
                if e.get('name') == 'process_name':
                    self.pname[e.get('pid')] = a.get('name')
                elif e.get('name') == 'process_labels':
                    self.plabel[e.get('pid')] = a.get('labels')
                elif e.get('name') == 'thread_name':
                    self.tname[(e.get('pid'), e.get('tid'))] = a.get('name')
                continue
            if e.get('ph') != 'X':
                continue
            cat = e.get('cat')
            try:
                ts, dur = float(e['ts']), float(e.get('dur', 0))
            except (KeyError, TypeError, ValueError):
                continue
            args = e.get('args') or {}
            nm = str(e.get('name', ''))
            if cat in HOST_CATS and (nm.startswith('nccl:') or any(k in nm for k in DDP_SYNC + DDP_INIT)):
                self.comm_spans.append({'name': nm, 'ts': ts, 'end': ts + dur, 'tid': (e.get('pid'), e.get('tid')),
                                        'args': args})
            if cat == 'python_function' and str(e.get('name', '')).startswith('nn.Module: '):
                self.modules.append((ts, ts + dur, e['name'][len('nn.Module: '):], (e.get('pid'), e.get('tid'))))
                continue
            if cat in CPU_CATS:
                ops.append({'name': e.get('name', ''), 'ts': ts, 'end': ts + dur, 'tid': (e.get('pid'), e.get('tid')),
                            'args': args, 'parent': None, 'kl': False, 'launches': False})
            elif cat in LAUNCH_CATS:
                c = args.get('correlation')
                if c is not None:
                    launches[c] = {'name': e.get('name', ''), 'ts': ts, 'end': ts + dur,
                                   'tid': (e.get('pid'), e.get('tid'))}
            elif cat in GPU_CATS:
                # GPU intervals in integer nanoseconds (the traces' µs carry 3 decimals): touching kernels
                # touch exactly
                t0 = _ns(e['ts'])
                gpu.append((t0, t0 + _ns(e.get('dur', 0)), e.get('name', ''), GPU_CATS[cat], args.get('correlation')))
                if GPU_CATS[cat] == 'kernel' and COMM_RE.search(e.get('name', '')):
                    self.comm_kargs[(t0, args.get('correlation'))] = args
        self.ngpu = len(gpu)
        self.linked = [g for g in gpu if g[4] in launches]
        self.unlinked = [g for g in gpu if g[4] not in launches]
        self._tree(ops, launches)
        self._rows()
        self._timeline()

    # the host call tree: per thread, sorted by start (longer first), a stack of open ops
    def _tree(self, ops, launches):
        by_tid = {}
        for o in ops:
            by_tid.setdefault(o['tid'], []).append(o)
        for k, l in launches.items():
            l['corr'] = k
            by_tid.setdefault(l['tid'], []).append(l)
        for items in by_tid.values():
            items.sort(key=lambda x: (x['ts'], -(x['end'] - x['ts']), 'corr' in x))
            stack = []
            for it in items:
                while stack and it['ts'] >= stack[-1]['end']:
                    stack.pop()
                parent = stack[-1] if stack else None
                it['parent'] = parent
                if 'corr' not in it:
                    stack.append(it)
        self.launch_of = launches
        # ops that hold a kernel-launching op below them
        for g in self.linked:
            L = launches[g[4]]['parent']
            if L is None:
                continue
            L['launches'] = True
            p = L['parent']
            while p is not None and not p['kl']:
                p['kl'] = True
                p = p['parent']

    def _instance_of(self, g):
        launch = self.launch_of[g[4]]
        L = launch['parent']
        claim = None
        o = L
        while o is not None:
            if o['name'] in STRONG:
                claim = o
            o = o['parent']
        if claim is None and L is not None and L['name'] in WEAK and not L['kl']:
            claim = L
        if claim is not None:
            return claim, False
        if L is None:
            return launch, True
        return L, L['kl']

    def _rows(self):
        rows, inst = {}, {}
        for g in self.linked:
            if g[3] == 'kernel' and COMM_RE.search(g[2]):
                continue
            o, synth = self._instance_of(g)
            a = o.get('args') or {}
            dims = a.get('Input Dims', a.get('Input dims'))
            types = a.get('Input type')
            strides = a.get('Input Strides')
            conc = a.get('Concrete Inputs')
            name = o['name'] + '->' + g[2] + ' (Synthetic Op)' if synth else o['name']
            # rows are per process and thread name too (forward and autograd threads apart)
            pid, tid = o['tid']
            where = (self.pname.get(pid) or 'Unknown', self.plabel.get(pid) or 'Unknown',
                     self.tname.get((pid, tid)) or 'Unknown')
            key = (name, json.dumps(dims), json.dumps(types), json.dumps(strides), json.dumps(conc), where)
            r = rows.get(key)
            if r is None:
                r = rows[key] = Row(key, name, dims, types, conc, synth)
                r.op_name = o['name']
                r.dims_text = _dims_text(dims) if dims is not None else ''
                r.types_text = _types_text(types) if types is not None else ''
                r.perf = None if synth else perf_model(o['name'], dims, types, conc)
            ik = (id(o), g[2] if synth else None)
            if ik not in inst:
                inst[ik] = []
                r.instances.append(inst[ik])
                r.inst_ops.append(o)
            inst[ik].append(g)
        self.rows = sorted(rows.values(), key=lambda r: -r.time_us)
        self.total_us = sum(r.time_us for r in self.rows)

    def _timeline(self):
        g = self.linked
        if not g:
            self.tl = dict(total=0, computation=0, idle=0, exposed_comm=0, exposed_memcpy=0)
            return
        comm = merge([(x[0], x[1]) for x in g if x[3] == 'kernel' and COMM_RE.search(x[2])])
        memcpy = merge([(x[0], x[1]) for x in g if x[3] == 'memcpy'])
        comp = merge([(x[0], x[1]) for x in g if x[3] != 'memcpy' and not (x[3] == 'kernel' and COMM_RE.search(x[2]))])
        total = max(x[1] for x in g) - min(x[0] for x in g)
        busy = union_len([(x[0], x[1]) for x in g])
        self.tl = {k: v / 1000.0 for k, v in dict(total=total, computation=union_len(comp), idle=total - busy,
                                                   exposed_comm=minus_len(comm, comp),
                                                   exposed_memcpy=minus_len(minus_merge(memcpy, comp), comm)).items()}

    def _coll_meta(self, g):
        """(kind, message bytes or None, group size or None) of communication kernel g: its own args, else the
        nearest op above its launch with collective args (record_param_comms), else the nccl:<collective>
        annotation around the launch (its first input), else the kernel name"""
        launch = self.launch_of[g[4]]
        a = self.comm_kargs.get((g[0], g[4])) or {}
        o = launch['parent']
        while 'Collective name' not in a and 'In msg nelems' not in a and o is not None:
            if 'Collective name' in (o.get('args') or {}) or 'In msg nelems' in (o.get('args') or {}):
                a = o['args']
            o = o['parent']
        kind = coll_kind(a.get('Collective name', '')) if a.get('Collective name') else None
        nin, nout, dt, gs = a.get('In msg nelems'), a.get('Out msg nelems'), a.get('dtype'), a.get('Group size')
        if nin is None or dt is None:
            ann = [x for x in self.comm_spans if x['name'].startswith('nccl:') and x['tid'] == launch['tid']
                   and x['ts'] <= launch['ts'] <= x['end']]
            if ann:
                x = max(ann, key=lambda y: y['ts'])
                kind = kind or coll_kind(x['name'])
                d, t = x['args'].get('Input Dims'), x['args'].get('Input type')
                if nin is None and d and isinstance(d[0], list):
                    nin = numel(d[0])
                    world = (self.meta.get('distributedInfo') or {}).get('world_size')
                    n_ = gs or world
                    nout = nin * n_ if kind == 'allgather' and n_ else nin // n_ if kind == 'reducescatter' and n_ \
                        else nin
                if dt is None and t:
                    dt = t[0]
        kind = kind or coll_kind(g[2])
        if gs is None and not a.get('Process Group Name'):
            gs = (self.meta.get('distributedInfo') or {}).get('world_size')
        eb = COMM_DTYPE.get(dt)
        nel = nout if kind == 'allgather' else nin
        nbytes = float(nel * eb) if eb and nel is not None and nel >= 0 else None
        return kind, nbytes, gs

    def comm_evidence(self):
        """The exposed communication split (README "exposed communication"), in µs, with the figures the report
        states: DDP buffer broadcasts, then waiting (the time beyond the fastest instance of the same kind and
        size, taken at the kernel's start), then the rest; the first that covers a moment wins."""
        g = [x for x in self.linked if x[3] == 'kernel' and COMM_RE.search(x[2])]
        comp = merge([(x[0], x[1]) for x in self.linked
                      if x[3] != 'memcpy' and not (x[3] == 'kernel' and COMM_RE.search(x[2]))])
        ddp_spans = [x for x in self.comm_spans if any(k in x['name'] for k in DDP_SYNC)]
        init_spans = [x for x in self.comm_spans if any(k in x['name'] for k in DDP_INIT)]
        ddp, groups = [], {}
        ev = {'ddp_calls': 0, 'ddp_us': 0.0, 'ddp_bytes': 0.0}
        for x in g:
            kind, nbytes, gs = self._coll_meta(x)
            L = self.launch_of[x[4]]
            inside = [s for s in ddp_spans if s['tid'] == L['tid'] and s['ts'] <= L['ts'] and L['end'] <= s['end']]
            init = [s for s in init_spans if s['tid'] == L['tid'] and s['ts'] <= L['ts'] and L['end'] <= s['end']]
            if kind == 'broadcast' and inside and not init:
                ev['ddp_calls'] += 1
                ev['ddp_us'] += (x[1] - x[0]) / 1e3
                ev['ddp_bytes'] += nbytes or 0.0
                ddp.append((x[0], x[1]))
                continue
            if nbytes is not None and kind not in (None, 'barrier'):
                groups.setdefault((kind, nbytes, gs), []).append(x)
        wait, ev['wait_calls'], ev['wait_us'], ev['wait_top'], ev['xfer_top'] = [], 0, 0.0, None, None
        for (kind, nbytes, gs), xs in groups.items():
            d = [x[1] - x[0] for x in xs]
            best, worst = min(d), max(d)

            def bw(t):
                if t <= 0 or kind == 'barrier':
                    return math.nan
                return nbytes / t * (busbw_factor(kind, gs) if gs else 1.0)
            z = {'kind': kind, 'bytes': nbytes, 'n': len(xs), 'slow': 0, 'wait_us': 0.0, 'best_us': best / 1e3,
                 'worst_us': worst / 1e3, 'best_bw': bw(best), 'worst_bw': bw(worst), 'sum_us': sum(d) / 1e3}
            if len(xs) >= 2 and best > 0:
                for x, t in zip(xs, d):
                    if t >= WAIT_RATIO * best:
                        z['slow'] += 1
                        z['wait_us'] += (t - best) / 1e3
                        wait.append((x[0], x[0] + t - best))
            ev['wait_calls'] += z['slow']
            ev['wait_us'] += z['wait_us']
            if z['slow'] and (ev['wait_top'] is None or z['wait_us'] > ev['wait_top']['wait_us']):
                ev['wait_top'] = z
            if not z['slow'] and z['n'] >= 2 and best > 0 and nbytes >= XFER_MIN_BYTES and \
                    (ev['xfer_top'] is None or z['sum_us'] > ev['xfer_top']['sum_us']):
                ev['xfer_top'] = z
        exposed = self.tl['exposed_comm'] * 1e3   # ns
        x_ddp = min(minus_len(merge(ddp), comp), exposed)
        x_wait = min(minus_len(merge(wait), merge(comp + merge(ddp))), exposed - x_ddp)
        ev['ddp'], ev['wait'], ev['rest'] = x_ddp / 1e3, x_wait / 1e3, (exposed - x_ddp - x_wait) / 1e3
        return ev

    def fusion_groups(self):
        """Elementwise kernels by the innermost nn.Module python event around their launch, per module class
        (the name less its _N suffix): {class: (instances, kernels, µs)}. None without module events."""
        if not self.modules:
            return None   # grouped by parent op then: which ancestors (annotations, autograd nodes) count is
            #               jarvis' choice, not a definition the report states
        launches = []   # (ts, kernel µs) of each elementwise kernel's launch
        for r in self.rows:
            if row_category(r) != 'Elementwise':
                continue
            for inst in r.instances:
                for g in inst:
                    if g[3] == 'kernel':
                        L = self.launch_of[g[4]]
                        launches.append((L['ts'], L['tid'], (g[1] - g[0]) / 1000.0))
        by_tid = {}
        for m in self.modules:
            by_tid.setdefault(m[3], []).append(m)
        out = {}
        for tid, mods in by_tid.items():
            items = sorted([(m[0], 0, m) for m in mods] + [(l[0], 1, l) for l in launches if l[1] == tid],
                           key=lambda x: (x[0], x[1], -(x[2][1] - x[2][0]) if x[1] == 0 else 0))
            stack, seen = [], {}
            for ts, kind, it in items:
                while stack and ts >= stack[-1][1]:
                    stack.pop()
                if kind == 0:
                    stack.append(it)
                elif stack:
                    m = stack[-1]
                    cls = re.sub(r'_\d+$', '', m[2])
                    g = out.setdefault(cls, [set(), 0, 0.0])
                    g[0].add(id(m))
                    g[1] += 1
                    g[2] += it[2]
        return {k: (len(v[0]), v[1], v[2]) for k, v in out.items()}

    def row_metrics(self, r, hw):
        """Per-row means over calls: TB/s, TFLOPS/s, % of roofline; FLOPS/Byte, bound, roofline µs per call.
        hw: {'bw': GB/s, 'peaks': {spec: TFLOPS}} or None."""
        m = dict(tbs=math.nan, tflops=math.nan, fpb=math.nan, pct=math.nan, bound='none', roof=math.nan,
                 spec='')
        p = r.perf
        if p is None:
            return m
        m['spec'] = p.spec
        busy = [r.busy(i) for i in r.instances]
        if p.bytes > 0:
            m['fpb'] = p.flops / p.bytes
        tb = [p.bytes / 1e12 / (t / 1e6) for t in busy if t > 0]
        tf = [p.flops / 1e12 / (t / 1e6) for t in busy if t > 0]
        m['tbs'] = sum(tb) / len(tb) if tb else math.nan
        m['tflops'] = sum(tf) / len(tf) if tf else math.nan
        if not hw or not p.spec or r.transfer() or p.spec not in hw['peaks'] or not p.flops > 0:
            return m
        cu = p.flops / (hw['peaks'][p.spec] * 1e12) * 1e6
        mu = p.bytes / (hw['bw'] * 1e9) * 1e6
        m['roof'] = max(cu, mu)
        m['bound'] = 'COMPUTE_BOUND' if cu >= mu else 'MEMORY_BOUND'
        pc = [m['roof'] / t * 100 for t in busy if t > 0]
        m['pct'] = sum(pc) / len(pc) if pc else math.nan
        return m


def minus_merge(a, b):
    """A \\ B as a merged interval list."""
    out, j = [], 0
    for s, e in a:
        cur = s
        while j < len(b) and b[j][1] <= cur:
            j += 1
        k = j
        while k < len(b) and b[k][0] < e:
            if b[k][0] > cur:
                out.append([cur, b[k][0]])
            cur = max(cur, b[k][1])
            k += 1
        if cur < e:
            out.append([cur, e])
    return out
