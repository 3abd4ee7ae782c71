#!/usr/bin/env bash
# The HIP backend without an AMD GPU (a build with the hip backend; registered only then): `--backend hip` exits 1
# with "hip backend: no HIP device ..." and nothing on stdout; `--backend auto` (the GPU backends in backends.def
# order, CUDA before HIP, then the CPU) replays on CUDA when it opens, else says why hip did not and replays on the
# CPU. On a machine with an AMD GPU `--backend hip` replays an elementwise op on it (exit 0).
# usage: test_hip_backend.sh JARVIS_ANALYZE JARVIS_REPLAY TRACE
set -euo pipefail
analyze=${1:?usage: test_hip_backend.sh JARVIS_ANALYZE JARVIS_REPLAY TRACE}
replay=${2:?}
trace=${3:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$analyze" "$trace" -o "$tmp/out" >/dev/null 2>&1 || fail "jarvis-analyze $trace"
pkg=$tmp/out/replay_package.zip
# an elementwise op: the cheapest kind on every backend
op=$("$replay" "$pkg" --list | awk '$2 == "unary" { print $1; exit }')
[ -n "$op" ] || fail "no unary op in the example's package"

set +e
"$replay" "$pkg" --backend hip --op "$op" --iterations 1 >"$tmp/hip.out" 2>"$tmp/hip.err"
rc=$?
set -e
if [ "$rc" -eq 0 ]; then
  echo "ok   an AMD GPU is present: op $op replayed on --backend hip"
  exit 0
fi
[ "$rc" -eq 1 ] || fail "--backend hip without a device: exit $rc, not 1: $(cat "$tmp/hip.err")"
grep -q "^jarvis-replay: hip backend: no HIP device 0: " "$tmp/hip.err" ||
  fail "--backend hip: no clear message: $(cat "$tmp/hip.err")"
[ ! -s "$tmp/hip.out" ] || fail "--backend hip wrote to stdout: $(cat "$tmp/hip.out")"
echo "ok   --backend hip: exit 1, $(head -1 "$tmp/hip.err")"

"$replay" "$pkg" --backend auto --op "$op" --iterations 1 >"$tmp/auto.out" 2>"$tmp/auto.err" ||
  fail "--backend auto: exit $?: $(cat "$tmp/auto.err")"
if ! grep -q "^# device 0: .* backend cuda " "$tmp/auto.out"; then
  grep -q "^# device 0: .* backend cpu " "$tmp/auto.out" ||
    fail "--backend auto: not replayed on cuda or cpu: $(head -3 "$tmp/auto.out")"
  grep -q "hip backend: no HIP device 0: .*: falling back" "$tmp/auto.err" ||
    fail "--backend auto did not say it passed over hip: $(cat "$tmp/auto.err")"
fi
echo "ok   --backend auto: $(grep '^# device 0' "$tmp/auto.out")"
