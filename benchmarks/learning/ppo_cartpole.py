"""Time to threshold for PPO on CartPole-v1 (bars.md: eval mean >= 475 within 200k env steps,
median wall seconds over seeds 0, 1, 2; target <= 3.7 s).

Protocol: every 1,000 env steps, 10 greedy episodes on separate envs; wall time counts
everything (evaluations included) from just before training starts. The pipeline is the one
of `cartpole_ppo_main.py` with an env-step-driven evaluator in place of the train-iter one.

    python benchmarks/learning/ppo_cartpole.py [--seeds 0 1 2] [--max-env-step 200000] [--set learn.batch_size=256 ...]
Writes benchmarks/results/ppo_cartpole.json.
"""
import argparse
import copy
import json
import os
import statistics
import time

import gymnasium as gym
import numpy as np
import torch

from ding.config import compile_config
from ding.envs import BaseEnvManagerV2, DingEnvWrapper
from ding.framework import task
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import StepCollector, gae_estimator, multistep_trainer
from ding.framework.middleware.evaluator import run_episodes
from ding.model import VAC
from ding.policy import PPOPolicy
from ding.utils import set_pkg_seed
from ding.utils.fileio import atomic_write_json
from dizoo.classic_control.cartpole.config.cartpole_ppo_config import create_config, main_config

ENV_ID, THRESHOLD, EVAL_EVERY, EVAL_EPISODES = 'CartPole-v1', 475.0, 1000, 10


def env_step_evaluator(policy, env, seed: int, record: dict):
    """Evaluates each time env_step crosses a multiple of EVAL_EVERY; stops at THRESHOLD."""
    state = {'next': EVAL_EVERY}

    def _evaluate(ctx):
        if ctx.env_step < state['next']:
            return
        state['next'] = (ctx.env_step // EVAL_EVERY + 1) * EVAL_EVERY
        mean = float(np.mean(run_episodes(policy, env, EVAL_EPISODES, seed + 10_000)))
        wall = round(time.perf_counter() - record['t0'], 3)
        record['evals'].append((int(ctx.env_step), int(ctx.train_iter), wall, mean))
        if mean >= THRESHOLD:
            record.update(reached=True, env_steps=int(ctx.env_step), train_iter=int(ctx.train_iter),
                          wall_s=time.perf_counter() - record['t0'])
            task.finish = True

    return _evaluate


def run_seed(seed: int, max_env_step: int, overrides: dict) -> dict:
    user = copy.deepcopy(main_config)
    user.exp_name = f'benchmarks/results/ppo_cartpole_seed{seed}'
    user.env.env_id = ENV_ID
    for dotted, value in overrides.items():
        node = user.policy
        *path, last = dotted.split('.')
        for part in path:
            node = node[part]
        node[last] = value
    cfg = compile_config(user, create_cfg=create_config, auto=True, seed=seed, save_cfg=False)
    record = {'seed': seed, 'reached': False, 'evals': []}
    with task.start(async_mode=False, ctx=OnlineRLContext()):
        make = lambda: DingEnvWrapper(gym.make(ENV_ID))  # noqa: E731
        collector_env = BaseEnvManagerV2([make for _ in range(cfg.env.collector_env_num)], cfg=cfg.env.manager)
        evaluator_env = BaseEnvManagerV2([make for _ in range(EVAL_EPISODES)], cfg=cfg.env.manager)
        set_pkg_seed(seed, use_cuda=False)
        policy = PPOPolicy(cfg.policy, model=VAC(**cfg.policy.model))
        task.use(StepCollector(cfg, policy.collect_mode, collector_env))
        task.use(gae_estimator(cfg, policy.collect_mode))
        task.use(multistep_trainer(policy.learn_mode, log_freq=0))
        task.use(env_step_evaluator(policy.eval_mode, evaluator_env, seed, record))
        task.use(lambda ctx: setattr(task, 'finish', task.finish or ctx.env_step >= max_env_step))
        record['t0'] = time.perf_counter()
        task.run()
        collector_env.close()
        evaluator_env.close()
    record.pop('t0')
    return record


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--seeds', type=int, nargs='+', default=[0, 1, 2])
    parser.add_argument('--max-env-step', type=int, default=200_000)
    parser.add_argument('--threads', type=int, default=1)
    parser.add_argument('--set', nargs='*', default=[], help='policy overrides, e.g. learn.batch_size=256')
    parser.add_argument('--out', default='benchmarks/results/ppo_cartpole.json')
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    overrides = {k: json.loads(v) for k, v in (s.split('=', 1) for s in args.set)}
    runs = [run_seed(seed, args.max_env_step, overrides) for seed in args.seeds]
    for r in runs:
        print(f"seed {r['seed']}: reached={r['reached']} env_steps={r.get('env_steps')} "
              f"train_iter={r.get('train_iter')} wall_s={r.get('wall_s')}")
    reached = [r for r in runs if r['reached']]
    result = {
        'benchmark': f'PPO {ENV_ID} to {THRESHOLD}',
        'target_wall_s': 3.7,
        'overrides': overrides,
        'all_reached': len(reached) == len(runs),
        'median_wall_s': statistics.median(r['wall_s'] for r in reached) if len(reached) == len(runs) else None,
        'median_env_steps': statistics.median(r['env_steps'] for r in reached) if len(reached) == len(runs) else None,
        'runs': runs,
    }
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    atomic_write_json(args.out, result)
    print(json.dumps({k: v for k, v in result.items() if k != 'runs'}))


if __name__ == '__main__':
    main()
