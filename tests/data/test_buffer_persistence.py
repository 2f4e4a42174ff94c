"""save_data / load_data round trips, priorities included."""
import os

import numpy as np
import pytest

from ding.data import Batch, DequeBuffer, PriorityExperienceReplay, use_time_check


def test_round_trip_with_priorities_holes_and_meta(tmp_path):
    np.random.seed(3)
    buf = DequeBuffer(5)
    per = PriorityExperienceReplay(buf, priority_power_factor=1.0)
    buf.use(per)
    buf.push(Batch(obs=np.arange(14, dtype=np.float32).reshape(7, 2), action=np.arange(7)))  # ids 2..6 live
    buf.push({'obs': np.array([9, 9], np.float32), 'action': 7}, meta={'tag': 'x'})  # id 7 replaces 2
    buf.update(np.array([3, 4]), meta={'priority': np.array([2.0, 6.0])})
    buf.delete(5)
    buf.sample(2)  # moves beta
    path = os.path.join(tmp_path, 'buf.pkl')
    buf.save_data(path)

    fresh = DequeBuffer(5)
    fresh_per = PriorityExperienceReplay(fresh, priority_power_factor=1.0)
    fresh.use(fresh_per)
    fresh.load_data(path)
    assert fresh.count() == 4
    assert [fresh.get(i).index for i in range(4)] == [3, 4, 6, 7]
    assert fresh.get(3).meta == {'tag': 'x'} and fresh.get(3).data.obs.tolist() == [9.0, 9.0]
    assert fresh_per.priority.tolist() == per.priority.tolist()
    assert fresh_per.tree.total == per.tree.total == 10.0  # 2 + 6 + 1 + 1
    assert fresh_per.beta == per.beta and fresh_per.max_priority == 6.0
    assert fresh.push({'obs': np.zeros(2, np.float32), 'action': 0}).index == 8


def test_load_checks_size_and_middleware(tmp_path):
    path = os.path.join(tmp_path, 'buf.pkl')
    buf = DequeBuffer(4)
    buf.use(use_time_check(buf, max_use=3))
    buf.push({'x': 1})
    buf.save_data(path)
    with pytest.raises(ValueError, match='size 4; this one has size 8'):
        DequeBuffer(8).load_data(path)
    with pytest.raises(ValueError, match=r"saved with middleware \['UseTimeCheck'\]"):
        DequeBuffer(4).load_data(path)
    assert [f for f in os.listdir(tmp_path)] == ['buf.pkl']  # the atomic write left no temp file
