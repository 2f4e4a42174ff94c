"""What the DI-engine protocol adapters cost: env steps/s of `StepCollector` + `data_pusher`
on 8 CartPole-v1 envs with the same 4-64-64-2 greedy MLP, four ways:

- `fast`: our batched policy (`forward_batch`) and manager (`step_batch`), the default path;
- `policy_adapter`: a policy written against DI-engine's protocol (`_forward_collect` on
  `{env_id: obs}`, `_process_transition` per env; ding/policy/di_engine_adapter.py);
- `env_adapter`: our policy, stepping a DI-engine-style V1 manager (`ready_obs` dict,
  `step({env_id: action})`; ding/compat/env_manager_adapter.py);
- `both`: the DI-engine policy on the DI-engine-style manager.

Rounds alternate between the four so machine load hits all alike; medians are reported.

    python benchmarks/throughput/di_engine_adapter.py [--env-steps 8000] [--rounds 3]
Writes benchmarks/results/di_engine_adapter.json.
"""
import argparse
import json
import os
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
    """Ours: acts on the stacked observations."""

    def _forward_collect(self, obs, **kwargs):
        return {'action': self._collect_model(obs).argmax(-1)}


class DIStyleGreedyPolicy(Policy):
    """DI-engine's protocol: dicts by env id in and out, transitions built per env."""

    def _init_collect(self):
        self._collect_model = self._model

    def _forward_collect(self, data, **kwargs):
        ids = list(data.keys())
        with torch.no_grad():
            action = self._collect_model(torch.stack([data[i] for i in ids])).argmax(-1)
        return {i: {'action': action[k]} for k, i in enumerate(ids)}

    def _process_transition(self, obs, policy_output, timestep):
        return {'obs': obs, 'next_obs': timestep.obs, 'action': policy_output['action'], 'reward': timestep.reward,
                'done': timestep.done}

    def _get_train_sample(self, data):
        return data


class DIStyleManager:
    """DI-engine's V1 manager protocol over gymnasium envs: `{env_id: obs}`, `step({env_id:
    action}) -> {env_id: (obs, reward, done, info)}`, finished envs reset at once."""

    def __init__(self, n: int) -> None:
        self.env_num, self.closed, self._seed = n, True, 0

    def seed(self, seed, dynamic_seed=True):
        self._seed = seed

    def launch(self, reset_param=None):
        self._envs = [gym.make(ENV_ID) for _ in range(self.env_num)]
        self._obs = {i: e.reset(seed=self._seed + i)[0] for i, e in enumerate(self._envs)}
        self._returns = [0.0] * self.env_num
        self.closed = False

    @property
    def ready_obs(self):
        return dict(self._obs)

    def step(self, actions):
        out = {}
        for i, a in actions.items():
            obs, rew, term, trunc, info = self._envs[i].step(int(a))
            self._returns[i] += rew
            done = term or trunc
            if done:
                info = dict(info, eval_episode_return=self._returns[i], **{'TimeLimit.truncated': trunc and not term})
                self._returns[i] = 0.0
            out[i] = (obs, np.array([rew], dtype=np.float32), done, info)
            self._obs[i] = self._envs[i].reset()[0] if done else obs
        return out

    def close(self):
        self.closed = True


def run(kind: str, env_steps: int, n_sample: int = 64) -> float:
    cfg = EasyDict(seed=0, policy=dict(collect=dict(n_sample=n_sample, unroll_len=1)))
    di_policy = kind in ('policy_adapter', 'both')
    if kind in ('env_adapter', 'both'):
        env = DIStyleManager(N_ENV)
    else:
        env = BaseEnvManagerV2(env_fn=[lambda: DingEnvWrapper(gym.make(ENV_ID)) for _ in range(N_ENV)],
                               cfg=BaseEnvManagerV2.default_config())
    policy = (DIStyleGreedyPolicy if di_policy else GreedyMLPPolicy)(EasyDict(), model=make_net(),
                                                                      enable_field=['collect'])
    buffer_ = DequeBuffer(size=env_steps + n_sample)
    collector, pusher = StepCollector(cfg, policy.collect_mode, env), data_pusher(cfg, buffer_)
    ctx = OnlineRLContext()
    collector(ctx)  # launch the envs outside the timing
    pusher(ctx)
    ctx.env_step = 0
    start = time.perf_counter()
    while ctx.env_step < env_steps:
        collector(ctx)
        pusher(ctx)
    elapsed = time.perf_counter() - start
    env.close()
    return ctx.env_step / elapsed


KINDS = ('fast', 'policy_adapter', 'env_adapter', 'both')


def main() -> None:
    parser = argparse.ArgumentParser(description='cost of the DI-engine protocol adapters in env steps/s')
    parser.add_argument('--env-steps', type=int, default=8000)
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--out', default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'results', 'di_engine_adapter.json'))
    args = parser.parse_args()
    torch.set_num_threads(1)
    rates = {k: [] for k in KINDS}
    for _ in range(args.rounds):
        for kind in KINDS:
            rates[kind].append(run(kind, args.env_steps))
    median = {k: statistics.median(v) for k, v in rates.items()}
    result = {
        'setting': f'{N_ENV} x {ENV_ID}, 4-64-64-2 MLP greedy, StepCollector + data_pusher into a DequeBuffer, '
                   f'{args.env_steps} env steps x {args.rounds} rounds (alternating)',
        'env_steps_per_s': median,
        'fraction_of_fast_path': {k: v / median['fast'] for k, v in median.items()},
        'rounds': rates,
    }
    from ding.utils.fileio import atomic_write_json
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    atomic_write_json(args.out, result)
    print(json.dumps({k: v for k, v in result.items() if k != 'rounds'}, indent=2))


if __name__ == '__main__':
    main()
