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
"""
import argparse
import datetime
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time
import zipfile

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


def entry_args(entry):
    """[(name, arg_type, value, is_kwarg)] of an IR entry, positional first."""
    ir = entry.get("replay_ir")
    if not isinstance(ir, dict) and isinstance(entry.get("repro_ir"), dict):
        ir = entry["repro_ir"].get("replay_ir")
    if not isinstance(ir, dict):
        raise ValueError("no replay_ir object")
    out = []
    for kw, key in ((False, "list_pos_args"), (True, "list_kwargs")):
        for a in ir.get(key) or []:
            if not isinstance(a, dict):
                raise ValueError(f"argument {len(out)} is not an object")
            out.append((a.get("arg_name") or f"#{len(out)}", str(a.get("arg_type") or ""), a.get("value"), kw))
    return out


# ---------------------------------------------------------------------------------------------------------
# ATen schemas (pure): "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"


def _split_top(s, sep=","):
    parts, depth, cur, quote = [], 0, [], None
    for ch in s:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def type_kind(t):
    """(kind, optional) of a schema or IR type text: kind in tensor, tensorlist, int, intlist, float,
    floatlist, bool, boollist, scalar, scalarlist, scalartype, layout, memfmt, device, str, generator,
    other."""
    t = re.sub(r"\([a-z!|*> -]*\)", "", t.strip())  # alias annotations: Tensor(a!) -> Tensor
    opt = t.endswith("?")
    t = t.rstrip("?")
    lst = False
    m = re.match(r"^(.*?)\??\[\d*\]$", t)
    if m:
        lst, t = True, m.group(1)
    base = {"Tensor": "tensor", "int": "int", "SymInt": "int", "float": "float", "bool": "bool",
            "Scalar": "scalar", "ScalarType": "scalartype", "Layout": "layout", "MemoryFormat": "memfmt",
            "Device": "device", "str": "str", "Generator": "generator", "Dimname": "str"}.get(t, "other")
    if lst:
        base = {"tensor": "tensorlist", "int": "intlist", "float": "floatlist", "bool": "boollist",
                "scalar": "scalarlist"}.get(base, "other")
    return base, opt


def parse_schema(text):
    """{"name", "overload", "args": [{"name", "type", "kind", "optional", "has_default", "default",
    "kwarg_only", "out"}]} of a schema text (str() of a torch FunctionSchema or a native_functions.yaml
    func line)."""
    text = text.strip()
    m = re.match(r"^([\w:]+?)(?:\.(\w+))?\((.*)\)\s*->", text, re.S)
    if not m:
        m = re.match(r"^([\w:]+?)(?:\.(\w+))?\((.*)\)\s*$", text, re.S)
    if not m:
        raise ValueError(f"not a schema: {text[:80]}")
    name, overload, body = m.group(1), m.group(2) or "default", m.group(3)
    args, kwonly = [], False
    for p in _split_top(body):
        if p == "*":
            kwonly = True
            continue
        default = None
        has_default = False
        if "=" in p:
            p, default = p.split("=", 1)
            p, default, has_default = p.strip(), default.strip(), True
        ty, _, an = p.rpartition(" ")
        kind, opt = type_kind(ty)
        args.append({"name": an, "type": ty, "kind": kind, "optional": opt, "has_default": has_default,
                     "default": default, "kwarg_only": kwonly, "out": "!" in ty and kwonly})
    return {"name": name, "overload": overload, "args": args}


def _compatible(ir_kind, ir_value, sch):
    """1 when an IR argument of kind ir_kind with value ir_value fits schema argument sch."""
    k = sch["kind"]
    if ir_value is None:
        return True  # None fits an optional; an unrecorded value fits anything (handled when mapped)
    if k == ir_kind:
        return True
    if k == "other" or ir_kind == "other":
        return True
    pairs = {("int", "intlist"), ("scalar", "int"), ("scalar", "float"), ("scalar", "bool"),
             ("int", "scalartype"), ("int", "layout"), ("int", "memfmt"), ("float", "scalar"),
             ("int", "scalar"), ("scalarlist", "intlist"), ("scalarlist", "floatlist"),
             ("intlist", "scalarlist"), ("str", "device")}
    return (ir_kind, k) in pairs


def match_score(ir_args, schema):
    """How well IR arguments [(name, type, value, is_kwarg)] fit a parsed schema; None when they do not.
    Positional IR arguments go to the schema's positional ones in order (past them, to keyword-only ones
    by name), keyword ones by name; a schema argument left out must have a default or be optional (an out=
    argument never is). Higher is better: names that agree, types that agree, fewer arguments left out."""
    sargs = schema["args"]
    pos = [a for a in sargs if not a["kwarg_only"]]
    kwo = {a["name"]: a for a in sargs if a["kwarg_only"]}
    byname = {a["name"]: a for a in sargs}
    used, score, ipos = set(), 0.0, 0
    for name, ty, value, is_kw in ir_args:
        ik, _ = type_kind(ty)
        if isinstance(value, dict) and "shape" in value:
            ik = "tensor"
        if not is_kw and ipos < len(pos):
            s = pos[ipos]
            ipos += 1
        elif not is_kw:  # positional in the IR, keyword-only in the schema: by name
            s = kwo.get(name)
            if s is None or s["name"] in used:
                return None
        else:
            s = kwo.get(name) or byname.get(name)
            if s is None or s["name"] in used:
                return None
        if not _compatible(ik, value, s):
            return None
        if value is None and s["kind"] != "other" and not s["optional"] and not s["has_default"]:
            score -= 0.5  # a required argument without a value: fits, but worse than one that needs none
        used.add(s["name"])
        score += 1.0 + (1.0 if s["name"] == name else 0.0) + (0.5 if s["kind"] == ik else 0.0)
    for a in sargs:
        if a["name"] not in used and not a["has_default"]:
            if a["out"] or not a["optional"]:
                return None
    score -= 0.1 * sum(1 for a in sargs if a["name"] not in used)
    return score


def choose_overload(ir_args, schemas):
    """(overload name, parsed schema, how) for IR arguments among {overload: schema text}; how is
    "matched", "fallback" (the default overload, or the only one, when none fits) or "no overload"."""
    best = None
    parsed = {}
    for ov, text in schemas.items():
        try:
            p = parse_schema(text)
        except ValueError:
            continue
        parsed[ov] = p
        s = match_score(ir_args, p)
        if s is None:
            continue
        if best is None or s > best[0] or (s == best[0] and ov == "default"):
            best = (s, ov)
    if best:
        return best[1], parsed[best[1]], "matched"
    if "default" in parsed:
        return "default", parsed["default"], "fallback"
    if len(parsed) == 1:
        ov = next(iter(parsed))
        return ov, parsed[ov], "fallback"
    return None, None, "no overload"


# dtype spellings of traces and IR files -> torch attribute names
DTYPES = {
    "float": "float32", "float32": "float32", "c10::float": "float32", "double": "float64", "float64": "float64",
    "c10::half": "float16", "half": "float16", "float16": "float16", "c10::bfloat16": "bfloat16",
    "bfloat16": "bfloat16", "long int": "int64", "long": "int64", "int64": "int64", "int": "int32",
    "int32": "int32", "short int": "int16", "short": "int16", "int16": "int16", "signed char": "int8",
    "int8": "int8", "unsigned char": "uint8", "uint8": "uint8", "bool": "bool",
    "c10::float8_e4m3fn": "float8_e4m3fn", "float8_e4m3fn": "float8_e4m3fn",
    "c10::float8_e5m2": "float8_e5m2", "float8_e5m2": "float8_e5m2",
    "c10::float8_e4m3fnuz": "float8_e4m3fnuz", "float8_e4m3fnuz": "float8_e4m3fnuz",
    "c10::float8_e5m2fnuz": "float8_e5m2fnuz", "float8_e5m2fnuz": "float8_e5m2fnuz",
    "c10::complex<float>": "complex64", "complex64": "complex64", "c10::complex<double>": "complex128",
    "complex128": "complex128",
}
FLOATING = {"float32", "float64", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
            "float8_e5m2fnuz", "complex64", "complex128"}
BPE = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2, "int64": 8, "int32": 4, "int16": 2, "int8": 1,
       "uint8": 1, "bool": 1, "complex64": 8, "complex128": 16}
SHORT = {"float32": "fp32", "float64": "fp64", "float16": "fp16", "bfloat16": "bf16", "int64": "i64",
         "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "bool"}
# c10::ScalarType codes (ScalarType arguments are written as their code)
SCALARTYPE_CODES = {0: "uint8", 1: "int8", 2: "int16", 3: "int32", 4: "int64", 5: "float16", 6: "float32",
                    7: "float64", 9: "complex64", 10: "complex128", 11: "bool", 15: "bfloat16",
                    23: "float8_e5m2", 24: "float8_e4m3fn", 25: "float8_e5m2fnuz", 26: "float8_e4m3fnuz"}
LAYOUTS = {0: "strided", 1: "sparse_coo"}
MEMFMTS = {0: "contiguous_format", 1: "preserve_format", 2: "channels_last", 3: "channels_last_3d"}


def dtype_name(text):
    k = str(text).strip().lower()
    if k.startswith("torch."):
        k = k[6:]
    return DTYPES.get(k) or DTYPES.get("c10::" + k)


# ops whose tensor inputs must be positive (log/sqrt domains); variance-like arguments by name
POSITIVE_OPS = {"sqrt", "rsqrt", "log", "log2", "log10", "log1p", "pow", "reciprocal", "lgamma", "digamma"}
POSITIVE_ARG = re.compile(r"(^|_)(var|invstd|std)($|_)|running_var|save_var|save_invstd", re.I)
FAMILY_OF = [  # a TraceLens IR entry (no "jarvis" object): the family from the op name
    (re.compile(r"(^|_)(mm|addmm|bmm|baddbmm|matmul|linear|_scaled_mm|gemm)$"), "gemm"),
    (re.compile(r"conv"), "conv"),
    (re.compile(r"batch_norm"), "batchnorm"),
    (re.compile(r"layer_norm|group_norm|rms_norm"), "norm"),
    (re.compile(r"softmax"), "softmax"),
    (re.compile(r"attention"), "sdpa"),
]
# values of required non-tensor arguments that a trace without Concrete Inputs leaves unrecorded (null in the
# IR): the defaults jarvis-replay's families assume (batch norm momentum 0.1, eps 1e-5; threshold 0; ...)
UNRECORDED = {"eps": 1e-5, "epsilon": 1e-5, "momentum": 0.1, "exponential_average_factor": 0.1, "threshold": 0,
              "alpha": 1, "beta": 1, "negative_slope": 0.01, "min_val": -1.0, "max_val": 1.0, "non_blocking": False}


def family_of(entry):
    x = entry.get("jarvis") if isinstance(entry.get("jarvis"), dict) else {}
    if x.get("family"):
        return str(x["family"])
    op = str(entry.get("op_name", "")).split("::")[-1].split(".")[0]
    for rx, fam in FAMILY_OF:
        if rx.search(op):
            return fam
    return "elementwise"


def split_op_name(op_name):
    """("aten", "add", overload or None) of "aten::add" / "aten::add.Tensor"."""
    ns, _, rest = str(op_name).rpartition("::")
    ns = ns or "aten"
    name, _, ov = rest.partition(".")
    return ns, name, ov or None


def op_schemas(torch_mod, op_name):
    """{overload: schema text} of an op from torch.ops (real torch or a stub with the same surface)."""
    ns, name, _ = split_op_name(op_name)
    namespace = getattr(torch_mod.ops, ns)
    packet = getattr(namespace, name)  # AttributeError / RuntimeError when torch has no such op
    out = {}
    for ov in packet.overloads():
        try:
            out[ov] = str(getattr(packet, ov)._schema)
        except Exception:  # noqa: BLE001 - an overload torch cannot describe is left out
            continue
    return out


def tensor_spec(v, argname, op_short):
    """A plain description of an IR tensor value: shape, strides, dtype (torch name), init, positive,
    elements and bytes of the storage its strides span."""
    shape = [int(d) for d in v.get("shape") or []]
    strides = v.get("strides")
    if strides is None:
        strides, acc = [], 1
        for d in reversed(shape):
            strides.insert(0, acc)
            acc *= max(d, 1)
    strides = [int(s) for s in strides]
    if len(strides) != len(shape):
        raise ValueError(f"{argname}: {len(strides)} strides for {len(shape)} dims")
    dt = dtype_name(v.get("dtype", ""))
    if dt is None:
        raise ValueError(f"{argname}: unknown dtype {v.get('dtype')!r}")
    numel = 1
    for d in shape:
        numel *= d
    storage = 0 if numel == 0 else 1 + sum((d - 1) * s for d, s in zip(shape, strides))
    return {"shape": shape, "strides": strides, "dtype": dt, "init": v.get("init", "normal"),
            "positive": bool(POSITIVE_ARG.search(argname)) or op_short in POSITIVE_OPS,
            "storage_elems": storage, "bytes": storage * BPE.get(dt, 4)}


def plan_entry(entry, torch_mod):
    """How to call one IR entry: {"op", "ns", "name", "overload", "how", "family", "schema", "args": [(schema
    arg name, kind, value spec, keyword?)], "assumed": ["name=value"], "defaulted": [names]}, value specs
    being {"tensor": spec}, {"tensors": [spec|None]}, {"value": python value}, {"dtype": name},
    {"layout": name}, {"memfmt": name}, {"device": True}, {"missing": name} (a required tensor the IR left
    null) or None. Raises ValueError (the reason to skip the op) when the entry cannot be called."""
    op_name = entry.get("op_name")
    if not isinstance(op_name, str) or not op_name:
        raise ValueError("no op_name")
    ns, name, ov_named = split_op_name(op_name)
    ir_args = entry_args(entry)
    try:
        schemas = op_schemas(torch_mod, op_name)
    except (AttributeError, RuntimeError) as e:
        raise ValueError(f"torch has no {ns}::{name} ({e.__class__.__name__})") from None
    if not schemas:
        raise ValueError(f"torch has no overload of {ns}::{name}")
    if ov_named and ov_named in schemas:
        ov, sch, how = ov_named, parse_schema(schemas[ov_named]), "named"
    else:
        ov, sch, how = choose_overload(ir_args, schemas)
    if ov is None:
        raise ValueError(f"no overload of {ns}::{name} fits")
    pos = [a for a in sch["args"] if not a["kwarg_only"]]
    byname = {a["name"]: a for a in sch["args"]}
    args, ipos, shifted, assumed, defaulted = [], 0, False, [], []
    for aname, ty, value, is_kw in ir_args:
        if not is_kw and ipos < len(pos):
            s = pos[ipos]
            ipos += 1
        else:
            s = byname.get(aname)
            if s is None:
                if how == "fallback":
                    continue  # an argument the default overload does not take
                raise ValueError(f"argument {aname} not in {ns}::{name}.{ov}")
        kind = s["kind"]
        ik, _ = type_kind(ty)
        if kind == "other":
            kind = ik
        if isinstance(value, dict) and "shape" in value:
            kind = "tensor"
        spec = arg_spec(kind, value, s, name)
        if spec is None and not s["optional"] and not s["has_default"] and s["name"] in UNRECORDED:
            spec = {"value": UNRECORDED[s["name"]]}  # what jarvis-replay assumes when the trace has no value
            assumed.append(f"{s['name']}={UNRECORDED[s['name']]}")
        if spec is None and not s["optional"] and not (s["has_default"] and s["default"] == "None"):
            if s["has_default"]:
                shifted = shifted or not s["kwarg_only"]  # later positional ones go by name
                defaulted.append(s["name"])
                continue  # leave it to the default
            if kind == "tensor":
                spec = {"missing": s["name"]}  # a tensor the trace did not record (a hook may make it)
            else:
                raise ValueError(f"argument {s['name']} ({s['type']}) has no recorded value")
        args.append((s["name"], kind, spec, s["kwarg_only"] or shifted))
    return {"op": op_name, "ns": ns, "name": name, "overload": ov, "how": how, "family": family_of(entry),
            "schema": f"{sch['name']}{'' if ov == 'default' else '.' + ov}", "args": args, "assumed": assumed,
            "defaulted": defaulted}


def _num(v):
    if isinstance(v, str) and v in ("inf", "-inf", "nan"):
        return float(v)
    return v


def arg_spec(kind, value, s, op_short):
    if value is None:
        return None
    if kind == "tensor":
        if not isinstance(value, dict):
            raise ValueError(f"argument {s['name']}: not a tensor object")
        return {"tensor": tensor_spec(value, s["name"], op_short)}
    if kind == "tensorlist":
        return {"tensors": [None if v is None else tensor_spec(v, s["name"], op_short) for v in value]}
    if kind == "generator":
        raise ValueError(f"argument {s['name']}: a Generator other than None")
    if kind == "scalartype":
        dt = dtype_name(value) if isinstance(value, str) else SCALARTYPE_CODES.get(int(value))
        if dt is None:
            raise ValueError(f"argument {s['name']}: unknown ScalarType {value!r}")
        return {"dtype": dt}
    if kind == "layout":
        return {"layout": LAYOUTS.get(int(value), "strided") if not isinstance(value, str) else value}
    if kind == "memfmt":
        return {"memfmt": MEMFMTS.get(int(value), "preserve_format") if not isinstance(value, str) else value}
    if kind == "device":
        return {"device": True}
    if kind == "int":
        return {"value": int(value)}
    if kind == "intlist":
        return {"value": [int(v) for v in value] if isinstance(value, list) else int(value)}
    if kind == "float":
        return {"value": float(_num(value))}
    if kind == "floatlist":
        return {"value": [float(_num(v)) for v in value]}
    if kind == "bool":
        return {"value": bool(value)}
    if kind == "boollist":
        return {"value": [bool(v) for v in value]}
    if kind in ("scalar", "scalarlist"):
        return {"value": [_num(v) for v in value] if isinstance(value, list) else _num(value)}
    return {"value": value}


def shape_label(plan):
    """"aten::mm bf16[64,128] bf16[128,256]T" (jarvis-replay's label form: T transposed, cl channels-last,
    s other strides, b broadcast; outputs left out)."""
    parts = [plan["op"]]
    for _, _, spec, _ in plan["args"]:
        specs = []
        if spec and "tensor" in spec:
            specs = [spec["tensor"]]
        elif spec and "tensors" in spec:
            specs = [t for t in spec["tensors"] if t]
        for t in specs:
            if t["init"] is None:
                continue  # an output
            parts.append(f"{SHORT.get(t['dtype'], t['dtype'])}[{','.join(map(str, t['shape']))}]{layout_tag(t)}")
    return " ".join(parts)


def layout_tag(t):
    shape, st = t["shape"], t["strides"]
    dense, acc = [], 1
    for d in reversed(shape):
        dense.insert(0, acc)
        acc *= max(d, 1)
    if st == dense:
        return ""
    if any(s == 0 and d > 1 for d, s in zip(shape, st)):
        return "b"
    if len(shape) >= 2 and st[-1] != 1 and st[-2] == 1:
        return "T"
    if len(shape) == 4 and st[1] == 1:
        return "cl"
    return "s"


# ---------------------------------------------------------------------------------------------------------
# Measuring (torch + CUDA)

WARMUP_S = 0.02
MIN_SAMPLE_S = 100e-6
MAX_TIME_S = 1.0
CPU_MAX_TIME_S = 0.25  # jarvis-replay's --time-limit default on the CPU
TARGET_RSD = 0.005
MIN_SAMPLES = 10
MAX_SAMPLES = 1000
GRAPH_BELOW_S = 20e-6
GRAPH_SPAN_S = 1e-3


def stats(samples):
    med = statistics.median(samples)
    mean = statistics.fmean(samples)
    rsd = statistics.pstdev(samples) / mean if len(samples) > 1 and mean > 0 else None
    return {"median_us": med * 1e6, "min_us": min(samples) * 1e6, "max_us": max(samples) * 1e6,
            "rsd": rsd, "samples": len(samples), "converged": rsd is not None and rsd < TARGET_RSD}


def converged(samples, measured):
    if len(samples) >= MAX_SAMPLES or measured >= MAX_TIME_S:
        return True
    if len(samples) < MIN_SAMPLES:
        return False
    m = statistics.fmean(samples)
    return m > 0 and statistics.pstdev(samples) / m < TARGET_RSD


DUTY_MAX_GAP_S = 0.05  # jarvis-replay's JV_DUTY_MAX_GAP_S


def duty_gap(sample_s, duty):
    """seconds to idle after a sample of sample_s seconds at duty cycle duty (jarvis-replay's jv_duty_gap)"""
    if not (0 < duty < 1) or not sample_s > 0:
        return 0.0
    return min(sample_s * (1 - duty) / duty, DUTY_MAX_GAP_S)


class Timer:
    def __init__(self, torch, duty=1.0):
        self.torch = torch
        self.duty = duty
        self.a = torch.cuda.Event(enable_timing=True)
        self.b = torch.cuda.Event(enable_timing=True)

    def span(self, fn, k=1, before=None):
        """seconds of k back-to-back calls of fn between two events (before() runs outside them)"""
        if before:
            before()
        self.a.record()
        for _ in range(k):
            fn()
        self.b.record()
        self.b.synchronize()
        return self.a.elapsed_time(self.b) / 1e3

    def warm(self, fn):
        """warm-up: at least 2 runs and WARMUP_S; returns an estimate of one run (s)"""
        t0 = time.perf_counter()
        est, n = self.span(fn), 1
        while time.perf_counter() - t0 < WARMUP_S or n < 2:
            est = self.span(fn)
            n += 1
        return est

    def _sample(self, one):
        samples, measured, t0, idled = [], 0.0, time.perf_counter(), 0.0
        while not converged(samples, measured) and time.perf_counter() - t0 - idled < 4 * MAX_TIME_S + 1:
            s, per = one()
            measured += s
            samples.append(per)
            gap = duty_gap(s, self.duty)  # the device idles (span() synchronized), as jarvis-replay --duty
            if gap > 0:
                time.sleep(gap)
                idled += gap
        return stats(samples)

    def hot(self, fn, est):
        k = max(1, min(10000, math.ceil(MIN_SAMPLE_S / max(est, 1e-9) - 1e-6)))

        def one():
            s = self.span(fn, k)
            return s, s / k

        out = self._sample(one)
        out["runs_per_sample"] = k
        return out

    def cold(self, fn, flush):
        def one():
            s = self.span(fn, 1, before=flush.zero_)
            return s, s

        return self._sample(one)

    def graph(self, fn, hot_s):
        torch = self.torch
        n = max(1, min(2000, math.ceil(GRAPH_SPAN_S / max(hot_s, 1e-7))))
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                fn()
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(n):
                fn()
        g.replay()
        torch.cuda.synchronize()

        def one():
            s = self.span(g.replay)
            return s, s / n

        out = self._sample(one)
        out["runs_per_graph"] = n
        del g
        return out


class CpuTimer(Timer):
    """Timer's batches and stop rule on the CPU: time.perf_counter around calls that return when done"""

    def __init__(self, torch, duty=1.0):  # noqa: PLW0231 - no events on the CPU
        self.torch = torch
        self.duty = duty

    def span(self, fn, k=1, before=None):
        if before:
            before()
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        return time.perf_counter() - t0

    def cold(self, fn, flush):
        def one():
            s = self.span(fn, 1, before=lambda: flush.add_(1.0))  # read-modify-write, as jarvis-replay's CPU flush
            return s, s

        return self._sample(one)

    def graph(self, fn, hot_s):
        raise RuntimeError("no graph timing on the CPU")


def sync(torch, device):
    """wait for the device (a no-op on the CPU, where a call returns when it is done)"""
    if str(device).startswith("cuda"):
        torch.cuda.synchronize()


def cpu_threads(requested=None):
    """threads for torch on the CPU: --threads, else OMP_NUM_THREADS, else the CPUs this process may use"""
    if requested:
        return requested
    try:
        n = int(os.environ.get("OMP_NUM_THREADS", "").split(",")[0])
        if n > 0:
            return n
    except ValueError:
        pass
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def llc_bytes():
    """the largest cache sysfs lists for cpu0 (jarvis-replay's CPU backend reads the same), 0 when unknown"""
    best = 0
    for i in range(8):
        try:
            with open(f"/sys/devices/system/cpu/cpu0/cache/index{i}/size", encoding="ascii") as f:
                t = f.read().strip()
        except OSError:
            continue
        m = re.fullmatch(r"(\d+)([KMG]?)", t)
        if m:
            best = max(best, int(m.group(1)) * 1024 ** " KMG".index(m.group(2) or " "))
    return best


def make_tensor(torch, spec, device, gen):
    """the traced view (shape, strides) on one flat storage of random normal data (zeros for integer and
    bool tensors, as the IR's init says; uninitialized for outputs)"""
    dt = getattr(torch, spec["dtype"])
    n = spec["storage_elems"]
    if spec["dtype"] in FLOATING and spec["init"] == "normal":
        base = torch.randn(n, device=device, dtype=torch.float32, generator=gen)
        if spec["positive"]:
            base = base.abs_().add_(0.5)
        base = base.to(dt)
    elif spec["init"] is None:
        base = torch.empty(n, device=device, dtype=dt)
    else:
        base = torch.zeros(n, device=device, dtype=dt)
    return base.as_strided(spec["shape"], spec["strides"])


def materialize(torch, plan, device, gen):
    """(positional args, keyword args) of a plan, with tensors on device."""
    pos, kw = [], {}
    for name, kind, spec, is_kw in plan["args"]:
        if spec is None or "missing" in spec:
            v = None  # a missing one may be made by a hook (checked after it)
        elif "tensor" in spec:
            v = make_tensor(torch, spec["tensor"], device, gen)
        elif "tensors" in spec:
            v = [None if t is None else make_tensor(torch, t, device, gen) for t in spec["tensors"]]
        elif "dtype" in spec:
            v = getattr(torch, spec["dtype"])
        elif "layout" in spec:
            v = getattr(torch, spec["layout"])
        elif "memfmt" in spec:
            v = getattr(torch, spec["memfmt"])
        elif "device" in spec:
            v = torch.device(device)
        else:
            v = spec["value"]
        if is_kw:
            kw[name] = v
        else:
            pos.append(v)
    return pos, kw


def missing_args(plan, pos, kw):
    """names of required tensors the IR left null and no hook made"""
    out, ip = [], 0
    for name, _, spec, is_kw in plan["args"]:
        v = kw.get(name) if is_kw else pos[ip]
        ip += 0 if is_kw else 1
        if spec and "missing" in spec and v is None:
            out.append(name)
    return out


def hook_cudnn_bn_backward(torch, plan, pos, kw):
    """cudnn_batch_norm_backward needs the reserve space of a forward: run cudnn_batch_norm (training) on
    the same input and take its save_mean, save_var (inverse std) and reserve."""
    names = [a[0] for a in plan["args"] if not a[3]]
    if "reserveSpace" not in names:
        return pos, kw
    i = {n: names.index(n) for n in names}
    x, w = pos[i["input"]], pos[i["weight"]]
    rm = pos[i["running_mean"]] if "running_mean" in i else None
    rv = pos[i["running_var"]] if "running_var" in i else None
    bias = torch.zeros_like(w)
    eps = pos[i["epsilon"]] if "epsilon" in i else 1e-5
    _, save_mean, save_var, reserve = torch.ops.aten.cudnn_batch_norm.default(x, w, bias, rm, rv, True, 0.1, eps)
    pos = list(pos)
    if "save_mean" in i:
        pos[i["save_mean"]] = save_mean
    if "save_var" in i:
        pos[i["save_var"]] = save_var
    pos[i["reserveSpace"]] = reserve
    return pos, kw


HOOKS = {"cudnn_batch_norm_backward": hook_cudnn_bn_backward}


def cpu_bn_backward(torch, plan, pos, kw):
    """--device cpu: cudnn_batch_norm_backward has no CPU kernel; torch's CPU runs the same gradient as
    native_batch_norm_backward (train, all three outputs), its saved mean and inverse std from a training
    forward on the same input"""
    names = [a[0] for a in plan["args"] if not a[3]]
    i = {n: names.index(n) for n in names}
    x, go, w = pos[i["input"]], pos[i["grad_output"]], pos[i["weight"]]
    rm = pos[i["running_mean"]] if "running_mean" in i else None
    rv = pos[i["running_var"]] if "running_var" in i else None
    eps = pos[i["epsilon"]] if "epsilon" in i else 1e-5
    rm2 = None if rm is None else rm.clone()
    rv2 = None if rv is None else rv.clone()
    _, save_mean, save_invstd = torch.ops.aten.native_batch_norm.default(x, w, torch.zeros_like(w), rm2, rv2, True,
                                                                         0.1, eps)
    op = torch.ops.aten.native_batch_norm_backward.default
    return op, [go, x, w, rm, rv, save_mean, save_invstd, True, eps, [True, True, True]], {}


# --device cpu: ops of cuDNN's that torch has no CPU kernel for -> (torch op, args, kwargs) of what the CPU runs
CPU_SUBSTITUTES = {"cudnn_batch_norm_backward": ("aten::native_batch_norm_backward.default", cpu_bn_backward)}


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
    rec.update({"label": shape_label(plan), "aten": f"{plan['ns']}::{plan['schema']}", "overload_how": plan["how"]})
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
                      "stop": f"rsd < {TARGET_RSD * 100} % after >= {MIN_SAMPLES} samples, or {MAX_TIME_S} s "
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
                      "stop": f"rsd < {TARGET_RSD * 100} % after >= {MIN_SAMPLES} samples, or {MAX_TIME_S} s "
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
        MAX_TIME_S = args.time_limit
    elif args.device == "cpu":
        MAX_TIME_S = CPU_MAX_TIME_S
    try:
        return cmd_peak(args) if args.peak else cmd_package(args)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
