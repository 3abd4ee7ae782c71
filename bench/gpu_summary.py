#!/usr/bin/env python3
"""One markdown summary of a GPU session: jarvis-replay next to PyTorch, the datasheet and the trace.

  gpu_summary.py --results DIR --out DIR/summary.md [--hardware data/hardware.json]

DIR holds what bench/gpu_session.sh gathered (each one optional; a missing or unreadable file is a logged
line and a "not available" in the summary):
  peak.json           jarvis-replay --peak (Google Benchmark JSON: baseline/{copy,scale,add,triad,dot}/fp32/N
                      and baseline/gemm/<dtype>/N entries)
  replay-<name>.json  jarvis-replay of one package (op<N>/<label>[/<impl>]/{hot,cold} entries, counters
                      traced_us, bound_us, efficiency, graph_us, ...; the baseline again when it ran)
  torch-peak.json     bench/torch_replay.py --peak;  torch-<name>.json: bench/torch_replay.py --package
  nvidia-smi-q.txt    nvidia-smi -q (name, driver, clocks)
The summary has the device; the baseline (copy/scale/add/triad/dot TB/s) against the datasheet and torch;
jarvis's GEMM against torch.matmul on the same shape; the targets (triad >= 90 % of the datasheet bandwidth,
jarvis GEMM >= 95 % of torch.matmul) with PASS/FAIL; and per package, per op: traced us, jarvis us (the
figure the verdict used), torch us (the same figure), jarvis/torch, replay/traced, the verdict, and how many
ops replay within 15 % of their traced time.
Exit status: 0 summary written, 1 it could not be (DIR missing, output not writable), 2 bad usage.
"""
import argparse
import glob
import json
import math
import os
import re
import sys

TRIAD_TARGET = 0.90      # triad >= 90 % of the datasheet bandwidth
GEMM_TARGET = 0.95       # jarvis GEMM >= 95 % of torch.matmul on the same shape
FIDELITY = 0.15          # replay within 15 % of the traced time
FIDELITY_SHARE = 0.90    # ... for >= 90 % of the GEMM and convolution ops
MATRIX_FAMILIES = ("gemm", "conv")  # jarvis-replay's op_family of the ops that target counts
OWN_FAMILIES = ("batchnorm", "unary", "binary")  # ops that run on jarvis' own kernels (not a vendor library)
OWN_TARGET = 0.80        # own kernels >= 80 % of the measured copy bandwidth ...
OWN_MIN_ELEMS = 1 << 24  # ... on tensors of >= 2^24 elements
EPS = 1e-9               # relative slack when comparing with a threshold (a value at the boundary passes)
BASE_KERNELS = ("copy", "scale", "add", "triad", "dot")
# used only when data/hardware.json cannot be read (REFERENCE.md section 5)
FALLBACK_HW = [
    {"name": "H200", "match_names": ["H200"], "mem_bw_gbps": 4800, "peak_tflops": {"matrix_bf16": 989.4},
     "l2_mb": 60},
    {"name": "H100 SXM", "match_names": ["H100 80GB HBM3", "H100 SXM"], "mem_bw_gbps": 3350,
     "peak_tflops": {"matrix_bf16": 989.4}, "l2_mb": 50},
    {"name": "MI300X", "match_names": ["MI300X"], "mem_bw_gbps": 5300, "peak_tflops": {"matrix_bf16": 1307.4},
     "l2_mb": 4, "llc_mb": 256},
]


def log(msg):
    print(f"gpu_summary: {msg}", file=sys.stderr, flush=True)


def load_json(path, what):
    if not os.path.exists(path):
        log(f"{what}: {path} not found")
        return None
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError, UnicodeDecodeError) as e:
        log(f"{what}: {path} unreadable: {e}")
        return None


def num(v):
    """a finite float or None"""
    if isinstance(v, bool) or v is None:
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def ratio(a, b):
    a, b = num(a), num(b)
    return a / b if a is not None and b not in (None, 0.0) else None


def meets(value, threshold):
    """PASS/FAIL of value >= threshold (with EPS relative slack), n/a without a value"""
    if value is None:
        return "n/a"
    return "PASS" if value >= threshold * (1 - EPS) else "FAIL"


def fmt(v, dec=2, suffix=""):
    v = num(v)
    return "-" if v is None else f"{v:.{dec}f}{suffix}"


def pct(v, dec=1):
    v = num(v)
    return "-" if v is None else f"{100 * v:.{dec}f} %"


def cell(s):
    return str(s if s is not None else "-").replace("|", "\\|").replace("\n", " ").replace("\r", " ")


def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        out.append("| " + " | ".join(cell(c) for c in r) + " |")
    return out


# ---------------------------------------------------------------------------------------------------------
# inputs


def gb_entries(doc):
    b = doc.get("benchmarks") if isinstance(doc, dict) else None
    return [e for e in b if isinstance(e, dict) and isinstance(e.get("name"), str)] if isinstance(b, list) else []


def jarvis_baseline(doc):
    """{"bw": {kernel: bytes/s}, "gemm": {(dtype, n): {"flops_per_second", "impl"?}}} of a jarvis JSON"""
    out = {"bw": {}, "gemm": {}}
    for e in gb_entries(doc):
        m = re.fullmatch(r"baseline/(\w+)/(\w+)/(\d+)", e["name"])
        if not m or e.get("error_occurred") and not num(e.get("real_time")):
            continue
        kind, dt, n = m.group(1), m.group(2), int(m.group(3))
        if kind == "gemm":
            out["gemm"][(dt, n)] = {"flops_per_second": num(e.get("items_per_second")),
                                    "us": num(e.get("real_time")), "verified": num(e.get("verified"))}
        elif kind in BASE_KERNELS:
            out["bw"][kind] = num(e.get("bytes_per_second"))
            out.setdefault("n", n)
    return out


def torch_peak(doc):
    out = {"bw": {}, "gemm": {}}
    for r in (doc or {}).get("peak") or []:
        if not isinstance(r, dict) or r.get("status", "ok") != "ok":
            continue
        kind = r.get("kind")
        if kind in BASE_KERNELS:
            out["bw"][kind] = num(r.get("bytes_per_second"))
        elif kind == "matmul":
            out["gemm"][(str(r.get("dtype", "bf16")), int(r.get("n", 0)))] = num(r.get("flops_per_second"))
    return out


def peak_rounds(d):
    """rows of peak-rounds/{peak,torch-peak}-N.json (jarvis --peak and torch_replay.py --peak alternated N times in
    one call): per round and GEMM shape, the median and fastest run of each and whether its sampling converged"""
    rows = []
    for jp in sorted(glob.glob(os.path.join(d, "peak-rounds", "peak-*.json")),
                     key=lambda p: int(re.sub(r"\D", "", os.path.basename(p)) or 0)):
        rnd = re.sub(r"\D", "", os.path.basename(jp))
        jdoc = load_json(jp, f"jarvis peak round {rnd}")
        tdoc = load_json(os.path.join(d, "peak-rounds", f"torch-peak-{rnd}.json"), f"torch peak round {rnd}")
        tg = {}
        for r in (tdoc or {}).get("peak") or []:
            if isinstance(r, dict) and r.get("kind") == "matmul" and r.get("status", "ok") == "ok":
                tg[(str(r.get("dtype", "bf16")), int(r.get("n", 0)))] = r.get("hot") or {}
        for e in gb_entries(jdoc):
            m = re.fullmatch(r"baseline/gemm/(\w+)/(\d+)", e["name"])
            if not m:
                continue
            k = (m.group(1), int(m.group(2)))
            fl = 2.0 * k[1] ** 3
            th = tg.get(k) or {}
            rows.append({"round": rnd, "shape": f"{k[0]} {k[1]}^3",
                         "j_med": fl / (num(e.get("real_time")) * 1e-6) if num(e.get("real_time")) else None,
                         "j_best": fl / (num(e.get("min_us")) * 1e-6) if num(e.get("min_us")) else None,
                         "j_conv": num(e.get("rsd")) is not None and num(e.get("rsd")) < 0.005,
                         "t_med": fl / (num(th.get("median_us")) * 1e-6) if num(th.get("median_us")) else None,
                         "t_best": fl / (num(th.get("min_us")) * 1e-6) if num(th.get("min_us")) else None,
                         "t_conv": bool(th.get("converged"))})
    return rows


def parse_smi(path):
    """facts from nvidia-smi -q text: name, driver, cuda, clocks (MHz)"""
    if not os.path.exists(path):
        log(f"device facts: {path} not found")
        return {}
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except OSError as e:
        log(f"device facts: {path}: {e}")
        return {}
    facts, section = {}, ""
    for line in text.splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        key, sep, val = line.strip().partition(":")
        key, val = key.strip(), val.strip()
        if not sep or not val:  # a section heading ("    Clocks", or "Clocks :" in some versions)
            if indent <= 4:
                section = key
            continue
        if key == "Product Name" and "name" not in facts:
            facts["name"] = val
        elif key == "Driver Version":
            facts["driver"] = val
        elif key == "CUDA Version":
            facts["cuda"] = val
        elif key in ("SM", "Memory", "Graphics") and section in ("Clocks", "Max Clocks", "Applications Clocks",
                                                                   "Default Applications Clocks"):
            facts.setdefault(section, {})[key] = val
        elif key == "Performance State":
            facts["pstate"] = val
    return facts


def load_hardware(path):
    doc = load_json(path, "datasheet table") if path else None
    gpus = doc.get("gpus") if isinstance(doc, dict) else None
    if not isinstance(gpus, list):
        log("datasheet table: using the built-in H100 SXM / H200 / MI300X entries")
        return FALLBACK_HW
    return [g for g in gpus if isinstance(g, dict)]


def find_datasheet(hw, *names):
    """the table entry named exactly by one of names (jarvis's "datasheet" key), else the one whose
    match_names occur in a device name (longest match wins)"""
    names = [n for n in names if n]
    for n in names:
        for g in hw:
            if g.get("name") == n:
                return g
    best, blen = None, 0
    for n in names:
        for g in hw:
            for m in g.get("match_names") or []:
                if m and m.lower() in n.lower() and len(m) > blen:
                    best, blen = g, len(m)
    return best


def ds_bf16(ds):
    p = (ds or {}).get("peak_tflops") or {}
    return num(p.get("matrix_bf16"))


# ---------------------------------------------------------------------------------------------------------
# per-package rows

OP_NAME = re.compile(r"^op(\d+)/(.*)$")


def jarvis_ops(doc):
    """{(index, impl): {"label", "impl", "hot", "cold", "error"}} of a jarvis package JSON"""
    ops = {}
    for e in gb_entries(doc):
        m = OP_NAME.match(e["name"])
        if not m:
            continue
        idx, rest = int(m.group(1)), m.group(2)
        parts = rest.split("/")
        cache = parts[-1] if parts[-1] in ("hot", "cold") else None
        if cache:
            parts = parts[:-1]
        impl = ""
        if cache and len(parts) >= 2:  # a variant: op<N>/<label>/<impl>/<cache>
            impl = parts[-1]
            parts = parts[:-1]
        label = "/".join(parts)
        o = ops.setdefault((idx, impl), {"index": idx, "impl": impl, "label": label})
        if cache:
            o[cache] = e
        if e.get("error_occurred"):
            o["error"] = e.get("error_message") or "error"
    return ops


def verdict_figure(o):
    """(figure name, jarvis us) the verdict of one jarvis op used: jarvis-replay's judged_figure /
    judged_us when it writes them ("hot", "graph", "cold", "cold, launch gap removed"), else the entry
    carrying efficiency_datasheet, else cold when measured, else hot"""
    entries = [(c, o[c]) for c in ("cold", "hot") if isinstance(o.get(c), dict)]
    for c, e in entries:
        fig = e.get("judged_figure")
        if isinstance(fig, str) and fig:
            us = num(e.get("judged_us"))
            if us is None:
                us = figure_value(o, "graph" if fig == "graph" else c)[1]
            return (fig, us)
        if num(e.get("judged_us")) is not None:
            return (c, num(e["judged_us"]))
    for c, e in entries:  # older jarvis-replay: the judged entry carries efficiency_datasheet
        if num(e.get("efficiency_datasheet")) is not None:
            return figure_value(o, c)
    for c in ("cold", "hot"):  # the verdict uses cold times when measured
        if isinstance(o.get(c), dict) and num(o[c].get("real_time")):
            return figure_value(o, c)
    return (None, None)


def figure_value(o, fig):
    if fig == "graph":
        return ("graph", num((o.get("hot") or {}).get("graph_us")))
    e = o.get(fig) or {}
    return (fig, num(e.get("real_time")))


def torch_figure(t, fig):
    """torch's time of the same figure: hot_us, cold_us, graph_us; for "cold, launch gap removed" torch's
    cold less its own launch gap (hot - graph) when it measured a graph, else None"""
    if not fig:
        return None
    if fig.startswith("cold") and fig != "cold":
        c, h, g = num(t.get("cold_us")), num(t.get("hot_us")), num(t.get("graph_us"))
        return c - max(0.0, h - g) if None not in (c, h, g) else None
    return num(t.get(f"{fig}_us"))


def package_rows(jdoc, tdoc):
    """rows of one package: jarvis ops joined with torch ops by IR index"""
    tops = {}
    for r in (tdoc or {}).get("ops") or []:
        if isinstance(r, dict) and isinstance(r.get("index"), int):
            tops[r["index"]] = r
    jops = jarvis_ops(jdoc) if jdoc else {}
    rows = []
    keys = sorted(jops) or [(i, "") for i in sorted(tops)]
    for key in keys:
        idx = key[0]
        o = jops.get(key, {"index": idx, "impl": "", "label": None})
        t = tops.get(idx, {})
        fig, jus = verdict_figure(o)
        any_e = o.get("cold") or o.get("hot") or {}
        traced = num(any_e.get("traced_us")) or num(t.get("traced_us"))
        tus = torch_figure(t, fig)
        if o.get("error"):
            status = f"jarvis: {o['error']}"
        elif not jops:
            status = "jarvis: not run"
        elif num(any_e.get("verified")) == 0:
            status = "WRONG"
        else:
            status = "ok"
        tstat = t.get("status", "not in torch file" if tdoc else "no torch file")
        rows.append({"index": idx, "impl": o.get("impl") or "", "label": o.get("label") or t.get("label") or "?",
                     "family": any_e.get("op_family") or t.get("family") or "", "traced_us": traced, "figure": fig, "jarvis_us": jus,
                     "torch_us": tus, "jarvis_over_torch": ratio(jus, tus), "replay_over_traced": ratio(jus, traced),
                     "verdict": any_e.get("label") or "-", "status": status, "torch_status": tstat,
                     "torch_hot_us": num(t.get("hot_us")), "torch_cold_us": num(t.get("cold_us")),
                     "torch_graph_us": num(t.get("graph_us"))})
    return rows


DIMS = re.compile(r"\[([0-9,]+)\]")


def largest_tensor(label):
    """elements of the largest tensor named in an op label ("aten::add bf16[64,256,56,56]cl ..."), 0 when none"""
    best = 0
    for m in DIMS.finditer(label or ""):
        n = 1
        for x in m.group(1).split(","):
            n *= int(x)
        best = max(best, n)
    return best


def own_kernel_rows(jdoc):
    """(copy bytes/s of the package's own baseline, [rows]) of the ops on jarvis' own kernels with a tensor of
    >= OWN_MIN_ELEMS elements: achieved bytes/s (the model's bytes over the judged time) against copy"""
    copy = jarvis_baseline(jdoc)["bw"].get("copy") if jdoc else None
    rows = []
    for o in sorted(jarvis_ops(jdoc).values(), key=lambda o: (o["index"], o["impl"])) if jdoc else []:
        fig, us = verdict_figure(o)
        e = o.get("cold") or o.get("hot") or {}
        fam = e.get("op_family") or ""
        elems = largest_tensor(o["label"])
        if fam not in OWN_FAMILIES or elems < OWN_MIN_ELEMS or not us or num(e.get("bytes")) is None:
            continue
        bw = num(e["bytes"]) / (us * 1e-6)
        rows.append({"index": o["index"], "label": o["label"], "impl": o["impl"], "family": fam, "elems": elems,
                     "figure": fig, "us": us, "bw": bw, "of_copy": ratio(bw, copy)})
    return copy, rows


def fidelity(rows, families=None):
    """(ops within FIDELITY of traced, ops with both times), of the given families only when named; each op
    once, as the framework ran it (variant 0: rows of another implementation, named by their impl, are left
    out)"""
    vals = [r["replay_over_traced"] for r in rows if r["replay_over_traced"] is not None and not r.get("impl") and
            (families is None or r["family"] in families)]
    return sum(1 for v in vals if abs(v - 1) <= FIDELITY * (1 + EPS)), len(vals)


def geomean(vals):
    vals = [v for v in vals if v is not None and v > 0]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else None


# ---------------------------------------------------------------------------------------------------------
# the summary


def summarize(d, hw_path):
    lines, notes = [], []
    if not os.path.isdir(d):
        raise FileNotFoundError(f"{d}: no such directory")
    peak = load_json(os.path.join(d, "peak.json"), "jarvis peak")
    tpeak = load_json(os.path.join(d, "torch-peak.json"), "torch peak")
    smi = parse_smi(os.path.join(d, "nvidia-smi-q.txt"))
    replays = sorted(glob.glob(os.path.join(d, "replay-*.json")))
    if not replays:
        log(f"packages: no replay-*.json in {d}")
    rdocs = {}
    for p in replays:
        name = os.path.basename(p)[len("replay-"):-len(".json")]
        rdocs[name] = load_json(p, f"jarvis replay {name}")
    jbase_doc = peak
    if not (peak and jarvis_baseline(peak)["bw"]):
        for name, doc in rdocs.items():
            if doc and jarvis_baseline(doc)["bw"]:
                jbase_doc = doc
                notes.append(f"Baseline taken from replay-{name}.json (no usable peak.json).")
                break
    jb = jarvis_baseline(jbase_doc) if jbase_doc else {"bw": {}, "gemm": {}}
    tb = torch_peak(tpeak)
    jctx = (jbase_doc or {}).get("context") or next(((doc or {}).get("context") for doc in rdocs.values() if doc), {}) or {}
    tctx = (tpeak or {}).get("context") or {}
    hw = load_hardware(hw_path)
    dev_name = jctx.get("device_name") or tctx.get("device_name") or smi.get("name")
    ds = find_datasheet(hw, jctx.get("datasheet"), dev_name, tctx.get("device_name"), smi.get("name"))
    ds_bw = num((ds or {}).get("mem_bw_gbps"))
    ds_bw = ds_bw * 1e9 if ds_bw else None
    ds_tf = ds_bf16(ds)

    lines += ["# GPU session summary", ""]
    lines += [f"Results: `{d}`. jarvis-replay figures are device-event medians (hot: same operands; cold: caches "
              "flushed; graph: inside one CUDA graph); torch figures come from bench/torch_replay.py, measured "
              "the same way on the same device.", ""]

    # device
    lines += ["## Device", ""]
    clocks = smi.get("Clocks", {})
    maxc = smi.get("Max Clocks", {})
    l2 = num(jctx.get("last_level_cache_bytes")) or num(tctx.get("l2_cache_bytes"))
    dev_rows = [
        ("GPU", dev_name or "not available"),
        ("driver", smi.get("driver") or jctx.get("driver") or tctx.get("driver") or "not available"),
        ("CUDA (driver)", smi.get("cuda") or "not available"),
        ("clocks SM / memory (now)", f"{clocks.get('SM', '-')} / {clocks.get('Memory', '-')}" if clocks else
         f"{tctx['sm_clock_mhz']:.0f} MHz / {fmt(tctx.get('mem_clock_mhz'), 0)} MHz (torch run)"
         if num(tctx.get("sm_clock_mhz")) else
         f"{jctx.get('clock_mhz')} MHz (jarvis)" if num(jctx.get("clock_mhz")) else "not available"),
        ("clocks SM / memory (max)", f"{maxc.get('SM', '-')} / {maxc.get('Memory', '-')}" if maxc else
         f"{tctx['max_sm_clock_mhz']:.0f} MHz / {fmt(tctx.get('max_mem_clock_mhz'), 0)} MHz (torch run)"
         if num(tctx.get("max_sm_clock_mhz")) else "not available"),
        ("L2 cache", f"{l2 / 2**20:.0f} MiB" if l2 else "not available"),
        ("datasheet", f"{ds.get('name')}: {fmt(ds_bw and ds_bw / 1e12, 2)} TB/s, {fmt(ds_tf, 1)} dense bf16 TFLOPS"
         if ds else "not found (no PASS/FAIL against the datasheet)"),
        ("torch / CUDA / cuDNN", f"{tctx.get('torch', '-')} / {tctx.get('cuda', '-')} / {tctx.get('cudnn', '-')}"
         if tctx else "not available"),
        ("jarvis", f"{jctx.get('jarvis_version', '-')} backend {jctx.get('backend', '-')}" if jctx else "not available"),
    ]
    lines += table(["fact", "value"], dev_rows) + [""]

    # targets
    triad = jb["bw"].get("triad")
    triad_frac = ratio(triad, ds_bw)
    gemm_keys = sorted(set(jb["gemm"]) & set(tb["gemm"]), key=lambda k: -k[1])
    lines += ["## Targets", ""]
    trows = [("triad >= 90 % of datasheet bandwidth",
              f"{fmt(triad and triad / 1e12, 3)} TB/s = {pct(triad_frac)} of {fmt(ds_bw and ds_bw / 1e12, 2)} TB/s",
              meets(triad_frac, TRIAD_TARGET))]
    if gemm_keys:
        for k in gemm_keys:
            jf, tf = jb["gemm"][k]["flops_per_second"], tb["gemm"][k]
            r = ratio(jf, tf)
            trows.append((f"jarvis GEMM >= 95 % of torch.matmul ({k[0]} {k[1]}^3)",
                          f"{fmt(jf and jf / 1e12, 1)} vs {fmt(tf and tf / 1e12, 1)} TFLOP/s = {pct(r)}",
                          meets(r, GEMM_TARGET)))
    else:
        trows.append(("jarvis GEMM >= 95 % of torch.matmul", "no common shape in peak.json and torch-peak.json",
                      "n/a"))
    lines += table(["target", "measured", "result"], trows) + [""]

    # baseline
    lines += ["## Baseline and peak", ""]
    brows = []
    for k in BASE_KERNELS:
        jv, tv = jb["bw"].get(k), tb["bw"].get(k)
        brows.append((k, fmt(jv and jv / 1e12, 3), pct(ratio(jv, ds_bw)), fmt(tv and tv / 1e12, 3),
                      pct(ratio(tv, ds_bw)), fmt(ratio(jv, tv), 3)))
    brows.append(("datasheet", fmt(ds_bw and ds_bw / 1e12, 3), "100.0 %" if ds_bw else "-", "", "", ""))
    n = jb.get("n")
    lines += [f"Bandwidth, bytes read + written per second (jarvis fp32 arrays of {n if n else '-'} elements; "
              "torch: 1 GiB fp32 arrays, copy = `copy_`, triad = `torch.add(a, b, alpha=s, out=c)`).", ""]
    lines += table(["kernel", "jarvis TB/s", "jarvis of datasheet", "torch TB/s", "torch of datasheet",
                    "jarvis/torch"], brows) + [""]
    grows = []
    for k in sorted(set(jb["gemm"]) | set(tb["gemm"]), key=lambda k: (k[0], -k[1])):
        jf = (jb["gemm"].get(k) or {}).get("flops_per_second")
        tf = tb["gemm"].get(k)
        grows.append((f"{k[0]} {k[1]}^3", fmt(jf and jf / 1e12, 1), fmt(tf and tf / 1e12, 1), fmt(ratio(jf, tf), 3),
                      pct(ratio(jf, ds_tf * 1e12 if ds_tf else None)), pct(ratio(tf, ds_tf * 1e12 if ds_tf else None))))
    lines += ["GEMM (2*n^3 FLOP per run; jarvis: its GEMM ceiling, cuBLASLt on CUDA; torch: `torch.matmul`).", ""]
    lines += table(["shape", "jarvis TFLOP/s", "torch TFLOP/s", "jarvis/torch", "jarvis of datasheet",
                    "torch of datasheet"], grows or [("not available", "-", "-", "-", "-", "-")]) + [""]

    prows = peak_rounds(d)
    if prows:
        lines += ["GEMM ceiling in rounds (jarvis-replay --peak and torch_replay.py --peak alternated in one call; "
                  "TFLOP/s of the median and of the fastest run; *converged*: the samples' spread fell under 0.5 %, i.e. the clock held "
                  "steady; otherwise the sampling ran its full second and the power cap pulled the clock down).", ""]
        lines += table(["round", "shape", "jarvis median", "jarvis fastest", "jarvis converged", "torch median",
                        "torch fastest", "torch converged", "median ratio", "fastest ratio"],
                       [(r["round"], r["shape"], fmt(r["j_med"] and r["j_med"] / 1e12, 1),
                         fmt(r["j_best"] and r["j_best"] / 1e12, 1), "yes" if r["j_conv"] else "no",
                         fmt(r["t_med"] and r["t_med"] / 1e12, 1), fmt(r["t_best"] and r["t_best"] / 1e12, 1),
                         "yes" if r["t_conv"] else "no", fmt(ratio(r["j_med"], r["t_med"]), 3),
                         fmt(ratio(r["j_best"], r["t_best"]), 3)) for r in prows]) + [""]
    lines += notes and [*(f"- {x}" for x in notes), ""] or []

    # packages
    names = sorted(set(rdocs) | {os.path.basename(p)[len("torch-"):-len(".json")]
                                  for p in glob.glob(os.path.join(d, "torch-*.json"))} - {"peak"})
    if not names:
        lines += ["## Packages", "", "No replay-*.json or torch-*.json in the results: no per-op comparison.", ""]
    for name in names:
        jdoc = rdocs.get(name)
        tdoc = load_json(os.path.join(d, f"torch-{name}.json"), f"torch {name}")
        if name not in rdocs:
            log(f"jarvis replay {name}: {os.path.join(d, f'replay-{name}.json')} not found")
        rows = package_rows(jdoc, tdoc)
        jc = (jdoc or {}).get("context") or {}
        lines += [f"## Package {name}", ""]
        lines += [f"- jarvis: `replay-{name}.json`" + ("" if jdoc else " **not available**") +
                  f"; torch: `torch-{name}.json`" + ("" if tdoc else " **not available**")]
        if jc.get("traced_device"):
            lines += [f"- Traced on {jc['traced_device']}; replayed on {jc.get('device_name', '?')}"]
        fin, fn = fidelity(rows)
        lines += [f"- Replay vs traced fidelity: **{fin} of {fn}** ops within {FIDELITY * 100:.0f} % of the traced "
                  "time (|replay/traced - 1| <= 0.15)"]
        gin, gn = fidelity(rows, MATRIX_FAMILIES)
        if gn:
            res = "PASS" if gin >= FIDELITY_SHARE * gn * (1 - EPS) else "FAIL"
            lines += [f"- GEMM and convolution: **{gin} of {gn}** within {FIDELITY * 100:.0f} % "
                      f"(target >= {FIDELITY_SHARE:.0%} of them): {res}"]
        nver = sum(1 for r in rows if r["status"] == "ok")
        lines += [f"- Verified: {nver} of {len(rows)} replayed results"]
        jt = [r["jarvis_over_torch"] for r in rows]
        gm = geomean(jt)
        cnt = sum(1 for v in jt if v)
        lines += [f"- jarvis/torch: geometric mean {fmt(gm, 3)} over {cnt} ops (below 1: jarvis faster)", ""]
        copy, own = own_kernel_rows(jdoc)
        if own:
            npass = sum(1 for r in own if meets(r["of_copy"], OWN_TARGET) == "PASS")
            lines += [f"Own kernels on tensors of >= 2^24 elements (batch norm, elementwise): **{npass} of "
                      f"{len(own)}** at >= {OWN_TARGET:.0%} of this run's copy bandwidth "
                      f"({fmt(copy / 1e12 if copy else None, 3)} TB/s; bytes as the model counts them over the "
                      "judged time).", ""]
            lines += table(["id", "op", "family", "elements", "figure", "us", "TB/s", "of copy", "result"],
                           [(r["index"], r["label"] + (f" ({r['impl']})" if r["impl"] else ""), r["family"],
                             r["elems"], r["figure"] or "-", fmt(r["us"]), fmt(r["bw"] / 1e12, 3), pct(r["of_copy"]),
                             meets(r["of_copy"], OWN_TARGET))
                            for r in own]) + [""]
        prow = []
        for r in rows:
            prow.append((r["index"], r["label"] + (f" ({r['impl']})" if r["impl"] else ""), r["figure"] or "-",
                         fmt(r["traced_us"]), fmt(r["jarvis_us"]), fmt(r["torch_us"]), fmt(r["jarvis_over_torch"], 3),
                         fmt(r["replay_over_traced"], 3), r["verdict"], r["status"],
                         r["torch_status"] if r["torch_status"] != "ok" else "ok"))
        lines += table(["id", "op", "figure", "traced us", "jarvis us", "torch us", "jarvis/torch", "replay/traced",
                        "verdict", "jarvis", "torch"], prow or [("-",) * 11]) + [""]
        tf = [r for r in rows if r["torch_hot_us"] is not None]
        if tf:
            lines += ["<details><summary>torch figures (hot / cold / graph us)</summary>", ""]
            lines += table(["id", "torch hot us", "torch cold us", "torch graph us"],
                           [(r["index"], fmt(r["torch_hot_us"]), fmt(r["torch_cold_us"]), fmt(r["torch_graph_us"]))
                            for r in tf]) + ["", "</details>", ""]

    lines += ["## How to read this", "",
              "- *figure*: the jarvis time the verdict used (jarvis-replay's judged_figure; cold when an older "
              "jarvis-replay does not name it); torch us is torch's figure of the same kind (for \"cold, launch "
              "gap removed\": torch cold less torch's hot - graph gap, shown only when torch measured a graph).",
              "- *jarvis/torch* = jarvis us / torch us (above 1: jarvis slower); *replay/traced* = jarvis us / "
              "traced us (the trace's median kernel time per call).",
              f"- Targets: PASS when the measured value is at or above the threshold (triad {TRIAD_TARGET:.0%} of "
              f"the datasheet; GEMM {GEMM_TARGET:.0%} of torch.matmul).", ""]
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", required=True, help="directory of a GPU session's results")
    ap.add_argument("--out", required=True, help="summary.md to write")
    ap.add_argument("--hardware", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data",
                                                       "hardware.json"), help="datasheet table (data/hardware.json)")
    a = ap.parse_args(argv)
    try:
        text = summarize(a.results, a.hardware)
    except FileNotFoundError as e:
        log(str(e))
        return 1
    try:
        tmp = a.out + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, a.out)
    except OSError as e:
        log(f"{a.out}: cannot write: {e}")
        return 1
    log(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
