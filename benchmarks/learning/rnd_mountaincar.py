"""DQN with and without a random-network-distillation bonus on MountainCar-v0 (issue 16).

MountainCar pays -1 per step until the car reaches the flag (episodes end after 200 steps),
so an eps-greedy agent that never reaches it sees a flat reward and learns nothing. Both arms
run the pipeline of DI-engine's `ding/example/dqn_rnd.py` (StepCollector -> trainer(cfg,
reward_model) -> data_pusher -> OffPolicyLearner(..., reward_model=...)); the plain arm drops
the two reward-model pieces. Evaluation: mean greedy return over 5 episodes every
`--eval-freq` train iterations, up to `--env-steps` env steps or the first evaluation at
-120 or better (the evaluator's stop value).

    python benchmarks/learning/rnd_mountaincar.py [--env-steps 200000] [--seeds 0] [--weight 1.0] [--arms rnd plain]

Writes benchmarks/results/rnd_mountaincar.json.
"""
import argparse
import datetime
import os
import sys
import time

import gymnasium as gym
import torch
from easydict import EasyDict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), '..'))
from ding.config import compile_config  # noqa: E402
from ding.data import DequeBuffer  # noqa: E402
from ding.envs import BaseEnvManagerV2, DingEnvWrapper  # noqa: E402
from ding.framework import task  # noqa: E402
from ding.framework.context import OnlineRLContext  # noqa: E402
from ding.framework.middleware import (OffPolicyLearner, StepCollector, data_pusher, eps_greedy_handler,  # noqa: E402
                                       interaction_evaluator, termination_checker, trainer)
from ding.model import DQN  # noqa: E402
from ding.policy import DQNPolicy  # noqa: E402
from ding.reward_model import RndRewardModel  # noqa: E402
from ding.utils import set_pkg_seed  # noqa: E402
from ding.utils.fileio import atomic_write_json  # noqa: E402

RESULTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'results')


def config(seed: int, rnd: bool, eval_freq: int, weight: float = 1.0) -> EasyDict:
    main = dict(
        exp_name=f'/tmp/ding_bench_rnd_mountaincar_{"rnd" if rnd else "plain"}_{seed}',
        env=dict(collector_env_num=8, evaluator_env_num=5, n_evaluator_episode=5, stop_value=-120),
        policy=dict(
            model=dict(obs_shape=2, action_shape=3, encoder_hidden_size_list=[128, 128, 64], dueling=True),
            nstep=1,
            discount_factor=0.99,
            learn=dict(update_per_collect=10, batch_size=64, learning_rate=0.001, target_update_freq=500),
            collect=dict(n_sample=64),
            eval=dict(evaluator=dict(eval_freq=eval_freq)),
            other=dict(eps=dict(type='exp', start=0.95, end=0.1, decay=20000),
                       replay_buffer=dict(replay_buffer_size=100000)),
        ),
    )
    create = dict(env=dict(type=None), env_manager=dict(type='base'), policy=dict(type='dqn'))
    if rnd:
        # the bonus must be comparable to the -1 step cost to pull the car somewhere new (0.5 was too weak)
        main['reward_model'] = dict(intrinsic_reward_type='add', intrinsic_reward_weight=weight, obs_shape=2,
                                    learning_rate=1e-3, batch_size=64, update_per_collect=10,
                                    hidden_size_list=[64, 64], obs_norm=True, obs_norm_clamp_min=-5,
                                    obs_norm_clamp_max=5)
        create['reward_model'] = dict(type='rnd')
    return compile_config(EasyDict(main), create_cfg=EasyDict(create), auto=True, seed=seed, save_cfg=False)


def run(seed: int, rnd: bool, env_steps: int, eval_freq: int, weight: float = 1.0) -> dict:
    cfg = config(seed, rnd, eval_freq, weight)
    curve, start = [], time.time()
    with task.start(async_mode=False, ctx=OnlineRLContext()):
        make = lambda: DingEnvWrapper(gym.make('MountainCar-v0'))  # noqa: E731
        collector_env = BaseEnvManagerV2([make for _ in range(cfg.env.collector_env_num)], cfg=cfg.env.manager)
        evaluator_env = BaseEnvManagerV2([make for _ in range(cfg.env.evaluator_env_num)], cfg=cfg.env.manager)
        set_pkg_seed(seed, use_cuda=False)
        policy = DQNPolicy(cfg.policy, model=DQN(**cfg.policy.model))
        buffer_ = DequeBuffer(size=cfg.policy.other.replay_buffer.replay_buffer_size)
        reward_model = RndRewardModel(cfg.reward_model) if rnd else None

        def record(ctx):
            if ctx.last_eval_iter == ctx.train_iter and (not curve or curve[-1]['train_iter'] != ctx.train_iter):
                curve.append(dict(env_step=ctx.env_step, train_iter=ctx.train_iter,
                                  eval_return=round(float(ctx.eval_value), 2), wall_s=round(time.time() - start, 2)))
                print('rnd' if rnd else 'plain', seed, curve[-1], flush=True)

        task.use(interaction_evaluator(cfg, policy.eval_mode, evaluator_env))
        task.use(record)
        task.use(eps_greedy_handler(cfg))
        task.use(StepCollector(cfg, policy.collect_mode, collector_env))
        if rnd:
            task.use(trainer(cfg, reward_model))
        task.use(data_pusher(cfg, buffer_))
        task.use(OffPolicyLearner(cfg, policy.learn_mode, buffer_, reward_model=reward_model))
        task.use(termination_checker(max_env_step=env_steps))
        task.run()
    return dict(arm='dqn_rnd' if rnd else 'dqn', seed=seed, intrinsic_reward_weight=weight if rnd else None,
                final_eval_return=curve[-1]['eval_return'],
                best_eval_return=max(p['eval_return'] for p in curve), wall_s=round(time.time() - start, 1),
                curve=curve)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--env-steps', type=int, default=200000)
    parser.add_argument('--eval-freq', type=int, default=600, help='train iterations between evaluations')
    parser.add_argument('--seeds', type=int, nargs='+', default=[0])
    parser.add_argument('--weight', type=float, default=1.0, help='reward_model.intrinsic_reward_weight')
    parser.add_argument('--arms', nargs='+', choices=['rnd', 'plain'], default=['rnd', 'plain'])
    parser.add_argument('--out', default=os.path.join(RESULTS, 'rnd_mountaincar.json'))
    args = parser.parse_args()
    torch.set_num_threads(1)
    runs = [run(seed, arm == 'rnd', args.env_steps, args.eval_freq, args.weight)
            for seed in args.seeds for arm in args.arms]
    atomic_write_json(args.out, dict(
        benchmark='DQN vs DQN+RND on MountainCar-v0', date=datetime.date.today().isoformat(),
        env_step_budget=args.env_steps, note='2-core machine shared with other jobs: wall times are under load',
        runs=[{k: v for k, v in r.items()} for r in runs]))


if __name__ == '__main__':
    main()
