"""Train DQN on CartPole with the off-policy middleware pipeline of the spec (section 5).

    python -m dizoo.classic_control.cartpole.entry.cartpole_dqn_main [--seed N] [--config v0|v1]
        [--max-env-step N] [--exp-name DIR]

Prints one line per evaluation and leaves the run directory `<exp_name>/`: config.yaml,
tensorboard events, ckpt/ (iteration / eval / final checkpoints), final_ctx.json.
"""
import warnings

import gymnasium as gym
import torch

from ding.data import DequeBuffer
from ding.envs import BaseEnvManagerV2, DingEnvWrapper
from ding.framework import ding_init, task
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import (CkptSaver, OffPolicyLearner, StepCollector, data_pusher, eps_greedy_handler,
                                       final_ctx_saver, interaction_evaluator, nstep_reward_enhancer, online_logger,
                                       termination_checker)
from ding.model import DQN
from ding.policy import DQNPolicy
from ding.utils import set_pkg_seed
from dizoo.common.cli import run_from_command_line
from dizoo.common.config_loader import load_config as load_config_module

CONFIGS = {
    'v0': ('dizoo.classic_control.cartpole.config.cartpole_dqn_config', 'CartPole-v0'),
    'v1': ('dizoo.classic_control.cartpole.config.cartpole_dqn_v1_config', 'CartPole-v1'),
}


def make_env(env_id: str) -> DingEnvWrapper:
    with warnings.catch_warnings():  # gymnasium flags CartPole-v0 as outdated; we use it on purpose
        warnings.simplefilter('ignore', DeprecationWarning)
        return DingEnvWrapper(gym.make(env_id))


def load_config(name: str, seed: int, exp_name: str = None):
    """(compiled config, gym env id) of the `--config` variant `name`."""
    if name not in CONFIGS:
        raise ValueError(f'unknown config {name!r}; valid: {sorted(CONFIGS)}')
    module_name, env_id = CONFIGS[name]
    return load_config_module(module_name, seed, exp_name), env_id


def main(seed: int = 0, config: str = 'v0', max_env_step: int = int(1e5), exp_name: str = None) -> OnlineRLContext:
    """Runs until the eval return reaches stop_value or `max_env_step`; returns the final ctx."""
    torch.set_num_threads(1)
    cfg, env_id = load_config(config, seed, exp_name)
    ding_init(cfg)
    with task.start(async_mode=False, ctx=OnlineRLContext()):
        collector_env = BaseEnvManagerV2(
            env_fn=[lambda: make_env(env_id) for _ in range(cfg.env.collector_env_num)],
            cfg=cfg.env.manager)
        evaluator_env = BaseEnvManagerV2(
            env_fn=[lambda: make_env(env_id) for _ in range(cfg.env.evaluator_env_num)],
            cfg=cfg.env.manager)
        set_pkg_seed(cfg.seed, use_cuda=cfg.policy.cuda)
        model = DQN(**cfg.policy.model)
        buffer_ = DequeBuffer(size=cfg.policy.other.replay_buffer.replay_buffer_size)
        policy = DQNPolicy(cfg.policy, model=model)

        task.use(interaction_evaluator(cfg, policy.eval_mode, evaluator_env))
        task.use(eps_greedy_handler(cfg))
        task.use(StepCollector(cfg, policy.collect_mode, collector_env,
                               random_collect_size=cfg.policy.get('random_collect_size', 0)))
        task.use(nstep_reward_enhancer(cfg))
        task.use(data_pusher(cfg, buffer_))
        task.use(OffPolicyLearner(cfg, policy.learn_mode, buffer_))
        task.use(online_logger(train_show_freq=10))
        task.use(CkptSaver(policy, cfg.exp_name, train_freq=100))
        task.use(termination_checker(max_env_step=max_env_step))
        task.use(final_ctx_saver(cfg.exp_name))
        task.run()
        collector_env.close()
        evaluator_env.close()
        return task.ctx


if __name__ == '__main__':
    run_from_command_line(main, __doc__)
