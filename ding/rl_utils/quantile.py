"""Quantile-regression TD losses: QR-DQN (fixed fractions) and IQN (sampled fractions).

Each predicted value theta_i estimates the tau_i-quantile of the return. Against target
samples y_j = R + gamma^n (1 - done) theta'_j(s', a*), the quantile Huber loss is

    rho(u) = |tau_i - 1{u < 0}| * huber_kappa(u) / kappa,   u = y_j - theta_i

averaged over the targets j and summed over the predictions i (Dabney et al. 2018). The
asymmetric weight makes the minimiser the tau-quantile; Huber keeps gradients bounded.

Shapes: reward [B] or [B, n] (n-step, see `nstep_reward_enhancer`); done [B] terminated;
nstep [B]; weight [B] importance-sampling weights; action, next_action [B] int64.
"""
from typing import NamedTuple, Optional

import torch

from ding.rl_utils.td import nstep_return


class QuantileTDOutput(NamedTuple):
    loss: torch.Tensor  # scalar, with gradient
    td_error_per_sample: torch.Tensor  # [B] quantile Huber loss per sample, no gradient: PER priorities
    q_sa: torch.Tensor  # [B] mean of the predicted quantiles, no gradient
    target_q: torch.Tensor  # [B] mean of the target samples, no gradient


def quantile_huber_loss(pred: torch.Tensor, target: torch.Tensor, tau: torch.Tensor,
                        kappa: float = 1.0) -> torch.Tensor:
    """pred [B, N] at fractions tau [B, N] (or [N]), target [B, M] (no gradient) -> loss [B]."""
    if kappa <= 0:
        raise ValueError(f'quantile_huber_loss needs kappa > 0; got {kappa}')
    u = target.unsqueeze(1) - pred.unsqueeze(2)  # [B, N, M]: every (prediction, target) pair
    abs_u = u.abs()
    huber = torch.where(abs_u <= kappa, 0.5 * u.pow(2), kappa * (abs_u - 0.5 * kappa))
    tau = tau.expand_as(pred).unsqueeze(2)
    rho = (tau - (u.detach() < 0).to(u.dtype)).abs() * huber / kappa
    return rho.mean(2).sum(1)


def _quantile_td(q_sa: torch.Tensor, next_q_sa: torch.Tensor, tau: torch.Tensor, reward: torch.Tensor,
                 done: torch.Tensor, gamma: float, kappa: float, nstep: Optional[torch.Tensor],
                 weight: Optional[torch.Tensor]) -> QuantileTDOutput:
    with torch.no_grad():
        ret, discount = nstep_return(reward.to(q_sa.dtype), gamma, nstep)
        discount = discount * (1.0 - done.to(ret.dtype))
        target = ret.unsqueeze(1) + discount.unsqueeze(1) * next_q_sa  # [B, M]
    per_sample = quantile_huber_loss(q_sa, target, tau, kappa)
    weighted = per_sample if weight is None else per_sample * weight.to(per_sample.dtype)
    return QuantileTDOutput(weighted.mean(), per_sample.detach(), q_sa.detach().mean(1), target.mean(1))


def qrdqn_nstep_td_error(q: torch.Tensor, next_q: torch.Tensor, action: torch.Tensor, next_action: torch.Tensor,
                         reward: torch.Tensor, done: torch.Tensor, gamma: float, tau: torch.Tensor,
                         kappa: float = 1.0, nstep: Optional[torch.Tensor] = None,
                         weight: Optional[torch.Tensor] = None) -> QuantileTDOutput:
    """QR-DQN: q, next_q [B, A, N] (online, target net); tau [N] the fixed fractions."""
    batch = torch.arange(q.shape[0], device=q.device)
    return _quantile_td(q[batch, action.long()], next_q[batch, next_action.long()], tau, reward, done, gamma, kappa,
                        nstep, weight)


def iqn_nstep_td_error(q: torch.Tensor, next_q: torch.Tensor, action: torch.Tensor, next_action: torch.Tensor,
                       reward: torch.Tensor, done: torch.Tensor, gamma: float, tau: torch.Tensor,
                       kappa: float = 1.0, nstep: Optional[torch.Tensor] = None,
                       weight: Optional[torch.Tensor] = None) -> QuantileTDOutput:
    """IQN: q [B, N, A] at sampled fractions tau [B, N]; next_q [B, M, A] at other samples."""
    batch = torch.arange(q.shape[0], device=q.device)
    return _quantile_td(q[batch, :, action.long()], next_q[batch, :, next_action.long()], tau, reward, done, gamma,
                        kappa, nstep, weight)


def fqf_fraction_loss(q_tau_i: torch.Tensor, q_hat: torch.Tensor, tau: torch.Tensor,
                      action: torch.Tensor) -> torch.Tensor:
    """FQF's fraction loss (Yang et al. 2019, Proposition 1). The 1-Wasserstein error of the
    staircase quantile function has, for the inner fractions i = 1..N-1, the gradient
        dW1 / dtau_i = 2 F^-1(tau_i) - F^-1(tau_hat_{i-1}) - F^-1(tau_hat_i);
    the loss sum_i stopgrad(dW1 / dtau_i) * tau_i gives the fraction network exactly that gradient.

    q_tau_i [B, N-1, A] values at tau_1..tau_{N-1}; q_hat [B, N, A] values at the midpoints;
    tau [B, N+1] the proposed fractions (with gradient); action [B]."""
    batch = torch.arange(q_hat.shape[0], device=q_hat.device)
    f_tau = q_tau_i[batch, :, action.long()]  # [B, N-1]
    f_hat = q_hat[batch, :, action.long()]  # [B, N]
    grad = 2 * f_tau - f_hat[:, :-1] - f_hat[:, 1:]
    return (grad.detach() * tau[:, 1:-1]).sum(1).mean()
