"""Cost of prioritized sequence replay (R2D2) against uniform windows: one fetch of
`--batch` windows of `--unroll` rows from a full buffer of `--rows` transitions of 8 envs
(small 4-float observations, so the figure is the selection and gathering, not pixel copies),
plus, with priorities, the write-back of the learner's window priorities.

    python benchmarks/learning/sequence_priority.py --rows 1000000 --out benchmarks/results/sequence_priority.json
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), '..'))
from ding.data import Batch, DequeBuffer, PriorityExperienceReplay  # noqa: E402
from ding.data.buffer.middleware.sequence_priority import write_sequence_priorities  # noqa: E402
from ding.data.buffer.sequence_sampling import sample_sequences  # noqa: E402
from ding.utils.fileio import atomic_write_json  # noqa: E402

ENVS, PUSH_STEPS = 8, 100


def filled(rows: int, prioritized: bool) -> DequeBuffer:
    buf = DequeBuffer(rows)
    if prioritized:
        buf.use(PriorityExperienceReplay(buf, IS_weight=True))
    env_id = np.repeat(np.arange(ENVS), PUSH_STEPS)  # env-major pushes, as the collectors emit
    for _ in range(rows // (ENVS * PUSH_STEPS)):
        buf.push(Batch(obs=np.zeros((ENVS * PUSH_STEPS, 4), np.float32), env_id=env_id))
    return buf


def time_fetch(buf: DequeBuffer, batch: int, unroll: int, prioritized: bool, reps: int) -> float:
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    for _ in range(reps):
        _, index = sample_sequences(buf, batch, unroll)
        if prioritized:
            write_sequence_priorities(buf, index, rng.random(batch))
    return (time.perf_counter() - start) / reps * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--rows', type=int, default=1_000_000)
    parser.add_argument('--batch', type=int, default=64)
    parser.add_argument('--unroll', type=int, default=100)
    parser.add_argument('--reps', type=int, default=10)
    parser.add_argument('--out', default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'results',
                                                      'sequence_priority.json'))
    args = parser.parse_args()
    result = dict(benchmark='sequence_priority', rows=args.rows, envs=ENVS, batch=args.batch, unroll_len=args.unroll)
    for name, prioritized in (('uniform', False), ('prioritized', True)):
        buf = filled(args.rows, prioritized)
        result[f'{name}_ms_per_fetch'] = round(time_fetch(buf, args.batch, args.unroll, prioritized, args.reps), 2)
        print(name, result[f'{name}_ms_per_fetch'], 'ms', flush=True)
    result['note'] = ('ms per fetch of batch x unroll_len rows (prioritized: plus the priority write-back); both '
                      'group the buffer rows by env on every fetch; shared 2-core VM, so figures vary with its load')
    atomic_write_json(args.out, result)
    print('wrote', args.out)


if __name__ == '__main__':
    main()
