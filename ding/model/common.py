"""Building blocks shared by the models: MLPs, the vector and image encoders, and shape helpers."""
import math
import numbers
from typing import List, Sequence, Type, Union

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


def as_activation_class(activation: Union[Type[nn.Module], nn.Module]) -> Type[nn.Module]:
    """An activation given as an instance (`nn.ReLU()`) or a class (`nn.ReLU`): return the class."""
    if isinstance(activation, nn.Module):
        return type(activation)
    return activation


def head_widths(size: Union[int, Sequence[int]], layer_num: int, name: str = 'hidden size') -> List[int]:
    """A head's hidden widths: `size` over 1 + `layer_num` layers, or, given as a list,
    the widths themselves (e.g. [400, 300], the TD3 paper's and the RL Zoo's networks);
    `layer_num` is then not read."""
    if _positive_int(size):
        return [int(size)] * (1 + layer_num)
    if isinstance(size, (list, tuple)) and size and all(_positive_int(w) for w in size):
        return [int(w) for w in size]
    raise ValueError(f'{name} must be a positive int or a non-empty list of positive ints, got {size!r}')


def _positive_int(x: object) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool) and x > 0  # numpy ints too


def flat_dim(shape) -> int:
    """An int or a shape tuple/list -> the number of features."""
    if isinstance(shape, int):
        return shape
    return math.prod(int(s) for s in shape)


class FCEncoder(nn.Module):
    """Flatten then MLP: the encoder for vector observations. Integer input (a uint8 vector
    observation) is taken as its values: only images are scaled, by ConvEncoder."""

    def __init__(self, obs_shape, hidden_size_list: Sequence[int], activation: Type[nn.Module] = nn.ReLU) -> None:
        super().__init__()
        self.output_size = hidden_size_list[-1]
        self.net = mlp(flat_dim(obs_shape), hidden_size_list, activation)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.flatten(1)
        return self.net(x if x.is_floating_point() else x.float())


class ConvEncoder(nn.Module):
    """Conv stack for image observations [C, H, W]: one conv layer per kernel, with channels
    `hidden_size_list[:len(kernel_size)]`, then flatten and a linear layer to
    `hidden_size_list[-1]` (so [32, 64, 64, 128] and [128, 128, 512] both fit).
    The default kernels and strides are the Atari DQN ones (Mnih et al. 2015).

    uint8 input is taken as pixels 0..255 and divided by 255 here, as SB3 and CleanRL do: frames
    can then stay bytes from the env through the replay and the object store (Atari's
    `scale=False`), a quarter of float32's traffic, and the network sees exactly the float32
    values `ScaledFloatFrameWrapper` would have produced. Float input is used as it is."""

    def __init__(self, obs_shape, hidden_size_list: Sequence[int] = (32, 64, 64, 128),
                 activation: Type[nn.Module] = nn.ReLU, kernel_size: Sequence[int] = (8, 4, 3),
                 stride: Sequence[int] = (4, 2, 1)) -> None:
        super().__init__()
        n_conv = len(kernel_size)
        if len(stride) != n_conv or len(hidden_size_list) not in (n_conv, n_conv + 1):
            raise ValueError(f'ConvEncoder needs one stride per kernel and {n_conv} or {n_conv + 1} hidden sizes: '
                             f'hidden_size_list={list(hidden_size_list)}, kernel_size={list(kernel_size)}, '
                             f'stride={list(stride)}')
        channels = list(hidden_size_list[:n_conv])
        layers, in_ch = [], int(obs_shape[0])
        for ch, k, s in zip(channels, kernel_size, stride):
            layers += [nn.Conv2d(in_ch, ch, k, s), activation()]
            in_ch = ch
        layers.append(nn.Flatten())
        self.convs = nn.Sequential(*layers)
        with torch.no_grad():
            n_flat = self.convs(torch.zeros(1, *obs_shape)).shape[1]
        self.output_size = hidden_size_list[-1]
        self.fc = nn.Sequential(nn.Linear(n_flat, self.output_size), activation())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dtype == torch.uint8:
            x = x.float().div_(255)
        return self.fc(self.convs(x))
