#!/bin/bash
# On a lent GPU machine, in one call (issues 14 and 18):
#   1. tests/policy/test_cuda_graph.py: replayed updates against eager ones, including the policies not yet let
#      into capture (SQIL, FQF: let them in where it passes);
#   2. a dizoo Atari config trained for WALL_CAP seconds (benchmarks/learning/atari_configs.py): its evaluation curve.
# Carried: .whl/ (see gpu_checks.sh, plus ale-py for the ROMs).
#
#   bash benchmarks/gpu/gpu_atari.sh OUT_DIR [WALL_CAP=420] [GAME=pong] [ALGO=dqn]
# OVERRIDE='{"policy": {"learn": {"cuda_graph": true}}}' (JSON merged into the config) changes the run.
set -u
OUT=${1:?usage: gpu_atari.sh OUT_DIR [WALL_CAP] [GAME] [ALGO]}
CAP=${2:-420}
GAME=${3:-pong}
ALGO=${4:-dqn}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
mkdir -p "$OUT"
# no mujoco env runs here: its wheels (22 MB) took about 20 s of device time to install
WHEEL_SKIP=${WHEEL_SKIP-/(mujoco|glfw|pyopengl)}
. benchmarks/gpu/gpu_machine.sh  # wheels (WHEELS= to skip), PYTHONPATH, PY
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader; nproc
timeout 150 $PY -m pytest -q -rfE -p no:cacheprovider tests/policy/test_cuda_graph.py >"$OUT/pytest.log" 2>&1
grep -E '^(FAILED|ERROR)|passed|failed' "$OUT/pytest.log" | tail -n 12
timeout $((CAP + 120)) $PY benchmarks/learning/atari_configs.py --game "$GAME" --algo "$ALGO" --wall-cap "$CAP" \
    --override "${OVERRIDE:-{\}}" --out "$OUT/atari_${GAME}_${ALGO}.json" >"$OUT/atari_${GAME}_${ALGO}.log" 2>&1
echo "atari rc $?"
grep -E '^eval|best' "$OUT/atari_${GAME}_${ALGO}.log" | tail -n 40
grep -iE 'error|Traceback' "$OUT/atari_${GAME}_${ALGO}.log" | head -n 5
