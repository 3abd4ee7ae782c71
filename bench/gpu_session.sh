#!/usr/bin/env bash
# Run ON THE GPU MACHINE, from the bundle that bench/gpu_bundle.sh made here, in one device call:
#   run(command="bash bench/gpu_session.sh", carry=["gpu-bundle"])
# In under 8 minutes (each step bounded with timeout; JV_SESSION_BUDGET seconds in all, default 450):
#   1. device facts: nvidia-smi, nvidia-smi -q, clocks/power/driver (csv), L2 and SMs through PyTorch
#   2. the baseline: bench_baseline.sh = jarvis-replay --peak (copy/scale/add/triad/dot, GEMM) -> peak.json;
#      the STREAM sweep (bundle's bin/stream_sweep: copy/triad/add, 288 kernel configurations, about 10 s;
#      skipped with --dry-run or without the binary) -> stream-sweep.log, stream-sweep.csv;
#      and PyTorch's peaks (bench/torch_replay.py --peak -> torch-peak.json)
#   3. the GPU tests from the bundle: ctest -L gpu (short per-test timeouts); the own-kernel sweep
#      (bin/gpu_kernel_sweep -> kernel-sweep.{log,csv}) and, where ncu is installed, its kernels profiled
#      (ncu-sweep.log); both need a GPU; the serving ops on our kernels (bench/bench_serving.sh -> serving.md)
#   4. fidelity: bench/record_traces.py records a ResNet-50 and a transformer-encoder training step on this
#      GPU -> traces/*.json.gz; jarvis-analyze each -> analysis-<name>/; jarvis-replay its package
#      (--time-limit JV_FRESH_TIME_LIMIT, default 0.2 s) -> replay-<name>.{json,md}; torch_replay.py the
#      same ops -> torch-<name>.json. JV_SESSION_TRACES=DIR takes DIR/*.json.gz instead of recording (e.g.
#      tests/data/nv_h200_*_train.json.gz, recorded by this script on an H200; with --dry-run the CPU
#      backend replays them). Each replay has a --deadline inside its step's cap, so its outputs are
#      written even when the ops do not all fit (JV_FRESH_CAP seconds, default 200)
#   5. a replay of each bundled package (the example, fixture traces recorded on H100; JV_SESSION_BUNDLED=0
#      skips them)
#      -> replay-<name>.json (Google Benchmark), replay-<name>.md (report), replay-<name>.log,
#      and PyTorch references -> torch-<name>.json
#   6. bench/gpu_summary.py -> summary.md
# The steps run in that order, the most wanted first: a step that would pass the budget is cut short or
# skipped. Every timing (jarvis and PyTorch) runs at duty cycle JV_SESSION_DUTY (default 0.25: the device idles
# 3x as long as each sample, so a power-capped GPU keeps a training step's clock; 1: back to back).
# JV_SESSION_ONLY=REGEX runs only the steps whose names match (a rerun of some of them; the names
# are those of session.log: device, baseline, stream-sweep, torch-peak, ctest-gpu, record, analyze-<trace>,
# kernel-sweep, ncu-sweep, serving, replay-<trace|package>, torch-<trace|package>, summary).
# Everything lands in bench/results/gpu-<UTC date>-<gpu short name>/ (session.log: every step, its exit
# status and seconds; steps.tsv: the same as a table). With OUT set (the device tool), also
# $OUT/results.tar.gz (the whole folder), $OUT/summary.md and $OUT/session.log. A step that fails is logged
# and the session goes on. It never changes clocks or resets the GPU.
#
# usage: bench/gpu_session.sh [--backend auto|cuda|hip|cpu] [--dry-run] [--plan] [--bundle DIR] [--results DIR]
#   --backend B   the replay backend (default $JV_SESSION_BACKEND, else auto): auto takes cuda when nvidia-smi
#                 lists a GPU, hip when HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES is set, rocminfo lists a gfx
#                 agent or rocm-smi / amd-smi answers, else cuda. On hip (ROCm, MI300X): the device facts come
#                 from rocm-smi / amd-smi and rocminfo, the CUDA-only steps (stream-sweep, kernel-sweep,
#                 ncu-sweep) are skipped, everything else runs the same
#   --dry-run     the CPU backend and small sizes, no nvidia-smi needed: the whole script on a machine
#                 without a GPU (also JV_SESSION_BACKEND=cpu)
#   --plan        run nothing: print the backend chosen (and why) and each step's command, for the backend
#                 given or detected (a check of the script on any machine; no bundle needed, nothing written)
#   --bundle DIR  the bundle (default gpu-bundle, or $JV_BUNDLE_DIR)
#   --results DIR the results folder (default bench/results/gpu-<date>-<gpu>)
# Exit status: 0 every step succeeded, 1 some step failed (see session.log), 2 bad usage.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
t_start=$(date +%s)
budget=${JV_SESSION_BUDGET:-450}
backend=${JV_SESSION_BACKEND:-auto}
bundle=${JV_BUNDLE_DIR:-gpu-bundle}
results=
plan=0
while [ $# -gt 0 ]; do
  case $1 in
    --backend) backend=$2; shift 2 ;;
    --dry-run) backend=cpu; shift ;;
    --plan) plan=1; shift ;;
    --bundle) bundle=$2; shift 2 ;;
    --results) results=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu_session.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
bundle=$(realpath -m "$bundle")

# the backend: cuda (NVIDIA), hip (AMD, ROCm) or cpu; auto looks at what the machine has (why: in $detected)
detect_backend() {
  local l
  if command -v nvidia-smi >/dev/null 2>&1 && l=$(timeout 20 nvidia-smi -L 2>/dev/null | grep -m1 '^GPU '); then
    detected="nvidia-smi lists ${l%% (*}"; backend=cuda; return
  fi
  if [ -n "${HIP_VISIBLE_DEVICES:-}${ROCR_VISIBLE_DEVICES:-}" ]; then
    detected="HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES is set"; backend=hip; return
  fi
  if command -v rocminfo >/dev/null 2>&1 &&
     l=$(timeout 20 rocminfo 2>/dev/null | grep -m1 -oE '^[[:space:]]*Name:[[:space:]]+gfx[0-9a-f]+'); then
    detected="rocminfo lists ${l##* }"; backend=hip; return
  fi
  for l in rocm-smi amd-smi; do
    if command -v $l >/dev/null 2>&1 && timeout 20 $l >/dev/null 2>&1; then
      detected="$l answers"; backend=hip; return
    fi
  done
  detected="no nvidia-smi, rocminfo, rocm-smi or amd-smi found a GPU: cuda as before"; backend=cuda
}
detected="given"
case $backend in
  auto) detect_backend ;;
  cuda|hip|cpu) ;;
  *) echo "gpu_session.sh: --backend is auto, cuda, hip or cpu, not '$backend'" >&2; exit 2 ;;
esac
dry=0
[ "$backend" = cpu ] && dry=1

# the results folder, named after the date and the GPU
gpu_name=
if [ $plan = 0 ] && [ "$backend" = hip ]; then
  for l in "rocm-smi --showproductname --csv" "amd-smi static --asic --csv"; do
    command -v ${l%% *} >/dev/null 2>&1 || continue
    gpu_name=$(timeout 20 $l 2>/dev/null | grep -oE 'MI[0-9]+[A-Z]*' | head -1) && [ -n "$gpu_name" ] && break
  done
elif [ $plan = 0 ] && command -v nvidia-smi >/dev/null 2>&1; then
  gpu_name=$(timeout 20 nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
fi
short=$(echo "${gpu_name:-unknown}" | tr 'A-Z' 'a-z' | sed 's/^nvidia //; s/ .*//; s/[^a-z0-9]//g')
[ $dry = 1 ] && short=cpu-dryrun
[ -n "$short" ] || short=unknown
results=$(realpath -m "${results:-bench/results/gpu-$(date -u +%F)-$short}")
failed=0
if [ $plan = 1 ]; then
  log=/dev/null
  say() { echo "$*"; }
else
  mkdir -p "$results"
  log=$results/session.log
  : > "$log"
  printf 'step\texit\tseconds\n' > "$results/steps.tsv"
  say() { echo "[$(date -u +%T)] $*" | tee -a "$log"; }
fi

# step NAME CAP CMD...: runs CMD under timeout min(CAP, what is left of the budget less STEP_RESERVE seconds,
# default 25, for the summary and packing; a step that gets less than 5 s is skipped and counts as failed),
# its output in NAME.log and appended to session.log; a failure is logged and the session goes on
step() {
  local name=$1 cap=$2 left t0 rc
  shift 2
  if [ -n "${JV_SESSION_ONLY:-}" ] && ! [[ $name =~ $JV_SESSION_ONLY ]]; then
    say "SKIP $name: not selected by JV_SESSION_ONLY"
    return 0
  fi
  left=$((budget - ($(date +%s) - t_start) - ${STEP_RESERVE:-25}))
  if [ $left -lt 5 ]; then
    say "SKIP $name: the session's budget (${budget} s) is spent"
    printf '%s\tskipped\t0\n' "$name" >> "$results/steps.tsv"
    failed=$((failed + 1))
    return 0
  fi
  [ "$cap" -gt "$left" ] && cap=$left
  if [ $plan = 1 ]; then
    say "plan: $name (at most $cap s): $*"
    return 0
  fi
  say "== $name (at most $cap s): $*"
  t0=$(date +%s)
  timeout -k 5 "$cap" "$@" 2>&1 | tee -a "$log" > "$results/$name.log"
  rc=${PIPESTATUS[0]}
  printf '%s\t%s\t%s\n' "$name" "$rc" "$(($(date +%s) - t0))" >> "$results/steps.tsv"
  if [ $rc = 0 ]; then
    say "   $name: ok ($(($(date +%s) - t0)) s)"
  else
    [ $rc = 124 ] && say "   $name: TIMED OUT after $cap s" || say "   $name: FAILED (exit $rc)"
    failed=$((failed + 1))
  fi
  return 0
}

pack() {
  trap - EXIT INT TERM
  [ $plan = 1 ] && return 0
  if [ ! -s "$results/summary.md" ]; then
    # no bench/gpu_summary.py (or it failed): the step table and the device facts at least
    {
      echo "# GPU session $(basename "$results") (no gpu_summary.py summary)"
      echo
      echo "| step | exit | seconds |"
      echo "|---|---|---|"
      tail -n +2 "$results/steps.tsv" | awk -F'\t' '{print "| " $1 " | " $2 " | " $3 " |"}'
      echo
      [ -f "$results/device.log" ] && { echo '```'; cat "$results/device.log"; echo '```'; }
      [ -f "$results/baseline.log" ] && { echo; echo '```'; cat "$results/baseline.log"; echo '```'; }
    } > "$results/summary.md"
  fi
  say "session: $failed step(s) failed, $(($(date +%s) - t_start)) s; results in $results"
  if [ -n "${OUT:-}" ]; then
    mkdir -p "$OUT"
    tar czf "$OUT/results.tar.gz" -C "$(dirname "$results")" "$(basename "$results")"
    cp "$results/summary.md" "$results/session.log" "$OUT/" 2>/dev/null
    echo "packed: $OUT/results.tar.gz ($(du -k "$OUT/results.tar.gz" | cut -f1) KiB), summary.md, session.log"
  fi
}
trap 'say "interrupted"; failed=$((failed + 1)); pack; exit 1' INT TERM
trap pack EXIT

say "jarvis GPU session: backend $backend ($detected), bundle $bundle, results $results, budget $budget s"
[ -f "$bundle/MANIFEST.txt" ] && sed -n '1,8p' "$bundle/MANIFEST.txt" >> "$log"
if [ $plan = 1 ]; then
  [ -x "$bundle/bin/jarvis-replay" ] || say "plan: no $bundle/bin/jarvis-replay here (the session needs the bundle)"
  export JV_BUNDLE=$bundle
elif [ ! -x "$bundle/bin/jarvis-replay" ]; then
  say "ERROR: no $bundle/bin/jarvis-replay: make the bundle first (bash bench/gpu_bundle.sh) and carry it"
  failed=$((failed + 1))
  exit 1
fi
bin=$bundle/bin
# shellcheck disable=SC1091
if [ $plan = 1 ]; then
  say "plan: . $bundle/env.sh (the bundle's GPU libraries: LD_LIBRARY_PATH)"
elif ! . "$bundle/env.sh" >> "$log" 2>&1; then
  say "env.sh: some GPU library is missing (see above); going on, the GPU steps will fail"
  failed=$((failed + 1))
fi
say "LD_LIBRARY_PATH for the bundle: ${JV_LIBRARY_PATH:-}"
# python3 runs with the machine's own LD_LIBRARY_PATH (not the one env.sh made for the bundle)
py=(env "LD_LIBRARY_PATH=${JV_ORIG_LD_LIBRARY_PATH-${LD_LIBRARY_PATH:-}}" python3)

# 1. device facts (read only)
facts() {
  {
    echo "date: $(date -u +%FT%TZ)"
    echo "host: $(uname -srm), $(ldd --version 2>/dev/null | head -1)"
    [ -f "$JV_BUNDLE/MANIFEST.txt" ] && grep '^needs from' "$JV_BUNDLE/MANIFEST.txt"
    command -v nvcc >/dev/null && echo "nvcc: $(nvcc --version | tail -1)"
    if [ "$backend" = hip ]; then
      command -v hipcc >/dev/null && echo "hipcc: $(hipcc --version 2>/dev/null | grep -m1 -i 'HIP version')"
      if command -v rocm-smi >/dev/null; then
        rocm-smi --showproductname --showdriverversion --showbus --showclocks --showmaxpower --showpower --showtemp \
                 --showmeminfo vram --showperflevel --csv
      elif command -v amd-smi >/dev/null; then
        amd-smi static --asic --bus --driver --limit --csv
        amd-smi metric --clock --power --temperature --csv
      else
        echo "rocm-smi, amd-smi: not found"
      fi
      command -v rocminfo >/dev/null &&
        rocminfo | grep -E '^[[:space:]]*(Marketing Name|Name:[[:space:]]+gfx|Compute Unit|Max Clock Freq)' | head -8
    elif command -v nvidia-smi >/dev/null; then
      nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.total,pstate,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,clocks.applications.graphics,power.draw,power.limit,temperature.gpu \
                 --format=csv
      nvidia-smi --query-gpu=clocks_event_reasons.active --format=csv 2>/dev/null ||
        nvidia-smi --query-gpu=clocks_throttle_reasons.active --format=csv 2>/dev/null || true
    else
      echo "nvidia-smi: not found"
    fi
    "${py[@]}" - <<'PY' || echo "torch: not available"
import torch
print(f"torch: {torch.__version__}, CUDA {torch.version.cuda}, HIP {getattr(torch.version, 'hip', None)}, "
      f"cuDNN / MIOpen {torch.backends.cudnn.version()}")
if torch.cuda.is_available():
    p = torch.cuda.get_device_properties(0)
    l2 = getattr(p, 'L2_cache_size', 0)
    print(f"torch device 0: {p.name}, {p.multi_processor_count} SMs, {p.total_memory / 2**30:.1f} GiB, "
          f"L2 {l2 / 2**20:.1f} MiB, compute capability {p.major}.{p.minor}")
else:
    print("torch: no CUDA device")
PY
  } > "$results/device-facts.txt" 2>&1
  if [ "$backend" = hip ]; then
    command -v rocm-smi >/dev/null && rocm-smi --showallinfo > "$results/rocm-smi.txt" 2>&1
    command -v amd-smi >/dev/null && amd-smi static > "$results/amd-smi.txt" 2>&1
  elif command -v nvidia-smi >/dev/null; then
    nvidia-smi > "$results/nvidia-smi.txt" 2>&1
    nvidia-smi -q > "$results/nvidia-smi-q.txt" 2>&1
  fi
  cat "$results/device-facts.txt"
  [ $dry = 1 ] && return 0
  if [ "$backend" = hip ]; then command -v rocm-smi >/dev/null || command -v amd-smi >/dev/null
  else command -v nvidia-smi >/dev/null; fi
}
# timeout runs programs, not shell functions: the function goes to a child bash
export -f facts
export results dry backend
export JV_PY_LD_LIBRARY_PATH=${JV_ORIG_LD_LIBRARY_PATH-${LD_LIBRARY_PATH:-}}
step device 45 bash -c 'py=(env "LD_LIBRARY_PATH=$JV_PY_LD_LIBRARY_PATH" python3); facts'

# sizes: the defaults on a GPU (1 GiB arrays, 8192^3 bf16 GEMM); small ones on the CPU backend
if [ $dry = 1 ]; then
  duty=1
  peak_args=(--baseline-bytes 32M --peak-gemm 128)
  replay_args=(--max-bytes 8M --baseline-bytes 32M --peak-gemm 128 --time-limit 0.05)
else
  # the duty cycle of every timing below, jarvis and PyTorch alike: a power-capped H100/H200 running big GEMMs
  # back to back drops its SM clock 5-15 % (2026-11-26: 1665-1890 of 1980 MHz); idle gaps keep the clock the
  # traced step had (--duty 0.25: the encoder's GEMMs 11 of 11 within 15 % of traced, 9 of 11 back to back)
  duty=${JV_SESSION_DUTY:-0.25}
  peak_args=(--duty "$duty")
  replay_args=(--duty "$duty")
fi

# 3. the baseline and the peaks
step baseline 120 env JV_BENCH_ARGS="--device 0 --report $results/peak.md ${peak_args[*]}" \
     bash bench/bench_baseline.sh "$bin/jarvis-replay" "$backend" "$results/peak.json"

# 3a. the STREAM sweep (bench/stream_sweep.cu, built into the bundle): copy/triad/add over 3 x 1 GiB, 288
#     variants (vectors per thread, block size, cache hints, covering vs persistent grid); needs a GPU
if [ $dry = 1 ] || [ "$backend" = hip ]; then
  say "SKIP stream-sweep: needs an NVIDIA GPU (bench/stream_sweep.cu is CUDA; backend $backend)"
elif [ ! -x "$bin/stream_sweep" ] && [ $plan = 0 ]; then
  say "SKIP stream-sweep: no $bin/stream_sweep (bench/gpu_bundle.sh builds it when nvcc can)"
else
  step stream-sweep 60 "$bin/stream_sweep" 1024 "$results/stream-sweep.csv"
fi

# 3b. PyTorch's peaks in the same call
if [ -f bench/torch_replay.py ]; then
  step torch-peak 90 "${py[@]}" bench/torch_replay.py --peak --duty "$duty" --out "$results/torch-peak.json"
fi

# 3c. the GPU tests from the bundle (they check the device kernels the replays below rely on)
step ctest-gpu 150 ctest --test-dir "$bundle/tests" -L gpu --output-on-failure --timeout 120 \
     --output-log "$results/ctest-gpu.log"

# 3d. our batch-norm and light elementwise kernels' tuning alternatives on the ResNet-50 shapes
#     (bench/gpu_kernel_sweep.c: each checked against the default, timed hot and cold, % of copy) ->
#     kernel-sweep.csv; then, where Nsight Compute is installed, each alternative's kernels of three
#     cases under ncu (duration, DRAM throughput, occupancy, warp stalls; caches not flushed between kernels, so
#     a second pass's L2 hits count and a first pass writes back what the kernel before left dirty), and case
#     1 again with the caches flushed before each kernel -> ncu-sweep.log
if [ "$backend" = cuda ] && { [ -x "$bin/gpu_kernel_sweep" ] || [ $plan = 1 ]; }; then
  step kernel-sweep 90 "$bin/gpu_kernel_sweep" --csv "$results/kernel-sweep.csv"
  ncu_bin=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
  if [ -n "$ncu_bin" ]; then
    step ncu-sweep 120 bash -c 'for c in 1 5 9; do "$0" --clock-control none --cache-control none \
      --section SpeedOfLight --section Occupancy --section WarpStateStats "$1" --ncu --case $c || exit 1; done
      echo "== case 1 again, caches flushed and invalidated before each kernel (--cache-control all)"
      "$0" --clock-control none --cache-control all --section SpeedOfLight "$1" --ncu --case 1' \
      "$ncu_bin" "$bin/gpu_kernel_sweep"
  else
    say "SKIP ncu-sweep: no ncu"
  fi
else
  say "SKIP kernel-sweep: needs an NVIDIA GPU and $bin/gpu_kernel_sweep (backend $backend)"
fi

# 3e. the serving ops (vLLM's silu_and_mul, rms_norm, fused_add_rms_norm, rotary_embedding, aten::rms_norm at
#     Llama-3-8B prefill sizes) on our own kernels, beside the copy bandwidth of the same run -> serving.md
step serving 60 bash bench/bench_serving.sh "$bin/jarvis-replay" "$results/serving.md" "$backend"

# 4. fidelity: traces recorded here, now (bench/record_traces.py), analysed and replayed on the same GPU
fresh=()
if [ -f bench/record_traces.py ] && { [ $dry = 0 ] || [ -n "${JV_SESSION_TRACES:-}" ]; }; then
  [ $plan = 1 ] || mkdir -p "$results/traces"
  if [ $plan = 1 ]; then
    step record 150 "${py[@]}" bench/record_traces.py --out "$results/traces"
    step analyze-TRACE 60 "$bin/jarvis-analyze" "$results/traces/TRACE.json.gz" -o "$results/analysis-TRACE"
    step replay-TRACE "${JV_FRESH_CAP:-200}" "$bin/jarvis-replay" "$results/TRACE.zip" --backend "$backend" \
         --device 0 --time-limit "${JV_FRESH_TIME_LIMIT:-0.2}" --deadline $((${JV_FRESH_CAP:-200} - 15)) \
         "${replay_args[@]}" --benchmark_out "$results/replay-TRACE.json" --report "$results/replay-TRACE.md"
  elif [ -n "${JV_SESSION_TRACES:-}" ]; then
    cp "$JV_SESSION_TRACES"/*.json.gz "$results/traces/"
  else
    step record 150 "${py[@]}" bench/record_traces.py --out "$results/traces"
  fi
  for t in "$results"/traces/*.json.gz; do
    [ -e "$t" ] || continue
    n=$(basename "$t" .json.gz)
    step "analyze-$n" 60 "$bin/jarvis-analyze" "$t" -o "$results/analysis-$n"
    if [ -f "$results/analysis-$n/replay_package.zip" ]; then
      cp "$results/analysis-$n/replay_package.zip" "$results/$n.zip"
      fresh+=("$results/$n.zip")
      # the deadline inside what the step will get (its cap, or the budget left), so the outputs get written
      cap=${JV_FRESH_CAP:-200}
      left=$((budget - ($(date +%s) - t_start) - ${STEP_RESERVE:-25}))
      [ $left -lt $cap ] && cap=$left
      dl=$((cap - 15))
      [ $dl -lt 5 ] && dl=5
      step "replay-$n" "$cap" "$bin/jarvis-replay" "$results/$n.zip" --backend "$backend" \
           --device 0 --time-limit "${JV_FRESH_TIME_LIMIT:-0.2}" --deadline "$dl" \
           "${replay_args[@]}" \
           --benchmark_out "$results/replay-$n.json" --report "$results/replay-$n.md"
    fi
  done
fi

# 4b. variants of the fresh replays: JV_SESSION_VARIANTS='TAG:REGEX:ARGS;...' replays each fresh package whose
#     name matches REGEX again with ARGS -> replay-<name>-<TAG>.{json,md} (e.g.
#     'gemmbest:encoder:--gemm-algo best;convbest:resnet50:--conv-algo best')
IFS=';' read -r -a variants <<< "${JV_SESSION_VARIANTS:-}"
for v in "${variants[@]}"; do
  [ -n "$v" ] || continue
  tag=${v%%:*}
  rest=${v#*:}
  re=${rest%%:*}
  vargs=${rest#*:}
  for p in "${fresh[@]}"; do
    n=$(basename "$p" .zip)
    [[ $n =~ $re ]] || continue
    # shellcheck disable=SC2086 # ARGS are words
    step "replay-$n-$tag" "${JV_FRESH_CAP:-200}" "$bin/jarvis-replay" "$p" --backend "$backend" --device 0 \
         --time-limit "${JV_FRESH_TIME_LIMIT:-0.2}" --deadline $((${JV_FRESH_CAP:-200} - 15)) "${replay_args[@]}" \
         $vargs --benchmark_out "$results/replay-$n-$tag.json" --report "$results/replay-$n-$tag.md"
  done
done

# PyTorch on the fresh packages' ops (after the tests: the replay-vs-traced table needs neither)
for p in "${fresh[@]}"; do
  n=$(basename "$p" .zip)
  step "torch-$n" 90 "${py[@]}" bench/torch_replay.py --package "$p" --time-limit "${JV_FRESH_TIME_LIMIT:-0.2}" --duty "$duty" \
       --out "$results/torch-$n.json"
done

# 6. the bundled packages (fixture traces recorded elsewhere)
packages=("$bundle"/packages/*.zip)
[ -e "${packages[0]}" ] || { say "no packages in $bundle/packages"; packages=(); }
[ "${JV_SESSION_BUNDLED:-1}" = 0 ] && { say "SKIP the bundled packages (JV_SESSION_BUNDLED=0)"; packages=(); }
for p in "${packages[@]}"; do
  n=$(basename "$p" .zip)
  step "replay-$n" 60 "$bin/jarvis-replay" "$p" --backend "$backend" --device 0 --deadline 45 "${replay_args[@]}" \
       --benchmark_out "$results/replay-$n.json" --report "$results/replay-$n.md"
done

# 7. PyTorch references of the bundled packages' ops
if [ -f bench/torch_replay.py ]; then
  for p in "${packages[@]}"; do
    n=$(basename "$p" .zip)
    step "torch-$n" 60 "${py[@]}" bench/torch_replay.py --package "$p" --duty "$duty" --out "$results/torch-$n.json"
  done
else
  say "SKIP PyTorch references: no bench/torch_replay.py"
fi

# 8. the summary
if [ $plan = 1 ]; then
  say "plan: summary: ${py[*]} bench/gpu_summary.py --results $results --out $results/summary.md"
elif [ -f bench/gpu_summary.py ]; then
  STEP_RESERVE=5 step summary 30 "${py[@]}" bench/gpu_summary.py --results "$results" --out "$results/summary.md"
else
  say "SKIP summary: no bench/gpu_summary.py (summary.md lists the steps only)"
fi

[ $failed = 0 ]
