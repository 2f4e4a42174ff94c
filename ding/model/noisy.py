"""`NoisyLinear`: a linear layer with learned, factorised Gaussian noise on its weights
(Fortunato et al. 2018, "Noisy Networks for Exploration"), Rainbow's exploration.

In training mode every forward draws fresh noise, so the learner sees a new perturbed
network at each update; in eval mode the layer is its mean (plain linear), so evaluation
and the (eval-mode) acting copies are deterministic.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F


def _scaled_noise(size: int, device: torch.device) -> torch.Tensor:
    """f(x) = sign(x) sqrt(|x|), x ~ N(0, 1): the factorised-noise transform of the paper."""
    x = torch.randn(size, device=device)
    return x.sign() * x.abs().sqrt()


class NoisyLinear(nn.Module):
    """y = (mu_w + sigma_w * eps_w) x + mu_b + sigma_b * eps_b, with eps_w = f(e_out) f(e_in)^T
    (factorised: in + out random numbers per forward instead of in * out)."""

    def __init__(self, in_features: int, out_features: int, sigma0: float = 0.4) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight_mu = nn.Parameter(torch.empty(out_features, in_features))
        self.weight_sigma = nn.Parameter(torch.empty(out_features, in_features))
        self.bias_mu = nn.Parameter(torch.empty(out_features))
        self.bias_sigma = nn.Parameter(torch.empty(out_features))
        bound = 1.0 / math.sqrt(in_features)
        nn.init.uniform_(self.weight_mu, -bound, bound)
        nn.init.uniform_(self.bias_mu, -bound, bound)
        nn.init.constant_(self.weight_sigma, sigma0 * bound)
        nn.init.constant_(self.bias_sigma, sigma0 / math.sqrt(out_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training:
            return F.linear(x, self.weight_mu, self.bias_mu)
        eps_in = _scaled_noise(self.in_features, x.device)
        eps_out = _scaled_noise(self.out_features, x.device)
        weight = self.weight_mu + self.weight_sigma * torch.outer(eps_out, eps_in)
        bias = self.bias_mu + self.bias_sigma * eps_out
        return F.linear(x, weight, bias)

    def extra_repr(self) -> str:
        return f'in_features={self.in_features}, out_features={self.out_features}'


def noisy_mlp(in_dim: int, hidden_size: int, layer_num: int, out_dim: int, activation: type) -> nn.Sequential:
    """`layer_num` noisy hidden layers of width `hidden_size` (with activation), then a noisy
    output layer to `out_dim`."""
    layers, dim = [], in_dim
    for _ in range(layer_num):
        layers += [NoisyLinear(dim, hidden_size), activation()]
        dim = hidden_size
    layers.append(NoisyLinear(dim, out_dim))
    return nn.Sequential(*layers)
