"""`StepCollector` over an env offering the sampler protocol (`collect_steps`): the rollout is
delegated, the random warm-up included, and the ctx fields are those of the plain loop."""
import numpy as np
import pytest

import ding.policy
from ding.data.batch import Batch
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import StepCollector

from .conftest import MockActingPolicy, MockEnvManager, make_cfg


class MockSampler(MockEnvManager):
    """MockEnvManager that also runs whole rollouts, recording each `collect_steps` call."""

    def __init__(self, lengths, rows_missing=0):
        super().__init__(lengths)
        self.sampler_calls = []
        self.rows_missing = rows_missing

    def collect_steps(self, forward, steps, kwargs, reset, extra_keys):
        self.sampler_calls.append((forward, steps, dict(kwargs), reset, tuple(extra_keys)))
        rows = {k: [] for k in ('obs', 'action', 'reward', 'next_obs', 'done', 'truncated', *extra_keys)}
        episodes = 0
        for _ in range(steps):
            obs = self.ready_obs
            out = forward(obs, **kwargs)
            result = self.step_batch(out['action'])
            for key, value in (('obs', obs), ('action', out['action']), ('reward', result.reward),
                               ('next_obs', result.next_obs), ('done', result.terminated),
                               ('truncated', result.truncated)):
                rows[key].append(value)
            for key in extra_keys:
                rows[key].append(out[key])
            ended = np.flatnonzero(result.terminated | result.truncated)
            if len(ended):
                episodes += len(ended)
                reset(ended.tolist())
        cols = {k: np.stack(v, axis=1).reshape((-1, ) + np.shape(v[0])[1:]) for k, v in rows.items()}
        cols['env_id'] = np.repeat(np.arange(self.env_num), steps)
        keep = len(cols['env_id']) - self.rows_missing
        return Batch({k: v[:keep] for k, v in cols.items()}), episodes


def collect(env, policy, ctx, **kwargs):
    StepCollector(make_cfg(), policy, env, **kwargs)(ctx)
    return ctx


def test_rollout_is_delegated_and_ctx_matches_the_plain_loop():
    lengths = [1, 2, 3, 4, 5, 6, 7, 8]
    sampler, policy = MockSampler(lengths), MockActingPolicy(transition_keys=('value', ))
    got = collect(sampler, policy, OnlineRLContext(collect_kwargs={'eps': 0.5}))
    want = collect(MockEnvManager(lengths), MockActingPolicy(transition_keys=('value', )),
                   OnlineRLContext(collect_kwargs={'eps': 0.5}))
    [(forward, steps, kwargs, reset, extra_keys)] = sampler.sampler_calls
    assert forward == policy.forward_batch and reset == policy.reset
    assert (steps, kwargs, extra_keys) == (2, {'eps': 0.5}, ('value', ))
    assert (got.trajectory_end_idx, got.env_step, got.env_episode) == \
        (want.trajectory_end_idx, want.env_step, want.env_episode) == ([1, 3, 5, 7, 9, 11, 13, 15], 16, 3)
    assert sorted(got.trajectories.keys()) == sorted(want.trajectories.keys())
    for key in want.trajectories.keys():
        assert np.array_equal(got.trajectories[key], want.trajectories[key]), key
    assert policy.reset_calls == [[0], [0, 1]]


def test_random_warmup_goes_through_the_sampler(monkeypatch):
    random_policy = MockActingPolicy()
    monkeypatch.setattr(ding.policy, 'get_random_policy', lambda cfg, policy, env: random_policy, raising=False)
    sampler = MockSampler([100] * 4)
    ctx = collect(sampler, MockActingPolicy(), OnlineRLContext(), random_collect_size=10)
    [(forward, steps, *_)] = sampler.sampler_calls
    assert forward == random_policy.forward_batch and steps == 3  # ceil(10 / 4)
    assert ctx.env_step == 12 and ctx.trajectory_end_idx == [2, 5, 8, 11]


def test_a_sampler_returning_the_wrong_row_count_is_an_error():
    with pytest.raises(RuntimeError, match=r'returned 15 rows, expected 16 \(steps x envs, less the rows of dropped'):
        collect(MockSampler([3] * 8, rows_missing=1), MockActingPolicy(), OnlineRLContext())
