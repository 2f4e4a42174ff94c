"""`DQN`: observation -> one Q value per discrete action, as `{'logit': Tensor [B, A]}`.

Its Q heads are here too, and the other Q-value models (DRQN, PDQN, recurrent QMIX) use them:
`DiscreteHead` is the plain form, `DuelingHead` splits the value into a state value and action
advantages (Wang et al. 2016), which learns faster when many actions are equally good.
"""
from typing import Dict, Optional, Sequence, Type, Union

import torch
from torch import nn

from ding.model.action_mask import masks_actions
from ding.model.conv_encoders import build_encoder
from ding.model.common import as_activation_class, mlp
from ding.utils.registry import MODEL_REGISTRY


def _action_count(action_shape: Union[int, Sequence[int]]) -> int:
    if isinstance(action_shape, int):
        return action_shape
    shape = list(action_shape)
    if len(shape) != 1:
        raise ValueError(f'DQN takes one discrete action dimension; got action_shape={action_shape!r}')
    return int(shape[0])


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


@MODEL_REGISTRY.register('dqn')
class DQN(nn.Module):
    """Encoder (MLP or conv) followed by a dueling or plain Q head.

    `head_hidden_size` defaults to the encoder's output width; `head_layer_num` hidden layers
    of that width sit in each head stream. `activation` may be a class or an instance."""

    def __init__(self, obs_shape: Union[int, Sequence[int]], action_shape: Union[int, Sequence[int]],
                 encoder_hidden_size_list: Sequence[int] = (128, 128, 64), dueling: bool = True,
                 head_hidden_size: Optional[int] = None, head_layer_num: int = 1,
                 activation: Union[Type[nn.Module], nn.Module] = nn.ReLU) -> None:
        super().__init__()
        act = as_activation_class(activation)
        self.encoder = build_encoder(obs_shape, list(encoder_hidden_size_list), act)
        feature_size = self.encoder.output_size
        head_cls = DuelingHead if dueling else DiscreteHead
        self.head = head_cls(head_hidden_size or feature_size, _action_count(action_shape), head_layer_num, act,
                             input_size=feature_size)

    @masks_actions
    def forward(self, obs: torch.Tensor) -> Dict[str, torch.Tensor]:
        return self.head(self.encoder(obs))
