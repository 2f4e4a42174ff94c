"""Each piece of a run-state checkpoint restores to a state that continues identically."""
import random

import gymnasium as gym
import numpy as np
import pytest
import torch

from ding.data import Batch, DequeBuffer, PriorityExperienceReplay
from ding.envs import BaseEnvManagerV2, DingEnvWrapper
from ding.framework.context import OnlineRLContext
from ding.framework.middleware.run_state import (buffer_state, ctx_state, env_manager_state, load_buffer_state,
                                                 load_ctx_state, load_env_manager_state, load_rng_state, rng_state)


def cartpole_manager(n=3):
    manager = BaseEnvManagerV2([lambda: DingEnvWrapper(gym.make('CartPole-v1')) for _ in range(n)], cfg={})
    manager.seed(7)
    manager.launch()
    return manager


def rollout(manager, actions):
    out = []
    for a in actions:
        r = manager.step_batch(a)
        out.append((r.next_obs.copy(), r.reward.copy(), r.terminated.copy(), r.episode_return.copy()))
    return out


def test_env_manager_resumes_mid_episode_exactly():
    rng = np.random.default_rng(0)
    actions = rng.integers(0, 2, size=(80, 3))
    original = cartpole_manager()
    rollout(original, actions[:30])  # some episodes ended and auto-reset, others are in flight
    state = env_manager_state(original)
    expected = rollout(original, actions[30:])

    fresh = cartpole_manager()  # a different process would build it the same way, then restore
    rollout(fresh, actions[:5])
    load_env_manager_state(fresh, state)
    got = rollout(fresh, actions[30:])
    for (o1, r1, d1, e1), (o2, r2, d2, e2) in zip(expected, got):
        np.testing.assert_array_equal(o1, o2)
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_array_equal(d1, d2)
        np.testing.assert_array_equal(e1, e2)  # episode returns span the checkpoint
    assert sum(np.isfinite(e).sum() for *_, e in got) > 0


def test_action_space_generator_is_restored():
    manager = cartpole_manager()
    state = env_manager_state(manager)
    expected = [manager.action_space.sample() for _ in range(20)]
    load_env_manager_state(manager, state)
    assert [manager.action_space.sample() for _ in range(20)] == expected


def test_buffer_rows_priorities_and_sampling_generator_are_restored():
    buf = DequeBuffer(8)
    buf.use(PriorityExperienceReplay(buf))
    buf.push(Batch(reward=np.arange(6, dtype=np.float32)))
    sampled = buf.sample(4)
    buf.update(sampled.index, meta={'priority': np.array([5.0, 0.1, 2.0, 3.0])})
    state = buffer_state(buf)
    expected = buf.sample(5)

    other = DequeBuffer(8)
    other.use(PriorityExperienceReplay(other))
    load_buffer_state(other, state)
    got = other.sample(5)
    assert got.index.tolist() == expected.index.tolist()
    np.testing.assert_allclose(got.meta['priority_IS'], expected.meta['priority_IS'])
    np.testing.assert_array_equal(got.batch.reward, expected.batch.reward)


def test_buffer_middleware_mismatch_is_an_error():
    buf = DequeBuffer(4)
    buf.use(PriorityExperienceReplay(buf))
    buf.push(Batch(reward=np.zeros(2, dtype=np.float32)))
    with pytest.raises(ValueError, match='1 buffer middleware'):
        load_buffer_state(DequeBuffer(4), buffer_state(buf))


def test_rng_states_round_trip():
    state = rng_state()
    expected = (random.random(), np.random.rand(), torch.rand(1).item())
    load_rng_state(state)
    assert (random.random(), np.random.rand(), torch.rand(1).item()) == expected


def test_ctx_counters_restore_into_the_next_step():
    ctx = OnlineRLContext()
    ctx.env_step, ctx.train_iter, ctx.last_eval_value, ctx.total_step = 640, 300, 71.5, 79
    ctx.eval_value = 71.5  # not kept: not saved
    state = ctx_state(ctx)
    expected = {'env_step': 640, 'env_episode': 0, 'train_iter': 300, 'last_eval_iter': -1, 'last_eval_value': 71.5,
                'wandb_url': '', 'total_step': 79}
    assert {k: state.get(k) for k in expected} == expected  # every kept field is saved (fault counts too)
    assert set(state) == set(ctx.kept_names) | {'total_step'} and 'eval_value' not in state
    fresh = OnlineRLContext()
    load_ctx_state(fresh, state, next_step=True)
    assert (fresh.env_step, fresh.train_iter, fresh.total_step, fresh.eval_value) == (640, 300, 80, -np.inf)
