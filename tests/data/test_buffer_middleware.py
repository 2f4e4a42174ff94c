"""use_time_check, clone_object, group_sample, and middleware chaining."""
import numpy as np
import pytest

from ding.data import Batch, DequeBuffer, PriorityExperienceReplay, clone_object, group_sample, use_time_check


def test_use_time_check_deletes_after_max_use():
    buf = DequeBuffer(4)
    buf.use(use_time_check(buf, max_use=2))
    buf.push(Batch(x=np.arange(4)))
    first = buf.sample(indices=[0, 1])
    assert first.meta['use_count'].tolist() == [1, 1] and first[0].meta['use_count'] == 1
    assert buf.sample(indices=[0, 2, 2]).meta['use_count'].tolist() == [2, 2, 2]
    assert buf.count() == 2 and sorted(buf.sample(2).index.tolist()) == [1, 3]
    buf.push(Batch(x=np.array([9])))  # reuses slot 0: its count starts again
    assert buf.sample(indices=[4]).meta['use_count'].tolist() == [1]


def test_use_time_check_with_priority_removes_priorities_too():
    buf = DequeBuffer(4)
    per = PriorityExperienceReplay(buf)
    buf.use(per).use(use_time_check(buf, max_use=1))
    buf.push(Batch(x=np.arange(4)))
    buf.sample(indices=[1, 2])
    assert buf.count() == 2 and per.priority.tolist() == [1.0, 0.0, 0.0, 1.0]
    last = buf.sample(2)  # only the two rows with priority left can be drawn
    assert sorted(last.index.tolist()) == [0, 3] and last.meta['priority_IS'].tolist() == [1.0, 1.0]
    assert buf.count() == 0 and per.tree.total == 0.0


def test_clone_object_isolates_objects_both_ways():
    buf = DequeBuffer(4).use(clone_object())
    episode = [{'r': 1}]
    buf.push(episode)
    episode[0]['r'] = 100
    got = buf.sample(indices=[0])
    assert got[0].data == [{'r': 1}]
    got[0].data[0]['r'] = -1
    assert buf.get(0).data == [{'r': 1}]
    plain = DequeBuffer(4)
    plain.push(episode)
    episode[0]['r'] = 5
    assert plain.get(0).data == [{'r': 5}]  # without the middleware the object is shared


def test_clone_object_copies_object_columns_of_batches():
    buf = DequeBuffer(4).use(clone_object())
    infos = np.empty(2, dtype=object)
    infos[:] = [{'a': 1}, {'a': 2}]
    buf.push(Batch(x=np.arange(2), info=infos))
    infos[0]['a'] = 50
    assert buf.get(0).data.info == {'a': 1}


def groups_buffer():
    buf = DequeBuffer(30)
    buf.push(Batch(x=np.arange(18), env_id=np.arange(18) // 6))  # 3 groups of 6 consecutive ids
    return buf


def test_group_sample_ordered_takes_full_consecutive_runs():
    buf = groups_buffer().use(group_sample(size_in_group=4))
    starts = set()
    for _ in range(30):
        groups = buf.sample(2, groupby='env_id')
        for g in groups:
            ids = g.index.tolist()
            assert ids == list(range(ids[0], ids[0] + 4)) and ids[0] // 6 == ids[-1] // 6
            starts.add(ids[0] % 6)
    assert starts == {0, 1, 2}


def test_group_sample_without_max_use_allows_short_tails():
    buf = groups_buffer().use(group_sample(size_in_group=4, max_use_in_group=False))
    lengths = {len(g) for _ in range(40) for g in buf.sample(3, groupby='env_id')}
    assert lengths == {1, 2, 3, 4}


def test_group_sample_unordered_gives_distinct_members():
    buf = groups_buffer().use(group_sample(size_in_group=3, ordered_in_group=False))
    for g in buf.sample(3, groupby='env_id'):
        ids = g.index.tolist()
        assert len(set(ids)) == 3 and len({i // 6 for i in ids}) == 1
    with pytest.raises(ValueError, match='groupby'):
        buf.sample(3)


def test_custom_middleware_sees_every_action_in_order():
    calls = []

    def spy(name):

        def mw(action, chain, *args, **kwargs):
            calls.append((name, action))
            return chain(*args, **kwargs)

        return mw

    buf = DequeBuffer(3).use(spy('a')).use(spy('b'))
    buf.push({'x': 1})
    buf.sample(1)
    buf.update(0, meta={'m': 1})
    buf.delete(0)
    buf.clear()
    assert calls == [(n, act) for act in ('push', 'sample', 'update', 'delete', 'clear') for n in 'ab']
