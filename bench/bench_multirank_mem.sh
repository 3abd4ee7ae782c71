#!/usr/bin/env bash
# Multi-rank memory benchmark (issue 20: "memory as for one trace"): the peak RSS of one jarvis-analyze run
# over the traces of a job grows with the number of ranks by what each rank keeps until the job is built (its
# cross-rank view; its report model when it has communication kernels). Measured as the slope between an 8-rank
# and an N-rank job (N = JV_BENCH_RANKS, default 48) made of symbolic links to one fixture trace, --jobs 2 (two
# traces in memory at a time), with one one-trace run as the floor; a second build (the peer, e.g. the
# previous commit) is measured in the same run on the same jobs.
#
# usage: bench_multirank_mem.sh JARVIS_ANALYZE [PEER_JARVIS_ANALYZE [SHARED_DIR [RESULTS_FILE]]]
#
# Jobs: copies of nv_rtx2080ti_resnet_train.json.gz (111631 events, no communication kernel), of
# nv_v100_dlrm_w8_rank0.json (8 collectives, 196 report rows) and of nv_a100_ddp_resnet_w2_rank0.json.gz (a
# long DDP trace with collectives); the copies' ranks are numbered in the order given, with a warning. Each
# command runs JV_BENCH_REPS times (default 3): median wall s and peak RSS MiB, and for the N-rank job the CPU
# seconds (user + system: what the wall time of a loaded machine hides).
# Exit status: 0 measured, 2 bad usage or a failed run, 77 skipped (no traces).
set -euo pipefail
die() { echo "bench_multirank_mem: $*" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 4 ] || die "usage: bench_multirank_mem.sh JARVIS_ANALYZE [PEER [SHARED_DIR [RESULTS_FILE]]]"
NEW=$1
PEER=${2:-}
SHARED=${3:-../shared}
RESULTS=${4:-${JV_BENCH_RESULTS:-}}
REPS=${JV_BENCH_REPS:-3}
N=${JV_BENCH_RANKS:-48}
T=$SHARED/traces
[ -f "$T/nv_rtx2080ti_resnet_train.json.gz" ] && [ -f "$T/nv_v100_dlrm_w8_rank0.json" ] &&
    [ -f "$T/nv_a100_ddp_resnet_w2_rank0.json.gz" ] ||
    { echo "bench_multirank_mem: $T lacks the RTX 2080 Ti, DLRM or DDP traces: skipped"; exit 77; }
[ -x /usr/bin/time ] || die "/usr/bin/time is needed"
[ "$N" -gt 8 ] || die "JV_BENCH_RANKS must be above 8"
T=$(cd "$T" && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bench_multirank_mem.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# job NAME TRACE COUNT: a folder of COUNT links to TRACE
job() {
    local d=$TMP/$1-$3 ext=${2##*/}
    ext=${ext#*.}
    mkdir -p "$d"
    for i in $(seq 1 "$3"); do ln -s "$2" "$d/r$(printf %04d "$i").$ext"; done
    echo "$d"
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# measure BIN ARGS...: prints "wall_s rss_mib cpu_s" (user + system), the medians of REPS runs
measure() {
    : >"$TMP/runs"
    for _ in $(seq "$REPS"); do
        rm -rf "$TMP/out"
        /usr/bin/time -f '%e %M %U %S' -o "$TMP/t" "$@" -q -o "$TMP/out" >/dev/null 2>"$TMP/err" ||
            { cat "$TMP/err" >&2; die "$* failed"; }
        awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }' "$TMP/t" >>"$TMP/runs"
    done
    echo "$(cut -d' ' -f1 "$TMP/runs" | median) $(cut -d' ' -f2 "$TMP/runs" | median | awk '{ printf "%.1f", $1 / 1024 }')" \
        "$(cut -d' ' -f3 "$TMP/runs" | median)"
}

rows=$TMP/rows
: >"$rows"
for name in rtx2080ti dlrm ddp; do
    case $name in
    rtx2080ti) tr=$T/nv_rtx2080ti_resnet_train.json.gz ;;
    dlrm) tr=$T/nv_v100_dlrm_w8_rank0.json ;;
    ddp) tr=$T/nv_a100_ddp_resnet_w2_rank0.json.gz ;;
    esac
    j8=$(job $name "$tr" 8) jn=$(job $name "$tr" "$N")
    for side in new peer; do
        if [ $side = new ]; then bin=$NEW; else bin=$PEER; fi
        [ -n "$bin" ] || continue
        read -r w1 m1 _ < <(measure "$bin" "$tr")
        read -r w8 m8 _ < <(measure "$bin" "$j8" --jobs 2)
        read -r wn mn cn < <(measure "$bin" "$jn" --jobs 2)
        per=$(awk -v a="$m8" -v b="$mn" -v n="$N" 'BEGIN { printf "%.3f", (b - a) / (n - 8) }')
        printf '| %s | %s | %s / %s | %s / %s | %s / %s | %s | %s |\n' "$name" "$side" "$m1" "$w1" "$m8" "$w8" "$mn" "$wn" \
            "$cn" "$per" >>"$rows"
    done
done
TABLE=$( (echo "| job | build | one trace: MiB / s | 8 ranks: MiB / s | $N ranks: MiB / s | $N ranks: CPU s | MiB per rank (slope) |"
    echo "|---|---|---:|---:|---:|---:|---:|"
    cat "$rows"))
echo "$TABLE"
if [ -n "$RESULTS" ]; then
    {
        echo
        echo "## Multi-rank memory, $(date -u '+%Y-%m-%d %H:%M UTC')"
        echo
        echo "- machine: $(nproc) cores, $(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo), load $(cut -d' ' -f1-3 /proc/loadavg)"
        echo "- new: $NEW${PEER:+; peer: $PEER}; --jobs 2, medians of $REPS runs (peak RSS MiB / wall s)"
        echo
        echo "$TABLE"
    } >>"$RESULTS"
fi
