"""CkptSaver saves the untrained policy as iteration_0.pth.tar, once, as DI-engine's does (T-REX's
trex_collecting_data reads iteration_0 as its worst demonstrator)."""
import os

import pytest
import torch

from ding.framework.context import OnlineRLContext
from ding.framework.middleware import CkptSaver

from .conftest import MockLearnPolicy, drive


def test_iteration_0_is_saved_once_then_every_train_freq(tmp_path, fake_task):
    policy = MockLearnPolicy()
    saver = CkptSaver(policy, str(tmp_path), train_freq=100)
    drive(saver, OnlineRLContext(train_iter=0))
    policy.batches.append(None)  # the state changes: a second call at train_iter 0 must not rewrite the file
    drive(saver, OnlineRLContext(train_iter=0))
    drive(saver, OnlineRLContext(train_iter=60))
    drive(saver, OnlineRLContext(train_iter=100))
    assert sorted(os.listdir(tmp_path / 'ckpt')) == ['iteration_0.pth.tar', 'iteration_100.pth.tar']
    assert torch.load(tmp_path / 'ckpt' / 'iteration_0.pth.tar') == {'updates': 0}
    drive(CkptSaver(policy, str(tmp_path / 'no_freq')), OnlineRLContext(train_iter=0))
    assert not (tmp_path / 'no_freq' / 'ckpt').exists()  # without train_freq no iteration files at all


def test_keep_last_removes_all_but_the_newest_iteration_files(tmp_path, fake_task):
    policy = MockLearnPolicy()
    (tmp_path / 'ckpt').mkdir()
    torch.save({}, tmp_path / 'ckpt' / 'iteration_50.pth.tar')  # an earlier sitting's, older than every new one
    torch.save({}, tmp_path / 'ckpt' / 'eval.pth.tar')
    saver = CkptSaver(policy, str(tmp_path), train_freq=100, keep_last=2)
    for it in (0, 100, 200, 1000):
        drive(saver, OnlineRLContext(train_iter=it))
    # by train iteration, not by name: iteration_1000 sorts before iteration_200 as a string
    assert sorted(os.listdir(tmp_path / 'ckpt')) == ['eval.pth.tar', 'iteration_1000.pth.tar',
                                                     'iteration_200.pth.tar']


def test_keep_last_must_be_a_positive_int(tmp_path):
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match='keep_last'):
            CkptSaver(MockLearnPolicy(), str(tmp_path), train_freq=100, keep_last=bad)
