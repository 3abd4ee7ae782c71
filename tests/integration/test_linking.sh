#!/usr/bin/env bash
# The three linking regimes on hand-made traces: a kernel reaches the op that
# launched it by correlation id, by an ac2g flow pair when the kernel has no
# correlation, and (2021 traces) by "external id" when no launch event exists.
# Also: a graph launch that owns several kernels, string tids, integer ts.
set -u
exe=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
pass=0 fail=0
ok() { if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }

meta='{"ph":"M","name":"process_name","pid":10,"tid":0,"args":{"name":"python3"}}'
op='{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":10,"tid":11,"ts":100,"dur":50,"args":{"External id":7,"Input Dims":[[4,8],[8,16]],"Input type":["float","float"]}}'

# 1. correlation
cat >"$dir/corr.json" <<EOF
{"traceEvents":[$meta,$op,
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":10,"tid":11,"ts":110,"dur":5,"args":{"correlation":900}},
{"ph":"X","cat":"kernel","name":"gemm_k","pid":0,"tid":7,"ts":200,"dur":12.5,"args":{"correlation":900,"stream":7,"device":0}}]}
EOF
# 2. flows only (no correlation on the kernel), string tids, flows with numeric tid
cat >"$dir/flow.json" <<EOF
{"traceEvents":[$meta,$op,
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":10,"tid":"11","ts":110,"dur":5,"args":{}},
{"ph":"s","id":55,"pid":10,"tid":11,"ts":110,"cat":"ac2g","name":"ac2g"},
{"ph":"X","cat":"kernel","name":"gemm_k","pid":0,"tid":"stream 7","ts":200,"dur":12.5,"args":{"stream":7}},
{"ph":"f","id":55,"pid":0,"tid":"stream 7","ts":200,"cat":"ac2g","name":"ac2g","bp":"e"}]}
EOF
# 3. 2021 style: Operator/Kernel categories, lower-case "external id", launch not in the window, bare array
cat >"$dir/ext.json" <<EOF
[{"ph":"X","cat":"Operator","name":"aten::mm","pid":10,"tid":"11","ts":100,"dur":50,"args":{"External id":7,"Input dims":[[4,8],[8,16]]}},
{"ph":"X","cat":"Kernel","name":"gemm_k","pid":0,"tid":"stream 7","ts":200,"dur":12.5,"args":{"external id":7,"stream":7,"device":0}}]
EOF
# 4. a graph launch owning three kernels (one correlation id), outside any op, and an orphan kernel
cat >"$dir/graph.json" <<EOF
{"traceEvents":[
{"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":10,"tid":11,"ts":100,"dur":5,"args":{"correlation":1}},
{"ph":"X","cat":"kernel","name":"k_a","pid":0,"tid":7,"ts":200,"dur":10,"args":{"correlation":1,"stream":7}},
{"ph":"X","cat":"kernel","name":"k_b","pid":0,"tid":7,"ts":210,"dur":10,"args":{"correlation":1,"stream":7}},
{"ph":"X","cat":"kernel","name":"k_c","pid":0,"tid":7,"ts":230,"dur":10,"args":{"correlation":1,"stream":7}},
{"ph":"X","cat":"kernel","name":"orphan","pid":0,"tid":7,"ts":300,"dur":10,"args":{"correlation":99,"stream":7}}]}
EOF

for t in corr flow ext; do
  "$exe" "$dir/$t.json" -o "$dir/o_$t" >"$dir/$t.out" 2>&1; ok $? "$t: exit status"
  grep -q '^aten::mm,12.5,' "$dir/o_$t/perf_report_csvs/ops_summary.csv"; ok $? "$t: the kernel's time is attributed to aten::mm"
done
grep -q '1 by correlation' "$dir/corr.out"; ok $? "corr: linked by correlation"
grep -q '1 by flow' "$dir/flow.out"; ok $? "flow: linked by flow"
grep -q '1 by external id' "$dir/ext.out"; ok $? "ext: linked by external id"
grep -q '"((4, 8), (8, 16))"' "$dir/o_ext/perf_report_csvs/ops_unique_args.csv"; ok $? "ext: 'Input dims' (old key) read"

"$exe" "$dir/graph.json" -o "$dir/o_graph" >"$dir/graph.out" 2>&1; ok $? "graph: exit status"
grep -q '1 graph launches own 3 GPU events' "$dir/graph.out"; ok $? "graph: one launch owns three kernels"
grep -q '1 of 4 GPU events are not linked' "$dir/graph.out"; ok $? "graph: the orphan kernel is reported unlinked"
# busy = union of [200,220) and [230,240) = 30 us; the unlinked kernel is left out by default
grep -q '^busy_time,0.03,' "$dir/o_graph/perf_report_csvs/gpu_timeline.csv"; ok $? "graph: busy time 30 us"
grep -q '^cudaGraphLaunch,30.0,' "$dir/o_graph/perf_report_csvs/ops_summary.csv"; ok $? "graph: kernels under the launch call"
grep -q '^graph,k_a,7,10.0,1,' "$dir/o_graph/perf_report_csvs/kernel_summary.csv"; ok $? "graph: kernel_summary category graph (no Parent cpu_op column in a GPU-only trace)"
"$exe" "$dir/graph.json" -o "$dir/o_graph2" --include-unlinked -q 2>/dev/null
grep -q '^busy_time,0.04,' "$dir/o_graph2/perf_report_csvs/gpu_timeline.csv"; ok $? "graph: --include-unlinked counts the orphan"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
