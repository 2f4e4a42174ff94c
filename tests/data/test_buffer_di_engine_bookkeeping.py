"""DI-engine's buffer surface beyond push/sample on our columnar DequeBuffer: updating an item
with a new field, unknown indices, sample arguments passed positionally through middleware,
the `indices` / `meta_index` views, and staleness_check's error class."""
import numpy as np
import pytest

from ding.data import DequeBuffer
from ding.data.buffer.middleware import sample_range_view, staleness_check
from ding.data.buffer.sampling import sample_arguments


def transition(i):
    return {'obs': np.full(2, i, dtype=np.float32), 'reward': float(i)}


def test_update_with_a_field_the_item_was_not_pushed_with():
    buf = DequeBuffer(8)
    for i in range(3):
        buf.push(transition(i), {'tag': i})
    item = buf.get(1)
    new = dict(item.data, note='kept')
    assert buf.update(item.index, new, item.meta) is True
    assert buf.get(1).data['note'] == 'kept' and buf.get(1).meta == {'tag': 1}
    assert 'note' not in buf.get(0).data and buf.get(0).data['reward'] == 0.0  # the others are unchanged
    assert buf.update('no-such-index', {}, None) is False  # DI-engine's ids are strings; ours never are
    with pytest.raises(KeyError, match='integers'):
        buf.sample(indices=['no-such-index'])


def test_middleware_may_pass_size_and_replace_positionally():
    seen = []

    def add_10(action, chain, *args, **kwargs):  # DI-engine's style: chain(size, replace)
        if action != 'sample':
            return chain(*args, **kwargs)
        seen.append((args, kwargs))
        size, replace = args[0], kwargs.get('replace', False)
        return [item.data + 10 for item in chain(size, replace)]

    buf = DequeBuffer(10)
    for i in range(6):
        buf.push(i)
    view = buf.view().use(add_10)
    got = view.sample(5)
    assert len(got) == 5 and len(set(got)) == 5 and all(10 <= x < 16 for x in got)  # a random draw, not id False
    assert seen == [((5, ), {})]  # the call reaches middleware as the caller made it


def test_sample_range_view_and_positional_arguments():
    buf = DequeBuffer(10)
    for i in range(10):
        buf.push(i)
    recent = buf.view().use(sample_range_view(buf, start=-3))
    assert sorted(item.data for item in recent.sample(3, None, False)) == [7, 8, 9]
    assert sample_arguments((4, None, True), {'groupby': 'env'}) == dict(size=4, indices=None, replace=True,
                                                                         groupby='env')
    with pytest.raises(TypeError, match='both by position and by name'):
        sample_arguments((4, ), {'size': 4})


def test_indices_give_each_items_position_in_storage():
    buf = DequeBuffer(6)
    for i in range(8):  # ids 2..7 survive
        buf.push(i)
    buf.delete([3, 5])
    storage = buf.storage
    assert len(buf.indices) == len(storage) == 4
    assert [buf.indices.get(item.index) for item in storage] == [0, 1, 2, 3]
    assert buf.indices.has(4) and not buf.indices.has(3) and 'x' not in buf.indices
    with pytest.raises(KeyError):
        buf.indices.get(0)


def test_meta_index_lists_each_meta_key_item_by_item():
    buf = DequeBuffer(4)
    buf.meta_index = {'label': [], 'never': []}  # DI-engine's way to ask for an index by key
    for i in range(6):
        buf.push(i, meta={'label': i} if i != 4 else None)
    assert buf.meta_index == {'label': [2, 3, None, 5], 'never': [None] * 4}
    with pytest.raises(ValueError, match='derived from the stored metas'):
        buf.meta_index = {'label': [1]}


def test_staleness_check_push_without_meta_is_both_value_and_assertion_error():
    buf = DequeBuffer(4).use(staleness_check(DequeBuffer(4)))
    for error in (ValueError, AssertionError):  # ding's bad-input class, DI-engine's assert
        with pytest.raises(error, match='train_iter_data_collected'):
            buf.push(1)


def test_per_sample_meta_names_each_rows_place_in_the_sum_tree():
    from ding.data.buffer.middleware import PriorityExperienceReplay
    buf = DequeBuffer(4)
    buf.use(PriorityExperienceReplay(buf, IS_weight=True))
    for i in range(6):  # ids 2..5 survive in slots 2, 3, 0, 1
        buf.push(transition(i), {'priority': 1.0 + i})
    sampled = buf.sample(4)
    assert sorted(sampled.meta) == ['priority', 'priority_IS', 'priority_idx']
    assert sampled.meta['priority_idx'].tolist() == (sampled.index % 4).tolist()
    assert sampled.meta['priority'].tolist() == [1.0 + i for i in sampled.index.tolist()]
