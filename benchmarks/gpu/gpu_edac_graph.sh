#!/bin/bash
# learn.cuda_graph on a lent GPU (issue 15's edac.py), in one call:
#   1. tests/policy/test_cuda_graph.py (replayed SAC and EDAC updates against eager ones);
#   2. benchmarks/throughput/cuda_graph_updates.py: ms per update, eager against graphed;
#   3. DI-engine's edac.py, unchanged (its dizoo config sets cuda_graph=True), for SECONDS on the local
#      100k set and, at the same time, on a 1M set (D4RL's size) made there from the same SAC in
#      CHUNKS parallel pieces. If step 2 failed, step 3 runs the eager variant `edac@cuda_graph=False`.
# Carried besides .whl/: .devdata/ with halfcheetah-medium-v2.hdf5, hc_sac_100k/ckpt/final.pth.tar (the
# SAC that made it) and DI-engine 0.5.3's wheel. Logs and JSONs go straight to OUT_DIR (a cut call
# keeps them). LONG=1: only the 1M run, alone on the GPU, after no checks (a run toward the stop value;
# steps 1-2 passed on an H200 on 2026-11-27 and 28).
#
#   bash benchmarks/gpu/gpu_edac_graph.sh OUT_DIR [SECONDS=360] [CHUNKS=10]
#   LONG=1 bash benchmarks/gpu/gpu_edac_graph.sh OUT_DIR 500
set -u
OUT=${1:?usage: gpu_edac_graph.sh OUT_DIR [SECONDS] [CHUNKS]}
SECONDS_EACH=${2:-360}
CHUNKS=${3:-10}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
W=${TMPDIR:-/tmp}/gpu_edac_graph
rm -rf "$W"
mkdir -p "$W/big" "$OUT/logs_100k" "$OUT/logs_1m"
. benchmarks/gpu/gpu_machine.sh  # wheels (WHEELS= to skip), PYTHONPATH, data dirs, PY
date
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
export OMP_NUM_THREADS=1
start_halfcheetah_parts "$W" "$CHUNKS" 100
SPEED_RC=0
if [ "${LONG:-0}" != 1 ]; then
    timeout 120 $PY -m pytest -q -p no:cacheprovider tests/policy/test_cuda_graph.py >"$OUT/pytest.log" 2>&1
    tail -n 3 "$OUT/pytest.log"
    timeout 150 $PY benchmarks/throughput/cuda_graph_updates.py --updates 300 --rounds 3 --out "$OUT/cuda_graph_updates.json" \
        >"$OUT/cuda_graph_updates.log" 2>&1
    SPEED_RC=$?
    cat "$OUT/cuda_graph_updates.log"
fi
wait
merge_halfcheetah_parts "$W" "$W/big/halfcheetah-medium-v2.hdf5"
EXAMPLE=edac
[ "$SPEED_RC" -eq 0 ] || EXAMPLE=edac@cuda_graph=False
date
if [ "${LONG:-0}" = 1 ]; then
    echo "== $EXAMPLE for ${SECONDS_EACH}s on the 1M set"
else
    echo "== $EXAMPLE for ${SECONDS_EACH}s on the local 100k set and on the 1M set"
    D4RL_DATASET_DIR=$ROOT/.devdata $PY benchmarks/di_engine/di_engine_examples.py --only "$EXAMPLE" --timeout "$SECONDS_EACH" \
        --out "$OUT/edac_100k.json" --log-dir "$OUT/logs_100k" >"$W/edac_100k.harness.log" 2>&1 &
fi
D4RL_DATASET_DIR=$W/big $PY benchmarks/di_engine/di_engine_examples.py --only "$EXAMPLE" --timeout "$SECONDS_EACH" \
    --out "$OUT/edac_1m.json" --log-dir "$OUT/logs_1m" >"$W/edac_1m.harness.log" 2>&1 &
wait
for f in "$OUT"/logs_*/edac*.log; do
    show_example_curves "$f"
    grep -E 'train_iter=' "$f" | grep -v evaluation | tail -n 1 | cut -c1-220
done
