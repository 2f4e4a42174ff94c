"""The host-side cost of pixel transitions between the collector and the learner, per collect call
of DI-engine's Pong DQN config (8 envs, `n_sample` 96, 3-step returns, frame replay, batch 32,
10 updates per collect): the n-step enhancer, the FrameBuffer push, and the 10 samples.

    python benchmarks/throughput/pixel_path.py [--calls 300] [--rounds 3] [--out FILE]

Observations are float32 [4, 84, 84] stacks of k / 255 values, as the Atari env hands them out
(ScaledFloatFrameWrapper), one new frame per step, 800-step episodes (buffer_memory.py's
`AtariStreams`); the rows come env by env, as the collector lays them out. Prints and writes
(default benchmarks/results/pixel_path.json) ms per call, the median of the rounds.
"""
import argparse
import os
import platform
import statistics
import sys
import time
from typing import Dict, List, Tuple

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from easydict import EasyDict  # noqa: E402

from buffer_memory import ATARI_PUSH, AtariStreams  # noqa: E402
from ding.data import Batch  # noqa: E402
from ding.data.buffer.frame_buffer import FrameBuffer  # noqa: E402
from ding.framework.context import OnlineRLContext  # noqa: E402
from ding.framework.middleware.enhancer import NStepRewardEnhancer  # noqa: E402
from ding.utils.fileio import atomic_write_json  # noqa: E402

EPISODE = 800
OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'results', 'pixel_path.json')


def env_major(streams: AtariStreams) -> Tuple[Batch, List[int]]:
    """A push of `streams` laid out as the collector lays it out: each env's rows together, in time
    order, with the last index of each env's segment."""
    batch = streams.batch()
    order = np.argsort(batch['env_id'], kind='stable')
    ends = (np.cumsum(np.bincount(batch['env_id'])) - 1).tolist()
    return batch[order], ends


def one_round(calls: int, seed: int) -> Dict[str, float]:
    streams = AtariStreams(EPISODE, np.random.default_rng(seed))
    enhancer = NStepRewardEnhancer(EasyDict(policy=dict(nstep=3)))
    buffer = FrameBuffer(100_000)
    spent = dict(nstep_enhancer_ms=0.0, frame_buffer_push_ms=0.0, sample_10x32_ms=0.0)
    for _ in range(calls):
        ctx = OnlineRLContext()
        ctx.trajectories, ctx.trajectory_end_idx = env_major(streams)
        t0 = time.perf_counter()
        enhancer(ctx)
        t1 = time.perf_counter()
        buffer.push(ctx.trajectories)
        t2 = time.perf_counter()
        for _ in range(10):
            buffer.sample(32)
        t3 = time.perf_counter()
        for key, seconds in zip(spent, (t1 - t0, t2 - t1, t3 - t2)):
            spent[key] += seconds
    return {key: seconds / calls * 1e3 for key, seconds in spent.items()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--calls', type=int, default=300)
    p.add_argument('--rounds', type=int, default=3)
    p.add_argument('--out', default=OUT)
    args = p.parse_args()
    rounds = [one_round(args.calls, seed) for seed in range(args.rounds)]
    median = {key: round(statistics.median(r[key] for r in rounds), 3) for key in rounds[0]}
    median['env_steps_per_call'] = ATARI_PUSH
    print(median)
    atomic_write_json(args.out, dict(
        benchmark=__doc__.split('\n\n')[0], date=time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()),
        machine=f'{os.cpu_count()} cpus, {platform.processor() or platform.machine()}',
        loadavg=os.getloadavg(), calls=args.calls, rounds=[{k: round(v, 3) for k, v in r.items()} for r in rounds],
        median_ms_per_call=median))


if __name__ == '__main__':
    main()
