"""REINFORCE loss: the policy gradient weighted by the Monte-Carlo return."""
import torch


def pg_loss(logp: torch.Tensor, return_: torch.Tensor, entropy: torch.Tensor, entropy_weight: float = 0.01) -> dict:
    """To minimise:

        policy_loss = -mean(logp(a_t|s_t) * G_t)
        total       = policy_loss - entropy_weight * mean(entropy)
    """
    policy_loss = -(logp * return_.detach()).mean()
    entropy_mean = entropy.mean()
    return dict(total_loss=policy_loss - entropy_weight * entropy_mean, policy_loss=policy_loss, entropy=entropy_mean)
