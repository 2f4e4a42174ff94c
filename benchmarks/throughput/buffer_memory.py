"""Replay-buffer memory and speed: RSS for N CartPole transitions, push and sample costs, and
the frame-once pixel replay (FrameBuffer) on Atari-shaped transitions (4 stacked 84x84 frames).

    python benchmarks/throughput/buffer_memory.py               # 1M transitions of each (the bars.md targets)
    python benchmarks/throughput/buffer_memory.py --size 20000  # quick check
    python benchmarks/throughput/buffer_memory.py --parts atari --atari-size 200000  # only the pixel replay

Atari rows come from 8 simulated envs in pushes of 96 rows (DI-engine's Pong DQN `n_sample`),
as the collector hands them over: float32 [4, 84, 84] stacks in [0, 1], a new frame per step,
episodes of `--episode-len` steps. Frames cycle through a pool of random images (no two
consecutive ones equal), so writing them commits real memory. A run with --atari-size below
1M also reports the 1M figure extrapolated from the measured bytes per transition, labelled so.

Writes benchmarks/results/buffer_memory.json. Timings are per call, best of a few repeats
(the machine is shared, so the minimum is the least disturbed figure).
"""
import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from ding.data import Batch, DequeBuffer, PriorityExperienceReplay  # noqa: E402
from ding.data.buffer.frame_buffer import FrameBuffer  # noqa: E402
from ding.utils.fileio import atomic_write_json  # noqa: E402

ATARI_ENVS, ATARI_PUSH, STACK, SIDE = 8, 96, 4, 84


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


class AtariStreams:
    """Transitions of `ATARI_ENVS` frame-stacked envs, `ATARI_PUSH` rows at a time, as float32."""

    def __init__(self, episode_len: int, rng: np.random.Generator, pool: int = 512) -> None:
        # float32 k / 255 frames, as ScaledFloatFrameWrapper hands them out
        self.pool = rng.integers(0, 256, (pool, SIDE, SIDE), dtype=np.uint8).astype(np.float32) / np.float32(255)
        self.episode_len = episode_len
        self.t = np.zeros(ATARI_ENVS, dtype=np.int64)  # step within the episode, per env
        self.next_frame = np.arange(ATARI_ENVS) * 7919  # index into the pool, per env
        self.stacks = [self._reset(e) for e in range(ATARI_ENVS)]

    def _reset(self, env: int) -> np.ndarray:
        self.t[env] = 0
        return np.repeat(self._frame(env)[None], STACK, axis=0)

    def _frame(self, env: int) -> np.ndarray:
        self.next_frame[env] += 1
        return self.pool[self.next_frame[env] % len(self.pool)]

    def batch(self) -> Batch:
        obs, nxt, done, env_id = [], [], [], []
        for i in range(ATARI_PUSH):
            e = i % ATARI_ENVS
            stack = self.stacks[e]
            new = np.concatenate([stack[1:], self._frame(e)[None]])
            self.t[e] += 1
            ended = self.t[e] >= self.episode_len
            obs.append(stack), nxt.append(new), done.append(ended), env_id.append(e)
            self.stacks[e] = self._reset(e) if ended else new
        return Batch(obs=np.stack(obs), next_obs=np.stack(nxt),
                     action=np.zeros(ATARI_PUSH, dtype=np.int64), reward=np.zeros(ATARI_PUSH, dtype=np.float32),
                     done=np.asarray(done), truncated=np.zeros(ATARI_PUSH, dtype=bool), env_id=np.asarray(env_id))


def learner_step_ms(batch: Batch, repeats: int = 3) -> float:
    """One DQN update on the sampled batch: DI-engine's Atari net ([128, 128, 512] conv encoder,
    dueling head), forward, backward and Adam, one torch thread (the learner's share here)."""
    import torch
    from ding.model import DQN
    torch.set_num_threads(1)
    model = DQN([STACK, SIDE, SIDE], 6, [128, 128, 512])
    optim = torch.optim.Adam(model.parameters(), 1e-4)
    obs = torch.from_numpy(batch['obs'])
    best = float('inf')
    for _ in range(repeats):
        start = time.perf_counter()
        loss = model(obs)['logit'].pow(2).mean()
        optim.zero_grad()
        loss.backward()
        optim.step()
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def atari_part(size: int, episode_len: int, rng: np.random.Generator) -> dict:
    streams = AtariStreams(episode_len, rng)
    base = rss_mb()
    buf = FrameBuffer(size)
    start = time.perf_counter()
    half, push_s = None, 0.0
    while buf._next_id < size:
        batch = streams.batch()
        t0 = time.perf_counter()
        buf.push(batch)
        push_s += time.perf_counter() - t0
        if half is None and buf._next_id >= size // 2:
            half = (buf.count(), rss_mb())  # for the slope: RSS per row, fixed costs left out
    fill_s = time.perf_counter() - start
    after = rss_mb()
    rows = buf.count()
    column_bytes = buf._columns.nbytes()
    frames_written = min(buf._store.next_id, buf._store.capacity)
    stored_bytes = frames_written * SIDE * SIDE + column_bytes
    out = dict(
        size=size, rows=rows, episode_len=episode_len, frames_written=int(buf._store.next_id),
        frames_per_row=round(buf._store.next_id / buf._next_id, 4),
        frame_ring_capacity=buf._store.capacity, frame_ring_mb=round(buf.frame_bytes() / 2**20, 1),
        row_columns_mb=round(column_bytes / 2**20, 1),
        bytes_per_transition=round(stored_bytes / rows, 1),
        uint8_stack_pair_bytes=2 * STACK * SIDE * SIDE, float32_stack_pair_bytes=2 * STACK * SIDE * SIDE * 4,
        rss_before_mb=round(base, 1), rss_after_fill_mb=round(after, 1), rss_growth_mb=round(after - base, 1),
        rss_growth_per_transition_bytes=round((after - base) * 2**20 / rows, 1),
        fill_seconds=round(fill_s, 1),
        # pushes of the fill (consecutive steps, 96 float32 rows each), memory commits included
        push_per_row_us=round(push_s / buf._next_id * 1e6, 1),
    )
    out['sample32_ms'] = round(per_call_us(lambda: buf.sample(32), 50) / 1e3, 3)
    per_buf = FrameBuffer(min(size, 50_000))
    per_buf.use(PriorityExperienceReplay(per_buf))
    for _ in range(min(size, 50_000) // ATARI_PUSH):
        per_buf.push(streams.batch())
    out['per_sample32_ms'] = round(per_call_us(lambda: per_buf.sample(32), 50) / 1e3, 3)
    out['learner_step_ms'] = round(learner_step_ms(buf.sample(32).batch), 1)
    out['sample32_over_learner_step'] = round(out['sample32_ms'] / out['learner_step_ms'], 4)
    slope = (after - half[1]) * 2**20 / max(rows - half[0], 1)  # bytes of RSS per row, second half of the fill
    out['rss_slope_bytes_per_transition'] = round(slope, 1)
    if size < 1_000_000:
        out['extrapolated_1M'] = dict(
            note=f'extrapolated, not a 1M run: RSS after {rows} rows plus the measured RSS slope (bytes per row over '
                 f'the second half of the fill) times the rows still missing to 1M',
            rss_gb=round((after * 2**20 + slope * (1_000_000 - rows)) / 2**30, 2),
            stored_gb=round(stored_bytes / rows * 1_000_000 / 2**30, 2))
    else:
        out['rss_after_fill_gb'] = round(after / 1024, 2)
    del buf, per_buf
    return out


def cartpole_part(size: int, rng: np.random.Generator) -> dict:
    result = {'size': size}
    base = rss_mb()
    buf = DequeBuffer(size)
    fill_s = fill(buf, size, 64, rng)
    after = rss_mb()
    result.update(
        rss_before_mb=round(base, 1), rss_after_fill_mb=round(after, 1), rss_growth_mb=round(after - base, 1),
        column_bytes_mb=round(buf._columns.nbytes() / 2**20, 1), fill_seconds=round(fill_s, 2),
        row_bytes=buf._columns.nbytes() // size, count=buf.count()
    )
    fill(buf, size // 4, 64, rng)  # keep pushing once full: RSS must stay flat
    result['rss_after_overwrite_mb'] = round(rss_mb(), 1)

    for rows in (8, 64):
        b = cartpole_batch(rows, rng)
        result[f'push_batch{rows}_us'] = round(per_call_us(lambda: buf.push(b), 2000), 2)
    row = cartpole_batch(1, rng)[0].to_dict()
    result['push_dict_us'] = round(per_call_us(lambda: buf.push(row), 2000), 2)
    result['sample64_us'] = round(per_call_us(lambda: buf.sample(64), 2000), 2)
    result['sample64_replace_us'] = round(per_call_us(lambda: buf.sample(64, replace=True), 2000), 2)
    result['sample64_iterate_us'] = round(per_call_us(lambda: [d.data for d in buf.sample(64)], 200), 2)

    per_buf = DequeBuffer(size)
    per_buf.use(PriorityExperienceReplay(per_buf))
    base = rss_mb()
    fill(per_buf, size, 64, rng)
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
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--size', type=int, default=1_000_000)
    parser.add_argument('--atari-size', type=int, default=1_000_000)
    parser.add_argument('--episode-len', type=int, default=800, help='Atari steps per episode (Pong: ~800+)')
    parser.add_argument('--parts', default='cartpole,atari', help='comma list: cartpole, atari')
    parser.add_argument('--out', default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'results', 'buffer_memory.json'))
    args = parser.parse_args()
    parts = set(args.parts.split(','))
    rng = np.random.default_rng(0)
    result = {}
    if os.path.exists(args.out):  # a partial run keeps the other part's last figures
        with open(args.out) as f:
            result = json.load(f)
    if 'cartpole' in parts:
        result.update(cartpole_part(args.size, rng))
    if 'atari' in parts:
        result['atari'] = atari_part(args.atari_size, args.episode_len, rng)
    atomic_write_json(args.out, result)
    print(json.dumps(result, indent=2))


if __name__ == '__main__':
    main()
