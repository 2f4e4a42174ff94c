"""Pieces shared by the off-policy actor-critic learners (SAC, TD3, DDPG): the bootstrapped
TD target (1-step or n-step), polyak averaging of target networks, and the critic loss."""
from typing import Iterable, Optional

import torch


def nstep_return(reward: torch.Tensor, gamma: float, nstep: Optional[torch.Tensor] = None):
    """Discounted reward sum and the bootstrap discount.

    reward [B] (1-step) -> (reward, gamma).
    reward [B, n] (from `nstep_reward_enhancer`, zeros after the window ends), nstep [B] the
    number of real steps -> (sum_i gamma^i r_i, gamma ** nstep).
    """
    if reward.dim() == 1:
        return reward, torch.full_like(reward, gamma)
    powers = gamma ** torch.arange(reward.shape[1], dtype=reward.dtype, device=reward.device)
    steps = nstep.to(reward.dtype) if nstep is not None else torch.full_like(reward[:, 0], reward.shape[1])
    return (reward * powers).sum(1), gamma ** steps


def td_target(reward: torch.Tensor, done: torch.Tensor, next_value: torch.Tensor, gamma: float,
              nstep: Optional[torch.Tensor] = None) -> torch.Tensor:
    """y = R + gamma^n * (1 - done) * V(s'), with R the (n-step) discounted reward.

    `done` means *terminated*: a time-limit truncation still bootstraps."""
    ret, discount = nstep_return(reward, gamma, nstep)
    return ret + discount * (1.0 - done.to(ret.dtype)) * next_value


def critic_loss(q_all: torch.Tensor, target: torch.Tensor, weight: Optional[torch.Tensor] = None):
    """Sum over critics of the mean squared TD error: sum_k mean_b w_b (Q_k(s,a) - y)^2.

    q_all [k, B]; target [B] (no gradient); weight [B] importance weights or None.
    Returns (loss, td_error_abs [B] of the first critic, for priorities)."""
    err = q_all - target.detach().unsqueeze(0)
    sq = err.pow(2)
    if weight is not None:
        sq = sq * weight.unsqueeze(0)
    return sq.mean(1).sum(), err[0].detach().abs()


@torch.no_grad()
def soft_update(target_params: Iterable[torch.Tensor], params: Iterable[torch.Tensor], theta: float) -> None:
    """Polyak averaging, in place and fused: target <- (1 - theta) * target + theta * online."""
    torch._foreach_lerp_(list(target_params), list(params), theta)
