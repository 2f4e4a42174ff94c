"""PPO, A2C and PG losses and advantage normalisation against hand-computed values."""
import math

import pytest
import torch

from ding.rl_utils import a2c_loss, normalize_advantage, pg_loss, ppo_loss, ppo_policy_loss, ppo_value_loss


def test_ppo_policy_loss_clips_only_the_optimistic_side():
    logp_old = torch.zeros(4)
    logp_new = torch.log(torch.tensor([1.5, 1.5, 0.5, 1.1]))
    adv = torch.tensor([1., -1., 1., 2.])
    out = ppo_policy_loss(logp_new, logp_old, adv, clip_ratio=0.2)
    # min(r*A, clip(r)*A): 1.2, -1.5, 0.5, 2.2 -> mean 0.6
    assert out.loss.item() == pytest.approx(-0.6)
    assert out.clip_fraction.item() == pytest.approx(0.75)
    assert out.approx_kl.item() == pytest.approx(-(2 * math.log(1.5) + math.log(0.5) + math.log(1.1)) / 4)


def test_ppo_value_loss_with_and_without_clip():
    value_old, value_new, ret = torch.zeros(2), torch.tensor([1., 0.1]), torch.ones(2)
    # clipped values 0.2, 0.1 -> errors max(0, 0.64), max(0.81, 0.81)
    assert ppo_value_loss(value_new, value_old, ret, clip_ratio=0.2).item() == pytest.approx(0.5 * 1.45 / 2)
    assert ppo_value_loss(value_new, value_old, ret, clip_ratio=None).item() == pytest.approx(0.5 * 0.81 / 2)


def test_ppo_loss_total_combines_terms_and_gradients_flow():
    logp_new = torch.zeros(2, requires_grad=True)
    value_new = torch.tensor([1., 0.1], requires_grad=True)
    out = ppo_loss(logp_new, torch.zeros(2), torch.tensor([1., 2.]), value_new, torch.zeros(2), torch.ones(2),
                   entropy=torch.tensor([0.5, 0.7]), value_clip=False, value_weight=0.5, entropy_weight=0.1)
    # policy -1.5, value 0.2025, entropy 0.6
    assert out['total_loss'].item() == pytest.approx(-1.5 + 0.5 * 0.2025 - 0.1 * 0.6)
    out['total_loss'].backward()
    assert logp_new.grad.tolist() == pytest.approx([-0.5, -1.0])


def test_a2c_loss():
    logp = torch.tensor([-1., -2.], requires_grad=True)
    out = a2c_loss(logp, torch.tensor([1., 2.]), torch.tensor([0., 1.]), torch.ones(2), torch.tensor([0.5, 0.7]),
                   value_weight=0.5, entropy_weight=0.01)
    assert out['policy_loss'].item() == pytest.approx(2.5)
    assert out['value_loss'].item() == pytest.approx(0.25)
    assert out['total_loss'].item() == pytest.approx(2.5 + 0.125 - 0.006)


def test_pg_loss():
    out = pg_loss(torch.tensor([-1., -2.]), torch.tensor([1., 2.]), torch.tensor([0.5, 0.7]), entropy_weight=0.01)
    assert out['policy_loss'].item() == pytest.approx(2.5)
    assert out['total_loss'].item() == pytest.approx(2.494)


def test_normalize_advantage():
    assert normalize_advantage(torch.tensor([1., 2., 3.])).tolist() == pytest.approx([-1., 0., 1.])
    assert normalize_advantage(torch.tensor([5.])).tolist() == [0.]
