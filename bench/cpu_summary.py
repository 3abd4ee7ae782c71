#!/usr/bin/env python3
"""The CPU benchmark's helpers: a package cut to some families, and one markdown summary of a run.

  cpu_summary.py filter IN.zip OUT.zip [--families gemm,conv,batchnorm]
      OUT.zip: IN.zip with only the replay_ir.json entries of those families (the "jarvis" family key, else
      the op name), in their order; the other members are copied as they are. jarvis-replay has no family
      option, so jarvis-replay and bench/torch_replay.py both read the cut package and number its ops alike.
  cpu_summary.py summary --results DIR --out DIR/summary.md
      DIR holds what bench/bench_cpu.sh gathered (each one optional; a missing file is a "not available"):
        peak.json           jarvis-replay --peak --backend cpu (Google Benchmark JSON)
        stream.json         bench/stream_ref (STREAM's rules, our code)
        torch-peak.json     bench/torch_replay.py --peak --device cpu
        replay-<name>.json  jarvis-replay --backend cpu of one package; torch-<name>.json: torch_replay.py of it
        machine.json        the machine, the threads, the versions and the load (bench_cpu.sh writes it)
The summary has the machine, date and versions; the baseline (copy/scale/add/triad/dot GB/s) against STREAM
and torch; the GEMM ceiling against torch.matmul; per package, per op: jarvis us (the figure the verdict used),
torch us (the same figure), jarvis/torch; and the goals with PASS/FAIL:
  - every replayed GEMM and convolution: jarvis time <= torch time / 0.9 (jarvis at >= 90 % of torch's speed);
  - the baseline's triad within 10 % of STREAM's triad.
Exit status: 0 done (whatever the goals say), 1 it could not be done, 2 bad usage.
"""
import argparse
import glob
import json
import os
import re
import statistics
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_summary as gs  # noqa: E402 - the readers of jarvis-replay's and torch_replay.py's JSON
import torch_replay as tr  # noqa: E402 - family_of (pure; torch is imported only when measuring)

OP_TARGET = 0.90      # jarvis GEMM/conv time <= torch time / 0.9
TRIAD_TOL = 0.10      # baseline triad within 10 % of STREAM's
MATRIX_FAMILIES = ("gemm", "conv")
DEFAULT_FAMILIES = "gemm,conv,batchnorm"


def log(msg):
    print(f"cpu_summary: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------------------
# filter


def cmd_filter(args):
    fams = {f.strip() for f in args.families.split(",") if f.strip()}
    try:
        with zipfile.ZipFile(args.src) as z:
            names = z.namelist()
            ir_name = next((n for n in names if n.rsplit("/", 1)[-1] == "replay_ir.json"), None)
            if ir_name is None:
                log(f"{args.src}: no replay_ir.json")
                return 1
            members = {n: z.read(n) for n in names}
    except (OSError, zipfile.BadZipFile) as e:
        log(f"{args.src}: {e}")
        return 1
    entries = tr.load_ir(args.src)
    kept = [e for e in entries if isinstance(e, dict) and tr.family_of(e) in fams]
    members[ir_name] = (json.dumps(kept, indent=1) + "\n").encode("utf-8")
    try:
        with zipfile.ZipFile(args.dst, "w", zipfile.ZIP_DEFLATED) as z:
            for n in names:
                z.writestr(n, members[n])
    except OSError as e:
        log(f"{args.dst}: {e}")
        return 1
    log(f"{args.dst}: {len(kept)} of {len(entries)} ops ({', '.join(sorted(fams))})")
    return 0


# ---------------------------------------------------------------------------------------------------------
# summary


def stream_rates(doc):
    """{kernel: bytes/s} of stream_ref's JSON"""
    out = {}
    for k in (doc or {}).get("kernels") or []:
        if isinstance(k, dict) and gs.num(k.get("best_bytes_per_second")):
            out[k.get("name")] = gs.num(k["best_bytes_per_second"])
    return out


def torch_peak_cpu(doc):
    """{"bw": {kernel: bytes/s}, "gemm": {(dtype, n): flops/s}} of torch_replay.py --peak --device cpu"""
    out = {"bw": {}, "gemm": {}}
    for r in (doc or {}).get("peak") or []:
        if not isinstance(r, dict) or r.get("status") != "ok":
            continue
        if r.get("kind") == "matmul":
            out["gemm"][(r.get("dtype"), r.get("n"))] = gs.num(r.get("flops_per_second"))
        elif r.get("kind") in gs.BASE_KERNELS:
            out["bw"][r["kind"]] = gs.num(r.get("bytes_per_second"))
    return out


def op_pass(r):
    """True/False/None: a GEMM or convolution at >= 90 % of torch's speed (None: not comparable)"""
    if r["family"] not in MATRIX_FAMILIES or r["status"] != "ok" or r["jarvis_over_torch"] is None:
        return None
    return r["jarvis_over_torch"] <= (1 / OP_TARGET) * (1 + gs.EPS)


def triad_rounds(d):
    """[(jarvis triad bytes/s, STREAM triad bytes/s)] of rounds/peak-N.json and rounds/stream-N.json, in order"""
    out = []
    for p in sorted(glob.glob(os.path.join(d, "rounds", "peak-*.json")),
                    key=lambda p: int(re.sub(r"\D", "", os.path.basename(p)) or 0)):
        n = re.sub(r"\D", "", os.path.basename(p))
        j = gs.jarvis_baseline(gs.load_json(p, f"jarvis round {n}") or {})["bw"].get("triad")
        s = stream_rates(gs.load_json(os.path.join(d, "rounds", f"stream-{n}.json"), f"STREAM round {n}")).get("triad")
        out.append((j, s))
    return out


def mark(ok):
    return "-" if ok is None else ("PASS" if ok else "FAIL")


def summarize(d):
    load = lambda name, what: gs.load_json(os.path.join(d, name), what)  # noqa: E731
    mach = load("machine.json", "machine") or {}
    peak = load("peak.json", "jarvis peak")
    stream = load("stream.json", "STREAM reference")
    tpeak = load("torch-peak.json", "torch peak")
    lines = ["# CPU replay beside torch and STREAM", ""]
    ctx = (peak or {}).get("context") or {}
    lines += ["## Machine", "",
              *gs.table(["", ""], [
                  ["date (UTC)", mach.get("date") or ctx.get("date") or "?"],
                  ["host", mach.get("host") or ctx.get("host_name") or "?"],
                  ["CPU", mach.get("cpu_model") or ctx.get("device_name") or "?"],
                  ["cores / threads used", f"{mach.get('cores', '?')} / {mach.get('threads', '?')}"],
                  ["caches", mach.get("caches") or "?"],
                  ["memory", mach.get("memory") or "?"],
                  ["kernel", mach.get("kernel") or ctx.get("driver") or "?"],
                  ["jarvis commit", mach.get("commit") or "?"],
                  ["oneDNN (jarvis)", mach.get("onednn") or "?"],
                  ["torch", mach.get("torch") or "?"],
                  ["oneDNN / MKL (torch)", f"{mach.get('torch_onednn', '?')} / {mach.get('torch_mkl', '?')}"],
                  ["compiler (stream_ref)", mach.get("cc") or "?"],
                  ["load average before / after", f"{mach.get('load_before', '?')} / {mach.get('load_after', '?')}"],
              ]), ""]
    goals = []

    # baseline vs STREAM vs torch
    jb = gs.jarvis_baseline(peak) if peak else {"bw": {}, "gemm": {}}
    st = stream_rates(stream)
    tp = torch_peak_cpu(tpeak)
    rows = []
    for k in gs.BASE_KERNELS:
        j, s, t = jb["bw"].get(k), st.get(k), tp["bw"].get(k)
        rows.append([k, gs.fmt(j and j / 1e9), gs.fmt(s and s / 1e9), gs.pct(gs.ratio(j, s)), gs.fmt(t and t / 1e9),
                     gs.pct(gs.ratio(j, t))])
    sctx = (stream or {}).get("context") or {}
    lines += ["## Baseline (GB/s, decimal; bytes read + written)", "",
              *gs.table(["kernel", "jarvis", "STREAM ref", "jarvis / STREAM", "torch", "jarvis / torch"], rows), "",
              f"jarvis: fp32 arrays of {gs.fmt((jb.get('n') or 0) * 4 / 2 ** 20, 1)} MiB, median of samples; STREAM "
              f"reference (`bench/stream_ref.c`, STREAM's rules, our code): double arrays of "
              f"{gs.fmt((sctx.get('elements') or 0) * 8 / 2 ** 20, 1)} MiB, best of {sctx.get('passes', '?')} "
              f"passes less the first, {sctx.get('threads', '?')} threads, validated: {sctx.get('validated', '?')}; "
              "torch: `torch_replay.py --peak --device cpu` (fp32, 4x the LLC, median).", ""]
    jt, stt = jb["bw"].get("triad"), st.get("triad")
    rounds = triad_rounds(d)
    if rounds:
        lines += ["Triad in rounds (jarvis' baseline and the STREAM reference alternated; the goal reads the medians "
                  "of the rounds):", "",
                  *gs.table(["round", "jarvis triad GB/s", "STREAM triad GB/s", "jarvis / STREAM"],
                            [[str(i + 1), gs.fmt(a and a / 1e9), gs.fmt(b and b / 1e9), gs.pct(gs.ratio(a, b))]
                             for i, (a, b) in enumerate(rounds)]), ""]
        jv = [a for a, _ in rounds if a]
        sv = [b for _, b in rounds if b]
        if jv and sv:
            jt, stt = statistics.median(jv), statistics.median(sv)
    r = gs.ratio(jt, stt)
    ok = None if r is None else abs(r - 1) <= TRIAD_TOL * (1 + gs.EPS)
    goals.append(["baseline triad within 10 % of STREAM's triad" + (f" (medians of {len(rounds)} rounds)" if rounds
                                                                     else ""),
                  f"{gs.fmt(jt and jt / 1e9)} vs {gs.fmt(stt and stt / 1e9)} GB/s ({gs.pct(r)})", mark(ok)])

    # GEMM ceiling
    rows = []
    for (dt, n), g in sorted(jb["gemm"].items()):
        t = tp["gemm"].get((dt, n))
        rows.append([f"{dt} {n}^3", gs.fmt(g.get("flops_per_second") and g["flops_per_second"] / 1e9, 1),
                     gs.fmt(t and t / 1e9, 1), gs.pct(gs.ratio(g.get("flops_per_second"), t))])
    if rows:
        lines += ["## GEMM ceiling (GFLOP/s)", "",
                  *gs.table(["GEMM", "jarvis (oneDNN matmul)", "torch.matmul", "jarvis / torch"], rows), ""]

    # packages
    allrows = []
    for path in sorted(glob.glob(os.path.join(d, "replay-*.json"))):
        name = os.path.basename(path)[len("replay-"):-len(".json")]
        jdoc = gs.load_json(path, f"jarvis {name}")
        tdoc = gs.load_json(os.path.join(d, f"torch-{name}.json"), f"torch {name}")
        prow = gs.package_rows(jdoc, tdoc)
        rows = []
        for r in prow:
            if r["impl"]:
                continue  # another implementation than the framework's: not what torch is compared with
            r["package"] = name
            r["pass"] = op_pass(r)
            allrows.append(r)
            note = r["status"] if r["status"] != "ok" else ""
            if r["torch_status"] != "ok":
                note = (note + "; " if note else "") + f"torch: {r['torch_status']}"
            rows.append([r["index"], r["family"], gs.cell(r["label"]), r["figure"] or "-", gs.fmt(r["jarvis_us"]),
                         gs.fmt(r["torch_us"]), gs.fmt(r["jarvis_over_torch"], 3), mark(r["pass"]), gs.cell(note)])
        lines += [f"## Package `{name}`", "",
                  *gs.table(["#", "family", "op", "figure", "jarvis us", "torch us", "jarvis / torch", "goal", "note"],
                           rows), ""]

    # per family
    fam_rows = []
    for fam in sorted({r["family"] for r in allrows}):
        rs = [r for r in allrows if r["family"] == fam and r["jarvis_over_torch"] is not None and r["status"] == "ok"]
        gm = gs.geomean([r["jarvis_over_torch"] for r in rs])
        worst = max((r["jarvis_over_torch"] for r in rs), default=None)
        best = min((r["jarvis_over_torch"] for r in rs), default=None)
        npass = sum(1 for r in rs if r["pass"])
        fam_rows.append([fam, len(rs), gs.fmt(gm, 3), gs.fmt(best, 3), gs.fmt(worst, 3),
                         f"{npass} of {len(rs)}" if fam in MATRIX_FAMILIES else "-"])
    if fam_rows:
        lines += ["## Per family (jarvis time / torch time; < 1: jarvis faster)", "",
                  *gs.table(["family", "ops", "geomean", "best", "worst", "within goal"], fam_rows), ""]
    mx = [r for r in allrows if r["pass"] is not None]
    nmiss = sum(1 for r in allrows if r["family"] in MATRIX_FAMILIES and r["pass"] is None)
    goals.append(["every GEMM/conv: jarvis time <= torch time / 0.9",
                  f"{sum(1 for r in mx if r['pass'])} of {len(mx)} pass" + (f" ({nmiss} not comparable)" if nmiss else ""),
                  mark(None if not mx else all(r["pass"] for r in mx))])
    lines[2:2] = ["## Goals", "", *gs.table(["goal", "measured", "result"], goals), ""]
    lines += ["## How it was measured", "",
              "- jarvis: `jarvis-replay PKG --backend cpu` (oneDNN for GEMM, convolution and batch norm), on packages "
              "cut to the GEMM, convolution and batch-norm families (`cpu_summary.py filter`); the figure is the one "
              "its verdict used (judged_figure: cold, LLC flushed before each sample, unless said otherwise).",
              "- torch: `bench/torch_replay.py --device cpu` on the same cut package: the same ATen op, shapes, "
              "strides and dtypes, torch.set_num_threads = the threads jarvis ran with, perf_counter around batches, "
              "the same figure (cold: a read-modify-write of 2x the LLC before each sample). cudnn_batch_norm_backward "
              "runs as native_batch_norm_backward on the CPU (torch has no CPU kernel of cuDNN's op).",
              "- Both are medians of samples on a machine that may be shared: the load average before and after is "
              "in the machine table; a ratio near the goal is within the noise of such a machine.", ""]
    return "\n".join(lines)


def cmd_summary(args):
    if not os.path.isdir(args.results):
        log(f"{args.results}: not a directory")
        return 1
    text = summarize(args.results)
    try:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        log(f"{args.out}: {e}")
        return 1
    print(text)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("filter", help="a package cut to some families")
    f.add_argument("src")
    f.add_argument("dst")
    f.add_argument("--families", default=DEFAULT_FAMILIES)
    s = sub.add_parser("summary", help="summary.md of a results folder")
    s.add_argument("--results", required=True)
    s.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    return cmd_filter(args) if args.cmd == "filter" else cmd_summary(args)


if __name__ == "__main__":
    sys.exit(main())
