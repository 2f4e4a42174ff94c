#!/bin/bash
# edac.py (ours, unchanged) beside the stand-alone reference EDAC (benchmarks/learning/edac_reference.py)
# in four variants, all at once on one GPU for SECONDS each: does the reference train where ours
# does not? Same machine set-up as gpu_checks.sh (.whl/ and .devdata/ carried).
#
#   bash benchmarks/gpu/gpu_edac_reference.sh OUT_DIR [SECONDS=400]
set -u
OUT=${1:?usage: gpu_edac_reference.sh OUT_DIR [SECONDS]}
SECONDS_EACH=${2:-400}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
W=${TMPDIR:-/tmp}/gpu_edac
rm -rf "$W"
mkdir -p "$W/logs" "$OUT"
. benchmarks/gpu/gpu_machine.sh  # wheels, PYTHONPATH, data dirs, PY
export OMP_NUM_THREADS=2
$PY benchmarks/di_engine/di_engine_examples.py --only edac --timeout "$SECONDS_EACH" --out "$W/ours.json" \
    --log-dir "$W/logs" >"$W/ours.harness.log" 2>&1 &
for v in "torch 0" "paper 0" "paper 1" "torch 1"; do
    set -- $v
    timeout $((SECONDS_EACH + 60)) $PY benchmarks/learning/edac_reference.py \
        --dataset .devdata/halfcheetah-medium-v2.hdf5 --seconds "$SECONDS_EACH" --init "$1" --q-entropy "$2" \
        --out "$W/ref_$1_$2.json" >"$W/ref_$1_$2.log" 2>&1 &
done
wait
show_reference_curves 2 "$W"/ref_*.log
show_example_curves "$W"/logs/edac*.log
tar -czf "$OUT/results.tar.gz" -C "$W" .
