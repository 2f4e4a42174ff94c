"""Q-value heads: map an encoder's features to one value per discrete action.

`DiscreteHead` is the plain form, `DuelingHead` splits the value into a state value and
action advantages (Wang et al. 2016), which learns faster when many actions are equally good.
"""
from typing import Dict, Optional, Type, Union

import torch
from torch import nn

from ding.model.common import mlp


def as_activation_class(activation: Union[Type[nn.Module], nn.Module]) -> Type[nn.Module]:
    """An activation given as an instance (`nn.ReLU()`) or a class (`nn.ReLU`): return the class."""
    if isinstance(activation, nn.Module):
        return type(activation)
    return activation


class DiscreteHead(nn.Module):
    """`layer_num` hidden layers of width `hidden_size`, then one linear layer to `output_size`
    logits. `input_size` defaults to `hidden_size`."""

    def __init__(self, hidden_size: int, output_size: int, layer_num: int = 1,
                 activation: Union[Type[nn.Module], nn.Module] = nn.ReLU, input_size: Optional[int] = None) -> None:
        super().__init__()
        input_size = hidden_size if input_size is None else input_size
        self.net = mlp(input_size, [hidden_size] * layer_num, as_activation_class(activation), out_dim=output_size,
                       last_activation=False)

    def forward(self, x: torch.Tensor) -> Dict[str, torch.Tensor]:
        return {'logit': self.net(x)}


class DuelingHead(nn.Module):
    """Q(s, a) = V(s) + A(s, a) - mean_a' A(s, a'): the mean subtraction makes V and A
    identifiable. Each stream has `layer_num` hidden layers of width `hidden_size`."""

    def __init__(self, hidden_size: int, output_size: int, layer_num: int = 1,
                 activation: Union[Type[nn.Module], nn.Module] = nn.ReLU, input_size: Optional[int] = None) -> None:
        super().__init__()
        input_size = hidden_size if input_size is None else input_size
        act = as_activation_class(activation)
        self.advantage = mlp(input_size, [hidden_size] * layer_num, act, out_dim=output_size, last_activation=False)
        self.value = mlp(input_size, [hidden_size] * layer_num, act, out_dim=1, last_activation=False)

    def forward(self, x: torch.Tensor) -> Dict[str, torch.Tensor]:
        a = self.advantage(x)
        return {'logit': self.value(x) + a - a.mean(dim=-1, keepdim=True)}
