#!/usr/bin/env bash
# Set-up command 1: install what is missing, build, and analyse the bundled example trace into out/example.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
jv_deps
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target jarvis-analyze
./build/jarvis-analyze examples/resnet_block_train.json.gz -o out/example
echo
echo "== out/example/perf_report_csvs/gpu_timeline.csv"
cat out/example/perf_report_csvs/gpu_timeline.csv
echo
echo "== top ops (out/example/perf_report_csvs/ops_summary.csv)"
cut -d, -f1,4,6,7 out/example/perf_report_csvs/ops_summary.csv | head -8
