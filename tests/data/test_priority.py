"""Prioritized replay: sum tree, priority updates, sampling frequencies, IS weights."""
import numpy as np
import pytest

from ding.data import Batch, DequeBuffer, PriorityExperienceReplay
from ding.data.buffer.middleware.sum_tree import SumMinTree


def per_buffer(n, size=None, **per_kwargs):
    buf = DequeBuffer(size or n)
    per = PriorityExperienceReplay(buf, **per_kwargs)
    buf.use(per)
    buf.push(Batch(reward=np.arange(n, dtype=np.float32)))
    return buf, per


def test_sum_tree_find_and_min():
    tree = SumMinTree(5)
    tree.set(np.arange(4), [1.0, 2.0, 3.0, 4.0])
    assert tree.total == 10.0 and tree.min == 1.0
    masses = [0, 0.99, 1, 2.9, 3, 5.99, 6, 9.99]
    assert tree.find(masses).tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    tree.set(np.array([3, 0]), [0.0, 5.0])  # scattered update; slot 3 emptied
    assert tree.total == 10.0 and tree.min == 2.0
    assert tree.find([9.999999, 5.0, 4.99]).tolist() == [2, 1, 0]  # never lands on the empty slot
    assert tree.find([10.0, 11.0]).tolist() == [2, 2]  # a mass at or past the total (rounding) too


def test_deep_tree_matches_a_brute_force_search():
    rng = np.random.default_rng(1)
    tree = SumMinTree(50, fanout=4)  # 52 -> 16 -> 4: three levels
    leaves = np.zeros(50)
    for _ in range(20):
        slots = rng.integers(0, 50, 7)
        values = rng.random(7) * (rng.random(7) > 0.3)  # some updates empty a slot
        tree.set(slots, values)
        leaves[slots] = values  # the last write of a repeated slot wins, as in numpy
        assert tree.total == pytest.approx(leaves.sum())
        assert tree.min == leaves[leaves > 0].min()
        mass = rng.random(16) * leaves.sum()
        expected = np.searchsorted(np.cumsum(leaves), mass, side='right')
        assert tree.find(mass).tolist() == expected.tolist()
    fresh = SumMinTree(50, fanout=4)
    fresh.reset(leaves)
    assert fresh.total == pytest.approx(leaves.sum()) and fresh.leaves.tolist() == leaves.tolist()


def test_new_rows_get_max_priority_and_updates_track_it():
    buf, per = per_buffer(4, size=8, priority_power_factor=1.0)
    assert per.priority[:4].tolist() == [1.0, 1.0, 1.0, 1.0]
    buf.update(np.arange(4), meta={'priority': np.array([1.0, 2.0, 3.0, 4.0])})
    buf.push({'reward': np.float32(9)})
    assert per.priority[:5].tolist() == [1.0, 2.0, 3.0, 4.0, 4.0]
    buf.push({'reward': np.float32(9)}, meta={'priority': 7.0})
    assert per.max_priority == 7.0 and per.tree.total == 21.0
    assert buf.update(1, meta={'priority': 0.5, 'priority_idx': 1}) is True  # DI-engine style meta
    assert per.priority[1] == 0.5
    with pytest.raises(ValueError, match='priorities must be finite'):
        buf.update(np.array([0]), meta={'priority': np.array([-1.0])})


def test_sampling_frequency_is_proportional_to_priority():
    np.random.seed(0)
    buf, _ = per_buffer(4, priority_power_factor=1.0)
    buf.update(np.arange(4), meta={'priority': np.array([1.0, 2.0, 3.0, 4.0])})
    draws = np.concatenate([buf.sample(64, replace=True).index for _ in range(200)])
    freq = np.bincount(draws, minlength=4) / len(draws)
    np.testing.assert_allclose(freq, [0.1, 0.2, 0.3, 0.4], atol=0.01)


def test_alpha_flattens_priorities():
    np.random.seed(0)
    buf, _ = per_buffer(2, priority_power_factor=0.5)
    buf.update(np.arange(2), meta={'priority': np.array([1.0, 9.0])})  # p^0.5 = 1 : 3
    draws = np.concatenate([buf.sample(64, replace=True).index for _ in range(100)])
    assert abs(np.mean(draws == 1) - 0.75) < 0.01


def test_importance_weights_by_hand_and_annealing():
    buf, per = per_buffer(4, priority_power_factor=1.0, IS_weight_power_factor=0.4, IS_weight_anneal_train_iter=6)
    buf.update(np.arange(4), meta={'priority': np.array([1.0, 2.0, 3.0, 4.0])})
    # P_i = p_i / 10, N = 4: w_i = (4 P_i)^-0.4 / (4 * 0.1)^-0.4 = p_i^-0.4
    s = buf.sample(indices=[0, 1, 2, 3])
    expected = np.array([1.0, 2**-0.4, 3**-0.4, 4**-0.4], dtype=np.float32)
    np.testing.assert_allclose(s.meta['priority_IS'], expected, rtol=1e-6)
    np.testing.assert_allclose(s.batch.priority_IS, expected, rtol=1e-6)
    assert s.meta['priority'].tolist() == [1.0, 2.0, 3.0, 4.0]
    assert s[3].meta['priority_IS'] == pytest.approx(4**-0.4)
    assert per.beta == pytest.approx(0.5)  # 0.4 + (1 - 0.4) / 6
    np.testing.assert_allclose(buf.sample(indices=[3]).meta['priority_IS'], [0.5], rtol=1e-6)


def test_importance_weights_with_alpha():
    buf, _ = per_buffer(2, priority_power_factor=0.6)
    buf.update(np.arange(2), meta={'priority': np.array([1.0, 32.0])})
    # leaves 1 and 8: P = [1/9, 8/9]; w_1 = (2 * 8/9)^-0.4 / (2 * 1/9)^-0.4 = 8^-0.4
    s = buf.sample(indices=[1, 0])
    np.testing.assert_allclose(s.meta['priority_IS'], [8**-0.4, 1.0], rtol=1e-6)


def test_deleted_rows_are_never_drawn():
    buf, per = per_buffer(6)
    buf.delete([0, 2, 4])
    assert per.tree.total == pytest.approx(3.0)
    draws = np.concatenate([buf.sample(3).index for _ in range(50)])
    assert set(draws.tolist()) == {1, 3, 5}
    with pytest.raises(ValueError, match='cannot sample 4'):
        buf.sample(4)


def test_overwritten_rows_take_the_new_priority():
    buf, per = per_buffer(3, priority_power_factor=1.0)
    buf.update(np.arange(3), meta={'priority': np.array([5.0, 1.0, 1.0])})
    buf.push(Batch(reward=np.zeros(1, np.float32)), meta={'priority': np.array([2.0])})  # replaces id 0
    assert per.priority.tolist() == [2.0, 1.0, 1.0] and per.tree.total == 4.0


def test_groupby_is_refused():
    buf, _ = per_buffer(4)
    with pytest.raises(ValueError, match='groupby'):
        buf.sample(2, groupby='reward')
