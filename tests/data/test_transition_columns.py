"""`ColumnPool` (ding/data/transition_columns.py): a collect call's columns reuse an earlier
call's memory only when nothing but the pool refers to it any more."""
from types import SimpleNamespace

import numpy as np

from ding.data.transition_columns import ColumnPool, TransitionColumns


def step_result(obs):
    n = len(obs)
    return SimpleNamespace(reward=np.ones(n, np.float32), next_obs=obs + 1, terminated=np.zeros(n, bool),
                           truncated=np.zeros(n, bool), info=[{}] * n)


def record_call(pool, env_num=3, steps=2, start=0.0):
    cols = TransitionColumns(env_num, steps, pool=pool)
    for t in range(steps):
        obs = np.full((env_num, 4), start + t, np.float32)
        cols.record(t, 0, obs, {'action': np.arange(env_num)}, step_result(obs))
    return cols.to_batch()


def test_a_free_array_is_handed_out_again_and_a_held_one_is_not():
    pool = ColumnPool()
    first = pool.empty((5, 3), np.float32)
    base = first.__array_interface__['data'][0]
    view = first.reshape(15)
    held = pool.empty((5, 3), np.float32)  # `first` is still referenced (by `first` and `view`)
    assert held.__array_interface__['data'][0] != base
    del first, view, held
    again = pool.empty((5, 3), np.float32)
    assert again.__array_interface__['data'][0] == base
    assert pool.empty((5, 3), np.int64).dtype == np.int64  # another dtype: another array


def test_a_batch_someone_keeps_is_never_written_by_a_later_call():
    pool = ColumnPool()
    kept = record_call(pool, start=0.0)
    snapshot = {k: np.array(v) for k, v in kept.items()}
    for call in range(1, 4):
        later = record_call(pool, start=10.0 * call)
        assert later.obs[0, 0] == 10.0 * call
        assert not np.shares_memory(later.obs, kept.obs) and not np.shares_memory(later.next_obs, kept.obs)
    for k, v in kept.items():
        np.testing.assert_array_equal(v, snapshot[k])


def test_columns_of_one_call_never_share_memory_and_dropped_batches_are_reused():
    pool = ColumnPool()
    batch = record_call(pool)
    assert not np.shares_memory(batch.obs, batch.next_obs)  # the same shape and dtype, two arrays
    address = batch.obs.__array_interface__['data'][0]
    del batch  # nothing refers to the first call's columns any more
    reused = record_call(pool, start=5.0)
    assert reused.obs.__array_interface__['data'][0] == address
    np.testing.assert_array_equal(reused.obs[:, 0], [5.0, 6.0] * 3)
    np.testing.assert_array_equal(reused.next_obs[:, 0], [6.0, 7.0] * 3)
