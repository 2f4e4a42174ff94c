"""R2D2's loss over replayed sequences (Kapturowski et al. 2019).

Shapes (batch-first): q, target_q, online_q [B, T, A] are Q values along the window of
stored observations obs[0..T-1] (target_q and online_q without gradient); action [B, T];
reward [B, T, n] n-step rewards (zeros after each window's real steps); nstep [B, T] the real
steps k of each row's window, so its bootstrap state is obs[t + k]; done [B, T] terminated at
the window's last step; valid [B, T] which rows count (see `sequence_valid_mask`); weight [B]
importance-sampling weights of the sequences.
"""
from typing import NamedTuple, Optional

import torch

from ding.rl_utils.value_rescale import value_inv_transform, value_transform


class SequenceTDOutput(NamedTuple):
    loss: torch.Tensor  # scalar, with gradient
    td_error_abs: torch.Tensor  # [B, T] |Q(s, a) - y|, no gradient, 0 at invalid rows
    q_sa: torch.Tensor  # [B, T] Q(s, a), no gradient
    target: torch.Tensor  # [B, T] y, no gradient


def sequence_valid_mask(nstep: torch.Tensor, done: torch.Tensor, episode_ended: torch.Tensor,
                        burnin_step: int) -> torch.Tensor:
    """[B, T] bool: rows after the burn-in whose target the window can give.

    A row whose n-step window ends in a termination needs no bootstrap. Otherwise its bootstrap
    state obs[t + k] must lie in the window, and the window must not end in a time-limit cut
    (`episode_ended` and not `done`): the next obs there is the final obs of the cut episode,
    while obs[t + k] already belongs to the next one."""
    steps = nstep.shape[1]
    t = torch.arange(steps, device=nstep.device).unsqueeze(0)
    in_window = (t + nstep) <= steps - 1
    bootstrapped = in_window & ~episode_ended
    return (t >= burnin_step) & (done | bootstrapped)


def r2d2_sequence_td_error(q: torch.Tensor, target_q: torch.Tensor, online_q: torch.Tensor, action: torch.Tensor,
                           reward: torch.Tensor, nstep: torch.Tensor, done: torch.Tensor, valid: torch.Tensor,
                           gamma: float, value_rescale: bool = True,
                           weight: Optional[torch.Tensor] = None) -> SequenceTDOutput:
    """Double-DQN n-step TD error at every valid row of the sequences:

        y_t = h( sum_{i<k} gamma^i r_{t,i} + gamma^k (1 - done_t) h^-1(Q_target(s_{t+k}, a*)) ),
        a*  = argmax_a Q_online(s_{t+k}, a)

    with h the value rescaling (`value_rescale=False`: h = identity). The loss is the squared
    error averaged over valid rows, each sequence's rows weighted by its IS weight."""
    steps = q.shape[1]
    t = torch.arange(steps, device=q.device).unsqueeze(0)
    boot = torch.clamp(t + nstep, max=steps - 1).unsqueeze(-1)  # [B, T, 1] index of s_{t+k}
    q_sa = q.gather(-1, action.long().unsqueeze(-1)).squeeze(-1)
    with torch.no_grad():
        best = online_q.gather(1, boot.expand(-1, -1, online_q.shape[-1])).argmax(-1, keepdim=True)
        next_q = target_q.gather(1, boot.expand(-1, -1, target_q.shape[-1])).gather(-1, best).squeeze(-1)
        if value_rescale:
            next_q = value_inv_transform(next_q)
        discounts = gamma ** torch.arange(reward.shape[-1], device=q.device, dtype=reward.dtype)
        ret = (reward * discounts).sum(-1) + (gamma ** nstep.to(reward.dtype)) * (1 - done.float()) * next_q
        target = value_transform(ret) if value_rescale else ret
    td = (q_sa - target) * valid.float()
    per_row = td.pow(2)
    if weight is not None:
        per_row = per_row * weight.unsqueeze(-1)
    loss = per_row.sum() / valid.float().sum().clamp(min=1.0)
    return SequenceTDOutput(loss, td.detach().abs(), q_sa.detach(), target)


def sequence_priority(td_error_abs: torch.Tensor, valid: torch.Tensor, eta: float = 0.9) -> torch.Tensor:
    """[B] R2D2's sequence priority: eta * max_t |td| + (1 - eta) * mean_t |td| over valid rows
    (a mean alone would average the rare large errors away; a max alone is noisy)."""
    count = valid.float().sum(-1).clamp(min=1.0)
    return eta * td_error_abs.max(-1).values + (1 - eta) * td_error_abs.sum(-1) / count
