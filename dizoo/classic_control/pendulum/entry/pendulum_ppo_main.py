"""Continuous PPO on Pendulum-v1: the CartPole PPO pipeline with a Gaussian actor.

    python -m dizoo.classic_control.pendulum.entry.pendulum_ppo_main [--seed 0] [--max-env-step 300000]
"""
import argparse
import copy
import logging

import torch

from ding.config import compile_config
from ding.envs import BaseEnvManagerV2
from ding.framework import ding_init, task
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import (CkptSaver, StepCollector, gae_estimator, interaction_evaluator,
                                       multistep_trainer, online_logger, termination_checker)
from ding.model import VAC
from ding.policy import PPOPolicy
from ding.utils import set_pkg_seed
from dizoo.classic_control.pendulum.config.pendulum_ppo_config import create_config, main_config
from dizoo.classic_control.pendulum.envs.pendulum_env import PendulumEnv


def main(seed: int = 0, max_env_step: int = 300_000,
         exp_name: str = None) -> OnlineRLContext:
    """Trains until the greedy evaluation reaches cfg.env.stop_value or `max_env_step`; returns the final ctx."""
    torch.set_num_threads(1)
    user_config = copy.deepcopy(main_config)
    user_config.exp_name = exp_name or f'pendulum_ppo_seed{seed}'
    cfg = compile_config(user_config, create_cfg=create_config, auto=True, seed=seed)
    ding_init(cfg)
    with task.start(async_mode=False, ctx=OnlineRLContext()):
        collector_env = BaseEnvManagerV2(
            env_fn=[lambda: PendulumEnv(cfg.env) for _ in range(cfg.env.collector_env_num)], cfg=cfg.env.manager)
        evaluator_env = BaseEnvManagerV2(
            env_fn=[lambda: PendulumEnv(cfg.env) for _ in range(cfg.env.evaluator_env_num)], cfg=cfg.env.manager)
        set_pkg_seed(cfg.seed, use_cuda=cfg.policy.cuda)
        policy = PPOPolicy(cfg.policy, model=VAC(**cfg.policy.model))

        task.use(interaction_evaluator(cfg, policy.eval_mode, evaluator_env))
        task.use(StepCollector(cfg, policy.collect_mode, collector_env))
        task.use(gae_estimator(cfg, policy.collect_mode))
        task.use(multistep_trainer(policy.learn_mode, log_freq=100))
        task.use(CkptSaver(policy, cfg.exp_name, train_freq=1000))
        task.use(online_logger(train_show_freq=100))
        task.use(termination_checker(max_env_step=max_env_step))
        task.run()
        collector_env.close()
        evaluator_env.close()
        return task.ctx


if __name__ == '__main__':
    logging.basicConfig(level=logging.INFO, format='%(asctime)s %(name)s: %(message)s', datefmt='%H:%M:%S')
    parser = argparse.ArgumentParser()
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--max-env-step', type=int, default=300_000)
    parser.add_argument('--exp-name', default=None)
    main(**{k.replace('-', '_'): v for k, v in vars(parser.parse_args()).items()})
