"""n-step windows that continue across collect calls: rows held back until their window is
known, emitted once, with the returns a whole-episode computation gives."""
import numpy as np
import pytest

from ding.data.batch import Batch
from ding.data.buffer.deque_buffer import DequeBuffer
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import data_pusher, nstep_reward_enhancer
from ding.framework.middleware.enhancer import nstep_window

from .conftest import drive, make_cfg


def env_rows(env_id, t0, rewards, done=(), truncated=()):
    """One env's segment: obs = step index t, next_obs = t + 1, reward as given."""
    size = len(rewards)
    t = np.arange(t0, t0 + size, dtype=np.float32)
    return Batch(obs=t[:, None], next_obs=t[:, None] + 1, action=np.zeros(size, dtype=np.int64),
                 reward=np.asarray(rewards, dtype=np.float32),
                 done=np.isin(np.arange(size), done), truncated=np.isin(np.arange(size), truncated),
                 env_id=np.full(size, env_id, dtype=np.int64))


def collect_call(*segments):
    """ctx as StepCollector leaves it: env-major rows and the last index of each segment."""
    ends = list(np.cumsum([len(s) for s in segments]) - 1)
    return OnlineRLContext(trajectories=Batch.cat(segments), trajectory_end_idx=ends)


def call_a():  # env 0: no end yet; env 1: terminated at its 2nd step
    return collect_call(env_rows(0, 0, [1, 2, 3, 4]), env_rows(1, 0, [10, 20, 30, 40], done=[1]))


def call_b():  # env 0: time-limit end at its 6th step; env 1: no end
    return collect_call(env_rows(0, 4, [5, 6, 7], truncated=[1]), env_rows(1, 4, [50, 60, 70]))


def test_first_call_emits_only_complete_windows():
    enhancer = nstep_reward_enhancer(make_cfg(policy__nstep=3))
    ctx = call_a()
    drive(enhancer, ctx)
    t = ctx.trajectories
    assert t.reward.tolist() == [[1, 2, 3], [2, 3, 4], [10, 20, 0], [20, 0, 0]]
    assert t.nstep.tolist() == [3, 3, 2, 1]
    assert t.done.tolist() == [False, False, True, True]
    assert t.next_obs[:, 0].tolist() == [3, 4, 2, 2]
    assert t.env_id.tolist() == [0, 0, 1, 1]
    assert ctx.trajectory_end_idx == [1, 3]


def test_second_call_completes_held_windows_and_truncated_ends_bootstrap():
    enhancer = nstep_reward_enhancer(make_cfg(policy__nstep=3))
    drive(enhancer, call_a())
    ctx = call_b()
    drive(enhancer, ctx)
    t = ctx.trajectories
    assert t.obs[:, 0].tolist() == [2, 3, 4, 5, 2, 3, 4]
    assert t.reward.tolist() == [[3, 4, 5], [4, 5, 6], [5, 6, 0], [6, 0, 0], [30, 40, 50], [40, 50, 60],
                                 [50, 60, 70]]
    assert t.nstep.tolist() == [3, 3, 2, 1, 3, 3, 3]
    assert t.next_obs[:, 0].tolist() == [5, 6, 6, 6, 5, 6, 7]
    assert t.truncated.tolist() == [False, True, True, True, False, False, False]
    assert t.done.tolist() == [False] * 7
    assert t.env_id.tolist() == [0, 0, 0, 0, 1, 1, 1]
    assert ctx.trajectory_end_idx == [3, 6]
    rest = enhancer.flush()  # env 0: step 6; env 1: steps 5, 6 (windows cut where the data ends)
    assert rest.reward.tolist() == [[7, 0, 0], [60, 70, 0], [70, 0, 0]]
    assert rest.nstep.tolist() == [1, 2, 1]
    assert len(enhancer.flush()) == 0


def by_env_and_step(batch):
    order = np.lexsort((batch.obs[:, 0], batch.env_id))
    return batch[order]


def assert_same_rows(a, b):
    assert sorted(a.keys()) == sorted(b.keys())
    for k in a.keys():
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


def test_two_calls_equal_one_call_over_the_concatenation():
    enhancer = nstep_reward_enhancer(make_cfg(policy__nstep=3))
    out = []
    for ctx in (call_a(), call_b()):
        drive(enhancer, ctx)
        out.append(ctx.trajectories)
    out.append(enhancer.flush())
    whole = Batch.cat([Batch.cat([call_a().trajectories[:4], call_b().trajectories[:3]]),
                       Batch.cat([call_a().trajectories[4:], call_b().trajectories[3:]])])
    expected = nstep_window(whole, [6, 13], 3)
    assert_same_rows(by_env_and_step(Batch.cat(out)), expected)


@pytest.mark.parametrize('kind', ['dict', 'tensor'])
def test_held_rows_of_dict_and_tensor_observations_join_the_next_call(kind):
    """Held rows and new rows are read as one without being copied into one Batch: the same rows
    come out for dict observations (nested columns) and torch tensors as for arrays."""
    import torch

    def as_kind(batch):
        cols = dict(batch.items())
        for key in ('obs', 'next_obs'):
            cols[key] = Batch(pos=cols[key], twice=2 * cols[key]) if kind == 'dict' else torch.from_numpy(cols[key])
        return Batch(cols)

    enhancer = nstep_reward_enhancer(make_cfg(policy__nstep=3))
    out = []
    for ctx in (call_a(), call_b()):
        ctx.trajectories = as_kind(ctx.trajectories)
        drive(enhancer, ctx)
        out.append(ctx.trajectories)
    out.append(enhancer.flush())
    got = Batch.cat(out)
    plain = nstep_reward_enhancer(make_cfg(policy__nstep=3))
    expected = []
    for ctx in (call_a(), call_b()):
        drive(plain, ctx)
        expected.append(ctx.trajectories)
    expected = Batch.cat(expected + [plain.flush()])
    for key in ('obs', 'next_obs'):
        column = got[key]['pos'] if kind == 'dict' else got[key].numpy()
        np.testing.assert_array_equal(column, expected[key], err_msg=key)
        if kind == 'dict':
            np.testing.assert_array_equal(got[key]['twice'], 2 * expected[key], err_msg=key)
    np.testing.assert_array_equal(got['reward'], expected['reward'])


def random_env_stream(rng, env_id, size):
    ends = rng.random(size) < 0.15
    cut = rng.random(size) < 0.5
    return env_rows(env_id, 0, rng.integers(1, 100, size), done=np.flatnonzero(ends & cut),
                    truncated=np.flatnonzero(ends & ~cut))


@pytest.mark.parametrize('n', [2, 5])
def test_every_row_emitted_once_with_whole_episode_returns(n):
    rng = np.random.default_rng(n)
    streams = [random_env_stream(rng, e, 60) for e in range(3)]
    enhancer = nstep_reward_enhancer(make_cfg(policy__nstep=n))
    out, t = [], 0
    for steps in (1, 7, 3, 20, 2, 27):  # calls of uneven length, some shorter than n
        ctx = collect_call(*(s[t:t + steps] for s in streams))
        drive(enhancer, ctx)
        assert ctx.trajectory_end_idx == list(np.flatnonzero(np.diff(np.append(ctx.trajectories.env_id, -1))))
        out.append(ctx.trajectories)
        t += steps
    out.append(enhancer.flush())
    expected = nstep_window(Batch.cat(streams), [59, 119, 179], n)
    assert_same_rows(by_env_and_step(Batch.cat(out)), expected)


def test_held_rows_survive_a_checkpoint():
    cfg = make_cfg(policy__nstep=3)
    first = nstep_reward_enhancer(cfg)
    drive(first, call_a())
    resumed = nstep_reward_enhancer(cfg)
    resumed.load_state_dict(first.state_dict())
    ctx_first, ctx_resumed = call_b(), call_b()
    drive(first, ctx_first)
    drive(resumed, ctx_resumed)
    assert_same_rows(ctx_resumed.trajectories, ctx_first.trajectories)
    with pytest.raises(ValueError, match='nstep=3, this run has nstep=5'):
        nstep_reward_enhancer(make_cfg(policy__nstep=5)).load_state_dict(first.state_dict())


def test_a_call_with_no_complete_window_pushes_nothing():
    enhancer = nstep_reward_enhancer(make_cfg(policy__nstep=4))
    ctx = collect_call(env_rows(0, 0, [1, 2]), env_rows(1, 0, [3, 4]))
    drive(enhancer, ctx)
    assert len(ctx.trajectories) == 0 and ctx.trajectory_end_idx == []
    buffer_ = DequeBuffer(size=10)
    drive(data_pusher(make_cfg(), buffer_), ctx)
    assert buffer_.count() == 0


def test_changed_columns_between_calls_are_an_error():
    enhancer = nstep_reward_enhancer(make_cfg(policy__nstep=3))
    drive(enhancer, call_a())
    ctx = call_b()
    ctx.trajectories['value'] = np.zeros(len(ctx.trajectories), dtype=np.float32)
    with pytest.raises(ValueError, match="columns changed between calls"):
        drive(enhancer, ctx)


def test_held_rows_end_where_a_dropped_episode_broke_the_stream():
    """An env restart dropped env 0's episode at the first step of the next call: its held rows
    must not run into the new episode (whose obs does not follow their next_obs)."""
    enhancer = nstep_reward_enhancer(make_cfg(policy__nstep=3))
    drive(enhancer, call_a())
    fresh = env_rows(0, 100, [5, 6, 7])  # a new episode after the restart: obs 100, 101, ...
    ctx = collect_call(fresh, env_rows(1, 4, [50, 60, 70]))
    drive(enhancer, ctx)
    t = ctx.trajectories
    env0 = t[np.flatnonzero(t.env_id == 0)]
    assert env0.obs[:, 0].tolist() == [2, 3, 100]
    assert env0.reward.tolist()[:2] == [[3, 4, 0], [4, 0, 0]]  # cut at the gap, no reward of the new episode
    assert env0.truncated.tolist()[:2] == [True, True] and env0.next_obs[:2, 0].tolist() == [4, 4]


def test_held_rows_of_an_env_absent_from_a_call_wait_for_its_next_call():
    """An env missing from one collect call keeps its held rows; they continue with its next rows."""
    enhancer = nstep_reward_enhancer(make_cfg(policy__nstep=3))
    env0, env1 = env_rows(0, 0, [1, 2, 3, 4, 5, 6]), env_rows(1, 0, [10, 20, 30, 40, 50, 60], done=[5])
    out = []
    for ctx in (collect_call(env0[:2], env1[:2]), collect_call(env0[2:4]), collect_call(env0[4:], env1[2:])):
        drive(enhancer, ctx)
        out.append(ctx.trajectories)
    out.append(enhancer.flush())
    expected = nstep_window(Batch.cat([env0, env1]), [5, 11], 3)
    assert_same_rows(by_env_and_step(Batch.cat(out)), expected)
    assert enhancer.state_dict()['pending'] == {}
