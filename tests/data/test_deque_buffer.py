"""DequeBuffer storage: ring order, overwrite, per-row and Batch pushes, update/delete/clear."""
import numpy as np
import pytest
import torch

from ding.data import Batch, DequeBuffer


def transitions(start, n):
    """n CartPole-like transitions whose reward equals their push number."""
    r = np.arange(start, start + n)
    return Batch(
        obs=np.repeat(r[:, None], 4, axis=1).astype(np.float32),
        action=r % 2,
        reward=r.astype(np.float32),
        done=r % 5 == 4,
        env_id=r % 3,
    )


def rewards_in_order(buf):
    return [float(buf.get(i).data.reward) for i in range(buf.count())]


def test_ring_overwrites_oldest_first_with_batch_pushes():
    buf = DequeBuffer(5)
    ids = buf.push(transitions(0, 3)).index
    assert ids.tolist() == [0, 1, 2]
    buf.push(transitions(3, 4))  # wraps round the end of the ring
    assert buf.count() == 5
    assert rewards_in_order(buf) == [2.0, 3.0, 4.0, 5.0, 6.0]
    assert buf.get(-1).index == 6 and buf.get(0).index == 2


def test_batch_larger_than_buffer_keeps_newest_rows():
    buf = DequeBuffer(4)
    pushed = buf.push(transitions(0, 10))
    assert pushed.index.tolist() == [6, 7, 8, 9]
    assert rewards_in_order(buf) == [6.0, 7.0, 8.0, 9.0]


def test_dict_push_stores_columns_with_compact_dtypes():
    buf = DequeBuffer(3)
    for i in range(4):
        item = buf.push({'obs': np.full(2, i, np.float32), 'reward': float(i), 'done': i == 3, 'info': {'k': [i]}})
    assert item.index == 3
    got = buf.sample(indices=[1, 3]).batch
    assert got.obs.tolist() == [[1.0, 1.0], [3.0, 3.0]]
    assert got.reward.dtype == np.float32 and got.reward.tolist() == [1.0, 3.0]
    assert got.done.tolist() == [False, True]
    assert list(got.info.k) == [[1], [3]]  # a list value goes to an object column, kept as is


def test_torch_columns_come_back_as_tensors():
    buf = DequeBuffer(4)
    buf.push({'obs': torch.tensor([1.0, 2.0]), 'action': torch.tensor(1)})
    buf.push(Batch(obs=torch.tensor([[3.0, 4.0]]), action=torch.tensor([0])))
    got = buf.sample(indices=[0, 1]).batch
    assert isinstance(got.obs, torch.Tensor) and got.obs.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert got.action.tolist() == [1, 0]


def test_whole_items_are_stored_as_objects():
    buf = DequeBuffer(2)
    episodes = [[{'r': 1}], [{'r': 2}, {'r': 3}], [{'r': 4}]]
    for ep in episodes:
        buf.push(ep, meta={'len': len(ep)})
    assert [buf.get(i).data for i in range(2)] == episodes[1:]
    assert buf.get(0).meta == {'len': 2}
    buf.push(Batch(r=np.zeros(2)))  # into a buffer of objects, each row is one object
    assert [buf.get(i).data for i in range(2)] == [{'r': 0.0}, {'r': 0.0}]


def test_an_item_off_the_layout_turns_the_buffer_to_objects():
    buf = DequeBuffer(3)
    buf.push({'obs': 1.0, 'reward': 0.0})
    buf.push({'obs': 2.0})  # as DI-engine's buffer: any object; the rows so far become dicts
    buf.push([1, 2, 3])
    assert [buf.get(i).data for i in range(3)] == [{'obs': 1.0, 'reward': 0.0}, {'obs': 2.0}, [1, 2, 3]]


def test_update_data_and_meta_by_scalar_and_array_ids():
    buf = DequeBuffer(4)
    buf.push(transitions(0, 4))
    assert buf.update(2, data={**buf.get(2).data.to_dict(), 'reward': np.float32(20)}) is True
    found = buf.update(np.array([1, 3, 99]), data=transitions(10, 3), meta={'tag': np.array([5, 6, 7])})
    assert found.tolist() == [True, True, False]
    assert rewards_in_order(buf) == [0.0, 10.0, 20.0, 11.0]
    assert buf.get(1).meta == {'tag': 5} and buf.get(3).meta == {'tag': 6} and buf.get(0).meta == {}
    assert buf.update(42, meta={'x': 1}) is False


def test_delete_leaves_a_hole_that_sampling_skips():
    buf = DequeBuffer(5)
    buf.push(transitions(0, 5))
    buf.delete([1, 3])
    buf.delete(3)  # already gone: ignored
    assert buf.count() == 3
    assert rewards_in_order(buf) == [0.0, 2.0, 4.0]
    drawn = buf.sample(3)
    assert sorted(drawn.index.tolist()) == [0, 2, 4]
    buf.push(transitions(5, 1))  # overwrites slot 0 (id 0, the oldest)
    assert rewards_in_order(buf) == [2.0, 4.0, 5.0]
    with pytest.raises(KeyError, match=r'\[1\]'):
        buf.sample(indices=[1])


def test_clear_empties_and_allows_a_new_layout():
    buf = DequeBuffer(3)
    buf.push(transitions(0, 3))
    buf.clear()
    assert buf.count() == 0
    with pytest.raises(ValueError, match='from 0'):
        buf.sample(1)
    item = buf.push({'x': 1})
    assert item.index == 3 and buf.count() == 1 and buf.get(0).data.x == 1


def test_default_config_and_registry():
    from ding.utils import BUFFER_REGISTRY
    assert BUFFER_REGISTRY.lookup('deque') is DequeBuffer
    cfg = DequeBuffer.default_config()
    assert cfg.type == 'deque' and cfg.replay_buffer_size == 10000
    with pytest.raises(ValueError, match='positive integer'):
        DequeBuffer(0)


def test_nested_columns_for_dict_observations():
    buf = DequeBuffer(4)
    buf.push(Batch(obs=Batch(pos=np.zeros((2, 3), np.float32), img=np.ones((2, 2, 2), np.uint8)), reward=np.ones(2)))
    buf.push({'obs': {'pos': np.full(3, 7, np.float32), 'img': np.zeros((2, 2), np.uint8)}, 'reward': 2.0})
    got = buf.sample(indices=[2, 0]).batch
    assert got.obs.pos.tolist() == [[7.0] * 3, [0.0] * 3] and got.obs.img.dtype == np.uint8
    assert got.obs.img[1].sum() == 4 and got.reward.tolist() == [2.0, 1.0]


def test_concurrent_push_and_sample_lose_no_rows():
    import threading
    buf = DequeBuffer(100000)
    buf.push(transitions(0, 64))
    errors = []

    def pusher():
        for i in range(300):
            buf.push(transitions(64 + 8 * i, 8))

    def sampler():
        try:
            for _ in range(300):
                s = buf.sample(32)
                assert s.batch.reward.tolist() == s.index.astype(np.float32).tolist()
        except Exception as err:  # reported below
            errors.append(err)

    threads = [threading.Thread(target=pusher), threading.Thread(target=sampler)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and buf.count() == 64 + 2400
    assert buf.sample(indices=np.arange(2464)).batch.reward.tolist() == list(range(2464))


def test_batch_wrap_adopts_columns_without_copy():
    col = np.arange(3)
    b = Batch.wrap({'x': col})
    assert b.x is col and len(b) == 3 and b[1].x == 1


def test_failed_push_leaves_no_id_on_mixed_data():
    buf = DequeBuffer(3)
    buf.push(transitions(0, 3))
    bad = transitions(3, 2)
    bad['obs'] = np.zeros((2, 5), np.float32)  # wrong row shape: fails while writing
    with pytest.raises(ValueError):
        buf.push(bad)
    assert buf.count() == 1 and rewards_in_order(buf) == [2.0]  # rows 0 and 1 were in the way
    assert buf.push(transitions(3, 1)).index.tolist() == [3]
    scalars = DequeBuffer(2)  # one dict of another shape is an object, not a failed row
    scalars.push({'a': 1.0})
    scalars.push({'a': np.zeros(3)})
    assert scalars.count() == 2 and scalars.get(1).data['a'].shape == (3, )
