#!/usr/bin/env bash
# test_gpu_bundle.sh WORKDIR [SHARED_DIR]: the GPU bundle (bench/gpu_bundle.sh) runs on a machine whose CUDA
# libraries come from NVIDIA's pip wheels alone (the device image: PyTorch 2.11.0+cu130's wheels).
#
# Builds the bundle into WORKDIR/gpu-bundle (or takes JV_GPU_BUNDLE=DIR, prebuilt), downloads the wheels that
# torch 2.11.0+cu130 pins (nvidia-cudnn-cu13, nvidia-cublas, nvidia-cuda-runtime; once, cached in
# ${XDG_CACHE_HOME:-~/.cache}/jarvis-wheels), unzips them into a site-packages folder, sources the bundle's
# env.sh with only that folder given and CUDA_HOME pointing nowhere, and then, with the loader ignoring
# ld.so.cache (ld.so --inhibit-cache --library-path), checks for every program and library of the bundle:
# no "not found"; every cuDNN/cuBLAS/cudart from the wheel folder; every other library that is not glibc's
# or the compiler runtime's (libstdc++, libgcc_s: the machine's) from gpu-bundle/lib; nothing from a CUDA toolkit. Also: the programs run that way, the GPU tests run from
# the bundle through ctest (skipped here: no device), env.sh names what is missing, and the bundle fits a
# device call (64 MiB with the working tree). Exit 0 pass, 1 fail, 77 skipped (no nvcc, or no wheels).
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: test_gpu_bundle.sh WORKDIR [SHARED_DIR]" >&2; exit 2; }
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$1"
work=$(cd "$1" && pwd)
shared=${2:-}
ldso=/lib64/ld-linux-x86-64.so.2
checks=0 fails=0
ok() { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*"; }

ldso_help=$("$ldso" --help 2>/dev/null)
grep -q -- --inhibit-cache <<<"$ldso_help" || { echo "SKIP: $ldso has no --inhibit-cache (glibc < 2.33)"; exit 77; }

# 1. the bundle
if [ -n "${JV_GPU_BUNDLE:-}" ]; then
  bundle=$(cd "$JV_GPU_BUNDLE" && pwd)
  echo "== prebuilt bundle $bundle"
else
  bundle=$work/gpu-bundle
  echo "== bench/gpu_bundle.sh --out $bundle"
  bash "$src/bench/gpu_bundle.sh" --out "$bundle" --build-dir "$work/build" ${shared:+--shared "$shared"}
  rc=$?
  [ $rc = 77 ] && { echo "SKIP: no nvcc"; exit 77; }
  [ $rc = 0 ] || { echo "FAIL: gpu_bundle.sh exited $rc"; exit 1; }
fi

# 2. the wheels torch 2.11.0+cu130 pins (its METADATA: nvidia-cudnn-cu13==9.19.0.56, cuda-toolkit==13.0.2 ->
#    nvidia-cublas==13.1.0.3, nvidia-cuda-runtime==13.0.96)
wheels=(nvidia-cudnn-cu13==9.19.0.56 nvidia-cublas==13.1.0.3 nvidia-cuda-runtime==13.0.96)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/jarvis-wheels
mkdir -p "$cache"
have_all() {
  local w n v
  for w in "${wheels[@]}"; do
    n=${w%%==*} v=${w##*==}
    compgen -G "$cache/${n//-/_}-$v-*.whl" >/dev/null || return 1
  done
}
if ! have_all; then
  echo "== downloading ${wheels[*]} into $cache (about 800 MB, once)"
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
      --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
      -d "$cache" "${wheels[@]}" || { echo "SKIP: the wheels could not be downloaded"; exit 77; }
  have_all || { echo "SKIP: the wheels could not be downloaded"; exit 77; }
fi
site=$work/site
stamp=$site/.unpacked
if [ ! -f "$stamp" ] || [ -n "$(find "$cache" -name '*.whl' -newer "$stamp")" ]; then
  rm -rf "$site" && mkdir -p "$site"
  for w in "${wheels[@]}"; do
    n=${w%%==*} v=${w##*==}
    unzip -q -o "$cache/${n//-/_}-$v-"*.whl 'nvidia/*' -x '*/include/*' -d "$site" || { echo "FAIL: unzip $w"; exit 1; }
  done
  touch "$stamp"
fi
ls "$site"/nvidia/cudnn/lib/libcudnn.so.9 "$site"/nvidia/cu13/lib/libcublasLt.so.13 >/dev/null || exit 1

# 3. env.sh with the wheel folder alone: explicitly (JV_NVIDIA_DIRS), and through python3 (PYTHONPATH)
nocuda=$work/no-cuda-here
clean_env=(env -i "PATH=$PATH" "HOME=$HOME" "CUDA_HOME=$nocuda")
ldp=$("${clean_env[@]}" JV_NVIDIA_DIRS="$site/nvidia" bash -c '. "$1/env.sh" && echo "$JV_LIBRARY_PATH"' _ "$bundle")
[ $? = 0 ] && [ -n "$ldp" ] && ok || bad "env.sh with JV_NVIDIA_DIRS=$site/nvidia: $ldp"
echo "== LD_LIBRARY_PATH from env.sh: $ldp"
if python3 -c 'import sys' 2>/dev/null; then
  ldp_py=$("${clean_env[@]}" PYTHONPATH="$site" bash -c '. "$1/env.sh" 2>/dev/null && echo "$JV_LIBRARY_PATH"' _ "$bundle")
  [ "$ldp_py" = "$ldp" ] && ok || bad "env.sh through python3's nvidia package gave '$ldp_py', not '$ldp'"
fi
msg=$("${clean_env[@]}" JV_NVIDIA_DIRS="$work/nothing" bash -c '. "$1/env.sh"' _ "$bundle" 2>&1)
rc=$?
[ $rc = 1 ] && grep -q 'cannot find.*libcudnn.so.9' <<<"$msg" && ok || bad "env.sh without libraries: exit $rc, '$msg'"
case ":$ldp:" in *"$nocuda"*|*/usr/local/cuda*) bad "env.sh used a toolkit: $ldp" ;; *) ok ;; esac

# 4. every program and library of the bundle, loader cache ignored
glibc='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libresolv|libutil|libanl|libmvec|libnsl|libstdc\+\+|libgcc_s)\.so'
cudare='^lib(cudnn|cublas|cudart)'
nbin=0
for f in "$bundle"/bin/* "$bundle"/lib/*; do
  nbin=$((nbin + 1))
  list=$("$ldso" --inhibit-cache --library-path "$ldp" --list "$f" 2>&1)
  if grep -q 'not found' <<<"$list"; then bad "$(basename "$f"): $(grep 'not found' <<<"$list" | tr -s ' \t' ' ')"; else ok; fi
  while read -r name arrow path _; do
    [ "$arrow" = "=>" ] && [ "${path:0:1}" = / ] || continue
    real=$(realpath "$path")
    if [[ $name =~ $glibc ]]; then
      continue
    elif [[ $name =~ $cudare ]]; then
      [[ $real == "$site"/* ]] && ok || bad "$(basename "$f"): $name from $real, not from the wheel folder $site"
    else
      [ "$real" = "$(realpath "$bundle/lib/$name" 2>/dev/null)" ] && ok || bad "$(basename "$f"): $name from $real, not from $bundle/lib"
    fi
    case $real in */cuda/*|/usr/local/cuda*|"$nocuda"*) bad "$(basename "$f"): $name from a toolkit: $real" ;; esac
  done <<<"$list"
done
[ -x "$bundle/bin/jarvis-replay" ] && [ -x "$bundle/bin/jarvis-analyze" ] && ok || bad "jarvis-replay or jarvis-analyze missing from $bundle/bin"
grep -q 'RUNPATH.*\$ORIGIN/../lib' < <(readelf -d "$bundle/bin/jarvis-replay") && ok || bad "jarvis-replay's RUNPATH is not \$ORIGIN/../lib"
echo "== $nbin programs and libraries listed with $ldso --inhibit-cache"

# 5. they run that way: versions, the example package's op list, a CPU replay of its smallest op
run() { "$ldso" --inhibit-cache --library-path "$ldp" "$@"; }
run "$bundle/bin/jarvis-replay" --version >/dev/null && ok || bad "jarvis-replay --version"
run "$bundle/bin/jarvis-analyze" --version >/dev/null && ok || bad "jarvis-analyze --version"
if [ -f "$bundle/packages/example.zip" ]; then
  run "$bundle/bin/jarvis-replay" "$bundle/packages/example.zip" --list >/dev/null && ok || bad "jarvis-replay --list example.zip"
else
  bad "no packages/example.zip in the bundle"
fi

# 6. the GPU tests from the bundle through ctest (each exits 77 here: no device), paths filled in by env.sh
ct=$("${clean_env[@]}" JV_NVIDIA_DIRS="$site/nvidia" JV_ENV_QUIET=1 \
     bash -c '. "$1/env.sh" && ctest --test-dir "$1/tests" -L gpu --timeout 120 2>&1' _ "$bundle")
rc=$?
echo "$ct" | tail -5
if [ $rc = 0 ] && grep -q 'tests failed out of [1-9]' <<<"$ct"; then ok; else bad "ctest -L gpu from the bundle: exit $rc"; fi

# 7. size: the bundle and the working tree travel together, 64 MiB at most
bundle_b=$(du -sb "$bundle" | cut -f1)
tree_b=$(cd "$src" && { git ls-files -z; git ls-files -z --others --exclude-standard; } 2>/dev/null | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
echo "== bundle $((bundle_b / 1024)) KiB, working tree $((${tree_b:-0} / 1024)) KiB"
[ $((bundle_b + ${tree_b:-0})) -le $((64 * 1048576)) ] && ok || bad "bundle + working tree over 64 MiB"

echo "$((checks - fails)) of $checks checks passed"
[ $fails = 0 ]
