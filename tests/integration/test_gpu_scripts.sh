#!/usr/bin/env bash
# test_gpu_scripts.sh: the GPU session scripts (bench/gpu_session.sh, gpu_bundle.sh, gpu_bundle_env.sh) on a
# machine without a GPU: their syntax (bash -n); gpu_session.sh --plan for hip and cuda (the commands each
# backend's session would run, the CUDA-only steps skipped on hip, the ROCm device facts); its backend
# auto-detection with fake nvidia-smi / rocminfo / rocm-smi on PATH and HIP_VISIBLE_DEVICES; gpu_bundle.sh --plan
# for hip (the configure line: JV_HIP=ON, JV_CUDA=OFF, the gfx targets), skipped without hipcc; env.sh for a hip
# bundle finding libamdhip64 under ROCM_PATH, and naming it when it is absent. Exit 0 pass, 1 fail.
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
checks=0 fails=0
ok() { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*"; }
has() { # has LABEL TEXT PATTERN: TEXT contains PATTERN (grep -E)
  if grep -qE -- "$3" <<<"$2"; then ok; else bad "$1: no '$3' in:"; sed 's/^/    /' <<<"$2" | head -40; fi
}
hasnt() {
  if grep -qE -- "$3" <<<"$2"; then bad "$1: '$3' should not appear"; grep -E -- "$3" <<<"$2" | head -5; else ok; fi
}

# 1. syntax
for f in gpu_session.sh gpu_bundle.sh gpu_bundle_env.sh; do
  if bash -n "$src/bench/$f"; then ok; else bad "bash -n bench/$f"; fi
done

# a PATH with the system's tools and a folder of fakes in front: by default each GPU tool there finds nothing
# (exit 1, no output), shadowing any real one (this machine's rocminfo, a GPU machine's nvidia-smi)
fake=$work/fakebin
mkdir -p "$fake"
base_path=$fake:/usr/bin:/bin
nogpu() { printf '#!/bin/sh\nexit 1\n' > "$fake/$1"; chmod +x "$fake/$1"; }
for t in nvidia-smi rocminfo rocm-smi amd-smi; do nogpu $t; done
unset HIP_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES JV_SESSION_BACKEND
session() { env PATH="$base_path" bash "$src/bench/gpu_session.sh" --plan --bundle "$work/no-bundle" "$@" 2>&1; }

# 2. the hip plan: ROCm facts, the replays on hip, the CUDA-only steps skipped, nothing written
out=$(session --backend hip)
rc=$?
[ $rc = 0 ] && ok || bad "gpu_session.sh --plan --backend hip exited $rc"
has "hip plan" "$out" '^jarvis GPU session: backend hip \(given\)'
has "hip plan" "$out" '^plan: baseline .* bench/bench_baseline.sh .*/jarvis-replay hip '
has "hip plan" "$out" '^plan: ctest-gpu .*ctest --test-dir .* -L gpu'
has "hip plan" "$out" '^plan: replay-TRACE .*--backend hip --device 0'
has "hip plan" "$out" '^plan: serving .*bench/bench_serving.sh .*/jarvis-replay .*/serving.md hip$'
has "hip plan" "$out" '^SKIP stream-sweep: needs an NVIDIA GPU'
has "hip plan" "$out" '^SKIP kernel-sweep: needs an NVIDIA GPU'
hasnt "hip plan" "$out" 'plan: (stream-sweep|kernel-sweep|ncu-sweep)'
hasnt "hip plan" "$out" '--backend cuda'
[ -d "$src/bench/results/gpu-$(date -u +%F)-unknown" ] && bad "--plan wrote a results folder" || ok
# the device-facts step reads rocm-smi (the function the step runs, as a child bash would see it)
facts=$(sed -n '/^facts() {/,/^}/p' "$src/bench/gpu_session.sh")
has "hip facts" "$facts" 'rocm-smi --showproductname .*--showclocks .*--showpower .*--showtemp'
has "hip facts" "$facts" 'amd-smi metric --clock --power --temperature'

# 3. the cuda plan: every step as before
out=$(session --backend cuda)
has "cuda plan" "$out" '^plan: replay-TRACE .*--backend cuda'
has "cuda plan" "$out" '^plan: kernel-sweep '
has "cuda plan" "$out" '^plan: serving .*bench/bench_serving.sh .*/serving.md cuda$'
hasnt "cuda plan" "$out" 'SKIP kernel-sweep'

# 4. auto-detection
out=$(session)
has "auto, no GPU tools" "$out" 'backend cuda \(no nvidia-smi, rocminfo, rocm-smi or amd-smi found a GPU'
printf '#!/bin/sh\necho "*******"\necho "Agent 2"\necho "  Name:                    gfx942"\n' > "$fake/rocminfo"
chmod +x "$fake/rocminfo"
out=$(session)
has "auto, rocminfo" "$out" '^jarvis GPU session: backend hip \(rocminfo lists gfx942\)'
has "auto, rocminfo" "$out" '--backend hip'
nogpu rocminfo
printf '#!/bin/sh\nexit 0\n' > "$fake/rocm-smi"
chmod +x "$fake/rocm-smi"
out=$(session)
has "auto, rocm-smi" "$out" 'backend hip \(rocm-smi answers\)'
nogpu rocm-smi
out=$(HIP_VISIBLE_DEVICES=0 session)
has "auto, HIP_VISIBLE_DEVICES" "$out" 'backend hip \(HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES is set\)'
printf '#!/bin/sh\n[ "$1" = -L ] && echo "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)"\nexit 0\n' > "$fake/nvidia-smi"
chmod +x "$fake/nvidia-smi"
out=$(HIP_VISIBLE_DEVICES=0 session)
has "auto, nvidia-smi first" "$out" 'backend cuda \(nvidia-smi lists GPU 0: NVIDIA H100 80GB HBM3\)'
nogpu nvidia-smi
out=$(session --backend rocm)
has "bad backend" "$out" 'is auto, cuda, hip or cpu'

# 5. gpu_bundle.sh --plan for hip (needs hipcc: Debian's, or ROCm's)
if command -v hipcc >/dev/null 2>&1 || [ -x "${ROCM_PATH:-/opt/rocm}/bin/hipcc" ]; then
  out=$(bash "$src/bench/gpu_bundle.sh" --backend hip --plan --out "$work/b" --build-dir "$work/bb" 2>&1)
  rc=$?
  [ $rc = 0 ] && ok || bad "gpu_bundle.sh --backend hip --plan exited $rc"
  has "bundle hip plan" "$out" 'plan: backend hip, compiler .*hipcc'
  has "bundle hip plan" "$out" 'plan: configure: cmake .* -DJV_CUDA=OFF -DJV_HIP=ON .*-DJV_HIP_ARCHS=gfx942;gfx90a'
  hasnt "bundle hip plan" "$out" 'stream_sweep'
  [ -e "$work/bb" ] && bad "--plan made the build folder" || ok
else
  echo "note: no hipcc: gpu_bundle.sh --backend hip --plan not checked"
fi
out=$(bash "$src/bench/gpu_bundle.sh" --backend metal --plan 2>&1)
[ $? = 2 ] && ok || bad "gpu_bundle.sh --backend metal: not a usage error"

# 6. env.sh of a hip bundle: libamdhip64 from $ROCM_PATH/lib; a missing one named
mkdir -p "$work/hb/tests" "$work/rocm/lib"
: > "$work/rocm/lib/libamdhip64.so.6"
{ echo 'JV_BUNDLE_BACKEND=hip'; echo 'JV_GPU_SONAMES="libamdhip64.so.6"'; cat "$src/bench/gpu_bundle_env.sh"; } > "$work/hb/env.sh"
out=$(env -i PATH="$base_path" HOME="$work" ROCM_PATH="$work/rocm" bash -c '. "$1"; echo "rc=$? LD=$LD_LIBRARY_PATH"' _ "$work/hb/env.sh" 2>&1)
has "hip env.sh" "$out" "jarvis env: libamdhip64.so.6 from $work/rocm/lib"
has "hip env.sh" "$out" "rc=0 LD=$work/rocm/lib"
rm "$work/rocm/lib/libamdhip64.so.6"
out=$(env -i PATH="$base_path" HOME="$work" ROCM_PATH="$work/rocm" bash -c '. "$1"; echo "rc=$?"' _ "$work/hb/env.sh" 2>&1)
has "hip env.sh, missing" "$out" 'ERROR: cannot find libamdhip64.so.6'
has "hip env.sh, missing" "$out" 'ROCm: set ROCM_PATH'
has "hip env.sh, missing" "$out" 'rc=1'

echo "test_gpu_scripts: $checks checks, $fails failed"
[ $fails = 0 ]
