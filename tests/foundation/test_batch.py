import pickle

import numpy as np
import pytest
import torch

from ding.data.batch import Batch, Row, as_batch


def make(n=4):
    return Batch(obs=np.arange(n * 2, dtype=np.float32).reshape(n, 2), reward=np.arange(n, dtype=np.float32),
                 done=np.array([False] * (n - 1) + [True]))


def test_list_like_access_gives_row_views():
    b = make()
    assert len(b) == 4
    row = b[1]
    assert isinstance(row, Row)
    assert row.reward == 1.0 and row['reward'] == 1.0
    np.testing.assert_array_equal(row.obs, [2.0, 3.0])
    assert [float(t.reward) for t in b] == [0.0, 1.0, 2.0, 3.0]
    assert b[-1].done and not b[0].done
    with pytest.raises(IndexError):
        b[4]


def test_row_writes_go_to_the_column():
    b = make()
    b[2].reward = 10.0
    assert b.reward[2] == 10.0


def test_fancy_index_and_cat():
    b = make()
    sub = b[np.array([3, 0])]
    np.testing.assert_array_equal(sub.reward, [3.0, 0.0])
    both = Batch.cat([b, sub])
    assert len(both) == 6
    np.testing.assert_array_equal(both.reward[-2:], [3.0, 0.0])


def test_unequal_columns_rejected():
    with pytest.raises(ValueError, match='differ in length'):
        Batch(a=np.zeros(3), b=np.zeros(4))


def test_nested_columns_and_from_rows():
    rows = [{'obs': {'x': np.ones(2), 'y': 1}, 'r': 0.5}, {'obs': {'x': np.zeros(2), 'y': 2}, 'r': 1.5}]
    b = Batch.from_rows(rows)
    assert isinstance(b.obs, Batch)
    np.testing.assert_array_equal(b.obs.y, [1, 2])
    assert b[1].obs.y == 2
    np.testing.assert_array_equal(as_batch(rows).r, [0.5, 1.5])


def test_to_torch_converts_float64_and_keeps_shapes():
    b = Batch(x=np.ones((3, 2)), a=np.arange(3))
    t = b.to_torch()
    assert t.x.dtype == torch.float32 and t.a.dtype == torch.int64
    assert t.to_numpy().x.shape == (3, 2)


def test_missing_column_names_the_columns():
    with pytest.raises(AttributeError, match="no column 'rew'"):
        make().rew
    with pytest.raises(AttributeError, match='no field'):
        make()[0].rew


def test_pickle_round_trip():
    b = pickle.loads(pickle.dumps(make()))
    np.testing.assert_array_equal(b.reward, [0, 1, 2, 3])
