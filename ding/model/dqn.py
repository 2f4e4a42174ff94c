"""`DQN`: observation -> one Q value per discrete action, as `{'logit': Tensor [B, A]}`."""
from typing import Dict, Optional, Sequence, Type, Union

import torch
from torch import nn

from ding.model.action_mask import masks_actions
from ding.model.conv_encoders import build_encoder
from ding.model.heads import DiscreteHead, DuelingHead, as_activation_class
from ding.utils.registry import MODEL_REGISTRY


def _action_count(action_shape: Union[int, Sequence[int]]) -> int:
    if isinstance(action_shape, int):
        return action_shape
    shape = list(action_shape)
    if len(shape) != 1:
        raise ValueError(f'DQN takes one discrete action dimension; got action_shape={action_shape!r}')
    return int(shape[0])


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
