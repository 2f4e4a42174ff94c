"""benchmarks/learning/edac_reference.py, the stand-alone EDAC that `edac.py` is checked against: its pieces
agree with ours on the same inputs, and it trains and evaluates on a D4RL-layout file."""
import json

import h5py
import numpy as np
import pytest
import torch

from benchmarks.learning import edac_reference
from ding.rl_utils.edac import ensemble_gradient_diversity_loss
from ding.rl_utils.sac import tanh_gaussian_sample


def test_its_diversity_penalty_and_tanh_gaussian_agree_with_ours():
    torch.manual_seed(0)
    w = torch.randn(5, 3, 1)
    a_k = torch.randn(5, 7, 3, requires_grad=True)
    q = (torch.tanh(a_k) @ w).squeeze(-1) + (a_k ** 2).sum(-1)  # [5, 7], each member its own function
    ref = edac_reference.diversity_penalty(q, a_k)
    ours = ensemble_gradient_diversity_loss(q, a_k)
    assert ref.item() == pytest.approx(ours.item(), rel=1e-5)
    mu, log_sigma = torch.randn(7, 3), torch.randn(7, 3).clamp(-2, 1)
    torch.manual_seed(1)
    a_ref, logp_ref = edac_reference.sample(mu, log_sigma)
    torch.manual_seed(1)
    a_ours, logp_ours = tanh_gaussian_sample(mu, log_sigma)
    assert torch.allclose(a_ref, a_ours) and torch.allclose(logp_ref, logp_ours, atol=1e-5)


def test_it_trains_and_writes_its_evaluation_curve(tmp_path):
    pytest.importorskip('mujoco')
    rng = np.random.default_rng(0)
    n = 300
    path = tmp_path / 'data.hdf5'
    with h5py.File(path, 'w') as f:
        f['observations'] = rng.normal(size=(n, 17)).astype(np.float32)
        f['next_observations'] = rng.normal(size=(n, 17)).astype(np.float32)
        f['actions'] = rng.uniform(-1, 1, (n, 6)).astype(np.float32)
        f['rewards'] = rng.normal(size=n).astype(np.float32)
        f['terminals'] = np.zeros(n, np.float32)
    out = tmp_path / 'ref.json'
    edac_reference.main(['--dataset', str(path), '--seconds', '0', '--eval-every', '3', '--episodes', '1',
                         '--critics', '3', '--layers', '1', '--device', 'cpu', '--out', str(out)])
    result = json.loads(out.read_text())
    assert result['updates'] == 3 and len(result['curve']) == 1
    updates, ret, q = result['curve'][0]
    assert updates == 3 and np.isfinite(ret) and np.isfinite(q)
