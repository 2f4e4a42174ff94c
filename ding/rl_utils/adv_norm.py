"""Advantage normalisation: rescale a batch of advantages to zero mean and unit std."""
import torch


def normalize_advantage(adv: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    """(A - mean(A)) / (std(A) + eps). Makes the step size independent of the reward scale.
    A batch of one row is only centred (its std is undefined)."""
    if adv.numel() < 2:
        return adv - adv.mean()
    return (adv - adv.mean()) / (adv.std() + eps)
