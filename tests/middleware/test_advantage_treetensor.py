"""gae_estimator and montecarlo_return_estimator over DI-engine's treetensor transitions, with a
policy that has only what DI-engine's middleware uses (`get_attribute('model')`, `_cfg`)."""
from types import SimpleNamespace

import pytest
import torch
from easydict import EasyDict

from ding.data.buffer import DequeBuffer
from ding.framework.middleware.advantage import gae_estimator, montecarlo_return_estimator
from ding.framework.middleware.advantage_treetensor import is_treetensor_data

ttorch = pytest.importorskip('treetensor.torch')  # DI-treetensor: an optional dependency

CFG = EasyDict(policy=dict(collect=dict(discount_factor=0.5, gae_lambda=0.5)))


class FirstFeatureCritic:
    """A DI-engine-style model: `forward(obs, mode='compute_critic')` gives V(s) = s[0]."""

    def __init__(self):
        self.modes = []

    def forward(self, obs, mode):
        self.modes.append(mode)
        return {'value': obs[:, 0]}


class ModelOnlyPolicy:
    """DI-engine's gae_estimator reaches the policy only through get_attribute('model')."""

    def __init__(self, model):
        self._model = model

    def get_attribute(self, name):
        assert name == 'model'
        return self._model


def transitions(obs, next_obs, done):
    return [ttorch.Tensor({'obs': torch.tensor([o, 0.]), 'next_obs': torch.tensor([n, 0.]), 'action': torch.tensor([0]),
                           'reward': [1.0], 'done': d}) for o, n, d in zip(obs, next_obs, done)]


def test_gae_over_treetensor_transitions_bootstraps_from_the_critic():
    # gamma = lambda = 0.5, V(s) = s[0]. deltas r + g * V(next) * (1 - done) - V:
    #   row0: 1 + .5*2 - 1 = 1   row1 (done): 1 - 2 = -1   row2 (segment end, V(10) = 10): 1 + 5 - 3 = 3
    # A0 = 1 + .25 * A1 = .75 (the trace stops at the done row and at the segment end)
    critic = FirstFeatureCritic()
    ctx = SimpleNamespace(trajectories=transitions([1., 2., 3.], [2., 0., 10.], [False, True, False]),
                          trajectory_end_idx=torch.tensor([2]), train_data=None)
    gae_estimator(CFG, ModelOnlyPolicy(critic))(ctx)
    data = ctx.train_data
    assert isinstance(data, ttorch.Tensor) and ctx.trajectories is None
    torch.testing.assert_close(data.adv, torch.tensor([0.75, -1., 3.]))
    torch.testing.assert_close(getattr(data, 'return'), torch.tensor([1.75, 1., 6.]))
    torch.testing.assert_close(data.value, torch.tensor([1., 2., 3.]))
    assert data.traj_flag.tolist() == [False, True, True]
    assert set(critic.modes) == {'compute_critic'}


def test_gae_pushes_one_treetensor_per_transition_into_a_buffer():
    buffer_ = DequeBuffer(size=8)
    ctx = SimpleNamespace(trajectories=transitions([1., 2., 3.], [2., 0., 10.], [False, True, False]),
                          trajectory_end_idx=[2], train_data=None)
    gae_estimator(CFG, ModelOnlyPolicy(FirstFeatureCritic()), buffer_)(ctx)
    rows = [item.data for item in buffer_.storage]
    assert len(rows) == 3 and all(isinstance(r, ttorch.Tensor) for r in rows)
    assert tuple(rows[0].obs.shape) == (2, ) and [float(r.adv) for r in rows] == [0.75, -1., 3.]
    assert ctx.train_data is None and ctx.trajectories is None


def test_montecarlo_returns_over_treetensor_episodes_with_a_di_engine_style_policy():
    # gamma 0.5: episode 1 ends done -> [1 + .5, 1]; episode 2 is cut short -> [1] (no bootstrap)
    policy = SimpleNamespace(_cfg=EasyDict(collect=dict(discount_factor=0.5, unroll_len=1)))
    episodes = [transitions([0., 0.], [0., 0.], [False, True]), transitions([0.], [0.], [False])]
    ctx = SimpleNamespace(episodes=episodes, train_data=None)
    montecarlo_return_estimator(policy)(ctx)
    assert isinstance(ctx.train_data, ttorch.Tensor) and ctx.episodes is None
    torch.testing.assert_close(getattr(ctx.train_data, 'return'), torch.tensor([1.5, 1., 1.]))


def test_montecarlo_needs_a_policy_config():
    with pytest.raises(TypeError, match='cfg or _cfg'):
        montecarlo_return_estimator(object())


def test_only_treetensor_data_takes_the_treetensor_path():
    assert is_treetensor_data(transitions([1.], [1.], [False]))
    assert is_treetensor_data([transitions([1.], [1.], [False])])  # episodes
    assert not is_treetensor_data([{'obs': 1.0}]) and not is_treetensor_data([])
