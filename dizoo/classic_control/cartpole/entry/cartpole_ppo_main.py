"""PPO on CartPole-v1 with the on-policy middleware pipeline (compare `cartpole_dqn_main.py`:
only the collector's companions and the learner differ; see docs/pipelines.md).

    python -m dizoo.classic_control.cartpole.entry.cartpole_ppo_main [--seed 0]
"""
import argparse
import copy
import logging

import gymnasium as gym
import torch

from ding.config import compile_config
from ding.envs import BaseEnvManagerV2, DingEnvWrapper
from ding.framework import ding_init, task
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import (CkptSaver, StepCollector, gae_estimator, interaction_evaluator,
                                       multistep_trainer, online_logger, termination_checker)
from ding.model import VAC
from ding.policy import PPOPolicy
from ding.utils import set_pkg_seed
from dizoo.classic_control.cartpole.config.cartpole_ppo_config import create_config, main_config


def main(seed: int = 0, env_id: str = 'CartPole-v1', stop_value: float = 475,
         max_env_step: int = 200_000,
         exp_name: str = None) -> OnlineRLContext:
    """Trains until the greedy evaluation reaches `stop_value` or `max_env_step`; returns the final ctx."""
    torch.set_num_threads(1)
    user_config = copy.deepcopy(main_config)
    user_config.exp_name = exp_name or f'cartpole_ppo_seed{seed}'
    user_config.env.update(env_id=env_id, stop_value=stop_value)
    cfg = compile_config(user_config, create_cfg=create_config, auto=True, seed=seed)
    ding_init(cfg)
    with task.start(async_mode=False, ctx=OnlineRLContext()):
        collector_env = BaseEnvManagerV2(
            env_fn=[lambda: DingEnvWrapper(gym.make(env_id)) for _ in range(cfg.env.collector_env_num)],
            cfg=cfg.env.manager
        )
        evaluator_env = BaseEnvManagerV2(
            env_fn=[lambda: DingEnvWrapper(gym.make(env_id)) for _ in range(cfg.env.evaluator_env_num)],
            cfg=cfg.env.manager
        )
        set_pkg_seed(cfg.seed, use_cuda=cfg.policy.cuda)
        model = VAC(**cfg.policy.model)
        policy = PPOPolicy(cfg.policy, model=model)

        task.use(interaction_evaluator(cfg, policy.eval_mode, evaluator_env))
        task.use(StepCollector(cfg, policy.collect_mode, collector_env))
        task.use(gae_estimator(cfg, policy.collect_mode))
        task.use(multistep_trainer(policy.learn_mode, log_freq=50))
        task.use(CkptSaver(policy, cfg.exp_name, train_freq=100))
        task.use(online_logger(train_show_freq=50))
        task.use(termination_checker(max_env_step=max_env_step))
        task.run()
        collector_env.close()
        evaluator_env.close()
        return task.ctx


if __name__ == '__main__':
    logging.basicConfig(level=logging.INFO, format='%(asctime)s %(name)s: %(message)s', datefmt='%H:%M:%S')
    parser = argparse.ArgumentParser()
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--env-id', default='CartPole-v1')
    parser.add_argument('--max-env-step', type=int, default=200_000)
    parser.add_argument('--stop-value', type=float, default=475)
    parser.add_argument('--exp-name', default=None)
    main(**{k.replace('-', '_'): v for k, v in vars(parser.parse_args()).items()})
