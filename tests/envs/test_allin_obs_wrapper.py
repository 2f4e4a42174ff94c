"""`AllinObsWrapper` (Decision Transformer's {'obs', 'reward'} observations) over a ding env, as
DI-engine's dt.py uses it (`AllinObsWrapper(LunarLanderEnv(cfg.env))`), and over a gymnasium env."""
import copy
import pickle

import gymnasium
import numpy as np

from ding.envs import AllinObsWrapper, BaseEnv, BaseEnvManagerV2, DingEnvWrapper
from ding.envs.env_wrappers.step_wrappers import AllinObsEnv


def ding_cartpole() -> DingEnvWrapper:
    return DingEnvWrapper(gymnasium.make('CartPole-v1'))


def test_wraps_a_ding_env_at_both_levels():
    env = AllinObsWrapper(ding_cartpole())
    assert isinstance(env, BaseEnv) and not isinstance(env, gymnasium.Wrapper)
    assert set(env.observation_space.spaces) == {'obs', 'reward'} and env.action_space.n == 2
    env.seed(3)
    first = env.reset()
    assert first['obs'].shape == (4, ) and first['reward'].tolist() == [0.0]
    timestep = env.step(np.array([1]))
    assert timestep.obs['reward'].tolist() == [1.0] and timestep.obs['obs'].shape == (4, )
    env.seed(3)
    obs, _ = env.gym_reset()
    np.testing.assert_array_equal(obs['obs'], first['obs'])  # the seed reaches the wrapped env
    obs, reward, terminated, truncated, _ = env.gym_step(1)
    assert obs['reward'].tolist() == [reward] == [1.0] and not (terminated or truncated)
    np.testing.assert_array_equal(obs['obs'], timestep.obs['obs'])
    copied = pickle.loads(pickle.dumps(env))  # subprocess workers and clones copy envs
    assert isinstance(copied, AllinObsEnv) and copied.reset()['reward'].tolist() == [0.0]
    env.close()


def test_episode_end_and_return_come_from_the_wrapped_env():
    env = AllinObsWrapper(ding_cartpole())
    env.seed(0)
    env.reset()
    total, timestep = 0.0, None
    while timestep is None or not timestep.done:
        timestep = env.step(np.array([0]))  # always left: the pole falls within ~10 steps
        total += float(timestep.reward[0])
    assert 5 <= total < 50 and timestep.info['eval_episode_return'] == total
    assert timestep.obs['reward'].tolist() == [1.0]


def test_env_manager_stacks_the_reward_beside_the_obs():
    manager = BaseEnvManagerV2([lambda: AllinObsWrapper(ding_cartpole())] * 2, cfg={})
    manager.seed(0)
    manager.launch()
    assert manager.ready_obs['obs'].shape == (2, 4) and manager.ready_obs['reward'].tolist() == [[0.0], [0.0]]
    step = manager.step_batch(np.array([0, 1]))
    assert step.next_obs['reward'].tolist() == [[1.0], [1.0]] and step.reward.tolist() == [1.0, 1.0]
    manager.close()


def test_a_gymnasium_env_still_gets_a_gymnasium_wrapper():
    env = copy.deepcopy(AllinObsWrapper(gymnasium.make('CartPole-v1')))  # DingEnvWrapper.clone deep-copies
    assert isinstance(env, gymnasium.Wrapper) and isinstance(env, AllinObsWrapper)
    obs, _ = env.reset(seed=0)
    assert obs['reward'].tolist() == [0.0]
    obs, reward, *_ = env.step(0)
    assert obs['reward'].tolist() == [reward] == [1.0]
