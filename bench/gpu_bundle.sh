#!/usr/bin/env bash
# Run HERE (the development machine, with nvcc): builds what a GPU session needs into one relocatable folder,
# gpu-bundle/ (ignored by git), that the device tool carries to a GPU machine, whose image has nvcc, PyTorch
# and NVIDIA's pip wheels (cuBLAS, cuDNN, cudart) but not cJSON or libzip. Then, on the device:
#   run(command="bash bench/gpu_session.sh", carry=["gpu-bundle"])
# With --backend hip the bundle is for an AMD GPU (ROCm, MI300X): built with hipcc, the HIP backend alone; the
# GPU machine's ROCm provides libamdhip64 and the libraries loaded at run time (hipBLASLt, rocBLAS, MIOpen,
# ROCm SMI). Build it with the hipcc of the ROCm the GPU machine runs (ROCm >= 5.7 for gfx942: Debian's hipcc
# 5.2 knows only gfx940, whose code an MI300X does not load, and links libamdhip64.so.5, not ROCm 6's .so.6).
#
# usage: bench/gpu_bundle.sh [--backend cuda|hip] [--plan] [--out DIR] [--build-dir DIR] [--archs "90 100"]
#                            [--shared DIR] [--no-packages]
#   --backend B      cuda (default, or $JV_BUNDLE_BACKEND) or hip
#   --plan           print the compiler found and the configure and build commands, build nothing
#   --out DIR        the bundle (default gpu-bundle in the repository root; replaced)
#   --build-dir DIR  its build tree (default build-bundle; Release, warnings as errors, JV_CUDA=ON or JV_HIP=ON)
#   --archs LIST     CUDA architectures (default $JV_BUNDLE_ARCHS or "90 100": H100/H200, and B200; 100 adds
#                    ~3 MiB); with hip the offload targets (default "gfx942 gfx90a": MI300X / MI325X, MI250X)
#   --shared DIR     the folder holding traces/ (default $JV_SHARED_DIR or ../shared): fixture packages
#   --no-packages    no replay packages (the example and the fixtures)
# Environment: JV_BUNDLE_JOBS (ninja -j, default 2), JV_BUNDLE_MAX_MB (size limit of bundle + working tree,
# default 64), CUDACXX (nvcc), HIPCC or ROCM_PATH (hipcc).
#
# The bundle:
#   bin/        jarvis-replay, jarvis-analyze and the GPU test programs (RUNPATH $ORIGIN/../lib), and
#               stream_sweep (bench/stream_sweep.cu, standalone, cudart static)
#   lib/        every shared library they need except glibc's and CUDA's (RUNPATH $ORIGIN)
#   env.sh      sourced: finds cudart, cuBLASLt and cuDNN (pip wheels first, then the toolkit; hip: libamdhip64
#               and its ROCm libraries under $ROCM_PATH, /opt/rocm, or PyTorch's torch/lib), exports
#               LD_LIBRARY_PATH, fills tests/CTestTestfile.cmake in; says which library it cannot find
#   tests/      CTestTestfile.cmake.in: the GPU tests (ctest -L gpu), paths filled in by env.sh
#   packages/   replay packages made here: example.zip and fixture traces recorded on H100
#   MANIFEST.txt  commit, date, nvcc, architectures, sizes
# Exit status: 0 built (or planned), 1 failure (size limit included), 77 no nvcc / hipcc (nothing to build).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$root/gpu-bundle
build=$root/build-bundle
archs=${JV_BUNDLE_ARCHS:-}
shared=${JV_SHARED_DIR:-$(cd .. && pwd)/shared}
packages=1
backend=${JV_BUNDLE_BACKEND:-cuda}
plan=0
while [ $# -gt 0 ]; do
  case $1 in
    --backend) backend=$2; shift 2 ;;
    --plan) plan=1; shift ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    --build-dir) build=$(realpath -m "$2"); shift 2 ;;
    --archs) archs=$2; shift 2 ;;
    --shared) shared=$2; shift 2 ;;
    --no-packages) packages=0; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu_bundle.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
max_mb=${JV_BUNDLE_MAX_MB:-64}
say() { echo "gpu_bundle: $*"; }

case $backend in
  cuda)
    archs=${archs:-90 100}
    nvcc=${CUDACXX:-$(command -v nvcc || true)}
    [ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
    if [ -z "$nvcc" ] || [ ! -x "$nvcc" ]; then
      say "no nvcc (PATH, CUDACXX, /usr/local/cuda/bin): nothing to build"; exit 77
    fi
    compiler=$nvcc
    compiler_version=$("$nvcc" --version | tail -2 | tr '\n' ' ')
    # the GPU machine's libraries (env.sh finds them there): CUDA's
    gpu_libs='^lib(cuda|cudart|cublas|cublasLt|cudnn.*|nvrtc.*|nvJitLink|cufft|curand|cusparse|cusolver|nvToolsExt|nvtx.*)\.so'
    ;;
  hip)
    archs=${archs:-gfx942 gfx90a}
    hipcc=${HIPCC:-$(command -v hipcc || true)}
    for d in "${ROCM_PATH:-}" /opt/rocm; do
      [ -z "$hipcc" ] && [ -n "$d" ] && [ -x "$d/bin/hipcc" ] && hipcc=$d/bin/hipcc
    done
    if [ -z "$hipcc" ] || [ ! -x "$hipcc" ]; then
      say "no hipcc (PATH, HIPCC, \$ROCM_PATH/bin, /opt/rocm/bin): nothing to build"; exit 77
    fi
    compiler=$hipcc
    compiler_version=$("$hipcc" --version 2>/dev/null | grep -m1 -i 'HIP version' || echo unknown)
    # the GPU machine's libraries: ROCm's runtime and what it needs (the vendor libraries are loaded at run time)
    gpu_libs='^lib(amdhip64|hsa-runtime64|hiprtc.*|amd_comgr|rocprofiler-register|hipblaslt|rocblas|MIOpen|rocm_smi64|roctx64|drm|drm_amdgpu|numa|elf)\.so'
    ;;
  *) say "--backend is cuda or hip, not '$backend'"; exit 2 ;;
esac
archlist=${archs// /;}
if [ "$backend" = hip ]; then
  configure_args=(-DJV_CUDA=OFF -DJV_HIP=ON -DJV_HIPCC="$hipcc" -DJV_HIP_ARCHS="$archlist")
else
  configure_args=(-DJV_CUDA=ON -DJV_HIP=OFF -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES="$archlist")
fi
configure=(cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DJV_WERROR=ON "${configure_args[@]}"
           -DJV_BENCH=OFF -DCMAKE_DISABLE_FIND_PACKAGE_dnnl=ON -DJV_SHARED_DIR="$shared"
           -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON '-DCMAKE_INSTALL_RPATH=$ORIGIN/../lib')
if [ $plan = 1 ]; then
  say "plan: backend $backend, compiler $compiler ($compiler_version), architectures $archlist"
  say "plan: configure: ${configure[*]}"
  say "plan: build: cmake --build $build --target jarvis-replay jarvis-analyze <the programs of ctest -L gpu>"
  say "plan: bundle $out: bin/, lib/ (less the GPU machine's: $gpu_libs), env.sh, tests/, packages/"
  [ "$backend" = cuda ] && say "plan: bin/stream_sweep from bench/stream_sweep.cu"
  exit 0
fi
for t in patchelf readelf objdump ldd python3; do
  command -v $t >/dev/null || { say "needs $t (apt-get install patchelf binutils python3)"; exit 1; }
done

t0=$(date +%s)
mkdir -p "$build"
# without oneDNN and the other GPU backend: the device runs one GPU backend, and libdnnl (38 MiB) or the other
# vendor's runtime would not fit the 64 MiB a device call carries
say "configuring $build (Release, $backend architectures $archlist, $compiler, no oneDNN)"
"${configure[@]}" >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; say "configure failed"; exit 1; }
grep -h 'jarvis: CUDA\|jarvis: HIP' "$build/configure.log" || true

# the GPU tests as ctest knows them: their names (a test program is the target of the same name; ctest
# resolves a command only once its program exists), then, built, their commands to rewrite for the bundle
tests_json=$build/gpu-tests.json
gpu_tests() { ctest --test-dir "$build" -L gpu --show-only=json-v1 > "$tests_json"; }
gpu_tests
mapfile -t test_targets < <(python3 - "$tests_json" <<'PY'
import json, sys
for t in json.load(open(sys.argv[1])).get('tests', []):
    print(t['name'])
PY
)
targets=(jarvis-replay jarvis-analyze)
ninja_targets=$(cmake --build "$build" -- -t targets all 2>/dev/null | cut -d: -f1)
for t in "${test_targets[@]}"; do grep -qx "$t" <<<"$ninja_targets" && targets+=("$t"); done
say "building ${targets[*]} (ninja -j${JV_BUNDLE_JOBS:-2})"
cmake --build "$build" -j "${JV_BUNDLE_JOBS:-2}" --target "${targets[@]}"
gpu_tests
mapfile -t test_progs < <(python3 - "$build" "$tests_json" <<'PY'
import json, os, sys
build = os.path.realpath(sys.argv[1])
for t in json.load(open(sys.argv[2])).get('tests', []):
    if 'command' not in t:
        print('MISSING:' + t['name'])
    for a in t.get('command', []):
        if os.path.isabs(a) and os.path.realpath(a).startswith(build + '/') and os.access(a, os.X_OK):
            print(os.path.realpath(a))
PY
)
if grep -q '^MISSING:' < <(printf '%s\n' "${test_progs[@]}"); then
  say "some GPU test programs are not targets of their names: building everything"
  cmake --build "$build" -j "${JV_BUNDLE_JOBS:-2}"
  gpu_tests
  mapfile -t test_progs < <(python3 -c 'import json, os, sys
build = os.path.realpath(sys.argv[1])
for t in json.load(open(sys.argv[2])).get("tests", []):
    for a in t.get("command", []):
        if os.path.isabs(a) and os.path.realpath(a).startswith(build + "/") and os.access(a, os.X_OK):
            print(os.path.realpath(a))' "$build" "$tests_json")
fi
t1=$(date +%s)

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/tests" "$out/packages"
bins=("$build/jarvis-replay" "$build/jarvis-analyze")
for f in "${test_progs[@]}"; do [[ $f == MISSING:* ]] || bins+=("$f"); done
for b in "${bins[@]}"; do
  cp "$b" "$out/bin/"
  rp=$(readelf -d "$out/bin/$(basename "$b")" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
  [ "$rp" = '$ORIGIN/../lib' ] || patchelf --set-rpath '$ORIGIN/../lib' "$out/bin/$(basename "$b")"
done

# libraries: the whole closure ldd sees, less glibc and the GPU runtime (found at run time by env.sh), and less the
# compiler runtime (libstdc++, libgcc_s: the programs need only CXXABI_1.3 and GCC_3.0 of them, every machine
# with PyTorch has them, and this machine's copies would raise the glibc the bundle needs to its own)
glibc='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libresolv|libutil|libanl|libmvec|libnsl|libBrokenLocale|libstdc\+\+|libgcc_s)\.so'
declare -A seen=() cudalibs=()
for b in "$out"/bin/*; do
  while read -r name arrow path _; do
    [ "$arrow" = "=>" ] || continue # linux-vdso.so.1 (0x...), /lib64/ld-linux-x86-64.so.2 (0x...)
    if [[ $name =~ $glibc ]]; then continue; fi
    if [[ $name =~ $gpu_libs ]]; then cudalibs[$name]=1; continue; fi
    [ "$path" = "not" ] && { say "$(basename "$b"): $name not found here"; exit 1; }
    [ -n "${seen[$name]:-}" ] && continue
    seen[$name]=$path
    cp -L "$path" "$out/lib/$name"
    chmod u+w "$out/lib/$name"
    patchelf --set-rpath '$ORIGIN' "$out/lib/$name"
  done < <(ldd "$b")
done
# cuDNN's own libraries (libcudnn.so.9 opens them at run time): env.sh checks them too
cudnn=$(ldd "$build/jarvis-replay" | awk '$1 == "libcudnn.so.9" {print $3}')
if [ -n "$cudnn" ]; then
  for f in "$(dirname "$(realpath "$cudnn")")"/libcudnn_*.so.9; do [ -e "$f" ] && cudalibs[$(basename "$f")]=1; done
fi
cuda_sonames=$(printf '%s\n' "${!cudalibs[@]}" | sort | tr '\n' ' ')
say "bundled: $(cd "$out/lib" && ls | tr '\n' ' ')"
say "from the GPU machine (env.sh): $cuda_sonames; and its libstdc++, libgcc_s, glibc"

# stream_sweep (bench/stream_sweep.cu): the standalone STREAM sweep, no project dependencies, cudart linked
# statically; SASS for each architecture of --archs and the first one's PTX (JIT on a newer GPU). Optional:
# a failure to build it is reported and the bundle goes on without it (gpu_session.sh then skips its step)
if [ "$backend" = hip ]; then
  say "bin/stream_sweep skipped: bench/stream_sweep.cu is CUDA"
elif [ -f "$root/bench/stream_sweep.cu" ]; then
  ss_gencode=()
  for a in $archs; do
    a=${a%-real}; a=${a%-virtual}
    ss_gencode+=(-gencode "arch=compute_$a,code=sm_$a")
  done
  a=$(awk '{print $1}' <<<"$archs"); a=${a%-real}; a=${a%-virtual}
  ss_gencode+=(-gencode "arch=compute_$a,code=compute_$a")
  if "$nvcc" -O3 -std=c++17 "${ss_gencode[@]}" -Xcompiler -Wall -o "$out/bin/stream_sweep" \
       "$root/bench/stream_sweep.cu" >"$build/stream_sweep.log" 2>&1; then
    say "built bin/stream_sweep (${ss_gencode[*]})"
  else
    cat "$build/stream_sweep.log"
    say "WARNING: bench/stream_sweep.cu did not build (above); the bundle goes on without bin/stream_sweep"
    rm -f "$out/bin/stream_sweep"
  fi
else
  say "no bench/stream_sweep.cu: bin/stream_sweep skipped"
fi

# the GPU tests, relocatable: build paths -> the bundle, source paths -> @SRC@ (the checkout beside it)
python3 - "$build" "$root" "$out" "$tests_json" <<'PY'
import json, os, shutil, sys
build, src, out = (os.path.realpath(p) for p in sys.argv[1:4])
def arg(a):
    r = os.path.realpath(a) if os.path.isabs(a) else a
    if r.startswith(build + '/'):
        name = os.path.basename(r)
        if not os.path.exists(os.path.join(out, 'bin', name)):
            shutil.copy(r, os.path.join(out, 'bin', name))
        return '@BUNDLE@/bin/' + name
    if r == src or r.startswith(src + '/'):
        return '@SRC@' + r[len(src):]
    return a
q = lambda s: '"' + str(s).replace('\\', '\\\\').replace('"', '\\"') + '"'
lines = ['# the bundle\'s GPU tests (bench/gpu_bundle.sh); env.sh writes CTestTestfile.cmake from this file',
         '# with @BUNDLE@ and @SRC@ filled in']
for t in json.load(open(sys.argv[4])).get('tests', []):
    name = t['name']
    lines.append(f'add_test([=[{name}]=] ' + ' '.join(q(arg(a)) for a in t['command']) + ')')
    props = []
    for p in t.get('properties', []):
        v = p['value']
        if p['name'] == 'WORKING_DIRECTORY':
            v = '@BUNDLE@/tests'
        elif p['name'] == 'TIMEOUT':
            v = int(v)
        if isinstance(v, list):
            v = ';'.join(str(x) for x in v)
        elif isinstance(v, bool):
            v = 'ON' if v else 'OFF'
        props.append(f'{p["name"]} {q(v)}')
    if props:
        lines.append(f'set_tests_properties([=[{name}]=] PROPERTIES ' + ' '.join(props) + ')')
open(os.path.join(out, 'tests', 'CTestTestfile.cmake.in'), 'w').write('\n'.join(lines) + '\n')
print(f'gpu_bundle: {sum(l.startswith("add_test") for l in lines)} GPU test(s) in tests/CTestTestfile.cmake.in')
PY

# env.sh: the GPU libraries at run time
{
  echo '# Sourced (bash): finds the GPU libraries the bundle'"'"'s programs need and exports LD_LIBRARY_PATH.'
  echo "JV_BUNDLE_BACKEND=$backend"
  echo "JV_GPU_SONAMES=\"$cuda_sonames\""
  cat "$root/bench/gpu_bundle_env.sh"
} > "$out/env.sh"

# replay packages, made here with the freshly built jarvis-analyze
if [ $packages = 1 ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  "$build/jarvis-analyze" -q "$root/examples/resnet_block_train.json.gz" -o "$tmp/example" >/dev/null
  cp "$tmp/example/replay_package.zip" "$out/packages/example.zip"
  # fixtures recorded on H100: ViT (conv patch embedding, GEMM, layer norm, elementwise), BERT (GEMM,
  # elementwise), Qwen (GEMM, RMSNorm as elementwise)
  if [ -d "$shared/traces" ]; then
    for f in nv_h100_nsfw_vit_infer nv_h100_bert_small_infer nv_h100_qwen15_05b_infer; do
      if [ -f "$shared/traces/$f.json.gz" ]; then
        "$build/jarvis-analyze" -q "$shared/traces/$f.json.gz" -o "$tmp/$f" >/dev/null
        cp "$tmp/$f/replay_package.zip" "$out/packages/$f.zip"
      else
        say "fixture $f.json.gz absent from $shared/traces: skipped"
      fi
    done
  else
    say "no $shared/traces: fixture packages skipped (only the example)"
  fi
fi

# manifest and size
glibc_min=$(objdump -T "$out"/bin/* "$out"/lib/* 2>/dev/null | grep -o 'GLIBC_2\.[0-9]*' | sort -uV | tail -1 | sed 's/GLIBC_//')
bundle_b=$(du -sb "$out" | cut -f1)
tree_b=$(cd "$root" && { git ls-files -z; git ls-files -z --others --exclude-standard; } | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
{
  echo "jarvis GPU bundle (bench/gpu_bundle.sh)"
  echo "commit: $(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet HEAD 2>/dev/null || echo ' (working tree modified)')"
  echo "date: $(date -u +%FT%TZ)"
  echo "host: $(uname -srm), $(ldd --version | head -1)"
  echo "backend: $backend"
  echo "compiler: $compiler $compiler_version"
  echo "architectures: $archlist"
  echo "needs from the GPU machine: $cuda_sonames, libstdc++.so.6, libgcc_s.so.1, glibc >= $glibc_min"
  echo "size: $bundle_b bytes (bundle), $tree_b bytes (working tree that travels with it)"
  echo "build: $((t1 - t0)) s"
  echo "files:"
  (cd "$out" && find . -type f ! -name MANIFEST.txt -printf '  %P %s\n' | sort)
} > "$out/MANIFEST.txt"
total_mb=$(( (bundle_b + tree_b) / 1048576 ))
say "$out: $((bundle_b / 1024)) KiB; with the working tree $total_mb MiB of the ${max_mb} MiB a device call carries"
say "build $((t1 - t0)) s, total $(($(date +%s) - t0)) s"
if [ $((bundle_b + tree_b)) -gt $((max_mb * 1048576)) ]; then
  say "FAILED: over ${max_mb} MiB"; exit 1
fi
