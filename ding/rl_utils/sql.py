"""Soft Q-learning (Haarnoja et al. 2017, discrete actions): the TD error against the soft
value, and the Boltzmann policy it implies.

Shapes as in td.py: q, next_q_target [B, A]; action [B]; reward [B] or n-step [B, n];
done [B] (terminated, not truncated); nstep [B]; weight [B]; alpha > 0 the temperature.
"""
from typing import Optional

import torch

from ding.rl_utils.exploration import uniform_action
from ding.rl_utils.td import QTDOutput, td_target


def soft_value(q: torch.Tensor, alpha: float) -> torch.Tensor:
    """V(s) = alpha * log sum_a exp(Q(s, a) / alpha): a smooth max over actions that tends to
    max_a Q as alpha -> 0. [B, A] -> [B]; logsumexp keeps it finite for any Q / alpha."""
    return alpha * torch.logsumexp(q / alpha, dim=-1)


def q_nstep_sql_td_error(q: torch.Tensor, next_q_target: torch.Tensor, action: torch.Tensor, reward: torch.Tensor,
                         done: torch.Tensor, gamma: float, alpha: float, nstep: Optional[torch.Tensor] = None,
                         weight: Optional[torch.Tensor] = None) -> QTDOutput:
    """loss = mean_b w_b * (Q(s_b, a_b) - y_b)^2 with the soft target
    y = sum_{k<n} gamma^k r_k + gamma^nstep * (1 - done) * soft_value(Q_target(s_{t+n}), alpha)."""
    if alpha <= 0:
        raise ValueError(f'soft Q-learning needs a temperature alpha > 0, got {alpha}')
    with torch.no_grad():
        target = td_target(reward, done, soft_value(next_q_target, alpha), gamma, nstep)
    q_sa = q.gather(-1, action.long().reshape(-1, 1)).squeeze(-1)
    err = q_sa - target
    sq = err.pow(2)
    if weight is not None:
        sq = sq * weight.to(sq.dtype)
    return QTDOutput(sq.mean(), err.detach().abs(), q_sa.detach(), target)


def boltzmann_action(q: torch.Tensor, alpha: float, eps: float = -1,
                     action_mask: Optional[torch.Tensor] = None) -> torch.Tensor:
    """Sample a ~ softmax(Q(s, .) / alpha) per row, or with probability eps a uniform action
    (among those `action_mask` allows; eps < 0: never). q [B, A] -> action int64 [B]; torch's
    global generator, so seeded runs repeat."""
    action = torch.distributions.Categorical(logits=q / alpha).sample()
    if eps <= 0:
        return action
    explore = torch.rand(q.shape[0], device=q.device) < eps
    return torch.where(explore, uniform_action(q, action_mask), action)
