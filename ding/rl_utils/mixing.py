"""The TD loss of value-decomposition multi-agent Q-learning (QMIX, VDN, independent Q)."""
from typing import NamedTuple

import torch


class MixingTDLoss(NamedTuple):
    loss: torch.Tensor  # scalar, with gradient
    td_error_abs: torch.Tensor  # |TD error| per row (the shape of total_q), no gradient
    target: torch.Tensor  # the TD target, no gradient


def mixing_td_loss(total_q: torch.Tensor, next_total_q: torch.Tensor, reward: torch.Tensor, done: torch.Tensor,
                   gamma: float) -> MixingTDLoss:
    """One-step TD on the team's mixed value, to minimise:

        target = r + gamma * (1 - done) * Q_tot^-(s', a'*)      (no gradient through it)
        loss   = mean( (Q_tot(s, a) - target)^2 )

    `total_q` is the mixed value of the actions taken, `next_total_q` the target network's mixed
    value of the bootstrap actions: [B] for QMIX and VDN, or [B, T] for the rows of replayed
    sequences (the recurrent policy: every row has its own next observation, so every row has a
    target). Without a mixer they are per agent, [B, A] or [B, T, A], and the team reward and done
    ([B] or [B, T]) are shared by the agents (independent Q-learning).
    """
    if total_q.dim() == reward.dim() + 1:  # per-agent values: broadcast the team's reward and end
        reward, done = reward.unsqueeze(-1), done.unsqueeze(-1)
    with torch.no_grad():
        target = reward + gamma * (1.0 - done) * next_total_q
    error = total_q - target
    return MixingTDLoss(error.pow(2).mean(), error.detach().abs(), target)
