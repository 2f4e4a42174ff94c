"""R2D2's value rescaling (Pohlen et al. 2018, "Observe and Look Further"): the network learns
h(Q) instead of Q, which squashes large returns so one learning rate suits every reward scale.

    h(x)      = sign(x) * (sqrt(|x| + 1) - 1) + eps * x
    h^-1(x)   = sign(x) * (((sqrt(1 + 4 eps (|x| + 1 + eps)) - 1) / (2 eps))^2 - 1)

h^-1 is the exact inverse of h (solve the quadratic in sqrt(|x| + 1)); eps = 1e-2 as in R2D2.
"""
import torch


def value_transform(x: torch.Tensor, eps: float = 1e-2) -> torch.Tensor:
    """h(x): compresses large magnitudes roughly to their square root, linear-ish near 0."""
    return torch.sign(x) * (torch.sqrt(torch.abs(x) + 1) - 1) + eps * x


def value_inv_transform(x: torch.Tensor, eps: float = 1e-2) -> torch.Tensor:
    """h^-1(x): back from the rescaled space to returns."""
    root = (torch.sqrt(1 + 4 * eps * (torch.abs(x) + 1 + eps)) - 1) / (2 * eps)
    return torch.sign(x) * (root * root - 1)
