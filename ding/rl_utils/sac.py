"""Soft actor-critic math: tanh-squashed Gaussian sampling, soft Q targets, actor and
temperature losses, for continuous and discrete actions."""
import math
from typing import Tuple

import torch
import torch.nn.functional as F

from ding.rl_utils.td import td_target

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
_LOG_2 = math.log(2.0)


def tanh_gaussian_sample(mu: torch.Tensor, log_sigma: torch.Tensor, deterministic: bool = False
                         ) -> Tuple[torch.Tensor, torch.Tensor]:
    """a = tanh(u), u = mu + sigma * eps (reparameterized); returns (a, log pi(a|s)) [B].

    log pi(a) = sum_j [ log N(u_j; mu_j, sigma_j) - log(1 - tanh(u_j)^2) ], with the
    change-of-variables term written stably as 2 * (log 2 - u - softplus(-2u))."""
    eps = torch.zeros_like(mu) if deterministic else torch.randn_like(mu)
    u = mu + log_sigma.exp() * eps
    log_normal = -0.5 * eps.pow(2) - log_sigma - _HALF_LOG_2PI
    log_det = 2.0 * (_LOG_2 - u - F.softplus(-2.0 * u))
    return torch.tanh(u), (log_normal - log_det).sum(-1)


def soft_q_target(reward: torch.Tensor, done: torch.Tensor, next_q_all: torch.Tensor, next_logp: torch.Tensor,
                  alpha: torch.Tensor, gamma: float, nstep: torch.Tensor = None) -> torch.Tensor:
    """y = r + gamma * (1 - done) * (min_k Q'_k(s', a') - alpha * log pi(a'|s')), a' ~ pi(s').

    next_q_all [k, B] from the target critics (k = 2 gives clipped double Q)."""
    soft_value = next_q_all.min(0).values - alpha * next_logp
    return td_target(reward, done, soft_value, gamma, nstep).detach()


def sac_actor_loss(q_new_all: torch.Tensor, logp: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
    """L_pi = mean_b [ alpha * log pi(a|s) - min_k Q_k(s, a) ], a ~ pi(s) reparameterized."""
    return (alpha * logp - q_new_all.min(0).values).mean()


def alpha_loss(log_alpha: torch.Tensor, entropy: torch.Tensor, target_entropy: float) -> torch.Tensor:
    """L_alpha = log_alpha * mean(H - H_target): alpha grows while the policy's entropy H is
    below the target and shrinks above it. For continuous SAC H = -log pi(a|s)."""
    return log_alpha * (entropy.detach() - target_entropy).mean()


def discrete_soft_q_target(reward: torch.Tensor, done: torch.Tensor, next_q_all: torch.Tensor,
                           next_logit: torch.Tensor, alpha: torch.Tensor, gamma: float,
                           nstep: torch.Tensor = None) -> torch.Tensor:
    """y = r + gamma * (1 - done) * sum_a pi(a|s') (min_k Q'_k(s', a) - alpha * log pi(a|s')).

    next_q_all [k, B, A]; next_logit [B, A]. The expectation over actions is exact."""
    logp = F.log_softmax(next_logit, dim=-1)
    soft_value = (logp.exp() * (next_q_all.min(0).values - alpha * logp)).sum(-1)
    return td_target(reward, done, soft_value, gamma, nstep).detach()


def discrete_sac_actor_loss(q_all: torch.Tensor, logit: torch.Tensor, alpha: torch.Tensor
                            ) -> Tuple[torch.Tensor, torch.Tensor]:
    """L_pi = mean_b sum_a pi(a|s) (alpha * log pi(a|s) - min_k Q_k(s, a)); returns (loss, entropy [B])."""
    logp = F.log_softmax(logit, dim=-1)
    p = logp.exp()
    loss = (p * (alpha * logp - q_all.min(0).values.detach())).sum(-1).mean()
    return loss, -(p * logp).sum(-1)
