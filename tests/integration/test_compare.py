#!/usr/bin/env python3
"""tests/test_compare.py JARVIS_ANALYZE EXAMPLE_TRACE SHARED_DIR

The comparative analysis (`jarvis-analyze TARGET --reference REF -o OUT`):
1. bundled part (no fixtures needed): a self comparison of the example trace
   (100 % coverage, every ratio 1.0, no flag); a generated pair of small traces
   in NVIDIA and AMD form (cuDNN vs MIOpen convolution, flash vs efficient
   SDPA, a dtype change, an op without shapes, launches without an op) whose
   matching passes, coverage and times are known by construction; bad usage.
2. fixture part (exit 77 when SHARED_DIR/traces is absent): the four H100 /
   MI300X VF pairs in both directions: coverage >= 80 % per side, read from the
   fair report and recomputed from comparison.csv and both
   unified_perf_summary.csv files; per-pair times equal to the rows' Kernel Time
   (µs)_sum; expected ratios equal to the HBM and matrix_bf16 ratios of
   data/hardware.json; the flag rule; md_check; the xlsx worksheet.
Without markdown-it (md_check) the markdown checks are skipped, the others run: exit 77 unless one fails.
"""
import gzip
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck, md_check
import md_check  # noqa: E402
from jvcheck import check, closeness, finish, num, optional_module, read_csv, skip_part  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FLAG = 1.25
close = closeness(rel=1e-9, abs_tol=1e-12)


def run(exe, args):
    p = subprocess.run([exe] + args + ["-q"], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


KEY = ("name", "Input Dims", "Input type", "Input Strides", "Concrete Inputs")


def ukey(row):
    return tuple(row[k] for k in KEY)


def skey(row, side):
    cols = ("%s name", "%s Input Dims", "%s Input type", "%s Input Strides", "%s Concrete Inputs")
    return tuple(row[c % side] for c in cols)


def policy_peaks(entry):
    """The peak policy (README "Peak policy"): datasheet peaks on both sides for built-in entries; an entry's
    max-achievable numbers (MI300X's 708 bf16) serve only TraceLens' own sheet columns."""
    return entry["peak_tflops"]


def hw_entry(hw, name):
    for g in hw["gpus"]:
        if g["name"] == name:
            return g
    raise KeyError(name)


def md_coverage(text):
    m = re.search(r"\| Matching coverage \(matched / GPU kernel time\) \| ([\d.]+) % \| ([\d.]+) % \|", text)
    return (float(m.group(1)), float(m.group(2))) if m else None


def md_roofline_gpus(text):
    m = re.search(r"^\| Roofline GPU \| ([^|]+?) \| ([^|]+?) \|", text, re.M)
    return (m.group(1).strip(), m.group(2).strip()) if m else None


def xlsx_sheets(path):
    with zipfile.ZipFile(path) as z:
        wb = z.read("xl/workbook.xml").decode()
    return re.findall(r'<sheet [^>]*name="([^"]+)"', wb)


def verify(label, out, tdir, rdir, hw, self_cmp=False):
    """Checks one comparison in OUT against the target's (tdir) and reference's
    (rdir) unified_perf_summary.csv. Returns (comparison rows, fair text)."""
    fair_p = os.path.join(out, "comparative_analysis_fair.md")
    rough_p = os.path.join(out, "comparative_analysis_rough.md")
    check(os.path.isfile(fair_p) and os.path.isfile(rough_p), label + ": both comparative reports written")
    if md_check.MarkdownIt:  # else main() noted the markdown checks as skipped
        probs = md_check.check_files([fair_p, rough_p])
        check(not probs, label + ": md_check: %s" % probs[:3])
    fair = open(fair_p, encoding="utf-8").read()
    rough = open(rough_p, encoding="utf-8").read()
    for w in ("winner", "loser", "better", "worse"):
        check(w not in fair.lower() and w not in rough.lower(), label + ": neutral wording (no '%s')" % w)
    comp = read_csv(os.path.join(out, "perf_report_csvs", "comparison.csv"))
    tu = read_csv(os.path.join(tdir, "perf_report_csvs", "unified_perf_summary.csv"))
    ru = read_csv(os.path.join(rdir, "perf_report_csvs", "unified_perf_summary.csv"))
    tmap = {ukey(r): r for r in tu}
    rmap = {ukey(r): r for r in ru}
    check(len(tmap) == len(tu) and len(rmap) == len(ru), label + ": unified rows have unique keys")
    seen_t, seen_r = set(), set()
    tm = rm = 0.0
    for c in comp:
        p = c["match pass"]
        has_t, has_r = p != "unmatched (reference)", p != "unmatched (target)"
        if has_t:
            k = skey(c, "target")
            check(k in tmap, label + ": target row %s in unified_perf_summary" % (k[:2],))
            if k in tmap:
                u = tmap[k]
                check(num(c["target Kernel Time (µs)_sum"]) == num(u["Kernel Time (µs)_sum"]),
                      label + ": target time of %s equals Kernel Time (µs)_sum" % (k[:2],))
                check(int(c["target operation_count"]) == int(u["operation_count"]), label + ": target count")
            check(k not in seen_t, label + ": target row %s appears once" % (k[:2],))
            seen_t.add(k)
        if has_r:
            k = skey(c, "reference")
            check(k in rmap, label + ": reference row %s in unified_perf_summary" % (k[:2],))
            if k in rmap:
                u = rmap[k]
                check(num(c["reference Kernel Time (µs)_sum"]) == num(u["Kernel Time (µs)_sum"]),
                      label + ": reference time of %s equals Kernel Time (µs)_sum" % (k[:2],))
                check(int(c["reference operation_count"]) == int(u["operation_count"]), label + ": reference count")
            check(k not in seen_r, label + ": reference row %s appears once" % (k[:2],))
            seen_r.add(k)
        if not (has_t and has_r):
            continue
        tt, rt = num(c["target Kernel Time (µs)_sum"]), num(c["reference Kernel Time (µs)_sum"])
        tc, rc = int(c["target operation_count"]), int(c["reference operation_count"])
        tm += tt
        rm += rt
        ratio = (tt / tc) / (rt / rc)
        check(close(num(c["ratio per call (target/reference)"]), ratio), label + ": per-call ratio recomputed")
        check(close(num(c["ratio total (target/reference)"]), tt / rt), label + ": total ratio recomputed")
        check(close(num(c["delta per call (%)"]), (ratio - 1) * 100, rel=1e-9, abs_tol=1e-9), label + ": delta %")
        exp = num(c["expected ratio"])
        if math.isnan(exp):
            check(c["flag"] == "", label + ": no flag without an expected ratio")
        else:
            vs = ratio / exp
            check(close(num(c["actual / expected"]), vs), label + ": actual / expected recomputed")
            check(c["flag"] == ("yes" if vs > FLAG else "no"), label + ": flag rule (actual/expected > 1.25)")
            tiny = (c["target name"] in ("aten::bmm", "aten::baddbmm") and
                    (tt / tc < 10 or rt / rc < 10))
            q = vs > FLAG and ratio > (5 if tiny else 2)
            check(c["kernel-selection question"] == ("yes" if q else "no"), label + ": kernel-selection rule")
        b = c["bound"]
        tb, rb = c["target bound"], c["reference bound"]
        if tb and rb:
            check(b == ({"MEMORY_BOUND": "memory", "COMPUTE_BOUND": "compute"}[tb] if tb == rb else "mixed"),
                  label + ": bound from both sides")
        if self_cmp:
            check(ratio == 1.0, label + ": self ratio 1.0 (%s)" % c["target name"])
            check(math.isnan(exp) or exp == 1.0, label + ": self expected 1.0")
            check(c["flag"] in ("", "no"), label + ": self comparison has no flag")
    check(len(seen_t) == len(tu) and len(seen_r) == len(ru), label + ": every unified row in the sheet once")
    ttot = sum(num(r["Kernel Time (µs)_sum"]) for r in tu)
    rtot = sum(num(r["Kernel Time (µs)_sum"]) for r in ru)
    cov = (100 * tm / ttot if ttot else float("nan"), 100 * rm / rtot if rtot else float("nan"))
    mc = md_coverage(fair)
    check(mc is not None, label + ": coverage in the fair report")
    if mc:
        check(abs(mc[0] - cov[0]) < 0.006 and abs(mc[1] - cov[1]) < 0.006,
              label + ": coverage md %s == recomputed %s" % (mc, cov))
    # roofline GPUs named in the report: the expected ratios follow data/hardware.json
    gpus = md_roofline_gpus(fair)
    check(gpus is not None, label + ": roofline GPUs named")
    if gpus and gpus[0] != "none" and gpus[1] != "none":
        te, re_ = hw_entry(hw, gpus[0]), hw_entry(hw, gpus[1])
        for c in comp:
            if c["bound"] == "memory":
                # same shapes and dtypes: the HBM ratio; else times the bytes ratio of the two perf models
                tb = num(tmap[skey(c, "target")]["Data Moved (MB)"])
                rb = num(rmap[skey(c, "reference")]["Data Moved (MB)"])
                want = re_["mem_bw_gbps"] / te["mem_bw_gbps"] * (1.0 if tb == rb else tb / rb)
                check(close(num(c["expected ratio"]), want, rel=1e-6),
                      label + ": memory-bound expected = HBM ratio x bytes ratio (%s)" % c["target name"])
    sheets = xlsx_sheets(os.path.join(out, "perf_report.xlsx"))
    check("comparison" in sheets, label + ": xlsx has a 'comparison' worksheet (%s)" % sheets)
    return comp, fair, cov, gpus


# ---------- a generated NVIDIA / AMD pair ----------

def make_trace(path, amd):
    """One step of ops whose names follow each vendor's PyTorch build."""
    ev, corr, ext = [], [100], [1]
    t = [1000.0]
    g = [5000.0]
    PID, TID = 11, 11
    api = "hipLaunchKernel" if amd else "cudaLaunchKernel"

    def X(cat, name, ts, dur, pid=PID, tid=TID, args=None):
        e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": round(ts, 3), "dur": round(dur, 3)}
        if args is not None:
            e["args"] = args
        ev.append(e)
        return e

    def launch(kernel, dur):
        c = corr[0]
        corr[0] += 1
        X("cuda_runtime", api, t[0], 3.0, args={"correlation": c})
        ev.append({"ph": "s", "id": c, "pid": PID, "tid": TID, "ts": round(t[0], 3), "cat": "ac2g", "name": "ac2g"})
        gs = max(g[0] + 2.0, t[0] + 5.0)
        X("kernel", kernel, gs, dur, pid=0, tid=7,
          args={"External id": ext[0] - 1, "device": 0, "stream": 7, "correlation": c, "grid": [64, 1, 1],
                "block": [256, 1, 1]})
        ev.append({"ph": "f", "id": c, "pid": 0, "tid": 7, "ts": round(gs, 3), "cat": "ac2g", "name": "ac2g",
                   "bp": "e"})
        g[0] = gs + dur
        t[0] += 4.0

    def op(name, shapes, body):
        start = t[0]
        t[0] += 1.0
        args = {"External id": ext[0], "Record function id": 0}
        ext[0] += 1
        if shapes is not None:
            args.update({"Input Dims": shapes[0], "Input type": shapes[1], "Input Strides": shapes[2],
                         "Concrete Inputs": shapes[3]})
        e = X("cpu_op", name, start, 0, args=args)
        body()
        t[0] += 1.0
        e["dur"] = round(t[0] - start, 3)

    BF = "c10::BFloat16"
    x, w = [8, 64, 56, 56], [64, 64, 3, 3]
    xs, ws = [200704, 3136, 56, 1], [576, 9, 3, 1]
    q = [4, 16, 1024, 64]
    qs = [1048576, 65536, 64, 1]
    for _ in range(2):
        # convolution: cudnn_convolution(input, weight, padding, stride, dilation, groups, benchmark,
        # deterministic, allow_tf32) vs miopen_convolution(input, weight, bias, padding, stride, dilation,
        # groups, benchmark, deterministic)
        if amd:
            op("aten::miopen_convolution",
               ([x, w, [], [], [], [], [], [], []], [BF, BF, "", "ScalarList", "ScalarList", "ScalarList", "Scalar",
                                                     "Scalar", "Scalar"],
                [xs, ws, [], [], [], [], [], [], []], ["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "1", "False", "True"]),
               lambda: launch("igemm_fwd_gtcx3_nchw_bf16", 150.0))
        else:
            op("aten::cudnn_convolution",
               ([x, w, [], [], [], [], [], []], [BF, BF, "ScalarList", "ScalarList", "ScalarList", "Scalar", "Scalar",
                                                 "Scalar"],
                [xs, ws, [], [], [], [], [], []], ["", "", "[1, 1]", "[1, 1]", "[1, 1]", "1", "False", "True"]),
               lambda: launch("sm90_xmma_fprop_implicit_gemm_bf16_cudnn", 100.0))
        # attention: flash (q, k, v, dropout_p, is_causal, return_debug_mask, scale) vs efficient
        # (q, k, v, attn_bias, compute_log_sumexp, dropout_p, is_causal, scale)
        if amd:
            op("aten::_scaled_dot_product_efficient_attention",
               ([q, q, q, [], [], [], [], []], [BF, BF, BF, "", "Scalar", "Scalar", "Scalar", "Scalar"],
                [qs, qs, qs, [], [], [], [], []], ["", "", "", "", "False", "0.", "False", "0.125"]),
               lambda: launch("attn_fwd", 80.0))
        else:
            op("aten::_scaled_dot_product_flash_attention",
               ([q, q, q, [], [], [], []], [BF, BF, BF, "Scalar", "Scalar", "Scalar", "Scalar"],
                [qs, qs, qs, [], [], [], []], ["", "", "", "0.", "False", "False", "0.125"]),
               lambda: launch("pytorch_flash::flash_fwd_kernel", 40.0))
        # a dtype that differs between the two runs: matched by the dims pass
        op("aten::mul", ([[1024, 1024], [1024, 1024]], ["float" if amd else BF] * 2, [[1024, 1], [1024, 1]],
                         ["", ""]), lambda: launch("elementwise_mul_kernel", 30.0 if amd else 20.0))
        # shapes not recorded on the AMD side: matched by name + count
        op("aten::my_custom_op", None if amd else ([[4096]], ["float"], [[1]], [""]),
           lambda: launch("custom_kernel", 7.0 if amd else 5.0))
        # a launch without an op: one synthetic row on each side
        launch("amd_lonely_kernel" if amd else "nv_lonely_kernel", 11.0 if amd else 9.0)

        # an op that launches two kernels of its own beside a child op: two synthetic rows under one
        # parent, which cannot be paired without kernel names: unmatched on both sides
        def two():
            launch("amd_part_a" if amd else "nv_part_a", 3.0)
            op("aten::zero_", ([[64]], ["float"], [[1]], [""]), lambda: launch("fill_kernel", 2.0))
            launch("amd_part_b" if amd else "nv_part_b", 4.0)
        op("aten::my_fused_op", ([[64], [64]], ["float", "float"], [[1], [1]], ["", ""]), two)
    # one op only on each side
    if amd:
        op("aten::only_on_amd", ([[16]], ["float"], [[1]], [""]), lambda: launch("amd_only_kernel", 6.0))
    else:
        op("aten::only_on_nv", ([[16]], ["float"], [[1]], [""]), lambda: launch("nv_only_kernel", 8.0))
    dev = ({"id": 0, "name": "AMD Instinct MI300X", "totalGlobalMem": 205822885888, "computeMajor": 9,
            "computeMinor": 4, "numSms": 304, "warpSize": 64} if amd else
           {"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85029158912, "computeMajor": 9,
            "computeMinor": 0, "numSms": 132, "warpSize": 32})
    meta = [{"ph": "M", "name": "process_name", "pid": PID, "tid": 0, "args": {"name": "python3"}},
            {"ph": "M", "name": "thread_name", "pid": PID, "tid": TID, "args": {"name": "thread 11 (python3)"}},
            {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "python3"}},
            {"ph": "M", "name": "process_labels", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
            {"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7 "}}]
    doc = {"schemaVersion": 1, "deviceProperties": [dev], "record_shapes": 1, "displayTimeUnit": "ms",
           "traceEvents": meta + ev}
    with gzip.open(path, "wt") as f:
        json.dump(doc, f)


def vendor_pair(exe, tmp, hw):
    nv, amd = os.path.join(tmp, "gen_nv.json.gz"), os.path.join(tmp, "gen_amd.json.gz")
    make_trace(nv, False)
    make_trace(amd, True)
    dn, da, out = os.path.join(tmp, "gen_nv"), os.path.join(tmp, "gen_amd"), os.path.join(tmp, "gen_cmp")
    for tr, d in ((nv, dn), (amd, da)):
        rc, _, err = run(exe, [tr, "-o", d])
        check(rc == 0, "generated trace %s analysed (%s)" % (tr, err[-300:]))
    rc, _, err = run(exe, [amd, "--reference", nv, "-o", out])
    check(rc == 0, "generated pair compared (%s)" % err[-300:])
    if rc:
        return
    comp, fair, cov, gpus = verify("generated AMD vs NV", out, da, dn, hw)
    check(gpus == ("MI300X", "H100 SXM"), "generated: roofline GPUs %s" % (gpus,))
    by = {}
    for c in comp:
        by.setdefault(c["target name"] or c["reference name"], []).append(c)
    exp = {  # target op -> (reference op, pass, target µs, reference µs, name normalised)
        "aten::miopen_convolution": ("aten::cudnn_convolution", "signature", 300.0, 200.0, "yes"),
        "aten::_scaled_dot_product_efficient_attention": ("aten::_scaled_dot_product_flash_attention", "signature",
                                                          160.0, 80.0, "yes"),
        "aten::mul": ("aten::mul", "dims", 60.0, 40.0, "no"),
        "aten::my_custom_op": ("aten::my_custom_op", "name+count", 14.0, 10.0, "no"),
        "aten::zero_": ("aten::zero_", "signature", 4.0, 4.0, "no"),
        "hipLaunchKernel->amd_lonely_kernel (Synthetic Op)": ("cudaLaunchKernel->nv_lonely_kernel (Synthetic Op)",
                                                              "synthetic", 22.0, 18.0, "yes"),
    }
    for t, (r, p, tt, rt, ren) in exp.items():
        rows = by.get(t, [])
        check(len(rows) == 1, "generated: one row for %s" % t)
        if len(rows) != 1:
            continue
        c = rows[0]
        check(c["reference name"] == r and c["match pass"] == p,
              "generated: %s matched to %s by %s (got %s by %s)" % (t, r, p, c["reference name"], c["match pass"]))
        check(close(num(c["target Kernel Time (µs)_sum"]), tt, rel=1e-6) and
              close(num(c["reference Kernel Time (µs)_sum"]), rt, rel=1e-6),
              "generated: %s times %s / %s" % (t, tt, rt))
        check(close(num(c["ratio per call (target/reference)"]), tt / rt, rel=1e-6), "generated: %s ratio" % t)
        check(c["name normalised"] == ren, "generated: %s name normalised %s" % (t, ren))
    unmatched_t = sorted(c["target name"] for c in comp if c["match pass"] == "unmatched (target)")
    unmatched_r = sorted(c["reference name"] for c in comp if c["match pass"] == "unmatched (reference)")
    check(unmatched_t == ["aten::my_fused_op->amd_part_a (Synthetic Op)", "aten::my_fused_op->amd_part_b (Synthetic Op)",
                          "aten::only_on_amd"], "generated: unmatched target rows %s" % unmatched_t)
    check(unmatched_r == ["aten::my_fused_op->nv_part_a (Synthetic Op)", "aten::my_fused_op->nv_part_b (Synthetic Op)",
                          "aten::only_on_nv"], "generated: unmatched reference rows %s" % unmatched_r)
    # by construction: matched 300+160+60+14+4+22 of 560+6+6+8 (parts a and b: 2 x 3 and 2 x 4 µs)
    t_tot, r_tot = 300 + 160 + 60 + 14 + 4 + 22 + 6 + 8 + 6, 200 + 80 + 40 + 10 + 4 + 18 + 6 + 8 + 8
    check(close(cov[0], 100 * 560 / t_tot, rel=1e-6) and close(cov[1], 100 * 352 / r_tot, rel=1e-6),
          "generated: coverage %s == (%.4f, %.4f)" % (cov, 100 * 560 / t_tot, 100 * 352 / r_tot))
    mul = by["aten::mul"][0]
    # float on the target, bf16 on the reference: twice the bytes, so the HBM ratio times 2
    check(mul["bound"] == "memory" and close(num(mul["expected ratio"]), 3350 / 5300 * 2),
          "generated: aten::mul memory-bound, expected 3350/5300 x 2 (%s, %s)" % (mul["bound"], mul["expected ratio"]))
    check(mul["flag"] == "no", "generated: aten::mul not flagged (1.5 / 1.264 = 1.19 <= 1.25)")
    # the reference's aten::zero_ is memory-bound with equal bytes: exactly the HBM ratio, and 1.0 / 0.632 > 1.25
    zero = by["aten::zero_"][0]
    check(zero["bound"] == "memory" and close(num(zero["expected ratio"]), 3350 / 5300) and zero["flag"] == "yes",
          "generated: aten::zero_ expected 3350/5300, flagged (%s, %s)" % (zero["expected ratio"], zero["flag"]))
    rough = open(os.path.join(out, "comparative_analysis_rough.md"), encoding="utf-8").read()
    check("| synthetic | 1 | 22.000 | 18.000 |" in rough, "generated: rough report lists the synthetic pass")
    check("| name+count | 1 | 14.000 | 10.000 |" in rough, "generated: rough report lists the name+count pass")


def self_compare(exe, trace, tmp, hw, label, same_vendor_pairs=False):
    out = os.path.join(tmp, "self_" + label)
    rc, _, err = run(exe, [trace, "--reference", trace, "-o", out])
    check(rc == 0, label + ": self comparison runs (%s)" % err[-300:])
    if rc:
        return
    comp, fair, cov, _ = verify(label + " self", out, out, out, hw, self_cmp=True)
    check(close(cov[0], 100.0) and close(cov[1], 100.0), label + ": self coverage 100 %% (%s)" % (cov,))
    check(md_coverage(fair) == (100.0, 100.0), label + ": md coverage 100.00 %")
    if same_vendor_pairs:
        # several synthetic rows under one parent: told apart by kernel name within one vendor (pass 5)
        sv = [c for c in comp if c["match pass"] == "kernel (same vendor)"]
        check(len(sv) > 0 and all(c["target name"] == c["reference name"] for c in sv),
              label + ": synthetic rows matched by kernel name within one vendor (%d)" % len(sv))
        check(all(c["match pass"] in ("signature", "kernel (same vendor)", "synthetic") for c in comp),
              label + ": self pairs by signature, synthetic or kernel")
    else:
        check(all(c["match pass"] == "signature" for c in comp), label + ": self pairs all by signature")
    check("| Flagged pairs (per-call ratio > 1.25 × expected) | 0 (0.000 ms of target time)" in fair,
          label + ": no flagged pairs in the fair report")


def bad_usage(exe, example, tmp):
    out = os.path.join(tmp, "bad")
    missing = os.path.join(tmp, "no_such_reference.json.gz")
    rc, _, err = run(exe, [example, "--reference", missing, "-o", out])
    check(rc == 1, "missing reference: exit 1 (got %d)" % rc)
    check(missing in err, "missing reference: stderr names the file (%s)" % err.strip()[:200])
    for n in ("comparative_analysis_fair.md", "comparative_analysis_rough.md"):
        check(not os.path.exists(os.path.join(out, n)), "missing reference: no %s left" % n)


PAIRS = ["bert_small_infer", "nsfw_vit_infer", "qwen15_05b_infer", "timesformer_infer"]


def policy_sheets(out, entry):
    """TraceLens' own sheet columns keep TraceLens' peaks (MI300X: max-achievable 708 bf16); jarvis' category data
    (its own judgment) uses the policy's datasheet 1307.4."""
    uni = [u for u in read_csv(os.path.join(out, "perf_report_csvs", "unified_perf_summary.csv"))
           if u["Compute Spec"] == "matrix_bf16" and u["Roofline Bound"] == "COMPUTE_BOUND"]
    check(len(uni) > 0, "MI300X: compute-bound bf16 rows in unified_perf_summary")
    for u in uni:
        check(close(num(u["Roofline Time (µs)_first"]), num(u["GFLOPS"]) / entry["max_achievable_tflops"]["matrix_bf16"]
                    * 1e3, rel=1e-9),
              "MI300X sheet %s: Roofline Time = GFLOPS / 708 (TraceLens' column)" % u["name"])
    cat = [r for r in read_csv(os.path.join(out, "category_data", "gemm_ops.csv"))
           if r["Compute Spec"] == "matrix_bf16" and r["Roofline Bound"] == "COMPUTE_BOUND"]
    check(len(cat) > 0, "MI300X: compute-bound bf16 rows in gemm_ops.csv")
    for r in cat:
        check(close(num(r["Roofline Time (µs)_first"]), num(r["GFLOPS"]) / entry["peak_tflops"]["matrix_bf16"] * 1e3,
                    rel=1e-9),
              "MI300X gemm_ops %s: Roofline Time = GFLOPS / 1307.4 (the policy's datasheet peak)" % r["name"])


def measured_policy(exe, traces, tmp):
    """--gpu-arch FILE with max_achievable_tflops: measured peaks, said so; the same file on both sides."""
    arch = os.path.join(tmp, "measured_arch.json")
    with open(arch, "w") as f:
        json.dump({"name": "Measured GPU", "mem_bw_gbps": 4000, "memory_gb": 192,
                   "peak_tflops": {"matrix_bf16": 1000}, "max_achievable_tflops": {"matrix_bf16": 600}}, f)
    out = os.path.join(tmp, "measured")
    rc, _, err = run(exe, [os.path.join(traces, "amd_mi300xvf_qwen15_05b_infer.json.gz"), "--reference",
                           os.path.join(traces, "nv_h100_qwen15_05b_infer.json.gz"), "-o", out, "--gpu-arch", arch])
    check(rc == 0, "measured: analysed (%s)" % err[-300:])
    if rc:
        return
    fair = open(os.path.join(out, "comparative_analysis_fair.md"), encoding="utf-8").read()
    check("\nPeak policy: measured/max-achievable peaks on both sides as given by --gpu-arch " in fair,
          "measured: the fair report says measured peaks on both sides, from the file")
    std = open(os.path.join(out, "standalone_analysis_fair.md"), encoding="utf-8").read()
    check("\nPeak policy: measured/max-achievable peaks on the target side as given by --gpu-arch " in std,
          "measured: the standalone report says measured peaks on the target side")
    cat = [r for r in read_csv(os.path.join(out, "category_data", "gemm_ops.csv"))
           if r["Compute Spec"] == "matrix_bf16" and r["Roofline Bound"] == "COMPUTE_BOUND"]
    check(len(cat) > 0 and all(close(num(r["Roofline Time (µs)_first"]), num(r["GFLOPS"]) / 600 * 1e3, rel=1e-9)
                               for r in cat),
          "measured: gemm_ops Roofline Time = GFLOPS / 600 (the file's max-achievable peak)")
    html = open(os.path.join(out, "report.html"), encoding="utf-8").read()
    check("<dt>Peak policy</dt><dd class=\"policy\">measured/max-achievable peaks on both sides" in html,
          "measured: report.html states the policy in its header")


def fixtures(exe, traces, tmp, hw):
    plain = {}
    for m in PAIRS:
        for pre in ("nv_h100_", "amd_mi300xvf_"):
            n = pre + m
            d = os.path.join(tmp, n)
            rc, _, err = run(exe, [os.path.join(traces, n + ".json.gz"), "-o", d])
            check(rc == 0, "%s analysed (%s)" % (n, err[-300:]))
            plain[n] = d
    seen_mem = seen_comp = 0
    for m in PAIRS:
        for t, r in (("amd_mi300xvf_", "nv_h100_"), ("nv_h100_", "amd_mi300xvf_")):
            tn, rn = t + m, r + m
            out = os.path.join(tmp, "cmp_%s_vs_%s" % (tn, rn))
            rc, _, err = run(exe, [os.path.join(traces, tn + ".json.gz"), "--reference",
                                   os.path.join(traces, rn + ".json.gz"), "-o", out])
            check(rc == 0, "%s vs %s (%s)" % (tn, rn, err[-300:]))
            if rc:
                continue
            comp, fair, cov, gpus = verify("%s vs %s" % (tn, rn), out, plain[tn], plain[rn], hw)
            check(not any(c["match pass"] == "kernel (same vendor)" for c in comp),
                  "%s vs %s: no kernel-name matching across vendors" % (tn, rn))
            print("%s vs %s: coverage %.2f %% / %.2f %%, %d pairs, %d flagged" %
                  (tn, rn, cov[0], cov[1], sum(1 for c in comp if not c["match pass"].startswith("unmatched")),
                   sum(1 for c in comp if c["flag"] == "yes")))
            check(cov[0] >= 80 and cov[1] >= 80, "%s vs %s: coverage >= 80 %% each side (%s)" % (tn, rn, cov))
            exp_gpus = ("MI300X", "H100 SXM") if t.startswith("amd") else ("H100 SXM", "MI300X")
            check(gpus == exp_gpus, "%s: roofline GPUs %s" % (tn, gpus))
            te, re_ = hw_entry(hw, gpus[0]), hw_entry(hw, gpus[1])
            for c in comp:
                if c["bound"] == "compute" and c["match pass"] == "signature":
                    # the spec of a row is in the target's GEMM sheet via Compute Spec of unified rows
                    tu = {ukey(u): u for u in read_csv(os.path.join(plain[tn], "perf_report_csvs",
                                                                    "unified_perf_summary.csv"))}
                    spec = tu[skey(c, "target")]["Compute Spec"]
                    want = policy_peaks(re_)[spec] / policy_peaks(te)[spec]
                    check(close(num(c["expected ratio"]), want),
                          "%s: compute-bound %s expected = %s datasheet peak ratio %.6f, one source on both sides "
                          "(got %s)" % (tn, c["target name"], spec, want, c["expected ratio"]))
                    seen_comp += 1
                if c["bound"] == "memory":
                    seen_mem += 1
            if m == "bert_small_infer" and t.startswith("amd"):
                # hand-computed from the two traces' unified rows: the SDPA pair
                sd = [c for c in comp if c["target name"] == "aten::_scaled_dot_product_flash_attention"]
                check(len(sd) == 1 and close(num(sd[0]["ratio per call (target/reference)"]), 113.656 / 37.408,
                                             rel=1e-4),
                      "bert: SDPA ratio 113.656 / 37.408")
                check(len(sd) == 1 and sd[0]["flag"] == "yes" and sd[0]["kernel-selection question"] == "yes",
                      "bert: SDPA flagged as a kernel-selection question")
                ln = [c for c in comp if c["target name"] == "aten::layer_norm"]
                check(len(ln) == 1 and ln[0]["bound"] == "memory" and
                      close(num(ln[0]["expected ratio"]), 3350 / 5300),
                      "bert: layer_norm memory-bound, expected = HBM 3350 / 5300")
            check(fair.count("\nPeak policy: datasheet peaks on both sides (target %s: " % gpus[0]) == 1,
                  "%s vs %s: the fair report states the peak policy once, datasheet on both sides" % (tn, rn))
            if m == "qwen15_05b_infer" and t.startswith("amd"):
                # one policy: H100's datasheet 989.4 over MI300X's datasheet 1307.4, never over the max-achievable 708
                mm = [c for c in comp if c["target name"] == "aten::mm" and c["bound"] == "compute"]
                check(len(mm) >= 1 and all(close(num(c["expected ratio"]), 989.4 / 1307.4) for c in mm),
                      "qwen: aten::mm compute-bound, expected = matrix_bf16 989.4 / 1307.4 (%s)" %
                      [c["expected ratio"] for c in mm])
                policy_sheets(plain[tn], hw_entry(hw, "MI300X"))
            if m == "timesformer_infer" and t.startswith("amd"):
                # the three large addmm pairs, 1.45-1.66x slower on MI300X: flagged under one policy (the
                # mixed 989.4 / 708 = 1.397 hid them)
                am = [c for c in comp if c["target name"] == "aten::addmm" and c["bound"] == "compute" and
                      num(c["ratio per call (target/reference)"]) > 1.4]
                check(len(am) >= 3 and all(c["flag"] == "yes" for c in am),
                      "timesformer: the addmm pairs 1.5-1.6x slower are flagged (%s)" %
                      [(c["ratio per call (target/reference)"], c["expected ratio"], c["flag"]) for c in am])
    check(seen_mem > 0 and seen_comp > 0, "fixtures: memory-bound and compute-bound pairs checked (%d, %d)" %
          (seen_mem, seen_comp))
    measured_policy(exe, traces, tmp)
    self_compare(exe, os.path.join(traces, "nv_h100_qwen15_05b_infer.json.gz"), tmp, hw, "qwen")
    self_compare(exe, os.path.join(traces, "amd_mi300x_sglang_qwen3_8b_decode.json.gz"), tmp, hw, "sglang",
                 same_vendor_pairs=True)


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    exe, example, shared = sys.argv[1:4]
    optional_module("markdown_it", md_check.NEEDS)
    hw = json.load(open(os.path.join(HERE, "..", "..", "data", "hardware.json"), encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="jv_cmp_") as tmp:
        self_compare(exe, example, tmp, hw, "example")
        vendor_pair(exe, tmp, hw)
        bad_usage(exe, example, tmp)
        traces = os.path.join(shared, "traces")
        if os.path.isdir(traces):
            fixtures(exe, traces, tmp, hw)
        else:
            skip_part("fixture part: %s/traces absent" % shared)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
