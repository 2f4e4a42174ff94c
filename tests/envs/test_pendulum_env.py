"""PendulumEnv: registered, [-1, 1] actions scaled to the torque bounds, truncation at 200."""
import numpy as np
import pytest

from ding.utils.registry import ENV_REGISTRY
from dizoo.classic_control.pendulum.envs.pendulum_env import PendulumEnv


def test_registered_as_pendulum():
    assert ENV_REGISTRY.lookup('pendulum') is PendulumEnv


def test_act_scale_maps_unit_actions_to_torque_bounds():
    env = PendulumEnv({'act_scale': True})
    assert env.action_space.low.tolist() == [-1.0] and env.action_space.high.tolist() == [1.0]
    env.seed(0)
    env.reset()
    env.step(np.array([1.0], np.float32))
    assert env.env.unwrapped.last_u == pytest.approx(2.0)
    env.step(np.array([-0.25], np.float32))
    assert env.env.unwrapped.last_u == pytest.approx(-0.5)


def test_without_act_scale_actions_are_torques():
    env = PendulumEnv({'act_scale': False})
    assert env.action_space.high.tolist() == [2.0]
    env.seed(0)
    env.reset()
    env.step(np.array([0.5], np.float32))
    assert env.env.unwrapped.last_u == pytest.approx(0.5)


def test_episode_is_truncated_at_200_steps_with_its_return():
    env = PendulumEnv()
    env.seed(3)
    obs = env.reset()
    assert obs.shape == (3, ) and obs.dtype == np.float32
    total = 0.0
    for t in range(200):
        timestep = env.step(np.zeros(1, np.float32))
        total += float(timestep.reward[0])
        assert timestep.done == (t == 199)
    assert timestep.info['truncated'] and not timestep.info['terminated']
    assert timestep.info['eval_episode_return'] == pytest.approx(total)


def test_same_seed_same_first_observation():
    a, b = PendulumEnv(), PendulumEnv()
    a.seed(7)
    b.seed(7)
    assert np.array_equal(a.reset(), b.reset())
