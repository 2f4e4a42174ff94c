"""Collection throughput: `StepCollector` + `data_pusher` vs a bare SyncVectorEnv loop.

Both sides step 8 CartPole-v1 envs with the same 4-64-64-2 MLP (greedy forward on the
stacked observations) and keep every transition (ours: in a DequeBuffer; bare: arrays
appended to lists). Rounds alternate between the two so machine load hits both alike; the
ratio of the medians is the figure (target >= 0.8, docs: shared/spec/bars.md).

    python benchmarks/collection.py [--env-steps 40000] [--rounds 5] [--profile]
Writes benchmarks/results/collection.json.
"""
import argparse
import cProfile
import json
import os
import pstats
import statistics
import time

import gymnasium as gym
import numpy as np
import torch
from easydict import EasyDict

from ding.data.buffer.deque_buffer import DequeBuffer
from ding.envs import BaseEnvManagerV2, DingEnvWrapper
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import StepCollector, data_pusher
from ding.policy.base_policy import Policy

N_ENV = 8
ENV_ID = 'CartPole-v1'


def make_net() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 64), torch.nn.ReLU(), torch.nn.Linear(64, 64), torch.nn.ReLU(),
                               torch.nn.Linear(64, 2))


class GreedyMLPPolicy(Policy):
    """The smallest real Policy: greedy argmax of the MLP (acting path of the base class)."""

    def _forward_collect(self, obs, **kwargs):
        return {'action': self._collect_model(obs).argmax(-1)}


def bare_loop(env_steps: int) -> float:
    """Env steps per second of SyncVectorEnv + forward + keeping the transitions.

    gymnasium's default next-step autoreset spends one `step` call per finished episode on
    the reset; those rows are not transitions, so only real steps are counted."""
    net = make_net()
    envs = gym.vector.SyncVectorEnv([lambda: gym.make(ENV_ID) for _ in range(N_ENV)])
    obs, _ = envs.reset(seed=0)
    keep = []
    resetting = np.zeros(N_ENV, dtype=bool)
    real_steps = 0
    start = time.perf_counter()
    while real_steps < env_steps:
        with torch.no_grad():
            action = net(torch.from_numpy(obs.astype(np.float32))).argmax(-1).numpy()
        next_obs, reward, terminated, truncated, _ = envs.step(action)
        keep.append((obs, action, reward, next_obs, terminated, truncated))
        real_steps += N_ENV - int(resetting.sum())
        resetting = terminated | truncated
        obs = next_obs
    elapsed = time.perf_counter() - start
    envs.close()
    return real_steps / elapsed


def ours(env_steps: int, n_sample: int = 64, profile: bool = False) -> float:
    """Env steps per second of StepCollector + data_pusher into a DequeBuffer."""
    cfg = EasyDict(seed=0, policy=dict(collect=dict(n_sample=n_sample, unroll_len=1)))
    env = BaseEnvManagerV2(env_fn=[lambda: DingEnvWrapper(gym.make(ENV_ID)) for _ in range(N_ENV)],
                           cfg=BaseEnvManagerV2.default_config())
    policy = GreedyMLPPolicy(EasyDict(), model=make_net(), enable_field=['collect'])
    buffer_ = DequeBuffer(size=env_steps + n_sample)
    collector, pusher = StepCollector(cfg, policy.collect_mode, env), data_pusher(cfg, buffer_)
    ctx = OnlineRLContext()
    collector(ctx)  # launch the envs outside the timing
    pusher(ctx)
    ctx.env_step = 0
    profiler = cProfile.Profile() if profile else None
    start = time.perf_counter()
    if profiler:
        profiler.enable()
    while ctx.env_step < env_steps:
        collector(ctx)
        pusher(ctx)
    if profiler:
        profiler.disable()
    elapsed = time.perf_counter() - start
    env.close()
    if profiler:
        pstats.Stats(profiler).sort_stats('tottime').print_stats(15)
    return ctx.env_step / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description='StepCollector + data_pusher vs bare SyncVectorEnv')
    parser.add_argument('--env-steps', type=int, default=40000)
    parser.add_argument('--rounds', type=int, default=5)
    parser.add_argument('--profile', action='store_true', help='print a cProfile of our side and exit')
    parser.add_argument('--out', default=os.path.join(os.path.dirname(__file__), 'results', 'collection.json'))
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.profile:
        ours(args.env_steps, profile=True)
        return
    bare, mine = [], []
    for _ in range(args.rounds):
        bare.append(bare_loop(args.env_steps))
        mine.append(ours(args.env_steps))
    result = {
        'setting': f'{N_ENV} x {ENV_ID}, 4-64-64-2 MLP greedy forward, serial manager, '
                   f'{args.env_steps} env steps x {args.rounds} rounds (alternating)',
        'bare_sync_vector_env_steps_per_s': statistics.median(bare),
        'step_collector_data_pusher_steps_per_s': statistics.median(mine),
        'ratio': statistics.median(mine) / statistics.median(bare),
        'target_ratio': 0.8,
        'rounds': {'bare': bare, 'ours': mine},
    }
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, 'w') as f:
        json.dump(result, f, indent=2)
    print(json.dumps({k: v for k, v in result.items() if k != 'rounds'}, indent=2))


if __name__ == '__main__':
    main()
