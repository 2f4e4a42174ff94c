"""Prioritized sequence replay (R2D2): windows drawn by their rows' priorities, importance
weights per window, and the learner's window priorities written back to the rows."""
import numpy as np
import pytest

from ding.data import Batch, DequeBuffer, PriorityExperienceReplay
from ding.data.buffer.middleware.sequence_priority import write_sequence_priorities
from ding.data.buffer.sequence_sampling import sample_sequences


def two_env_buffer(lengths=(10, 10), sliced=False, **per_kwargs):
    """Env e's rows have obs = 100 * e + step, pushed env-major as collectors emit them."""
    buf = DequeBuffer(100, sliced=sliced)
    per = PriorityExperienceReplay(buf, **per_kwargs)
    buf.use(per)
    for env, n in enumerate(lengths):
        buf.push(Batch(obs=(100 * env + np.arange(n)).astype(np.float32), env_id=np.full(n, env)))
    return buf, per


def set_priorities(buf, per, priority):
    ids = buf.ids_at(np.arange(len(priority)))
    buf.update(ids, meta={'priority': np.asarray(priority, dtype=np.float64)})


def test_windows_are_drawn_in_proportion_to_their_rows_priority():
    buf, per = two_env_buffer(priority_power_factor=1.0, IS_weight=False)
    priority = np.ones(20)
    priority[3] = 9.0  # env 0's window starting at step 3
    priority[17:] = [2.0, 3.0, 4.0]  # env 1's last rows all lead to its last window (start 6)
    set_priorities(buf, per, priority)
    n = 2000
    batch, index = sample_sequences(buf, n, 4)
    assert np.all(np.diff(batch.obs, axis=1) == 1) and np.all(batch.env_id == batch.env_id[:, :1])
    starts, counts = np.unique(batch.obs[:, 0], return_counts=True)
    drawn = dict(zip(starts.tolist(), counts.tolist()))
    # env 0: rows 0..6 start their own window, rows 7..9 lead to the window at 6
    mass = {float(s): priority[s] for s in range(6)}
    mass[6.0] = priority[6:10].sum()
    mass.update({100.0 + s: priority[10 + s] for s in range(6)})
    mass[106.0] = priority[16:20].sum()
    total = priority.sum()
    assert set(drawn) == set(mass)
    for start, m in mass.items():  # stratified draws: within 2 of the expected count
        assert abs(drawn[start] - n * m / total) <= 2, (start, drawn[start], n * m / total)


def test_importance_weights_are_per_window_and_anneal():
    buf, per = two_env_buffer(priority_power_factor=1.0, IS_weight=True, IS_weight_power_factor=0.5,
                              IS_weight_anneal_train_iter=2)
    priority = np.ones(20)
    priority[2] = 4.0
    priority[16:] = [1.0, 1.0, 1.0, 5.0]
    set_priorities(buf, per, priority)
    batch, index = sample_sequences(buf, 200, 4)
    assert batch.priority_IS.shape == (200, )
    start = batch.obs[:, 0]
    expected = np.ones(200, dtype=np.float32)
    expected[start == 2] = 4.0**-0.5  # (window mass / smallest mass) ** -beta
    expected[start == 106] = 2.0**-0.5  # the last window: the mean mass of the 4 rows that lead to it
    assert np.allclose(batch.priority_IS, expected)
    assert per.beta == pytest.approx(0.75)  # one step of 0.25 per sample call
    sampled = buf.sample(3, groupby='env_id', unroll_len=4)
    assert len(sampled) == 3 and all(len(w) == 4 for w in sampled)
    assert all(np.all(w.meta['priority_IS'] == w.meta['priority_IS'][0]) for w in sampled)
    assert per.beta == 1.0


def test_learner_priorities_reach_every_row_of_the_window_and_steer_sampling():
    buf, per = two_env_buffer(priority_power_factor=1.0, IS_weight=False)
    ids = buf.ids_at(np.arange(20)).reshape(2, 10)
    windows = np.stack([ids[0, 2:6], ids[1, 0:4]])
    write_sequence_priorities(buf, windows, np.array([50.0, 0.0]))
    assert per.priority[2:6].tolist() == [50.0] * 4
    assert np.all(per.priority[10:14] == 1e-6)  # a zero priority keeps the rows drawable, barely
    assert per.max_priority == 50.0
    batch, _ = sample_sequences(buf, 500, 4)
    starts = batch.obs[:, 0]
    assert np.isin(starts, [2, 3, 4, 5]).mean() > 0.9  # 200 of about 212 in mass
    assert not np.isin(starts, [100, 101, 102, 103]).any()
    with pytest.raises(ValueError, match='one priority per window'):
        write_sequence_priorities(buf, windows, np.array([1.0]))


def test_short_groups_and_deleted_rows_are_never_drawn():
    buf, per = two_env_buffer(lengths=(10, 3), priority_power_factor=1.0, IS_weight=False)
    set_priorities(buf, per, np.r_[np.ones(10), np.full(3, 1000.0)])  # env 1 is too short for a window
    batch, _ = sample_sequences(buf, 50, 4)
    assert np.all(batch.env_id == 0)
    buf.delete(buf.ids_at(np.arange(10))[:8])  # env 0 keeps 2 rows: no group has a window now
    assert sample_sequences(buf, 5, 4) is None
    with pytest.raises(ValueError, match='sample_range'):
        buf.sample(4, groupby='env_id', unroll_len=4, sample_range=slice(0, 5))


def test_sliced_buffer_draws_the_fixed_chunks():
    buf, per = two_env_buffer(lengths=(10, ), sliced=True, priority_power_factor=1.0, IS_weight=True)
    set_priorities(buf, per, [1, 1, 1, 1, 6, 6, 6, 6, 2, 2])
    n = 1200
    batch, _ = sample_sequences(buf, n, 4)
    starts, counts = np.unique(batch.obs[:, 0], return_counts=True)
    assert starts.tolist() == [0.0, 4.0, 6.0]  # chunks 0-3, 4-7 and the last full window 6-9 for rows 8, 9
    total = 32.0
    for count, m in zip(counts, [4.0, 24.0, 4.0]):
        assert abs(count - n * m / total) <= 2
    assert np.allclose(batch.priority_IS[batch.obs[:, 0] == 4], 6.0**-0.4)


def test_pixel_frame_buffer_windows_by_priority_with_ring_overflow():
    from ding.data.buffer.frame_buffer import FrameBuffer
    from tests.data.test_frame_buffer import fill
    rng = np.random.default_rng(5)
    buf = FrameBuffer(60)
    per = PriorityExperienceReplay(buf, IS_weight=True)
    buf.use(per)
    rows = fill(buf, 40, rng)  # 120 rows into 60 slots: the oldest are overwritten
    batch, index = sample_sequences(buf, 6, 5)
    assert batch['obs'].shape == (6, 5, 4, 6, 6) and batch.priority_IS.shape == (6, )
    for b in range(6):
        assert np.all(np.diff(index[b]) == 3)  # 3 interleaved envs: one env's consecutive rows
        for t in range(5):
            np.testing.assert_array_equal(batch['obs'][b, t], rows[index[b, t]]['obs'])
    write_sequence_priorities(buf, index, np.arange(1.0, 7.0))
    assert per.priority[buf.slots_of(index[-1])[0]].tolist() == [6.0] * 5
