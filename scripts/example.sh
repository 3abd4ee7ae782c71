#!/usr/bin/env bash
# Set-up command 1: install what is missing, build, analyse the bundled example trace into out/example, and
# replay its package (the CPU backend where no GPU backend is built; ops over 25 MiB are skipped there).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
jv_deps
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target jarvis-analyze jarvis-replay
./build/jarvis-analyze examples/resnet_block_train.json.gz -o out/example
echo
echo "== out/example/perf_report_csvs/gpu_timeline.csv"
cat out/example/perf_report_csvs/gpu_timeline.csv
echo
echo "== top ops (out/example/perf_report_csvs/ops_summary.csv)"
cut -d, -f1,4,6,7 out/example/perf_report_csvs/ops_summary.csv | head -8
echo
echo "== top ops against the H100 roofline (out/example/perf_report_csvs/unified_perf_summary.csv; all sheets: out/example/perf_report.xlsx)"
python3 - out/example/perf_report_csvs/unified_perf_summary.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='', encoding='utf-8')))
f = lambda r, k: f"{float(r[k]):.3g}" if r.get(k) else "-"
print(f"{'op':48} {'time us':>9} {'TFLOP/s':>8} {'TB/s':>6} {'% roof':>7}  band")
for r in rows[:8]:
    print(f"{r['name'][:48]:48} {f(r, 'Kernel Time (µs)_sum'):>9} {f(r, 'TFLOPS/s_mean'):>8} {f(r, 'TB/s_mean'):>6} "
          f"{f(r, 'Pct Roofline_mean'):>7}  {r.get('Efficiency Band', '')}")
PY
echo
echo "== findings: out/example/standalone_analysis_fair.md (recommendations), out/example/category_findings/,"
echo "   out/example/report.html (open it in a browser: timeline, top ops, roofline)"
sed -n '/^## Recommendations/,/^<a id="detail"/p' out/example/standalone_analysis_fair.md | grep -E '^### ' || true
echo
echo "== replay of out/example/replay_package.zip (report: out/example/replay_report.md)"
# cap the op and baseline sizes so that the example takes seconds on a small CPU (on a GPU build, drop both
# options)
cap=(--max-bytes 25M --baseline-bytes 64M)
./build/jarvis-replay out/example/replay_package.zip --device 0 "${cap[@]}" \
    --benchmark_out out/example/replay.json --report out/example/replay_report.md
