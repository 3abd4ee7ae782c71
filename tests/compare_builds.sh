#!/usr/bin/env bash
# tests/compare_builds.sh: run two builds of jarvis on every fixture trace and diff all their outputs.
#
# usage: tests/compare_builds.sh [--old REV] [--new DIR_OR_REV] [--traces DIR] [--jobs N] [--keep]
#                                [--only REGEX] [--timeout S]
#   --old REV         the baseline: any git revision (HEAD~3, origin/main, a hash); default HEAD
#   --new DIR_OR_REV  the build under test: a source folder (default: this working tree, uncommitted
#                     changes included) or a git revision
#   --traces DIR      fixture traces, *.json and *.json.gz (default: ../shared/traces beside the repo)
#   --jobs N          cases run in parallel (default: nproc); also the build's -j
#   --keep            keep the run folder (both sides' outputs) and print where it is
#   --only REGEX      only the cases whose name matches (grep -E), e.g. 'h100|example'
#   --timeout S       per command limit in seconds (default 600)
#
# A developer tool, not a ctest: it builds two trees. Each side is built Release with -DJV_CUDA=OFF
# -DJV_BENCH=OFF (targets jarvis-analyze and jarvis-replay only), out of source, in
# ${XDG_CACHE_HOME:-~/.cache}/jarvis-compare/: a revision is exported with `git archive` into
# <commit hash>/src and built once in <commit hash>/build (a second run reuses it); a folder is built
# incrementally in tree-<hash of its path>/build. Nothing in your working tree, index or build
# folders is touched; `rm -rf ~/.cache/jarvis-compare` reclaims the space.
#
# Cases, both sides run from the same relative folder with the same arguments (jarvis-analyze -q):
#   every trace in --traces; the four H100 / MI300X VF pairs of tests/integration/test_compare.py in both
#   directions (--reference); the bundled examples/*.json.gz, plain, with --micro-idle-us 5, and
#   `jarvis-replay out/replay_package.zip --backend cpu --max-bytes 8M --seed 1 --no-baseline` on its
#   package (only its deterministic results are compared: op list, statuses, verification numbers);
#   the multi-rank jobs among the traces (the 8 nv_v100_dlrm_w8 ranks, the 2 nv_sampled_w128 ranks), each
#   as one jarvis-analyze run over a quoted glob with --jobs 1 (every rank's folder and the cross-rank outputs).
# tests/compare_outputs.py compares every file of a case; its MASKS list says what is masked and why.
#
# Output: one line per case, "identical" or "N files differ" with each file's first differing lines,
# then "N traces, M identical, K differ". Exit status: 0 all identical, 1 a difference, 2 bad usage or
# a build failure, 77 nothing could be compared (no traces and no example, or --only matched nothing).
# Without --traces' folder the bundled example is still compared (and a note says so).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel 2>/dev/null) || { echo "compare_builds: $here is not in a git work tree" >&2; exit 2; }
cmp_py=$here/compare_outputs.py

usage() { sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "compare_builds: $*" >&2; exit 2; }

old_spec=HEAD new_spec=$repo traces=$(cd "$repo/.." && pwd)/shared/traces jobs=$(nproc 2>/dev/null || echo 2)
keep=0 only='' limit=600
while [ $# -gt 0 ]; do
  case $1 in
    --old) old_spec=${2:?--old needs a revision}; shift 2 ;;
    --new) new_spec=${2:?--new needs a folder or a revision}; shift 2 ;;
    --traces) traces=${2:?--traces needs a folder}; shift 2 ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    --only) only=${2:?--only needs a pattern}; shift 2 ;;
    --timeout) limit=${2:?--timeout needs seconds}; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs: not a positive number: $jobs"
[[ $limit =~ ^[1-9][0-9]*$ ]] || die "--timeout: not a positive number: $limit"
for tool in cmake ninja python3 git tar timeout flock sha1sum; do
  command -v $tool >/dev/null || die "$tool is not installed"
done

cache=${XDG_CACHE_HOME:-$HOME/.cache}/jarvis-compare
mkdir -p "$cache" || die "cannot create $cache"
work=$(mktemp -d "${TMPDIR:-/tmp}/jarvis-compare.XXXXXX") || die "mktemp failed"
cleanup() {
  local p
  for p in $(jobs -p); do kill "$p" 2>/dev/null; done
  if [ $keep = 1 ]; then echo "outputs kept in $work (old/ and new/, one folder per case)" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bin_old='' bin_new='' src_old='' src_new='' desc_old='' desc_new='' # set by build
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# build SIDE SPEC: builds a folder or a revision; sets bin_SIDE (folder of the two programs),
# src_SIDE (its source tree) and desc_SIDE
build() {
  local side=$1 spec=$2 key src dir desc hash
  if [ -d "$spec" ]; then
    src=$(cd "$spec" && pwd)
    key=tree-$(printf %s "$src" | sha1sum | cut -c1-12)
    dir=$cache/$key
    desc="folder $src"
    [ -f "$src/CMakeLists.txt" ] || die "$side: $src has no CMakeLists.txt"
  else
    hash=$(git -C "$repo" rev-parse --verify --quiet "$spec^{commit}") || die "$side: not a folder nor a revision: $spec"
    dir=$cache/$hash src=$dir/src
    desc="$spec = $(git -C "$repo" log -1 --format='%h %s' "$hash" | cut -c1-72)"
  fi
  mkdir -p "$dir"
  local t0 log=$dir/build.log
  t0=$(now)
  (
    # one build at a time per cache folder (two sessions comparing the same commit)
    flock 9
    if [ -n "${hash:-}" ] && [ ! -f "$dir/built" ]; then
      rm -rf "$src" && mkdir -p "$src" && git -C "$repo" archive "$hash" | tar -x -C "$src" || exit 1
    fi
    if [ -z "${hash:-}" ] || [ ! -f "$dir/built" ]; then
      {
        if [ ! -f "$dir/build/CMakeCache.txt" ] || ! cmake -S "$src" -B "$dir/build" >/dev/null 2>&1; then
          rm -rf "$dir/build"
          cmake -S "$src" -B "$dir/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DJV_CUDA=OFF -DJV_BENCH=OFF \
                -DJV_WERROR=OFF || exit 1
        fi
        cmake --build "$dir/build" -j "$jobs" --target jarvis-analyze jarvis-replay || exit 1
      } >"$log" 2>&1
      [ -n "${hash:-}" ] && touch "$dir/built"
    fi
    exit 0
  ) 9>"$dir/lock" || { echo "compare_builds: $side build failed ($desc); the end of $log:" >&2; tail -n 30 "$log" >&2; exit 2; }
  local a r
  a=$(find "$dir/build" -name jarvis-analyze -type f -perm -u+x -not -path '*/CMakeFiles/*' | head -n 1)
  r=$(find "$dir/build" -name jarvis-replay -type f -perm -u+x -not -path '*/CMakeFiles/*' | head -n 1)
  if [ -z "$a" ] || [ -z "$r" ]; then die "$side: jarvis-analyze or jarvis-replay not found under $dir/build"; fi
  [ "$(dirname "$a")" = "$(dirname "$r")" ] || ln -sf "$r" "$(dirname "$a")/jarvis-replay" 2>/dev/null
  printf -v "bin_$side" %s "$(dirname "$a")"
  printf -v "src_$side" %s "$src"
  printf -v "desc_$side" %s "$desc"
  echo "compare_builds: $side: $desc (built in $(secs "$t0" "$(now)") s, $dir/build)" >&2
}

# ---- the cases: NAME, TRACE, EXTRA ARGS, REPLAY (0/1), SIZE; separated by US (\x1f): not whitespace,
# so an empty field is read as empty ----
US=$'\x1f'
cases=$work/cases have_traces=0
add_case() { # name trace args replay
  local size
  size=$(stat -c %s "$2" 2>/dev/null || echo 0)
  if [ -n "$only" ] && ! grep -qE -- "$only" <<<"$1"; then return; fi
  printf '%s\n' "$1$US$2$US$3$US$4$US$size" >>"$cases"
}
list_cases() { # EXAMPLE_DIR...: the first that holds examples
  local d ex n t r a b m pair
  : >"$cases"
  for d in "$@"; do ls "$d"/*.json.gz >/dev/null 2>&1 && break; done
  for ex in "$d"/*.json.gz; do
    [ -f "$ex" ] || continue
    n=example/$(basename "$ex")
    add_case "$n" "$ex" "" 1
    add_case "$n --micro-idle-us 5" "$ex" "--micro-idle-us 5" 0
  done
  [ -d "$traces" ] || return 0
  for t in "$traces"/*.json "$traces"/*.json.gz; do
    [ -f "$t" ] || continue
    have_traces=1
    add_case "$(basename "$t")" "$t" "" 0
  done
  # the H100 / MI300X VF pairs of tests/integration/test_compare.py, both directions
  for m in bert_small_infer nsfw_vit_infer qwen15_05b_infer timesformer_infer; do
    for pair in "nv_h100_ amd_mi300xvf_" "amd_mi300xvf_ nv_h100_"; do
      read -r a b <<<"$pair"
      t=$traces/$a$m.json.gz r=$traces/$b$m.json.gz
      [ -f "$t" ] && [ -f "$r" ] && add_case "$a$m.json.gz --reference $b$m.json.gz" "$t" "--reference $r" 0
    done
  done
  # the traces of one job (multi-rank analysis: a quoted glob that jarvis-analyze expands itself), one rank at a
  # time so that the ranks' warnings on stderr come in one order (the outputs do not depend on --jobs)
  for m in nv_v100_dlrm_w8_rank nv_sampled_w128_rank; do
    ls "$traces/$m"*.json* >/dev/null 2>&1 && add_case "multi-rank $m* --jobs 1" "$traces/$m*.json*" "--jobs 1" 0
  done
  return 0
}
nothing() {
  echo "compare_builds: nothing to compare (no traces, no example${only:+, or --only \"$only\" matched none})" >&2
  exit 77
}
[ -d "$traces" ] && traces=$(cd "$traces" && pwd)
# before building: is there anything to run? (the examples of the checkout at hand stand in)
list_cases "$new_spec/examples" "$repo/examples"
[ -s "$cases" ] || nothing

build old "$old_spec"
build new "$new_spec"
[ "$bin_old" = "$bin_new" ] && echo "compare_builds: old and new are the same build: this checks that the outputs are reproducible" >&2

# the example from the new side's tree (else the old side's): both sides read the same file
list_cases "$src_new/examples" "$src_old/examples"
[ $have_traces = 1 ] || echo "compare_builds: no traces in $traces: only the bundled example is compared" >&2
ncases=$(wc -l <"$cases")
[ "$ncases" = 0 ] && nothing

# ---- run: one job per case, both sides in turn, then the comparison; largest traces first ----
# run_side SIDE INDEX NAME TRACE ARGS REPLAY: outputs in $work/SIDE/INDEX (the same relative layout
# on both sides, so no path differs): out/ (-o), exit_status, stderr, replay/
run_side() {
  local side=$1 d=$work/$1/$2 trace=$4 args=$5 replay=$6 bin t0
  bin=bin_$side bin=${!bin}
  mkdir -p "$d" && cd "$d" || return 1
  t0=$(now)
  # shellcheck disable=SC2086  # args: options split on spaces (the trace folder has none)
  timeout "$limit" "$bin/jarvis-analyze" -q "$trace" $args -o out >stdout 2>stderr
  echo $? >exit_status
  if [ "$replay" = 1 ]; then
    mkdir -p replay
    timeout "$limit" "$bin/jarvis-replay" out/replay_package.zip --backend cpu --max-bytes 8M --seed 1 \
      --no-baseline --benchmark_out replay/benchmark.json --report replay/report.md -q >replay/stdout 2>replay/stderr
    echo $? >replay/exit_status
  fi
  secs "$t0" "$(now)" >"$work/time.$side.$2"
}
run_case() {
  local i=$1 name trace args replay res
  IFS=$US read -r name trace args replay _ < <(sed -n "${i}p" "$cases")
  run_side old "$i" "$name" "$trace" "$args" "$replay"
  run_side new "$i" "$name" "$trace" "$args" "$replay"
  res=$work/result.$i
  python3 "$cmp_py" "$work/old/$i" "$work/new/$i" --strip "$work/old/$i" --strip "$work/new/$i" \
    --strip "$bin_old" --strip "$bin_new" >"$res.txt" 2>&1
  echo $? >"$res.rc"
  echo "  [$(find "$work" -maxdepth 1 -name 'result.*.rc' | wc -l)/$ncases] $name: $(head -n 1 "$res.txt")" >&2
}

t_start=$(now)
echo "compare_builds: $ncases cases, $jobs in parallel" >&2
running=0
for i in $(awk -F"$US" '{ print $5 " " NR }' "$cases" | sort -k1,1nr | cut -d' ' -f2); do
  run_case "$i" &
  running=$((running + 1))
  if [ $running -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait

# ---- report, in case order ----
echo "old: $desc_old"
echo "new: $desc_new"
same=0 differ=0 failing=0 i=0
while IFS=$US read -r name _; do
  i=$((i + 1))
  rc=$(cat "$work/result.$i.rc" 2>/dev/null || echo 2)
  to=$(cat "$work/time.old.$i" 2>/dev/null || echo '?') tn=$(cat "$work/time.new.$i" 2>/dev/null || echo '?')
  note=''
  for s in old new; do # a command that failed, timed out (124) or crashed is said, even on both sides
    for e in "$work/$s/$i/exit_status" "$work/$s/$i/replay/exit_status"; do
      [ -f "$e" ] && [ "$(cat "$e")" != 0 ] && note="$note; $s ${e#"$work/$s/$i/"} $(cat "$e")"
    done
  done
  [ -n "$note" ] && failing=$((failing + 1))
  if [ "$rc" = 0 ]; then
    same=$((same + 1))
    printf '%-72s identical  (old %s s, new %s s%s)\n' "$name" "$to" "$tn" "$note"
  else
    differ=$((differ + 1))
    printf '%-72s %s  (old %s s, new %s s%s)\n' "$name" "$(head -n 1 "$work/result.$i.txt")" "$to" "$tn" "$note"
    tail -n +2 "$work/result.$i.txt"
  fi
done <"$cases"
npair=$(grep -c -- ' --reference ' "$cases") nex=$(grep -c '^example/' "$cases") nmr=$(grep -c '^multi-rank ' "$cases")
echo "$ncases traces, $same identical, $differ differ ($((ncases - npair - nex - nmr)) fixture traces, $npair --reference pairs," \
  "$nmr multi-rank jobs, $nex example runs; $(secs "$t_start" "$(now)") s for the runs)"
[ $failing = 0 ] || echo "note: in $failing of them a command exited non-zero (said on its line)"
[ $differ = 0 ]
