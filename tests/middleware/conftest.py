"""Test-local stand-ins: a batched env manager, acting/learning policies and the task."""
from types import SimpleNamespace

import numpy as np
import pytest
from easydict import EasyDict

from ding.framework.middleware import _common


class MockEnvManager:
    """env i: obs [i, t] (t = step in episode, float32), reward 1 + i, terminated after
    `lengths[i]` steps (truncated instead when `truncate`), then auto-reset."""

    def __init__(self, lengths, truncate=False):
        self.lengths = np.asarray(lengths)
        self.env_num = len(lengths)
        self.truncate = truncate
        self.closed = True
        self.t = np.zeros(self.env_num, dtype=np.int64)
        self.seeds = []
        self.resets = 0
        self.actions = []

    def seed(self, seed, dynamic_seed=True):
        self.seeds.append((seed, dynamic_seed))

    def launch(self, reset_param=None):
        self.closed = False
        self.reset()

    def reset(self, reset_param=None):
        self.resets += 1
        self.t[:] = 0

    @property
    def ready_obs(self):
        return np.stack([np.arange(self.env_num), self.t], axis=1).astype(np.float32)

    def step_batch(self, actions):
        self.actions.append(np.asarray(actions).copy())
        self.t += 1
        reward = (1.0 + np.arange(self.env_num)).astype(np.float32)
        next_obs = self.ready_obs
        ended = self.t >= self.lengths
        episode_return = np.where(ended, self.lengths * reward, np.nan)
        episode_length = np.where(ended, self.lengths, 0)
        self.t[ended] = 0
        return SimpleNamespace(next_obs=next_obs, reward=reward,
                               terminated=ended & (not self.truncate), truncated=ended & self.truncate,
                               episode_return=episode_return, episode_length=episode_length,
                               infos=[{} for _ in range(self.env_num)])


class MockActingPolicy:
    """Action = obs[:, 1] % 2 (int64); records kwargs and resets; extra column `value`."""

    def __init__(self, transition_keys=()):
        self.transition_keys = transition_keys
        self.calls = []
        self.reset_calls = []

    def forward_batch(self, obs, **kwargs):
        self.calls.append(kwargs)
        obs = np.asarray(obs)
        return {'action': (obs[:, 1] % 2).astype(np.int64), 'value': obs[:, 1] * 10}

    def reset(self, env_ids=None):
        self.reset_calls.append(env_ids)


class MockLearnPolicy:
    """Records each batch; output carries `priority` = batch index when `with_priority`."""

    def __init__(self, with_priority=False):
        self.batches = []
        self.with_priority = with_priority

    def forward(self, data):
        self.batches.append(data)
        out = {'total_loss': float(len(self.batches)), 'cur_lr': 0.1}
        if self.with_priority:
            out['priority'] = np.full(len(data), float(len(self.batches)))
        return out

    def state_dict(self):
        return {'updates': len(self.batches)}


@pytest.fixture
def fake_task(monkeypatch):
    task = SimpleNamespace(finish=False, finish_reason=None, router=SimpleNamespace(is_active=False))

    def end(reason):
        task.finish, task.finish_reason = True, reason

    task.end = end
    monkeypatch.setattr(_common, 'current_task', lambda: task)
    return task


def make_cfg(**overrides):
    cfg = EasyDict(
        seed=0,
        exp_name='test_exp',
        env=dict(n_evaluator_episode=4, stop_value=10),
        policy=dict(
            nstep=1,
            learn=dict(batch_size=4, update_per_collect=3),
            collect=dict(n_sample=16, unroll_len=1, n_episode=2),
            eval=dict(evaluator=dict(eval_freq=10)),
            other=dict(eps=dict(type='exp', start=0.95, end=0.1, decay=10000)),
        ),
    )
    for dotted, value in overrides.items():
        node = cfg
        parts = dotted.split('__')
        for p in parts[:-1]:
            node = node[p]
        node[parts[-1]] = value
    return cfg


def drive(mw, ctx):
    """Run one middleware for one step (forward, then its post-yield part)."""
    gen = mw(ctx)
    if hasattr(gen, '__next__'):
        for _ in gen:
            pass
