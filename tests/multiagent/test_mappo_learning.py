"""MAPPO learns a cooperative task through the on-policy pipeline (StepCollector -> gae_estimator ->
multistep_trainer), on a small multi-agent PettingZoo env (tests/multiagent/ma_envs.py)."""
import functools

import numpy as np
import pytest
import torch
from easydict import EasyDict

from ding.config import compile_config
from ding.envs import BaseEnvManagerV2
from ding.framework import task
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import StepCollector, gae_estimator, multistep_trainer
from ding.framework.middleware.evaluator import run_episodes
from ding.policy import MAPPOPolicy
from ding.utils import set_pkg_seed
from tests.multiagent.ma_envs import cue_env

MAIN = EasyDict(dict(
    exp_name='ma_cue_mappo',
    env=dict(collector_env_num=4, evaluator_env_num=4, n_evaluator_episode=8, stop_value=10),
    policy=dict(
        model=dict(agent_obs_shape=5, global_obs_shape=4, action_shape=3, agent_num=2, actor_head_hidden_size=32,
                   actor_head_layer_num=1, critic_head_hidden_size=32),
        learn=dict(epoch_per_collect=4, batch_size=64, learning_rate=3e-3, value_norm=True),
        collect=dict(n_sample=256, unroll_len=1, discount_factor=0.9, gae_lambda=0.9),
    ),
))
CREATE = EasyDict(dict(env=dict(type='cue', import_names=[]), env_manager=dict(type='base'),
                       policy=dict(type='mappo')))


@pytest.mark.slow
def test_mappo_learns_the_cue_game():
    torch.set_num_threads(1)
    cfg = compile_config(MAIN, create_cfg=CREATE, seed=0, save_cfg=False)
    make = functools.partial(cue_env, None, length=5)
    set_pkg_seed(0, use_cuda=False)
    policy = MAPPOPolicy(cfg.policy)
    with task.start(ctx=OnlineRLContext()):
        collector = BaseEnvManagerV2([make] * 4, cfg.env.manager)
        evaluator = BaseEnvManagerV2([make] * 4, cfg.env.manager)
        before = np.mean(run_episodes(policy.eval_mode, evaluator, 8, 100))
        task.use(StepCollector(cfg, policy.collect_mode, collector))
        task.use(gae_estimator(cfg, policy.collect_mode))
        task.use(multistep_trainer(policy.learn_mode, log_freq=0))
        task.run(max_step=12)  # 12 x 256 = 3k env steps
        after = np.mean(run_episodes(policy.eval_mode, evaluator, 8, 100))
        collector.close()
        evaluator.close()
    # 2 agents x 5 steps: the best return is 10; matching the cue by chance scores 10 / 3
    assert before < 6 and after >= 9.5, (before, after)
