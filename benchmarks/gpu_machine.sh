# Sourced by the benchmarks/gpu_*.sh scripts, from the repository root, on a lent GPU machine that
# is offline: installs the carried wheels (.whl/, or $WHEELS; empty: use the Python's own
# packages) into /tmp/site, points Python at them and at the carried data (.devdata/), and sets
# PY (the interpreter, $PYTHON or python3). Also the scripts' summary printers.
WHEELS=${WHEELS-.whl}
if [ -n "$WHEELS" ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
        "$WHEELS"/*.whl || exit 1
    export PYTHONPATH=/tmp/site
fi
PY=${PYTHON:-python3}
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
export D4RL_DATASET_DIR=$PWD/.devdata DING_TEST_CACHE=$PWD/.devdata

# show_reference_curves LINES LOG...: each benchmarks/edac_reference.py log's curve, then its last LINES lines.
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
