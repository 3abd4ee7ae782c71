"""Generators of hostile traces for test_hostile_inputs.py (and for measuring by hand:
`python3 hostile_gen.py KIND OUT [N]` writes one; KIND is one of the functions named gen_*).

Every trace is the mini Kineto shape jarvis-analyze reads: cpu ops, cudaLaunchKernel calls nested in them,
kernels on pid 0 carrying the launch's correlation id. Nothing here is stored in the repository: the tests
generate what they need at run time.
"""
import gzip
import json
import sys

DEVPROPS = [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85045231616, "computeMajor": 9,
             "computeMinor": 0, "numSms": 132, "warpSize": 32}]


def op(name, ts, dur, pid=100, tid=100, dims=None, ext=None):
    args = {}
    if dims is not None:
        args = {"Input Dims": dims, "Input type": ["float"] * len(dims), "Input Strides": [[]] * len(dims),
                "Concrete Inputs": [""] * len(dims)}
    if ext is not None:
        args["External id"] = ext
    return {"ph": "X", "cat": "cpu_op", "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args}


def launch(ts, corr, pid=100, tid=100, dur=2):
    return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": pid, "tid": tid, "ts": ts,
            "dur": dur, "args": {"correlation": corr}}


def kernel(name, ts, dur, corr, pid=0, stream=7):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": pid, "tid": stream, "ts": ts, "dur": dur,
            "args": {"device": pid, "stream": stream, "correlation": corr}}


def doc(events):
    return {"deviceProperties": DEVPROPS, "traceEvents": events}


def analysed(exe, tmp, name, events):
    """events written as tmp/NAME.json (with deviceProperties) and analysed by exe into tmp/NAME:
    (exit status, stderr, output folder, the fair report's text or '' when absent)"""
    import os
    import subprocess
    trace = os.path.join(tmp, name + '.json')
    write(trace, doc(events))
    out = os.path.join(tmp, name)
    p = subprocess.run([exe, '-q', trace, '-o', out], capture_output=True, text=True)
    fair = os.path.join(out, 'standalone_analysis_fair.md')
    text = open(fair, encoding='utf-8').read() if os.path.exists(fair) else ''
    return p.returncode, p.stderr, out, text


def one_op(name, kname, ts, dur=50, kdur=10, corr=1, pid=100):
    """a cpu op with one launch and its kernel"""
    return [op(name, ts, dur, pid=pid, tid=pid, dims=[[64, 64]]), launch(ts + 1, corr, pid=pid, tid=pid),
            kernel(kname, ts + 5, kdur, corr)]


def write(path, obj_or_bytes, gz=None):
    data = obj_or_bytes if isinstance(obj_or_bytes, bytes) else json.dumps(obj_or_bytes).encode()
    if gz is None:
        gz = path.endswith('.gz')
    if gz:
        data = gzip.compress(data, 1)
    with open(path, 'wb') as f:
        f.write(data)


# ---------- numbers ----------

def gen_huge_ts(path, ts=9.2e15):
    """two ops, the second at ts (microseconds) near the int64 range in nanoseconds"""
    ev = one_op("aten::add", "k_add", 1000, corr=1) + one_op("aten::mul", "k_mul", int(ts), 5e5, 5e5 - 10, corr=2)
    write(path, doc(ev))


def gen_bad_utf8(path):
    """op and kernel names with invalid UTF-8 bytes (raw, not escaped): a lone continuation byte, a cut
    sequence, an overlong encoding, a surrogate encoded in UTF-8, a byte 0xFF"""
    ev = one_op("aten::add_\x80X", "k1", 1000, corr=1) + one_op("aten::mul", "k2", 2000, corr=2)
    ev[2]["name"] = "kern_\xff\xfe_end"
    ev[5]["name"] = "kern2_\xc0\xaf_\xed\xa0\x80_\xe2\x82"
    ev[3]["args"]["Input type"] = ["flo\xf8at"]
    text = json.dumps(doc(ev), ensure_ascii=False)
    # the names hold U+0080.. characters as placeholders for the raw bytes: write each as one byte
    write(path, text.encode('latin-1'))


def gen_shared_corr(path):
    """two processes whose launches reuse correlation ids 1..3: process 100 (aten::add, kernels k_add on GPU
    pid 0) and process 200 (aten::mul, kernels k_mul on GPU pid 1); ids 4 (process 100) and 5 (process 200)
    are their own"""
    ev = []
    for pid, name, kname, gpu, ids in ((100, "aten::add", "k_add", 0, (1, 2, 3, 4)),
                                        (200, "aten::mul", "k_mul", 1, (1, 2, 3, 5))):
        for j, corr in enumerate(ids):
            ts = 1000 + 100 * j + (pid - 100)
            ev += [op(name, ts, 50, pid=pid, tid=pid, dims=[[64, 64]]), launch(ts + 1, corr, pid=pid, tid=pid),
                   kernel(kname, ts + 5000, 10 if gpu == 0 else 20, corr, pid=gpu)]
    write(path, doc(ev))


def gen_shared_flow(path, third_process=False):
    """gen_shared_corr's two processes, linked only by launch flows (no correlation args): flow ids 1..3 start in
    both processes, 4 (process 100) and 5 (process 200) in one; with third_process, a process 300 also launches
    flow 6 on GPU pid 0, so GPU 0's host process can no longer be told and its shared-id kernels stay unlinked"""
    ev = []
    procs = [(100, "aten::add", "k_add", 0, (1, 2, 3, 4)), (200, "aten::mul", "k_mul", 1, (1, 2, 3, 5))]
    if third_process:
        procs.append((300, "aten::sub", "k_sub", 0, (6,)))
    for pid, name, kname, gpu, ids in procs:
        for j, fid in enumerate(ids):
            ts = 1000 + 100 * j + (pid - 100)
            kts = ts + 5000 + (pid - 100) * 10
            lau = launch(ts + 1, 0, pid=pid, tid=pid)
            del lau["args"]["correlation"]
            ker = kernel(kname, kts, 10 if gpu == 0 else 20, 0, pid=gpu)
            del ker["args"]["correlation"]
            ev += [op(name, ts, 50, pid=pid, tid=pid, dims=[[64, 64]]), lau, ker,
                   {"ph": "s", "id": fid, "pid": pid, "tid": pid, "ts": ts + 1, "cat": "ac2g", "name": "ac2g"},
                   {"ph": "f", "id": fid, "pid": gpu, "tid": 7, "ts": kts, "cat": "ac2g", "name": "ac2g", "bp": "e"}]
    write(path, doc(ev))

# ---------- time and memory ----------

def gen_nested(path, n=200000, depth=None):
    """n cpu ops (aten::add, aten::mm) in chains of `depth` (default: one chain of depth n), each op nested
    in the one before; every op launches a kernel before its child starts"""
    depth = depth or n
    ev = []
    for c in range(0, n, depth):
        base = 30 * c
        m = min(depth, n - c)
        for j in range(m):
            i = c + j
            ts = base + 10 * j
            ev.append(op("aten::add" if i % 2 else "aten::mm", ts, 20 * m - 10 * j, dims=[[i % 5 + 1, 3], [3, 3]]))
            ev += [launch(ts + 1, i + 1), kernel("k%d" % (i % 2), base + 10 * m + 10 * j, 5, i + 1)]
    write(path, doc(ev))


def gen_chains(path, n=200000):
    """n cpu ops in chains just under the nesting limit (255 deep)"""
    gen_nested(path, n, 255)


def gen_example_trees(path):
    """chains of nested ops for the category data's call trees (category_data/*_tree_data.json): aten::mm chains
    of depth 120 and 105 (the outer op claims every kernel below it: its example holds 359 and 314 events, over
    the cap of 300), 30 aten::mm chains of depths 2..31 (whole subtrees; in the first, one launch owns two
    kernels that start together), and a chain of 10 trtllm::cublas_scaled_mm (a GEMM without a perf model, so
    its kernels make the synthetic rows k0 and k1, each with a kernel as its example). Each op launches a kernel before
    its child op starts. Returns the event list: an event's UID is its index in it."""
    ev = []

    def chain(n, base, name, dims, corr0):
        for j in range(n):
            ts = base + 10 * j
            ev.append(op(name, ts, 20 * n - 10 * j, dims=dims))
            ev.append(launch(ts + 1, corr0 + j))
            ev.append(kernel("k%d" % (j % 2), base + 20 * n + 10 * j, 5, corr0 + j))
        return base + 40 * n + 1000

    base = chain(120, 1000, "aten::mm", [[1, 3], [3, 3]], 1)
    base = chain(105, base, "aten::mm", [[2, 3], [3, 3]], 1001)
    for k in range(30):
        base = chain(2 + k, base, "aten::mm", [[10 + k, 3], [3, 3]], 2001 + 100 * k)
        if k == 0:  # the last launch's kernel, and a second one on stream 8 starting with it
            twin = dict(ev[-1], tid=8)
            twin["args"] = dict(twin["args"], stream=8)
            ev.append(twin)
    chain(10, base, "trtllm::cublas_scaled_mm", [[7, 3], [3, 3]], 9001)
    write(path, doc(ev))
    return ev


def gen_fusion_holders(path, blocks=3):
    """`blocks` my::block ops, block b nested under b + 1 my::outer ops, each block holding four elementwise ops
    (aten::add, aten::mul) of one small kernel each: one fusion candidate, my::block (the nearest op above the
    elementwise instances), with `blocks` instances and 4 * blocks kernels"""
    ev, corr, ts = [], 1, 1000
    for b in range(blocks):
        for w in range(b + 1):
            ev.append(op("my::outer", ts + w, 1000 - 2 * w))
        t0 = ts + 100
        ev.append(op("my::block", t0, 300))
        for k, name in enumerate(("aten::add", "aten::mul", "aten::add", "aten::mul")):
            t = t0 + 10 + 60 * k
            ev += [op(name, t, 50, dims=[[64, 64], [64, 64]]), launch(t + 1, corr),
                   kernel("elementwise_kernel_" + name[6:], t + 5, 3, corr)]
            corr += 1
        ts += 2000
    write(path, doc(ev))


def gen_threads(path, n=200000):
    """n cpu ops on n distinct threads"""
    ev = [op("aten::op", 1000 + i, 5, tid=i + 1) for i in range(n)]
    write(path, doc(ev))


def one_corr_dur(i, varied):
    """gen_one_corr's duration of kernel i (us)"""
    return 1 + (i * 7919) % 97 if varied else 5


def gen_one_corr(path, n=1000000, varied=False):
    """n kernels sharing one correlation id with one launch (a graph launch gone wrong); kernel i is named
    k<i mod 3> and lasts 5 us, or with varied one_corr_dur(i, True) (1..97 us)"""
    with gzip.open(path, 'wt', compresslevel=1) as f:
        f.write('{"traceEvents": [')
        step = 100 if varied else 10  # no kernel overlaps the next
        f.write(json.dumps(op("aten::x", 1000, step * n + 100, dims=[[2, 2]])) + ',')
        f.write(json.dumps(launch(1001, 5)))
        for i in range(n):
            f.write(',{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":7,"ts":%d,"dur":%d,'
                    '"args":{"device":0,"stream":7,"correlation":5}}'
                    % (i % 3, 1005 + step * i, one_corr_dur(i, varied)))
        f.write(']}')


def gen_gz_whitespace(path, mib=64):
    """gzip'd: '{' then mib MiB of spaces"""
    with gzip.open(path, 'wb', compresslevel=9) as f:
        f.write(b'{"traceEvents": [')
        blk = b' ' * (1 << 20)
        for _ in range(mib):
            f.write(blk)


def gen_gz_longstring(path, mib=64):
    """gzip'd: one event whose name is a string of mib MiB"""
    with gzip.open(path, 'wb', compresslevel=9) as f:
        f.write(b'{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "')
        blk = b'a' * (1 << 20)
        for _ in range(mib):
            f.write(blk)


# ---------- formats ----------

def gen_multimember(path):
    """a trace gzip'd as two members (as `cat a.gz b.gz` makes)"""
    raw = json.dumps(doc(one_op("aten::add", "k_add", 1000))).encode()
    h = len(raw) // 2
    write(path, gzip.compress(raw[:h]) + gzip.compress(raw[h:]), gz=False)


def gen_gz_garbage(path, garbage=b'GARBAGE after the member\n'):
    """a valid gzip member followed by bytes that are not gzip"""
    raw = json.dumps(doc(one_op("aten::add", "k_add", 1000))).encode()
    write(path, gzip.compress(raw) + garbage, gz=False)


if __name__ == '__main__':
    fn = globals()['gen_' + sys.argv[1]]
    if len(sys.argv) > 3:
        fn(sys.argv[2], int(sys.argv[3]))
    else:
        fn(sys.argv[2])
