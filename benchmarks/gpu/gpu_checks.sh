#!/bin/bash
# The checks that need a GPU, in one go on a machine that has one (issues 18 and 15):
#   1. issue 18's async pipeline with CUDA training (benchmarks/throughput/async_default_threads.py --cuda), on
#      all the machine's cores and on two of them (torch given 2 threads, as on a 2-core machine);
#   2. DI-engine's edac.py, unchanged, on CUDA (its config says cuda=True), beside the same program
#      with 20 and 50 critics, for EDAC_SECONDS each, all three at once.
#
#   bash benchmarks/gpu/gpu_checks.sh OUT_DIR [EDAC_SECONDS=290]
#
# Offline there, so it brings its own (both folders ignored by git, carried to the machine):
# - .whl/: wheels for that machine's Python, installed into /tmp/site: `pip download --no-deps
#   --only-binary=:all: --python-version 3.12 --platform manylinux_2_28_x86_64 --platform any -d .whl
#   gymnasium farama-notifications easydict tensorboardX mujoco mujoco-core mujoco-studio websockets
#   glfw PyOpenGL DI-toolkit hbutils deprecation` (torch, numpy, h5py, rich are there already);
# - .devdata/: halfcheetah-medium-v2.hdf5 (python -m dizoo.d4rl.entry.d4rl_make_dataset --env-id
#   halfcheetah-medium-v2) and DI-engine 0.5.3's wheel (the examples' source).
# Works in /tmp/gpu_checks, writes OUT_DIR/results.tar.gz (logs and JSONs; one file, so that a
# transfer limit on files counts it once) and prints each run's summary. CUDA_FLAG= (empty) runs
# part 1 on the CPU, to try the script out here (with WHEELS= PYTHON=.venv/bin/python
# ADT_ARGS='--env-steps 500').
set -u
OUT=${1:?usage: gpu_checks.sh OUT_DIR [EDAC_SECONDS]}
EDAC_SECONDS=${2:-290}
CUDA_FLAG=${CUDA_FLAG---cuda}
ADT_ARGS=${ADT_ARGS:-}  # e.g. --env-steps 500, to try the script out
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
W=${TMPDIR:-/tmp}/gpu_checks
rm -rf "$W"
mkdir -p "$W/logs" "$OUT"
. benchmarks/gpu/gpu_machine.sh  # wheels (WHEELS= to skip), PYTHONPATH, data dirs, PY
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv >"$W/gpu.txt" 2>&1
nproc >>"$W/gpu.txt"
$PY -c 'import torch, gymnasium, mujoco
print(torch.__version__, torch.cuda.is_available(), gymnasium.__version__, mujoco.__version__)' >>"$W/gpu.txt" 2>&1
cat "$W/gpu.txt"

echo "== issue 18: async with CUDA training, $(nproc) cores"
timeout 110 $PY benchmarks/throughput/async_default_threads.py --rounds 2 $ADT_ARGS $CUDA_FLAG --out "$W/adt_cuda.json" \
    >"$W/adt_cuda.log" 2>&1
tail -n 1 "$W/adt_cuda.log"
echo "== issue 18: async with CUDA training, 2 cores, torch 2 threads"
OMP_NUM_THREADS=2 timeout 110 taskset -c 0,1 $PY benchmarks/throughput/async_default_threads.py --rounds 2 $ADT_ARGS $CUDA_FLAG \
    --out "$W/adt_cuda_2cores.json" >"$W/adt_cuda_2cores.log" 2>&1
tail -n 1 "$W/adt_cuda_2cores.log"

echo "== issue 15: edac.py on CUDA for ${EDAC_SECONDS}s, with 10 (its config), 20 and 50 critics"
for v in edac edac@ensemble_num=20 edac@ensemble_num=50; do
    $PY benchmarks/di_engine/di_engine_examples.py --only "$v" --timeout "$EDAC_SECONDS" --out "$W/${v//[@=]/_}.json" \
        --log-dir "$W/logs" >"$W/${v//[@=]/_}.harness.log" 2>&1 &
done
wait
for f in "$W"/logs/edac*.log; do
    show_example_curves "$f"
    grep -E 'train_iter=' "$f" | grep -v evaluation | tail -n 1 | cut -c1-220
done
tar -czf "$OUT/results.tar.gz" -C "$W" .
