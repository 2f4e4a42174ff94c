"""TD3/DDPG targets, critic loss and polyak averaging on hand-made tensors."""
import pytest
import torch

from ding.rl_utils.td import critic_loss, soft_update
from ding.rl_utils.td3 import deterministic_actor_loss, smoothed_target_action, td3_q_target


def test_smoothed_target_action_clips_noise_then_action():
    action = torch.tensor([[0.9, -0.2, 0.0]])
    noise = torch.tensor([[0.3, -0.8, 0.1]])
    out = smoothed_target_action(action, 0.2, -0.5, 0.5, noise=noise)
    # 0.9 + 0.3 -> clipped to 1; -0.2 + clip(-0.8) = -0.7; 0 + 0.1
    assert out.tolist()[0] == pytest.approx([1.0, -0.7, 0.1])


def test_smoothed_target_action_noise_bounded():
    torch.manual_seed(0)
    out = smoothed_target_action(torch.zeros(1000, 1), 1.0, -0.5, 0.5)
    assert out.min().item() == pytest.approx(-0.5) and out.max().item() == pytest.approx(0.5)


def test_td3_target_takes_min_over_twin_critics():
    next_q = torch.tensor([[2.0, -1.0], [3.0, -4.0]])
    y = td3_q_target(torch.tensor([0.5, 1.0]), torch.tensor([False, False]), next_q, 0.5)
    assert y.tolist() == pytest.approx([0.5 + 0.5 * 2, 1.0 + 0.5 * -4])


def test_ddpg_target_single_critic_and_terminal():
    y = td3_q_target(torch.tensor([1.0, 2.0]), torch.tensor([True, False]), torch.tensor([[10.0, 10.0]]), 0.9)
    assert y.tolist() == pytest.approx([1.0, 11.0])


def test_critic_loss_sums_critics_and_weights_rows():
    q = torch.tensor([[1.0, 2.0], [0.0, 4.0]])
    target = torch.tensor([2.0, 2.0])
    loss, td = critic_loss(q, target)
    assert loss.item() == pytest.approx((1 + 0) / 2 + (4 + 4) / 2)
    assert td.tolist() == [1.0, 0.0]
    weighted, _ = critic_loss(q, target, weight=torch.tensor([2.0, 0.0]))
    assert weighted.item() == pytest.approx(2 / 2 + 8 / 2)


def test_deterministic_actor_loss():
    assert deterministic_actor_loss(torch.tensor([1.0, 3.0])).item() == -2.0


def test_soft_update_is_polyak_average():
    target = [torch.tensor([0.0, 10.0])]
    soft_update(target, [torch.tensor([1.0, 0.0])], 0.25)
    assert target[0].tolist() == pytest.approx([0.25, 7.5])
