"""Collection throughput of the path a DQN user runs, against a bare SyncVectorEnv loop.

Ours: `DQNPolicy` (config `cartpole_dqn_v1_config` with a 4-64-64-2 MLP Q-net, n_sample 256) acting
eps-greedy through `StepCollector` on a serial `BaseEnvManagerV2`, then `nstep_reward_enhancer`
(the config's nstep, or 1: the enhancer passes rows through) and `data_pusher` into a
`DequeBuffer`. Bare: gymnasium's `SyncVectorEnv`, the same Q-net forward, eps-greedy in numpy,
every transition kept (arrays appended to a list). 8 CartPole-v1 envs, one torch thread.

The three sides alternate round by round so machine load hits all alike; each ratio is the
median of its side over the median of the bare loop (target >= 0.8, ../shared/spec/bars.md),
in wall-clock steps/s and in steps per second of the process's own CPU time (which other
processes' load moves less).

    python benchmarks/throughput/collection.py [--env-steps 40000] [--rounds 5] [--nstep N] [--n-sample N] [--profile]
Writes benchmarks/results/collection.json.

    python benchmarks/throughput/collection.py --guard-ab [--rounds 10]
The non-finite guard's cost (issue 38): the n-step side with the guard as shipped (StepCollector
checks each collect call's columns; the manager's per-step checks are off) against the same side
with every check replaced by a no-op, alternating round by round.
The cost counts as within noise when it is smaller than the spread of the guarded side's own
rounds. Writes benchmarks/results/collection_guard.json.
"""
import argparse
import cProfile
import os
import pstats
import statistics
import time
from datetime import datetime, timezone
from typing import Tuple
from unittest import mock

import gymnasium as gym
import numpy as np
import torch

from ding.data.buffer.deque_buffer import DequeBuffer
from ding.envs import BaseEnvManagerV2, DingEnvWrapper
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import StepCollector, data_pusher, nstep_reward_enhancer
from ding.model import DQN
from ding.policy import DQNPolicy
from ding.utils.fileio import atomic_write_json
from dizoo.common.config_loader import load_config

N_ENV, ENV_ID, EPS = 8, 'CartPole-v1', 0.1
CONFIG = 'dizoo.classic_control.cartpole.config.cartpole_dqn_v1_config'
HIDDEN = (64, 64)  # issue 18's collection benchmark: a 4-64-64-2 MLP (the config's own net is 256-256)


def make_policy(cfg) -> DQNPolicy:
    torch.manual_seed(0)
    return DQNPolicy(cfg.policy, model=DQN(**cfg.policy.model), enable_field=['collect'])


def bare_loop(cfg, env_steps: int) -> Tuple[float, float]:
    """Env steps per second (wall clock, and of this process's CPU time) of SyncVectorEnv +
    Q-net forward + numpy eps-greedy + keeping the transitions. gymnasium's default next-step autoreset spends one `step` call per finished
    episode on the reset; those rows are not transitions, so only real steps are counted."""
    net = make_policy(cfg)._collect_model
    envs = gym.vector.SyncVectorEnv([lambda: gym.make(ENV_ID) for _ in range(N_ENV)])
    obs, _ = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    keep, resetting, real_steps = [], np.zeros(N_ENV, dtype=bool), 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while real_steps < env_steps:
        with torch.no_grad():
            action = net(torch.from_numpy(obs.astype(np.float32)))['logit'].argmax(-1).numpy()
        action = np.where(rng.random(N_ENV) < EPS, rng.integers(0, 2, N_ENV), action)
        next_obs, reward, terminated, truncated, _ = envs.step(action)
        keep.append((obs, action, reward, next_obs, terminated, truncated))
        real_steps += N_ENV - int(resetting.sum())
        resetting = terminated | truncated
        obs = next_obs
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    envs.close()
    return real_steps / elapsed, real_steps / cpu


def ours(cfg, env_steps: int, nstep: int, profile: bool = False) -> Tuple[float, float]:
    """Env steps per second (wall, CPU) of StepCollector -> nstep_reward_enhancer -> data_pusher(DequeBuffer)."""
    cfg.policy.nstep = nstep
    env = BaseEnvManagerV2([lambda: DingEnvWrapper(gym.make(ENV_ID)) for _ in range(N_ENV)],
                           cfg=BaseEnvManagerV2.default_config())
    policy = make_policy(cfg)
    buffer_ = DequeBuffer(size=env_steps + 2 * int(cfg.policy.collect.n_sample))
    collector, enhancer, pusher = StepCollector(cfg, policy.collect_mode, env), nstep_reward_enhancer(cfg), \
        data_pusher(cfg, buffer_)
    ctx = OnlineRLContext()
    ctx.collect_kwargs = {'eps': EPS}
    collector(ctx)  # launches the envs outside the timing
    ctx.trajectories, ctx.env_step = None, 0
    profiler = cProfile.Profile() if profile else None
    start, cpu_start = time.perf_counter(), time.process_time()
    if profiler:
        profiler.enable()
    while ctx.env_step < env_steps:
        collector(ctx)
        enhancer(ctx)
        pusher(ctx)
    if profiler:
        profiler.disable()
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    env.close()
    if profiler:
        pstats.Stats(profiler).sort_stats('tottime').print_stats(20)
    return ctx.env_step / elapsed, ctx.env_step / cpu


def guard_ab(cfg, env_steps: int, nstep: int, rounds: int, out: str) -> None:
    """Guarded against unguarded collection, alternating; writes the medians, the cost and the noise."""
    from ding.envs.env_manager import nonfinite
    unguarded = lambda: mock.patch.multiple(nonfinite, finite=lambda obs, reward: True,  # noqa: E731
                                            check_reset_obs=lambda *args: None,
                                            rollout_finite=lambda *args: True)
    wall, cpu, load = {'guarded': [], 'unguarded': []}, {'guarded': [], 'unguarded': []}, []
    for r in range(rounds):
        load.append(os.getloadavg()[0])
        order = ('guarded', 'unguarded') if r % 2 == 0 else ('unguarded', 'guarded')
        for side in order:
            if side == 'guarded':
                w, c = ours(cfg, env_steps, nstep)
            else:
                with unguarded():
                    w, c = ours(cfg, env_steps, nstep)
            wall[side].append(w)
            cpu[side].append(c)

    def summary(runs):
        med = {k: statistics.median(v) for k, v in runs.items()}
        cost = 1 - med['guarded'] / med['unguarded']
        # the guarded side's own spread: half its interquartile range, relative to its median
        q1, _, q3 = statistics.quantiles(runs['guarded'], n=4)
        noise = (q3 - q1) / 2 / med['guarded']
        return {'median_steps_per_s': med, 'cost': cost, 'noise': noise, 'within_noise': cost <= noise}

    result = {'benchmark': 'collection_guard', 'date': datetime.now(timezone.utc).isoformat(timespec='seconds'),
              'setting': f'the n-step side of collection.py ({N_ENV} x {ENV_ID}, nstep {nstep}, n_sample '
                         f'{cfg.policy.collect.n_sample}, {env_steps} env steps per round, {rounds} rounds, '
                         'sides alternating); unguarded: nonfinite.finite, check_reset_obs and rollout_finite '
                         'patched to no-ops',
              'load_average_1min': load, 'wall': summary(wall), 'cpu': summary(cpu), 'rounds': {'wall': wall, 'cpu': cpu}}
    atomic_write_json(out, result)
    print({k: result[k] for k in ('wall', 'cpu')})


def main() -> None:
    parser = argparse.ArgumentParser(description='StepCollector + nstep + data_pusher vs bare SyncVectorEnv')
    parser.add_argument('--env-steps', type=int, default=40000)
    parser.add_argument('--rounds', type=int, default=5)
    parser.add_argument('--nstep', type=int, default=None, help="n-step side's n (default: the config's)")
    parser.add_argument('--n-sample', type=int, default=None, help="rows per collect call (default: the config's)")
    parser.add_argument('--profile', action='store_true', help='print a cProfile of the n-step side and exit')
    parser.add_argument('--guard-ab', action='store_true', help="the non-finite guard's cost (collection_guard.json)")
    parser.add_argument('--out', default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'results', 'collection.json'))
    args = parser.parse_args()
    torch.set_num_threads(1)
    cfg = load_config(CONFIG, 0, '/tmp/bench_collection', save_cfg=False)
    cfg.policy.model.encoder_hidden_size_list = list(HIDDEN)  # the benchmark's net, whatever the config tunes
    nstep = int(args.nstep or cfg.policy.nstep)
    if args.n_sample:
        cfg.policy.collect.n_sample = args.n_sample
    if args.profile:
        ours(cfg, args.env_steps, nstep, profile=True)
        return
    if args.guard_ab:
        out = os.path.join(os.path.dirname(args.out), 'collection_guard.json')
        return guard_ab(cfg, args.env_steps, nstep, args.rounds, out)
    sides = {'bare': lambda: bare_loop(cfg, args.env_steps), 'ours_nstep': lambda: ours(cfg, args.env_steps, nstep),
             'ours_1step': lambda: ours(cfg, args.env_steps, 1)}
    wall, cpu, load = {k: [] for k in sides}, {k: [] for k in sides}, []
    for _ in range(args.rounds):
        load.append(os.getloadavg()[0])
        for name, side in sides.items():
            w, c = side()
            wall[name].append(w)
            cpu[name].append(c)
    wall_median = {k: statistics.median(v) for k, v in wall.items()}
    cpu_median = {k: statistics.median(v) for k, v in cpu.items()}
    result = {
        'benchmark': 'collection',
        'date': datetime.now(timezone.utc).isoformat(timespec='seconds'),
        'setting': f'{N_ENV} x {ENV_ID}, DQNPolicy ({CONFIG}: 4-64-64-2 MLP, n_sample '
                   f'{cfg.policy.collect.n_sample}) eps-greedy {EPS}, serial manager, StepCollector -> '
                   f'nstep_reward_enhancer -> data_pusher(DequeBuffer); bare: SyncVectorEnv + same forward + '
                   f'numpy eps-greedy, transitions kept; {args.env_steps} env steps x {args.rounds} rounds '
                   f'(sides alternating), one torch thread',
        'nstep': nstep,
        'n_sample': int(cfg.policy.collect.n_sample),
        'load_average_1min': load,  # 2 cores: above ~1 the wall-clock figures share the CPU with other work
        'env_steps_per_s': wall_median,
        'ratio_nstep': wall_median['ours_nstep'] / wall_median['bare'],
        'ratio_1step': wall_median['ours_1step'] / wall_median['bare'],
        # Steps per second of this process's own CPU time: less moved by other processes' load.
        'env_steps_per_cpu_s': cpu_median,
        'cpu_ratio_nstep': cpu_median['ours_nstep'] / cpu_median['bare'],
        'cpu_ratio_1step': cpu_median['ours_1step'] / cpu_median['bare'],
        'target_ratio': 0.8,
        'rounds': {'wall': wall, 'cpu': cpu},
    }
    atomic_write_json(args.out, result)
    print({k: v for k, v in result.items() if k != 'rounds'})


if __name__ == '__main__':
    main()
