"""A2C loss: the policy gradient with a learned baseline, in one synchronous update."""
import torch


def a2c_loss(logp: torch.Tensor, adv: torch.Tensor, value: torch.Tensor, return_: torch.Tensor,
             entropy: torch.Tensor, value_weight: float = 0.5, entropy_weight: float = 0.01) -> dict:
    """To minimise:

        policy_loss = -mean(logp(a|s) * A)          (A is a constant: no gradient into the critic)
        value_loss  = 0.5 * mean((V(s) - R)^2)
        total       = policy_loss + value_weight * value_loss - entropy_weight * mean(entropy)
    """
    policy_loss = -(logp * adv.detach()).mean()
    value_loss = 0.5 * (value - return_).pow(2).mean()
    entropy_mean = entropy.mean()
    total = policy_loss + value_weight * value_loss - entropy_weight * entropy_mean
    return dict(total_loss=total, policy_loss=policy_loss, value_loss=value_loss, entropy=entropy_mean)
