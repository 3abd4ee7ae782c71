#!/usr/bin/env bash
# ctest backend_recipe: the recipe "add a backend" (backends/README.md) works. The test backend null
# (tests/backends/null/, one line in tests/backends/backends.def) is found by name in jarvis-replay-test (the
# test build's jarvis-replay, whose registry adds the test backends to the product's) and replays an op,
# verified against the CPU reference; the product's jarvis-replay knows no such backend; --backend auto still
# takes a GPU backend or else the CPU one, never a test backend.
# usage: test_backend_recipe.sh JARVIS_ANALYZE JARVIS_REPLAY JARVIS_REPLAY_TEST EXAMPLE_TRACE
set -euo pipefail
analyze=$1 replay=$2 replay_test=$3 trace=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$analyze" "$trace" -o "$tmp/out" >/dev/null 2>&1 || fail "jarvis-analyze $trace"
pkg=$tmp/out/replay_package.zip
# an elementwise op (the fastest reference): its id in --list
op=$("$replay_test" "$pkg" --list | awk '$2 == "unary" {print $1; exit}')
[ -n "$op" ] || fail "no unary op in the example's package"

# (grep reads the whole help: grep -q would close the pipe early, and pipefail would see the writer's SIGPIPE)
"$replay_test" --help | grep -- '--backend auto|cpu|cuda|hip|null$' >/dev/null || fail "--help does not list the test backend"
"$replay" --help | grep -- '--backend auto|cpu|cuda|hip$' >/dev/null || fail "the product's --help lists other backends"

# by name: the op runs on the null backend and is verified
"$replay_test" "$pkg" --backend null --op "$op" --no-baseline --iterations 1 >"$tmp/null.txt" 2>"$tmp/null.err" ||
  { cat "$tmp/null.err" >&2; fail "jarvis-replay-test --backend null exited $?"; }
grep -q 'device 0: null: the test backend  backend null' "$tmp/null.txt" || { cat "$tmp/null.txt"; fail "not the null backend"; }
grep -q 'null reference' "$tmp/null.txt" || { cat "$tmp/null.txt"; fail "the op did not run on the null backend"; }
grep -q '^# 1 ops: 1 verified, 0 WRONG' "$tmp/null.txt" || { cat "$tmp/null.txt"; fail "the op is not verified"; }

# not in the product
set +e
"$replay" "$pkg" --backend null --op "$op" --no-baseline >/dev/null 2>"$tmp/prod.err"
rc=$?
set -e
[ $rc -eq 2 ] && grep -q "bad value 'null' for --backend" "$tmp/prod.err" || { cat "$tmp/prod.err"; fail "jarvis-replay --backend null: exit $rc"; }

# auto never picks a test backend (the host fallback is the first host backend: cpu)
"$replay_test" "$pkg" --op "$op" --no-baseline --iterations 1 >"$tmp/auto.txt" 2>/dev/null || fail "auto exited $?"
grep -Eq 'backend (cpu|cuda|hip)  ' "$tmp/auto.txt" || { cat "$tmp/auto.txt"; fail "auto did not take a product backend"; }
echo "backend recipe: null found by name, op $op replayed and verified; not in jarvis-replay; auto unaffected"
