import sys
import types

import numpy as np
import pytest
from gymnasium import spaces

from ding.policy import DQNPolicy, create_policy, get_random_policy, single_env_forward_wrapper
from ding.utils import set_pkg_seed


class FakeEnv:

    def __init__(self, action_space):
        self.action_space = action_space


class FakeCollectMode:
    """Records delegated calls; stores a 'value' per transition like an actor-critic would."""
    transition_keys = ('value', )

    def __init__(self):
        self.reset_calls = []

    def forward_batch(self, obs, **kwargs):
        return {'action': np.full(len(obs), -1), 'value': np.arange(len(obs), dtype=np.float32)}

    def process_transition(self, obs, output, timestep):
        return {'obs': obs, 'action': output['action']}

    def reset(self, env_ids=None):
        self.reset_calls.append(env_ids)


def dqn_policy():
    return DQNPolicy(dict(model=dict(obs_shape=4, action_shape=3, encoder_hidden_size_list=[8])))


def test_random_discrete_actions_from_a_seeded_space():
    space = spaces.Discrete(3, start=1)
    space.seed(7)
    first = get_random_policy(None, dqn_policy(), FakeEnv(space)).forward_batch(np.zeros((500, 4)))['action']
    space2 = spaces.Discrete(3, start=1)
    space2.seed(7)
    second = get_random_policy(None, dqn_policy().collect_mode, FakeEnv(space2)).forward_batch(np.zeros((500, 4)))
    assert first.dtype == np.int64 and first.shape == (500, )
    assert set(first.tolist()) == {1, 2, 3}
    assert np.array_equal(first, second['action'])


def test_unseeded_space_is_repeatable_under_set_pkg_seed():
    def draw():
        set_pkg_seed(3)
        return get_random_policy(None, dqn_policy(), FakeEnv(spaces.Box(-1, 1, (2, )))).forward_batch(np.zeros((4, 4)))

    a, b = draw()['action'], draw()['action']
    assert a.shape == (4, 2) and a.dtype == np.float32 and np.abs(a).max() <= 1
    assert np.array_equal(a, b)


def test_random_policy_keeps_collect_interface_and_extras():
    mode = FakeCollectMode()
    policy = get_random_policy(None, mode, FakeEnv(spaces.Discrete(2)))
    out = policy.forward({5: np.zeros(3), 9: np.ones(3)})
    assert set(out) == {5, 9}
    assert out[9]['value'] == 1.0 and out[5]['action'] in (0, 1)
    policy.reset([1])
    assert mode.reset_calls == [[1]]
    assert policy.transition_keys == ('value', )
    assert policy.process_transition('o', {'action': 1}, None) == {'obs': 'o', 'action': 1}


def test_random_policy_multi_discrete_falls_back_to_per_row_samples():
    space = spaces.MultiDiscrete([2, 5])
    space.seed(0)
    action = get_random_policy(None, dqn_policy(), FakeEnv(space)).forward_batch(np.zeros((6, 4)))['action']
    assert action.shape == (6, 2) and (action[:, 0] < 2).all() and (action[:, 1] < 5).all()


def test_create_policy_from_registry_with_import_names(monkeypatch):
    module = types.ModuleType('h4_fake_policy_plugin')
    monkeypatch.setitem(sys.modules, 'h4_fake_policy_plugin', module)
    cfg = dict(type='dqn', import_names=['h4_fake_policy_plugin'],
               model=dict(obs_shape=4, action_shape=2, encoder_hidden_size_list=[8]))
    policy = create_policy(cfg, enable_field=['eval'])
    assert isinstance(policy, DQNPolicy)
    with pytest.raises(KeyError, match="unknown policy type 'dqm'.*did you mean 'dqn'"):
        create_policy(dict(type='dqm'))
    with pytest.raises(KeyError, match='needs cfg.type'):
        create_policy(dict())


def test_single_env_forward_wrapper_returns_one_greedy_action():
    policy = dqn_policy()
    act = single_env_forward_wrapper(policy.eval_mode.forward)
    obs = np.array([0.1, -0.2, 0.3, 0.0], dtype=np.float32)
    expected = policy.eval_mode.forward_batch(obs[None])['action'][0]
    action = act(obs)
    assert isinstance(action, np.ndarray) and action.shape == () and action == expected
    assert spaces.Discrete(3).contains(action)
