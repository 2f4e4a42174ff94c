#!/bin/bash
# Issue 35 item 3 on a lent GPU machine, in one call: benchmarks/throughput/atari_split.py's split and
# sync/async runs (no Ray there: its wheel is over the transfer limit), pinned with taskset:
#   1. CPU only on 2 cores (the dev machine's count, on a quiet machine): dqn_balanced and impala;
#   2. the learner on the GPU, 2 cores: dqn_standard (the standard replay ratio) and impala;
#   3. the learner on the GPU, 8 cores: impala.
# Carried: .whl/ (gymnasium, farama-notifications, easydict, ale-py for that machine's Python 3.12).
#
#   bash benchmarks/gpu/gpu_atari_split.sh OUT_DIR [SECONDS=20] [WARMUP=8]
# To try it here: WHEELS= PYTHON=.venv/bin/python CUDA= bash benchmarks/gpu/gpu_atari_split.sh /tmp/x 4 3
set -u
OUT=${1:?usage: gpu_atari_split.sh OUT_DIR [SECONDS] [WARMUP]}
SECONDS_=${2:-20}
WARMUP=${3:-8}
CUDA=${CUDA---cuda}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
mkdir -p "$OUT"
. benchmarks/gpu/gpu_machine.sh  # wheels (WHEELS= to skip), PYTHONPATH, PY
nproc; nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null
A="benchmarks/throughput/atari_split.py --seconds $SECONDS_ --warmup $WARMUP --split-updates 20 --modes sync async"
HOST="the GPU machine (H200, 16-core host), pinned with taskset; no Ray there"
run() {  # run NAME CORES ARGS...: one sitting, its log and JSON in OUT
    local name=$1 cores=$2
    shift 2
    echo "== $name (cores $cores) $(date +%T)"
    timeout 400 taskset -c "$cores" $PY $A "$@" --host "$HOST" --out "$OUT/atari_split_$name.json" >"$OUT/$name.log" 2>&1
    echo "rc $?"
    grep -E '^(dqn|impala)' "$OUT/$name.log" | cut -c1-400
    grep -E 'Error|Traceback' "$OUT/$name.log" | head -n 5
}
run cpu_2cores 0,1 --part split runs --workload dqn_balanced impala
run cuda_2cores 0,1 $CUDA --part split runs --workload dqn_standard impala
run cuda_8cores 0-7 $CUDA --part split runs --workload impala
echo "done $(date +%T)"
