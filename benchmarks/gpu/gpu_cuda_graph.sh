#!/bin/bash
# learn.cuda_graph on a lent GPU, the short check:
#   1. tests/policy/test_cuda_graph.py (replayed updates of SAC, EDAC and the DQN family against eager ones; then
#      SQIL and FQF, not yet let in, tried the same way)
#   2. benchmarks/throughput/cuda_graph_updates.py: ms per update, eager against graphed (UPDATES per round, 3 rounds);
#   3. unless ENV_STEPS is 0: the whole SAC HalfCheetah pipeline (benchmarks/throughput/halfcheetah_speed.py:
#      collection and one update per env step) on the GPU, eager and graphed, alternating twice.
# Carried: .whl/ (see gpu_checks.sh).
#
#   bash benchmarks/gpu/gpu_cuda_graph.sh OUT_DIR [ENV_STEPS=2000] [UPDATES=300]
set -u
OUT=${1:?usage: gpu_cuda_graph.sh OUT_DIR [ENV_STEPS] [UPDATES]}
STEPS=${2:-2000}
UPDATES=${3:-300}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
mkdir -p "$OUT"
. benchmarks/gpu/gpu_machine.sh  # wheels (WHEELS= to skip), PYTHONPATH, PY
export OMP_NUM_THREADS=1
timeout 120 $PY -m pytest -q -p no:cacheprovider tests/policy/test_cuda_graph.py >"$OUT/pytest.log" 2>&1
tail -n 2 "$OUT/pytest.log"
timeout 150 $PY benchmarks/throughput/cuda_graph_updates.py --updates "$UPDATES" --rounds 3 --out "$OUT/cuda_graph_updates.json" \
    >"$OUT/cuda_graph_updates.log" 2>&1
grep -v 'ding.config' "$OUT/cuda_graph_updates.log"
[ "$STEPS" -gt 0 ] || exit 0
for round in 1 2; do
    for mode in eager graphed; do
        flags=--cuda
        [ "$mode" = graphed ] && flags="--cuda --cuda-graph"
        timeout 150 $PY benchmarks/throughput/halfcheetah_speed.py --env-steps "$STEPS" $flags \
            --out "$OUT/halfcheetah_speed_${mode}_$round.json" >/dev/null 2>>"$OUT/halfcheetah_speed.err" \
            || tail -n 3 "$OUT/halfcheetah_speed.err"
        $PY -c "import json, sys; r = json.load(open(sys.argv[1])); print(sys.argv[2], round(r['env_steps_per_s'], 1))" \
            "$OUT/halfcheetah_speed_${mode}_$round.json" "$mode"
    done
done
