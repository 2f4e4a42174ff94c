import logging

import pytest
import torch

from ding.policy import DQNPolicy
from ding.policy import policy as base_policy

CFG = dict(model=dict(obs_shape=4, action_shape=2, encoder_hidden_size_list=[8, 8]))


@pytest.mark.skipif(torch.cuda.is_available(), reason='this machine has CUDA: the policy would use it')
def test_cuda_asked_without_a_device_runs_on_cpu_and_says_so_once(monkeypatch, caplog):
    monkeypatch.setattr(base_policy, '_warned_no_cuda', False)
    with caplog.at_level(logging.WARNING, logger='ding.policy'):
        policies = [DQNPolicy(dict(CFG, cuda=True)) for _ in range(2)]
    assert all(p._device.type == 'cpu' for p in policies)
    assert all(next(p._model.parameters()).device.type == 'cpu' for p in policies)
    warnings = [r.getMessage() for r in caplog.records if 'cuda' in r.getMessage().lower()]
    assert warnings == ['policy.cuda=True but torch finds no CUDA device: the policy runs on the CPU']


def test_cuda_false_is_quiet(monkeypatch, caplog):
    monkeypatch.setattr(base_policy, '_warned_no_cuda', False)
    with caplog.at_level(logging.WARNING, logger='ding.policy'):
        policy = DQNPolicy(dict(CFG, cuda=False))
    assert policy._device == torch.device('cpu')
    assert not [r for r in caplog.records if 'cuda' in r.getMessage().lower()]
