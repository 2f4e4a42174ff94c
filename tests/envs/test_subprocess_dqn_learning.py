"""DQN on CartPole-v0 still reaches 195 with the collector envs in subprocesses and the
pipeline in async_mode (collection of step k+1 overlapping training of step k). About 10 s
on the reference machine (it stops at the first evaluation reaching 195), so it stays in the
default run."""
import copy
import warnings

import gymnasium as gym
import torch

from ding.config import compile_config
from ding.data import DequeBuffer
from ding.envs import BaseEnvManagerV2, DingEnvWrapper, SubprocessEnvManagerV2
from ding.framework import task
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import (OffPolicyLearner, StepCollector, data_pusher, eps_greedy_handler,
                                       interaction_evaluator, termination_checker)
from ding.model import DQN
from ding.policy import DQNPolicy
from ding.utils import set_pkg_seed
from dizoo.classic_control.cartpole.config.cartpole_dqn_config import create_config, main_config


def make_env():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        return DingEnvWrapper(gym.make('CartPole-v0'))


def test_dqn_reaches_195_with_subprocess_envs_in_async_mode(tmp_path):
    torch.set_num_threads(1)
    cfg = copy.deepcopy(main_config)
    cfg.exp_name = str(tmp_path / 'dqn_subprocess_async')
    create = copy.deepcopy(create_config)
    create.env_manager = dict(type='subprocess')
    cfg = compile_config(cfg, create_cfg=create, auto=True, seed=0, save_cfg=False)
    collector_env = SubprocessEnvManagerV2([make_env for _ in range(cfg.env.collector_env_num)],
                                           dict(cfg.env.manager, worker_num=2))
    evaluator_env = BaseEnvManagerV2([make_env for _ in range(cfg.env.evaluator_env_num)])
    set_pkg_seed(cfg.seed, use_cuda=False)
    policy = DQNPolicy(cfg.policy, model=DQN(**cfg.policy.model))
    buffer_ = DequeBuffer(size=cfg.policy.other.replay_buffer.replay_buffer_size)
    try:
        with task.start(async_mode=True, ctx=OnlineRLContext()):
            task.use(interaction_evaluator(cfg, policy.eval_mode, evaluator_env))
            task.use(eps_greedy_handler(cfg))
            task.use(StepCollector(cfg, policy.collect_mode, collector_env))
            task.use(data_pusher(cfg, buffer_))
            task.use(OffPolicyLearner(cfg, policy.learn_mode, buffer_))
            task.use(termination_checker(max_env_step=60_000))
            task.run()
            ctx = task.ctx
    finally:
        collector_env.close()
        evaluator_env.close()
    assert ctx.last_eval_value >= 195
    assert collector_env.dropped_episodes == 0
