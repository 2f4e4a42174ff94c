"""C51's categorical projection and cross-entropy, against hand-computed small cases.

Support z = [-1, 0, 1] (v_min=-1, v_max=1, 3 atoms, spacing 1); next-state distribution
p' = [0.2, 0.3, 0.5]."""
import math

import pytest
import torch

from ding.rl_utils import categorical_projection, dist_nstep_td_error

SUPPORT = torch.tensor([-1.0, 0.0, 1.0])
NEXT = torch.tensor([[0.2, 0.3, 0.5]])


def _project(reward, done, gamma=0.5, nstep=None):
    return categorical_projection(NEXT, torch.tensor(reward), torch.tensor(done), gamma, SUPPORT, nstep)


def test_projection_splits_mass_between_neighbouring_atoms():
    # Tz = 0.5 + 0.5 z = [0, 0.5, 1]: atom 0 lands on z=0, atom 1 halfway between 0 and 1, atom 2 on z=1
    assert _project([0.5], [0.0])[0].tolist() == pytest.approx([0.0, 0.35, 0.65])


def test_projection_of_a_terminal_transition_is_the_reward_alone():
    # done: Tz = 0.5 for every atom -> half on z=0, half on z=1
    assert _project([0.5], [1.0])[0].tolist() == pytest.approx([0.0, 0.5, 0.5])


def test_projection_clamps_to_the_support():
    assert _project([5.0], [0.0])[0].tolist() == pytest.approx([0.0, 0.0, 1.0])
    assert _project([-5.0], [0.0])[0].tolist() == pytest.approx([1.0, 0.0, 0.0])


def test_projection_at_v_max_stays_on_the_last_atom_when_float32_rounds_past_it():
    # in float32, (v_max - v_min) / delta_z is 127.0000076 for this support: its ceiling indexed atom 128
    # of 128 (an index-out-of-bounds RuntimeError on a CPU, a device-side assert on a GPU)
    support = torch.linspace(-40.714285714285715, 59.333333333333336, 128)
    next_dist = torch.full((2, 128), 1 / 128)
    target = categorical_projection(next_dist, torch.tensor([100.0, 0.0]), torch.tensor([1.0, 1.0]), 0.99, support)
    assert target[0, -1].item() == pytest.approx(1.0)
    assert target.sum(1).tolist() == pytest.approx([1.0, 1.0])


def test_projection_nstep_discounts_by_gamma_to_the_real_steps():
    # R = 0.5 + 0.5 * -1 = 0, discount 0.5^2: Tz = [-0.25, 0, 0.25] -> b = [0.75, 1, 1.25]
    two_steps = _project([[0.5, -1.0]], [0.0], nstep=torch.tensor([2]))
    assert two_steps[0].tolist() == pytest.approx([0.05, 0.15 + 0.3 + 0.375, 0.125])
    # a window cut by the episode end after one step: second reward 0, discount 0.5^1
    assert _project([[0.5, 0.0]], [0.0], nstep=torch.tensor([1]))[0].tolist() == pytest.approx([0.0, 0.35, 0.65])


def test_cross_entropy_loss_priorities_and_weights():
    dist = torch.tensor([[[1 / 3, 1 / 3, 1 / 3], [0.25, 0.25, 0.5]]], requires_grad=True)  # [B=1, A=2, 3]
    next_dist = torch.stack([NEXT[0], torch.tensor([1.0, 0.0, 0.0])]).unsqueeze(0)
    out = dist_nstep_td_error(dist, next_dist, torch.tensor([1]), torch.tensor([0]), torch.tensor([0.5]),
                              torch.tensor([0.0]), 0.5, SUPPORT, weight=torch.tensor([2.0]))
    ce = -(0.35 * math.log(0.25) + 0.65 * math.log(0.5))  # target [0, 0.35, 0.65] against p(s, a=1)
    assert out.td_error_per_sample.tolist() == pytest.approx([ce])
    assert out.loss.item() == pytest.approx(2 * ce)
    assert out.q_sa.tolist() == pytest.approx([0.25]) and out.target_q.tolist() == pytest.approx([0.65])
    out.loss.backward()
    assert dist.grad[0, 0].abs().sum() == 0 and dist.grad[0, 1].abs().sum() > 0  # only the taken action learns
