"""SAC math on hand-made tensors: every expected value below is computed by hand."""
import math

import pytest
import torch

from ding.rl_utils.td import nstep_return, td_target
from ding.rl_utils.sac import (alpha_loss, discrete_sac_actor_loss, discrete_soft_q_target, sac_actor_loss,
                               soft_q_target, tanh_gaussian_sample)


def test_soft_q_target_uses_min_of_twin_critics_and_entropy_bonus():
    reward = torch.tensor([1.0, -2.0])
    done = torch.tensor([False, True])
    next_q = torch.tensor([[3.0, 10.0], [5.0, 4.0]])  # [k=2, B=2]: min = [3, 4]
    next_logp = torch.tensor([-1.0, 2.0])
    y = soft_q_target(reward, done, next_q, next_logp, alpha=torch.tensor(0.5), gamma=0.9)
    # row 0: 1 + 0.9 * (3 - 0.5 * -1) = 1 + 0.9 * 3.5 = 4.15 ; row 1 terminated: -2
    assert y.tolist() == pytest.approx([4.15, -2.0])
    assert not y.requires_grad


def test_td_target_nstep_discounts_reward_window_and_bootstrap():
    reward = torch.tensor([[1.0, 2.0, 4.0], [1.0, 0.0, 0.0]])
    nstep = torch.tensor([3, 1])
    ret, discount = nstep_return(reward, 0.5, nstep)
    assert ret.tolist() == pytest.approx([1 + 0.5 * 2 + 0.25 * 4, 1.0])
    assert discount.tolist() == pytest.approx([0.125, 0.5])
    y = td_target(reward, torch.tensor([False, True]), torch.tensor([8.0, 100.0]), 0.5, nstep)
    assert y.tolist() == pytest.approx([3.0 + 0.125 * 8, 1.0])


def test_tanh_gaussian_logp_matches_change_of_variables():
    mu = torch.tensor([[0.3, -1.2]])
    log_sigma = torch.tensor([[-0.5, 0.2]])
    torch.manual_seed(0)
    action, logp = tanh_gaussian_sample(mu, log_sigma)
    u = torch.atanh(action.double())
    normal = torch.distributions.Normal(mu.double(), log_sigma.double().exp())
    expected = (normal.log_prob(u) - torch.log(1 - action.double().pow(2))).sum(-1)
    assert logp.item() == pytest.approx(expected.item(), abs=1e-4)
    assert action.abs().max() < 1


def test_tanh_gaussian_deterministic_is_tanh_mu():
    mu = torch.tensor([[0.0, 1.0]])
    action, logp = tanh_gaussian_sample(mu, torch.zeros(1, 2), deterministic=True)
    assert action.tolist()[0] == pytest.approx([0.0, math.tanh(1.0)])
    # eps = 0: log N = -log(2pi)/2 per dim; log det = log(1 - tanh^2) = [0, log(1 - tanh(1)^2)]
    expected = -math.log(2 * math.pi) - math.log(1 - math.tanh(1.0) ** 2)
    assert logp.item() == pytest.approx(expected, abs=1e-5)


def test_sac_actor_loss_is_mean_alpha_logp_minus_min_q():
    q = torch.tensor([[1.0, 4.0], [2.0, 3.0]])  # min over critics = [1, 3]
    loss = sac_actor_loss(q, torch.tensor([-2.0, 0.0]), torch.tensor(0.5))
    assert loss.item() == pytest.approx(((0.5 * -2 - 1) + (0 - 3)) / 2)


def test_alpha_loss_gradient_raises_alpha_when_entropy_below_target():
    log_alpha = torch.zeros((), requires_grad=True)
    alpha_loss(log_alpha, torch.tensor([-3.0, -1.0]), target_entropy=-1.0).backward()
    assert log_alpha.grad.item() == pytest.approx(-1.0)  # mean(H) - target = -2 + 1; descent raises alpha


def test_discrete_soft_q_target_is_exact_expectation_over_actions():
    logit = torch.log(torch.tensor([[0.25, 0.75]]))
    next_q = torch.tensor([[[2.0, 6.0]], [[4.0, 1.0]]])  # min -> [2, 1]
    y = discrete_soft_q_target(torch.tensor([1.0]), torch.tensor([False]), next_q, logit, torch.tensor(1.0), 0.5)
    v = 0.25 * (2 - math.log(0.25)) + 0.75 * (1 - math.log(0.75))
    assert y.item() == pytest.approx(1 + 0.5 * v, abs=1e-5)


def test_discrete_sac_actor_loss_and_entropy():
    logit = torch.log(torch.tensor([[0.5, 0.5]]))
    q = torch.tensor([[[1.0, 3.0]]])
    loss, entropy = discrete_sac_actor_loss(q, logit, torch.tensor(2.0))
    assert loss.item() == pytest.approx(0.5 * (2 * math.log(0.5) - 1) + 0.5 * (2 * math.log(0.5) - 3), abs=1e-5)
    assert entropy.item() == pytest.approx(math.log(2), abs=1e-6)
