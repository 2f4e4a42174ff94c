"""Replay-buffer memory and speed: RSS for N CartPole transitions, push and sample costs.

    python benchmarks/buffer_memory.py               # 1M transitions (the bars.md target)
    python benchmarks/buffer_memory.py --size 20000  # quick check

Writes benchmarks/results/buffer_memory.json. Timings are per call, best of a few repeats
(the machine is shared, so the minimum is the least disturbed figure).
"""
import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from ding.data import Batch, DequeBuffer, PriorityExperienceReplay  # noqa: E402
from ding.utils.fileio import atomic_write_json  # noqa: E402


def rss_mb() -> float:
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1]) / 1024
    return float('nan')


def cartpole_batch(n: int, rng: np.random.Generator) -> Batch:
    return Batch(
        obs=rng.standard_normal((n, 4), dtype=np.float32),
        next_obs=rng.standard_normal((n, 4), dtype=np.float32),
        action=rng.integers(0, 2, n),
        reward=np.ones(n, dtype=np.float32),
        done=rng.random(n) < 0.05,
        truncated=np.zeros(n, dtype=bool),
        env_id=np.arange(n) % 8,
    )


def per_call_us(fn, calls: int, repeats: int = 5) -> float:
    best = float('inf')
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - start) / calls)
    return best * 1e6


def fill(buf: DequeBuffer, size: int, rows_per_push: int, rng: np.random.Generator) -> float:
    batches = [cartpole_batch(rows_per_push, rng) for _ in range(16)]
    start = time.perf_counter()
    for i in range(size // rows_per_push):
        buf.push(batches[i % 16])
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--size', type=int, default=1_000_000)
    parser.add_argument('--out', default=os.path.join(os.path.dirname(__file__), 'results', 'buffer_memory.json'))
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    result = {'size': args.size}

    base = rss_mb()
    buf = DequeBuffer(args.size)
    fill_s = fill(buf, args.size, 64, rng)
    after = rss_mb()
    result.update(
        rss_before_mb=round(base, 1), rss_after_fill_mb=round(after, 1), rss_growth_mb=round(after - base, 1),
        column_bytes_mb=round(buf._columns.nbytes() / 2**20, 1), fill_seconds=round(fill_s, 2),
        row_bytes=buf._columns.nbytes() // args.size, count=buf.count()
    )
    fill(buf, args.size // 4, 64, rng)  # keep pushing once full: RSS must stay flat
    result['rss_after_overwrite_mb'] = round(rss_mb(), 1)

    for rows in (8, 64):
        b = cartpole_batch(rows, rng)
        result[f'push_batch{rows}_us'] = round(per_call_us(lambda: buf.push(b), 2000), 2)
    row = cartpole_batch(1, rng)[0].to_dict()
    result['push_dict_us'] = round(per_call_us(lambda: buf.push(row), 2000), 2)
    result['sample64_us'] = round(per_call_us(lambda: buf.sample(64), 2000), 2)
    result['sample64_replace_us'] = round(per_call_us(lambda: buf.sample(64, replace=True), 2000), 2)
    result['sample64_iterate_us'] = round(per_call_us(lambda: [d.data for d in buf.sample(64)], 200), 2)

    per_buf = DequeBuffer(args.size)
    per_buf.use(PriorityExperienceReplay(per_buf))
    base = rss_mb()
    fill(per_buf, args.size, 64, rng)
    result['per_rss_growth_mb'] = round(rss_mb() - base, 1)
    ids = per_buf.sample(64).index
    priorities = rng.random(64)
    batch8 = cartpole_batch(8, rng)
    result['per_push_batch8_us'] = round(per_call_us(lambda: per_buf.push(batch8), 2000), 2)
    result['per_sample64_us'] = round(per_call_us(lambda: per_buf.sample(64), 2000), 2)
    result['per_update64_us'] = round(
        per_call_us(lambda: per_buf.update(ids, meta={'priority': priorities}), 2000), 2
    )
    result['rss_final_mb'] = round(rss_mb(), 1)
    atomic_write_json(args.out, result)
    print(json.dumps(result, indent=2))


if __name__ == '__main__':
    main()
