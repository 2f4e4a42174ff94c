"""EDACPolicy with QACEnsemble: DI-engine's keys, the ensemble's shapes, and the diversity penalty."""
import numpy as np
import pytest
import torch

from ding.model import EDAC, QACEnsemble
from ding.policy import EDACPolicy
from ding.rl_utils.edac import ensemble_gradient_diversity_loss
from qac_helpers import random_batch

MODEL = dict(obs_shape=3, action_shape=2, ensemble_num=4, actor_head_hidden_size=16, critic_head_hidden_size=16)


def test_defaults_and_model():
    cfg = EDACPolicy.default_config()
    assert (cfg.model.ensemble_num, cfg.learn.eta, cfg.learn.with_q_entropy, cfg.learn.alpha) == (10, 0.1, False, 1)
    assert 'twin_critic' not in cfg.model and 'action_space' not in cfg.model
    from ding.model.template.edac import EDAC as FromTemplate
    assert FromTemplate is EDAC is QACEnsemble
    model = QACEnsemble(**MODEL)
    out = model({'obs': torch.randn(5, 3), 'action': torch.rand(5, 2)}, mode='compute_critic')
    assert out['q_value'].shape == (4, 5)
    with pytest.raises(ValueError, match='ensemble_num >= 2'):
        QACEnsemble(3, 2, ensemble_num=1)


def test_diversity_loss_sums_the_off_diagonal_cosines_of_the_action_gradients():
    action = torch.zeros(2, 3, 1, requires_grad=True)
    aligned = (action * torch.tensor([1.0, 2.0]).view(2, 1, 1)).sum(-1)  # both gradients +x
    assert ensemble_gradient_diversity_loss(aligned, action).item() == pytest.approx(2.0)  # <g1,g2> + <g2,g1>
    opposed = (action * torch.tensor([1.0, -3.0]).view(2, 1, 1)).sum(-1)
    assert ensemble_gradient_diversity_loss(opposed, action).item() == pytest.approx(-2.0)


def test_penalty_reaches_the_critics_and_eta_zero_is_sac_with_an_ensemble():
    torch.manual_seed(0)
    batch = random_batch(32, obs_dim=3, act_dim=2)
    with_penalty = EDACPolicy(dict(model=MODEL, learn=dict(eta=1.0)))
    out = with_penalty.learn_mode.forward(batch)
    assert 'diversity_loss' in out and -4.0 / 3.0 <= out['diversity_loss'] <= 4.0
    torch.manual_seed(0)
    without = EDACPolicy(dict(model=MODEL, learn=dict(eta=0.0)))
    out0 = without.learn_mode.forward(batch)
    assert 'diversity_loss' not in out0
    assert out['critic_loss'] == pytest.approx(out0['critic_loss'] + out['diversity_loss'], rel=1e-5)
    obs = np.zeros((2, 3), np.float32)
    assert np.abs(with_penalty.eval_mode.forward_batch(obs)['action']).max() <= 1


def test_q_entropy_switch_changes_the_target():
    batch = random_batch(32, obs_dim=3, act_dim=2)
    targets = []
    for flag in (False, True):
        torch.manual_seed(0)
        policy = EDACPolicy(dict(model=MODEL, learn=dict(with_q_entropy=flag, eta=0.0)))
        targets.append(policy.learn_mode.forward(batch)['target_q_value'])
    assert targets[0] != pytest.approx(targets[1])
