"""The op construction of bench/torch_replay.py (pure, no torch import): ATen schemas parsed and the overload
chosen for an IR entry's arguments, the plan of a call (tensor specs with the traced shapes, strides and
dtypes; scalars; the op's family), and the plan made real on a device (materialize, with the hooks and the
CPU's substitutes for cuDNN-only ops). torch_replay.py imports it and re-exports its names."""
import re

# ---------------------------------------------------------------------------------------------------------
# The arguments of an IR entry (pure)


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
# The plan made real: tensors on the device (torch passed in)


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
