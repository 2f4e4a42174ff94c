"""MAPPO on MPE simple_spread (3 agents, 25-step episodes): env steps and wall time until the
greedy evaluation return reaches a threshold (DI-engine's team reward, see
dizoo/petting_zoo/envs/petting_zoo_simple_spread_env.py; a uniformly random policy scores about
-190, a greedy untrained one about -200).

Protocol: every `--eval-every` env steps, `--eval-episodes` greedy episodes on separate envs
(fixed seeds); wall time counts everything (evaluations included) from just before training
starts. The pipeline is DI-engine's ding/example/mappo.py (StepCollector, gae_estimator,
multistep_trainer) on serial env managers, with our dizoo config plus the `--set` overrides.

    python benchmarks/learning/mappo_simple_spread.py [--seeds 0 1 2] [--threshold -130] [--max-env-step 400000]
        [--set learn.batch_size=800 ...]
Writes benchmarks/results/mappo_simple_spread.json (curves included).
"""
import argparse
import copy
import json
import statistics
import time

import numpy as np
import torch

from ding.config import compile_config
from ding.envs import BaseEnvManagerV2
from ding.framework import task
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import StepCollector, gae_estimator, multistep_trainer
from ding.framework.middleware.evaluator import run_episodes
from ding.model import MAVAC
from ding.policy import PPOPolicy
from ding.utils import set_pkg_seed
from ding.utils.fileio import atomic_write_json
from dizoo.petting_zoo.config.ptz_simple_spread_mappo_config import create_config, main_config
from dizoo.petting_zoo.envs.petting_zoo_simple_spread_env import PettingZooEnv

# what this benchmark runs unless --set says otherwise (the dizoo config's values, stated)
DEFAULT_OVERRIDES = {'learn.batch_size': 800, 'learn.epoch_per_collect': 5, 'collect.n_sample': 3200}


def env_step_evaluator(policy, env, args, record: dict):
    state = {'next': 0}

    def _evaluate(ctx):
        if ctx.env_step < state['next']:
            return
        state['next'] = (ctx.env_step // args.eval_every + 1) * args.eval_every
        mean = float(np.mean(run_episodes(policy, env, args.eval_episodes, 10_000)))
        wall = round(time.perf_counter() - record['t0'], 3)
        record['evals'].append((int(ctx.env_step), int(ctx.train_iter), wall, round(mean, 2)))
        if mean >= args.threshold and not record['reached']:
            record.update(reached=True, env_steps=int(ctx.env_step), wall_s=round(wall, 2))
            task.finish = True

    return _evaluate


def set_policy_keys(user, overrides: dict) -> None:
    for dotted, value in overrides.items():
        node = user.policy
        *path, last = dotted.split('.')
        for part in path:
            node = node[part]
        node[last] = value


def run_seed(seed: int, args, overrides: dict) -> dict:
    user = copy.deepcopy(main_config)
    user.exp_name = f'benchmarks/results/mappo_simple_spread_seed{seed}'
    user.policy.cuda = False
    set_policy_keys(user, overrides)
    cfg = compile_config(user, create_cfg=create_config, auto=True, seed=seed, save_cfg=False)
    record = {'seed': seed, 'reached': False, 'evals': []}
    with task.start(async_mode=False, ctx=OnlineRLContext()):
        make = lambda: PettingZooEnv(cfg.env)  # noqa: E731
        collector_env = BaseEnvManagerV2([make for _ in range(cfg.env.collector_env_num)], cfg=cfg.env.manager)
        evaluator_env = BaseEnvManagerV2([make for _ in range(args.eval_episodes)], cfg=cfg.env.manager)
        set_pkg_seed(seed, use_cuda=False)
        policy = PPOPolicy(cfg.policy, model=MAVAC(**cfg.policy.model))
        task.use(env_step_evaluator(policy.eval_mode, evaluator_env, args, record))
        task.use(StepCollector(cfg, policy.collect_mode, collector_env))
        task.use(gae_estimator(cfg, policy.collect_mode))
        task.use(multistep_trainer(policy.learn_mode, log_freq=0))
        task.use(lambda ctx: setattr(task, 'finish', task.finish or ctx.env_step >= args.max_env_step))
        record['t0'] = time.perf_counter()
        task.run()
        record['total_wall_s'] = round(time.perf_counter() - record.pop('t0'), 2)
        collector_env.close()
        evaluator_env.close()
    return record


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--seeds', type=int, nargs='+', default=[0, 1, 2])
    parser.add_argument('--threshold', type=float, default=-130.0)
    parser.add_argument('--max-env-step', type=int, default=400_000)
    parser.add_argument('--eval-every', type=int, default=3200)
    parser.add_argument('--eval-episodes', type=int, default=10)
    parser.add_argument('--threads', type=int, default=1)
    parser.add_argument('--set', nargs='*', default=[], help='policy overrides, e.g. learn.batch_size=800')
    parser.add_argument('--out', default='benchmarks/results/mappo_simple_spread.json')
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    overrides = dict(DEFAULT_OVERRIDES, **{k: json.loads(v) for k, v in (s.split('=', 1) for s in args.set)})
    runs = []
    for seed in args.seeds:
        runs.append(run_seed(seed, args, overrides))
        r = runs[-1]
        print(f"seed {seed}: reached={r['reached']} env_steps={r.get('env_steps')} wall_s={r.get('wall_s')} "
              f"last evals={r['evals'][-3:]}", flush=True)
    all_reached = all(r['reached'] for r in runs)
    result = {
        'benchmark': f'MAPPO simple_spread (3 agents) to greedy return {args.threshold}',
        'threads': args.threads,
        'overrides': overrides,
        'eval': {'every_env_steps': args.eval_every, 'episodes': args.eval_episodes},
        'all_reached': all_reached,
        'median_wall_s': statistics.median(r['wall_s'] for r in runs) if all_reached else None,
        'median_env_steps': statistics.median(r['env_steps'] for r in runs) if all_reached else None,
        'runs': runs,
    }
    atomic_write_json(args.out, result)
    print(json.dumps({k: v for k, v in result.items() if k != 'runs'}))


if __name__ == '__main__':
    main()
