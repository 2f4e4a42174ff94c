"""BaseEnvManagerV2: lifecycle, validation errors, episode_num/auto_reset and registration."""
import numpy as np
import pytest
from gymnasium import spaces

from ding.envs import BaseEnvManager, BaseEnvManagerV2, DingEnvWrapper
from ding.utils.registry import ENV_MANAGER_REGISTRY

from .mock_envs import CountingEnv, DiengineStyleEnv


def manager(n=2, cfg=None, **kw):
    return BaseEnvManagerV2([lambda: DingEnvWrapper(CountingEnv(**kw)) for _ in range(n)], cfg)


def test_stepping_before_launch_and_after_close_is_a_clear_error():
    m = manager()
    assert m.closed and m.env_num == 2
    with pytest.raises(RuntimeError, match='not launched'):
        m.step_batch(np.array([0, 0]))
    m.launch()
    assert not m.closed
    m.close()
    assert m.closed
    with pytest.raises(RuntimeError, match='closed'):
        m.step_batch(np.array([0, 0]))
    with pytest.raises(RuntimeError, match='closed'):
        m.ready_obs


def test_relaunch_after_close_recreates_and_reseeds_envs():
    m = manager(terminate_at=1)
    m.seed(1)
    m.launch()
    first = m.ready_obs.copy()
    m.step_batch(np.array([0, 0]))
    m.close()
    m.launch()
    assert np.array_equal(m.ready_obs, first)
    with pytest.raises(RuntimeError, match='already launched'):
        m.launch()


def test_wrong_shaped_obs_names_env_expected_and_got():
    fns = [lambda: DingEnvWrapper(CountingEnv()), lambda: DingEnvWrapper(CountingEnv(obs_shape=(3, )))]
    m = BaseEnvManagerV2(fns)
    with pytest.raises(ValueError, match=r'env 1 .*shape \(3,\), expected shape \(2,\)'):
        m.launch()
    same_wrong = BaseEnvManagerV2([lambda: DingEnvWrapper(CountingEnv(obs_shape=(5, ))) for _ in range(2)])
    with pytest.raises(ValueError, match=r'env 0 .*shape \(5,\), expected shape \(2,\)'):
        same_wrong.launch()


def test_actions_outside_the_space_or_misshaped_raise():
    m = manager(3)
    m.launch()
    with pytest.raises(ValueError, match=r'env 2: action 3 is outside the action space Discrete\(3\)'):
        m.step_batch(np.array([0, 1, 3]))
    with pytest.raises(ValueError, match=r'env 0: action -1'):
        m.step_batch(np.array([-1, 1, 0]))
    with pytest.raises(ValueError, match=r'shape \(2,\), expected \(3,\)'):
        m.step_batch(np.array([0, 1]))
    with pytest.raises(ValueError, match='integers'):
        m.step_batch(np.array([0.0, 1.0, 1.0]))
    assert m.step_batch(np.array([[0], [1], [2]])).reward.tolist() == [1.0, 2.0, 3.0]


def test_box_actions_raise_or_clip():
    m = BaseEnvManagerV2([DiengineStyleEnv, DiengineStyleEnv])
    m.launch()
    with pytest.raises(ValueError, match=r'env 1: action \[1.5\] is outside'):
        m.step_batch(np.array([[0.0], [1.5]]))
    with pytest.raises(ValueError, match='env 0'):
        m.step_batch(np.array([[np.nan], [0.0]]))
    clipping = BaseEnvManagerV2([DiengineStyleEnv, DiengineStyleEnv], {'clip_action': True})
    clipping.launch()
    assert clipping.step_batch(np.array([[0.0], [1.5]])).reward.tolist() == [1.0, 1.0]


def test_episode_num_stops_finished_envs():
    m = BaseEnvManagerV2([lambda: DingEnvWrapper(CountingEnv(terminate_at=1)),
                          lambda: DingEnvWrapper(CountingEnv(terminate_at=2))], {'episode_num': 1})
    m.launch()
    r = m.step_batch(np.array([0, 0]))
    assert r.done.tolist() == [True, False] and m.ready_obs_id == [1] and not m.done
    held = m.ready_obs[0].copy()
    r = m.step_batch(np.array([2, 0]))
    assert r.reward.tolist() == [0.0, 1.0] and r.done.tolist() == [False, True]
    assert np.array_equal(r.next_obs[0], held) and r.episode_length.tolist() == [0, 2]
    assert m.done and m.ready_obs_id == []
    with pytest.raises(RuntimeError, match='finished'):
        m.step_batch(np.array([0, 0]))
    m.reset()
    assert m.ready_obs_id == [0, 1] and not m.done


def test_auto_reset_off_keeps_env_until_reset_of_that_env():
    m = manager(2, {'auto_reset': False}, terminate_at=1)
    m.launch()
    m.step_batch(np.array([0, 0]))
    assert m.ready_obs_id == [] and m.ready_obs[:, 0].tolist() == [1.0, 1.0]
    m.reset({1: {}})
    assert m.ready_obs_id == [1] and m.ready_obs[:, 0].tolist() == [1.0, 0.0]


def test_default_config_and_registry():
    cfg = BaseEnvManagerV2.default_config()
    assert cfg.type == 'base_v2' and cfg.auto_reset is True and cfg.episode_num == float('inf')
    assert BaseEnvManager.default_config().type == 'base'
    assert ENV_MANAGER_REGISTRY.lookup('base_v2') is BaseEnvManagerV2
    assert ENV_MANAGER_REGISTRY.lookup('base') is BaseEnvManager
    assert manager().action_space == spaces.Discrete(3)


def test_context_manager_closes():
    with manager() as m:
        m.launch()
    assert m.closed
