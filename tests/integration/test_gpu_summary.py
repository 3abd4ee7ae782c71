#!/usr/bin/env python3
"""bench/gpu_summary.py and the pure parts of bench/torch_replay.py, without torch or a GPU.

- torch_replay.py against a stub `torch` module whose ops (torch.ops.aten.<op>.<overload>._schema) are built
  from the ATen schemas of the op families (kernels/*/*_schema.c): schema parsing, overload choice (add_.Tensor vs add.Scalar,
  mm vs mm.out, ...), argument mapping (tensor specs, scalars, lists, ScalarType codes, inf), skip reasons;
  every entry of the bundled example's package and of H100 fixture packages maps to an aten call (fixtures
  skipped without SHARED_DIR/traces).
- gpu_summary.py on a real jarvis-replay JSON (CPU backend, bundled example package) with hand-written torch
  JSON, jarvis --peak JSON and nvidia-smi -q text: the ratios in summary.md recomputed from the inputs, the
  PASS/FAIL targets at and just below their boundaries, the fidelity count at the 15 % boundary, missing and
  corrupt inputs (logged, exit 0), a missing results directory (exit 1), valid markdown (tests/md_check.py;
  skipped without markdown-it: exit 77 unless another check fails).
Usage: test_gpu_summary.py JARVIS_ANALYZE JARVIS_REPLAY EXAMPLE_TRACE [SHARED_DIR]   (77: cannot run)
"""
import copy
import importlib.util
import json
import math
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: jvcheck, md_check
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # torch_stub
import md_check  # noqa: E402
from jvcheck import check, finish, optional_module  # noqa: E402
from torch_stub import Clock, fake_torch, jv_ir_schemas, load, stub_torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def test_measuring(tr, schemas, pkg, tmp):
    """torch_replay.py's measuring code (timing loops, graph, flush, hook, JSON) on a fake torch"""
    calls = []
    ft = fake_torch(schemas, calls)
    sys.modules["torch"] = ft
    try:
        out = os.path.join(tmp, "torch-fake.json")
        rc = tr.main(["--package", pkg, "--out", out, "--time-limit", "0.05"])
        doc = json.load(open(out)) if os.path.exists(out) else {}
        ops = doc.get("ops", [])
        check(rc == 0 and len(ops) == len(tr.load_ir(pkg)), f"fake torch: exit {rc}, {len(ops)} ops")
        check(all(o["status"] == "ok" for o in ops), f"fake torch: every op ok: {[o['status'] for o in ops]}")
        check(all(o.get("aten", "").count("::") == 1 for o in ops), f"one namespace: {[o.get('aten') for o in ops]}")
        check(all(o["hot_us"] and o["cold_us"] and abs(o["hot_us"] - 5.0) < 1e-6 and abs(o["cold_us"] - 5.0) < 1e-6
                  for o in ops),
              f"fake torch: hot and cold medians are the 5 us per call: {[(o['hot_us'], o['cold_us']) for o in ops]}")
        check(all(o.get("graph_us") is not None and abs(o["graph_us"] - 4.0) < 1e-6 for o in ops),
              f"fake torch: graph figure per run of the captured graph: {[o.get('graph_us') for o in ops]}")
        check(all(o.get("hot", {}).get("runs_per_sample") == 20 for o in ops),
              "hot samples batch runs to >= 100 us (20 x 5 us)")
        check(all(o.get("hot", {}).get("samples", 0) >= 10 for o in ops), "at least 10 samples when the spread is 0")
        ncold = sum(o.get("cold", {}).get("samples", 0) for o in ops)
        check(ncold > 0 and len(Clock.flushes) == ncold and set(Clock.flushes) == {2 * (50 << 20)},
              f"one flush of a 2x L2 buffer before every cold sample: {len(Clock.flushes)} flushes, {ncold} samples")
        check(any(n == "cudnn_batch_norm.default" for n, _, _ in calls), "the cudnn BN backward hook ran a forward")
        bnb = [a for n, a, _ in calls if n == "cudnn_batch_norm_backward.default"]
        check(bnb and all(x is not None for x in bnb[0]), "cudnn_batch_norm_backward got a reserve space")
        adds = [(a, k) for n, a, k in calls if n == "add_.Tensor"]
        check(adds and len(adds[0][0]) == 2 and adds[0][1] == {"alpha": 1}, f"add_.Tensor called as (self, other, alpha=1): {adds[:1]}")
        ex = {o["index"]: o for o in ops}
        check(all(ex[i].get("traced_us") and ex[i].get("family") for i in ex), "traced_us and family from the jarvis keys")
        check(doc.get("context", {}).get("device_name") == "Fake H100" and doc["context"].get("l2_cache_bytes") == 50 << 20,
              "context: device name and L2")
        out = os.path.join(tmp, "torch-peak-fake.json")
        rc = tr.main(["--peak", "--out", out, "--time-limit", "0.02", "--gemm", "256"])
        doc = json.load(open(out)) if os.path.exists(out) else {}
        pk = {r.get("kind"): r for r in doc.get("peak", [])}
        check(rc == 0 and set(pk) == {"copy", "scale", "add", "triad", "dot", "matmul"}, f"fake peak: {sorted(map(str, pk))}")
        n = (1 << 30) // 4
        close = lambda a, b: abs(a / b - 1) < 1e-6  # noqa: E731
        check(close(pk["copy"]["bytes_per_second"], 2 * n * 4 / 5e-6) and
              close(pk["triad"]["bytes_per_second"], 3 * n * 4 / 5e-6) and
              close(pk["matmul"]["flops_per_second"], 2 * 256 ** 3 / 5e-6),
              "peak: copy counts read + write, triad 3 arrays, matmul 2 n^3")
        # --duty: the same gap rule as jarvis-replay's jv_duty_gap, waited after each sample
        check(tr.duty_gap(1e-3, 0.5) == 1e-3 and abs(tr.duty_gap(1e-3, 0.25) - 3e-3) < 1e-12 and
              tr.duty_gap(1.0, 0.5) == tr.DUTY_MAX_GAP_S and tr.duty_gap(1e-3, 1.0) == 0.0, "duty_gap")
        slept = []
        real_sleep = tr.time.sleep
        tr.time.sleep = lambda s: slept.append(s)
        try:
            rc = tr.main(["--peak", "--out", out, "--time-limit", "0.02", "--gemm", "256", "--duty", "0.5"])
        finally:
            tr.time.sleep = real_sleep
        doc = json.load(open(out)) if os.path.exists(out) else {}
        check(rc == 0 and doc.get("context", {}).get("duty") == 0.5, "--duty 0.5 in the context")
        check(len(slept) >= 6 and all(g > 0 for g in slept),
              f"--duty 0.5: an idle gap after every sample ({len(slept)})")
    finally:
        del sys.modules["torch"]


# ---------------------------------------------------------------------------------------------------------


def T(shape, dtype="c10::BFloat16", strides=None, init="normal"):
    v = {"shape": shape, "dtype": dtype, "init": init}
    if strides is not None:
        v["strides"] = strides
    return v


def A(name, ty, value):
    return {"arg_name": name, "arg_type": ty, "value": value}


def E(op, pos, kw=(), jarvis=None):
    e = {"op_name": op, "replay_ir": {"list_pos_args": list(pos), "list_kwargs": list(kw)}}
    if jarvis is not None:
        e["jarvis"] = jarvis
    return e


def plan_or_reason(tr, torch, e):
    try:
        return tr.plan_entry(e, torch), None
    except ValueError as ex:
        return None, str(ex)


def test_torch_replay(tr, torch, pkgs):
    # schema parsing
    p = tr.parse_schema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
    check(p["name"] == "aten::add" and p["overload"] == "Tensor", f"parse_schema name/overload: {p['name']} {p['overload']}")
    check([a["name"] for a in p["args"]] == ["self", "other", "alpha"], "parse_schema arg names")
    check(p["args"][2]["kwarg_only"] and p["args"][2]["has_default"] and p["args"][2]["kind"] == "scalar",
          "parse_schema: alpha is a keyword-only Scalar with a default")
    p = tr.parse_schema('conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, '
                        'str padding="valid", SymInt[2] dilation=1, SymInt groups=1) -> Tensor')
    check(p["overload"] == "padding" and [a["kind"] for a in p["args"]] ==
          ["tensor", "tensor", "tensor", "intlist", "str", "intlist", "int"], f"parse_schema kinds: {p}")
    check(p["args"][4]["default"] == '"valid"', "parse_schema: a quoted default")
    check(tr.type_kind("Tensor(a!)") == ("tensor", False) and tr.type_kind("SymInt[]?") == ("intlist", True) and
          tr.type_kind("bool[3]") == ("boollist", False) and tr.type_kind("Tensor?[]") == ("tensorlist", False),
          "type_kind of alias, optional list, fixed list, list of optionals")
    sch = jv_ir_schemas()
    check(len(sch) > 100, f"{len(sch)} schemas read from kernels/*/*_schema.c")
    bad = [s for s in sch if not _parses(tr, s)]
    check(not bad, f"every family schema parses: {bad[:3]}")

    # overload choice and argument mapping
    x = T([8, 16])
    e = E("aten::add_", [A("self", "Tensor(a!)", x), A("other", "Tensor", T([8, 16])), A("alpha", "Scalar", 1)])
    pl, why = plan_or_reason(tr, torch, e)
    check(pl and pl["overload"] == "Tensor", f"add_ with a tensor other -> add_.Tensor: {pl and pl['overload']} {why}")
    check(pl and [a[0] for a in pl["args"]] == ["self", "other", "alpha"] and pl["args"][2][3] is True,
          "add_.Tensor: alpha goes by keyword")
    e = E("aten::add", [A("self", "Tensor", x), A("other", "Scalar", 2.5), A("alpha", "Scalar", 1)])
    pl, why = plan_or_reason(tr, torch, e)
    check(pl and pl["overload"] == "Scalar", f"add with a Scalar other -> add.Scalar: {pl and pl['overload']} {why}")
    check(pl and pl["args"][1][2] == {"value": 2.5}, "add.Scalar: the scalar value")
    e = E("aten::mm", [A("self", "Tensor", T([4, 8])), A("mat2", "Tensor", T([8, 2]))])
    pl, _ = plan_or_reason(tr, torch, e)
    check(pl and pl["overload"] == "default" and pl["schema"] == "aten::mm", f"mm -> default: {pl}")
    e = E("aten::mm", [A("self", "Tensor", T([4, 8])), A("mat2", "Tensor", T([8, 2]))],
          [A("out", "Tensor(a!)", T([4, 2], init=None))])
    pl, _ = plan_or_reason(tr, torch, e)
    check(pl and pl["overload"] == "out" and pl["args"][2][0] == "out" and pl["args"][2][3],
          f"mm with out= -> mm.out, out by keyword: {pl and pl['overload']}")
    e = E("aten::div", [A("self", "Tensor", x), A("other", "Tensor", x)])
    pl, why = plan_or_reason(tr, torch, e)
    check(pl and pl["overload"] == "Tensor", f"div with two tensors -> div.Tensor, not Tensor_mode: {pl and pl['overload']}")
    e = E("aten::div", [A("self", "Tensor", x), A("other", "Tensor", x)], [A("rounding_mode", "str?", "floor")])
    pl, why = plan_or_reason(tr, torch, e)
    check(pl and pl["overload"] == "Tensor_mode" and pl["args"][2] == ("rounding_mode", "str", {"value": "floor"}, True),
          f"div with rounding_mode -> div.Tensor_mode: {pl and pl['overload']} {why}")
    syn = {"a": "aten::foo.a(Tensor self, Scalar other) -> Tensor",
           "b": "aten::foo.b(Tensor self, Scalar alpha) -> Tensor",
           "c": "aten::foo.c(Tensor self, Scalar alpha, Scalar beta=1) -> Tensor"}
    ov, _, how = tr.choose_overload([("self", "Tensor", x, False), ("alpha", "Scalar", 2, False)], syn)
    check(ov == "b" and how == "matched", f"argument names decide between overloads of the same types: {ov}")
    ov, _, how = tr.choose_overload([("self", "Tensor", x, False), ("x", "Tensor", x, False)], syn)
    check(ov is None and how == "no overload", f"nothing fits and no default overload: {ov} {how}")
    e = E("aten::to", [A("self", "Tensor(a)", x), A("dtype", "ScalarType", 6), A("non_blocking", "bool", False),
                       A("copy", "bool", False), A("memory_format", "MemoryFormat?", None)])
    pl, why = plan_or_reason(tr, torch, e)
    check(pl and pl["overload"] == "dtype" and pl["args"][1][2] == {"dtype": "float32"},
          f"to with a ScalarType -> to.dtype, code 6 float32: {pl and pl['overload']} {why}")
    e = E("aten::_to_copy", [A("self", "Tensor", T([4], "float"))],
          [A("dtype", "ScalarType?", 15), A("layout", "Layout?", 0), A("device", "Device?", "cuda:0"),
           A("pin_memory", "bool?", False), A("non_blocking", "bool", False), A("memory_format", "MemoryFormat?", 1)])
    pl, why = plan_or_reason(tr, torch, e)
    got = {a[0]: a[2] for a in pl["args"]} if pl else {}
    check(got.get("dtype") == {"dtype": "bfloat16"} and got.get("layout") == {"layout": "strided"} and
          got.get("device") == {"device": True} and got.get("memory_format") == {"memfmt": "preserve_format"},
          f"_to_copy: ScalarType code 15, Layout 0, Device, MemoryFormat 1 mapped: {got} {why}")
    e = E("aten::clamp_min_", [A("self", "Tensor(a!)", T([4])), A("min", "Scalar", "-inf")])
    pl, why = plan_or_reason(tr, torch, e)
    check(pl and pl["args"][1][2]["value"] == -math.inf, f"a Scalar '-inf' becomes float -inf: {why}")
    e = E("aten::native_batch_norm",
          [A("input", "Tensor", T([2, 3, 4, 4])), A("weight", "Tensor?", T([3], "float")),
           A("bias", "Tensor?", None), A("running_mean", "Tensor?", T([3], "float")),
           A("running_var", "Tensor?", T([3], "float")), A("training", "bool", False),
           A("momentum", "float", 0.1), A("eps", "float", "1e-05" and 1e-05)])
    pl, why = plan_or_reason(tr, torch, e)
    specs = {a[0]: a[2] for a in pl["args"]} if pl else {}
    check(pl and specs["running_var"]["tensor"]["positive"] and not specs["running_mean"]["tensor"]["positive"]
          and specs["bias"] is None and specs["training"] == {"value": False},
          f"native_batch_norm: running_var positive, running_mean not, bias None, training False: {why}")
    check(pl and specs["input"]["tensor"]["strides"] == [48, 16, 4, 1] and specs["input"]["tensor"]["dtype"] == "bfloat16",
          "dense strides filled in when the IR has none; c10::BFloat16 -> bfloat16")
    cl = tr.tensor_spec(T([2, 3, 4, 4], strides=[48, 1, 12, 3]), "x", "add")
    check(cl["storage_elems"] == 96 and cl["bytes"] == 192 and tr.layout_tag(cl) == "cl",
          f"channels-last spec: storage {cl['storage_elems']} elements, {cl['bytes']} bytes, tag {tr.layout_tag(cl)}")
    bc = tr.tensor_spec(T([4, 8], "float", strides=[0, 1]), "x", "add")
    check(bc["storage_elems"] == 8 and tr.layout_tag(bc) == "b", "a broadcast (stride 0) spec: 8 elements of storage")
    check(tr.tensor_spec(T([5], "float"), "x", "rsqrt")["positive"], "rsqrt's input is positive")
    pl, why = plan_or_reason(tr, torch, E("aten::no_such_op", [A("self", "Tensor", x)]))
    check(pl is None and "torch has no aten::no_such_op" in (why or ""), f"an op torch lacks is skipped: {why}")
    pl, why = plan_or_reason(tr, torch, E("aten::mm", [A("self", "Tensor", T([4, 8], "weird"))]))
    check(pl is None and "unknown dtype" in (why or ""), f"an unknown dtype is a skip reason: {why}")
    pl, why = plan_or_reason(tr, torch, E("aten::addmm", [A("self", "Tensor", x)], [A("beta", "Scalar", None)]))
    check(pl is not None and pl["how"] == "fallback" or pl is None, "a partial entry falls back or skips, no crash")
    check(tr.split_op_name("aten::add.Tensor") == ("aten", "add", "Tensor") and
          tr.split_op_name("mm") == ("aten", "mm", None), "split_op_name")
    check(tr.family_of(E("aten::addmm", [])) == "gemm" and tr.family_of(E("aten::cudnn_convolution", [])) == "conv" and
          tr.family_of(E("aten::x", [], jarvis={"family": "binary"})) == "binary", "family_of: jarvis key, else op name")

    # every op of the packages maps to an aten call
    # (the example's aten::copy_ is a pinned HtoD memcpy: bound by the host link, not in the package)
    expected = {"aten::addmm": "default", "aten::add_": "Tensor",
                "aten::convolution": "default", "aten::convolution_backward": "default",
                "aten::threshold_backward": "default", "aten::batch_norm": "default",
                "aten::cudnn_batch_norm_backward": "default", "aten::clamp_min_": "default"}
    for name, path in pkgs:
        try:
            entries = tr.load_ir(path)
        except (OSError, ValueError) as ex:
            check(False, f"{name}: load_ir: {ex}")
            continue
        check(len(entries) > 0, f"{name}: package has entries")
        for i, e in enumerate(entries):
            pl, why = plan_or_reason(tr, torch, e)
            check(pl is not None, f"{name} entry {i} {e.get('op_name')}: maps to an aten call ({why})")
            if not pl:
                continue
            check(pl["how"] in ("matched", "named"), f"{name} entry {i} {e['op_name']}: overload matched, not a fallback")
            if name == "example" and e["op_name"] in expected:
                check(pl["overload"] == expected[e["op_name"]],
                      f"example {e['op_name']}: overload {pl['overload']}, expected {expected[e['op_name']]}")
            # every IR argument is passed on, tensors with the traced shape, strides and dtype
            irargs = tr.entry_args(e)
            check(len(pl["args"]) + len(pl["defaulted"]) == len(irargs),
                  f"{name} entry {i}: {len(pl['args'])} + {len(pl['defaulted'])} defaulted of {len(irargs)} arguments")
            check(all(v is None for a, _, v, _ in irargs if a in pl["defaulted"]),
                  f"{name} entry {i}: only unrecorded arguments are left to their defaults")
            mapped = [a for a in irargs if a[0] not in pl["defaulted"]]
            for (aname, _, value, _), (sname, kind, spec, _) in zip(mapped, pl["args"]):
                if isinstance(value, dict) and "shape" in value:
                    t = (spec or {}).get("tensor")
                    ok = t and t["shape"] == value["shape"] and (value.get("strides") is None or
                                                                 t["strides"] == value["strides"]) and t["dtype"]
                    check(ok, f"{name} entry {i} {aname}: tensor spec keeps shape/strides/dtype")
            check(tr.shape_label(pl).startswith(e["op_name"]), f"{name} entry {i}: shape label")
        if name == "example":
            names = {e["op_name"] for e in entries}
            check(set(expected) <= names, f"example package holds the expected ops: missing {set(expected) - names}")
            tb = [tr.plan_entry(e, torch) for e in entries if e["op_name"] == "aten::threshold_backward"]
            check(tb and tb[0]["assumed"] == ["threshold=0"] and ("threshold", "scalar", {"value": 0}, False) in tb[0]["args"],
                  f"threshold_backward: the unrecorded threshold is assumed 0, as jarvis does: {tb and tb[0]['assumed']}")
            bnb = [tr.plan_entry(e, torch) for e in entries if e["op_name"] == "aten::cudnn_batch_norm_backward"]
            check(bnb and any(a[0] == "reserveSpace" and a[2] == {"missing": "reserveSpace"} for a in bnb[0]["args"]),
                  "cudnn_batch_norm_backward: the unrecorded reserve is left to the hook")


def _parses(tr, s):
    try:
        tr.parse_schema(s)
        return True
    except ValueError:
        return False


# ---------------------------------------------------------------------------------------------------------
# gpu_summary


def gb(name, real, **counters):
    e = {"name": name, "run_type": "iteration", "iterations": 10, "real_time": real, "cpu_time": real,
         "time_unit": "us"}
    e.update(counters)
    return e


def peak_doc(triad_bps, gemm_fps):
    ctx = {"device_name": "NVIDIA H100 80GB HBM3", "driver": "580.95", "datasheet": "H100 SXM",
           "last_level_cache_bytes": 52428800, "backend": "cuda", "jarvis_version": "0.1.0"}
    n = 268435456
    b = []
    for k, bps in (("copy", 2.9e12), ("scale", 2.8e12), ("add", 3.0e12), ("triad", triad_bps), ("dot", 3.1e12)):
        b.append(gb(f"baseline/{k}/fp32/{n}", 1000.0, bytes_per_second=bps, verified=1))
    b.append(gb("baseline/gemm/bf16/8192", 1400.0, items_per_second=gemm_fps, verified=1))
    return {"context": ctx, "benchmarks": b}


def torch_peak_doc(copy_bps, triad_bps, mm8192, mm4096):
    p = [{"name": "torch/copy/fp32/268435456", "kind": "copy", "n": 268435456, "status": "ok", "hot_us": 700.0,
          "bytes_per_second": copy_bps},
         {"name": "torch/triad/fp32/268435456", "kind": "triad", "n": 268435456, "status": "ok", "hot_us": 1000.0,
          "bytes_per_second": triad_bps},
         {"name": "torch/matmul/bf16/8192", "kind": "matmul", "n": 8192, "dtype": "bf16", "status": "ok",
          "flops_per_second": mm8192},
         {"name": "torch/matmul/bf16/4096", "kind": "matmul", "n": 4096, "dtype": "bf16", "status": "ok",
          "flops_per_second": mm4096}]
    return {"context": {"device_name": "NVIDIA H100 80GB HBM3", "torch": "2.11.0+cu130", "cuda": "13.0",
                        "cudnn": 91000, "l2_cache_bytes": 52428800, "sm_clock_mhz": 1755.0,
                        "max_sm_clock_mhz": 1980.0, "mem_clock_mhz": 2619.0}, "peak": p}


SMI = """==============NVSMI LOG==============

Driver Version                            : 580.95.05
CUDA Version                              : 13.0

Attached GPUs                             : 1
GPU 00000000:18:00.0
    Product Name                          : NVIDIA H100 80GB HBM3
    Clocks
        Graphics                          : 1980 MHz
        SM                                : 1980 MHz
        Memory                            : 2619 MHz
    Max Clocks
        Graphics                          : 1980 MHz
        SM                                : 1980 MHz
        Memory                            : 2619 MHz
"""


def write(path, doc):
    with open(path, "w", encoding="utf-8") as f:
        if isinstance(doc, str):
            f.write(doc)
        else:
            json.dump(doc, f)


def summary(gs, d):
    out = os.path.join(d, "summary.md")
    if os.path.exists(out):
        os.remove(out)
    p = subprocess.run([sys.executable, gs, "--results", d, "--out", out], capture_output=True, text=True)
    text = open(out, encoding="utf-8").read() if os.path.exists(out) else ""
    return p, text


def rows_of(text, header_start):
    """rows (lists of cells) of the first table whose header row starts with header_start"""
    lines = text.splitlines()
    for i, l in enumerate(lines):
        if l.startswith(header_start):
            head = [c.strip() for c in l.strip().strip("|").split("|")]
            rows = []
            for r in lines[i + 2:]:
                if not r.startswith("|"):
                    break
                cells = [c.strip() for c in re.split(r"(?<!\\)\|", r.strip())[1:-1]]
                rows.append(dict(zip(head, cells)))
            return rows
    return []


def target_result(text, prefix):
    for r in rows_of(text, "| target |"):
        if r["target"].startswith(prefix):
            return r["result"]
    return None


def f2(v, d=2):
    return f"{v:.{d}f}"


def test_figures(gsm):
    o = {"hot": {"real_time": 12.0, "graph_us": 3.0}, "cold": {"real_time": 20.0}}
    check(gsm.verdict_figure(o) == ("cold", 20.0), f"no judged field: cold ({gsm.verdict_figure(o)})")
    o2 = copy.deepcopy(o)
    o2["hot"]["efficiency_datasheet"] = 0.5
    check(gsm.verdict_figure(o2) == ("hot", 12.0), "older jarvis: the entry with efficiency_datasheet")
    o3 = copy.deepcopy(o)
    o3["hot"].update({"judged_figure": "graph", "judged_us": 3.0})
    check(gsm.verdict_figure(o3) == ("graph", 3.0), f"judged_figure graph: {gsm.verdict_figure(o3)}")
    o4 = copy.deepcopy(o)
    o4["cold"].update({"judged_figure": "cold, launch gap removed", "judged_us": 11.0})
    check(gsm.verdict_figure(o4) == ("cold, launch gap removed", 11.0), "judged_figure cold less the launch gap")
    t = {"hot_us": 10.0, "cold_us": 18.0, "graph_us": 4.0}
    check(gsm.torch_figure(t, "cold, launch gap removed") == 12.0 and gsm.torch_figure(t, "graph") == 4.0 and
          gsm.torch_figure({"cold_us": 5.0}, "cold, launch gap removed") is None and gsm.torch_figure(t, None) is None,
          "torch's figure of the same kind")
    check(gsm.meets(0.9, 0.9) == "PASS" and gsm.meets(0.8999, 0.9) == "FAIL" and gsm.meets(None, 0.9) == "n/a",
          "meets at, below the threshold, and without a value")


def test_summary(gs, replay_json, md_check):
    real = json.load(open(replay_json, encoding="utf-8"))
    with tempfile.TemporaryDirectory() as d:
        # a real jarvis-replay JSON, with two ops' cold times put at and just past 15 % of traced
        doc = copy.deepcopy(real)
        cold = {}
        for e in doc["benchmarks"]:
            m = re.match(r"op(\d+)/.*/cold$", e["name"])
            if m:
                cold[int(m.group(1))] = e
        ids = sorted(cold)
        check(len(ids) >= 3, f"the example replay timed {len(ids)} ops cold (need 3)")
        if len(ids) < 3:
            return
        hot = {int(re.match(r"op(\d+)/", e["name"]).group(1)): e for e in doc["benchmarks"]
               if re.match(r"op\d+/.*/hot$", e["name"])}

        def judged(i):
            """(figure, entry, field) the summary must use for op i"""
            for e in (cold.get(i), hot.get(i)):
                if e and e.get("judged_figure"):
                    return e["judged_figure"], e, "judged_us" if "judged_us" in e else "real_time"
            return "cold", cold[i], "real_time"

        a, b = ids[0], ids[1]
        _, ea, fa = judged(a)
        _, eb, fb = judged(b)
        ea[fa] = ea["traced_us"] * 1.15  # at the boundary: within
        eb[fb] = eb["traced_us"] * 1.1501  # just past: not within
        write(os.path.join(d, "replay-example.json"), doc)
        # torch: figures for all ops but the last timed one (missing -> "-")
        tops = []
        for k, i in enumerate(ids[:-1]):
            tops.append({"index": i, "op": "x", "label": "x", "family": "gemm", "status": "ok",
                         "hot_us": 10.0 + k, "cold_us": 20.0 + 3 * k, "graph_us": 5.0 + k})
        tops.append({"index": ids[-1], "status": "skipped: tensors need 9 bytes"})
        write(os.path.join(d, "torch-example.json"), {"context": {"package": "example.zip"}, "ops": tops})
        ds_bw = 3350e9
        write(os.path.join(d, "peak.json"), peak_doc(0.90 * ds_bw, 0.95 * 800e12))
        write(os.path.join(d, "torch-peak.json"), torch_peak_doc(3.0e12, 3.05e12, 800e12, 700e12))
        write(os.path.join(d, "nvidia-smi-q.txt"), SMI)
        p, text = summary(gs, d)
        check(p.returncode == 0 and text, f"summary: exit {p.returncode} {p.stderr[-300:]}")
        check(target_result(text, "triad >= 90 %") == "PASS", "triad at exactly 90 % of 3.35 TB/s: PASS")
        check(target_result(text, "jarvis GEMM >= 95 % of torch.matmul (bf16 8192^3)") == "PASS",
              "GEMM at exactly 95 % of torch.matmul: PASS")
        check("4096" not in (target_result(text, "jarvis GEMM >= 95 % of torch.matmul (bf16 4096") or ""),
              "no GEMM target for a shape jarvis did not run")
        dev = {r["fact"]: r["value"] for r in rows_of(text, "| fact |")}
        check(dev.get("GPU") == "NVIDIA H100 80GB HBM3" and dev.get("driver") == "580.95.05" and
              dev.get("clocks SM / memory (max)") == "1980 MHz / 2619 MHz" and dev.get("L2 cache") == "50 MiB",
              f"device facts from nvidia-smi -q and jarvis: {dev}")
        check((dev.get("datasheet") or "").startswith("H100 SXM: 3.35 TB/s, 989.4"),
              f"datasheet from data/hardware.json: {dev.get('datasheet')}")
        base = {r["kernel"]: r for r in rows_of(text, "| kernel |")}
        check(base.get("triad", {}).get("jarvis TB/s") == "3.015" and base["triad"]["jarvis of datasheet"] == "90.0 %"
              and base["triad"]["torch TB/s"] == "3.050" and base["triad"]["jarvis/torch"] == f2(3.015 / 3.05, 3),
              f"triad row: {base.get('triad')}")
        check(base.get("copy", {}).get("jarvis/torch") == f2(2.9 / 3.0, 3) and base["scale"]["torch TB/s"] == "-",
              f"copy ratio, scale without torch: {base.get('copy')} {base.get('scale')}")
        gemm = {r["shape"]: r for r in rows_of(text, "| shape |")}
        check(gemm.get("bf16 8192^3", {}).get("jarvis TFLOP/s") == "760.0" and
              gemm["bf16 8192^3"]["jarvis/torch"] == "0.950" and gemm["bf16 8192^3"]["torch of datasheet"] ==
              f"{100 * 800 / 989.4:.1f} %" and gemm.get("bf16 4096^3", {}).get("jarvis TFLOP/s") == "-",
              f"GEMM rows: {gemm}")
        # per op
        prow = {int(r["id"]): r for r in rows_of(text, "| id | op | figure |")}
        check(set(prow) >= set(ids), f"one row per replayed op: {sorted(prow)}")
        tmap = {t["index"]: t for t in tops}
        tfig = {"hot": lambda t: t["hot_us"], "cold": lambda t: t["cold_us"], "graph": lambda t: t["graph_us"],
                "cold, launch gap removed": lambda t: t["cold_us"] - (t["hot_us"] - t["graph_us"])}
        ratios, within = [], 0
        for i in ids:
            r, t = prow.get(i, {}), tmap[i]
            fig, e, field = judged(i)
            exp_j = e[field]
            check(r.get("figure") == fig, f"op {i}: the verdict figure is {fig} ({r.get('figure')})")
            check(r.get("jarvis us") == f2(exp_j) and r.get("traced us") == f2(e["traced_us"]),
                  f"op {i}: jarvis and traced us ({fig}: {exp_j}): {r}")
            check(r.get("replay/traced") == f2(exp_j / e["traced_us"], 3), f"op {i}: replay/traced {r.get('replay/traced')}")
            within += abs(exp_j / e["traced_us"] - 1) <= 0.15 + 1e-12
            if t.get("cold_us"):
                tu = tfig[fig](t)
                ratios.append(exp_j / tu)
                check(r.get("torch us") == f2(tu) and r.get("jarvis/torch") == f2(exp_j / tu, 3),
                      f"op {i}: torch {fig} us {tu} and jarvis/torch: {r}")
            else:
                check(r.get("torch us") == "-" and r.get("jarvis/torch") == "-" and
                      r.get("torch", "").startswith("skipped"), f"op {i}: no torch figure: {r}")
            check(r.get("verdict") == e.get("label"), f"op {i}: verdict {r.get('verdict')} vs {e.get('label')}")
        check(within >= 1, "the synthetic input has an op at the fidelity boundary")
        check(f"**{within} of {len(ids)}** ops within 15 %" in text, f"fidelity line: {within} of {len(ids)}")
        skipped = [i for i in prow if i not in ids]
        check(all(prow[i]["jarvis"].startswith("jarvis:") for i in skipped),
              "ops jarvis did not run say why in the jarvis column")
        gm = math.exp(sum(math.log(v) for v in ratios) / len(ratios))
        check(f"geometric mean {gm:.3f} over {len(ids) - 1} ops" in text, f"geometric mean jarvis/torch {gm:.3f}")
        if md_check:
            probs = md_check.check_files([os.path.join(d, "summary.md")])
            check(not probs, f"summary.md is valid markdown: {probs[:3]}")

        check(dev.get("clocks SM / memory (now)") == "1980 MHz / 2619 MHz", "nvidia-smi -q clocks before torch's")
        os.rename(os.path.join(d, "nvidia-smi-q.txt"), os.path.join(d, "smi.bak"))
        p, text = summary(gs, d)
        dev = {r["fact"]: r["value"] for r in rows_of(text, "| fact |")}
        check(dev.get("clocks SM / memory (now)") == "1755 MHz / 2619 MHz (torch run)" and dev.get("driver") == "580.95",
              f"without nvidia-smi -q: clocks from the torch run, driver from jarvis: {dev}")
        os.rename(os.path.join(d, "smi.bak"), os.path.join(d, "nvidia-smi-q.txt"))

        # just below the boundaries
        write(os.path.join(d, "peak.json"), peak_doc(0.8999 * ds_bw, 0.9499 * 800e12))
        p, text = summary(gs, d)
        check(target_result(text, "triad >= 90 %") == "FAIL", "triad at 89.99 %: FAIL")
        check(target_result(text, "jarvis GEMM >= 95 % of torch.matmul (bf16 8192^3)") == "FAIL", "GEMM at 94.99 %: FAIL")

        # missing and corrupt inputs
        os.remove(os.path.join(d, "peak.json"))
        os.remove(os.path.join(d, "torch-peak.json"))
        os.remove(os.path.join(d, "nvidia-smi-q.txt"))
        write(os.path.join(d, "torch-example.json"), "{not json")
        p, text = summary(gs, d)
        check(p.returncode == 0 and "## Package example" in text, f"missing peak/smi, corrupt torch: exit {p.returncode}")
        check("peak.json not found" in p.stderr and "torch-example.json unreadable" in p.stderr,
              f"missing and corrupt inputs are logged: {p.stderr[-400:]}")
        dev = {r["fact"]: r["value"] for r in rows_of(text, "| fact |")}
        check(dev.get("clocks SM / memory (max)") == "not available" and dev.get("GPU") == "CPU: AMD EPYC",
              f"without nvidia-smi -q and torch-peak: facts from the jarvis JSON or not available: {dev}")
        check(target_result(text, "jarvis GEMM") == "n/a" and "Baseline taken from replay-example.json" in text,
              "without peak files: GEMM target n/a, baseline from the replay JSON")
        check("**not available**" in text, "the corrupt torch file is marked not available")
        write(os.path.join(d, "replay-other.json"), "[]")
        write(os.path.join(d, "torch-third.json"), {"context": {}, "ops": [{"index": 0, "status": "ok", "hot_us": 5,
                                                                               "cold_us": 6, "traced_us": 4}]})
        p, text = summary(gs, d)
        check(p.returncode == 0 and "## Package other" in text and "## Package third" in text,
              f"an empty replay JSON and a torch file without a replay: exit {p.returncode}")
        check("replay-third.json not found" in p.stderr, "a torch file without its replay file is logged")
    with tempfile.TemporaryDirectory() as d:
        p, text = summary(gs, d)
        check(p.returncode == 0 and "No replay-*.json" in text, f"an empty results directory: exit {p.returncode}")
        p, _ = summary(gs, os.path.join(d, "nope"))
        check(p.returncode == 1, f"a missing results directory: exit {p.returncode}")

def test_peak_rounds(gs_path):
    """peak-rounds/: the median and fastest run of each side per round, and whether it converged"""
    m = load("gpu_summary_rounds", gs_path)
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "peak-rounds"))
        n = 8192
        for rnd, (jmed, jmin, jrsd, tmed, tmin, tconv) in enumerate(
                [(1384.7, 1381.6, 0.004, 1478.9, 1396.5, False), (1630.5, 1387.2, 0.076, 1396.8, 1393.9, True)], 1):
            json.dump({"context": {}, "benchmarks": [
                {"name": f"baseline/gemm/bf16/{n}", "real_time": jmed, "min_us": jmin, "rsd": jrsd}]},
                open(os.path.join(d, "peak-rounds", f"peak-{rnd}.json"), "w"))
            json.dump({"context": {}, "peak": [{"kind": "matmul", "dtype": "bf16", "n": n, "status": "ok",
                                                "hot": {"median_us": tmed, "min_us": tmin, "converged": tconv}}]},
                      open(os.path.join(d, "peak-rounds", f"torch-peak-{rnd}.json"), "w"))
        rows = m.peak_rounds(d)
        fl = 2.0 * n ** 3
        check(len(rows) == 2 and [r["round"] for r in rows] == ["1", "2"], f"peak rounds: {rows}")
        if len(rows) == 2:
            r1, r2 = rows
            check(abs(r1["j_med"] - fl / 1384.7e-6) < 1 and abs(r1["j_best"] - fl / 1381.6e-6) < 1 and
                  abs(r1["t_med"] - fl / 1478.9e-6) < 1 and abs(r2["t_best"] - fl / 1393.9e-6) < 1,
                  "peak rounds: TFLOP/s from the median and the fastest run")
            check(r1["j_conv"] and not r1["t_conv"] and not r2["j_conv"] and r2["t_conv"],
                  "peak rounds: converged from jarvis' rsd (< 0.5 %) and torch's flag")


def test_family_targets(gs):
    """the GEMM/convolution fidelity target (>= 90 % of them within 15 % of traced) and the own-kernel target
    (batch norm and elementwise on >= 2^24 elements at >= 80 % of the run's copy bandwidth), at and just past
    their boundaries; ops of other families and smaller tensors do not count"""
    copy_bps = 4.0e12
    big, small = "bf16[64,256,64,16]", "bf16[64,256,32,16]"  # 2^24 and 2^23 elements

    def op(i, fam, label, us, traced, nbytes=None):
        e = gb(f"op{i}/{label}/cold", us, traced_us=traced, verified=1, judged_us=us, op_family=fam,
               label="near peak")
        e["judged_figure"] = "cold"
        if nbytes is not None:
            e["bytes"] = nbytes
        return e

    def doc(matrix_ratios, own):
        b = [gb("baseline/copy/fp32/268435456", 1000.0, bytes_per_second=copy_bps, verified=1)]
        i = 0
        for fam, r in matrix_ratios:
            b.append(op(i, fam, f"aten::mm {big} {big}", 100.0 * r, 100.0))
            i += 1
        for fam, shape, frac in own:  # frac: achieved / copy
            us = 50.0
            b.append(op(i, fam, f"aten::add {shape} {shape}", us, us, nbytes=frac * copy_bps * us * 1e-6))
            i += 1
        return {"context": {"device_name": "NVIDIA H200", "backend": "cuda"}, "benchmarks": b}

    with tempfile.TemporaryDirectory() as d:
        # 9 of 10 GEMM/conv within 15 % (the 9th at the boundary): PASS; an elementwise op off by 2x is not counted
        m = [("gemm", 1.10)] * 4 + [("conv", 0.90)] * 4 + [("conv", 1.15), ("gemm", 1.1501), ("binary", 2.0)]
        own = [("batchnorm", big, 0.80), ("unary", big, 0.7999), ("binary", small, 0.10), ("sdpa", big, 0.10)]
        write(os.path.join(d, "replay-p.json"), doc(m, own))
        p, text = summary(gs, d)
        check(p.returncode == 0, f"summary: exit {p.returncode} {p.stderr[-300:]}")
        check("GEMM and convolution: **9 of 10** within 15 % (target >= 90% of them): PASS" in text,
              "9 of 10 GEMM/conv ops within 15 %: PASS")
        check("**2 of 2** at >= 80%" not in text and "**1 of 2** at >= 80%" in text,
              "own kernels: 2 counted (2^24 elements, batchnorm/unary), 1 at 80 %")
        rows = {int(r["id"]): r for r in rows_of(text, "| id | op | family | elements |")}
        check(rows.get(11, {}).get("result") == "PASS" and rows.get(11, {}).get("of copy") == "80.0 %",
              f"batch norm at exactly 80 % of copy: PASS {rows.get(11)}")
        check(rows.get(12, {}).get("result") == "FAIL", f"79.99 % of copy: FAIL {rows.get(12)}")
        check(13 not in rows and 14 not in rows, "2^23 elements and an SDPA op are not own-kernel rows")
        # one more outside the 15 %: 8 of 10: FAIL
        m[8] = ("conv", 1.1501)
        write(os.path.join(d, "replay-p.json"), doc(m, own))
        p, text = summary(gs, d)
        check("GEMM and convolution: **8 of 10** within 15 % (target >= 90% of them): FAIL" in text,
              "8 of 10 GEMM/conv ops within 15 %: FAIL")


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    analyze, replay, example = sys.argv[1:4]
    shared = sys.argv[4] if len(sys.argv) > 4 else ""
    for exe in (analyze, replay):
        if not os.access(exe, os.X_OK):
            print(f"SKIP: {exe} not built")
            return 77
    tr = load("torch_replay", os.path.join(ROOT, "bench", "torch_replay.py"))
    gs = os.path.join(ROOT, "bench", "gpu_summary.py")
    md = md_check if optional_module("markdown_it", md_check.NEEDS) else None
    torch = stub_torch(jv_ir_schemas())
    with tempfile.TemporaryDirectory() as tmp:
        pkgs = []
        p = subprocess.run([analyze, example, "-o", os.path.join(tmp, "example"), "-q"], capture_output=True, text=True)
        check(p.returncode == 0, f"analyze example: {p.stderr[-300:]}")
        pkg = os.path.join(tmp, "example", "replay_package.zip")
        pkgs.append(("example", pkg))
        traces = os.path.join(shared, "traces") if shared else ""
        if traces and os.path.isdir(traces):
            for t in ("nv_h100_bert_small_infer.json.gz", "nv_h100_nsfw_vit_infer.json.gz",
                      "nv_h100_qwen15_05b_infer.json.gz"):
                path = os.path.join(traces, t)
                if not os.path.exists(path):
                    print(f"note: fixture {t} absent")
                    continue
                out = os.path.join(tmp, t)
                p = subprocess.run([analyze, path, "-o", out, "-q"], capture_output=True, text=True)
                check(p.returncode == 0, f"analyze {t}: {p.stderr[-300:]}")
                pkgs.append((t, os.path.join(out, "replay_package.zip")))
        else:
            print("note: no SHARED_DIR/traces: fixture packages not checked")
        test_torch_replay(tr, torch, pkgs)
        test_measuring(tr, jv_ir_schemas(), pkg, tmp)
        rj = os.path.join(tmp, "r.json")
        p = subprocess.run([replay, pkg, "--backend", "cpu", "--max-bytes", "30M", "--time-limit", "0.02",
                            "--baseline-bytes", "8M", "--peak-gemm", "64", "-q", "--benchmark_out", rj],
                           capture_output=True, text=True)
        check(p.returncode == 0 and os.path.exists(rj), f"jarvis-replay on the example: exit {p.returncode} {p.stderr[-300:]}")
        test_figures(load("gpu_summary", gs))
        if importlib.util.find_spec("torch") is None:  # no torch here: the script says so in its JSON, exit 1
            tj = os.path.join(tmp, "torch-example.json")
            p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "torch_replay.py"), "--package", pkg,
                                "--out", tj], capture_output=True, text=True)
            doc = json.load(open(tj)) if os.path.exists(tj) else {}
            n = len(tr.load_ir(pkg))
            check(p.returncode == 1 and len(doc.get("ops", [])) == n and
                  all(o["status"].startswith("skipped: cannot import torch") for o in doc["ops"]) and
                  [o["index"] for o in doc["ops"]] == list(range(n)),
                  f"torch_replay.py without torch: exit 1, every op skipped with the reason: {p.returncode} {p.stderr[-200:]}")
            p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "torch_replay.py"), "--package",
                                os.path.join(tmp, "nope.zip"), "--out", tj + "2"], capture_output=True, text=True)
            check(p.returncode == 1 and "nope.zip" in p.stderr and "Traceback" not in p.stderr,
                  f"torch_replay.py on a missing package: exit 1, logged, no traceback: {p.stderr[-200:]}")
        if os.path.exists(rj):
            test_summary(gs, rj, md)
    test_family_targets(gs)
    test_peak_rounds(gs)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
