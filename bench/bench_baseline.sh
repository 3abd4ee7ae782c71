#!/usr/bin/env bash
# Device baseline benchmark: jarvis-replay --peak (copy, scale, add, triad, dot over fp32 arrays much larger
# than the last-level cache, and an N^3 GEMM) on a backend, written as Google Benchmark JSON.
#
# usage: bench_baseline.sh JARVIS_REPLAY [BACKEND [OUT_JSON]]
#
#   BACKEND   cpu (default), cuda, hip, or auto
#   OUT_JSON  where the Google Benchmark JSON goes (default: baseline-<backend>.json in the current
#             directory; $JV_BENCH_RESULTS_DIR/baseline-<backend>-<date>.json when that is set)
#
# The JSON is the one jarvis-replay --benchmark_out writes: context (device, backend, driver, date) and one
# entry per kernel with real_time (median us), bytes_per_second, items_per_second and counters (min_us,
# max_us, rsd, verified, datasheet_fraction on a GPU). Two of them compare with
# /usr/share/benchmark/compare.py benchmarks a.json b.json.
# Exit status: 0 the suite ran and every kernel verified, 1 otherwise, 2 bad usage.
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 3 ] || { echo "usage: bench_baseline.sh JARVIS_REPLAY [BACKEND [OUT_JSON]]" >&2; exit 2; }
REPLAY=$1
BACKEND=${2:-cpu}
if [ $# -ge 3 ]; then OUT=$3
elif [ -n "${JV_BENCH_RESULTS_DIR:-}" ]; then OUT=$JV_BENCH_RESULTS_DIR/baseline-$BACKEND-$(date -u +%F).json
else OUT=baseline-$BACKEND.json
fi
"$REPLAY" --peak --backend "$BACKEND" --benchmark_out "$OUT" ${JV_BENCH_ARGS:-}
python3 - "$OUT" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d['context']
print(f"device: {c['device_name']} ({c['backend']}, {c['driver']}), {c['date']}")
ok = True
for b in d['benchmarks']:
    v = b.get('verified', 0) == 1 and not b.get('error_occurred')
    ok &= v
    bw = b.get('bytes_per_second', 0) / 1e9
    print(f"  {b['name']:<32} {b['real_time']:>12.2f} us  {bw:>9.2f} GB/s  "
          f"{b.get('items_per_second', 0) / 1e9:>10.2f} G items/s  rsd {100 * b.get('rsd', 0):.2f} %  "
          f"{'verified' if v else 'NOT VERIFIED'}")
sys.exit(0 if ok else 1)
PY
