"""Hybrid actions (a Batch of `action_type` / `action_args`, what PDQNPolicy acts with) through the
env managers: each env gets its own row, in process and in subprocess workers alike."""
import numpy as np
import pytest
from easydict import EasyDict

from ding.data.batch import Batch
from ding.envs import BaseEnvManagerV2, SubprocessEnvManagerV2
from dizoo.gym_hybrid.envs.gym_hybrid_env import GymHybridEnv


def make_env():
    return GymHybridEnv(EasyDict(env_id='Moving-v0', act_scale=True))


def first_step(manager_cls):
    manager = manager_cls(env_fn=[make_env for _ in range(3)], cfg=manager_cls.default_config())
    manager.seed(0)
    manager.launch()
    try:
        start = manager.ready_obs.copy()
        # accelerate by 0.2 (arg -0.6 -> 0.2 after act_scale; speed 0.1), turn by +90 degrees, break
        actions = Batch(action_type=np.array([0, 1, 2]),
                        action_args=np.array([[-0.6, 0.], [0., 1.], [0., 0.]], dtype=np.float32))
        return start, manager.step_batch(actions)
    finally:
        manager.close()


def check(start, out):
    assert np.allclose(out.next_obs[:, 2], [0.1, 0.0, 0.0])  # speed: only env 0 accelerated
    assert np.allclose(out.next_obs[1, 3:5], [-start[1, 4], start[1, 3]], atol=1e-6)  # env 1 turned left 90 deg
    assert np.allclose(out.next_obs[2, :5], start[2, :5])  # env 2 stood still


def test_hybrid_actions_in_process():
    check(*first_step(BaseEnvManagerV2))
    env = make_env()
    env.reset()
    with pytest.raises(ValueError, match='action_type'):
        env.step({'action_type': 5, 'action_args': np.zeros(2)})


@pytest.mark.slow
def test_hybrid_actions_in_subprocess_workers():
    check(*first_step(SubprocessEnvManagerV2))
