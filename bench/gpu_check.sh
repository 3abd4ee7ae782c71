#!/usr/bin/env bash
# Run ON A GPU MACHINE (the device tool), in one call, after bench/gpu_prepare.sh here:
#   run(command="bash bench/gpu_check.sh", carry=[".gpu-deps"], timeout_s=600)
# Unpacks the carried Debian libraries into /tmp/jvdeps, builds the CUDA backend (Release), runs the GPU
# tests (ctest -L gpu), the baseline benchmark (copy/scale/add/triad/dot over 1 GiB arrays, bf16 8192^3
# cuBLASLt GEMM), PyTorch's matmul and device copy on the same GPU for comparison, and copies the results
# (logs, Google Benchmark JSON, nvidia-smi) to $OUT (default: bench/results/gpu-<date>/).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-bench/results/gpu-$(date -u +%F)}
mkdir -p "$OUT"
deps=/tmp/jvdeps
if [ -d .gpu-deps ]; then
  mkdir -p $deps
  for f in .gpu-deps/*.deb; do dpkg -x "$f" $deps; done
  lib=$deps/usr/lib/x86_64-linux-gnu
  # the .pc files name /usr: point them at the unpacked tree; the -dev symlinks are relative
  for pc in $lib/pkgconfig/*.pc; do sed -i "s|^prefix=.*|prefix=$deps/usr|" "$pc"; done
  export PKG_CONFIG_PATH=$lib/pkgconfig CMAKE_PREFIX_PATH=$deps/usr LD_LIBRARY_PATH=$lib:${LD_LIBRARY_PATH:-}
  export CPATH=$deps/usr/include LIBRARY_PATH=$lib
fi
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
nvidia-smi -q -d CLOCK,PERFORMANCE > "$OUT/nvidia-smi-clocks.txt" 2>&1
{
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DJV_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 &&
  cmake --build build-gpu
} > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
ctest --test-dir build-gpu -L gpu --output-on-failure > "$OUT/gpu-tests.log" 2>&1
echo "ctest -L gpu: exit $?"; tail -25 "$OUT/gpu-tests.log"
JV_BENCH_ARGS="--baseline-bytes 1G --peak-gemm 8192" \
  bash bench/bench_baseline.sh build-gpu/jarvis-replay cuda "$OUT/baseline-cuda.json" > "$OUT/baseline.log" 2>&1
echo "baseline: exit $?"; tail -12 "$OUT/baseline.log"
python3 bench/torch_reference.py > "$OUT/torch-reference.json" 2> "$OUT/torch-reference.log"
echo "torch reference: exit $?"; cat "$OUT/torch-reference.json"
