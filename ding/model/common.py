"""Building blocks shared by the models: an MLP trunk and a linear head."""
from typing import Sequence, Type

import torch
from torch import nn


def mlp(in_dim: int, hidden: Sequence[int], activation: Type[nn.Module] = nn.ReLU,
        out_dim: int = None, last_activation: bool = True) -> nn.Sequential:
    """in_dim -> hidden[0] -> ... -> hidden[-1] (-> out_dim). Activation after every hidden layer;
    after the output layer only when `last_activation`."""
    layers = []
    dims = [in_dim, *hidden]
    for a, b in zip(dims[:-1], dims[1:]):
        layers += [nn.Linear(a, b), activation()]
    if out_dim is not None:
        layers.append(nn.Linear(dims[-1], out_dim))
        if last_activation:
            layers.append(activation())
    return nn.Sequential(*layers)


def flat_dim(shape) -> int:
    """An int or a shape tuple/list -> the number of features."""
    if isinstance(shape, int):
        return shape
    n = 1
    for s in shape:
        n *= int(s)
    return n


class FCEncoder(nn.Module):
    """Flatten then MLP: the encoder for vector observations."""

    def __init__(self, obs_shape, hidden_size_list: Sequence[int], activation: Type[nn.Module] = nn.ReLU) -> None:
        super().__init__()
        self.output_size = hidden_size_list[-1]
        self.net = mlp(flat_dim(obs_shape), hidden_size_list, activation)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x.flatten(1))
