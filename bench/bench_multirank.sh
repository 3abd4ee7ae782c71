#!/usr/bin/env bash
# Multi-rank benchmark (issue 20): one jarvis-analyze run over the traces of a job against its peer, one
# jarvis-analyze run per trace in sequence (what a user did before), on the same traces in the same session.
#
# usage: bench_multirank.sh JARVIS_ANALYZE [SHARED_DIR [RESULTS_FILE]]
#
# Jobs: the 8 ranks of nv_v100_dlrm_w8 (0.9 MB each), and 4 ranks made of nv_a100_ddp_resnet_w2_rank0.json.gz
# (68 MB of JSON each; distributedInfo.rank rewritten to 0..3, written once into $BENCH_DIR). Each command runs
# JV_BENCH_REPS times (default 3); the median wall time and peak RSS are reported, for --jobs 1 and --jobs 2.
# Exit status: 0 measured, 2 bad usage or a failed run, 77 skipped (no traces).
set -euo pipefail
die() { echo "bench_multirank: $*" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 3 ] || die "usage: bench_multirank.sh JARVIS_ANALYZE [SHARED_DIR [RESULTS_FILE]]"
JARVIS=$1
SHARED=${2:-../shared}
RESULTS=${3:-${JV_BENCH_RESULTS:-}}
REPS=${JV_BENCH_REPS:-3}
BENCH_DIR=${BENCH_DIR:-$PWD}
T=$SHARED/traces
[ -f "$T/nv_v100_dlrm_w8_rank0.json" ] && [ -f "$T/nv_a100_ddp_resnet_w2_rank0.json.gz" ] ||
    { echo "bench_multirank: $T lacks the DLRM or DDP traces: skipped"; exit 77; }
[ -x /usr/bin/time ] || die "/usr/bin/time is needed"
TMP=$(mktemp -d "$BENCH_DIR/bench_multirank.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

DDP=$BENCH_DIR/multirank_ddp
if [ ! -s "$DDP/rank3.json" ]; then
    mkdir -p "$DDP"
    python3 - "$T/nv_a100_ddp_resnet_w2_rank0.json.gz" "$DDP" <<'PY'
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
for r in range(4):
    d['distributedInfo']['rank'] = r
    with open(f'{sys.argv[2]}/rank{r}.json', 'w') as f:
        json.dump(d, f)
PY
fi

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# measure NAME CMD...: median wall s and peak RSS MiB of REPS runs, appended to $TMP/rows
measure() {
    local name=$1; shift
    : >"$TMP/runs"
    for _ in $(seq "$REPS"); do
        rm -rf "$TMP/out" "$TMP"/one*
        /usr/bin/time -f '%e %M' -o "$TMP/t" "$@" >/dev/null 2>"$TMP/err" || { cat "$TMP/err" >&2; die "$name failed"; }
        cat "$TMP/t" >>"$TMP/runs"
    done
    local w m
    w=$(cut -d' ' -f1 "$TMP/runs" | median)
    m=$(cut -d' ' -f2 "$TMP/runs" | median)
    printf '| %s | %s | %.1f | %s |\n' "$name" "$w" "$(echo "$m" | awk '{print $1 / 1024}')" \
        "$(cut -d' ' -f1 "$TMP/runs" | tr '\n' ' ')" >>"$TMP/rows"
}

# one run per trace, in sequence (the peer); peak RSS is that of the largest single run
seq_runs() {
    local i=0
    for f in "$@"; do
        "$JARVIS" -q "$f" -o "$TMP/one$i" || return 1
        i=$((i + 1))
    done
}
export -f seq_runs
export JARVIS TMP

: >"$TMP/rows"
for job in dlrm ddp; do
    if [ $job = dlrm ]; then files=("$T"/nv_v100_dlrm_w8_rank*.json); else files=("$DDP"/rank*.json); fi
    measure "$job: ${#files[@]} one-trace runs in sequence" bash -c 'seq_runs "$@"' _ "${files[@]}"
    measure "$job: one run, --jobs 1" "$JARVIS" -q "${files[@]}" -o "$TMP/out" --jobs 1
    measure "$job: one run, --jobs 2" "$JARVIS" -q "${files[@]}" -o "$TMP/out" --jobs 2
done
TABLE=$( (echo "| command | wall s (median of $REPS) | peak RSS MiB | runs (s) |"; echo "|---|---:|---:|---|"; cat "$TMP/rows"))
echo "$TABLE"
if [ -n "$RESULTS" ]; then
    {
        echo
        echo "## Multi-rank benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
        echo
        echo "- machine: $(nproc) cores, $(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo), load $(cut -d' ' -f1-3 /proc/loadavg)"
        echo "- commit: $(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null || echo unknown)"
        echo
        echo "$TABLE"
    } >>"$RESULTS"
fi
