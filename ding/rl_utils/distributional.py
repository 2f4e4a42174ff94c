"""The categorical (C51) distributional TD loss, Bellemare et al. 2017.

The target distribution of Z(s, a) is that of R + gamma^n (1 - done) Z(s', a*): each atom z_j
of the next-state distribution moves to R + gamma^n z_j, which falls between two atoms of the
fixed support; its probability is split between those two atoms in proportion to closeness
(`categorical_projection`). The loss is the cross-entropy of the predicted distribution
against that target.

Shapes: dist, next_dist [B, A, n_atom] (probabilities); action, next_action [B] int64;
reward [B] or [B, n] (n-step, see `nstep_reward_enhancer`); done [B] terminated;
nstep [B] real steps per window; weight [B] importance-sampling weights; support [n_atom].
"""
from typing import NamedTuple, Optional

import torch

from ding.rl_utils.td import nstep_return


class DistTDOutput(NamedTuple):
    loss: torch.Tensor  # scalar, with gradient
    td_error_per_sample: torch.Tensor  # [B] cross-entropy per sample, no gradient: PER priorities
    q_sa: torch.Tensor  # [B] E[Z(s, a)], no gradient
    target_q: torch.Tensor  # [B] E[target distribution], no gradient


def categorical_projection(next_dist: torch.Tensor, reward: torch.Tensor, done: torch.Tensor, gamma: float,
                           support: torch.Tensor, nstep: Optional[torch.Tensor] = None) -> torch.Tensor:
    """Project R + gamma^n (1 - done) z onto `support`; next_dist [B, n_atom] -> target [B, n_atom]."""
    # the bounds stay tensors: reading them on the host would sync a GPU every update
    v_min, v_max, n_atom = support[0], support[-1], support.numel()
    delta_z = (v_max - v_min) / (n_atom - 1)
    ret, discount = nstep_return(reward, gamma, nstep)
    discount = discount * (1.0 - done.to(ret.dtype))
    tz = (ret.unsqueeze(1) + discount.unsqueeze(1) * support.unsqueeze(0)).clamp(v_min, v_max)
    # fractional atom index; the clamp keeps rounding (tz at v_max) from indexing past the last atom
    b = ((tz - v_min) / delta_z).clamp(0, n_atom - 1)
    lower, upper = b.floor().long(), b.ceil().long()
    # b on an atom exactly: lower == upper, and all the mass goes to that atom
    lower_weight = (upper.to(b.dtype) - b) + (lower == upper).to(b.dtype)
    upper_weight = b - lower.to(b.dtype)
    target = torch.zeros_like(next_dist)
    target.scatter_add_(1, lower, next_dist * lower_weight)
    target.scatter_add_(1, upper, next_dist * upper_weight)
    return target


def dist_nstep_td_error(dist: torch.Tensor, next_dist: torch.Tensor, action: torch.Tensor,
                        next_action: torch.Tensor, reward: torch.Tensor, done: torch.Tensor, gamma: float,
                        support: torch.Tensor, nstep: Optional[torch.Tensor] = None,
                        weight: Optional[torch.Tensor] = None) -> DistTDOutput:
    """loss = mean_b w_b * CE(target_b, p(s_b, a_b)), the target from the target net's
    distribution at (s', next_action) (pick next_action with the online net for double DQN)."""
    batch = torch.arange(dist.shape[0], device=dist.device)
    p_sa = dist[batch, action.long()]  # [B, n_atom]
    with torch.no_grad():
        target = categorical_projection(next_dist[batch, next_action.long()], reward.to(dist.dtype), done, gamma,
                                        support, nstep)
    cross_entropy = -(target * p_sa.clamp(min=1e-6).log()).sum(-1)
    weighted = cross_entropy if weight is None else cross_entropy * weight.to(cross_entropy.dtype)
    return DistTDOutput(weighted.mean(), cross_entropy.detach(), (p_sa.detach() * support).sum(-1),
                        (target * support).sum(-1))
