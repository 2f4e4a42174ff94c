"""Env-step throughput of `BaseEnvManagerV2.step_batch` beside a bare loop over
`gymnasium.vector.SyncVectorEnv` (the ceiling), both on N CartPole envs with the same
pre-drawn random actions. Chunks of 500 batched steps alternate between the two and are
timed in process CPU time, so load from other processes hits both alike; the ratio of
medians is the figure to read (target >= 0.9).

    python benchmarks/throughput/env_manager_speed.py [--steps 20000] [--rounds 5] [--envs 8]

Writes benchmarks/results/env_manager_speed.json.
"""
import argparse
import datetime
import os
import platform
import statistics
import sys
import time

import gymnasium as gym
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), '..'))
from ding.envs import BaseEnvManagerV2, DingEnvWrapper  # noqa: E402
from ding.utils.fileio import atomic_write_json  # noqa: E402


def make_manager(env_id: str, env_num: int) -> BaseEnvManagerV2:
    manager = BaseEnvManagerV2([lambda: DingEnvWrapper(gym.make(env_id)) for _ in range(env_num)])
    manager.seed(0)
    manager.launch()
    return manager


def make_sync_vector_env(env_id: str, env_num: int) -> gym.vector.SyncVectorEnv:
    envs = gym.vector.SyncVectorEnv([lambda: gym.make(env_id) for _ in range(env_num)])
    envs.reset(seed=0)
    return envs


def cpu_seconds(step, actions: np.ndarray) -> float:
    """CPU time of this process: on a shared machine it does not count time spent descheduled."""
    start = time.process_time()
    for a in actions:
        step(a)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--env-id', default='CartPole-v1')
    parser.add_argument('--envs', type=int, default=8)
    parser.add_argument('--steps', type=int, default=20000, help='batched steps per round')
    parser.add_argument('--rounds', type=int, default=5)
    parser.add_argument('--out', default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'results',
                                                      'env_manager_speed.json'))
    args = parser.parse_args()
    actions = np.random.default_rng(0).integers(0, 2, size=(args.steps, args.envs), dtype=np.int64)
    manager = make_manager(args.env_id, args.envs)
    vector_env = make_sync_vector_env(args.env_id, args.envs)
    chunks = np.array_split(actions, max(1, args.steps // 500))
    ours, bare = [], []
    for _ in range(args.rounds):  # chunks alternate, so load changes hit both sides alike
        t_ours = t_bare = 0.0
        for chunk in chunks:
            t_ours += cpu_seconds(manager.step_batch, chunk)
            t_bare += cpu_seconds(vector_env.step, chunk)
        ours.append(actions.size / t_ours)
        bare.append(actions.size / t_bare)
    manager.close()
    vector_env.close()
    result = {
        'benchmark': 'env_manager_speed',
        'env_id': args.env_id,
        'env_num': args.envs,
        'timer': 'time.process_time',
        'batched_steps_per_round': args.steps,
        'rounds': args.rounds,
        'step_batch_env_steps_per_s': ours,
        'sync_vector_env_env_steps_per_s': bare,
        'step_batch_median': statistics.median(ours),
        'sync_vector_env_median': statistics.median(bare),
        'ratio_step_batch_to_sync_vector_env': statistics.median(ours) / statistics.median(bare),
        'target_ratio': 0.9,
        'python': platform.python_version(),
        'numpy': np.__version__,
        'gymnasium': gym.__version__,
        'cpu_count': os.cpu_count(),
        'when': datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds'),
    }
    atomic_write_json(args.out, result)
    print(f"step_batch {result['step_batch_median']:.0f} env-steps/s, SyncVectorEnv {result['sync_vector_env_median']:.0f}"
          f" env-steps/s, ratio {result['ratio_step_batch_to_sync_vector_env']:.2f} -> {args.out}")


if __name__ == '__main__':
    main()
