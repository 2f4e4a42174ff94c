# Sourced by the benchmarks/gpu_*.sh scripts, from the repository root, on a lent GPU machine that
# is offline: installs the carried wheels (.whl/, or $WHEELS; empty: use the Python's own
# packages; WHEEL_SKIP: an extended regex of wheel names to leave out) into /tmp/site, points
# Python at them and at the carried data (.devdata/), and sets PY (the interpreter, $PYTHON or
# python3). Also the scripts' summary printers.
WHEELS=${WHEELS-.whl}
if [ -n "$WHEELS" ]; then
    # shellcheck disable=SC2046  # one word per wheel path
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
        $(ls "$WHEELS"/*.whl | grep -Ev "${WHEEL_SKIP:-^$}") || exit 1
    export PYTHONPATH=/tmp/site
fi
PY=${PYTHON:-python3}
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
export D4RL_DATASET_DIR=$PWD/.devdata DING_TEST_CACHE=$PWD/.devdata

# show_reference_curves LINES LOG...: each benchmarks/learning/edac_reference.py log's curve, then its last LINES lines.
show_reference_curves() {
    local lines=$1 f
    shift
    for f in "$@"; do
        echo "-- $f"
        grep updates= "$f" | awk '{print $1, $2}' | tr '\n' ' '
        echo
        tail -n "$lines" "$f"
    done
}

# show_example_curves LOG...: each di_engine_examples.py example log's evaluations (train_iter:return).
show_example_curves() {
    local f
    for f in "$@"; do
        echo "-- $f"
        grep -E 'evaluation:' "$f" | sed -E 's/.*train_iter=([0-9]+) return mean=([-0-9.]+).*/\1:\2/' | tr '\n' ' '
        echo
    done
}

# start_halfcheetah_parts DIR CHUNKS EPISODES: in the background, CHUNKS pieces of EPISODES episodes each
# of the SAC in .devdata/hc_sac_100k (seeds 1..CHUNKS), as DIR/partI.hdf5; `wait` for them.
start_halfcheetah_parts() {
    local i
    for i in $(seq 1 "$2"); do
        $PY -m dizoo.d4rl.entry.d4rl_make_dataset --env-id halfcheetah-medium-v2 --episodes "$3" --seed "$i" \
            --sac-dir .devdata/hc_sac_100k --out "$1/part$i.hdf5" >"$1/part$i.log" 2>&1 &
    done
}

# merge_halfcheetah_parts DIR FILE: DIR/part*.hdf5 as one D4RL-layout dataset FILE.
merge_halfcheetah_parts() {
    $PY - "$1" "$2" <<'PYEOF'
import glob, sys
import numpy as np
from ding.data.offline_dataset import d4rl_transitions, read_hdf5
from ding.data.offline_save import save_offline_data
parts = [d4rl_transitions(read_hdf5(p)) for p in sorted(glob.glob(sys.argv[1] + '/part*.hdf5'))]
merged = {k: np.concatenate([part[k] for part in parts]) for k in parts[0].keys()}
save_offline_data(merged, sys.argv[2], 'd4rl')
print('merged', len(parts), 'parts,', len(merged['reward']), 'transitions')
PYEOF
}
