"""DequeBuffer.sample: replacement, ranges, shortage, indices, grouping, laziness, seeding."""
import numpy as np
import pytest

from ding.data import Batch, BufferedData, DequeBuffer, SampledBatch


def filled(n, size=None, **extra):
    buf = DequeBuffer(size or n)
    r = np.arange(n)
    buf.push(Batch(obs=r.astype(np.float32)[:, None], reward=r.astype(np.float32), **extra))
    return buf


def test_without_replacement_gives_distinct_ids():
    buf = filled(10)
    for _ in range(20):
        ids = buf.sample(10).index
        assert sorted(ids.tolist()) == list(range(10))


def test_with_replacement_can_exceed_count():
    buf = filled(3)
    s = buf.sample(50, replace=True)
    assert len(s) == 50 and set(s.index.tolist()) == {0, 1, 2}


def test_batch_columns_match_ids():
    buf = filled(100, size=40)  # ids 60..99 survive
    s = buf.sample(16)
    assert isinstance(s, SampledBatch)
    assert s.batch.reward.tolist() == s.index.astype(np.float32).tolist()
    assert s.index.min() >= 60


def test_sample_range_counts_live_rows_oldest_first():
    buf = filled(20, size=10)  # live ids 10..19
    assert sorted(buf.sample(5, sample_range=slice(-5, None)).index.tolist()) == [15, 16, 17, 18, 19]
    assert sorted(buf.sample(3, sample_range=slice(0, 3)).index.tolist()) == [10, 11, 12]
    assert sorted(buf.sample(2, sample_range=slice(0, 4, 2)).index.tolist()) == [10, 12]


def test_insufficient_raises_unless_ignored():
    buf = filled(4)
    with pytest.raises(ValueError, match='cannot sample 5 rows without replacement from 4'):
        buf.sample(5)
    assert len(buf.sample(5, ignore_insufficient=True)) == 0  # DI-engine: nothing rather than a partial sample
    empty = DequeBuffer(4)
    with pytest.raises(ValueError, match='from 0'):
        empty.sample(1, replace=True)
    assert len(empty.sample(2, ignore_insufficient=True)) == 0


def test_indices_keep_order_and_duplicates():
    buf = filled(5)
    s = buf.sample(indices=[4, 1, 4])
    assert s.index.tolist() == [4, 1, 4] and s.batch.reward.tolist() == [4.0, 1.0, 4.0]


def test_items_are_lazy_views_with_meta():
    buf = filled(5)
    s = buf.sample(indices=[2, 3])
    assert s._items == {}
    first = s[0]
    assert isinstance(first, BufferedData) and first.index == 2 and float(first.data.reward) == 2.0
    first.meta['priority'] = 0.5
    assert s[0] is first and s[0].meta == {'priority': 0.5}  # the view is kept, edits persist
    assert [d.index for d in s] == [2, 3]
    assert s[1:].index.tolist() == [3]


def test_groupby_column_returns_whole_groups_in_push_order():
    buf = filled(12, env_id=np.arange(12) % 3)
    groups = buf.sample(3, groupby='env_id')
    assert sorted(g.index.tolist() for g in groups) == [[0, 3, 6, 9], [1, 4, 7, 10], [2, 5, 8, 11]]
    with pytest.raises(ValueError, match="There are less than 4 groups by 'env_id' \\(there are 3\\)"):
        buf.sample(4, groupby='env_id')


def test_groupby_with_unroll_len_gives_consecutive_windows():
    env_id = np.array([0] * 6 + [1] * 2 + [2] * 4)
    buf = filled(12, env_id=env_id)
    for _ in range(10):
        groups = buf.sample(2, groupby='env_id', unroll_len=3)  # env 1 is too short
        assert len(groups) == 2
        for g in groups:
            ids = g.index.tolist()
            assert len(ids) == 3 and ids == list(range(ids[0], ids[0] + 3))
            assert len(set(env_id[ids])) == 1 and env_id[ids[0]] != 1
    with pytest.raises(ValueError, match='unroll_len needs groupby'):
        buf.sample(2, unroll_len=3)


def test_groupby_meta_key():
    buf = DequeBuffer(10)
    for i in range(6):
        buf.push({'x': i}, meta={'episode': i // 2})
    groups = buf.sample(3, groupby='episode')
    assert sorted(g.index.tolist() for g in groups) == [[0, 1], [2, 3], [4, 5]]
    with pytest.raises(KeyError, match='nope'):
        buf.sample(1, groupby='nope')


def test_seeded_from_global_numpy_rng():
    np.random.seed(7)
    a = filled(50).sample(8).index.tolist()
    np.random.seed(7)
    b = filled(50).sample(8).index.tolist()
    assert a == b


def test_batch_push_meta_per_row_and_shared():
    buf = DequeBuffer(10)
    buf.push(Batch(x=np.arange(4)), meta={'env': np.array([0, 1, 0, 1]), 'source': 'expert'})
    buf.push({'x': 9})  # no meta: belongs to no group
    assert buf.get(2).meta == {'env': 0, 'source': 'expert'} and buf.get(4).meta == {}
    groups = buf.sample(2, groupby='env')
    assert sorted(g.index.tolist() for g in groups) == [[0, 2], [1, 3]]
    buf.push({'x': 10}, meta={'env': 'a'})  # a non-numeric key falls back to grouping in Python
    assert sorted(g.index.tolist() for g in buf.sample(3, groupby='env')) == [[0, 2], [1, 3], [5]]
