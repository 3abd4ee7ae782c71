#!/usr/bin/env bash
# The device sources (kernels/*/*.cu) compile as HIP too: Debian's hipcc for gfx90a (and gfx940 with
# HIP_ARCHS="gfx90a gfx940"). Exit 77 (skipped) when hipcc is absent.
# usage: test_hip_compile.sh SOURCE_DIR
set -euo pipefail
src=${1:?usage: test_hip_compile.sh SOURCE_DIR}
command -v hipcc >/dev/null || { echo "hipcc not found: HIP compile not checked"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp # hipcc leaves an empty folder per offload target in TMPDIR at every compile
archs=${HIP_ARCHS:-gfx90a}
n=0 fail=0
shopt -s nullglob
for cu in "$src"/kernels/*/*.cu; do
  for a in $archs; do
    n=$((n + 1))
    if hipcc -std=c++17 -O3 --offload-arch="$a" -DJV_HIP -Wall -Werror -I"$src/core" -I"$src/kernels" \
         -c "$cu" -o "$tmp/out.o" 2>"$tmp/err"; then
      echo "ok   $a ${cu#$src/}"
    else
      fail=$((fail + 1))
      echo "FAIL $a ${cu#$src/}"
      cat "$tmp/err"
    fi
  done
done
[ "$n" -gt 0 ] || { echo "no .cu sources"; exit 77; }
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
