"""Offline RL losses, one readable function each: behaviour cloning, CQL's conservative
penalty (continuous and discrete), TD3+BC's actor loss, IQL's expectile value loss and
advantage-weighted actor loss."""
import math
from typing import Optional

import torch
import torch.nn.functional as F


def bc_continuous_loss(pred_action: torch.Tensor, action: torch.Tensor, loss_type: str = 'l1_loss') -> torch.Tensor:
    """mean |a_pi(s) - a| ('l1_loss') or mean (a_pi(s) - a)^2 ('mse_loss') over dataset pairs."""
    if loss_type == 'l1_loss':
        return F.l1_loss(pred_action, action)
    if loss_type == 'mse_loss':
        return F.mse_loss(pred_action, action)
    raise ValueError(f"loss_type must be 'l1_loss' or 'mse_loss', got {loss_type!r}")


def bc_discrete_loss(logit: torch.Tensor, action: torch.Tensor, label_smoothing: float = 0.0) -> torch.Tensor:
    """Cross-entropy of the dataset action under pi(.|s); logit [B, A], action [B] (long)."""
    return F.cross_entropy(logit, action.long().reshape(-1), label_smoothing=label_smoothing)


def cql_penalty(q_data: torch.Tensor, q_random: torch.Tensor, q_policy: torch.Tensor, logp_policy: torch.Tensor,
                action_dim: int) -> torch.Tensor:
    """CQL(H) penalty, importance-sampled (Kumar et al. 2020, appendix F), summed over critics:

        sum_k mean_b [ log sum_j exp(Q_k(s, a_j) - log mu(a_j|s)) - Q_k(s, a_data) ]

    where the a_j are M uniform actions in [-1, 1]^d (density 0.5^d) and M actions of the
    current policy (log density `logp_policy`). Shapes: q_data [k, B]; q_random [k, B, M];
    q_policy [k, B, M'] and logp_policy [B, M'] (no gradient). The constant log(M + M') that a
    mean instead of a sum would subtract is left out, as the reference code does."""
    log_uniform = action_dim * math.log(0.5)
    sampled = torch.cat([q_random - log_uniform, q_policy - logp_policy.detach().unsqueeze(0)], dim=-1)
    return (torch.logsumexp(sampled, dim=-1) - q_data).mean(-1).sum()


def discrete_cql_penalty(q_all: torch.Tensor, action: torch.Tensor) -> torch.Tensor:
    """Discrete CQL penalty: mean_b [ log sum_a exp Q(s, a) - Q(s, a_data) ]; q_all [B, A]."""
    q_data = q_all.gather(1, action.long().reshape(-1, 1)).squeeze(1)
    return (torch.logsumexp(q_all, dim=1) - q_data).mean()


def td3_bc_actor_loss(q_pi: torch.Tensor, pred_action: torch.Tensor, action: torch.Tensor,
                      alpha: float) -> torch.Tensor:
    """TD3+BC (Fujimoto & Gu 2021): -lambda * mean Q(s, pi(s)) + mean (pi(s) - a)^2, with
    lambda = alpha / mean|Q| (no gradient) so the two terms keep the same scale."""
    lmbda = alpha / q_pi.abs().mean().detach()
    return -lmbda * q_pi.mean() + F.mse_loss(pred_action, action)


def expectile_loss(diff: torch.Tensor, expectile: float) -> torch.Tensor:
    """IQL's value loss: mean |tau - 1(u < 0)| * u^2 with u = Q(s, a) - V(s) (Kostrikov et al. 2021)."""
    weight = torch.where(diff > 0, expectile, 1.0 - expectile)
    return (weight * diff.pow(2)).mean()


def awr_actor_loss(logp_data: torch.Tensor, advantage: torch.Tensor, beta: float,
                   max_weight: float = 100.0, weight: Optional[torch.Tensor] = None) -> torch.Tensor:
    """Advantage-weighted regression: -mean min(exp(beta * A), max_weight) * log pi(a_data|s)."""
    w = torch.exp(beta * advantage.detach()).clamp(max=max_weight)
    if weight is not None:
        w = w * weight
    return -(w * logp_data).mean()


def tanh_gaussian_log_prob(mu: torch.Tensor, log_sigma: torch.Tensor, action: torch.Tensor,
                           clip: float = 1.0 - 1e-4) -> torch.Tensor:
    """log pi(a|s) [B] of a given action a in [-1, 1] under a = tanh(u), u ~ N(mu, sigma^2);
    a is clipped inside (-1, 1) first, so a dataset action on the bound stays finite."""
    u = torch.atanh(action.clamp(-clip, clip))
    log_normal = -0.5 * ((u - mu) / log_sigma.exp()).pow(2) - log_sigma - 0.5 * math.log(2 * math.pi)
    log_det = 2.0 * (math.log(2.0) - u - F.softplus(-2.0 * u))
    return (log_normal - log_det).sum(-1)


def vae_loss(recons_action: torch.Tensor, action: torch.Tensor, mu: torch.Tensor, log_std: torch.Tensor,
             kl_weight: float = 0.5) -> torch.Tensor:
    """BCQ's action VAE: mean (a_rec - a)^2 + kl_weight * mean KL(N(mu, std^2) || N(0, 1))."""
    kl = -0.5 * (1.0 + 2.0 * log_std - mu.pow(2) - (2.0 * log_std).exp())
    return F.mse_loss(recons_action, action) + kl_weight * kl.mean()


def bcq_soft_clipped_value(next_q_all: torch.Tensor, lmbda: float) -> torch.Tensor:
    """BCQ's value of s': per sampled action, lmbda * min_k Q'_k + (1 - lmbda) * max_k Q'_k, then
    the max over the samples. next_q_all [k, B, n] -> [B]."""
    mixed = lmbda * next_q_all.min(0).values + (1.0 - lmbda) * next_q_all.max(0).values
    return mixed.max(-1).values
