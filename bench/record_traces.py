#!/usr/bin/env python3
"""Record PyTorch profiler traces of two reference workloads on a CUDA GPU, for replay-fidelity checks.

  record_traces.py --out DIR [--model resnet50|encoder|all] [--batch N] [--warmup K]

  resnet50  one torchvision ResNet-50 training step (forward, cross-entropy loss, backward, SGD with
            momentum): autocast bf16, channels_last model and input, batch 64 at 224x224 (--batch)
  encoder   one training step of a bf16 nn.TransformerEncoderLayer (d_model 1024, 16 heads, FFN 4096,
            dropout 0, batch_first): batch 32 x 512 tokens (--batch), loss = mean of squares, backward

Each is warmed up (--warmup steps, default 3: cuDNN/cuBLAS handles, algorithm choice, allocator), then one
step is profiled with CPU and CUDA activities and record_shapes=True, cuDNN's default heuristics
(torch.backends.cudnn.benchmark left at PyTorch's default: False on CUDA, as jarvis-replay's --conv-algo
heuristic assumes; on ROCm, PyTorch 1.13 to 2.6 defaulted it to True, an exhaustive MIOpen Find, which
--conv-algo best replays).

The trace is scrubbed before it is written: the top-level keys that name the machine or the path
(traceName, distributedInfo, and any other key outside the Kineto schema's list below) are dropped, and the
host name is replaced by "host" wherever it appears. Written as DIR/<gpu>_<model>_train.json.gz, with a line
per trace on stdout: path, events, kernels, step milliseconds.

Exit status: 0 every model recorded, 1 some model failed (the others are still written), 2 bad usage.
"""
import argparse
import gzip
import json
import os
import socket
import sys
import tempfile
import time

KEEP_TOP = {"schemaVersion", "deviceProperties", "traceEvents", "displayTimeUnit", "baseTimeNanoseconds",
            "cuda_runtime_version", "cuda_driver_version", "cupti_version", "with_flops", "with_stack",
            "record_shapes", "profile_memory", "trace_id"}


def log(msg):
    print(f"record_traces: {msg}", file=sys.stderr, flush=True)


def scrub(doc, host):
    """The trace without machine-identifying top-level keys, the host name replaced by "host"."""
    doc = {k: v for k, v in doc.items() if k in KEEP_TOP}
    if not host or len(host) < 3:
        return doc
    text = json.dumps(doc)
    return json.loads(text.replace(host, "host"))


def resnet50_step(torch, batch):
    import torchvision
    F = torch.nn.functional
    model = torchvision.models.resnet50().cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    g = torch.Generator(device="cuda").manual_seed(1)
    x = torch.randn(batch, 3, 224, 224, device="cuda", generator=g).to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (batch,), device="cuda", generator=g)

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    return step


def encoder_step(torch, batch):
    layer = torch.nn.TransformerEncoderLayer(d_model=1024, nhead=16, dim_feedforward=4096, dropout=0.0,
                                             batch_first=True).cuda().to(torch.bfloat16)
    layer.train()
    g = torch.Generator(device="cuda").manual_seed(2)
    x = torch.randn(batch, 512, 1024, device="cuda", dtype=torch.bfloat16, generator=g)

    def step():
        layer.zero_grad(set_to_none=True)
        out = layer(x)
        loss = out.float().pow(2).mean()
        loss.backward()
    return step


MODELS = {"resnet50": (resnet50_step, 64), "encoder": (encoder_step, 32)}


def record(torch, name, batch, warmup, out_dir, gpu_short, host):
    make, default_batch = MODELS[name]
    step = make(torch, batch or default_batch)
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    step()
    torch.cuda.synchronize()
    step_ms = (time.perf_counter() - t0) * 1e3
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=acts, record_shapes=True) as prof:
        step()
        torch.cuda.synchronize()
    fd, raw = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(raw)
        with open(raw, encoding="utf-8") as f:
            doc = json.load(f)
    finally:
        os.unlink(raw)
    doc = scrub(doc, host)
    events = doc.get("traceEvents", [])
    kernels = sum(1 for e in events if isinstance(e, dict) and e.get("cat") == "kernel")
    path = os.path.join(out_dir, f"{gpu_short}_{name}_train.json.gz")
    tmp = path + ".tmp"
    with gzip.open(tmp, "wt", encoding="utf-8", compresslevel=9) as f:
        json.dump(doc, f, separators=(",", ":"))
    os.replace(tmp, path)
    print(f"{path}\tevents {len(events)}\tkernels {kernels}\tstep {step_ms:.2f} ms", flush=True)
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="folder for the traces")
    ap.add_argument("--model", default="all", choices=["all"] + sorted(MODELS))
    ap.add_argument("--batch", type=int, default=0, help="batch size (default: the model's)")
    ap.add_argument("--warmup", type=int, default=3)
    a = ap.parse_args(argv)
    try:
        import torch
    except ImportError as e:
        log(f"no torch: {e}")
        return 1
    if not torch.cuda.is_available():
        log("torch sees no CUDA device")
        return 1
    os.makedirs(a.out, exist_ok=True)
    gpu = torch.cuda.get_device_name(0)
    short = "".join(c for c in gpu.lower().replace("nvidia ", "").split(" ")[0] if c.isalnum()) or "gpu"
    log(f"{gpu}, torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}")
    failed = 0
    for name in (sorted(MODELS) if a.model == "all" else [a.model]):
        try:
            record(torch, name, a.batch, a.warmup, a.out, f"nv_{short}", socket.gethostname())
        except Exception as e:  # one model's failure must not lose the other's trace
            log(f"{name}: {type(e).__name__}: {e}")
            failed += 1
        torch.cuda.empty_cache()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
