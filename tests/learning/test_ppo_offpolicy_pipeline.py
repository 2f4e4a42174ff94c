"""PPOOffPolicy: gae_estimator pushes into a buffer, OffPolicyLearner trains from it."""
import copy

import gymnasium as gym

from ding.config import compile_config
from ding.data import DequeBuffer
from ding.envs import BaseEnvManagerV2, DingEnvWrapper
from ding.framework import task
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import OffPolicyLearner, StepCollector, gae_estimator
from ding.model import VAC
from ding.policy import PPOOffPolicy
from dizoo.classic_control.cartpole.config.cartpole_ppo_config import create_config, main_config


def test_ppo_offpolicy_pipeline_fills_buffer_and_trains():
    user = copy.deepcopy(main_config)
    user.policy.collect.n_sample = 64
    user.policy.learn.update_per_collect = 3
    user.policy.learn.batch_size = 32
    create = copy.deepcopy(create_config)
    create.policy.type = 'ppo_offpolicy'
    cfg = compile_config(user, create_cfg=create, auto=True, seed=0, save_cfg=False)
    with task.start(ctx=OnlineRLContext()):
        env = BaseEnvManagerV2([lambda: DingEnvWrapper(gym.make('CartPole-v1')) for _ in range(4)], cfg=cfg.env.manager)
        policy = PPOOffPolicy(cfg.policy, model=VAC(**cfg.policy.model))
        buffer_ = DequeBuffer(size=1000)
        task.use(StepCollector(cfg, policy.collect_mode, env))
        task.use(gae_estimator(cfg, policy.collect_mode, buffer_))
        task.use(OffPolicyLearner(cfg, policy.learn_mode, buffer_))
        task.run(max_step=4)
        env.close()
        assert buffer_.count() == 4 * 64
        assert task.ctx.train_iter == 4 * 3
        assert task.ctx.trajectories is None and {'adv', 'return'} <= set(buffer_.sample(8).batch.keys())
