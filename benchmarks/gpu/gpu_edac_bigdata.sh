#!/bin/bash
# Is the local halfcheetah-medium data (100k transitions) too small for EDAC? Makes a 1M-transition
# dataset from the same SAC checkpoint (.devdata/hc_sac_100k, D4RL's medium size) in CHUNKS parallel
# pieces of 100 episodes, then trains the stand-alone reference EDAC on it for SECONDS, with our
# config's settings (nn.Linear init, no entropy in the target) and the paper's (its init, entropy).
# Making the data takes about 15 s a chunk on one core here. The first try (2026-11-27, H200 machine,
# SECONDS=230 in a 330 s call) was cut before any reference run reported: give the call SECONDS + 150 s
# or more. Logs and each run's JSON now go straight to OUT_DIR, so a cut run keeps what it measured.
# Carried besides .whl/: .devdata/hc_sac_100k/ckpt/final.pth.tar, the SAC that made the local set
# (the `--sac-dir` of `python -m dizoo.d4rl.entry.d4rl_make_dataset --env-id halfcheetah-medium-v2`).
#
#   bash benchmarks/gpu/gpu_edac_bigdata.sh OUT_DIR [SECONDS=240] [CHUNKS=10] [EPISODES=100]
set -u
OUT=${1:?usage: gpu_edac_bigdata.sh OUT_DIR [SECONDS] [CHUNKS] [EPISODES]}
SECONDS_EACH=${2:-240}
CHUNKS=${3:-10}
EPISODES=${4:-100}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
W=${TMPDIR:-/tmp}/gpu_edac_big
rm -rf "$W"
mkdir -p "$W" "$OUT"
. benchmarks/gpu/gpu_machine.sh  # wheels (WHEELS= to skip), PYTHONPATH, data dirs, PY
export OMP_NUM_THREADS=1
date
start_halfcheetah_parts "$W" "$CHUNKS" "$EPISODES"
wait
tail -qn 1 "$W"/part*.log | cut -c1-200 | tee "$OUT/parts.log"
date
merge_halfcheetah_parts "$W" "$W/big.hdf5"
export OMP_NUM_THREADS=2
for v in "torch 0" "paper 1"; do
    set -- $v
    timeout $((SECONDS_EACH + 60)) $PY benchmarks/learning/edac_reference.py --dataset "$W/big.hdf5" \
        --seconds "$SECONDS_EACH" --init "$1" --q-entropy "$2" --out "$OUT/ref1m_$1_$2.json" \
        >"$OUT/ref1m_$1_$2.log" 2>&1 &
done
wait
show_reference_curves 1 "$OUT"/ref1m_*.log
