"""BaseEnv, BaseEnvTimestep and the gymnasium-level interface derived from a DI-engine env."""
import pytest

from ding.envs import BaseEnv, BaseEnvTimestep

from .mock_envs import DiengineStyleEnv


def test_timestep_is_a_four_field_namedtuple():
    ts = BaseEnvTimestep(obs=1, reward=2, done=True, info={})
    obs, reward, done, info = ts
    assert (obs, reward, done, info) == (1, 2, True, {})
    assert ts._fields == ('obs', 'reward', 'done', 'info')


def test_base_env_is_abstract():
    with pytest.raises(TypeError):
        BaseEnv()


def test_default_config_merges_up_the_hierarchy():
    class MyEnv(DiengineStyleEnv):
        config = dict(size=3, stop_value=10)

    cfg = MyEnv.default_config()
    assert cfg.size == 3 and cfg.stop_value == 10 and cfg.collector_env_num == 8
    assert cfg.cfg_type == 'MyEnvDict'
    assert MyEnv({'size': 5})._cfg.size == 5


def test_gym_step_derived_from_step_splits_truncation_and_flattens_reward():
    env = DiengineStyleEnv()
    obs, info = env.gym_reset()
    assert obs.tolist() == [0.0, 0.0, 0.0] and info == {}
    assert env.gym_step(0)[1:4] == (1.0, False, False)
    obs, reward, terminated, truncated, info = env.gym_step(0)
    assert obs.tolist() == [2.0, 2.0, 2.0]
    assert (reward, terminated, truncated) == (1.0, False, True)
    assert type(reward) is float
    assert info['eval_episode_return'] == 20.0


def test_collector_and_evaluator_env_cfg_lists():
    cfg = {'collector_env_num': 3, 'evaluator_env_num': 2}
    assert len(BaseEnv.create_collector_env_cfg(cfg)) == 3
    assert len(BaseEnv.create_evaluator_env_cfg(cfg)) == 2
