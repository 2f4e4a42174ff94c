"""D4PG solves Pendulum-v1 (eval mean >= -250, the bar for DDPG-family learners) through the
off-policy pipeline with n-step returns and prioritized replay, well inside 20k env steps."""
import pytest
import torch
from easydict import EasyDict

from ding.config import compile_config
from ding.data import DequeBuffer
from ding.data.buffer.middleware import PriorityExperienceReplay
from ding.envs import BaseEnvManagerV2
from ding.framework import task
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import (OffPolicyLearner, StepCollector, data_pusher, interaction_evaluator,
                                       nstep_reward_enhancer, termination_checker)
from ding.model import QACDIST
from ding.policy import D4PGPolicy
from ding.utils import set_pkg_seed
from dizoo.classic_control.pendulum.config.pendulum_d4pg_config import create_config, main_config
from dizoo.classic_control.pendulum.envs.pendulum_env import PendulumEnv


def fast_config(seed: int, exp_name: str) -> EasyDict:
    """DI-engine's config with one update per env step (its 8 envs x 48 samples / 2 updates
    spends far more env steps per update)."""
    cfg = EasyDict(dict(main_config))
    cfg.exp_name = exp_name
    cfg.env = EasyDict(dict(cfg.env, collector_env_num=1, evaluator_env_num=5, n_evaluator_episode=5))
    cfg.policy = EasyDict(dict(cfg.policy, random_collect_size=1000, discount_factor=0.99))
    cfg.policy.learn = EasyDict(dict(cfg.policy.learn, update_per_collect=8, batch_size=128, ignore_done=False))
    cfg.policy.collect = EasyDict(dict(cfg.policy.collect, n_sample=8))
    cfg.policy.eval = EasyDict(evaluator=dict(eval_freq=1000))
    return compile_config(cfg, create_cfg=create_config, seed=seed, auto=True, save_cfg=False)


@pytest.mark.slow
def test_d4pg_solves_pendulum(tmp_path):
    torch.set_num_threads(1)
    cfg = fast_config(0, str(tmp_path / 'd4pg'))
    evals = []
    with task.start(async_mode=False, ctx=OnlineRLContext()):
        collector_env = BaseEnvManagerV2([lambda: PendulumEnv(cfg.env)], cfg=cfg.env.manager)
        evaluator_env = BaseEnvManagerV2([lambda: PendulumEnv(cfg.env)] * 5, cfg=cfg.env.manager)
        set_pkg_seed(cfg.seed, use_cuda=False)
        buffer_ = DequeBuffer(size=cfg.policy.other.replay_buffer.replay_buffer_size)
        buffer_.use(PriorityExperienceReplay(buffer_, IS_weight=True))
        policy = D4PGPolicy(cfg.policy, model=QACDIST(**cfg.policy.model))
        task.use(interaction_evaluator(cfg, policy.eval_mode, evaluator_env))
        task.use(lambda ctx: evals.append((ctx.env_step, ctx.eval_value)) if ctx.last_eval_iter == ctx.train_iter
                 else None)
        task.use(StepCollector(cfg, policy.collect_mode, collector_env,
                               random_collect_size=cfg.policy.random_collect_size))
        task.use(nstep_reward_enhancer(cfg))
        task.use(data_pusher(cfg, buffer_))
        task.use(OffPolicyLearner(cfg, policy.learn_mode, buffer_))
        task.use(termination_checker(max_env_step=20000))
        task.run()
    assert evals and evals[-1][1] >= -250, f'D4PG never reached -250 within 20k env steps: {evals}'
    assert evals[-1][0] <= 20000 + 8
