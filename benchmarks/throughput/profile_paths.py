"""Where the time goes: the collector step, the learner step and the evaluator of the DQN
CartPole pipeline, each broken into its parts, in microseconds per env step (collection,
evaluation) or per update (learning), beside a bare loop doing the same work.

The parts are timed by wrapping the very callables the middleware calls (`env.step_batch`,
`policy.forward_batch`, the Q-network, `epsilon_greedy`, `buffer.sample`, the policy's
`_forward_learn` and `_update_target`); what a wrapper does not cover is the middleware's own
work (building the transition columns, collation) and is reported as such. The wrappers add
about 1 µs per call, which the totals include.

    python benchmarks/throughput/profile_paths.py [--env-steps 20000] [--updates 2000]
Writes benchmarks/results/profile_paths.json; docs/benchmarks.md renders it.
"""
import argparse
import os
import sys
import time
from collections import defaultdict
from datetime import datetime, timezone

import gymnasium as gym
import numpy as np
import torch

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from machine_load import CpuTimes  # noqa: E402

import ding.policy.dqn as dqn_module  # noqa: E402
from ding.data import DequeBuffer  # noqa: E402
from ding.data.batch import Batch  # noqa: E402
from ding.envs import BaseEnvManagerV2, DingEnvWrapper  # noqa: E402
from ding.framework.context import OnlineRLContext  # noqa: E402
from ding.framework.middleware import (OffPolicyLearner, StepCollector, data_pusher,  # noqa: E402
                                       nstep_reward_enhancer)
from ding.framework.middleware.evaluator import run_episodes  # noqa: E402
from ding.model import DQN  # noqa: E402
from ding.policy import DQNPolicy  # noqa: E402
from ding.utils.fileio import atomic_write_json  # noqa: E402
from dizoo.common.config_loader import load_config  # noqa: E402

N_ENV, ENV_ID, EPS = 8, 'CartPole-v1', 0.1


class Clock:
    """Seconds spent inside wrapped callables, by name."""

    def __init__(self) -> None:
        self.seconds = defaultdict(float)

    def wrap(self, name: str, fn):
        seconds, now = self.seconds, time.perf_counter

        def timed(*args, **kwargs):
            t0 = now()
            try:
                return fn(*args, **kwargs)
            finally:
                seconds[name] += now() - t0
        return timed


def make_policy(cfg):
    torch.manual_seed(0)
    return DQNPolicy(cfg.policy, model=DQN(**cfg.policy.model))


def make_envs(n: int) -> BaseEnvManagerV2:
    return BaseEnvManagerV2([lambda: DingEnvWrapper(gym.make(ENV_ID)) for _ in range(n)],
                            cfg=BaseEnvManagerV2.default_config())


def profile_collection(cfg, env_steps: int) -> dict:
    """StepCollector + data_pusher into a DequeBuffer, eps-greedy DQN on 8 CartPoles."""
    policy = make_policy(cfg)
    env = make_envs(N_ENV)
    buffer_ = DequeBuffer(size=env_steps + 1024)
    clock = Clock()
    collect = policy.collect_mode
    collector, pusher = StepCollector(cfg, collect, env), data_pusher(cfg, buffer_)
    ctx = OnlineRLContext()
    ctx.collect_kwargs = {'eps': EPS}
    collector(ctx)  # launches the envs outside the timing
    ctx.trajectories = None
    env.step_batch = clock.wrap('env_step', env.step_batch)
    collect.forward_batch = clock.wrap('policy_forward', collect.forward_batch)
    policy._collect_model.forward = clock.wrap('q_network', policy._collect_model.forward)
    original_eps = dqn_module.epsilon_greedy
    dqn_module.epsilon_greedy = clock.wrap('eps_greedy', original_eps)
    timed_nstep = clock.wrap('nstep_enhancer', nstep_reward_enhancer(cfg))
    timed_pusher = clock.wrap('buffer_push', pusher)
    timed_collector = clock.wrap('collector_call', collector)
    start_step = ctx.env_step
    t0 = time.perf_counter()
    try:
        while ctx.env_step - start_step < env_steps:
            timed_collector(ctx)
            timed_nstep(ctx)
            timed_pusher(ctx)
    finally:
        dqn_module.epsilon_greedy = original_eps
    total = time.perf_counter() - t0
    steps = ctx.env_step - start_step
    env.close()
    s = clock.seconds
    per_step = lambda x: 1e6 * x / steps  # noqa: E731
    parts = {
        'env_step': per_step(s['env_step']),
        'q_network': per_step(s['q_network']),
        'eps_greedy': per_step(s['eps_greedy']),
        'forward_rest (to tensor, no_grad, to numpy)': per_step(s['policy_forward'] - s['q_network'] - s['eps_greedy']),
        'transition_writing (collector minus env and forward)':
            per_step(s['collector_call'] - s['env_step'] - s['policy_forward']),
        'nstep_enhancer': per_step(s['nstep_enhancer']),
        'buffer_push': per_step(s['buffer_push']),
        'pipeline_rest': per_step(total - s['collector_call'] - s['nstep_enhancer'] - s['buffer_push']),
    }
    return dict(us_per_env_step=parts, total_us_per_env_step=per_step(total), env_steps=steps)


def bare_collection(env_steps: int, net: torch.nn.Module) -> dict:
    """SyncVectorEnv + the same Q-network + eps-greedy, keeping the transitions in lists."""
    envs = gym.vector.SyncVectorEnv([lambda: gym.make(ENV_ID) for _ in range(N_ENV)])
    obs, _ = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    keep, resetting, real = [], np.zeros(N_ENV, dtype=bool), 0
    t0 = time.perf_counter()
    while real < env_steps:
        with torch.no_grad():
            action = net(torch.from_numpy(obs.astype(np.float32)))['logit'].argmax(-1).numpy()
        explore = rng.random(N_ENV) < EPS
        action = np.where(explore, rng.integers(0, 2, N_ENV), action)
        next_obs, reward, terminated, truncated, _ = envs.step(action)
        keep.append((obs, action, reward, next_obs, terminated, truncated))
        real += N_ENV - int(resetting.sum())
        resetting = terminated | truncated
        obs = next_obs
    total = time.perf_counter() - t0
    envs.close()
    return dict(total_us_per_env_step=1e6 * total / real, env_steps=real)


def profile_learning(cfg, updates: int) -> dict:
    """OffPolicyLearner on a full buffer: sample -> collate -> forward/backward -> target update."""
    policy = make_policy(cfg)
    buffer_ = DequeBuffer(size=20_000)
    env = make_envs(N_ENV)
    collector = StepCollector(cfg, policy.collect_mode, env)
    pusher, nstep = data_pusher(cfg, buffer_), nstep_reward_enhancer(cfg)
    ctx = OnlineRLContext()
    ctx.collect_kwargs = {'eps': 1.0}
    while ctx.env_step < 10_000:
        collector(ctx)
        nstep(ctx)
        pusher(ctx)
    env.close()
    clock = Clock()
    buffer_.sample = clock.wrap('sample', buffer_.sample)
    policy._forward_learn = clock.wrap('forward_learn', policy._forward_learn)
    policy._update_target = clock.wrap('target_update', policy._update_target)
    policy._optimizer.step = clock.wrap('optimizer_step', policy._optimizer.step)
    original_to_torch = Batch.to_torch
    Batch.to_torch = clock.wrap('collation', original_to_torch)
    cfg.policy.learn.update_per_collect = updates
    learner = OffPolicyLearner(cfg, policy.learn_mode, buffer_, log_freq=10 ** 9)
    t0 = time.perf_counter()
    try:
        learner(ctx)
    finally:
        Batch.to_torch = original_to_torch
    total = time.perf_counter() - t0
    s = clock.seconds
    per = lambda x: 1e6 * x / updates  # noqa: E731
    parts = {
        'sample': per(s['sample']),
        'collation (columns to tensors)': per(s['collation']),
        'forward_backward (loss, backward, clip)': per(s['forward_learn'] - s['target_update'] - s['optimizer_step']),
        'optimizer_step': per(s['optimizer_step']),
        'target_update': per(s['target_update']),
        'middleware_rest': per(total - s['sample'] - s['collation'] - s['forward_learn']),
    }
    return dict(us_per_update=parts, total_us_per_update=per(total), updates=updates,
                batch_size=int(cfg.policy.learn.batch_size))


def profile_evaluation(cfg, episodes: int) -> dict:
    policy = make_policy(cfg)
    env = make_envs(N_ENV)
    clock = Clock()
    eval_mode = policy.eval_mode
    env.launch()
    env.step_batch = clock.wrap('env_step', env.step_batch)
    eval_mode.forward_batch = clock.wrap('policy_forward', eval_mode.forward_batch)
    t0 = time.perf_counter()
    returns = run_episodes(eval_mode, env, episodes, seed=0)
    total = time.perf_counter() - t0
    steps = int(sum(returns))  # CartPole: reward 1 per step
    env.close()
    s = clock.seconds
    per = lambda x: 1e6 * x / steps  # noqa: E731
    return dict(us_per_env_step={'env_step': per(s['env_step']), 'policy_forward': per(s['policy_forward']),
                                 'evaluator_rest': per(total - s['env_step'] - s['policy_forward'])},
                total_us_per_env_step=per(total), env_steps=steps, episodes=episodes)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--env-steps', type=int, default=20_000)
    parser.add_argument('--updates', type=int, default=2_000)
    parser.add_argument('--eval-episodes', type=int, default=16)
    parser.add_argument('--out', default='benchmarks/results/profile_paths.json')
    args = parser.parse_args()
    torch.set_num_threads(1)
    cfg = load_config('dizoo.classic_control.cartpole.config.cartpole_dqn_v1_config', 0, '/tmp/profile_paths')
    cfg.policy.collect.n_sample = 64
    cfg.policy.model.encoder_hidden_size_list = [64, 64]  # the profiled 4-64-64-2 MLP (the config's is now 256-256)
    with CpuTimes() as cpu:
        ours = profile_collection(cfg, args.env_steps)
        bare = bare_collection(args.env_steps, make_policy(cfg)._collect_model)
        learning = profile_learning(cfg, args.updates)
        evaluation = profile_evaluation(cfg, args.eval_episodes)
    result = dict(
        benchmark='profile_paths',
        date=datetime.now(timezone.utc).isoformat(timespec='seconds'),
        setting=f'DQN {ENV_ID}, {N_ENV} envs, serial manager, eps {EPS}, n_sample 64, one torch thread, '
                f'config cartpole_dqn_v1_config with its 4-64-64-2 MLP of before 2026-11-27',
        cpu=cpu.fractions,
        load_average_1min=os.getloadavg()[0],  # > 2 on this 2-core machine: the figures are inflated by contention
        collection=ours,
        bare_collection=bare,
        collection_ratio=bare['total_us_per_env_step'] / ours['total_us_per_env_step'],
        learning=learning,
        evaluation=evaluation,
    )
    atomic_write_json(args.out, result)
    print(result)


if __name__ == '__main__':
    main()
