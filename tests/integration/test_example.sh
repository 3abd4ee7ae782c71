#!/usr/bin/env bash
# Integration test on the bundled example trace: runs jarvis-analyze, then
# checks its sheets against values recomputed independently from the trace
# (interval unions in Python) and facts known by construction of the example.
set -u
exe=$1 trace=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
pass=0 fail=0
ok() { if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }

"$exe" -q "$trace" -o "$out/o" 2>"$out/err"; ok $? "jarvis-analyze exit status"
for s in gpu_timeline ops_summary ops_summary_by_category ops_unique_args kernel_summary; do
  [ -s "$out/o/perf_report_csvs/$s.csv" ]; ok $? "$s.csv written"
done
[ -z "$(ls "$out/o/perf_report_csvs" | grep '\.tmp\.')" ]; ok $? "no temporary files left"
[ -s "$out/o/perf_report.xlsx" ] && [ -s "$out/o/perf_report_csvs/unified_perf_summary.csv" ]; ok $? "workbook and unified_perf_summary written"
[ -z "$(ls "$out/o" | grep '\.tmp\.')" ]; ok $? "no temporary workbook left"

python3 - "$trace" "$out/o/perf_report_csvs" <<'PY'
import csv, gzip, json, sys
ev = json.load(gzip.open(sys.argv[1], 'rt'))['traceEvents']
d = sys.argv[2]
rows = lambda s: list(csv.DictReader(open(f'{d}/{s}.csv')))
def union(iv):
    iv = sorted(iv); tot = 0; cur = None
    for a, b in iv:
        if cur and a <= cur[1]: cur[1] = max(cur[1], b)
        else:
            if cur: tot += cur[1] - cur[0]
            cur = [a, b]
    return tot + (cur[1] - cur[0] if cur else 0)
gpu = [e for e in ev if e.get('cat') in ('kernel', 'gpu_memcpy', 'gpu_memset')]
comp = [(e['ts'], e['ts'] + e['dur']) for e in gpu if e['cat'] != 'gpu_memcpy']
mem = [(e['ts'], e['ts'] + e['dur']) for e in gpu if e['cat'] == 'gpu_memcpy']
tl = {r['type']: float(r['time ms']) for r in rows('gpu_timeline')}
bad = 0
def check(c, what):
    global bad
    if not c: print('FAIL:', what); bad += 1
total = max(b for a, b in comp + mem) - min(a for a, b in comp + mem)
check(abs(tl['computation_time'] - union(comp) / 1e3) < 1e-6, f"computation {tl['computation_time']} vs {union(comp)/1e3}")
check(abs(tl['busy_time'] - union(comp + mem) / 1e3) < 1e-6, 'busy')
check(abs(tl['total_time'] - total / 1e3) < 1e-6, 'total')
check(abs(tl['idle_time'] - (total - union(comp + mem)) / 1e3) < 1e-6, 'idle')
check(abs(tl['exposed_memcpy_time'] - union(mem) / 1e3) < 1e-6, 'memcpy is not overlapped in the example')
ops = {r['name']: r for r in rows('ops_summary')}
# by construction: 4 conv blocks forward and backward, one GEMM
for name, cnt, cat in [('aten::cudnn_convolution', 4, 'CONV_fwd'), ('aten::convolution_backward', 4, 'CONV_bwd'),
                       ('aten::cudnn_batch_norm', 4, 'NORM_fwd'), ('aten::addmm', 1, 'GEMM'),
                       ('aten::clamp_min_', 4, 'elementwise')]:
    check(name in ops and int(ops[name]['Count']) == cnt and ops[name]['Categories'] == f"['{cat}']", name)
# direct time of convolution_backward = sum of its dgrad + wgrad kernels (serial stream, no overlap)
k = [e for e in gpu if 'grad_implicit_gemm' in e['name']]
check(abs(float(ops['aten::convolution_backward']['total_direct_kernel_time_sum']) - sum(e['dur'] for e in k)) < 1e-3,
      'convolution_backward direct time')
ua = [r for r in rows('ops_unique_args') if r['name'] == 'aten::cudnn_convolution']
check(len(ua) == 1 and ua[0]['Input Dims'] == '((32, 64, 56, 56), (64, 64, 3, 3), (), (), (), (), (), ())'
      and ua[0]['operation_count'] == '4', 'ops_unique_args convolution row')
ks = rows('kernel_summary')
check(sum(int(r['Kernel duration (µs)_count']) for r in ks) == sum(1 for e in gpu if e['cat'] == 'kernel'), 'kernel count')
sys.exit(1 if bad else 0)
PY
ok $? "sheets match values recomputed from the trace"

# call stack: the first cudnn_convolution op, with its kernel underneath
uid=$(python3 -c "
import gzip,json,sys
ev=json.load(gzip.open('$trace','rt'))['traceEvents']
print(next(i for i,e in enumerate(ev) if e.get('name')=='aten::cudnn_convolution'))")
"$exe" "$trace" --call-stack "$uid" >"$out/cs" 2>&1; ok $? "--call-stack exit status"
grep -q "aten::conv2d" "$out/cs"; ok $? "call stack shows the parent chain"
grep -q "sm90_xmma_fprop_implicit_gemm" "$out/cs"; ok $? "call stack shows the kernel"
grep -q "Input Dims=((32, 64, 56, 56)" "$out/cs"; ok $? "call stack shows Input Dims"
"$exe" "$trace" --call-stack 3 >/dev/null 2>"$out/e"; [ $? = 1 ] && grep -q "not a complete" "$out/e"; ok $? "UID of a metadata event is refused"
"$exe" "$trace" >/dev/null 2>&1; [ $? = 2 ]; ok $? "missing -o is a usage error (exit 2)"
"$exe" "$trace" -o "$out/m" --micro-idle-us 5 -q; ok $? "--micro-idle-us"
grep -q '^micro_idle_time' "$out/m/perf_report_csvs/gpu_timeline.csv" && grep -q '^macro_idle_time' "$out/m/perf_report_csvs/gpu_timeline.csv"
ok $? "idle split into micro and macro rows"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
