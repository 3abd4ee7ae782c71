"""torch_stub: the stand-ins test_gpu_summary.py runs bench/torch_replay.py against, without torch or a GPU: a
stub `torch` whose ops (torch.ops.<ns>.<op>.<overload>._schema) are built from the op families' ATen schemas
(kernels/*/*_schema.c), and a fake torch whose tensors, events, streams and graphs advance a fake clock (Clock)
so the measuring code's timing loops, flushes and graph capture can be checked."""
import glob
import importlib.util
import os
import re
import types

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ---------------------------------------------------------------------------------------------------------
# a stub torch: torch.ops.<ns>.<op>.overloads(), torch.ops.<ns>.<op>.<overload>._schema


def jv_ir_schemas():
    """the func lines of every op family's schema table (kernels/*/*_schema.c, jv_family.schemas: adjacent C
    literals joined), which ir/ writes the replay IR from"""
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "kernels", "*", "*_schema.c"))):
        src = open(path, encoding="utf-8").read()
        for m in re.finditer(r"_schemas\[\]\s*=\s*\{(.*?)\n\};", src, re.S):
            body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
            for item in re.split(r'",\s*\n', body):
                lits = re.findall(r'"((?:[^"\\]|\\.)*)"?', item)
                t = "".join(lits).replace('\\"', '"').strip()
                if t:
                    out.append(t)
    return out


class _Overload:
    def __init__(self, schema):
        self._schema = schema  # str() of it is the schema text, as for torch's FunctionSchema


class _Packet:
    def __init__(self):
        self._ovs = {}

    def overloads(self):
        return list(self._ovs)

    def __getattr__(self, name):
        ovs = self.__dict__.get("_ovs", {})
        if name in ovs:
            return ovs[name]
        raise AttributeError(name)


class _Namespace:
    def __init__(self):
        self._ops = {}

    def __getattr__(self, name):
        ops = self.__dict__.get("_ops", {})
        if name in ops:
            return ops[name]
        raise AttributeError(f"'_OpNamespace' 'aten' object has no attribute '{name}'")


def stub_torch(schemas):
    ops = types.SimpleNamespace()
    for s in schemas:
        head = s.split("(", 1)[0]
        ns, _, rest = head.rpartition("::")
        ns = ns or "aten"
        name, _, ov = rest.partition(".")
        if not hasattr(ops, ns):
            setattr(ops, ns, _Namespace())
        space = getattr(ops, ns)
        pkt = space._ops.setdefault(name, _Packet())
        pkt._ovs[ov or "default"] = _Overload(s if "::" in head else "aten::" + s)
    return types.SimpleNamespace(ops=ops, __name__="torch_stub")


class _FakeTensor:
    """just enough of a tensor for torch_replay.py's measuring code (no data)"""

    def __init__(self, shape=(), dtype="float32"):
        self.shape, self.dtype = list(shape) if isinstance(shape, (list, tuple)) else [shape], dtype

    def _self(self, *a, **k):
        return self

    abs_ = add_ = _self

    def zero_(self):  # torch_replay zeroes only its L2 flush buffer
        Clock.flushes.append(self.shape[0])
        return self

    def copy_(self, src):
        Clock.now += 5e-6
        return self

    def to(self, dt):
        return _FakeTensor(self.shape, dt)

    def as_strided(self, shape, strides):
        return _FakeTensor(shape, self.dtype)


class Clock:
    """device time: each op call costs 5 us (a fake device), read by the events; flushes seen"""
    now = 0.0
    flushes = []


class _Event:
    def __init__(self, enable_timing=False):
        self.t = 0.0

    def record(self):
        self.t = Clock.now

    def synchronize(self):
        pass

    def elapsed_time(self, other):
        return (other.t - self.t) * 1e3


class _Ctx:
    def __init__(self, *a, **k):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


class _Stream(_Ctx):
    def wait_stream(self, other):
        pass


class _Graph:
    def __init__(self):
        self.calls = 0

    def replay(self):
        Clock.now += 4e-6 * max(1, _FakeCuda.captured)


class _FakeCuda:
    captured = 0
    Event, Stream, stream, CUDAGraph = _Event, _Stream, _Ctx, _Graph

    @staticmethod
    def is_available():
        return True

    @staticmethod
    def set_device(i):
        pass

    @staticmethod
    def synchronize():
        pass

    @staticmethod
    def empty_cache():
        pass

    @staticmethod
    def current_stream():
        return _Stream()

    @staticmethod
    def get_device_properties(i):
        return types.SimpleNamespace(name="Fake H100", total_memory=80 << 30, L2_cache_size=50 << 20,
                                     multi_processor_count=132, major=9, minor=0)

    class graph(_Ctx):  # counts the runs captured
        def __init__(self, g):
            self.c0 = Clock.now

        def __exit__(self, *a):
            _FakeCuda.captured = round((Clock.now - self.c0) / 5e-6)
            Clock.now = self.c0
            return False


def fake_torch(schemas, calls):
    """stub_torch whose overloads run (each call: 5 us of fake device time, recorded in calls) and with the
    CUDA surface torch_replay.py uses"""
    t = stub_torch(schemas)
    for ns in vars(t.ops).values():
        for name, pkt in ns._ops.items():
            for ov, o in pkt._ovs.items():
                def run(*a, _n=f"{name}.{ov}", **k):
                    calls.append((_n, a, k))
                    Clock.now += 5e-6
                    if _n == "cudnn_batch_norm.default":
                        return _FakeTensor(), _FakeTensor(), _FakeTensor(), _FakeTensor()
                    return _FakeTensor()
                o.__class__ = type("_CallableOverload", (_Overload,), {"__call__": staticmethod(run)})
    for dt in ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool",
               "strided", "contiguous_format", "preserve_format", "channels_last"):
        setattr(t, dt, dt)
    t.__version__ = "0.0-fake"
    t.version = types.SimpleNamespace(cuda="13.0")
    t.backends = types.SimpleNamespace(cudnn=types.SimpleNamespace(version=lambda: 1, is_available=lambda: True,
                                                                   benchmark=False),
                                       cuda=types.SimpleNamespace(matmul=types.SimpleNamespace(allow_tf32=False)))
    t.cuda = _FakeCuda
    t.device = str
    t.Generator = lambda device=None: types.SimpleNamespace(manual_seed=lambda s: None)
    for f in ("randn", "empty", "zeros"):
        setattr(t, f, lambda *shape, dtype="float32", **k: _FakeTensor(shape[0] if shape else 0, dtype))
    t.zeros_like = lambda x: _FakeTensor(x.shape, x.dtype)

    def op(*a, **k):
        Clock.now += 5e-6
        return _FakeTensor()

    t.mul = t.add = t.dot = t.matmul = op
    return t
