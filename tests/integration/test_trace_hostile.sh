#!/usr/bin/env bash
# test_trace_hostile: runs jarvis-analyze on hostile and unusual traces.
# usage: test_trace_hostile.sh PATH/TO/jarvis-analyze
#
# Failing inputs must end with exit status 1 (never 0, never a signal), an
# error message on stderr that names the file, and no half-written output
# (no *.tmp.* file; no CSV at all when the trace itself is bad). Unusual but
# valid inputs must succeed and produce the sheets.
# Prints "N passed, N failed" as its last line; exits 1 on any failure.
set -u

if [ $# -ne 1 ] || [ ! -x "$1" ]; then
    echo "usage: $0 PATH/TO/jarvis-analyze" >&2
    exit 2
fi
BIN=$1
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac

T=$(mktemp -d "${TMPDIR:-/tmp}/jv_hostile.XXXXXX") || exit 2
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
cd "$T" || exit 2

PASS=0
FAIL=0
pass() { PASS=$((PASS + 1)); }
fail() {
    FAIL=$((FAIL + 1))
    echo "FAIL: $*" >&2
}

TIMEOUT=()
if command -v timeout >/dev/null 2>&1; then TIMEOUT=(timeout 120); fi

SHEETS="gpu_timeline ops_summary ops_summary_by_category ops_unique_args kernel_summary"

# ---------------------------------------------------------------------------
# A realistic mini Kineto trace: a cpu_op aten::mm with Input Dims/type, a
# cudaLaunchKernel nested in it with args.correlation, the kernel on pid 0
# tid 7 (stream 7) with the same correlation, ac2g flows, M events, and
# deviceProperties. The kernel runs 12.5 us, so computation_time = 0.0125 ms.
# ---------------------------------------------------------------------------
EVENTS='[
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1234, "tid": 1234,
   "ts": 1695835585762907, "dur": 50.5,
   "args": {"External id": 10, "Sequence number": 3, "Fwd thread id": 0, "Record function id": 0,
            "Input Dims": [[64, 128], [128, 256]], "Input type": ["float", "float"],
            "Input Strides": [[128, 1], [256, 1]], "Concrete Inputs": ["", ""], "Ev Idx": 0}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1234, "tid": 1234,
   "ts": 1695835585762910, "dur": 8.25,
   "args": {"External id": 10, "cbid": 211, "correlation": 77}},
  {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_64x64_nn", "pid": 0, "tid": 7,
   "ts": 1695835585762920, "dur": 12.5,
   "args": {"External id": 10, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 77,
            "registers per thread": 128, "shared memory": 16384, "blocks per SM": 1.5, "warps per SM": 6,
            "grid": [4, 2, 1], "block": [256, 1, 1], "est. achieved occupancy %": 12}},
  {"ph": "s", "id": 77, "pid": 1234, "tid": 1234, "ts": 1695835585762910, "cat": "ac2g", "name": "ac2g"},
  {"ph": "f", "id": 77, "pid": 0, "tid": 7, "ts": 1695835585762920, "cat": "ac2g", "name": "ac2g", "bp": "e"},
  {"name": "process_name", "ph": "M", "ts": 1695835585762000, "pid": 1234, "tid": 0, "args": {"name": "python3"}},
  {"name": "thread_name", "ph": "M", "ts": 1695835585762000, "pid": 1234, "tid": 1234, "args": {"name": "thread 1234 (python3)"}},
  {"name": "process_name", "ph": "M", "ts": 1695835585762000, "pid": 0, "tid": 0, "args": {"name": "python3"}},
  {"name": "process_labels", "ph": "M", "ts": 1695835585762000, "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
  {"name": "thread_name", "ph": "M", "ts": 1695835585762000, "pid": 0, "tid": 7, "args": {"name": "stream 7 "}}
]'
HEAD='{
  "schemaVersion": 1,
  "deviceProperties": [
    {"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85045231616, "computeMajor": 9,
     "computeMinor": 0, "maxThreadsPerBlock": 1024, "numSms": 132, "warpSize": 32,
     "maxSharedMemoryPerBlock": 49152}
  ],
  "cuda_runtime_version": 12040,
  "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},
  "traceEvents": '
TAIL=',
  "traceName": "mini.pt.trace.json",
  "displayTimeUnit": "ms",
  "baseTimeNanoseconds": 1695833200000000000
}'
# the documents are written without a trailing newline so that every
# truncation point cuts into the JSON
printf '%s%s%s' "$HEAD" "$EVENTS" "$TAIL" >mini.json
printf '%s' "$EVENTS" >bare.json
MINI_LEN=$(wc -c <mini.json)

# run NAME TRACE [OUTDIR]: runs the binary; sets RC, ERR (stderr text), OUTD
run() {
    local name=$1 trace=$2
    OUTD=${3:-$T/out_$name}
    "${TIMEOUT[@]}" "$BIN" "$trace" -o "$OUTD" -q >"$T/$name.stdout" 2>"$T/$name.stderr"
    RC=$?
    ERR=$(cat "$T/$name.stderr")
}

no_tmp_files() { # no_tmp_files NAME DIR
    local left
    # temporary files inside; a private folder (.NAME.jv-new-*, .jv-old-*) or a lock file beside it
    left=$({
        find "$2" \( -name '*.tmp.*' -o -name '*.jv-tmp-*' \) 2>/dev/null
        find "$(dirname "$2")" -maxdepth 1 \( -name '.*.jv-new-*' -o -name '.*.jv-old-*' -o -name '*.lock' \) 2>/dev/null
    } | head -3)
    if [ -n "$left" ]; then fail "$1: temporary files left behind: $left"; else pass; fi
}

# expect_fail NAME TRACE REGEX [OUTDIR [NAMED]]: exit 1, "error:" on stderr naming
# NAMED (default: TRACE), stderr matching REGEX (grep -E, case-insensitive),
# no temporary files, and no CSV in a fresh output directory.
expect_fail() {
    local name=$1 trace=$2 re=$3 outdir=${4:-} named=${5:-$2}
    run "$name" "$trace" "$outdir"
    if [ "$RC" -eq 1 ]; then
        pass
    elif [ "$RC" -ge 124 ]; then
        fail "$name: exit status $RC (crash, signal $((RC - 128)), or timeout); stderr: $(printf '%s' "$ERR" | head -c 600)"
    else
        fail "$name: exit status $RC, want 1; stderr: $(printf '%s' "$ERR" | head -c 300)"
    fi
    if printf '%s' "$ERR" | grep -q "^jarvis-analyze: error: "; then pass; else fail "$name: no 'jarvis-analyze: error:' line: $ERR"; fi
    if printf '%s' "$ERR" | grep -qF -- "$named"; then pass; else fail "$name: message does not name '$named': $ERR"; fi
    if [ -n "$re" ]; then
        if printf '%s' "$ERR" | grep -qiE -- "$re"; then pass; else fail "$name: message does not match /$re/: $ERR"; fi
    fi
    if printf '%s' "$ERR" | grep -qE 'AddressSanitizer|runtime error:|LeakSanitizer'; then
        fail "$name: sanitizer report: $(printf '%s' "$ERR" | head -c 600)"
    fi
    if [ -z "$outdir" ]; then
        no_tmp_files "$name" "$OUTD"
        local csv
        csv=$(find "$OUTD" -name '*.csv*' 2>/dev/null | head -3)
        if [ -n "$csv" ]; then fail "$name: output written for a bad trace: $csv"; else pass; fi
    fi
}

# expect_ok NAME TRACE: exit 0, every sheet present and non-empty, no temporary files
expect_ok() {
    local name=$1 trace=$2
    run "$name" "$trace"
    if [ "$RC" -eq 0 ]; then
        pass
    else
        fail "$name: exit status $RC, want 0; stderr: $(printf '%s' "$ERR" | head -c 600)"
        return
    fi
    if printf '%s' "$ERR" | grep -qE 'AddressSanitizer|runtime error:|LeakSanitizer'; then
        fail "$name: sanitizer report: $(printf '%s' "$ERR" | head -c 600)"
    fi
    local s missing=""
    for s in $SHEETS; do
        [ -s "$OUTD/perf_report_csvs/$s.csv" ] || missing="$missing $s.csv"
    done
    if [ -z "$missing" ]; then pass; else fail "$name: missing or empty sheets:$missing"; fi
    no_tmp_files "$name" "$OUTD"
}

# expect_no_crash NAME TRACE: exit 0 or 1 (an error must then name the file), no signal
expect_no_crash() {
    local name=$1 trace=$2
    run "$name" "$trace"
    if [ "$RC" -eq 0 ] || [ "$RC" -eq 1 ]; then
        pass
    else
        fail "$name: exit status $RC (crash, signal $((RC - 128)), or timeout); stderr: $(printf '%s' "$ERR" | head -c 600)"
    fi
    if [ "$RC" -eq 1 ]; then
        if printf '%s' "$ERR" | grep -qF -- "$trace"; then pass; else fail "$name: error does not name the file: $ERR"; fi
    fi
    if printf '%s' "$ERR" | grep -qE 'AddressSanitizer|runtime error:|LeakSanitizer'; then
        fail "$name: sanitizer report: $(printf '%s' "$ERR" | head -c 600)"
    fi
    no_tmp_files "$name" "$OUTD"
}

# csv_cell FILE KEY COL: the COL-th field of the first row whose first field is KEY (simple CSV)
csv_cell() { awk -F, -v k="$2" -v c="$3" '$1 == k { print $c; exit }' "$1"; }

expect_cell() { # expect_cell NAME FILE KEY COL VALUE
    local got
    got=$(csv_cell "$2" "$3" "$4" 2>/dev/null)
    if [ "$got" = "$5" ]; then pass; else fail "$1: $(basename "$2") row '$3' column $4 is '$got', want '$5'"; fi
}

expect_stderr() { # expect_stderr NAME REGEX
    if printf '%s' "$ERR" | grep -qiE -- "$2"; then pass; else fail "$1: stderr does not match /$2/: $ERR"; fi
}

# ===========================================================================
# positive cases
# ===========================================================================

expect_ok mini mini.json
expect_cell mini "$OUTD/perf_report_csvs/gpu_timeline.csv" computation_time 2 0.0125
expect_cell mini "$OUTD/perf_report_csvs/gpu_timeline.csv" busy_time 2 0.0125
if grep -q 'ampere_sgemm_64x64_nn' "$OUTD/perf_report_csvs/kernel_summary.csv" 2>/dev/null; then pass; else fail "mini: kernel missing from kernel_summary"; fi
if grep -qF '"((64, 128), (128, 256))"' "$OUTD/perf_report_csvs/ops_unique_args.csv" 2>/dev/null; then pass; else fail "mini: Input Dims missing from ops_unique_args"; fi
if grep -q '^aten::mm,' "$OUTD/perf_report_csvs/ops_summary.csv" 2>/dev/null; then pass; else fail "mini: aten::mm missing from ops_summary"; fi

# the same trace, gzip'd
gzip -c mini.json >mini.json.gz
expect_ok gzip mini.json.gz
expect_cell gzip "$OUTD/perf_report_csvs/gpu_timeline.csv" computation_time 2 0.0125

# two concatenated gzip members
{ head -c 700 mini.json | gzip -c; tail -c +701 mini.json | gzip -c; } >concat.json.gz
expect_ok gzip_concat concat.json.gz
expect_cell gzip_concat "$OUTD/perf_report_csvs/gpu_timeline.csv" computation_time 2 0.0125

# a bare top-level array of events
expect_ok bare_array bare.json
expect_cell bare_array "$OUTD/perf_report_csvs/gpu_timeline.csv" computation_time 2 0.0125

# string tids ("stream 7") and no args.stream: the stream comes from the tid
sed -e 's/"pid": 0, "tid": 7,/"pid": 0, "tid": "stream 7",/' -e 's/"stream": 7, //' mini.json >strtid.json
expect_ok string_tid strtid.json
expect_cell string_tid "$OUTD/perf_report_csvs/gpu_timeline.csv" computation_time 2 0.0125
if awk -F, '$3 == "ampere_sgemm_64x64_nn" && $4 == "7" { f = 1 } END { exit !f }' "$OUTD/perf_report_csvs/kernel_summary.csv" 2>/dev/null; then
    pass
else
    fail "string_tid: kernel_summary does not show stream 7"
fi

# numeric strings as pid/tid
sed -e 's/"pid": 1234, "tid": 1234,/"pid": "1234", "tid": "1234",/g' mini.json >strnum.json
expect_ok string_numeric_ids strnum.json
expect_cell string_numeric_ids "$OUTD/perf_report_csvs/gpu_timeline.csv" computation_time 2 0.0125

# no M events
# (each M event is on one line; the flow event before them then ends the array)
grep -v '"ph": "M"' mini.json | sed -e 's/"bp": "e"},$/"bp": "e"}/' >nometa.json
expect_ok no_meta nometa.json
expect_cell no_meta "$OUTD/perf_report_csvs/gpu_timeline.csv" computation_time 2 0.0125

# the old "Input dims" key (2021-era traces)
sed -e 's/"Input Dims"/"Input dims"/' mini.json >olddims.json
expect_ok old_input_dims olddims.json
if grep -qF '"((64, 128), (128, 256))"' "$OUTD/perf_report_csvs/ops_unique_args.csv" 2>/dev/null; then pass; else fail "old_input_dims: Input dims not read"; fi

# integer timestamps and durations
sed -e 's/"dur": 50.5/"dur": 50/' -e 's/"dur": 8.25/"dur": 8/' -e 's/"dur": 12.5/"dur": 12/' mini.json >intts.json
expect_ok integer_times intts.json
expect_cell integer_times "$OUTD/perf_report_csvs/gpu_timeline.csv" computation_time 2 0.012

# fractional (relative, baseTimeNanoseconds-style) timestamps with 3 decimals
sed -e 's/"ts": 1695835585762907,/"ts": 4458676522690.655,/' -e 's/"ts": 1695835585762910,/"ts": 4458676522693.655,/' \
    -e 's/"ts": 1695835585762920,/"ts": 4458676522703.655,/' mini.json >fracts.json
expect_ok fractional_ts fracts.json
expect_cell fractional_ts "$OUTD/perf_report_csvs/gpu_timeline.csv" computation_time 2 0.0125

# args before ph, keys in an unusual order
sed -e 's/{"ph": "X", "cat": "kernel", "name": "ampere_sgemm_64x64_nn", "pid": 0, "tid": 7,/{"pid": 0, "tid": 7, "name": "ampere_sgemm_64x64_nn", "cat": "kernel",/' \
    -e 's/"est. achieved occupancy %": 12}}/"est. achieved occupancy %": 12}, "ph": "X"}/' mini.json >order.json
expect_ok key_order order.json
expect_cell key_order "$OUTD/perf_report_csvs/gpu_timeline.csv" computation_time 2 0.0125

# a huge number as ts is valid JSON: the event is skipped with a warning
# (in mini.json the events array ends with a line starting with "]")
sed -e 's/^\]/,{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1234, "tid": 1234, "ts": 1e999, "dur": 1}]/' \
    mini.json >hugets.json
if grep -q '1e999' hugets.json; then pass; else fail "huge_ts: test input not built"; fi
expect_ok huge_ts hugets.json
expect_stderr huge_ts 'skipped'
expect_cell huge_ts "$OUTD/perf_report_csvs/gpu_timeline.csv" computation_time 2 0.0125

# a 400-digit duration: also skipped, not an error
DIG400=$(printf '9%.0s' $(seq 1 400))
sed -e "s/\"dur\": 8.25,/\"dur\": $DIG400,/" mini.json >hugedur.json
expect_ok huge_dur hugedur.json
expect_stderr huge_dur 'skipped'

# entries of traceEvents that are not objects are skipped with a warning
printf '%s%s%s' "$HEAD" "$(printf '%s' "$EVENTS" | sed -e 's/^\[$/[1, "x", null, [], /')" "$TAIL" >nonobj.json
expect_ok non_objects nonobj.json
expect_stderr non_objects 'not objects'
expect_cell non_objects "$OUTD/perf_report_csvs/gpu_timeline.csv" computation_time 2 0.0125

# CRLF line ends, escapes and non-ASCII in names
sed -e 's/$/\r/' -e 's/"name": "aten::mm"/"name": "aten::mm\\u00e9\\t\\"x\\"\\\/"/' mini.json >crlf.json
expect_ok crlf_escapes crlf.json
expect_cell crlf_escapes "$OUTD/perf_report_csvs/gpu_timeline.csv" computation_time 2 0.0125

# an empty traceEvents array: valid, with warnings
printf '{"traceEvents": []}' >emptyev.json
expect_ok empty_events emptyev.json
expect_stderr empty_events 'warning'

# ===========================================================================
# failing cases: the trace is bad
# ===========================================================================

: >empty.json
expect_fail empty_file empty.json 'empty'

printf 'not json\n' >notjson.txt
expect_fail not_json notjson.txt 'neither|not .*json'

printf '   \n\t ' >ws.json
expect_fail whitespace_only ws.json ''

# a valid trace truncated at several byte offsets
for off in 1 2 17 100 333 $((MINI_LEN / 2)) 1200 $((MINI_LEN - 40)) $((MINI_LEN - 2)) $((MINI_LEN - 1)); do
    [ "$off" -ge 1 ] && [ "$off" -lt "$MINI_LEN" ] || continue
    head -c "$off" mini.json >"trunc_$off.json"
    expect_fail "truncated_at_$off" "trunc_$off.json" 'truncat|unexpected end'
done
# the bare array truncated
head -c 300 bare.json >bare_trunc.json
expect_fail bare_truncated bare_trunc.json 'truncat|unexpected end'

# gzip'd trace truncated (head -c of the .gz)
GZ_LEN=$(wc -c <mini.json.gz)
for off in 2 10 30 $((GZ_LEN / 2)) $((GZ_LEN - 8)) $((GZ_LEN - 1)); do
    [ "$off" -ge 1 ] && [ "$off" -lt "$GZ_LEN" ] || continue
    head -c "$off" mini.json.gz >"gztrunc_$off.json.gz"
    expect_fail "gzip_truncated_at_$off" "gztrunc_$off.json.gz" 'truncat|ends early'
    expect_stderr "gzip_truncated_at_$off" 'gzip'
done

# a corrupt gzip: a valid header, then garbage
{ printf '\037\213\010\000\000\000\000\000\000\003'; head -c 200 /dev/zero | tr '\0' '\377'; } >corrupt.json.gz
expect_fail gzip_corrupt corrupt.json.gz 'gzip'
# garbage that is not all 0xff
{ printf '\037\213\010\000\000\000\000\000\000\003'; printf 'this is not deflate data at all %.0s' 1 2 3 4 5; } >corrupt2.json.gz
expect_fail gzip_corrupt_text corrupt2.json.gz 'gzip'
# a valid gzip whose CRC is wrong
{ head -c $((GZ_LEN - 8)) mini.json.gz; printf '\001\002\003\004'; tail -c 4 mini.json.gz; } >badcrc.json.gz
expect_fail gzip_bad_crc badcrc.json.gz 'gzip'
# a gzip whose contents are not JSON
printf 'not json' | gzip -c >gznotjson.json.gz
expect_fail gzip_not_json gznotjson.json.gz ''

# a bad escape inside a name
sed -e 's/"name": "aten::mm"/"name": "aten::\\xmm"/' mini.json >badesc.json
expect_fail bad_escape badesc.json 'escape'
sed -e 's/"name": "aten::mm"/"name": "aten::\\u12G4"/' mini.json >badesc_u.json
expect_fail bad_u_escape badesc_u.json 'escape'

# a raw control character inside a string
sed -e 's/"name": "aten::mm"/"name": "aten::\x01mm"/' mini.json >ctrl.json
expect_fail control_char ctrl.json 'control'

# a NUL byte in the middle: between two events, and inside a string
{ head -c 1000 mini.json; printf '\000'; tail -c +1001 mini.json; } >nul.json
expect_fail nul_byte nul.json ''
NAME_AT=$(grep -bo '"aten::mm"' mini.json | head -1 | cut -d: -f1)
{ head -c $((NAME_AT + 5)) mini.json; printf '\000'; tail -c +$((NAME_AT + 6)) mini.json; } >nul_str.json
expect_fail nul_in_string nul_str.json 'NUL'

# 1000-deep nesting inside args
DEEP_OPEN=$(printf '[%.0s' $(seq 1 1000))
DEEP_CLOSE=$(printf ']%.0s' $(seq 1 1000))
sed -e "s/\"Ev Idx\": 0}/\"Ev Idx\": 0, \"deep\": ${DEEP_OPEN}1${DEEP_CLOSE}}/" mini.json >deep.json
expect_fail deep_nesting deep.json 'nesting'
# and inside a value the reader keeps verbatim (Input Dims)
sed -e "s/\"Input Dims\": \[\[64, 128\], \[128, 256\]\]/\"Input Dims\": ${DEEP_OPEN}${DEEP_CLOSE}/" mini.json >deepdims.json
expect_fail deep_nesting_dims deepdims.json 'nesting'
# and at top level, outside traceEvents
printf '{"traceEvents": [], "x": %s%s}' "$DEEP_OPEN" "$DEEP_CLOSE" >deeptop.json
expect_fail deep_nesting_top deeptop.json 'nesting'

# trailing garbage after the top-level object
{ cat mini.json; printf '\n{"x": 1}\n'; } >trailing.json
expect_fail trailing_garbage trailing.json 'extra|after'
{ cat mini.json; printf ' x'; } >trailing2.json
expect_fail trailing_garbage_byte trailing2.json 'extra|after'
{ cat bare.json; printf ']'; } >trailing3.json
expect_fail trailing_bracket_bare trailing3.json 'extra|after'

# "traceEvents" that is not an array
printf '{"traceEvents": {"ph": "X"}}' >evobj.json
expect_fail events_not_array evobj.json 'not an array'
printf '{"traceEvents": "[]"}' >evstr.json
expect_fail events_string evstr.json 'not an array'
printf '{"traceEvents": null}' >evnull.json
expect_fail events_null evnull.json 'not an array'

# an object without traceEvents
printf '{"schemaVersion": 1, "deviceProperties": []}' >noev.json
expect_fail no_trace_events noev.json 'traceEvents'
printf '{}' >emptyobj.json
expect_fail empty_object emptyobj.json 'traceEvents'

# a top-level scalar
printf '42' >scalar.json
expect_fail top_level_number scalar.json ''
printf '"traceEvents"' >scalar2.json
expect_fail top_level_string scalar2.json ''

# malformed structure inside an event
sed -e 's/"cbid": 211, "correlation": 77}/"cbid": 211, "correlation": 77,}/' mini.json >trailcomma.json
expect_fail trailing_comma trailcomma.json ''
sed -e 's/"ph": "X", "cat": "cpu_op"/"ph" "X", "cat": "cpu_op"/' mini.json >nocolon.json
expect_fail missing_colon nocolon.json "':'|colon"
sed -e 's/"dur": 50.5,/"dur": 050.5,/' mini.json >leadzero.json
expect_fail leading_zero leadzero.json ''
sed -e 's/"dur": 50.5,/"dur": NaN,/' mini.json >nan.json
expect_fail nan_literal nan.json ''

# a directory as TRACE
mkdir -p adir
expect_fail directory adir 'directory'

# a missing file
expect_fail missing_file "$T/does/not/exist.json" 'cannot open|no such'

# an unreadable file (skipped when running as root, which can read anything)
if [ "$(id -u)" -ne 0 ]; then
    cp mini.json unreadable.json
    chmod 000 unreadable.json
    expect_fail unreadable unreadable.json 'cannot open|permission'
fi

# ===========================================================================
# failing cases: the output cannot be written
# ===========================================================================

# an output directory that cannot be created
expect_fail unwritable_outdir mini.json 'director' /proc/jarvis_x /proc/jarvis_x
# an output path below a regular file
: >plainfile
expect_fail outdir_is_file mini.json '' "$T/plainfile/out" "$T/plainfile"
# a folder of other files (here a directory where a sheet would go) is never replaced
# nor written into: refused, left as it was, nothing beside it
mkdir -p "$T/out_blocked/perf_report_csvs/ops_summary.csv"
expect_fail blocked_sheet mini.json 'not an earlier jarvis-analyze output' "$T/out_blocked" "out_blocked"
no_tmp_files blocked_sheet "$T/out_blocked"
if [ -d "$T/out_blocked/perf_report_csvs/ops_summary.csv" ] &&
    [ "$(find "$T/out_blocked" | wc -l)" -eq 3 ]; then
    pass
else
    fail "blocked_sheet: the folder of other files was changed: $(find "$T/out_blocked" | head -5)"
fi
# a read-only output directory (root ignores permissions: skipped then)
if [ "$(id -u)" -ne 0 ]; then
    mkdir -p "$T/out_ro/perf_report_csvs"
    chmod 555 "$T/out_ro/perf_report_csvs"
    expect_fail readonly_outdir mini.json '' "$T/out_ro" "$T/out_ro"
    no_tmp_files readonly_outdir "$T/out_ro"
    chmod 755 "$T/out_ro/perf_report_csvs"
fi

# ===========================================================================
# odd but not necessarily wrong: must not crash (exit 0 or 1)
# ===========================================================================

i=0
while IFS= read -r ev; do
    i=$((i + 1))
    printf '{"traceEvents": [%s]}' "$ev" >"odd_$i.json"
    expect_no_crash "odd_$i" "odd_$i.json"
done <<'EOF'
{"ph": 5, "name": "x"}
{"ph": "", "name": "x"}
{"ph": "X", "ts": 1, "dur": 1}
{"ph": "X", "cat": "kernel", "ts": 1, "dur": 1}
{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": -5, "pid": 0, "tid": 0, "args": {"correlation": 1}}
{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "pid": {}, "tid": [], "args": []}
{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "pid": 0, "tid": "", "args": "x"}
{"ph": "X", "cat": "kernel", "name": {"a": [1]}, "ts": "12", "dur": "1.5", "pid": -1, "tid": -7}
{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "pid": 0, "tid": "stream 99999999999999999999"}
{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "pid": 0, "tid": 7, "args": {"stream": 1e300, "device": -1e300, "correlation": 1e300}}
{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "pid": 9223372036854775807, "tid": -9223372036854775808}
{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "pid": 0, "tid": 4611686018427387904}
{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "pid": 0, "tid": 4611686018427487903}
{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 1, "dur": 1, "pid": 4611686018427487903, "tid": 1}
{"ph": "X", "cat": "cpu_op", "name": "op", "ts": 1, "dur": 10, "pid": 1, "tid": 1, "args": {"Input Dims": "oops", "Input type": 5, "Input Strides": {}, "Concrete Inputs": [[[[]]]]}}
{"ph": "X", "cat": "cpu_op", "name": "op", "ts": 1, "dur": 10, "pid": 1, "tid": 1, "args": {"Input Dims": [[1e999], [-0.0], ["x\u0000y"]]}}
{"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "ts": 1, "dur": 1, "pid": 1, "tid": 1, "args": {"correlation": 3}}, {"ph": "X", "cat": "kernel", "name": "k", "ts": 2, "dur": 1, "pid": 0, "tid": 7, "args": {"correlation": 3}}, {"ph": "X", "cat": "kernel", "name": "k2", "ts": 3, "dur": 1, "pid": 0, "tid": 7, "args": {"correlation": 3}}
{"ph": "s", "id": 1, "cat": "ac2g", "ts": 1, "pid": 1, "tid": 1}, {"ph": "f", "id": 1, "cat": "ac2g", "ts": 1, "pid": 0, "tid": 1}, {"ph": "f", "id": 1, "cat": "ac2g", "ts": 2, "pid": 0, "tid": 1}
{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": 5}}, {"ph": "M", "name": "thread_name", "args": {}}, {"ph": "M", "name": "process_labels", "pid": "x", "args": {"labels": ["GPU"]}}
{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 0, "dur": 100, "pid": 1, "tid": 1}, {"ph": "X", "cat": "cpu_op", "name": "b", "ts": 50, "dur": 100, "pid": 1, "tid": 1}, {"ph": "X", "cat": "cpu_op", "name": "c", "ts": 50, "dur": 0, "pid": 1, "tid": 1}
{"ph": "X", "cat": "cpu_op", "name": "a", "ts": -9223372036854, "dur": 9223372036854, "pid": 1, "tid": 1}
{"ph": "X", "cat": "kernel", "name": "a", "ts": 9223372036854, "dur": 9223372036854, "pid": 0, "tid": 1}
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0, "dur": 100, "pid": 1, "tid": 1, "args": {"External id": "7"}}
{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "ts": 0, "dur": 10, "pid": 0, "tid": 7}, {"ph": "X", "cat": "Memset", "name": "Memset", "ts": 5, "dur": 10, "pid": 0, "tid": "stream 7"}
EOF

# top-level oddities
printf '{"traceEvents": [], "traceEvents": []}' >dupev.json
expect_no_crash duplicate_trace_events dupev.json
# device properties given twice (and under both names): must not overrun the
# device table (caught by ASan builds; a release build may survive silently)
DEVS='[{"id": 0, "name": "A"}, {"id": 1, "name": "B"}, {"id": 2, "name": "C"}]'
printf '{"deviceProperties": %s, "computeProperties": %s, "deviceProperties": %s, "traceEvents": []}' \
    "$DEVS" "$DEVS" "$DEVS" >dupdev.json
expect_no_crash duplicate_device_properties dupdev.json
printf '{"traceEvents": [], "deviceProperties": {"id": 0}}' >devobj.json
expect_no_crash device_props_object devobj.json
printf '{"traceEvents": [], "deviceProperties": [1, "x", {"id": 1e300, "name": 5, "numSms": -1e300, "warpSize": "32"}]}' >devodd.json
expect_no_crash device_props_odd devodd.json
LONGNAME=$(printf 'G%.0s' $(seq 1 1000))
printf '{"traceEvents": [], "deviceProperties": [{"name": "%s"}], "cuda_runtime_version": "%s"}' "$LONGNAME" "$LONGNAME" >devlong.json
expect_no_crash device_props_long devlong.json
printf '\357\273\277{"traceEvents": []}' >bom.json
expect_no_crash utf8_bom bom.json
printf '{"%s": 1, "traceEvents": []}' "$(printf 'k%.0s' $(seq 1 5000))" >longkey.json
expect_no_crash long_key longkey.json

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
