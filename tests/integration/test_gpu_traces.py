#!/usr/bin/env python3
"""The project's own GPU traces (tests/data/nv_h200_*_train.json.gz, recorded by bench/record_traces.py on an
H200 on 2026-11-26): analysed, packaged and partly replayed on the CPU.

  test_gpu_traces.py JARVIS_ANALYZE JARVIS_REPLAY DATA_DIR

Checks, per trace:
- jarvis-analyze exits 0, matches the device to the H200 datasheet and writes a replay package;
- the package holds the ops expected of the workload (ResNet-50: convolutions forward and backward, batch
  norm forward and backward, elementwise; the encoder: GEMMs, elementwise), every one traced on the H200;
- an independent oracle, written here from the raw trace with another method (the GPU events launched
  inside the op's CPU interval on its thread, the time they cover per call, overlaps counted once as
  programmatic dependent launches overlap; the calls grouped by name and recorded input dims, types and
  strides): each packaged op's traced count, median and total kernel time per call must equal the
  analyser's;
- jarvis-replay --backend cpu replays the package's ops that fit in a small memory cap, verified.
"""
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck, md_check
from jvcheck import check, finish  # noqa: E402

TRACES = {
    "nv_h200_resnet50_train": {"ops": 50, "families": {"conv": 22, "batchnorm": 19, "binary": 7, "unary": 2}},
    "nv_h200_encoder_train": {"ops": 31, "families": {"gemm": 11, "binary": 9, "unary": 11}},
}
GPU_CATS = ("kernel", "gpu_memset", "gpu_memcpy")
LAUNCH_CATS = ("cuda_runtime", "cuda_driver")
KEY_ARGS = ("Input Dims", "Input type", "Input Strides", "Concrete Inputs")


def oracle(trace_path):
    """{index in traceEvents of a cpu_op (the package's ex_uid): (count, median us, total us)} over the calls
    that share its name and recorded inputs; per call, the summed duration of the GPU events whose launch lies
    inside its interval on its thread"""
    with gzip.open(trace_path, "rt", encoding="utf-8") as f:
        raw = json.load(f)["traceEvents"]
    ev = [e for e in raw if isinstance(e, dict)]
    launch = {}  # correlation -> (tid, ts)
    for e in ev:
        if e.get("cat") in LAUNCH_CATS and "correlation" in (e.get("args") or {}):
            launch[e["args"]["correlation"]] = (e.get("tid"), e["ts"])
    gpu = [(launch[e["args"]["correlation"]], (e["ts"], e["ts"] + e["dur"])) for e in ev
           if e.get("cat") in GPU_CATS and (e.get("args") or {}).get("correlation") in launch]
    ops = [e for e in ev if e.get("cat") == "cpu_op" and "dur" in e]
    per_op = {}
    by_tid = {}
    for (tid, ts), span in gpu:
        by_tid.setdefault(tid, []).append((ts, span))
    for o in ops:
        spans = sorted(sp for ts, sp in by_tid.get(o.get("tid"), []) if o["ts"] <= ts <= o["ts"] + o["dur"])
        busy, end = 0.0, None  # the GPU time the call's events cover (overlapping kernels counted once)
        for a, b in spans:
            if end is None or a >= end:
                busy += b - a
                end = b
            elif b > end:
                busy += b - end
                end = b
        per_op[id(o)] = busy

    def key(o):
        a = o.get("args") or {}
        return (o["name"],) + tuple(json.dumps(a.get(k)) for k in KEY_ARGS)

    groups = {}
    for o in ops:
        if per_op[id(o)] > 0:
            groups.setdefault(key(o), []).append(per_op[id(o)])
    out = {}
    for i, o in enumerate(raw):
        if isinstance(o, dict) and o.get("cat") == "cpu_op" and "dur" in o and key(o) in groups:
            v = groups[key(o)]
            out[i] = (len(v), statistics.median(v), sum(v))
    return out


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    analyze, replay, data = sys.argv[1:4]
    for name, want in TRACES.items():
        trace = os.path.join(data, name + ".json.gz")
        if not check(os.path.exists(trace), f"{trace} is in the repository"):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out")
            p = subprocess.run([analyze, trace, "-o", out], capture_output=True, text=True)
            check(p.returncode == 0, f"{name}: jarvis-analyze exit {p.returncode}: {p.stderr[-300:]}")
            check('device name "NVIDIA H200" matches H200' in p.stdout, f"{name}: roofline from the H200 datasheet")
            pkg = os.path.join(out, "replay_package.zip")
            if not check(os.path.exists(pkg), f"{name}: replay package written"):
                continue
            with zipfile.ZipFile(pkg) as z:
                ir = json.loads(z.read("replay_ir.json"))
            check(len(ir) == want["ops"], f"{name}: {want['ops']} ops in the package, got {len(ir)}")
            fams = {}
            for e in ir:
                f = e["jarvis"]["family"]
                fams[f] = fams.get(f, 0) + 1
            for f, n in want["families"].items():
                check(fams.get(f) == n, f"{name}: {n} {f} ops, got {fams.get(f)} ({fams})")
            check(all(e["jarvis"].get("device") == "NVIDIA H200" for e in ir), f"{name}: every op traced on the H200")

            # the traced times against the oracle
            orc = oracle(trace)
            bad = []
            for e in ir:
                j = e["jarvis"]
                got = orc.get(j.get("ex_uid"))
                if got is None:
                    bad.append(f"{e['op_name']} ex_uid {j.get('ex_uid')}: no such cpu_op in the trace")
                    continue
                cnt, med, tot = got
                # the trace's timestamps have 1 ns resolution: a call's time may differ by a few ns in rounding
                if cnt != j["count"] or abs(med - j["kernel_time_median_us"]) > 0.003 or \
                        abs(tot - j["kernel_time_total_us"]) > 0.003 * cnt:
                    bad.append(f"{e['op_name']} ex_uid {j['ex_uid']}: jarvis {j['count']} calls, median "
                               f"{j['kernel_time_median_us']}, total {j['kernel_time_total_us']}; oracle {cnt}, "
                               f"{med:.3f}, {tot:.3f}")
            check(not bad, f"{name}: traced count/median/total of all {len(ir)} ops equal the oracle's: {bad[:3]}")

            # the small ops replayed on the CPU backend, verified (the smallest ResNet-50 op needs 6.1 MiB)
            rep = os.path.join(tmp, "r.json")
            p = subprocess.run([replay, pkg, "--backend", "cpu", "--max-bytes", "8M", "--no-baseline", "--time-limit",
                                "0.01", "-q", "--benchmark_out", rep], capture_output=True, text=True)
            check(p.returncode == 0, f"{name}: CPU replay under 8 MiB: exit {p.returncode}: {p.stderr[-300:]}")
            ran = []
            if os.path.exists(rep):
                ran = [b for b in json.load(open(rep, encoding="utf-8"))["benchmarks"]
                       if b["name"].startswith("op") and b["name"].endswith("/hot")]
            check(len(ran) >= 1 and all(b.get("verified") == 1 for b in ran),
                  f"{name}: the small ops ran and verified on the CPU ({len(ran)} ran)")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
