"""DingEnvWrapper over gymnasium and legacy gym envs."""
import gymnasium
import numpy as np
import pytest
from gymnasium.wrappers import TimeLimit

from ding.envs import DingEnvWrapper

from .mock_envs import CountingEnv, LegacyCountingEnv, first_starts


def test_reset_and_step_give_float32_obs_reward_array_and_episode_return():
    env = DingEnvWrapper(CountingEnv(terminate_at=3))
    env.seed(7)
    obs = env.reset()
    start = first_starts(7, 1)[0]
    assert obs.dtype == np.float32 and obs.tolist() == [0.0, start]
    rewards = []
    for action, t in [(0, 1), (2, 2)]:
        ts = env.step(action)
        assert ts.obs.dtype == np.float32 and ts.obs.tolist() == [t, start]
        assert ts.reward.dtype == np.float32 and ts.reward.shape == (1, )
        assert ts.done is False and 'eval_episode_return' not in ts.info
        rewards.append(float(ts.reward[0]))
    ts = env.step(np.array([1]))  # DI-engine policies hand out one-element arrays
    assert rewards == [1.0, 3.0] and ts.reward.tolist() == [2.0]
    assert ts.done is True
    assert ts.info['terminated'] is True and ts.info['truncated'] is False
    assert ts.info['eval_episode_return'] == 6.0


def test_truncation_is_kept_apart_from_termination():
    env = DingEnvWrapper(TimeLimit(CountingEnv(terminate_at=100), max_episode_steps=2))
    env.reset()
    assert env.step(0).done is False
    ts = env.step(0)
    assert ts.done is True
    assert ts.info['truncated'] is True and ts.info['terminated'] is False
    assert ts.info['eval_episode_return'] == 2.0


def test_cfg_env_id_builds_the_gymnasium_env():
    env = DingEnvWrapper(cfg={'env_id': 'CartPole-v1'})
    assert env.observation_space.shape == (4, )
    assert env.action_space == gymnasium.spaces.Discrete(2)
    assert env.reward_space.shape == (1, )
    assert env.reset().shape == (4, )
    env.close()


def test_no_env_and_no_env_id_is_an_error():
    with pytest.raises(ValueError, match='env_id'):
        DingEnvWrapper()


def test_gym_step_is_the_wrapped_envs_own_step():
    inner = CountingEnv()
    env = DingEnvWrapper(inner)
    assert env.gym_step == inner.step


def test_seed_applies_to_first_reset_then_rng_continues():
    env = DingEnvWrapper(CountingEnv(terminate_at=1))
    env.seed(3)
    starts = [env.reset()[1] for _ in range(3)]
    assert starts == first_starts(3, 3)


def test_static_seed_repeats_every_reset():
    env = DingEnvWrapper(CountingEnv(terminate_at=1))
    env.seed(3, dynamic_seed=False)
    starts = [env.reset()[1] for _ in range(3)]
    assert starts == first_starts(3, 1) * 3


def test_seed_also_seeds_the_action_space():
    a, b = DingEnvWrapper(CountingEnv()), DingEnvWrapper(CountingEnv())
    a.seed(5)
    b.seed(5)
    assert [a.random_action() for _ in range(10)] == [b.random_action() for _ in range(10)]


def test_legacy_four_tuple_env_is_adapted():
    legacy = LegacyCountingEnv(limit=2)
    env = DingEnvWrapper(legacy)
    env.seed(11)
    obs = env.reset()
    assert legacy.seeded == 11  # no reset(seed=...) in that API: env.seed was called
    assert obs.dtype == np.float32 and obs.tolist() == [0.0]
    assert env.step(0).done is False
    ts = env.step(1)
    assert ts.done is True and ts.info['truncated'] is True and ts.info['terminated'] is False
    assert ts.info['eval_episode_return'] == 1.0
    assert ts.obs.dtype == np.float32 and ts.obs.tolist() == [2.0]


def test_legacy_env_with_obs_info_reset_and_five_tuple_step():

    class Gym026Env(LegacyCountingEnv):

        def reset(self, seed=None):
            self.seeded = seed
            self.t = 0
            return [0.0], {'k': 1}

        def step(self, action):
            self.t += 1
            return [float(self.t)], 1.0, True, False, {}

    legacy = Gym026Env()
    env = DingEnvWrapper(legacy)
    env.seed(4)
    assert env.gym_reset() == ([0.0], {'k': 1}) and legacy.seeded == 4
    ts = env.step(0)
    assert ts.done is True and ts.info['terminated'] is True and ts.info['eval_episode_return'] == 1.0
