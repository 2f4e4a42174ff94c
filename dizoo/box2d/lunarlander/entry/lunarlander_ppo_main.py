"""PPO on LunarLander-v3, discrete (default) or continuous (`--continuous`). Needs Box2D:
pip install "ding[box2d]".

    python -m dizoo.box2d.lunarlander.entry.lunarlander_ppo_main [--seed 0] [--continuous] [--max-env-step 1000000]
"""
import argparse
import copy
import importlib
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
from dizoo.box2d.lunarlander.envs.lunarlander_env import LunarLanderEnv

CONFIGS = {
    False: 'dizoo.box2d.lunarlander.config.lunarlander_ppo_config',
    True: 'dizoo.box2d.lunarlander.config.lunarlander_ppo_continuous_config',
}


def main(seed: int = 0, continuous: bool = False, max_env_step: int = 1_000_000,
         exp_name: str = None) -> OnlineRLContext:
    """Trains until the greedy evaluation reaches cfg.env.stop_value or `max_env_step`; returns the final ctx."""
    torch.set_num_threads(1)
    module = importlib.import_module(CONFIGS[continuous])
    user_config = copy.deepcopy(module.main_config)
    user_config.exp_name = exp_name or user_config.exp_name.replace('seed0', f'seed{seed}')
    cfg = compile_config(user_config, create_cfg=copy.deepcopy(module.create_config), auto=True, seed=seed)
    ding_init(cfg)
    with task.start(async_mode=False, ctx=OnlineRLContext()):
        collector_env = BaseEnvManagerV2(
            env_fn=[lambda: LunarLanderEnv(cfg.env) for _ in range(cfg.env.collector_env_num)], cfg=cfg.env.manager)
        evaluator_env = BaseEnvManagerV2(
            env_fn=[lambda: LunarLanderEnv(cfg.env) for _ in range(cfg.env.evaluator_env_num)], cfg=cfg.env.manager)
        set_pkg_seed(cfg.seed, use_cuda=cfg.policy.cuda)
        policy = PPOPolicy(cfg.policy, model=VAC(**cfg.policy.model))

        task.use(interaction_evaluator(cfg, policy.eval_mode, evaluator_env))
        task.use(StepCollector(cfg, policy.collect_mode, collector_env))
        task.use(gae_estimator(cfg, policy.collect_mode))
        task.use(multistep_trainer(policy.learn_mode, log_freq=400))
        task.use(CkptSaver(policy, cfg.exp_name, train_freq=4000))
        task.use(online_logger(train_show_freq=400))
        task.use(termination_checker(max_env_step=max_env_step))
        task.run()
        collector_env.close()
        evaluator_env.close()
        return task.ctx


if __name__ == '__main__':
    logging.basicConfig(level=logging.INFO, format='%(asctime)s %(name)s: %(message)s', datefmt='%H:%M:%S')
    parser = argparse.ArgumentParser()
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--continuous', action='store_true')
    parser.add_argument('--max-env-step', type=int, default=1_000_000)
    parser.add_argument('--exp-name', default=None)
    main(**{k.replace('-', '_'): v for k, v in vars(parser.parse_args()).items()})
