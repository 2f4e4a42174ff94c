"""DQN with and without hindsight experience replay on n-bit flipping (issue 16).

All arms run the same pipeline as DI-engine's `ding/example/dqn_her.py` with its
`bitflip_her_dqn_config` scaled to `--bits` (EpisodeCollector, episode buffer, HERLearner with
`episode_size * sample_per_episode` = 128 transitions per update); only the reward model differs:
- `her`: `HerRewardModel` ('future' strategy) relabels the sampled transitions, keeping their
  `done` as DI-engine does;
- `her_done_on_goal`: the same with `done_on_goal=True`: a relabelled transition that reaches
  its new goal is terminal, as reaching the real goal is in this env;
- `plain`: the same transitions as they were collected.
Success rate = mean eval return over 16 greedy episodes, every `--eval-freq` train iterations,
up to `--env-steps` env steps.

    python benchmarks/learning/her_bitflip.py [--bits 15] [--env-steps 300000] [--seeds 0] [--arms her her_done_on_goal plain]

Writes benchmarks/results/her_bitflip.json.
"""
import argparse
import copy
import datetime
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), '..'))
from ding.config import compile_config  # noqa: E402
from ding.data import DequeBuffer  # noqa: E402
from ding.data.batch import Batch, as_batch  # noqa: E402
from ding.envs import BaseEnvManagerV2  # noqa: E402
from ding.framework import task  # noqa: E402
from ding.framework.context import OnlineRLContext  # noqa: E402
from ding.framework.middleware import (EpisodeCollector, HERLearner, data_pusher, eps_greedy_handler,  # noqa: E402
                                       interaction_evaluator, termination_checker)
from ding.model import DQN  # noqa: E402
from ding.policy import DQNPolicy  # noqa: E402
from ding.reward_model import HerRewardModel  # noqa: E402
from ding.utils import set_pkg_seed  # noqa: E402
from ding.utils.fileio import atomic_write_json  # noqa: E402
from dizoo.bitflip.config.bitflip_her_dqn_config import create_config, main_config  # noqa: E402
from dizoo.bitflip.envs import BitFlipEnv  # noqa: E402

RESULTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'results')


class NoRelabel:
    """The plain-DQN arm: the same transitions HER would draw from each episode, unchanged."""

    def __init__(self, her_cfg) -> None:
        self.episode_size = her_cfg.episode_size
        self._per_episode = her_cfg.sample_per_episode

    def estimate_episodes(self, episodes) -> Batch:
        parts = [as_batch(list(e)).to_numpy() for e in episodes]
        return Batch.cat([b[np.random.randint(0, len(b), self._per_episode)] for b in parts])


def run(bits: int, seed: int, her: bool, env_steps: int, eval_freq: int, done_on_goal: bool = False) -> dict:
    main = copy.deepcopy(main_config)
    main.exp_name = f'/tmp/ding_bench_her_bitflip_{bits}_{"her" if her else "plain"}_{seed}'
    main.env.n_bits = bits
    main.policy.model.obs_shape = 2 * bits
    main.policy.model.action_shape = bits
    main.policy.eval.evaluator.eval_freq = eval_freq
    main.policy.other.her.done_on_goal = done_on_goal
    cfg = compile_config(main, create_cfg=copy.deepcopy(create_config), auto=True, seed=seed, save_cfg=False)
    curve = []
    start = time.time()
    with task.start(async_mode=False, ctx=OnlineRLContext()):
        collector_env = BaseEnvManagerV2([lambda: BitFlipEnv(cfg.env) for _ in range(cfg.env.collector_env_num)],
                                         cfg=cfg.env.manager)
        evaluator_env = BaseEnvManagerV2([lambda: BitFlipEnv(cfg.env) for _ in range(cfg.env.evaluator_env_num)],
                                         cfg=cfg.env.manager)
        set_pkg_seed(seed, use_cuda=False)
        policy = DQNPolicy(cfg.policy, model=DQN(**cfg.policy.model))
        buffer_ = DequeBuffer(size=cfg.policy.other.replay_buffer.replay_buffer_size)
        relabel = HerRewardModel(cfg.policy.other.her) if her else NoRelabel(cfg.policy.other.her)

        def record(ctx):
            if ctx.last_eval_iter == ctx.train_iter and (not curve or curve[-1]['train_iter'] != ctx.train_iter):
                curve.append(dict(env_step=ctx.env_step, train_iter=ctx.train_iter,
                                  success_rate=round(float(ctx.eval_value), 4),
                                  wall_s=round(time.time() - start, 2)))
                print(f'her done_on_goal={done_on_goal}' if her else 'plain', seed, curve[-1], flush=True)

        task.use(interaction_evaluator(cfg, policy.eval_mode, evaluator_env))
        task.use(record)
        task.use(eps_greedy_handler(cfg))
        task.use(EpisodeCollector(cfg, policy.collect_mode, collector_env))
        task.use(data_pusher(cfg, buffer_))
        task.use(HERLearner(cfg, policy.learn_mode, buffer_, relabel))
        task.use(termination_checker(max_env_step=env_steps))
        task.run()
    reached = [p for p in curve if p['success_rate'] >= cfg.env.stop_value]
    arm = ('dqn_her_done_on_goal' if done_on_goal else 'dqn_her') if her else 'dqn'
    return dict(arm=arm, seed=seed, final_success_rate=curve[-1]['success_rate'],
                best_success_rate=max(p['success_rate'] for p in curve),
                reached_stop_value_at_env_step=reached[0]['env_step'] if reached else None,
                wall_s=round(time.time() - start, 1), curve=curve)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--bits', type=int, default=15)
    parser.add_argument('--env-steps', type=int, default=300000)
    parser.add_argument('--eval-freq', type=int, default=1000, help='train iterations between evaluations')
    parser.add_argument('--seeds', type=int, nargs='+', default=[0])
    parser.add_argument('--arms', nargs='+', choices=['her', 'her_done_on_goal', 'plain'],
                        default=['her', 'her_done_on_goal', 'plain'])
    parser.add_argument('--out', default=os.path.join(RESULTS, 'her_bitflip.json'))
    args = parser.parse_args()
    torch.set_num_threads(1)
    runs = []
    for seed in args.seeds:
        for arm in args.arms:
            result = run(args.bits, seed, arm != 'plain', args.env_steps, args.eval_freq, arm == 'her_done_on_goal')
            print({k: v for k, v in result.items() if k != 'curve'}, flush=True)
            runs.append(result)
    atomic_write_json(args.out, dict(
        benchmark='DQN vs DQN+HER on bit flipping', date=datetime.date.today().isoformat(), n_bits=args.bits,
        env_step_budget=args.env_steps, stop_value=0.9,
        note='2-core machine shared with other jobs: wall times are under load', runs=runs))


if __name__ == '__main__':
    main()
