#!/usr/bin/env bash
# Ingestion benchmark: jarvis-analyze on a ~1M-event trace against `gzip -dc`.
#
# usage: bench_ingest.sh JARVIS_ANALYZE [SHARED_DIR [N [RESULTS_FILE]]]
#
#   JARVIS_ANALYZE  path of the jarvis-analyze binary
#   SHARED_DIR      directory holding traces/ (default ../shared); exit 77 (skip) when traces/ is absent
#   N               minimum number of events in the generated trace (default 1000000)
#   RESULTS_FILE    markdown file to append the results to (default: $JV_BENCH_RESULTS; none when unset)
#
# The big trace is made once by gen_big_trace.py from the fixture
# traces/nv_rtx2080ti_resnet_train.json.gz and cached in $BENCH_DIR (default:
# the current directory, the build's bench/ under ctest). Each measurement
# runs JV_BENCH_REPS times (default 3); the median is reported.
#
# Targets (issue 21): jarvis wall time <= 1.0 x `gzip -dc FILE > /dev/null` wall time, and
# jarvis peak RSS <= 10 % of the uncompressed JSON size; the same for the
# comparative analysis (the trace against itself with --reference) against
# reading both traces; and the same trace decompressed to a plain .json file (JV_BENCH_PLAIN=0 skips it)
# scanned at >= 1000 MB/s: the "trace read" stage of JV_DEBUG_MEM=1, in MB/s of wall time (MB = 10^6 bytes
# of JSON). Also printed, without a target: the plain trace's whole analysis in MB/s of wall and of CPU time
# (user + system), and its scan in MB/s of CPU time.
# Exit status: 0 every target met, 1 a target missed, 2 bad usage or a failed run, 77 skipped.
set -euo pipefail

die() { echo "bench_ingest: $*" >&2; exit 2; }

if [ $# -lt 1 ] || [ $# -gt 4 ]; then
    die "usage: bench_ingest.sh JARVIS_ANALYZE [SHARED_DIR [N [RESULTS_FILE]]]"
fi
JARVIS=$1
SHARED_DIR=${2:-../shared}
N=${3:-1000000}
RESULTS=${4:-${JV_BENCH_RESULTS:-}}
REPS=${JV_BENCH_REPS:-3}
BENCH_DIR=${BENCH_DIR:-$PWD}
SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GEN="$SRC_DIR/bench/gen_big_trace.py"
FIXTURE_NAME=nv_rtx2080ti_resnet_train.json.gz
FIXTURE="$SHARED_DIR/traces/$FIXTURE_NAME"
TARGET_RATIO=1.0
TARGET_RSS_PCT=10
TARGET_SCAN_MBS=1000

if [ ! -d "$SHARED_DIR/traces" ]; then
    echo "bench_ingest: $SHARED_DIR/traces is absent: skipped"
    exit 77
fi
[ -f "$FIXTURE" ] || { echo "bench_ingest: fixture $FIXTURE is absent: skipped"; exit 77; }
[ -x "$JARVIS" ] || die "$JARVIS: not an executable"
if ! [[ "$N" =~ ^[1-9][0-9]*$ ]]; then die "N must be a positive integer, got '$N'"; fi
if ! [[ "$REPS" =~ ^[1-9][0-9]*$ ]]; then die "JV_BENCH_REPS must be a positive integer"; fi
command -v python3 >/dev/null || die "python3 is needed (trace generator, timing)"
mkdir -p "$BENCH_DIR"

# --- the big trace (cached; remade when the fixture or the generator is newer) ---
BIG="$BENCH_DIR/big_trace_${N}.json.gz"
META="$BIG.meta"
if [ ! -s "$BIG" ] || [ ! -s "$META" ] || [ "$FIXTURE" -nt "$BIG" ] || [ "$GEN" -nt "$BIG" ]; then
    echo "bench_ingest: generating $BIG (>= $N events from $FIXTURE_NAME) ..."
    rm -f "$BIG" "$META"
    python3 "$GEN" "$FIXTURE" "$BIG" -n "$N" >"$META.tmp" || die "trace generation failed"
    mv "$META.tmp" "$META"
fi
EVENTS=$(sed -n 's/.*events=\([0-9]*\).*/\1/p' "$META")
[ -n "$EVENTS" ] || die "$META: no event count"

# --- measuring ---
# run_timed OUTFILE CMD...: runs CMD (stdout to /dev/null) and writes "WALL_S PEAK_RSS_KIB USER_S SYS_S" to
# OUTFILE. With /usr/bin/time -f '%e %M %U %S' when present; else a small python wrapper (monotonic clock,
# getrusage(RUSAGE_CHILDREN) of a fresh process whose only child is CMD: the same figures).
if [ -x /usr/bin/time ] && /usr/bin/time -f '%e %M %U %S' -o /dev/null true 2>/dev/null; then
    run_timed() {
        local out=$1; shift
        /usr/bin/time -f '%e %M %U %S' -o "$out" "$@" >/dev/null
    }
else
    run_timed() {
        local out=$1; shift
        python3 - "$out" "$@" <<'PY'
import resource, subprocess, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
t0 = time.monotonic()
rc = subprocess.call(cmd, stdout=subprocess.DEVNULL)
wall = time.monotonic() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)  # ru_maxrss: KiB on Linux
with open(out, "w") as f:
    f.write("%.3f %d %.2f %.2f\n" % (wall, ru.ru_maxrss, ru.ru_utime, ru.ru_stime))
sys.exit(rc)
PY
    }
fi

# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

TMP=$(mktemp -d "$BENCH_DIR/bench_ingest.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
OUTDIR="$TMP/out"

COMPRESSED=$(stat -c %s "$BIG")
UNCOMPRESSED=$(gzip -dc "$BIG" | wc -c)

# warm the page cache so the first timed run is not a cold read
cat "$BIG" >/dev/null

: >"$TMP/gzip.txt"
: >"$TMP/jarvis.txt"
for i in $(seq "$REPS"); do
    run_timed "$TMP/r" gzip -dc "$BIG" || die "gzip -dc $BIG failed"
    read -r g_s _ <"$TMP/r"
    echo "$g_s" >>"$TMP/gzip.txt"
    rm -rf "$OUTDIR"
    run_timed "$TMP/r" "$JARVIS" -q "$BIG" -o "$OUTDIR" || die "jarvis-analyze failed on $BIG (run $i)"
    read -r j_s j_kib _ <"$TMP/r"
    echo "$j_s $j_kib" >>"$TMP/jarvis.txt"
    echo "bench_ingest: run $i/$REPS: gzip -dc ${g_s} s; jarvis-analyze ${j_s} s, peak RSS $((j_kib / 1024)) MiB"
done
[ -s "$OUTDIR/perf_report_csvs/ops_summary.csv" ] || die "jarvis-analyze wrote no ops_summary.csv"

# the same trace as plain JSON: the analysis (wall, CPU) and its scan (wall and CPU to the end of the "trace read"
# stage)
PLAIN_LINE=""
SCAN_OK=PASS
if [ "${JV_BENCH_PLAIN:-1}" != 0 ]; then
    gzip -dc "$BIG" >"$TMP/plain.json" || die "gzip -dc $BIG failed"
    : >"$TMP/plain.txt"
    for i in $(seq "$REPS"); do
        rm -rf "$OUTDIR"
        JV_DEBUG_MEM=1 run_timed "$TMP/r" "$JARVIS" -q "$TMP/plain.json" -o "$OUTDIR" 2>"$TMP/plain.err" ||
            die "jarvis-analyze failed on the plain JSON (run $i)"
        read -r p_s _ p_u p_sys <"$TMP/r"
        # "jv-mem: trace read  rss R hwm H MiB wall W cpu C s"
        read -r p_scan_w p_scan < <(awk '/^jv-mem: trace read / { print $(NF - 3), $(NF - 1) }' "$TMP/plain.err")
        [ -n "$p_scan" ] || die "jarvis-analyze printed no 'jv-mem: trace read' line (JV_DEBUG_MEM=1)"
        echo "$p_s $(awk -v u="$p_u" -v s="$p_sys" 'BEGIN { print u + s }') $p_scan $p_scan_w" >>"$TMP/plain.txt"
        echo "bench_ingest: run $i/$REPS: plain JSON: jarvis-analyze ${p_s} s (CPU $p_u user $p_sys sys), scan ${p_scan_w} s (CPU ${p_scan} s)"
    done
    rm -f "$TMP/plain.json"
    PL_S=$(cut -d' ' -f1 "$TMP/plain.txt" | median)
    PL_CPU=$(cut -d' ' -f2 "$TMP/plain.txt" | median)
    PL_SCAN=$(cut -d' ' -f3 "$TMP/plain.txt" | median)
    PL_SCAN_W=$(cut -d' ' -f4 "$TMP/plain.txt" | median)
    read -r SCAN_MBS SCAN_OK < <(awk -v u="$UNCOMPRESSED" -v w="$PL_SCAN_W" -v t="$TARGET_SCAN_MBS" 'BEGIN {
        r = (w > 0) ? u / 1e6 / w : 1e9; printf "%.0f %s\n", r, (r >= t) ? "PASS" : "FAIL" }')
    PLAIN_LINE=$(awk -v u="$UNCOMPRESSED" -v w="$PL_S" -v c="$PL_CPU" -v s="$PL_SCAN" -v sm="$SCAN_MBS" \
        -v t="$TARGET_SCAN_MBS" -v ok="$SCAN_OK" -v n="$REPS" 'BEGIN {
        printf "| plain JSON: scan (\"trace read\" stage) MB/s of wall, median of %d | %s | >= %d | %s |\n", n, sm, t, ok
        printf "| plain JSON: scan MB/s of CPU; analysis MB/s of wall; of CPU | %.0f; %.0f; %.0f | | |", u / 1e6 / s, u / 1e6 / w, u / 1e6 / c }')
fi

# the comparative analysis reads two traces (here the same one twice, as target and as --reference)
: >"$TMP/compare.txt"
for i in $(seq "$REPS"); do
    rm -rf "$OUTDIR"
    run_timed "$TMP/r" "$JARVIS" -q "$BIG" --reference "$BIG" -o "$OUTDIR" ||
        die "jarvis-analyze --reference failed on $BIG (run $i)"
    read -r c_s c_kib _ <"$TMP/r"
    echo "$c_s $c_kib" >>"$TMP/compare.txt"
    echo "bench_ingest: run $i/$REPS: jarvis-analyze --reference ${c_s} s, peak RSS $((c_kib / 1024)) MiB"
done
[ -s "$OUTDIR/comparative_analysis_fair.md" ] || die "jarvis-analyze --reference wrote no comparative_analysis_fair.md"
CMP_S=$(cut -d' ' -f1 "$TMP/compare.txt" | median)
CMP_RSS_KIB=$(cut -d' ' -f2 "$TMP/compare.txt" | median)

GZIP_S=$(cut -d' ' -f1 "$TMP/gzip.txt" | median)
JV_S=$(cut -d' ' -f1 "$TMP/jarvis.txt" | median)
JV_RSS_KIB=$(cut -d' ' -f2 "$TMP/jarvis.txt" | median)

# --- report ---
read -r COMP_MIB UNCOMP_MIB RSS_MIB RATIO RSS_PCT RATIO_OK RSS_OK < <(awk \
    -v c="$COMPRESSED" -v u="$UNCOMPRESSED" -v g="$GZIP_S" -v j="$JV_S" -v r="$JV_RSS_KIB" \
    -v tr="$TARGET_RATIO" -v tp="$TARGET_RSS_PCT" 'BEGIN {
        ratio = (g > 0) ? j / g : 1e9; pct = 100 * r * 1024 / u
        printf "%.1f %.1f %.1f %.2f %.1f %s %s\n", c / 1048576, u / 1048576, r / 1024, ratio, pct,
               (ratio <= tr) ? "PASS" : "FAIL", (pct <= tp) ? "PASS" : "FAIL" }')
# the comparison against reading both traces: 2 x gzip time, 2 x the uncompressed size
read -r CMP_RSS_MIB CMP_RATIO CMP_PCT CMP_RATIO_OK CMP_RSS_OK < <(awk \
    -v u="$UNCOMPRESSED" -v g="$GZIP_S" -v j="$CMP_S" -v r="$CMP_RSS_KIB" -v tr="$TARGET_RATIO" -v tp="$TARGET_RSS_PCT" \
    'BEGIN { ratio = (g > 0) ? j / (2 * g) : 1e9; pct = 100 * r * 1024 / (2 * u)
        printf "%.1f %.2f %.1f %s %s\n", r / 1024, ratio, pct, (ratio <= tr) ? "PASS" : "FAIL", (pct <= tp) ? "PASS" : "FAIL" }')

TABLE=$(cat <<EOF
| metric | value | target | result |
|---|---:|---:|---|
| events | $EVENTS | | |
| compressed (MiB) | $COMP_MIB | | |
| uncompressed (MiB) | $UNCOMP_MIB | | |
| gzip -dc (s, median of $REPS) | $GZIP_S | | |
| jarvis-analyze (s, median of $REPS) | $JV_S | | |
| ratio jarvis / gzip | $RATIO | <= $TARGET_RATIO | $RATIO_OK |
| jarvis peak RSS (MiB) | $RSS_MIB | | |
| RSS / uncompressed (%) | $RSS_PCT | <= $TARGET_RSS_PCT | $RSS_OK |
| jarvis-analyze TRACE --reference TRACE (s, median of $REPS) | $CMP_S | | |
| ratio to 2 x gzip -dc | $CMP_RATIO | <= $TARGET_RATIO | $CMP_RATIO_OK |
| its peak RSS (MiB) | $CMP_RSS_MIB | | |
| RSS / both traces uncompressed (%) | $CMP_PCT | <= $TARGET_RSS_PCT | $CMP_RSS_OK |
EOF
)
[ -z "$PLAIN_LINE" ] || TABLE="$TABLE
$PLAIN_LINE"
echo
echo "ingest benchmark: $(basename "$BIG")"
echo "$TABLE"
echo "gzip -dc runs (s):        $(cut -d' ' -f1 "$TMP/gzip.txt" | tr '\n' ' ')"
echo "jarvis-analyze runs (s):  $(cut -d' ' -f1 "$TMP/jarvis.txt" | tr '\n' ' ')"
echo "jarvis peak RSS (KiB):    $(cut -d' ' -f2 "$TMP/jarvis.txt" | tr '\n' ' ')"
[ -z "$PLAIN_LINE" ] || echo "plain JSON scan runs (s): $(cut -d' ' -f4 "$TMP/plain.txt" | tr '\n' ' ')"

if [ -n "$RESULTS" ]; then
    CPU=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
    MEM=$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576; exit }' /proc/meminfo 2>/dev/null || true)
    COMMIT=$(git -C "$SRC_DIR" rev-parse --short HEAD 2>/dev/null || echo unknown)
    if [ "$COMMIT" != unknown ] && [ -n "$(git -C "$SRC_DIR" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
        COMMIT="$COMMIT (+ uncommitted changes)"
    fi
    mkdir -p "$(dirname "$RESULTS")"
    {
        echo
        echo "## Ingest benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
        echo
        echo "- machine: $(nproc) cores, ${CPU:-unknown CPU}, ${MEM:-unknown memory}"
        echo "- commit: $COMMIT"
        echo "- trace: $EVENTS events, $FIXTURE_NAME tiled by bench/gen_big_trace.py"
        echo "- command: \`jarvis-analyze -q TRACE -o OUTDIR\` vs \`gzip -dc TRACE > /dev/null\`, median of $REPS runs"
        echo
        echo "$TABLE"
        echo
        echo "Runs: gzip -dc $(cut -d' ' -f1 "$TMP/gzip.txt" | tr '\n' ' ')s;" \
             "jarvis-analyze $(cut -d' ' -f1 "$TMP/jarvis.txt" | tr '\n' ' ')s;" \
             "peak RSS $(cut -d' ' -f2 "$TMP/jarvis.txt" | tr '\n' ' ')KiB."
        [ -z "$PLAIN_LINE" ] || echo "Plain JSON scan (wall): $(cut -d' ' -f4 "$TMP/plain.txt" | tr '\n' ' ')s."
    } >>"$RESULTS"
    echo "bench_ingest: results appended to $RESULTS"
fi

[ "$RATIO_OK" = PASS ] && [ "$RSS_OK" = PASS ] && [ "$CMP_RATIO_OK" = PASS ] && [ "$CMP_RSS_OK" = PASS ] &&
    [ "$SCAN_OK" = PASS ]
