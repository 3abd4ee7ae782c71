#!/usr/bin/env bash
# The serving stacks' replayed ops on our own kernels (kernels/actmul, norm, rope) of one backend, each beside
# the copy bandwidth jarvis-replay measures in the same run (its baseline: STREAM copy on every core on the
# CPU, the copy kernel on a GPU).
#
# usage: bench_serving.sh JARVIS_REPLAY [RESULTS_FILE [BACKEND]]   (BACKEND: cpu, the default, cuda or hip;
#        a GPU backend replays on device 0; extra jarvis-replay options in JV_SERVING_ARGS)
#
# Writes a bare replay IR of Llama-3-8B-like prefill calls (512 tokens, hidden 4096, 32 query and 8 key heads of
# 128, intermediate 14336; bf16): vLLM's silu_and_mul, rms_norm, fused_add_rms_norm, rotary_embedding (neox,
# positions 0..511) and aten::rms_norm; replays it (on the CPU with `--baseline-bytes 256M`), and appends a
# markdown section (machine, date, commit, load average, jarvis-replay's table: median us, GB/s of the model's
# minimal bytes, eff% of the measured copy bandwidth) to RESULTS_FILE (default: stdout).
# Exit status: jarvis-replay's (0: every op verified).
set -uo pipefail
[ $# -ge 1 ] && [ $# -le 3 ] || { echo "usage: bench_serving.sh JARVIS_REPLAY [RESULTS_FILE [BACKEND]]" >&2; exit 2; }
REPLAY=$(realpath "$1")
OUT=${2:-/dev/stdout}
BACKEND=${3:-cpu}
case $BACKEND in
  cpu) where=(--baseline-bytes 256M) ;;
  cuda|hip) where=(--device 0) ;;
  *) echo "bench_serving.sh: BACKEND is cpu, cuda or hip, not '$BACKEND'" >&2; exit 2 ;;
esac
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
python3 - "$TMP/serving_ir.json" <<'PY'
import json, sys
BF = 'c10::BFloat16'
def T(shape, dt=BF, init='normal'):
    st, s = [], 1
    for d in reversed(shape):
        st.insert(0, s)
        s *= d
    return {'shape': shape, 'dtype': dt, 'strides': st, 'init': init}
def E(op, args):
    return {'op_name': op, 'replay_ir': {'list_pos_args': [{'arg_name': n, 'arg_type': t, 'value': v}
                                                            for n, t, v in args], 'list_kwargs': []}}
tok, hid, inter = 512, 4096, 14336
ops = [
    E('_C::silu_and_mul', [('result', 'Tensor!', T([tok, inter], init=None)), ('input', 'Tensor', T([tok, 2 * inter]))]),
    E('_C::rms_norm', [('result', 'Tensor!', T([tok, hid], init=None)), ('input', 'Tensor', T([tok, hid])),
                       ('weight', 'Tensor', T([hid])), ('epsilon', 'float', 1e-05)]),
    E('_C::fused_add_rms_norm', [('input', 'Tensor!', T([tok, hid])), ('residual', 'Tensor!', T([tok, hid])),
                                 ('weight', 'Tensor', T([hid])), ('epsilon', 'float', 1e-05)]),
    E('_C::rotary_embedding', [('positions', 'Tensor', T([tok], 'long int', 'zeros')),
                               ('query', 'Tensor!', T([tok, 32 * 128])), ('key', 'Tensor!?', T([tok, 8 * 128])),
                               ('head_size', 'int', 128), ('cos_sin_cache', 'Tensor', T([8192, 128])),
                               ('is_neox', 'bool', True)]),
    E('aten::rms_norm', [('input', 'Tensor', T([tok, hid])), ('normalized_shape', 'SymInt[]', [hid]),
                         ('weight', 'Tensor?', T([hid])), ('eps', 'float?', 1e-05)]),
]
json.dump(ops, open(sys.argv[1], 'w'))
PY
# shellcheck disable=SC2086 # JV_SERVING_ARGS are words
"$REPLAY" "$TMP/serving_ir.json" --backend "$BACKEND" "${where[@]}" ${JV_SERVING_ARGS:-} -o "$TMP/out" > "$TMP/console.txt" 2>&1
rc=$?
{
  echo "## serving ops on the $BACKEND backend, $(date -u +%F)"
  echo
  echo "- machine: $(uname -n), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
  if [ "$BACKEND" = cuda ] && command -v nvidia-smi >/dev/null; then
    echo "- GPU: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | head -1)"
  fi
  echo "- commit: $(git -C "$HERE" rev-parse --short HEAD 2>/dev/null || echo unknown); jarvis-replay exit $rc"
  echo
  echo '```'
  grep -E '^#|^ +[0-9]+ (hot|cold|graph)|baseline|copy' "$TMP/console.txt"
  echo '```'
  echo
} >> "$OUT"
exit $rc
