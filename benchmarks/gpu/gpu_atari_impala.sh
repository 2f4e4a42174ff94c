#!/bin/bash
# Issue 35 item 3 on a lent GPU machine, in one call: IMPALA on Pong with the Nature CNN
# (benchmarks/throughput/atari_split.py), the learner on the GPU, float32 frames beside uint8
# frames (AtariEnv scale=False), sync and async (no Ray there: its wheel is over the transfer limit):
#   1. 2 cores (the dev machine's count): the split, then sync, async (max_lag 1) and async max_lag 4;
#   2. 8 cores: sync and async;
#   3. impala_batch (one update's 32 windows collected per step), 8 cores: sync and async.
# Carried: .whl/ (gymnasium, farama-notifications, easydict, ale-py for that machine's Python 3.12).
#
#   bash benchmarks/gpu/gpu_atari_impala.sh OUT_DIR [SECONDS=15] [WARMUP=6]
# To try it here: WHEELS= PYTHON=.venv/bin/python CUDA= bash benchmarks/gpu/gpu_atari_impala.sh /tmp/x 3 2
set -u
OUT=${1:?usage: gpu_atari_impala.sh OUT_DIR [SECONDS] [WARMUP]}
SECONDS_=${2:-15}
WARMUP=${3:-6}
CUDA=${CUDA---cuda}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
mkdir -p "$OUT"
. benchmarks/gpu/gpu_machine.sh  # wheels (WHEELS= to skip), PYTHONPATH, PY
nproc; nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null
A="benchmarks/throughput/atari_split.py --seconds $SECONDS_ --warmup $WARMUP --split-updates 10 --split-steps 100 $CUDA"
HOST="the GPU machine (H200, 16-core host), pinned with taskset; no Ray there"
run() {  # run NAME CORES ARGS...: into OUT/atari_split_NAME.json, its log beside
    local name=$1 cores=$2
    shift 2
    echo "== $name (cores $cores) $*  $(date +%T)"
    timeout 300 taskset -c "$cores" $PY $A "$@" --host "$HOST" --out "$OUT/atari_split_$name.json" >>"$OUT/$name.log" 2>&1
    echo "rc $?"
    grep -E '^impala' "$OUT/$name.log" | tail -n 3 | cut -c1-300
    grep -E 'Error|Traceback' "$OUT/$name.log" | head -n 5
}
for f in float uint8; do
    run impala_cuda_2cores 0,1 --part split runs --workload impala --modes sync async --frames $f
done
for f in float uint8; do
    run impala_cuda_2cores 0,1 --part runs --workload impala --modes async --max-lag 4 --frames $f
done
for f in float uint8; do
    run impala_cuda_8cores 0-7 --part runs --workload impala impala_batch --modes sync async --frames $f
done
echo "done $(date +%T)"
