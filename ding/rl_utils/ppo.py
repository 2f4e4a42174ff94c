"""PPO losses: clipped policy surrogate, clipped value loss, entropy bonus."""
from typing import NamedTuple, Optional

import torch


class PPOPolicyLoss(NamedTuple):
    loss: torch.Tensor
    approx_kl: torch.Tensor  # mean of (logp_old - logp_new): how far this update moved the policy
    clip_fraction: torch.Tensor  # share of samples whose ratio left [1 - eps, 1 + eps]


def ppo_policy_loss(logp_new: torch.Tensor, logp_old: torch.Tensor, adv: torch.Tensor,
                    clip_ratio: float = 0.2, weight: Optional[torch.Tensor] = None) -> PPOPolicyLoss:
    """Clipped surrogate, to minimise:

        ratio = exp(logp_new - logp_old)
        loss  = -mean( min(ratio * A, clip(ratio, 1 - eps, 1 + eps) * A) )

    The min makes the objective pessimistic: moving the ratio past 1 +- eps earns nothing.
    """
    ratio = torch.exp(logp_new - logp_old)
    surrogate = torch.min(ratio * adv, ratio.clamp(1 - clip_ratio, 1 + clip_ratio) * adv)
    with torch.no_grad():
        approx_kl = (logp_old - logp_new).mean()
        clip_fraction = ((ratio - 1).abs() > clip_ratio).float().mean()
    return PPOPolicyLoss(-_mean(surrogate, weight), approx_kl, clip_fraction)


def ppo_value_loss(value_new: torch.Tensor, value_old: torch.Tensor, return_: torch.Tensor,
                   clip_ratio: Optional[float] = 0.2, weight: Optional[torch.Tensor] = None) -> torch.Tensor:
    """Value regression, clipped around the value seen at collection when `clip_ratio` is set:

        V_clip = V_old + clip(V_new - V_old, -eps, eps)
        loss   = 0.5 * mean( max((V_new - R)^2, (V_clip - R)^2) )

    Without clipping: 0.5 * mean((V_new - R)^2).
    """
    error = (value_new - return_).pow(2)
    if clip_ratio is not None:
        clipped = value_old + (value_new - value_old).clamp(-clip_ratio, clip_ratio)
        error = torch.max(error, (clipped - return_).pow(2))
    return 0.5 * _mean(error, weight)


def ppo_loss(logp_new: torch.Tensor, logp_old: torch.Tensor, adv: torch.Tensor, value_new: torch.Tensor,
             value_old: torch.Tensor, return_: torch.Tensor, entropy: torch.Tensor, clip_ratio: float = 0.2,
             value_clip: bool = True, value_weight: float = 0.5, entropy_weight: float = 0.0) -> dict:
    """total = policy_loss + value_weight * value_loss - entropy_weight * mean(entropy)."""
    policy = ppo_policy_loss(logp_new, logp_old, adv, clip_ratio)
    value_loss = ppo_value_loss(value_new, value_old, return_, clip_ratio if value_clip else None)
    entropy_mean = entropy.mean()
    total = policy.loss + value_weight * value_loss - entropy_weight * entropy_mean
    return dict(total_loss=total, policy_loss=policy.loss, value_loss=value_loss, entropy=entropy_mean,
                approx_kl=policy.approx_kl, clip_fraction=policy.clip_fraction)


def _mean(x: torch.Tensor, weight: Optional[torch.Tensor]) -> torch.Tensor:
    return x.mean() if weight is None else (x * weight).mean()
