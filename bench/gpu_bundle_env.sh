# The body of gpu-bundle/env.sh (bench/gpu_bundle.sh writes JV_BUNDLE_BACKEND and JV_GPU_SONAMES above it).
# Source it with bash:
#   . gpu-bundle/env.sh
# For each library in JV_GPU_SONAMES it looks, in this order (JV_BUNDLE_BACKEND cuda, the default), in
#   1. the pip wheels: the folders named in JV_NVIDIA_DIRS (colon-separated site-packages/nvidia folders)
#      when that is set, else python3's `nvidia` package (nvidia.__path__, PYTHONPATH applies: the wheels
#      PyTorch on the same machine uses): their cu13/lib, cudnn/lib, cu12/lib and */lib;
#   2. the toolkit: $CUDA_HOME when set, else /usr/local/cuda (lib64, lib, targets/x86_64-linux/lib);
# or (JV_BUNDLE_BACKEND hip) in
#   1. ROCm: $ROCM_PATH when set, and /opt/rocm (lib, lib64);
#   2. PyTorch's own copy (a ROCm wheel ships libamdhip64 and its libraries in torch/lib), python3's;
# and prepends the folders it used to LD_LIBRARY_PATH (the one before is kept in JV_ORIG_LD_LIBRARY_PATH,
# the folders alone in JV_LIBRARY_PATH). The bundle's own libraries are found through RUNPATH, not
# LD_LIBRARY_PATH, so other programs (python3) keep their own. It also writes tests/CTestTestfile.cmake
# (the GPU tests, ctest --test-dir gpu-bundle/tests) with this folder's path and the checkout's
# ($JV_SRC, default: the folder above the bundle). Returns 1, naming each library it cannot find.
JV_BUNDLE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export JV_BUNDLE
jv_env_main() {
  local roots=() dirs=() cands=() ldp=() missing=() d r so found cuda rocm
  if [ "${JV_BUNDLE_BACKEND:-cuda}" = hip ]; then
    for rocm in ${ROCM_PATH:+"$ROCM_PATH"} /opt/rocm; do cands+=("$rocm"/lib "$rocm"/lib64); done
    if command -v python3 >/dev/null 2>&1; then
      mapfile -t roots < <(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))' \
                           2>/dev/null)
      cands+=("${roots[@]}")
    fi
  else
    if [ -n "${JV_NVIDIA_DIRS:-}" ]; then
      IFS=: read -ra roots <<<"$JV_NVIDIA_DIRS"
    elif command -v python3 >/dev/null 2>&1; then
      mapfile -t roots < <(python3 -c 'import nvidia; print("\n".join(nvidia.__path__))' 2>/dev/null)
    fi
    for r in "${roots[@]}"; do
      for d in "$r"/cu13/lib "$r"/cudnn/lib "$r"/cu12/lib "$r"/*/lib; do cands+=("$d"); done
    done
    cuda=${CUDA_HOME:-/usr/local/cuda}
    cands+=("$cuda"/lib64 "$cuda"/lib "$cuda"/targets/x86_64-linux/lib)
  fi
  for d in "${cands[@]}"; do
    [ -d "$d" ] || continue
    case " ${dirs[*]} " in *" $d "*) ;; *) dirs+=("$d") ;; esac
  done
  for so in ${JV_GPU_SONAMES-${JV_CUDA_SONAMES:-}}; do
    found=
    for d in "${dirs[@]}"; do
      if [ -e "$d/$so" ]; then found=$d; break; fi
    done
    if [ -z "$found" ]; then missing+=("$so"); continue; fi
    [ "${JV_ENV_QUIET:-0}" = 1 ] || echo "jarvis env: $so from $found" >&2
    case ":$(IFS=:; echo "${ldp[*]}"):" in *":$found:"*) ;; *) ldp+=("$found") ;; esac
  done
  JV_ORIG_LD_LIBRARY_PATH=${JV_ORIG_LD_LIBRARY_PATH-${LD_LIBRARY_PATH:-}}
  JV_LIBRARY_PATH=$(IFS=:; echo "${ldp[*]}")
  LD_LIBRARY_PATH=$JV_LIBRARY_PATH${JV_ORIG_LD_LIBRARY_PATH:+:$JV_ORIG_LD_LIBRARY_PATH}
  export JV_ORIG_LD_LIBRARY_PATH JV_LIBRARY_PATH LD_LIBRARY_PATH
  # the GPU tests with this machine's paths
  if [ -f "$JV_BUNDLE/tests/CTestTestfile.cmake.in" ] && [ -w "$JV_BUNDLE/tests" ]; then
    sed -e "s|@BUNDLE@|$JV_BUNDLE|g" -e "s|@SRC@|${JV_SRC:-$(dirname "$JV_BUNDLE")}|g" \
        "$JV_BUNDLE/tests/CTestTestfile.cmake.in" > "$JV_BUNDLE/tests/CTestTestfile.cmake"
  fi
  # the driver: only a warning (without it the backend finds no device): AMD's /dev/kfd, NVIDIA's libcuda.so.1
  if [ "${JV_BUNDLE_BACKEND:-cuda}" = hip ]; then
    [ -e /dev/kfd ] || echo "jarvis env: note: no /dev/kfd (no amdgpu driver here?)" >&2
  elif ! { ldconfig -p 2>/dev/null | grep 'libcuda\.so\.1 ' >/dev/null; } &&
     ! for d in ${LD_LIBRARY_PATH//:/ } /usr/local/nvidia/lib64 /usr/lib/x86_64-linux-gnu /usr/lib64; do
         [ -e "$d/libcuda.so.1" ] && break; false; done; then
    echo "jarvis env: note: the driver's libcuda.so.1 was not found (no GPU driver here?)" >&2
  fi
  if [ ${#missing[@]} -gt 0 ]; then
    echo "jarvis env: ERROR: cannot find ${missing[*]}" >&2
    echo "  looked in: ${dirs[*]:-(no folder exists)}" >&2
    if [ "${JV_BUNDLE_BACKEND:-cuda}" = hip ]; then
      echo "  (ROCm: set ROCM_PATH, or install ROCm under /opt/rocm, or PyTorch for ROCm for python3)" >&2
    else
      echo "  (pip wheel folders: ${roots[*]:-none: set JV_NVIDIA_DIRS or install nvidia-cudnn-cu13, nvidia-cublas and nvidia-cuda-runtime for python3}; toolkit: $cuda)" >&2
    fi
    return 1
  fi
  return 0
}
jv_env_main
