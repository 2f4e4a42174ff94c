"""GymVectorEnvManager (gymnasium.vector underneath) and the optional EnvPool manager."""
import builtins
import multiprocessing

import gymnasium
import numpy as np
import pytest

from ding.envs import BaseEnvManagerV2, DingEnvWrapper, GymVectorEnvManager
from ding.utils.registry import ENV_MANAGER_REGISTRY

from .mock_envs import CountingEnv, DiengineStyleEnv


def cartpole_fns(n):
    return [lambda: DingEnvWrapper(gymnasium.make('CartPole-v1')) for _ in range(n)]


@pytest.mark.parametrize('vector', ['sync', 'async'])
def test_same_data_as_serial_manager(vector):
    serial, vec = BaseEnvManagerV2(cartpole_fns(3)), GymVectorEnvManager(cartpole_fns(3), dict(vector=vector))
    assert ENV_MANAGER_REGISTRY.lookup('gym_vector') is GymVectorEnvManager
    rng, ended = np.random.default_rng(1), 0
    try:
        for m in (serial, vec):
            m.seed(5)
            m.launch()
        for _ in range(60):
            actions = rng.integers(0, 2, 3)
            a, b = serial.step_batch(actions), vec.step_batch(actions)
            assert np.array_equal(a.next_obs, b.next_obs) and np.array_equal(a.reward, b.reward)
            assert np.array_equal(a.terminated, b.terminated) and np.array_equal(a.truncated, b.truncated)
            assert np.array_equal(a.episode_return, b.episode_return, equal_nan=True)
            assert np.array_equal(serial.ready_obs, vec.ready_obs)
            ended += int(a.done.sum())
    finally:
        serial.close()
        vec.close()
    assert ended > 0 and multiprocessing.active_children() == []


def test_ding_level_env_and_terminal_obs():
    m = GymVectorEnvManager([lambda: DiengineStyleEnv()] * 2, dict(vector='sync'))
    m.launch()
    m.step_batch(np.zeros((2, 1), dtype=np.float32))
    out = m.step_batch(np.zeros((2, 1), dtype=np.float32))
    assert out.truncated.tolist() == [True, True] and out.next_obs[:, 0].tolist() == [2.0, 2.0]
    assert out.episode_return.tolist() == [2.0, 2.0] and m.ready_obs[:, 0].tolist() == [0.0, 0.0]
    m.close()


def test_unsupported_settings_fail_clearly():
    with pytest.raises(ValueError, match='auto_reset=True and an infinite episode_num'):
        GymVectorEnvManager([lambda: DingEnvWrapper(CountingEnv())], dict(vector='sync', episode_num=3))
    m = GymVectorEnvManager([lambda: DingEnvWrapper(CountingEnv())], dict(vector='sync'))
    with pytest.raises(ValueError, match='dynamic_seed=False'):
        m.seed(0, dynamic_seed=False)
    m.close()


def test_envpool_manager_names_the_extra_when_missing(monkeypatch):
    real_import = builtins.__import__

    def no_envpool(name, *args, **kwargs):
        if name == 'envpool':
            raise ImportError('No module named envpool')
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, '__import__', no_envpool)
    cls = ENV_MANAGER_REGISTRY.lookup('envpool')  # importing the module needs no envpool
    with pytest.raises(ImportError, match='pip install envpool'):
        cls(None, dict(env_id='CartPole-v1', env_num=2))


class FakeEnvPool:
    """Stands in for the `envpool` module: a pool of gymnasium envs with EnvPool's calls
    (`make_gymnasium(task_id, num_envs, seed, ...)`, `reset(env_ids)`, batched `step`)."""

    class Pool:

        def __init__(self, task_id, num_envs, seed, num_threads=0):
            self.envs = [gymnasium.make(task_id) for _ in range(num_envs)]
            self.seeds = [seed + i for i in range(num_envs)]  # EnvPool seeds env i with seed + i
            self.observation_space, self.action_space = self.envs[0].observation_space, self.envs[0].action_space

        def reset(self, env_id=None):
            ids = range(len(self.envs)) if env_id is None else env_id
            obs = []
            for i in ids:
                obs.append(self.envs[i].reset(seed=self.seeds[i])[0])
                self.seeds[i] = None
            return np.stack(obs), {}

        def step(self, actions):
            out = [env.step(int(a)) for env, a in zip(self.envs, actions)]
            obs, rew, term, trunc, _ = zip(*out)
            return np.stack(obs), np.array(rew), np.array(term), np.array(trunc), {}

        def close(self):
            pass

    @staticmethod
    def make_gymnasium(task_id, num_envs, seed, num_threads=0):
        return FakeEnvPool.Pool(task_id, num_envs, seed, num_threads)


def test_envpool_manager_logic_against_a_stand_in(monkeypatch):
    import ding.envs.env_manager.envpool_env_manager as module
    monkeypatch.setattr(module, 'import_envpool', lambda: FakeEnvPool)
    pool, serial = module.EnvPoolEnvManager(None, dict(env_id='CartPole-v1', env_num=3)), BaseEnvManagerV2(cartpole_fns(3))
    rng, ended = np.random.default_rng(2), 0
    for m in (pool, serial):
        m.seed(9)
        m.launch()
    for _ in range(60):
        actions = rng.integers(0, 2, 3)
        a, b = serial.step_batch(actions), pool.step_batch(actions)
        assert np.array_equal(a.next_obs, b.next_obs) and np.array_equal(a.done, b.done)
        assert np.array_equal(serial.ready_obs, pool.ready_obs)
        ended += int(a.done.sum())
    assert ended > 0
    pool.close()
    serial.close()
