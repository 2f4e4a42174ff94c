"""gae_estimator and montecarlo_return_estimator on hand-computed examples."""
from types import SimpleNamespace

import numpy as np
import pytest
from easydict import EasyDict

from ding.data.batch import Batch
from ding.framework.middleware.advantage import gae_estimator, montecarlo_return_estimator

CFG = EasyDict(policy=dict(collect=dict(discount_factor=0.5, gae_lambda=0.5)))


class CriticStub:
    """A collect mode whose critic says V(s) = s[0]; records what it was asked."""

    def __init__(self):
        self.calls = []

    def forward_batch(self, obs):
        self.calls.append(np.asarray(obs).copy())
        return {'action': np.zeros(len(obs), np.int64), 'value': np.asarray(obs)[:, 0]}


def two_env_trajectories():
    """Env 0: an episode terminates at row 1, a new one is cut by the segment end at row 2.
    Env 1: an episode is truncated at row 3, a new one is cut by the segment end at row 5."""
    next_obs = np.array([[0.], [0.], [10.], [20.], [0.], [30.]], np.float32)
    return Batch(obs=np.zeros((6, 1), np.float32), action=np.zeros(6, np.int64), reward=np.ones(6, np.float32),
                 next_obs=next_obs, done=np.array([0, 1, 0, 0, 0, 0], bool),
                 truncated=np.array([0, 0, 0, 1, 0, 0], bool), env_id=np.array([0, 0, 0, 1, 1, 1]),
                 value=np.array([1, 2, 3, 4, 5, 6], np.float32), logp=np.zeros(6, np.float32))


def ctx_with(trajectories, end_idx=(2, 5)):
    return SimpleNamespace(trajectories=trajectories, trajectory_end_idx=list(end_idx), train_data=None)


def test_gae_terminated_truncated_and_segment_ends_in_one_batch():
    # gamma = lambda = 0.5. deltas r + g * V(next) * (1 - term) - V:
    #   row0: 1 + .5*2 - 1 = 1    row1 (terminated): 1 - 2 = -1   row2 (segment end, V(10)): 1 + 5 - 3 = 3
    #   row3 (truncated, V(20)): 1 + 10 - 4 = 7   row4: 1 + 3 - 5 = -1   row5 (segment end, V(30)): 1 + 15 - 6 = 10
    # A = delta + .25 * A_next inside an episode: A0 = 1 - .25 = .75, A4 = -1 + 2.5 = 1.5
    critic = CriticStub()
    ctx = ctx_with(two_env_trajectories())
    gae_estimator(CFG, critic)(ctx)
    np.testing.assert_allclose(ctx.train_data.adv, [0.75, -1., 3., 7., 1.5, 10.])
    np.testing.assert_allclose(ctx.train_data['return'], [1.75, 1., 6., 11., 6.5, 16.])
    assert ctx.trajectories is None
    # one batched critic call, on the terminal obs of rows 2, 3, 5 (not on the terminated row 1)
    assert len(critic.calls) == 1
    np.testing.assert_array_equal(critic.calls[0][:, 0], [10., 20., 30.])


def test_gae_unequal_segments_from_trajectory_end_idx():
    data = two_env_trajectories()[np.array([0, 1, 2, 3])]  # env 0: rows 0-2, env 1: row 3
    data.pop('env_id')
    ctx = ctx_with(data, end_idx=(2, 3))
    gae_estimator(CFG, CriticStub())(ctx)
    np.testing.assert_allclose(ctx.train_data.adv, [0.75, -1., 3., 7.])


def test_gae_pushes_into_buffer_when_given():
    pushed = []
    buffer_ = SimpleNamespace(push=pushed.append)
    ctx = ctx_with(two_env_trajectories())
    middleware = gae_estimator(CFG, CriticStub(), buffer_)
    middleware(ctx)
    assert ctx.train_data is None and ctx.trajectories is None
    assert len(pushed) == 1 and len(pushed[0]) == 6 and 'adv' in pushed[0]
    assert middleware.fresh_weights is False
    assert gae_estimator(CFG, CriticStub()).fresh_weights is True


def test_gae_needs_value_column_and_config():
    data = two_env_trajectories()
    data.pop('value')
    with pytest.raises(KeyError, match='value'):
        gae_estimator(CFG, CriticStub())(ctx_with(data))
    with pytest.raises(KeyError, match='gae_lambda'):
        gae_estimator(EasyDict(policy=dict(collect=dict(discount_factor=0.9))), CriticStub())


def test_montecarlo_returns_per_episode():
    policy = SimpleNamespace(cfg=EasyDict(collect=dict(discount_factor=0.5)))
    episode = lambda n: [dict(obs=np.zeros(2, np.float32), action=0, reward=1.0, done=i == n - 1) for i in range(n)]
    ctx = SimpleNamespace(episodes=[episode(3), episode(2)], train_data=None)
    montecarlo_return_estimator(policy)(ctx)
    np.testing.assert_allclose(ctx.train_data['return'], [1.75, 1.5, 1., 1.5, 1.])
    assert '_episode_last' not in ctx.train_data and ctx.episodes is None
