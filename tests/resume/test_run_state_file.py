"""The run-state file: only the buffer's filled rows, written without the buffer lock, the
previous checkpoint kept and used when the latest one is unreadable."""
import os
import threading

import numpy as np
import pytest
import torch

from ding.data import Batch, DequeBuffer, PriorityExperienceReplay
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import run_state_file
from ding.framework.middleware.run_state import RunStateSaver, RunStateUnreadable, buffer_state, load_buffer_state
from ding.framework.middleware.run_state_file import read_run_state


def transitions(start, n):
    return Batch(obs=np.arange(start, start + n, dtype=np.float32)[:, None].repeat(4, 1),
                 action=np.arange(start, start + n) % 2, reward=np.ones(n, dtype=np.float32),
                 done=np.zeros(n, dtype=bool), info=np.array([{'k': i} for i in range(start, start + n)], dtype=object))


def test_buffer_snapshot_holds_only_the_filled_rows_and_restores_them_in_place():
    buf = DequeBuffer(1000)
    buf.use(PriorityExperienceReplay(buf))
    buf.push(transitions(0, 30), meta={'env': np.arange(30) % 3})
    buf.delete([3, 4])  # holes are skipped
    state = buffer_state(buf)
    rows = state['buffer']
    assert len(rows['live_ids']) == buf.count() == 28
    assert rows['columns']['arrays']['obs'].shape == (28, 4)  # not the 1000-row ring
    assert len(rows['meta']['env']) == 28

    other = DequeBuffer(1000)
    other.use(PriorityExperienceReplay(other))
    load_buffer_state(other, state)
    assert other.count() == 28
    for i in (0, 2, 5, -1):
        a, b = buf.get(i), other.get(i)
        assert a.index == b.index and a.meta == b.meta
        np.testing.assert_array_equal(a.data['obs'], b.data['obs'])
        assert a.data['info'] == b.data['info']
    np.testing.assert_array_equal(buf.sample(10).index, other.sample(10).index)  # same generator state


def test_buffer_snapshot_after_the_ring_wrapped():
    buf = DequeBuffer(8)
    buf.push(transitions(0, 5))
    buf.push(transitions(5, 6))  # ids 3..10 live, the ring has wrapped
    other = DequeBuffer(8)
    load_buffer_state(other, buffer_state(buf))
    assert [other.get(i).index for i in range(8)] == list(range(3, 11))
    assert other.get(0).data['obs'][0] == 3.0
    other.push(transitions(11, 1))  # goes on at the right slot
    assert other.get(-1).index == 11 and other.get(0).index == 4


def test_an_old_full_ring_buffer_state_still_loads():
    buf = DequeBuffer(8)
    buf.push(transitions(0, 5))
    other = DequeBuffer(8)
    other.load_state_dict(buf.state_dict())
    assert other.count() == 5 and other.get(-1).index == 4


class Learner:

    def __init__(self):
        self.version = 0

    def state_dict(self):
        return {'w': torch.full((4, ), float(self.version))}

    def load_state_dict(self, sd):
        self.loaded = sd


def test_the_buffer_lock_is_free_while_the_file_is_written(tmp_path, monkeypatch):
    buf = DequeBuffer(100)
    buf.push(transitions(0, 50))
    seen = []
    write = run_state_file.atomic_torch_save

    def checking_write(obj, path):
        grabbed = []

        def grab():  # another thread, as a collector pushing in async mode
            grabbed.append(buf.lock.acquire(timeout=5))
            if grabbed[0]:
                buf.lock.release()

        t = threading.Thread(target=grab)
        t.start()
        t.join()
        seen.append(grabbed == [True])
        write(obj, path)

    monkeypatch.setattr(run_state_file, 'atomic_torch_save', checking_write)
    saver = RunStateSaver(str(tmp_path), Learner(), buf, every_env_step=1)
    ctx = OnlineRLContext()
    saver.save(ctx)
    assert seen == [True]
    state = torch.load(saver.path, weights_only=False)
    assert isinstance(state['buffer']['buffer']['columns']['arrays']['obs'], np.ndarray)  # tensors on disk only


def save_versions(tmp_path, versions):
    learner = Learner()
    saver = RunStateSaver(str(tmp_path), learner, every_env_step=1)
    ctx = OnlineRLContext()
    for v in versions:
        learner.version = ctx.env_step = v
        saver.save(ctx)
    return saver


def test_the_previous_checkpoint_is_kept(tmp_path):
    saver = save_versions(tmp_path, [1, 2, 3])
    assert sorted(os.listdir(tmp_path / 'ckpt')) == ['run_state.prev.pt', 'run_state.pt']
    assert torch.load(saver.path, weights_only=False)['ctx']['env_step'] == 3
    assert torch.load(tmp_path / 'ckpt' / 'run_state.prev.pt', weights_only=False)['ctx']['env_step'] == 2


CORRUPTIONS = {
    'truncated': lambda data: data[:len(data) // 2],
    'random bytes': lambda data: np.random.default_rng(0).bytes(len(data)),
    'empty': lambda data: b'',
}


@pytest.mark.parametrize('corruption', sorted(CORRUPTIONS))
def test_a_corrupt_latest_falls_back_to_the_previous_with_a_message(tmp_path, caplog, corruption):
    saver = save_versions(tmp_path, [1, 2])
    data = open(saver.path, 'rb').read()
    with open(saver.path, 'wb') as f:
        f.write(CORRUPTIONS[corruption](data))
    learner = Learner()
    resumed = RunStateSaver(str(tmp_path), learner, every_env_step=1, resume=True)
    ctx = OnlineRLContext()
    with caplog.at_level('WARNING', logger='ding.run_state'):
        resumed.restore(ctx)
    assert ctx.env_step == 1 and learner.loaded['w'][0].item() == 1.0
    assert 'resuming from the previous checkpoint' in caplog.text and 'run_state.pt' in caplog.text
    # the next checkpoint replaces the bad latest and keeps the good previous one
    ctx.env_step = 5
    resumed.save(ctx)
    assert torch.load(tmp_path / 'ckpt' / 'run_state.prev.pt', weights_only=False)['ctx']['env_step'] == 1


def test_neither_checkpoint_readable_is_a_clear_error(tmp_path):
    saver = save_versions(tmp_path, [1, 2])
    for path in (saver.path, tmp_path / 'ckpt' / 'run_state.prev.pt'):
        with open(path, 'wb') as f:
            f.write(b'not a checkpoint')
    with pytest.raises(RunStateUnreadable, match='no readable run-state checkpoint.*run_state.pt is not a readable '
                       'checkpoint.*run_state.prev.pt is not a readable checkpoint'):
        read_run_state(saver.path)
    with pytest.raises(RunStateUnreadable, match='empty'):
        open(saver.path, 'wb').close()
        os.unlink(tmp_path / 'ckpt' / 'run_state.prev.pt')
        read_run_state(saver.path)
