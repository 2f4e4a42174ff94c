"""SQIL learns CartPole-v0 from an expert's demonstrations alone: no env reward reaches the
learner, only 1 on the expert's transitions and 0 on its own (DI-engine's sqil.py pipeline, with a
scripted expert in place of a trained DQN, so the test needs no checkpoint)."""
import warnings

import gymnasium as gym
import numpy as np
import pytest
import torch

from ding.config import compile_config
from ding.data import DequeBuffer
from ding.envs import BaseEnvManagerV2, DingEnvWrapper
from ding.framework import task
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import (OffPolicyLearner, StepCollector, eps_greedy_handler, interaction_evaluator,
                                       sqil_data_pusher, termination_checker)
from ding.policy import SQILPolicy
from ding.policy.policy_factory import RandomPolicy
from ding.utils import set_pkg_seed
from dizoo.classic_control.cartpole.config.cartpole_sqil_config import create_config, main_config


class ScriptedExpert(RandomPolicy):
    """Pushes the cart towards where the pole falls (return 200 on CartPole-v0), behind the
    agent's collect-mode interface so that its transitions have the agent's columns."""

    def forward_batch(self, obs, **kwargs):
        return {'action': expert_action(obs)}


def expert_action(obs) -> np.ndarray:
    obs = np.asarray(obs)
    return (obs[:, 2] + 0.5 * obs[:, 3] > 0).astype(np.int64)


def make_env():
    with warnings.catch_warnings():  # gymnasium flags CartPole-v0 as outdated; DI-engine's example uses it
        warnings.simplefilter('ignore', DeprecationWarning)
        return DingEnvWrapper(gym.make('CartPole-v0'))


def run_sqil(exp_name: str, seed: int = 0, max_env_step: int = 6000):
    """(final ctx, the trained policy, the agent's own buffer)."""
    torch.set_num_threads(1)
    create = dict(create_config, policy=dict(type='sqil'))
    cfg = compile_config(main_config, create_cfg=create, auto=True, seed=seed, save_cfg=False)
    cfg.exp_name = exp_name
    with task.start(async_mode=False, ctx=OnlineRLContext()):
        envs = {name: BaseEnvManagerV2([make_env for _ in range(n)], cfg=cfg.env.manager)
                for name, n in (('agent', cfg.env.collector_env_num), ('expert', cfg.env.collector_env_num),
                                ('eval', cfg.env.evaluator_env_num))}
        set_pkg_seed(seed, use_cuda=False)
        policy = SQILPolicy(cfg.policy)
        expert = ScriptedExpert(policy.collect_mode, envs['expert'].action_space)
        agent_buffer = DequeBuffer(size=cfg.policy.other.replay_buffer.replay_buffer_size)
        expert_buffer = DequeBuffer(size=cfg.policy.other.replay_buffer.replay_buffer_size)
        task.use(interaction_evaluator(cfg, policy.eval_mode, envs['eval']))
        task.use(eps_greedy_handler(cfg))
        task.use(StepCollector(cfg, policy.collect_mode, envs['agent']))
        task.use(sqil_data_pusher(cfg, agent_buffer, expert=False))
        task.use(StepCollector(cfg, expert, envs['expert']))
        task.use(sqil_data_pusher(cfg, expert_buffer, expert=True))
        task.use(OffPolicyLearner(cfg, policy.learn_mode, [(agent_buffer, 0.5), (expert_buffer, 0.5)]))
        task.use(termination_checker(max_env_step=max_env_step))
        task.run()
        for env in envs.values():
            env.close()
        return task.ctx, policy, agent_buffer


@pytest.mark.slow
def test_sqil_learns_cartpole_from_demonstrations(tmp_path):
    ctx, policy, agent_buffer = run_sqil(str(tmp_path / 'sqil'))
    # the evaluator stops the run at the config's stop value (195); random play scores ~22
    assert ctx.last_eval_value >= 195, (ctx.env_step, ctx.last_eval_value)
    # and it got there by imitation: on the states it visited it mostly acts as the expert would
    obs = agent_buffer.sample(500).batch.obs
    agreement = (policy.eval_mode.forward_batch(obs)['action'] == expert_action(obs)).mean()
    assert agreement >= 0.8, agreement
