"""DI-engine's buffer semantics on our columnar DequeBuffer: mixed objects, new keys on sampled
rows, an empty sample when short, deepcopy, views, use as a torch Dataset, and data_pusher
pushing each item of ctx.trajectories whatever its type."""
import copy

import numpy as np
import torch
from easydict import EasyDict

from ding.data import DequeBuffer
from ding.data.batch import Batch
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import data_pusher, offpolicy_data_fetcher


def transition(i):
    return {'obs': np.full(3, i, dtype=np.float32), 'reward': float(i)}


def test_mixed_objects_switch_to_whole_items_keeping_ids_and_rows():
    buf = DequeBuffer(10)
    for i in range(3):
        buf.push(transition(i), {'tag': i})
    buf.push('a string')  # not a transition: from now on every item is stored as an object
    buf.push(transition(4))
    buf.push({'other': 1})
    assert buf.count() == 6
    assert [buf.get(i).index for i in range(6)] == [0, 1, 2, 3, 4, 5]
    first = buf.get(0)
    assert first.data['reward'] == 0.0 and np.array_equal(first.data['obs'], np.zeros(3)) and first.meta == {'tag': 0}
    assert buf.get(3).data == 'a string' and buf.get(5).data == {'other': 1}
    sampled = buf.sample(6)
    assert sorted(map(repr, (d.data for d in sampled if isinstance(d.data, str)))) == ["'a string'"]


def test_batch_with_other_fields_goes_in_item_by_item():
    buf = DequeBuffer(10)
    buf.push(Batch(obs=np.zeros((2, 3), dtype=np.float32), reward=np.zeros(2, dtype=np.float32)))
    buf.push(Batch(obs=np.ones((2, 3), dtype=np.float32), value=np.ones(2, dtype=np.float32)))
    assert buf.count() == 4 and sorted(buf.get(3).data) == ['obs', 'value']


def test_uniform_transitions_stay_columnar():
    buf = DequeBuffer(10)
    for i in range(4):
        buf.push(transition(i))
    sampled = buf.sample(4)
    assert not sampled.whole_items and sampled.batch.obs.shape == (4, 3)


def test_sampled_rows_take_new_keys():
    buf = DequeBuffer(10)
    for i in range(4):
        buf.push(transition(i))
    for d in buf.sample(2):
        d.data['priority'] = 1.5
        d.data.new_field = 'x'
        assert d.data['priority'] == 1.5 and d.data.new_field == 'x' and 'new_field' in set(d.data)


def test_insufficient_with_ignore_gives_an_empty_sample():
    buf = DequeBuffer(10)
    buf.push(transition(0))
    assert len(buf.sample(2, ignore_insufficient=True)) == 0
    assert len(buf.sample(1, ignore_insufficient=True)) == 1


def test_deepcopy_is_independent_and_keeps_middleware():
    buf = DequeBuffer(10)
    seen = []
    buf.use(lambda action, chain, *a, **kw: seen.append(action) or chain(*a, **kw))
    for i in range(3):
        buf.push(transition(i))
    clone = copy.deepcopy(buf)
    clone.push(transition(9))
    assert buf.count() == 3 and clone.count() == 4 and clone.lock is not buf.lock
    assert seen.count('push') == 4  # the middleware list was copied along (same function)


def test_view_shares_storage_but_not_middleware():
    buf = DequeBuffer(10)
    view = buf.view()
    seen = []
    view.use(lambda action, chain, *a, **kw: seen.append(action) or chain(*a, **kw))
    buf.push(transition(0))
    view.push(transition(1))
    assert buf.count() == view.count() == 2 and seen == ['push']
    assert len(view.sample(2)) == 2 and seen == ['push', 'sample']
    assert copy.copy(buf).count() == 2  # DI-engine: a shallow copy is a view


def test_buffer_is_a_torch_dataset():
    buf = DequeBuffer(10)
    for i in range(5):
        buf.push(transition(i))
    assert len(buf) == 5 and buf[4].data['reward'] == 4.0
    loader = torch.utils.data.DataLoader(buf, batch_size=5, collate_fn=lambda items: [d.data['reward'] for d in items])
    assert sorted(next(iter(loader))) == [0.0, 1.0, 2.0, 3.0, 4.0]


def test_data_pusher_pushes_each_item_whatever_its_type():
    cfg = EasyDict(policy=dict(learn=dict(batch_size=2)))
    buf = DequeBuffer(10)
    ctx = OnlineRLContext()
    ctx.trajectories = [('a', 1), ('b', 2), ('c', 3)]  # tuples: each one item
    data_pusher(cfg, buf)(ctx)
    assert buf.count() == 3 and buf.get(0).data == ('a', 1) and ctx.trajectories is None
    gen = offpolicy_data_fetcher(cfg, buf)(ctx)
    next(gen)
    assert isinstance(ctx.train_data, list) and len(ctx.train_data) == 2 and isinstance(ctx.train_data[0], tuple)


def test_data_pusher_groups_di_engine_transitions_by_episode_id():
    cfg = EasyDict(policy=dict(learn=dict(batch_size=2)))
    buf = DequeBuffer(10)
    ctx = OnlineRLContext()
    ctx.trajectories = [EasyDict(obs=torch.zeros(2), env_data_id=torch.tensor([i % 2])) for i in range(4)]
    data_pusher(cfg, buf, group_by_env=True)(ctx)
    assert buf.count() == 4 and [buf.get(i).meta['env'] for i in range(4)] == [0, 1, 0, 1]


def test_sample_range_view_on_a_view_samples_only_recent_items():
    from ding.data.buffer.middleware import sample_range_view
    buf = DequeBuffer(10)
    for i in range(10):
        buf.push(transition(i))
    recent = buf.view().use(sample_range_view(buf, start=-3))
    assert sorted(recent.sample(3).index.tolist()) == [7, 8, 9]
    assert len(buf.sample(10)) == 10  # the buffer itself is unrestricted


def test_staleness_check_marks_and_drops_stale_items():
    import pytest
    from ding.data.buffer.middleware import staleness_check
    buf = DequeBuffer(10)
    buf.use(staleness_check(buf, max_staleness=5))
    for it in (0, 3, 8):
        buf.push(transition(it), {'train_iter_data_collected': it})
    with pytest.raises(ValueError, match='train_iter_data_collected'):
        buf.push(transition(9))
    sampled = buf.sample(1, train_iter_sample_data=10)  # the items of iterations 0 and 3 are staler than 5
    assert buf.count() == 1 and sampled[0].meta['staleness'] == 2
    assert [buf.get(i).meta['train_iter_data_collected'] for i in range(buf.count())] == [8]
    assert buf.get(0).meta['staleness'] == 2


def test_padding_fills_groups_to_the_longest():
    from ding.data.buffer.middleware import padding
    for policy in ('random', 'none'):
        buf = DequeBuffer(20)
        buf.use(padding(policy))
        for env, n in ((0, 4), (1, 2)):
            for t in range(n):
                buf.push(transition(t), {'env': env})
        groups = buf.sample(2, groupby='env')
        assert [len(g) for g in groups] == [4, 4]
        short = [g for g in groups if g[0].meta['env'] == 1][0]
        if policy == 'none':
            assert [d.data for d in short[2:]] == [None, None]
        else:
            assert all(d.meta['env'] == 1 for d in short) and {d.index for d in short} == {4, 5}


def test_sliced_windows_start_at_multiples_of_unroll_len():
    buf = DequeBuffer(50, sliced=True)
    for t in range(10):
        buf.push(transition(t), {'env': 0})
    starts = {int(buf.sample(1, groupby='env', unroll_len=3)[0].batch.reward[0]) for _ in range(60)}
    assert starts == {0, 3, 6, 7}  # windows 0-2, 3-5, 6-8, and the last full one 7-9 for the tail
