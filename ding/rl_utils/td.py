"""Temporal-difference targets and errors: the (n-step) bootstrapped target every value learner
uses, Q-learning's TD error (DQN and its double / n-step variants), the critics' TD loss of the
actor-critic learners (SAC, TD3, DDPG, ...), and the Polyak update of target networks.

Shapes: q, next_q [B, A]; action [B] int64; reward [B] (1-step) or [B, n] (n-step, zeros
after the window ends, see `nstep_reward_enhancer`); done [B] = *terminated* within the
window (a time-limit truncation is not done: it still bootstraps); nstep [B] = the number
of real steps in each window (defaults to n); weight [B] = importance-sampling weights.
"""
from typing import Iterable, NamedTuple, Optional

import torch

TD_LOSSES = ('squared', 'huber')


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


class QTDOutput(NamedTuple):
    loss: torch.Tensor  # scalar, with gradient
    td_error_abs: torch.Tensor  # [B] |Q(s, a) - y|, no gradient: new priorities for PER
    q_sa: torch.Tensor  # [B] Q(s, a), no gradient
    target: torch.Tensor  # [B] y, no gradient


def bootstrap_q(next_q_target: torch.Tensor, next_q_online: Optional[torch.Tensor] = None) -> torch.Tensor:
    """Value of the next state under the target net.

    DQN:        max_a Q_target(s', a)
    double DQN: Q_target(s', argmax_a Q_online(s', a)) (pass `next_q_online`): choosing the
                action with one net and valuing it with the other removes the max's upward bias.
    """
    chooser = next_q_target if next_q_online is None else next_q_online
    best = chooser.argmax(dim=-1, keepdim=True)
    return next_q_target.gather(-1, best).squeeze(-1)


def q_nstep_td_error(q: torch.Tensor, next_q_target: torch.Tensor, action: torch.Tensor, reward: torch.Tensor,
                     done: torch.Tensor, gamma: float, nstep: Optional[torch.Tensor] = None,
                     weight: Optional[torch.Tensor] = None,
                     next_q_online: Optional[torch.Tensor] = None, loss: str = 'squared') -> QTDOutput:
    """loss = mean_b w_b * rho(Q(s_b, a_b) - y_b) with
    y = sum_{k<n} gamma^k r_k + gamma^nstep * (1 - done) * bootstrap_q(s_{t+n}).

    rho(u) = u^2 (`loss='squared'`, the default), or the Huber loss (`loss='huber'`:
    u^2 / 2 for |u| <= 1, |u| - 1/2 beyond; the Nature DQN's and MinAtar's, and SB3's only
    choice): large TD errors then pull with a bounded gradient.

    reward [B] is the 1-step case (y = r + gamma * (1 - done) * bootstrap_q(s'))."""
    if loss not in TD_LOSSES:
        raise ValueError(f'q_nstep_td_error: loss must be one of {TD_LOSSES}, got {loss!r}')
    with torch.no_grad():
        next_value = bootstrap_q(next_q_target, next_q_online)
        target = td_target(reward, done, next_value, gamma, nstep)
    q_sa = q.gather(-1, action.long().reshape(-1, 1)).squeeze(-1)
    err = q_sa - target
    per_sample = err.pow(2) if loss == 'squared' else torch.nn.functional.huber_loss(
        q_sa, target, reduction='none', delta=1.0)
    if weight is not None:
        per_sample = per_sample * weight.to(per_sample.dtype)
    return QTDOutput(per_sample.mean(), err.detach().abs(), q_sa.detach(), target)


def q_1step_td_error(q: torch.Tensor, next_q_target: torch.Tensor, action: torch.Tensor, reward: torch.Tensor,
                     done: torch.Tensor, gamma: float, weight: Optional[torch.Tensor] = None,
                     next_q_online: Optional[torch.Tensor] = None) -> QTDOutput:
    """The 1-step case: y = r + gamma * (1 - done) * bootstrap_q(s'); reward must be [B]."""
    if reward.dim() != 1:
        raise ValueError(f'q_1step_td_error takes reward [B]; got shape {tuple(reward.shape)} '
                         f'(use q_nstep_td_error for n-step rewards)')
    return q_nstep_td_error(q, next_q_target, action, reward, done, gamma, weight=weight, next_q_online=next_q_online)
