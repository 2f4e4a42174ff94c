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


def _denormal_survives() -> bool:
    return (torch.tensor([1e-40]) * 1.0).item() != 0.0


@pytest.mark.skipif(not torch.set_flush_denormal(False), reason='this CPU cannot flush denormals (not x86 with SSE3)')
def test_a_policy_that_learns_on_the_cpu_flushes_denormals_and_an_acting_one_does_not():
    torch.set_flush_denormal(False)  # as a fresh process starts (earlier tests made learning policies)
    try:
        DQNPolicy(CFG, enable_field=['collect', 'eval'])
        assert _denormal_survives()  # no learner in this process: the floats are left alone
        DQNPolicy(CFG)
        assert not _denormal_survives()  # Adam's decaying moments would be denormal (ding/policy/policy.py: flush_denormals)
    finally:
        torch.set_flush_denormal(False)
