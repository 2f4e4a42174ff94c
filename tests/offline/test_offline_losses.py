"""The offline losses in ding/rl_utils/offline.py against hand-computed values."""
import math

import pytest
import torch

from ding.rl_utils import (awr_actor_loss, bc_continuous_loss, bc_discrete_loss, cql_penalty, discrete_cql_penalty,
                           expectile_loss, tanh_gaussian_log_prob, tanh_gaussian_sample, td3_bc_actor_loss)


def test_bc_losses():
    pred, target = torch.tensor([[0.5], [-0.5]]), torch.tensor([[0.0], [0.5]])
    assert bc_continuous_loss(pred, target, 'l1_loss').item() == pytest.approx(0.75)
    assert bc_continuous_loss(pred, target, 'mse_loss').item() == pytest.approx((0.25 + 1.0) / 2)
    with pytest.raises(ValueError, match='loss_type'):
        bc_continuous_loss(pred, target, 'huber')
    logit = torch.tensor([[2.0, 0.0], [0.0, 0.0]])
    expected = (-torch.log_softmax(logit, -1)[[0, 1], [0, 1]]).mean()
    assert bc_discrete_loss(logit, torch.tensor([0, 1])).item() == pytest.approx(expected.item())


def test_cql_penalty_is_logsumexp_minus_data_q():
    q_data = torch.tensor([[1.0]])  # one critic, one state
    q_random, q_policy = torch.tensor([[[0.0, 2.0]]]), torch.tensor([[[1.0]]])
    logp = torch.tensor([[0.5]])
    log_uniform = math.log(0.5)  # one action dimension
    terms = torch.tensor([0.0 - log_uniform, 2.0 - log_uniform, 1.0 - 0.5])
    expected = torch.logsumexp(terms, 0) - 1.0
    assert cql_penalty(q_data, q_random, q_policy, logp, 1).item() == pytest.approx(expected.item())
    # summed over critics
    two = cql_penalty(q_data.repeat(2, 1), q_random.repeat(2, 1, 1), q_policy.repeat(2, 1, 1), logp, 1)
    assert two.item() == pytest.approx(2 * expected.item())


def test_discrete_cql_penalty_vanishes_when_the_data_action_dominates():
    q = torch.tensor([[100.0, 0.0], [0.0, 0.0]])
    penalty = discrete_cql_penalty(q, torch.tensor([0, 1]))
    assert penalty.item() == pytest.approx((0.0 + math.log(2)) / 2, abs=1e-5)


def test_td3_bc_actor_loss_scales_q_by_alpha_over_mean_abs_q():
    q = torch.tensor([2.0, -4.0], requires_grad=True)
    pred, action = torch.tensor([[0.1], [0.3]]), torch.tensor([[0.0], [0.0]])
    loss = td3_bc_actor_loss(q, pred, action, alpha=2.5)
    assert loss.item() == pytest.approx(-(2.5 / 3.0) * (-1.0) + (0.01 + 0.09) / 2)
    loss.backward()
    assert torch.allclose(q.grad, torch.full((2, ), -(2.5 / 3.0) / 2))  # lambda carries no gradient


def test_expectile_and_awr():
    diff = torch.tensor([1.0, -1.0])
    assert expectile_loss(diff, 0.7).item() == pytest.approx((0.7 + 0.3) / 2)
    assert expectile_loss(diff, 0.5).item() == pytest.approx(0.5)
    logp, adv = torch.tensor([-1.0, -2.0]), torch.tensor([0.0, 10.0])
    loss = awr_actor_loss(logp, adv, beta=1.0, max_weight=5.0)
    assert loss.item() == pytest.approx(-(1.0 * -1.0 + 5.0 * -2.0) / 2)


def test_tanh_gaussian_log_prob_matches_the_sampler():
    torch.manual_seed(0)
    mu, log_sigma = torch.randn(5, 2), torch.randn(5, 2) * 0.3
    action, logp = tanh_gaussian_sample(mu, log_sigma)
    assert torch.allclose(tanh_gaussian_log_prob(mu, log_sigma, action, clip=1.0 - 1e-7), logp, atol=1e-3)
