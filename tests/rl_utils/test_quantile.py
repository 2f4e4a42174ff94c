"""Quantile Huber loss (QR-DQN, IQN, FQF) and FQF's fraction loss against hand-computed cases."""
import pytest
import torch

from ding.rl_utils import fqf_fraction_loss, iqn_nstep_td_error, qrdqn_nstep_td_error, quantile_huber_loss

PRED = torch.tensor([[0.0, 1.0]])  # two quantiles ...
TAU = torch.tensor([0.25, 0.75])  # ... at these fractions


def test_quantile_huber_loss_hand_computed():
    # target 0.5: u = [0.5, -0.5], huber 0.125 each; weights |0.25 - 0| and |0.75 - 1|
    assert quantile_huber_loss(PRED, torch.tensor([[0.5]]), TAU).tolist() == pytest.approx([0.0625])
    # target 2: u = [2, 1]; huber = 1 * (2 - 0.5) = 1.5 and 0.5 * 1 = 0.5; weights 0.25 and 0.75
    assert quantile_huber_loss(PRED, torch.tensor([[2.0]]), TAU).tolist() == pytest.approx([0.75])
    # two targets: the mean over targets, summed over predictions
    both = quantile_huber_loss(PRED, torch.tensor([[0.5, 2.0]]), TAU)
    assert both.tolist() == pytest.approx([(0.0625 + 0.75) / 2])
    # kappa = 2: |u| = 2 is still quadratic, 0.5 * 4 / 2 = 1, weight 0.25; u = 1: 0.25 * 0.75
    assert quantile_huber_loss(PRED, torch.tensor([[2.0]]), TAU, kappa=2.0).tolist() == pytest.approx([0.25 + 0.1875])


def test_quantile_huber_loss_minimiser_is_the_quantile():
    """Gradient descent on one value at tau = 0.25 against targets 0..99 ends near the 25th percentile."""
    theta = torch.zeros(1, 1, requires_grad=True)
    targets = torch.arange(100.0).view(1, 100)
    opt = torch.optim.SGD([theta], lr=5.0)
    for _ in range(400):
        opt.zero_grad()
        quantile_huber_loss(theta, targets, torch.tensor([0.25])).sum().backward()
        opt.step()
    assert 23.0 <= theta.item() <= 26.0


def test_qrdqn_target_uses_next_action_reward_and_done():
    q = torch.tensor([[[9.0, 9.0], [0.0, 1.0]]])  # [B=1, A=2, N=2]; action 1 -> PRED
    next_q = torch.tensor([[[2.0, 4.0], [0.0, 0.0]]])  # next action 0 -> [2, 4]
    out = qrdqn_nstep_td_error(q, next_q, torch.tensor([1]), torch.tensor([0]), torch.tensor([1.0]),
                               torch.tensor([0.0]), 0.25, TAU)
    # targets 1 + 0.25 * [2, 4] = [1.5, 2]
    assert out.target_q.tolist() == pytest.approx([1.75])
    expected = quantile_huber_loss(PRED, torch.tensor([[1.5, 2.0]]), TAU)
    assert out.loss.item() == pytest.approx(expected.item())
    assert out.td_error_per_sample.tolist() == pytest.approx(expected.tolist())
    done = qrdqn_nstep_td_error(q, next_q, torch.tensor([1]), torch.tensor([0]), torch.tensor([1.0]),
                                torch.tensor([1.0]), 0.25, TAU, weight=torch.tensor([3.0]))
    assert done.target_q.tolist() == [1.0]
    assert done.loss.item() == pytest.approx(3 * quantile_huber_loss(PRED, torch.tensor([[1.0]]), TAU).item())


def test_iqn_takes_batch_major_quantiles_with_per_sample_fractions():
    q = torch.tensor([[[9.0, 0.0], [9.0, 1.0]]])  # [B=1, N=2, A=2]; action 1 -> PRED
    next_q = torch.tensor([[[2.0, 0.0], [4.0, 0.0], [6.0, 0.0]]])  # [B=1, M=3, A=2]; next action 0
    reward = torch.tensor([[1.0, 1.0]])  # 2-step window, gamma 0.5: R = 1.5, discount 0.25
    out = iqn_nstep_td_error(q, next_q, torch.tensor([1]), torch.tensor([0]), reward, torch.tensor([0.0]), 0.5,
                             TAU.view(1, 2), nstep=torch.tensor([2]))
    expected = quantile_huber_loss(PRED, torch.tensor([[2.0, 2.5, 3.0]]), TAU)
    assert out.loss.item() == pytest.approx(expected.item())


def test_fqf_fraction_loss_gradient_is_the_w1_gradient():
    # N = 2 fractions: tau = [0, tau_1, 1]; values at the midpoints 1 and 3, at tau_1 2.5:
    # dW1/dtau_1 = 2 * 2.5 - 1 - 3 = 1
    tau = torch.tensor([[0.0, 0.4, 1.0]], requires_grad=True)
    q_hat = torch.tensor([[[9.0, 1.0], [9.0, 3.0]]])  # [B=1, N=2, A=2]; action 1
    q_tau_i = torch.tensor([[[9.0, 2.5]]])  # [B=1, N-1=1, A=2]
    loss = fqf_fraction_loss(q_tau_i, q_hat, tau, torch.tensor([1]))
    assert loss.item() == pytest.approx(0.4)
    loss.backward()
    assert tau.grad.tolist() == [[0.0, 1.0, 0.0]]
    # F^-1(tau_1) halfway between its neighbouring midpoints: the fraction is where W1 wants it
    assert fqf_fraction_loss(torch.tensor([[[9.0, 2.0]]]), q_hat, tau, torch.tensor([1])).item() == 0.0
