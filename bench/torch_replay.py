#!/usr/bin/env python3
"""PyTorch references for the ops jarvis-replay replays, measured the way jarvis-replay measures.

  torch_replay.py --package P.zip --out torch-P.json   each op of a replay package (replay_package.zip or a
                                                       bare replay_ir.json) called through torch.ops.aten
  torch_replay.py --peak --out torch-peak.json         copy/scale/add/triad/dot over 1 GiB fp32 arrays and
                                                       torch.matmul bf16 at 8192^3 and 4096^3
  ... --device cpu [--threads N]                       the same on the CPU (below)

Per op: tensors with the traced shapes, strides and dtypes (one flat storage filled with seeded random normal
data, viewed with as_strided; positive where the op needs it: variances, inverse std, sqrt/log inputs),
scalars from the IR, and the ATen overload whose schema fits the IR's argument names and types (the default
overload when none fits). Times come from torch.cuda.Event pairs after a warm-up:
  hot_us    same operands every run; each sample batches back-to-back runs until it lasts >= 100 us;
            samples until the relative standard deviation is < 0.5 % after >= 10 samples, or 1 s; median
            per run (jarvis-replay's hot figure)
  cold_us   a 2x L2 buffer is zeroed before each sample (torch's L2 flush); each sample is one run; median
  graph_us  ops with hot_us < 20 us only: ~1 ms of back-to-back runs captured in one CUDA graph, the graph
            replayed and timed; per-run median (device time without the launch cost)
An op that cannot be built or run is recorded with status "skipped: why" or "error: message"; the script
goes on. Exit status: 0 when the JSON was written (whatever the ops' status); 1 when nothing could be
measured (no torch or no CUDA device: the JSON is still written, every op "skipped: why"), the package is
unreadable or the output unwritable; 2 bad usage.

--device cpu runs the same ops, tensors and overload choice on the CPU, with torch.set_num_threads(N), N =
--threads, else OMP_NUM_THREADS, else the CPUs this process may run on (what jarvis-replay's CPU backend, on
OpenMP, uses). Times come from time.perf_counter around the same batches (no events); the same warm-up, the
same stop rule, with 0.25 s of sampling per figure by default (jarvis-replay's CPU --time-limit); cold_us
flushes by a read-modify-write of a buffer of 2x the last-level cache before each sample (jarvis-replay's CPU
flush); no graph_us. --peak on the CPU: copy/scale/add/triad/dot over fp32 arrays of 4x the last-level cache
(at least 64 MiB, as jarvis-replay's CPU baseline) and torch.matmul fp32 and bf16 at 512^3 (its --peak-gemm on
the CPU). The JSON has the same layout; its context names the CPU, the threads and torch's oneDNN and MKL.

The pure parts (reading the IR, parsing ATen schemas, choosing the overload, mapping arguments) need neither
torch nor a GPU: tests/integration/test_gpu_summary.py checks them against a stub torch module.

This file: the command line, reading the package, the runs and the JSON; torch_replay_ops.py: the op
construction (schemas, overload choice, plans, tensors); torch_replay_timing.py: the timing (Timer, stats,
duty_gap). Their names stay reachable as torch_replay.<name>.
"""
import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import time  # noqa: F401 - torch_replay.time: the module whose sleep tests replace (torch_replay_timing sleeps)
import zipfile

# the op construction and the timing: modules beside this file (put on the path also when it is loaded from
# elsewhere, as tests/integration/test_gpu_summary.py does)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_replay_timing as timing  # noqa: E402
from torch_replay_ops import (  # noqa: E402, F401 - re-exported: torch_replay.<name> as before the split
    BPE, CPU_SUBSTITUTES, DTYPES, FAMILY_OF, FLOATING, HOOKS, LAYOUTS, MEMFMTS, POSITIVE_ARG, POSITIVE_OPS,
    SCALARTYPE_CODES, SHORT, UNRECORDED, _compatible, _num, _split_top, arg_spec, choose_overload, cpu_bn_backward,
    dtype_name, entry_args, family_of, hook_cudnn_bn_backward, layout_tag, make_tensor, match_score, materialize,
    missing_args, op_schemas, parse_schema, plan_entry, shape_label, split_op_name, tensor_spec, type_kind)
from torch_replay_timing import (  # noqa: E402, F401 - re-exported as above (main sets timing.MAX_TIME_S)
    CPU_MAX_TIME_S, DUTY_MAX_GAP_S, GRAPH_BELOW_S, GRAPH_SPAN_S, MAX_SAMPLES, MAX_TIME_S, MIN_SAMPLE_S, MIN_SAMPLES,
    TARGET_RSD, WARMUP_S, CpuTimer, Timer, converged, cpu_threads, duty_gap, llc_bytes, stats, sync)

# ---------------------------------------------------------------------------------------------------------
# Reading the IR (pure)


def log(msg):
    print(f"torch_replay: {msg}", file=sys.stderr, flush=True)


def load_ir(path):
    """The list of IR entries of a package zip (its replay_ir.json member) or of a bare IR JSON file, as
    jv_ir_parse accepts them: an array of entries, an object wrapping one, or a single entry object."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            names = [n for n in z.namelist() if n.rsplit("/", 1)[-1] == "replay_ir.json"]
            if not names:
                raise ValueError(f"{path}: no replay_ir.json in the zip")
            doc = json.loads(z.read(names[0]).decode("utf-8"))
    else:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    if isinstance(doc, list):
        return doc
    if isinstance(doc, dict):
        if "op_name" in doc:
            return [doc]
        first = None
        for v in doc.values():
            if isinstance(v, list):
                if first is None:
                    first = v
                if v and isinstance(v[0], dict) and "op_name" in v[0]:
                    return v
        if first is not None:
            return first
    raise ValueError(f"{path}: not a replay IR (a JSON array of {{\"op_name\", \"replay_ir\"}} entries)")


def first_line(e):
    s = str(e).strip()
    return (s.splitlines()[0] if s else type(e).__name__)[:300]


def run_entry(torch, idx, entry, device, flush, timer, opts):
    x = entry.get("jarvis") if isinstance(entry.get("jarvis"), dict) else {}
    rec = {"index": idx, "op": entry.get("op_name"), "label": entry.get("op_name"), "family": family_of(entry),
           "category": x.get("category"), "flops": x.get("flops"), "bytes": x.get("bytes"),
           "traced_us": x.get("kernel_time_median_us"), "hot_us": None, "cold_us": None, "graph_us": None}
    try:
        plan = plan_entry(entry, torch)
    except (ValueError, TypeError, KeyError) as e:
        rec["status"] = f"skipped: {e}"
        return rec
    aten = plan["schema"] if "::" in plan["schema"] else f"{plan['ns']}::{plan['schema']}"  # schemas name their ns
    rec.update({"label": shape_label(plan), "aten": aten, "overload_how": plan["how"]})
    if plan["assumed"]:
        rec["assumed"] = plan["assumed"]
    if opts.ops is not None and idx not in opts.ops:
        rec["status"] = "skipped: not selected (--op)"
        return rec
    if plan["family"] not in opts.families and "all" not in opts.families:
        rec["status"] = f"skipped: family {plan['family']} not selected (--families)"
        return rec
    need = sum(s["tensor"]["bytes"] for _, _, s, _ in plan["args"] if s and "tensor" in s)
    if opts.max_bytes and need > opts.max_bytes:
        rec["status"] = f"skipped: tensors need {need} bytes (--max-bytes {opts.max_bytes})"
        return rec
    try:
        pos, kw = materialize(torch, plan, device, torch.Generator(device=device).manual_seed(opts.seed + idx))
        sub = CPU_SUBSTITUTES.get(plan["name"]) if device == "cpu" else None
        hook = HOOKS.get(plan["name"]) if sub is None else None
        if hook:
            pos, kw = hook(torch, plan, pos, kw)
        missing = [] if sub else missing_args(plan, pos, kw)
        if missing:
            rec["status"] = f"skipped: {', '.join(missing)}: a tensor the trace did not record"
            return rec
        if sub:
            fn_op, pos, kw = sub[1](torch, plan, pos, kw)
            rec["aten"] = f"{sub[0]} (the CPU's kernel for {rec['aten']})"
        else:
            fn_op = getattr(getattr(getattr(torch.ops, plan["ns"]), plan["name"]), plan["overload"])

        def fn():
            fn_op(*pos, **kw)

        fn()
        sync(torch, device)
        est = timer.warm(fn)
        hot = timer.hot(fn, est)
        rec["hot_us"] = hot["median_us"]
        rec["hot"] = hot
        if flush is not None:
            cold = timer.cold(fn, flush)
            rec["cold_us"] = cold["median_us"]
            rec["cold"] = cold
        if not opts.no_graph and device != "cpu" and hot["median_us"] * 1e-6 < GRAPH_BELOW_S:
            try:
                g = timer.graph(fn, hot["median_us"] * 1e-6)
                rec["graph_us"] = g["median_us"]
                rec["graph"] = g
            except Exception as e:  # noqa: BLE001 - a capture that fails leaves the other figures
                rec["graph_note"] = f"not measured: {first_line(e)}"
                try:
                    sync(torch, device)
                except Exception:  # noqa: BLE001
                    pass
        rec["status"] = "ok"
    except Exception as e:  # noqa: BLE001 - any failure of one op is that op's status
        rec["status"] = f"error: {type(e).__name__}: {first_line(e)}"
        try:
            sync(torch, device)
        except Exception:  # noqa: BLE001 - a sticky device error: later ops will say so too
            pass
    return rec


def nvidia_smi_facts():
    q = "name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,temperature.gpu,power.draw"
    try:
        r = subprocess.run(["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader,nounits", "-i", "0"],
                           capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return {}
    if r.returncode != 0 or not r.stdout.strip():
        return {}
    vals = [v.strip() for v in r.stdout.strip().splitlines()[0].split(",")]
    keys = ["smi_name", "driver", "sm_clock_mhz", "mem_clock_mhz", "max_sm_clock_mhz", "max_mem_clock_mhz",
            "temperature_c", "power_w"]
    out = {}
    for k, v in zip(keys, vals):
        try:
            out[k] = float(v) if k not in ("smi_name", "driver") else v
        except ValueError:
            out[k] = v
    return out


def context(torch, extra):
    p = torch.cuda.get_device_properties(0)
    ctx = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "host_name": os.uname().nodename, "executable": "bench/torch_replay.py",
           "device_name": p.name, "device_memory_bytes": int(getattr(p, "total_memory", 0)),
           "l2_cache_bytes": int(getattr(p, "L2_cache_size", 0) or 0),
           "multiprocessors": int(getattr(p, "multi_processor_count", 0) or 0),
           "compute_capability": f"{p.major}.{p.minor}", "torch": torch.__version__, "cuda": torch.version.cuda,
           "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None,
           "cudnn_benchmark": bool(torch.backends.cudnn.benchmark),
           "allow_tf32_matmul": bool(torch.backends.cuda.matmul.allow_tf32),
           "timing": {"hot": "median per run of event-timed batches (>= 100 us each) of back-to-back runs, "
                             "same operands", "cold": "one run per sample after zeroing a buffer of 2x L2",
                      "graph": f"ops with hot < {GRAPH_BELOW_S * 1e6:.0f} us: ~1 ms of runs in one CUDA graph, "
                               "per-run median",
                      "stop": f"rsd < {TARGET_RSD * 100} % after >= {MIN_SAMPLES} samples, or {timing.MAX_TIME_S} s "
                              "of measured time"}}
    ctx.update(nvidia_smi_facts())
    ctx.update(extra)
    return ctx


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return os.uname().machine


def torch_cpu_libs(torch):
    """{"onednn": "v3.x.y", "mkl": "2024.2", "cpu_capability": "AVX512"} from torch.__config__.show()"""
    out = {}
    try:
        text = torch.__config__.show()
    except Exception:  # noqa: BLE001 - a torch without it: the versions stay unknown
        return out
    for key, rx in (("onednn", r"MKL-DNN (v[\w.]+)"), ("mkl", r"Math Kernel Library Version ([\w.]+)"),
                    ("cpu_capability", r"CPU capability usage: (\w+)")):
        m = re.search(rx, text)
        if m:
            out[key] = m.group(1)
    return out


def cpu_context(torch, extra):
    ctx = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "host_name": os.uname().nodename, "executable": "bench/torch_replay.py", "backend": "cpu",
           "device_name": f"CPU: {cpu_model()}", "llc_bytes": llc_bytes(), "cpus": os.cpu_count(),
           "threads": torch.get_num_threads(), "torch": torch.__version__,
           "mkldnn_enabled": bool(torch.backends.mkldnn.is_available()),
           "timing": {"hot": "median per run of perf_counter-timed batches (>= 100 us each) of back-to-back runs, "
                             "same operands",
                      "cold": "one run per sample after a read-modify-write of a buffer of 2x the last-level cache",
                      "stop": f"rsd < {TARGET_RSD * 100} % after >= {MIN_SAMPLES} samples, or {timing.MAX_TIME_S} s "
                              "of measured time"}}
    ctx.update(torch_cpu_libs(torch))
    ctx.update(extra)
    return ctx


def import_torch(cuda=True):
    """(torch, None) or (None, why)"""
    try:
        import torch  # noqa: PLC0415
    except ImportError as e:
        why = f"cannot import torch: {e}"
        log(why)
        return None, why
    if cuda and not torch.cuda.is_available():
        log("torch sees no CUDA device")
        return None, "torch sees no CUDA device"
    return torch, None


def no_torch(args, why, entries=None):
    """the output of a run that could not measure: every op skipped with the reason (exit 1)"""
    ctx = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "executable": "bench/torch_replay.py", "error": why}
    if entries is None:
        write_json(args.out, {"context": ctx, "peak": [{"name": "torch", "status": f"skipped: {why}"}]})
    else:
        ctx["package"] = os.path.basename(args.package)
        write_json(args.out, {"context": ctx, "ops": [
            {"index": i, "op": e.get("op_name") if isinstance(e, dict) else None,
             "family": family_of(e) if isinstance(e, dict) else None, "status": f"skipped: {why}"}
            for i, e in enumerate(entries)]})
    return 1


def flush_buffer(torch, device):
    if device == "cpu":
        return torch.zeros((2 * (llc_bytes() or 32 << 20)) // 4, dtype=torch.float32)
    l2 = int(getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 0) or 0) or 64 << 20
    return torch.empty(2 * l2, dtype=torch.uint8, device=device)


def cmd_package(args):
    try:
        entries = load_ir(args.package)
    except (OSError, ValueError, zipfile.BadZipFile, UnicodeDecodeError) as e:
        log(f"{args.package}: {e}")
        return 1
    torch, why = import_torch(cuda=args.device != "cpu")
    if torch is None:
        return no_torch(args, why, entries)
    device, timer = open_device(torch, args)
    flush = None if args.cache == "hot" else flush_buffer(torch, device)
    ops = []
    for i, e in enumerate(entries):
        if not isinstance(e, dict):
            ops.append({"index": i, "op": None, "status": "skipped: not an IR entry object"})
            continue
        rec = run_entry(torch, i, e, device, flush, timer, args)
        ops.append(rec)
        shown = ", ".join(f"{k} {rec[k]:.2f} us" for k in ("hot_us", "cold_us", "graph_us") if rec.get(k))
        log(f"op {i} {rec.get('label')}: {rec['status']}{' (' + shown + ')' if shown else ''}")
        if device != "cpu":
            torch.cuda.empty_cache()
    name = os.path.basename(args.package)
    ctx = (cpu_context if device == "cpu" else context)(
        torch, {"package": name, "package_path": os.path.abspath(args.package), "mode": "package", "duty": args.duty})
    return write_json(args.out, {"context": ctx, "ops": ops})


def open_device(torch, args):
    """(device string, timer): cuda:N, or the CPU with torch's threads set"""
    if args.device == "cpu":
        torch.set_num_threads(cpu_threads(args.threads))
        log(f"CPU: {cpu_model()}, {torch.get_num_threads()} threads")
        return "cpu", CpuTimer(torch, args.duty)
    torch.cuda.set_device(args.device)
    return f"cuda:{args.device}", Timer(torch, args.duty)


def peak_time(torch, timer, fn, rec, device="cuda"):
    try:
        fn()
        sync(torch, device)
        est = timer.warm(fn)
        hot = timer.hot(fn, est)
    except Exception as e:  # noqa: BLE001
        return {"status": f"error: {type(e).__name__}: {first_line(e)}"}
    t = hot["median_us"] * 1e-6
    if t <= 0:
        return {"status": "error: the device timer measured 0 us", "hot": hot}
    out = {"status": "ok", "hot_us": hot["median_us"], "hot": hot}
    if rec.get("bytes"):
        out["bytes_per_second"] = rec["bytes"] / t
    if rec.get("flops"):
        out["flops_per_second"] = rec["flops"] / t
    return out


def cmd_peak(args):
    torch, why = import_torch(cuda=args.device != "cpu")
    if torch is None:
        return no_torch(args, why)
    device, timer = open_device(torch, args)
    gen = torch.Generator(device=device).manual_seed(args.seed)
    res = []
    n = (1 << 30) // 4  # 1 GiB of fp32 per array
    if device == "cpu":  # jarvis-replay's CPU baseline: 4x the last-level cache, at least 64 MiB
        n = max(4 * (llc_bytes() or 32 << 20), 64 << 20) // 4
    try:
        a = torch.randn(n, device=device, generator=gen)
        b = torch.randn(n, device=device, generator=gen)
        c = torch.randn(n, device=device, generator=gen)
        s = 0.4
        acc = torch.empty((), device=device)
        kernels = [
            ("copy", lambda: c.copy_(a), 2, "c.copy_(a)"),
            ("scale", lambda: torch.mul(a, s, out=c), 2, "torch.mul(a, s, out=c)"),
            ("add", lambda: torch.add(a, b, out=c), 3, "torch.add(a, b, out=c)"),
            ("triad", lambda: torch.add(a, b, alpha=s, out=c), 3, "torch.add(a, b, alpha=s, out=c): a + s*b"),
            ("dot", lambda: torch.dot(a, b, out=acc), 2, "torch.dot(a, b)"),
        ]
        for name, fn, arrays, how in kernels:
            rec = {"name": f"torch/{name}/fp32/{n}", "kind": name, "n": n, "dtype": "fp32", "how": how,
                   "bytes": arrays * n * 4.0, "flops": None}
            rec.update(peak_time(torch, timer, fn, rec, device))
            res.append(rec)
        del a, b, c
        if device != "cpu":
            torch.cuda.empty_cache()
    except Exception as e:  # noqa: BLE001 - e.g. out of memory: the GEMMs may still run
        log(f"bandwidth kernels: {e}")
        res.append({"name": "torch/bandwidth", "status": f"error: {type(e).__name__}: {first_line(e)}"})
    dtypes = ("fp32", "bf16") if device == "cpu" else ("bf16",)  # the CPU: jarvis-replay's fp32 and bf16 GEMMs
    for m in args.gemm:
        for dt in dtypes:
            tdt = torch.float32 if dt == "fp32" else torch.bfloat16
            rec = {"name": f"torch/matmul/{dt}/{m}", "kind": "matmul", "n": m, "dtype": dt,
                   "how": f"torch.matmul(x, y), x and y random normal {dt} [n, n]", "flops": 2.0 * m ** 3,
                   "bytes": 3.0 * m * m * (4 if dt == "fp32" else 2)}
            try:
                x = torch.randn(m, m, device=device, dtype=tdt, generator=gen)
                y = torch.randn(m, m, device=device, dtype=tdt, generator=gen)
                rec.update(peak_time(torch, timer, lambda: torch.matmul(x, y), rec, device))  # noqa: B023
                del x, y
            except Exception as e:  # noqa: BLE001
                rec["status"] = f"error: {type(e).__name__}: {first_line(e)}"
            res.append(rec)
            if device != "cpu":
                torch.cuda.empty_cache()
    for r in res:
        log(f"{r['name']}: {r.get('status')} {r.get('hot_us') or 0:.2f} us")
    ctx = (cpu_context if device == "cpu" else context)(torch, {"mode": "peak", "duty": args.duty})
    return write_json(args.out, {"context": ctx, "peak": res})


def write_json(path, doc):
    try:
        d = os.path.dirname(os.path.abspath(path))
        os.makedirs(d, exist_ok=True)
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1, default=str)
            f.write("\n")
        os.replace(tmp, path)
    except (OSError, ValueError) as e:
        log(f"{path}: cannot write: {e}")
        return 1
    log(f"wrote {path}")
    return 0


def parse_size(text):
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmMgGtT]?)i?[bB]?\s*", text)
    if not m:
        raise argparse.ArgumentTypeError(f"not a size: {text}")
    return int(float(m.group(1)) * 1024 ** " KMGT".index(m.group(2).upper() or " "))


def device_arg(text):
    if str(text).strip().lower() == "cpu":
        return "cpu"
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a device: {text} (a CUDA device number, or cpu)") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"not a device: {text}")
    return v


def main(argv=None):
    global MAX_TIME_S  # noqa: PLW0603 - one run, one setting
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--package", help="replay_package.zip or replay_ir.json")
    g.add_argument("--peak", action="store_true", help="copy/scale/add/triad/dot and bf16 matmul")
    ap.add_argument("--out", required=True, help="output JSON file")
    ap.add_argument("--device", type=device_arg, default=0, help="CUDA device N (default 0), or cpu")
    ap.add_argument("--threads", type=int, default=None,
                    help="--device cpu: torch's threads (default OMP_NUM_THREADS, else the CPUs available)")
    ap.add_argument("--cache", choices=("hot", "both"), default="both", help="cold timing too (default)")
    ap.add_argument("--no-graph", action="store_true", help="no CUDA-graph timing of short ops")
    ap.add_argument("--op", type=int, action="append", dest="ops", help="only IR entry N (repeatable)")
    ap.add_argument("--families", default="all",
                    help="comma-separated families to run (gemm,conv,batchnorm,unary,binary,...; default all)")
    ap.add_argument("--max-bytes", type=parse_size, default=None, help="skip ops whose tensors need more")
    ap.add_argument("--gemm", type=int, action="append", help="matmul N for --peak (default 8192 and 4096)")
    ap.add_argument("--seed", type=int, default=20261121)
    ap.add_argument("--duty", type=float, default=1.0,
                    help="share of the sampling time the device works, as jarvis-replay --duty (default 1)")
    ap.add_argument("--time-limit", type=float, default=None, help="seconds of sampling per op and figure")
    args = ap.parse_args(argv)
    if not 0 < args.duty <= 1:
        ap.error(f"--duty {args.duty}: a share of the time, 0 < F <= 1")
    args.families = {f.strip() for f in args.families.split(",") if f.strip()}
    args.gemm = args.gemm or ([512] if args.device == "cpu" else [8192, 4096])
    if args.time_limit:
        MAX_TIME_S = timing.MAX_TIME_S = args.time_limit
    elif args.device == "cpu":
        MAX_TIME_S = timing.MAX_TIME_S = CPU_MAX_TIME_S
    try:
        return cmd_peak(args) if args.peak else cmd_package(args)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
