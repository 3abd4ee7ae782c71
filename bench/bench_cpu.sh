#!/usr/bin/env bash
# CPU replay beside its peers: jarvis-replay --backend cpu next to PyTorch on the CPU (same ops, shapes, dtypes
# and threads) and its baseline next to a STREAM reference (bench/stream_ref.c: STREAM's rules, our code).
#
# usage: bench_cpu.sh JARVIS_REPLAY JARVIS_ANALYZE [OUT_DIR]
#
#   OUT_DIR  default: bench/results/cpu-<UTC date>-<short host name>/ (raw JSONs, logs, summary.md)
#
# Environment:
#   JV_TORCH_PYTHON   the Python that has torch (default: python3); torch is needed by this benchmark only,
#                     never by jarvis. Without torch the script exits 77 (skipped) before measuring anything.
#   OMP_NUM_THREADS   threads for all three (default: nproc); torch gets torch.set_num_threads of the same
#   JV_SHARED_DIR     the fixture traces' folder (default: ../shared next to the repository)
#   JV_CPU_TRACES     fixture traces to replay (default: nv_h100_nsfw_vit_infer nv_h100_bert_small_infer)
#   JV_CPU_FAMILIES   families kept in the packages (default: gemm,conv,batchnorm)
#   JV_CPU_MAX_BYTES  jarvis-replay / torch_replay.py --max-bytes (default 256M)
#   CC                compiler for stream_ref (default: cc)
# Steps: (a) jarvis-replay --peak --backend cpu, (b) stream_ref, (b2) JV_CPU_ROUNDS (3) rounds of both
# alternated (the triad goal), (c) torch_replay.py --peak --device cpu,
# (d) per package (the bundled example, then the traces' packages made by jarvis-analyze, each cut to the
# families): jarvis-replay --backend cpu and torch_replay.py --device cpu; then bench/cpu_summary.py.
# Exit status: 0 everything ran (the goals' PASS/FAIL is in summary.md), 1 a step failed, 2 bad usage,
# 77 torch is not importable.
set -uo pipefail
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: bench_cpu.sh JARVIS_REPLAY JARVIS_ANALYZE [OUT_DIR]" >&2; exit 2; }
REPLAY=$(realpath "$1")
ANALYZE=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
PY=${JV_TORCH_PYTHON:-python3}
THREADS=${OMP_NUM_THREADS:-$(nproc)}
export OMP_NUM_THREADS=$THREADS
SHARED=${JV_SHARED_DIR:-$ROOT/../shared}
TRACES=${JV_CPU_TRACES:-nv_h100_nsfw_vit_infer nv_h100_bert_small_infer}
FAMILIES=${JV_CPU_FAMILIES:-gemm,conv,batchnorm}
MAXB=${JV_CPU_MAX_BYTES:-256M}
HOST=$(hostname -s 2>/dev/null || hostname)
OUT=${3:-$ROOT/bench/results/cpu-$(date -u +%F)-${HOST%%.*}}

if ! "$PY" -c 'import torch' >/dev/null 2>&1; then
    echo "bench_cpu: torch is not importable by $PY (set JV_TORCH_PYTHON); skipped" >&2
    exit 77
fi
[ -x "$REPLAY" ] && [ -x "$ANALYZE" ] || { echo "bench_cpu: $REPLAY or $ANALYZE is not executable" >&2; exit 2; }
mkdir -p "$OUT" || exit 1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail=0
step() { # step NAME CMD...: run, log to OUT/NAME.log, note a failure
    local name=$1
    shift
    echo "bench_cpu: $name" >&2
    if ! "$@" >"$OUT/$name.log" 2>&1; then
        echo "bench_cpu: $name failed (exit $?); see $OUT/$name.log" >&2
        fail=1
    fi
}

# the machine, the versions, the load before
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
"$PY" - "$OUT/machine.json" "$THREADS" "$LOAD_BEFORE" "$REPLAY" "${CC:-cc}" "$ROOT" <<'PY'
import datetime, json, os, re, subprocess, sys
out, threads, load, replay, cc, root = sys.argv[1:7]
def run(*cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
ls = run("lscpu")
field = lambda k: (re.search(rf"^{k}:\s*(.+)$", ls, re.M) or [None, "?"])[1].strip()
mem = run("free", "-g")
m = re.search(r"^Mem:\s+(\d+)", mem, re.M)
ldd = run("ldd", replay)
dnnl = re.search(r"libdnnl\.so\.\S+ => (\S+)", ldd)
dnnl_ver = "?"
if dnnl:
    real = os.path.realpath(dnnl.group(1))
    dnnl_ver = "v" + real.rsplit(".so.", 1)[-1] + f" ({os.path.basename(real)})"
import torch
cfg = torch.__config__.show()
g = lambda rx: (re.search(rx, cfg) or [None, "?"])[1]
doc = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
       "host": os.uname().nodename, "cpu_model": field("Model name"), "cores": os.cpu_count(),
       "threads": int(threads),
       "caches": ", ".join(f"{k} {field(k + ' cache')}" for k in ("L1d", "L2", "L3")),
       "memory": f"{m.group(1)} GiB" if m else "?", "kernel": " ".join(os.uname()[2:3]),
       "commit": run("git", "-C", root, "rev-parse", "--short", "HEAD").strip() or "?",
       "onednn": dnnl_ver, "torch": torch.__version__, "torch_onednn": g(r"MKL-DNN (v[\w.]+)"),
       "torch_mkl": g(r"Math Kernel Library Version ([\w.]+)"), "cc": run(cc, "--version").splitlines()[0:1],
       "load_before": load}
doc["cc"] = doc["cc"][0] if doc["cc"] else "?"
json.dump(doc, open(out, "w"), indent=1)
PY

# (a) the baseline and GEMM ceiling
step peak "$REPLAY" --peak --backend cpu --benchmark_out "$OUT/peak.json"
# (b) the STREAM reference, same threads
if "${CC:-cc}" -O3 -march=native -fopenmp -o "$WORK/stream_ref" "$HERE/stream_ref.c" -lm 2>"$OUT/stream-build.log"; then
    step stream "$WORK/stream_ref" --json "$OUT/stream.json"
else
    echo "bench_cpu: stream_ref does not build; see $OUT/stream-build.log" >&2
    fail=1
fi
# (b2) the triad goal in rounds: jarvis' baseline and the STREAM reference alternated JV_CPU_ROUNDS times (default
#      3), so that a machine whose bandwidth drifts (a VM's neighbours) moves both; the goal reads the medians
ROUNDS=${JV_CPU_ROUNDS:-3}
if [ -x "$WORK/stream_ref" ]; then
    mkdir -p "$OUT/rounds"
    for r in $(seq 1 "$ROUNDS"); do
        step "round$r-jarvis" "$REPLAY" --peak --backend cpu --peak-gemm 0 --benchmark_out "$OUT/rounds/peak-$r.json"
        step "round$r-stream" "$WORK/stream_ref" --json "$OUT/rounds/stream-$r.json"
    done
fi
# (c) torch's baseline and matmul on the CPU
step torch-peak "$PY" "$HERE/torch_replay.py" --peak --device cpu --threads "$THREADS" --out "$OUT/torch-peak.json"

# (d) the packages: the bundled example, then the traces'
PKGS=()
if "$ANALYZE" -q "$ROOT/examples/resnet_block_train.json.gz" -o "$WORK/example" >"$OUT/analyze-example.log" 2>&1; then
    PKGS+=("example:$WORK/example/replay_package.zip")
else
    echo "bench_cpu: jarvis-analyze failed on the example" >&2
    fail=1
fi
for t in $TRACES; do
    f=$SHARED/traces/$t.json.gz
    [ -f "$f" ] || { echo "bench_cpu: $f not found; $t left out" >&2; continue; }
    if "$ANALYZE" -q "$f" -o "$WORK/$t" >"$OUT/analyze-$t.log" 2>&1; then
        PKGS+=("$t:$WORK/$t/replay_package.zip")
    else
        echo "bench_cpu: jarvis-analyze failed on $t" >&2
        fail=1
    fi
done
for p in "${PKGS[@]}"; do
    name=${p%%:*}
    zip=${p#*:}
    cut=$OUT/package-$name.zip
    "$PY" "$HERE/cpu_summary.py" filter "$zip" "$cut" --families "$FAMILIES" || { fail=1; continue; }
    step "replay-$name" "$REPLAY" "$cut" --backend cpu --max-bytes "$MAXB" --benchmark_out "$OUT/replay-$name.json" \
        --report "$OUT/replay-$name.md"
    step "torch-$name" "$PY" "$HERE/torch_replay.py" --package "$cut" --device cpu --threads "$THREADS" \
        --max-bytes "$MAXB" --out "$OUT/torch-$name.json"
done

"$PY" - "$OUT/machine.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["load_after"] = " ".join(open("/proc/loadavg").read().split()[:3])
json.dump(d, open(sys.argv[1], "w"), indent=1)
PY
"$PY" "$HERE/cpu_summary.py" summary --results "$OUT" --out "$OUT/summary.md" || fail=1
echo "bench_cpu: results in $OUT" >&2
exit $fail
