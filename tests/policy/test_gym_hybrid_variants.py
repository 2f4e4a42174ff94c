"""Sliding-v0 (Moving-v0 with inertia) and HardMove-v0 (a subset of n thrusters with signed powers),
our stand-ins for gym-hybrid's other two envs, alone and through GymHybridEnv / an env manager."""
import gymnasium
import numpy as np
import pytest
from easydict import EasyDict

import dizoo.gym_hybrid  # noqa: F401  (registers the three ids)
from ding.data.batch import Batch
from ding.envs import BaseEnvManagerV2
from dizoo.gym_hybrid.envs.gym_hybrid_env import GymHybridEnv


def placed(env_id, **kwargs):
    env = gymnasium.make(env_id, **kwargs).unwrapped
    env.reset(seed=0)
    env._pos, env._target, env._heading = np.array([0.0, 0.0]), np.array([0.6, 0.6]), 0.0
    return env


def test_sliding_keeps_its_velocity_through_a_turn():
    env = placed('Sliding-v0')
    env.step((0, np.array([1.0, 0.0])))  # accelerate east: velocity (0.5, 0)
    obs, _, _, _, _ = env.step((1, np.array([0.0, 1.0])))  # turn to face north
    assert np.allclose(obs[:2], [0.1, 0.0]) and np.allclose(obs[3:5], [0.0, 1.0], atol=1e-6)  # still went east
    obs, _, _, _, _ = env.step((0, np.array([1.0, 0.0])))  # push north: velocity (0.5, 0.5)
    assert np.allclose(obs[:2], [0.15, 0.05]) and np.isclose(obs[2], np.sqrt(0.5))
    obs, _, _, _, _ = env.step((0, np.array([1.0, 0.0])))  # (0.5, 1.0) is over max_speed 1: scaled to length 1
    assert np.isclose(obs[2], 1.0)
    obs, _, term, _, _ = env.step((2, np.zeros(2)))  # break: a full stop
    assert obs[2] == 0.0 and not term
    moving = placed('Moving-v0')
    moving.step((0, np.array([1.0, 0.0])))
    obs, _, _, _, _ = moving.step((1, np.array([0.0, 1.0])))
    assert np.allclose(obs[:2], [0.05, 0.05])  # Moving-v0 goes where it faces at once


def test_hard_move_subsets_powers_and_the_target():
    env = placed('HardMove-v0', num_actuators=4)
    assert env.action_space[0].n == 16 and env.action_space[1].shape == (4, )
    obs, _, _, _, _ = env.step((0b0001, np.array([1.0, 1.0, 1.0, 1.0])))  # thruster 0 (east) only
    assert np.allclose(obs[:2], [0.1, 0.0]) and np.isclose(obs[2], 1.0)
    obs, _, _, _, _ = env.step((0b0011, np.array([0.5, 0.5, -1.0, 0.0])))  # east + north at half power
    assert np.allclose(obs[:2], [0.15, 0.05]) and np.allclose(obs[3:5], [np.sqrt(.5), np.sqrt(.5)])
    obs, _, _, _, _ = env.step((0b0101, np.array([1.0, 0.0, 1.0, 0.0])))  # east and west cancel: stand still
    assert np.allclose(obs[:2], [0.15, 0.05]) and obs[2] == 0.0
    env._pos = np.array([0.55, 0.6])
    _, r, term, _, _ = env.step((0, np.zeros(4)))  # all off inside the target: stopped there
    assert term and np.isclose(r, 1.0 - 0.001)  # +1, no distance gained, the step penalty
    with pytest.raises(ValueError, match='4 thruster powers'):
        env.step((1, np.zeros(2)))
    with pytest.raises(ValueError, match=r'\[0, 16\)'):
        env.step((16, np.zeros(4)))
    with pytest.raises(ValueError, match='num_actuators'):
        gymnasium.make('HardMove-v0', num_actuators=0)


def test_through_gym_hybrid_env_and_a_manager():
    with pytest.raises(ValueError, match='num_actuators is a HardMove-v0 setting'):
        GymHybridEnv(EasyDict(env_id='Moving-v0', num_actuators=3))
    env = GymHybridEnv(EasyDict(env_id='HardMove-v0', act_scale=True, num_actuators=3))
    env.seed(0)
    assert env.reset().shape == (10, ) and env.action_space[0].n == 8
    action = env.random_action()
    assert action['action_args'].shape == (3, ) and env.step(action).obs.shape == (10, )
    manager = BaseEnvManagerV2([lambda: GymHybridEnv(EasyDict(env_id='Sliding-v0', act_scale=True))] * 2,
                               cfg=BaseEnvManagerV2.default_config())
    manager.seed(0)
    manager.launch()
    try:
        out = manager.step_batch(Batch(action_type=np.array([0, 2]),
                                       action_args=np.array([[-0.6, 0.0], [0.0, 0.0]], np.float32)))
        assert np.allclose(out.next_obs[:, 2], [0.1, 0.0])  # act_scale: arg -0.6 -> acceleration 0.2
    finally:
        manager.close()
