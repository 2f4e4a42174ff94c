"""dizoo CartPoleEnv: registration, versions and the truncating time limit."""
import numpy as np
import pytest

from ding.envs import BaseEnvManagerV2
from ding.utils.registry import ENV_REGISTRY
from dizoo.classic_control.cartpole.envs.cartpole_env import CartPoleEnv


def balance(obs):
    """A hand-written controller that keeps the pole up for the whole episode."""
    return (obs[:, 2] + 0.5 * obs[:, 3] > 0).astype(np.int64)


def test_registered_as_cartpole_with_v0_default():
    assert ENV_REGISTRY.lookup('cartpole') is CartPoleEnv
    cfg = CartPoleEnv.default_config()
    assert cfg.env_id == 'CartPole-v0' and cfg.collector_env_num == 8
    env = CartPoleEnv(cfg)
    assert env.observation_space.shape == (4, ) and env.action_space.n == 2
    assert repr(env) == 'CartPoleEnv(CartPole-v0)'


@pytest.mark.parametrize('env_id, cap', [('CartPole-v0', 200), ('CartPole-v1', 500)])
def test_time_limit_ends_episode_as_truncation(env_id, cap):
    m = BaseEnvManagerV2([lambda: CartPoleEnv({'env_id': env_id}) for _ in range(2)])
    m.seed(0)
    m.launch()
    for _ in range(cap - 1):
        assert not m.step_batch(balance(m.ready_obs)).done.any()
    r = m.step_batch(balance(m.ready_obs))
    assert r.truncated.tolist() == [True, True] and r.terminated.tolist() == [False, False]
    assert r.episode_return.tolist() == [float(cap)] * 2 and r.episode_length.tolist() == [cap] * 2


def test_falling_pole_terminates():
    env = CartPoleEnv({'env_id': 'CartPole-v1'})
    env.seed(0)
    env.reset()
    steps = 0
    while True:
        steps += 1
        ts = env.step(1)
        if ts.done:
            break
    assert ts.info['terminated'] is True and ts.info['truncated'] is False
    assert ts.info['eval_episode_return'] == float(steps) and steps < 50


def test_unknown_env_id_is_rejected():
    with pytest.raises(ValueError, match='CartPole-v0'):
        CartPoleEnv({'env_id': 'CartPole-v9'})
