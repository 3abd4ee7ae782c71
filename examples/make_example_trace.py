#!/usr/bin/env python3
"""Writes examples/resnet_block_train.json.gz: a small synthetic PyTorch
profiler trace in the exact shape Kineto writes for a CUDA training step of a
ResNet-style block (bf16, channels-last): cpu ops with shapes, nested ATen ops,
cudaLaunchKernel calls, kernels with correlation ids and ac2g flows, backward
ops linked to the forward by Sequence number, a memcpy, M metadata and
deviceProperties of an H100. Deterministic. It stands in until a real trace
of our own is bundled."""
import gzip, json, random, sys

rng = random.Random(7)
PID, TID, BWD_TID = 4242, 4242, 4250
events, uid = [], [0]
corr = [100]
ext = [1]
seq = [1]
t = [1000.0]           # host clock (us, relative to baseTimeNanoseconds)
gpu_t = [1500.0]       # stream 7 clock


def X(cat, name, ts, dur, tid=TID, pid=PID, args=None):
    e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": round(ts, 3), "dur": round(dur, 3)}
    if args is not None:
        e["args"] = args
    events.append(e)
    return e


def op(name, dims, types, strides, concrete, children, tid=TID, seqno=None):
    """children: list of callables run inside the op; returns (start, end)."""
    start = t[0]
    t[0] += 2.0
    args = {"External id": ext[0], "Record function id": 0, "Ev Idx": len(events)}
    ext[0] += 1
    if dims is not None:
        args.update({"Input Dims": dims, "Input type": types, "Input Strides": strides, "Concrete Inputs": concrete})
    if seqno is not None:
        args["Sequence number"] = seqno
        args["Fwd thread id"] = 0
    e = X("cpu_op", name, start, 0, tid, args=args)
    for ch in children:
        ch(tid)
        t[0] += 1.0
    t[0] += 1.5
    e["dur"] = round(t[0] - start, 3)
    return e


def launch(kernel, dur_us, grid, block, kind="kernel"):
    def run(tid):
        c = corr[0]
        corr[0] += 1
        ts = t[0]
        api = "cudaLaunchKernel" if kind == "kernel" else "cudaMemcpyAsync"
        X("cuda_runtime", api, ts, 4.2, tid, args={"cbid": 211 if kind == "kernel" else 41, "correlation": c})
        events.append({"ph": "s", "id": c, "pid": PID, "tid": tid, "ts": round(ts, 3), "cat": "ac2g", "name": "ac2g"})
        gs = max(gpu_t[0] + 1.1, ts + 6.0)
        d = dur_us * (1 + 0.03 * rng.random())
        a = {"External id": ext[0] - 1, "device": 0, "stream": 7, "correlation": c}
        if kind == "kernel":
            a.update({"registers per thread": 64, "shared memory": 0, "grid": grid, "block": block})
        else:
            a.update({"bytes": 1 << 20})
        X(kind, kernel, gs, d, 7, 0, args=a)
        events.append({"ph": "f", "id": c, "pid": 0, "tid": 7, "ts": round(gs, 3), "cat": "ac2g", "name": "ac2g", "bp": "e"})
        gpu_t[0] = gs + d
        t[0] = ts + 4.2
    return run


def nested(*ops):
    def run(tid):
        for o in ops:
            o(tid)
    return run


def aten(name, dims, types, strides, concrete, *children, seqno=None):
    return lambda tid: op(name, dims, types, strides, concrete, list(children), tid, seqno)


N, C, H, W = 32, 64, 56, 56
x = [N, C, H, W]
xs = [C * H * W, 1, W * C, C]          # channels_last
w = [C, C, 3, 3]
ws = [C * 9, 1, 3 * C, C]
BF = "c10::BFloat16"

conv_k = "sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x64_warpgroupsize1x1x1_g1_execute_kernel__5x_cudnn"
bn_k = "void cudnn::bn_fw_tr_1C11_singleread_spec_kernel<__nv_bfloat16, float, float, 512, true, 1, 2, false>(cudnnTensorStruct, __nv_bfloat16 const*, cudnnTensorStruct, __nv_bfloat16*, float const*, float const*, float, float, float*, float*, float*, float*, float, float)"
relu_k = "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#14}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#14}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)"
add_k = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)"
gemm_k = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas"
wgrad_k = "sm90_xmma_wgrad_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x64_warpgroupsize1x1x1_g1_execute_kernel__5x_cudnn"
dgrad_k = "sm90_xmma_dgrad_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x64_warpgroupsize1x1x1_g1_execute_kernel__5x_cudnn"
bnb_k = "void cudnn::bn_bw_1C11_singleread_spec<__nv_bfloat16, float, float2, 512, true, 1, 2, false>(float, float, float, float, cudnnTensorStruct, __nv_bfloat16 const*, cudnnTensorStruct, __nv_bfloat16 const*, cudnnTensorStruct, __nv_bfloat16*, float const*, float*, float*, float const*, float const*, float)"
thr_k = "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::threshold_kernel_impl<c10::BFloat16>(at::TensorIteratorBase&, c10::BFloat16, c10::BFloat16)::{lambda(c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 3ul> >(int, at::native::(anonymous namespace)::threshold_kernel_impl<c10::BFloat16>(at::TensorIteratorBase&, c10::BFloat16, c10::BFloat16)::{lambda(c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 3ul>)"


def conv_block(i):
    s = seq[0]
    seq[0] += 3
    conv = aten("aten::conv2d", [x, w, [], [], [], [], []], [BF, BF, "", "ScalarList", "ScalarList", "ScalarList", "Scalar"],
                [xs, ws, [], [], [], [], []], ["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "1"],
                aten("aten::convolution", [x, w, [], [], [], [], [], [], []],
                     [BF, BF, "", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"],
                     [xs, ws, [], [], [], [], [], [], []], ["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"],
                     aten("aten::_convolution", None, None, None, None,
                          aten("aten::cudnn_convolution", [x, w, [], [], [], [], [], []],
                               [BF, BF, "ScalarList", "ScalarList", "ScalarList", "Scalar", "Scalar", "Scalar"],
                               [xs, ws, [], [], [], [], [], []], ["", "", "[1, 1]", "[1, 1]", "[1, 1]", "1", "False", "True"],
                               launch(conv_k, 160.0, [392, 1, 1], [384, 1, 1]))), seqno=s))
    bn = aten("aten::batch_norm", [x, [C], [C], [C], [C], [], [], [], []],
              [BF, "float", "float", "float", "float", "Scalar", "Scalar", "Scalar", "Scalar"],
              [xs, [1], [1], [1], [1], [], [], [], []], ["", "", "", "", "", "True", "0.1", "1e-05", "True"],
              aten("aten::_batch_norm_impl_index", None, None, None, None,
                   aten("aten::cudnn_batch_norm", [x, [C], [C], [C], [C], [], [], []],
                        [BF, "float", "float", "float", "float", "Scalar", "Scalar", "Scalar"],
                        [xs, [1], [1], [1], [1], [], [], []], ["", "", "", "", "", "True", "0.1", "1e-05"],
                        launch(bn_k, 48.0, [64, 1, 1], [512, 1, 1]), seqno=s + 1)))
    relu = aten("aten::relu_", [x], [BF], [xs], [""],
                aten("aten::clamp_min_", [x, []], [BF, "Scalar"], [xs, []], ["", "0"],
                     launch(relu_k, 31.0, [6272, 1, 1], [128, 1, 1])), seqno=s + 2)
    return nested(conv, bn, relu), s


def backward_block(s):
    grads = []
    for (name, bop, kern, dur, dims, types, strides) in [
        ("ReluBackward0", "aten::threshold_backward", thr_k, 46.0, [x, x, []], [BF, BF, "Scalar"], [xs, xs, []]),
        ("CudnnBatchNormBackward0", "aten::cudnn_batch_norm_backward", bnb_k, 70.0,
         [x, x, [C], [C], [C], [C], [C], [], []], [BF, BF, "float", "float", "float", "float", "float", "Scalar", ""],
         [xs, xs, [1], [1], [1], [1], [1], [], []]),
        ("ConvolutionBackward0", "aten::convolution_backward", None, 0,
         [x, x, w, [], [], [], [], [], [], [], []],
         [BF, BF, BF, "", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar", ""],
         [xs, xs, ws, [], [], [], [], [], [], [], []])]:
        sq = {"ReluBackward0": s + 2, "CudnnBatchNormBackward0": s + 1, "ConvolutionBackward0": s}[name]
        if kern is None:
            inner = aten(bop, dims, types, strides,
                         ["", "", "", "[64]", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1", "[True, True, False]"],
                         launch(dgrad_k, 170.0, [392, 1, 1], [384, 1, 1]), launch(wgrad_k, 190.0, [128, 1, 1], [384, 1, 1]))
        else:
            inner = aten(bop, dims, types, strides, None, launch(kern, dur, [6272, 1, 1], [128, 1, 1]))
        grads.append(aten("autograd::engine::evaluate_function: " + name, None, None, None, None,
                          aten(name, None, None, None, None, inner, seqno=sq), seqno=sq))
    return nested(*reversed(grads))


def main(out):
    X("user_annotation", "ProfilerStep#3", t[0], 0, args={"External id": 0})
    step = events[-1]
    t[0] += 5
    # input copy
    op("aten::copy_", [x, x, []], [BF, BF, "Scalar"], [xs, xs, []], ["", "", "False"],
       [launch("Memcpy HtoD (Pinned -> Device)", 60.0, None, None, kind="gpu_memcpy")])
    blocks = []
    for i in range(4):
        b, s = conv_block(i)
        b(TID)
        blocks.append(s)
        t[0] += 3
    # residual add and classifier
    op("aten::add_", [x, x, []], [BF, BF, "Scalar"], [xs, xs, []], ["", "", "1"], [launch(add_k, 45.0, [6272, 1, 1], [128, 1, 1])])
    feat, ncls = [N, C], 1000
    op("aten::linear", [feat, [ncls, C], [ncls]], [BF, BF, BF], [[C, 1], [C, 1], [1]], ["", "", ""],
       [lambda tid: op("aten::addmm", [[ncls], feat, [C, ncls], [], []], [BF, BF, BF, "Scalar", "Scalar"],
                       [[1], [C, 1], [1, C], [], []], ["", "", "", "1", "1"], [launch(gemm_k, 9.0, [8, 1, 1], [128, 1, 1])],
                       tid, seq[0])], seqno=seq[0])
    # backward on the autograd thread
    t[0] += 20
    for s in reversed(blocks):
        backward_block(s)(BWD_TID)
        t[0] += 2
    step["dur"] = round(t[0] + 5 - step["ts"], 3)
    meta = [{"ph": "M", "name": "process_name", "pid": PID, "tid": 0, "args": {"name": "python3"}},
            {"ph": "M", "name": "process_labels", "pid": PID, "tid": 0, "args": {"labels": "CPU"}},
            {"ph": "M", "name": "thread_name", "pid": PID, "tid": TID, "args": {"name": "thread 4242 (python3)"}},
            {"ph": "M", "name": "thread_name", "pid": PID, "tid": BWD_TID, "args": {"name": "thread 4250 (pt_autograd_0)"}},
            {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "python3"}},
            {"ph": "M", "name": "process_labels", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
            {"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7 "}}]
    doc = {"schemaVersion": 1,
           "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85029158912,
                                 "computeMajor": 9, "computeMinor": 0, "maxThreadsPerBlock": 1024,
                                 "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "warpSize": 32,
                                 "sharedMemPerBlock": 49152, "numSms": 132, "regsPerMultiprocessor": 65536,
                                 "sharedMemPerBlockOptin": 232448, "sharedMemPerMultiprocessor": 233472}],
           "cuda_runtime_version": 12040, "cupti_version": 22, "cuda_driver_version": 12080,
           "record_shapes": 1, "with_stack": 0, "displayTimeUnit": "ms", "baseTimeNanoseconds": 1763700000000000000,
           "traceName": "resnet_block_train", "traceEvents": meta + events}
    with gzip.GzipFile(out, "wb", mtime=0) as f:
        f.write(json.dumps(doc, indent=None).encode())


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "examples/resnet_block_train.json.gz")
