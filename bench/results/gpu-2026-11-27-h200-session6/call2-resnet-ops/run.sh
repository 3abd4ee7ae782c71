#!/usr/bin/env bash
# session 6, call 2: the ResNet-50 ops call 1's deadline left unrun, one jarvis-replay per op
set -u
ORIG_LD=${LD_LIBRARY_PATH:-}
. gpu-bundle/env.sh
R=/tmp/r; mkdir -p $R
nvidia-smi --query-gpu=name,serial,uuid,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $R/device.csv 2>&1
B=gpu-bundle/bin/jarvis-replay
timeout 40 $B --peak --device 0 --backend cuda --duty 0.25 --report $R/peak.md --benchmark_out $R/peak.json > $R/peak.log 2>&1; echo "peak rc $?"
t0=$(date +%s)
for n in 36 37 40 43 44 45 46 47 48 33 34 35 39 49 38 41 42 56; do
  [ $(( $(date +%s) - t0 )) -gt 140 ] && { echo "stop before op $n"; break; }
  timeout 30 $B s6pkg/nv_h200_resnet50_train.zip --backend cuda --device 0 --op $n --no-baseline --time-limit 0.1 --duty 0.25 \
    --benchmark_out $R/op$n.json --report $R/op$n.md > $R/op$n.log 2>&1; echo "op $n rc $? $(( $(date +%s) - t0 )) s"
done
LD_LIBRARY_PATH=$ORIG_LD timeout 50 python3 bench/torch_replay.py --package s6pkg/nv_h200_encoder_train.zip --time-limit 0.1 --duty 0.25 --out $R/torch-nv_h200_encoder_train.json > $R/torch-enc.log 2>&1; echo "torch enc rc $?"
tar czf $OUT/rest.tar.gz -C /tmp r; ls -la $R | tail -3
