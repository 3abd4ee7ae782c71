#!/bin/sh
# Links the HIP backend's objects (its C files and the device kernels of kernels/<family>/*.cu compiled by hipcc)
# into one relocatable object OUT in which every defined global symbol but KEEP (jv_hip_backend) is renamed
# jv_hip__<name>: the same kernels are compiled for CUDA too, and both backends link into one jarvis-replay, so the
# C entry points (jv_gpu_baseline, jv_gpu_kernel_of, ...), the kernels' host handles and template instances
# (weak, in COMDAT groups named after them) must not meet. Renaming, not localizing: the linker merges COMDAT
# groups by name, and a renamed group no longer matches the CUDA object's. References within OUT follow the
# rename; the undefined ones (HIP runtime, jv_kernels, libc) stay as they are.
# usage: jv_hip_blob.sh OUT LD NM OBJCOPY KEEP OBJECT...
set -eu
out=$1 ld=$2 nm=$3 objcopy=$4 keep=$5
shift 5
"$ld" -r -o "$out.r.o" "$@"
"$nm" -g --defined-only "$out.r.o" | awk -v k="$keep" 'NF == 3 && $3 != k { print $3 " jv_hip__" $3 }' >"$out.syms"
grep -q . "$out.syms" || { echo "jv_hip_blob.sh: no symbols to rename in $out.r.o" >&2; exit 1; }
"$objcopy" --redefine-syms="$out.syms" "$out.r.o" "$out.tmp"
rm -f "$out.r.o"
mv "$out.tmp" "$out"
