"""Run-state checkpoint cost with a 1M-transition CartPole replay buffer: wall time of
`RunStateSaver.save`, how long it holds the buffer lock, file size, peak RSS above the
steady state, and the restore time.

    python benchmarks/throughput/checkpoint_size.py                  # 1M-row buffer, full and 10% filled
    python benchmarks/throughput/checkpoint_size.py --size 100000    # quick check

Each case runs in a fresh process (peak RSS is the process's high-water mark, reset through
/proc/self/clear_refs just before the save). 'rows' is the checkpoint as written today (the
filled rows, gathered under the lock, streamed to the file as tensors); 'whole_ring'
replicates the previous method (a deep copy of the whole preallocated ring under the lock,
then `torch.save` into memory and a write) for comparison. Writes
benchmarks/results/checkpoint_size.json.
"""
import argparse
import copy
import io
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from ding.data import Batch, DequeBuffer  # noqa: E402
from ding.framework.context import OnlineRLContext  # noqa: E402
from ding.framework.middleware.run_state import RunStateSaver, load_buffer_state  # noqa: E402
from ding.utils.fileio import atomic_write_bytes, atomic_write_json  # noqa: E402

RESULT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'results', 'checkpoint_size.json')


def status_mb(key: str) -> float:
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith(key + ':'):
                return int(line.split()[1]) / 1024
    return float('nan')


def reset_peak_rss() -> bool:
    try:
        with open('/proc/self/clear_refs', 'w') as f:
            f.write('5')
        return True
    except OSError:
        return False


class TimedLock:
    """The buffer's re-entrant lock, adding up how long it is held (outermost level)."""

    def __init__(self) -> None:
        self._lock, self._depth, self.held_s = threading.RLock(), 0, 0.0

    def __enter__(self):
        self._lock.acquire()
        self._depth += 1
        if self._depth == 1:
            self._since = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self._depth -= 1
        if self._depth == 0:
            self.held_s += time.perf_counter() - self._since
        self._lock.release()


def cartpole_batch(n: int, rng: np.random.Generator) -> Batch:
    """The columns `StepCollector` pushes for CartPole (54 bytes a row)."""
    return Batch(obs=rng.standard_normal((n, 4), dtype=np.float32), action=rng.integers(0, 2, n),
                 reward=np.ones(n, dtype=np.float32), next_obs=rng.standard_normal((n, 4), dtype=np.float32),
                 done=rng.random(n) < 0.05, truncated=np.zeros(n, dtype=bool), env_id=np.arange(n) % 8)


class Learner:
    """A CartPole DQN's learner state (model, target model, Adam moments): small next to the buffer."""

    def __init__(self) -> None:
        model = torch.nn.Sequential(torch.nn.Linear(4, 128), torch.nn.ReLU(), torch.nn.Linear(128, 128),
                                    torch.nn.ReLU(), torch.nn.Linear(128, 2))
        self.sd = {'model': model.state_dict(), 'target_model': copy.deepcopy(model.state_dict()),
                   'optimizer': {k: [v.clone(), v.clone()] for k, v in model.state_dict().items()}}

    def state_dict(self):
        return self.sd

    def load_state_dict(self, sd):
        self.sd = sd


def whole_ring_save(saver: RunStateSaver, buf: DequeBuffer, ctx) -> None:
    """The previous checkpoint: deep copy of the ring under the lock, serialised in memory."""
    with buf.lock:
        state = {'buffer': copy.deepcopy(buf.state_dict()), 'middleware': [],
                 'rng': copy.deepcopy(buf.rng.bit_generator.state)}
    mem = io.BytesIO()
    torch.save({'format': 1, 'ctx': {'env_step': ctx.env_step}, 'policy': saver._learn.state_dict(),
                'buffer': state}, mem)
    atomic_write_bytes(saver.path, mem.getvalue())


def run_case(method: str, capacity: int, rows: int) -> dict:
    rng = np.random.default_rng(0)
    buf = DequeBuffer(capacity)
    chunk = 10_000
    for start in range(0, rows, chunk):
        buf.push(cartpole_batch(min(chunk, rows - start), rng))
    buf.lock = TimedLock()
    with tempfile.TemporaryDirectory() as tmp:
        saver = RunStateSaver(tmp, Learner(), buf, every_env_step=1)
        ctx = OnlineRLContext()
        ctx.env_step = rows
        steady = status_mb('VmRSS')
        peak_reset = reset_peak_rss()
        start = time.perf_counter()
        if method == 'rows':
            saver.save(ctx)
        else:
            whole_ring_save(saver, buf, ctx)
        save_s = time.perf_counter() - start
        peak = status_mb('VmHWM')
        size = os.path.getsize(saver.path)
        result = dict(method=method, capacity=capacity, rows=rows, save_s=round(save_s, 3),
                      lock_held_s=round(buf.lock.held_s, 4), file_mb=round(size / 2**20, 1),
                      steady_rss_mb=round(steady, 1), peak_rss_mb=round(peak, 1),
                      peak_extra_rss_mb=round(peak - steady, 1), peak_reset=peak_reset)
        if method == 'rows':
            start = time.perf_counter()
            state = torch.load(saver.path, weights_only=False)
            other = DequeBuffer(capacity)
            load_buffer_state(other, state['buffer'])
            result['restore_s'] = round(time.perf_counter() - start, 3)
            assert other.count() == buf.count() and other.get(-1).index == buf.get(-1).index
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--size', type=int, default=1_000_000, help='buffer capacity (rows)')
    parser.add_argument('--case', nargs=3, metavar=('METHOD', 'CAPACITY', 'ROWS'), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:  # a child: one case, one JSON line
        print(json.dumps(run_case(args.case[0], int(args.case[1]), int(args.case[2]))))
        return
    torch.set_num_threads(1)
    cases = []
    for rows in (args.size, args.size // 10):
        for method in ('rows', 'whole_ring'):
            out = subprocess.run([sys.executable, __file__, '--case', method, str(args.size), str(rows)],
                                 capture_output=True, text=True, check=True)
            cases.append(json.loads(out.stdout.strip().splitlines()[-1]))
            print(cases[-1], flush=True)
    atomic_write_json(RESULT, {'benchmark': 'checkpoint_size', 'buffer': 'CartPole transitions, 54 bytes a row',
                               'machine_cpus': os.cpu_count(), 'torch': torch.__version__, 'cases': cases})
    print(f'wrote {RESULT}')


if __name__ == '__main__':
    main()
