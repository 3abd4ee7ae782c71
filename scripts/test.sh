#!/usr/bin/env bash
# Set-up command 2: install what is missing, build with warnings as errors, and run
# the test suite twice (release, then AddressSanitizer + UndefinedBehaviorSanitizer),
# plus a short bounded libFuzzer run of the trace reader when clang is present.
# Real fixture traces are read from ../shared/traces when present (tests skip otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
jv_deps test
shared=${JV_SHARED_DIR:-$(cd .. && pwd)/shared}
# the CUDA toolkit of the development machines, when nvcc is not on PATH (the CUDA backend is built when found; the
# HIP backend likewise when hipcc is, Debian's hipcc 5.2 here: both build into one jarvis-replay, warnings as errors)
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export CUDACXX=/usr/local/cuda/bin/nvcc; fi

# the release suite includes gpu_bundle (tests/integration/test_gpu_bundle.sh): with nvcc it builds the GPU bundle
# (bench/gpu_bundle.sh, ~1-2 min) and checks it against NVIDIA's pip wheels (~800 MB downloaded once into
# ~/.cache/jarvis-wheels); skipped without nvcc or the wheels
echo "== release build, warnings as errors"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DJV_WERROR=ON -DJV_SHARED_DIR="$shared" >/dev/null
cmake --build build
ctest --test-dir build -LE 'bench|fuzz' --no-tests=error --output-on-failure

echo "== ASan + UBSan build"
cmake -S . -B build-san -G Ninja -DCMAKE_BUILD_TYPE=Debug -DJV_WERROR=ON -DJV_SANITIZE=ON -DJV_BENCH=OFF \
      -DJV_SHARED_DIR="$shared" >/dev/null
cmake --build build-san
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-san -LE 'bench|fuzz' --no-tests=error --output-on-failure

if command -v clang >/dev/null; then
  echo "== libFuzzer (bounded run)"
  CC=clang cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Debug -DJV_WERROR=ON -DJV_FUZZ=ON -DJV_BENCH=OFF -DJV_CUDA=OFF \
        -DJV_HIP=OFF \
        -DJV_SHARED_DIR="$shared" >/dev/null
  cmake --build build-fuzz
  ctest --test-dir build-fuzz -L fuzz --no-tests=error --output-on-failure
fi
