"""dizoo frozen_lake: the env (one-hot cells, DI-engine's config keys) and DQN solving the 4x4
map with DI-engine's `dqn_frozen_lake` pipeline and config (nstep 5, as that example sets)."""
import copy

import numpy as np
import pytest
import torch

from dizoo.frozen_lake.config.frozen_lake_dqn_config import create_config, main_config
from dizoo.frozen_lake.envs import FrozenLakeEnv


def test_env_one_hot_cells_and_goal_return():
    env = FrozenLakeEnv(main_config.env)
    env.seed(0)
    obs = env.reset()
    assert obs.shape == (16, ) and obs.dtype == np.float32 and obs[0] == 1.0 and obs.sum() == 1.0
    down, right = 1, 2
    for action in (down, down, right, right, down):
        timestep = env.step(np.array([action]))
        assert not timestep.done and timestep.reward.tolist() == [0.0]
    timestep = env.step(np.array([right]))  # cell 15: the goal
    assert timestep.done and timestep.obs[15] == 1.0 and timestep.info['eval_episode_return'] == 1.0
    with pytest.raises(ValueError, match="env_id must be 'FrozenLake-v1'"):
        FrozenLakeEnv({'env_id': 'FrozenLake8x8'})


def test_dqn_pipeline_reaches_the_goal(tmp_path, monkeypatch):
    from ding.config import compile_config
    from ding.data import DequeBuffer
    from ding.envs import BaseEnvManagerV2
    from ding.framework import task
    from ding.framework.context import OnlineRLContext
    from ding.framework.middleware import (OffPolicyLearner, StepCollector, data_pusher, eps_greedy_handler,
                                           interaction_evaluator, nstep_reward_enhancer)
    from ding.model import DQN
    from ding.policy import DQNPolicy
    from ding.utils import set_pkg_seed
    monkeypatch.chdir(tmp_path)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        cfg = copy.deepcopy(main_config)
        cfg.policy.nstep = 5
        cfg = compile_config(cfg, create_cfg=copy.deepcopy(create_config), auto=True, save_cfg=False)
        with task.start(async_mode=False, ctx=OnlineRLContext()):
            collector_env = BaseEnvManagerV2([lambda: FrozenLakeEnv(cfg=cfg.env)] * cfg.env.collector_env_num,
                                             cfg=cfg.env.manager)
            evaluator_env = BaseEnvManagerV2([lambda: FrozenLakeEnv(cfg=cfg.env)] * cfg.env.evaluator_env_num,
                                             cfg=cfg.env.manager)
            set_pkg_seed(cfg.seed, use_cuda=cfg.policy.cuda)
            model = DQN(**cfg.policy.model)
            buffer_ = DequeBuffer(size=cfg.policy.other.replay_buffer.replay_buffer_size)
            policy = DQNPolicy(cfg.policy, model=model)
            task.use(interaction_evaluator(cfg, policy.eval_mode, evaluator_env))
            task.use(eps_greedy_handler(cfg))
            task.use(StepCollector(cfg, policy.collect_mode, collector_env))
            task.use(nstep_reward_enhancer(cfg))
            task.use(data_pusher(cfg, buffer_))
            task.use(OffPolicyLearner(cfg, policy.learn_mode, buffer_))
            task.run(max_step=1000)
            ctx = task.ctx
    finally:
        torch.set_num_threads(threads)
    assert task.finish and ctx.eval_value == 1.0 and ctx.env_step <= 10000
